/**
 * A merchant's payment rails (core/rails.ts): `GET /api/pos/rails` lists the eight rails with the
 * merchant's settings (core's DEFAULT_RAILS where it changed nothing), `PATCH /api/pos/rails/{rail}` changes one,
 * audited with each field's from/to. Routing reads them through {@link merchantRails}.
 */
import { z } from 'zod';
import {
  CARD_RAILS,
  feeScheduleSchema,
  MAX_AMOUNT_CENTS,
  MAX_SETTLEMENT_HOURS,
  mergeRails,
  patchBody,
  railConfigSchema,
  type RailConfig,
  type RailName,
} from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { jsonValue, readTogether, type Queryable, type ReadPart } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/** `PATCH /api/pos/rails/{rail}`: the fields to change (at least one). */
export const railUpdateSchema = patchBody({
  enabled: z.boolean().optional(),
  status: z.enum(['up', 'down']).optional(),
  onlineOnly: z.boolean().optional(),
  fee: feeScheduleSchema.optional(),
  debitFee: feeScheduleSchema.nullable().optional().describe('Card rails only (card_present, card_not_present, apple_pay, google_pay).'),
  minCents: z.int().min(0).max(MAX_AMOUNT_CENTS).optional(),
  maxCents: z.int().min(1).max(MAX_AMOUNT_CENTS).optional(),
  settlementHours: z.int().min(0).max(MAX_SETTLEMENT_HOURS).optional(),
});
/** See {@link railUpdateSchema}. */
export type RailUpdate = z.infer<typeof railUpdateSchema>;

/** `GET /api/pos/rails`. */
export const railListSchema = z.strictObject({ data: z.array(railConfigSchema) });

/** The merchant's rails, every one of core's RAIL_NAMES once, in order: its own settings over the defaults. */
export async function merchantRails(db: Queryable, merchantId: string): Promise<RailConfig[]> {
  const [rails] = await readTogether(db, 'merchant_rails', [merchantRailsPart(merchantId)]);
  return rails;
}

/** {@link merchantRails} as a part of a combined read (platform/db `readTogether`), for a caller reading more at once. */
export function merchantRailsPart(merchantId: string): ReadPart<RailConfig[]> {
  return {
    sql: `SELECT coalesce(json_agg(config), '[]'::json) FROM merchant_rails WHERE merchant_id = $1`,
    params: [merchantId],
    parse: (value) =>
      mergeRails(jsonValue<unknown[]>(value).map((config) => railConfigSchema.parse(typeof config === 'string' ? JSON.parse(config) : config))),
  };
}

/**
 * Changes one rail inside `m` (an audit row `rail.updated` with each changed field's from/to).
 * @throws ProblemError 400 naming `debitFee` on a rail that is not a card rail, `minCents` above `maxCents`.
 */
export async function updateRail(m: Mutation, rail: RailName, input: RailUpdate): Promise<RailConfig> {
  const before = (await merchantRails(m.tx, m.merchantId)).find((r) => r.rail === rail)!;
  if (input.debitFee && !CARD_RAILS.includes(rail)) {
    throw new ProblemError(400, 'validation_error', `Invalid debitFee: ${rail} is not a card rail; only card rails have a debit fee.`, [
      { path: 'debitFee', message: 'only card rails (card_present, card_not_present, apple_pay, google_pay) have a debit fee' },
    ]);
  }
  const after: RailConfig = { ...before, ...input, rail };
  if (after.minCents > after.maxCents) {
    throw new ProblemError(400, 'validation_error', `Invalid minCents: ${after.minCents} is above maxCents ${after.maxCents}.`, [
      { path: 'minCents', message: `must not exceed maxCents (${after.maxCents})` },
    ]);
  }
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(input) as (keyof RailUpdate)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = { from: before[key], to: after[key] };
  }
  await m.tx.query(
    `INSERT INTO merchant_rails (merchant_id, rail, config, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id, rail) DO UPDATE SET config = EXCLUDED.config, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, rail, JSON.stringify(after), m.now.toISOString()],
  );
  if (Object.keys(changes).length > 0) await m.audit({ action: 'rail.updated', entityType: 'rail', entityId: rail, data: changes });
  return after;
}
