/**
 * Store settings (docs/api.md "Settings"; staff only): the merchant's IANA time zone, which reports count days in
 * (services/reports.ts), the default country of phone numbers typed without `+` (customers) and the tip bound
 * (core `TipLimit`: basis points of the order total or a fixed amount, whichever is larger), the store's e-mail
 * address for answers (the Reply-To of its e-mails, platform/messaging/smtp.ts), the quiet hours of its texts
 * (modules/sms worker), the language of its e-mails and texts (message-templates.ts). Name and currency
 * are shown, not changed here: the currency is fixed once money has moved.
 */
import {
  storeSettingsSchema,
  storeSettingsUpdateSchema,
  type ServiceStyle,
  type StoreLanguage,
  type StoreSettings,
  type StoreSettingsUpdate,
} from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { moneyMovementOf } from '../../kernel/money-movement.ts';

/** `GET /api/pos/settings` and the answer of PATCH: core/settings.ts. */
export { storeSettingsSchema, type StoreSettings };

/** `PATCH /api/pos/settings`: core/settings.ts (the back office's settings form validates with the same fields). */
export { storeSettingsUpdateSchema, type StoreSettingsUpdate };

interface MerchantRow {
  id: string;
  name: string;
  currency: string;
  time_zone: string;
  default_country: string;
  tip_limit_basis_points: number;
  tip_limit_cents: number;
  day_cutoff_hour: number;
  cashier_refund_limit_cents: number | string;
  confirm_sell_past_zero: boolean;
  service_style: ServiceStyle;
  offline_sign_in_days: number;
  email_reply_to: string | null;
  sms_quiet_start: string | null;
  sms_quiet_end: string | null;
  language: StoreLanguage;
  is_demo: boolean;
}

const toSettings = (r: MerchantRow): StoreSettings => ({
  merchantId: r.id,
  name: r.name,
  currency: r.currency,
  timeZone: r.time_zone,
  defaultCountry: r.default_country,
  tipLimitBasisPoints: Number(r.tip_limit_basis_points),
  tipLimitCents: Number(r.tip_limit_cents),
  dayCutoffHour: Number(r.day_cutoff_hour),
  cashierRefundLimitCents: Number(r.cashier_refund_limit_cents),
  confirmSellPastZero: r.confirm_sell_past_zero,
  serviceStyle: r.service_style,
  offlineSignInDays: Number(r.offline_sign_in_days),
  language: r.language,
  emailReplyTo: r.email_reply_to,
  smsQuietHoursStart: r.sms_quiet_start,
  smsQuietHoursEnd: r.sms_quiet_end,
  moneyMovement: moneyMovementOf(r),
});

async function merchantRow(db: Queryable, merchantId: string): Promise<MerchantRow> {
  const { rows } = await db.query<MerchantRow>(
    'SELECT id, name, currency, time_zone, default_country, tip_limit_basis_points, tip_limit_cents, day_cutoff_hour, cashier_refund_limit_cents, confirm_sell_past_zero, service_style, offline_sign_in_days, email_reply_to, sms_quiet_start, sms_quiet_end, language, is_demo FROM merchants WHERE id = $1',
    [merchantId],
  );
  if (!rows[0]) throw new ProblemError(404, 'not_found', 'No such merchant.');
  return rows[0];
}

/** The caller's store settings. @throws ProblemError 404 when the merchant is gone. */
export async function getSettings(db: Queryable, merchantId: string): Promise<StoreSettings> {
  return toSettings(await merchantRow(db, merchantId));
}

/**
 * Changes the given settings in one transaction, with a `settings.updated` audit row holding each field's from/to.
 * The time zone is checked against the database's own zone list (`pg_timezone_names`, as reports do). Quiet hours for
 * texts (core/quiet-hours.ts) are set or removed as a pair: both times, different, or both null.
 * @throws ProblemError 400 naming `timeZone` for an unknown zone, `smsQuietHoursStart`/`smsQuietHoursEnd` for one
 * without the other or a window that starts where it ends.
 */
