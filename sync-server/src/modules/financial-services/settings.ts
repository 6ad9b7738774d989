/**
 * The store's financial-services settings: the check-cashing fee schedule (percent + fixed, minimum), the
 * bill-payment fee, and the limits of the three services (per transaction, per customer per day). Owns
 * `financial_service_settings` (one row per store; none → core's `DEFAULT_FINANCIAL_SERVICE_SETTINGS`). The services'
 * modules never read this table: the workflows and routes hand them the settings read here.
 */
import { z } from 'zod';
import {
  DEFAULT_FINANCIAL_SERVICE_SETTINGS,
  financialServiceSettingsSchema,
  financialServiceSettingsUpdateFields,
  patchBody,
  type FinancialServiceSettings,
} from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/**
 * `PATCH /api/pos/financial-services/settings` body: any part of the settings (core `financialServiceSettingsUpdateFields`,
 * each field with its own rule); sub-objects are merged field by field with the current settings.
 */
export const financialServiceSettingsPatch = patchBody(financialServiceSettingsUpdateFields);
/** See {@link financialServiceSettingsPatch}. */
export type FinancialServiceSettingsPatch = z.infer<typeof financialServiceSettingsPatch>;

/** The store's settings: its stored row, or core's defaults when the owner never changed them. */
export async function getFinancialServiceSettings(db: Queryable, merchantId: string): Promise<FinancialServiceSettings> {
  const { rows } = await db.query<{ settings: FinancialServiceSettings | string }>(
    'SELECT settings FROM financial_service_settings WHERE merchant_id = $1',
    [merchantId],
  );
  const raw = rows[0]?.settings;
  if (raw === undefined) return DEFAULT_FINANCIAL_SERVICE_SETTINGS;
  const parsed = financialServiceSettingsSchema.safeParse(typeof raw === 'string' ? JSON.parse(raw) : raw);
  return parsed.success ? parsed.data : DEFAULT_FINANCIAL_SERVICE_SETTINGS;
}

/**
 * Changes the store's settings (merged with the current ones), audited `financial_service_settings.updated` with
 * before and after.
 * @throws ProblemError 400 `validation_error` naming `<service>Limits.perTransactionCents` when a per-transaction limit
 *   would be above the same service's daily limit.
 */
export async function updateFinancialServiceSettings(m: Mutation, patch: FinancialServiceSettingsPatch): Promise<FinancialServiceSettings> {
  const before = await getFinancialServiceSettings(m.tx, m.merchantId);
  const after: FinancialServiceSettings = financialServiceSettingsSchema.parse({
    checkFee: { ...before.checkFee, ...patch.checkFee },
    checkLimits: { ...before.checkLimits, ...patch.checkLimits },
    transferLimits: { ...before.transferLimits, ...patch.transferLimits },
    billPaymentFeeCents: patch.billPaymentFeeCents ?? before.billPaymentFeeCents,
    billPaymentLimits: { ...before.billPaymentLimits, ...patch.billPaymentLimits },
  });
  for (const key of ['checkLimits', 'transferLimits', 'billPaymentLimits'] as const) {
    if (after[key].perTransactionCents > after[key].perCustomerPerDayCents) {
      throw new ProblemError(
        400,
        'validation_error',
        `Invalid ${key}.perTransactionCents: it must not be above ${key}.perCustomerPerDayCents (${after[key].perCustomerPerDayCents}).`,
        [{ path: `${key}.perTransactionCents`, message: `must not be above ${key}.perCustomerPerDayCents` }],
      );
    }
  }
  await m.tx.query(
    `INSERT INTO financial_service_settings (merchant_id, settings, updated_by, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id) DO UPDATE SET settings = EXCLUDED.settings, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, JSON.stringify(after), m.actor, m.now.toISOString()],
  );
  await m.audit({ action: 'financial_service_settings.updated', entityType: 'merchant', entityId: m.merchantId, data: { before, after } });
  return after;
}