export async function updateSettings(ctx: AppContext, principal: Principal, input: StoreSettingsUpdate): Promise<StoreSettings> {
  return mutation(ctx, actorOf(principal), async ({ tx, audit }) => {
    const before = await merchantRow(tx, principal.merchantId);
    if (input.timeZone !== undefined) {
      const known = await tx.query('SELECT 1 FROM pg_timezone_names WHERE name = $1', [input.timeZone]);
      if (known.rows.length === 0) {
        throw new ProblemError(400, 'validation_error', `Invalid timeZone: "${input.timeZone}" is not an IANA time zone name.`, [
          { path: 'timeZone', message: 'must be an IANA time zone, e.g. America/New_York' },
        ]);
      }
    }
    const after = {
      time_zone: input.timeZone ?? before.time_zone,
      default_country: input.defaultCountry ?? before.default_country,
      tip_limit_basis_points: input.tipLimitBasisPoints ?? Number(before.tip_limit_basis_points),
      tip_limit_cents: input.tipLimitCents ?? Number(before.tip_limit_cents),
      day_cutoff_hour: input.dayCutoffHour ?? Number(before.day_cutoff_hour),
      cashier_refund_limit_cents: input.cashierRefundLimitCents ?? Number(before.cashier_refund_limit_cents),
      confirm_sell_past_zero: input.confirmSellPastZero ?? before.confirm_sell_past_zero,
      service_style: input.serviceStyle ?? before.service_style,
      offline_sign_in_days: input.offlineSignInDays ?? Number(before.offline_sign_in_days),
      email_reply_to: input.emailReplyTo === undefined ? before.email_reply_to : input.emailReplyTo,
      sms_quiet_start: input.smsQuietHoursStart === undefined ? before.sms_quiet_start : input.smsQuietHoursStart,
      sms_quiet_end: input.smsQuietHoursEnd === undefined ? before.sms_quiet_end : input.smsQuietHoursEnd,
      language: input.language ?? before.language,
    };
    if ((after.sms_quiet_start === null) !== (after.sms_quiet_end === null)) {
      const missing = after.sms_quiet_start === null ? 'smsQuietHoursStart' : 'smsQuietHoursEnd';
      throw new ProblemError(400, 'validation_error', `Invalid ${missing}: quiet hours need both a start and an end (or neither).`, [
        { path: missing, message: 'must be set with the other end of the quiet hours (or both empty)' },
      ]);
    }
    if (after.sms_quiet_start !== null && after.sms_quiet_start === after.sms_quiet_end) {
      throw new ProblemError(400, 'validation_error', 'Invalid smsQuietHoursEnd: quiet hours must end at another time than they start.', [
        { path: 'smsQuietHoursEnd', message: 'must differ from the start' },
      ]);
    }
    const changes: Record<string, { from: string | number | null; to: string | number | null }> = {};
    await tx.query('UPDATE merchants SET time_zone = $2, default_country = $3, tip_limit_basis_points = $4, tip_limit_cents = $5 WHERE id = $1', [
      principal.merchantId,
      after.time_zone,
      after.default_country,
      after.tip_limit_basis_points,
      after.tip_limit_cents,
    ]);
    if (after.day_cutoff_hour !== Number(before.day_cutoff_hour)) {
      await tx.query('UPDATE merchants SET day_cutoff_hour = $2 WHERE id = $1', [principal.merchantId, after.day_cutoff_hour]);
      changes.dayCutoffHour = { from: Number(before.day_cutoff_hour), to: after.day_cutoff_hour };
    }
    if (after.cashier_refund_limit_cents !== Number(before.cashier_refund_limit_cents)) {
      await tx.query('UPDATE merchants SET cashier_refund_limit_cents = $2 WHERE id = $1', [principal.merchantId, after.cashier_refund_limit_cents]);
      changes.cashierRefundLimitCents = { from: Number(before.cashier_refund_limit_cents), to: after.cashier_refund_limit_cents };
    }
    if (after.confirm_sell_past_zero !== before.confirm_sell_past_zero) {
      await tx.query('UPDATE merchants SET confirm_sell_past_zero = $2 WHERE id = $1', [principal.merchantId, after.confirm_sell_past_zero]);
      changes.confirmSellPastZero = { from: String(before.confirm_sell_past_zero), to: String(after.confirm_sell_past_zero) };
    }
    if (after.service_style !== before.service_style) {
      await tx.query('UPDATE merchants SET service_style = $2 WHERE id = $1', [principal.merchantId, after.service_style]);
      changes.serviceStyle = { from: before.service_style, to: after.service_style };
    }
    if (after.offline_sign_in_days !== Number(before.offline_sign_in_days)) {
      await tx.query('UPDATE merchants SET offline_sign_in_days = $2 WHERE id = $1', [principal.merchantId, after.offline_sign_in_days]);
      changes.offlineSignInDays = { from: Number(before.offline_sign_in_days), to: after.offline_sign_in_days };
    }
    if (after.email_reply_to !== before.email_reply_to) {
      await tx.query('UPDATE merchants SET email_reply_to = $2 WHERE id = $1', [principal.merchantId, after.email_reply_to]);
      changes.emailReplyTo = { from: before.email_reply_to, to: after.email_reply_to };
    }
    if (after.sms_quiet_start !== before.sms_quiet_start || after.sms_quiet_end !== before.sms_quiet_end) {
      await tx.query('UPDATE merchants SET sms_quiet_start = $2, sms_quiet_end = $3 WHERE id = $1', [
        principal.merchantId,
        after.sms_quiet_start,
        after.sms_quiet_end,
      ]);
      if (after.sms_quiet_start !== before.sms_quiet_start) changes.smsQuietHoursStart = { from: before.sms_quiet_start, to: after.sms_quiet_start };
      if (after.sms_quiet_end !== before.sms_quiet_end) changes.smsQuietHoursEnd = { from: before.sms_quiet_end, to: after.sms_quiet_end };
    }
    if (after.language !== before.language) {
      await tx.query('UPDATE merchants SET language = $2 WHERE id = $1', [principal.merchantId, after.language]);
      changes.language = { from: before.language, to: after.language };
    }
    if (after.time_zone !== before.time_zone) changes.timeZone = { from: before.time_zone, to: after.time_zone };
    if (after.default_country !== before.default_country) changes.defaultCountry = { from: before.default_country, to: after.default_country };
    if (after.tip_limit_basis_points !== Number(before.tip_limit_basis_points))
      changes.tipLimitBasisPoints = { from: Number(before.tip_limit_basis_points), to: after.tip_limit_basis_points };
    if (after.tip_limit_cents !== Number(before.tip_limit_cents))
      changes.tipLimitCents = { from: Number(before.tip_limit_cents), to: after.tip_limit_cents };
    if (Object.keys(changes).length > 0) {
      await audit({ action: 'settings.updated', entityType: 'merchant', entityId: principal.merchantId, appId: null, data: changes });
    }
    return toSettings({ ...before, ...after });
  });
}
