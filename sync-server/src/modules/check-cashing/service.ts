/**
 * Check cashing: the store pays cash for a customer's check, less a fee. This module owns
 * `check_cashings`: the MICR duplicate guard (a check is cashed once per store), the store's fee schedule and limits
 * (core `serviceFee`, `checkServiceLimits`), and the one journal transaction of a payout — Dr `check_clearing:cashed`
 * (the check to deposit, its full amount), Cr `fee_income` (the fee), Cr the cash drawer (cash handed out). The ID and
 * screening steps are the workflow's (workflows/check-cashing.ts); this module only records their ids.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  abaRoutingValid,
  buildJournalTransaction,
  cashDrawerAccount,
  checkServiceLimits,
  maskAccount,
  MAX_AMOUNT_CENTS,
  micrKey,
  pageQueryFields,
  serviceFee,
  ulid,
  type ServiceFeeSchedule,
  type ServiceLimits,
} from '../../../../core/index.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { likeContains, SqlFilter } from '../../platform/db/sql-filter.ts';

const digits = (max: number) => z.string().regex(new RegExp(`^[0-9]{1,${max}}$`), `must be 1 to ${max} digits`);

/** The check as the scanner read it (core `CheckScan` fields) — or as the cashier typed it from the MICR line. */
export const checkMicrSchema = z.strictObject({
  routingNumber: z
    .string()
    .regex(/^\d{9}$/, 'must be 9 digits')
    .describe('ABA routing number (checksum verified)'),
  accountNumber: z
    .string()
    .regex(/^[0-9-]{1,20}$/, 'must be digits and dashes')
    .describe('On-us account number; stored masked (last four)'),
  checkNumber: digits(15).optional(),
  auxOnUs: digits(15).optional(),
});

/** Largest check image accepted (decoded bytes): 5 MiB, the check scanner driver's own limit. */
export const CHECK_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

const shiftIdField = z
  .string()
  .regex(/^shf_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a shift id (shf_…)')
  .describe("The register's open shift whose drawer the cash goes through (its X/Z report counts it)");

/** `POST /api/pos/check-cashings/{id}/complete` body (optional): the shift paying out, when not the one that held it. */
export const completeCheckBody = z.strictObject({ shiftId: shiftIdField.optional() });

/** `POST /api/pos/check-cashings` body. */
export const checkCashCreateSchema = z.strictObject({
  micr: checkMicrSchema,
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS).describe('The check amount the cashier entered or confirmed (minor units)'),
  idPayload: z.string().min(1).max(4000).describe("The AAMVA PDF417 payload of the customer's licence (keyboard-wedge scan or decoded photo)"),
  hasImage: z.boolean().default(false).describe('The scanner delivered the check image (true by itself when `imagePng` is sent)'),
  imagePng: z
    .string()
    .min(8)
    .max(Math.ceil(CHECK_IMAGE_MAX_BYTES / 3) * 4)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64')
    .optional()
    .describe(
      'The check image as the scanner delivered it (PNG, base64, at most 5 MiB): stored with the record, served by `GET /api/pos/check-cashings/{id}/image`',
    ),
  shiftId: shiftIdField.optional(),
  registerNumber: z
    .int()
    .min(1)
    .max(999)
    .optional()
    .describe("The register whose drawer pays out (its `cash_drawer:R<n>`); default the store's `cash_drawer`"),
});
/** See {@link checkCashCreateSchema}. */
export type CheckCashCreate = z.infer<typeof checkCashCreateSchema>;

/** A check cashing as the API answers it. */
export const checkCashingSchema = z.strictObject({
  id: z.string(),
  status: z
    .enum(['held', 'paid', 'refused'])
    .describe('`held`: the customer is a potential sanctions match; a manager must clear the screening, then complete'),
  routingNumber: z.string(),
  accountMasked: z.string(),
  checkNumber: z.string().nullable(),
  amountCents: z.int(),
  feeCents: z.int(),
  payoutCents: z.int().describe('Cash handed to the customer: amount − fee'),
  currency: z.string(),
  customerName: z.string(),
  idVerificationId: z.string().nullable(),
  screeningId: z.string().nullable(),
  hasImage: z.boolean(),
  journalTransactionId: z.string().nullable(),
  receipt: z.array(z.string()).describe('Receipt lines'),
  createdBy: z.string(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
/** See {@link checkCashingSchema}. */
export type CheckCashing = z.infer<typeof checkCashingSchema>;

/** `GET /api/pos/check-cashings` query. */
export const checkCashingListQuery = z.strictObject({
  ...pageQueryFields,
  status: z.enum(['held', 'paid', 'refused']).optional(),
  customerName: z.string().max(100).optional(),
});

interface Row {
  id: string;
  merchant_id: string;
  routing_number: string;
  account_masked: string;
  check_number: string | null;
  amount_cents: number | string;
  fee_cents: number | string;
  payout_cents: number | string;
  currency: string;
  customer_name: string;
  id_verification_id: string | null;
  screening_id: string | null;
  has_image: boolean;
  status: 'held' | 'paid' | 'refused';
  cash_account: string;
  journal_transaction_id: string | null;
  created_by: string;
  created_at: Date | string;
  completed_at: Date | string | null;
}

const usd = (c: number) => (c / 100).toFixed(2);

function toApi(r: Row): CheckCashing {
  const amount = Number(r.amount_cents);
  const fee = Number(r.fee_cents);
  const payout = Number(r.payout_cents);
  return {
    id: r.id,
    status: r.status,
    routingNumber: r.routing_number,
    accountMasked: r.account_masked,
    checkNumber: r.check_number,
    amountCents: amount,
    feeCents: fee,
    payoutCents: payout,
    currency: r.currency,
    customerName: r.customer_name,
    idVerificationId: r.id_verification_id,
    screeningId: r.screening_id,
    hasImage: r.has_image,
    journalTransactionId: r.journal_transaction_id,
    receipt: [
      'CHECK CASHED',
      `Check ${r.routing_number} ${r.account_masked}${r.check_number ? ` #${r.check_number}` : ''}`,
      `Check amount: ${usd(amount)} ${r.currency}`,
      `Fee: ${usd(fee)} ${r.currency}`,
      `Cash paid: ${usd(payout)} ${r.currency}`,
      `Customer: ${r.customer_name}`,
      `Reference: ${r.id}`,
    ],
    createdBy: r.created_by,
    createdAt: new Date(r.created_at).toISOString(),
    completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  };
}

/** SHA-256 hex of a text: how MICR keys and customer documents are kept (never in the clear). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What the workflow learned about the customer before the check is recorded. */
export interface CheckCustomer {
  name: string;
  /** SHA-256 of the document's jurisdiction and number (the daily limit's key). */
  ref: string;
  idVerificationId: string | null;
}

/** A check accepted for cashing (fee computed, limits and duplicates passed), not yet written. */
export interface CheckPlan {
  input: CheckCashCreate;
  micrHash: string;
  feeCents: number;
  payoutCents: number;
  currency: string;
  cashAccount: string;
}

/** Audit `check_cashing.refused` with the reason — written by the workflow in its own mutation after a refusal. */
export const CHECK_REFUSED_ACTION = 'check_cashing.refused';

/**
 * The checks before any money or ID step: money movement allowed (403 in the demo store), ABA checksum, the MICR
 * line not cashed before, the image (when sent) a PNG, the per-check limit of the store's `settings`. Reads only.
 * @throws ProblemError 403 `money_movement_disabled`; 400 `micr_bad_routing_checksum` naming `micr.routingNumber`;
 *   400 `invalid_check_image` naming `imagePng`;
 *   409 `duplicate_check`; 422 `limit_per_transaction`.
 */
export async function planCheckCashing(
  tx: Queryable,
  merchantId: string,
  input: CheckCashCreate,
  settings: { checkFee: ServiceFeeSchedule; checkLimits: ServiceLimits },
): Promise<CheckPlan> {
  const merchant = await getMerchant(tx, merchantId);
  assertMoneyMovementAllowed(merchant, 'Cashing a check');
  if (!abaRoutingValid(input.micr.routingNumber)) {
    throw new ProblemError(
      400,
      'micr_bad_routing_checksum',
      `Routing number ${input.micr.routingNumber} fails the ABA checksum: rescan the check or type the MICR line again.`,
      [{ path: 'micr.routingNumber', message: 'fails the ABA checksum' }],
    );
  }
  const micrHash = sha256(micrKey(input.micr));
  const dup = await tx.query<{ id: string; status: string }>(`SELECT id, status FROM check_cashings WHERE merchant_id = $1 AND micr_hash = $2`, [
    merchantId,
    micrHash,
  ]);
  if (dup.rows[0]) {
    throw new ProblemError(
      409,
      'duplicate_check',
      `This check (MICR line) was already presented here (${dup.rows[0].id}, ${dup.rows[0].status}): a check is cashed once.`,
    );
  }
  if (input.imagePng !== undefined) checkImageBytes(input.imagePng);
  const perCheck = checkServiceLimits(input.amountCents, 0, settings.checkLimits);
  if (perCheck)
    throw new ProblemError(422, perCheck.code, perCheck.message, [{ path: 'amountCents', message: `must not exceed ${perCheck.limitCents}` }]);
  const feeCents = serviceFee(input.amountCents, settings.checkFee);
  return {
    input,
    micrHash,
    feeCents,
    payoutCents: input.amountCents - feeCents,
    currency: merchant.currency,
    cashAccount: input.registerNumber ? cashDrawerAccount(input.registerNumber) : 'cash_drawer',
  };
}

/** Minor units the customer (`ref`) has cashed today (UTC day of `now`), paid and held checks both. */
export async function customerCheckTotalToday(tx: Queryable, merchantId: string, ref: string, now: Date): Promise<number> {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const { rows } = await tx.query<{ n: string | number }>(
    `SELECT COALESCE(SUM(amount_cents), 0) AS n FROM check_cashings WHERE merchant_id = $1 AND customer_ref = $2 AND status IN ('held', 'paid') AND created_at >= $3`,
    [merchantId, ref, dayStart.toISOString()],
  );
  return Number(rows[0]!.n);
}

/**
 * The per-customer daily limit, once the customer is known from the ID.
 * @throws ProblemError 422 `limit_per_customer_day` naming `amountCents`.
 */
export async function assertCustomerDailyLimit(
  tx: Queryable,
  merchantId: string,
  customer: CheckCustomer,
  amountCents: number,
  now: Date,
  limits: ServiceLimits,
): Promise<void> {
  const today = await customerCheckTotalToday(tx, merchantId, customer.ref, now);
  const refusal = checkServiceLimits(amountCents, today, limits);
  if (refusal)
    throw new ProblemError(422, refusal.code, refusal.message, [
      { path: 'amountCents', message: `the customer's total today must not exceed ${refusal.limitCents}` },
    ]);
}

async function postPayout(
  m: Mutation,
  id: string,
  plan: Pick<CheckPlan, 'feeCents' | 'payoutCents' | 'currency' | 'cashAccount'>,
  amountCents: number,
): Promise<string> {
  const jt = buildJournalTransaction(
    {
      kind: 'financial_service',
      sourceType: 'check_cashing',
      sourceId: id,
      registerId: m.registerId ?? null,
      currency: plan.currency,
      occurredAt: m.now.toISOString(),
      memo: `Check cashed ${id}`,
    },
    [
      { accountCode: 'check_clearing:cashed', amountCents },
      { accountCode: 'fee_income', amountCents: -plan.feeCents },
      { accountCode: plan.cashAccount, amountCents: -plan.payoutCents },
    ],
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  return jt.id;
}

/**
 * Records the check: `held` (screening `potential_match`: nothing paid, the MICR line reserved) or `paid` (cash out:
 * the journal transaction posted in the same database transaction). Audits `check_cashing.held` / `check_cashing.paid`.
 */
export async function recordCheckCashing(
  m: Mutation,
  plan: CheckPlan,
  customer: CheckCustomer,
  screeningId: string | null,
  held: boolean,
): Promise<CheckCashing> {
  const id = `chq_${ulid()}`;
  const journalId = held ? null : await postPayout(m, id, plan, plan.input.amountCents);
  const micr = plan.input.micr;
  const { rows } = await m.tx.query<Row>(
    `INSERT INTO check_cashings (id, merchant_id, micr_hash, routing_number, account_masked, check_number, amount_cents, fee_cents, payout_cents, currency,
       customer_name, customer_ref, id_verification_id, screening_id, has_image, status, cash_account, journal_transaction_id, register_id, created_by, created_at, completed_at, shift_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23) RETURNING *`,
    [
      id,
      m.merchantId,
      plan.micrHash,
      micr.routingNumber,
      maskAccount(micr.accountNumber),
      micr.checkNumber ?? micr.auxOnUs ?? null,
      plan.input.amountCents,
      plan.feeCents,
      plan.payoutCents,
      plan.currency,
      customer.name,
      customer.ref,
      customer.idVerificationId,
      screeningId,
      plan.input.hasImage || plan.input.imagePng !== undefined,
      held ? 'held' : 'paid',
      plan.cashAccount,
      journalId,
      m.registerId ?? null,
      m.actor,
      m.now.toISOString(),
      held ? null : m.now.toISOString(),
      plan.input.shiftId ?? null,
    ],
  );
  if (plan.input.imagePng !== undefined) await storeCheckImage(m, id, plan.input.imagePng);
  await m.audit({
    action: held ? 'check_cashing.held' : 'check_cashing.paid',
    entityType: 'check_cashing',
    entityId: id,
    data: {
      amountCents: plan.input.amountCents,
      feeCents: plan.feeCents,
      payoutCents: plan.payoutCents,
      routingNumber: micr.routingNumber,
      accountMasked: maskAccount(micr.accountNumber),
      idVerificationId: customer.idVerificationId,
      screeningId,
      journalTransactionId: journalId,
    },
  });
  return toApi(rows[0]!);
}

/** A check cashing of the merchant, or 404. */
export async function getCheckCashing(db: Queryable, merchantId: string, id: string): Promise<CheckCashing & { cashAccount: string }> {
  const { rows } = await db.query<Row>('SELECT * FROM check_cashings WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Check cashing ${id} does not exist.`);
  return { ...toApi(rows[0]), cashAccount: rows[0].cash_account };
}

/**
 * Pays out a `held` check once its screening is cleared (the workflow checks that first): posts the journal
 * transaction, status `paid`, audit `check_cashing.paid`. Or `refuse`: status `refused`, audit `check_cashing.refused`.
 * @throws ProblemError 409 `illegal_state_transition` unless held; 403 `money_movement_disabled` in the demo store.
 */
export async function finishHeldCheck(
  m: Mutation,
  id: string,
  outcome: 'paid' | 'refused',
  reason?: string,
  shiftId?: string,
): Promise<CheckCashing> {
  const current = await getCheckCashing(m.tx, m.merchantId, id);
  if (current.status !== 'held') throw new ProblemError(409, 'illegal_state_transition', `Check cashing ${id} is ${current.status}, not held.`);
  let journalId: string | null = null;
  if (outcome === 'paid') {
    assertMoneyMovementAllowed(await getMerchant(m.tx, m.merchantId), 'Cashing a check');
    journalId = await postPayout(
      m,
      id,
      { feeCents: current.feeCents, payoutCents: current.payoutCents, currency: current.currency, cashAccount: current.cashAccount },
      current.amountCents,
    );
  }
  // A refused check keeps its MICR line: presenting the same paper item again is refused as a duplicate.
  const { rows } = await m.tx.query<Row>(
    `UPDATE check_cashings SET status = $3, journal_transaction_id = $4, completed_at = $5, shift_id = COALESCE($6, shift_id) WHERE merchant_id = $1 AND id = $2 RETURNING *`,
    [m.merchantId, id, outcome, journalId, m.now.toISOString(), shiftId ?? null],
  );
  await m.audit({
    action: outcome === 'paid' ? 'check_cashing.paid' : CHECK_REFUSED_ACTION,
    entityType: 'check_cashing',
    entityId: id,
    data: { journalTransactionId: journalId, ...(reason ? { reason } : {}) },
  });
  return toApi(rows[0]!);
}

/** The merchant's check cashings, newest first, filtered by status and customer name (contains, case-insensitive). */
export async function listCheckCashings(
  db: Queryable,
  merchantId: string,
  q: z.infer<typeof checkCashingListQuery>,
): Promise<{ data: CheckCashing[]; nextCursor: string | null }> {
  const f = new SqlFilter(['merchant_id = ?'], [merchantId]);
  if (q.status) f.add('status = ?', q.status);
  if (q.customerName) f.add('customer_name ILIKE ?', likeContains(q.customerName));
  if (q.cursor) f.add('(created_at, id) < (?::timestamptz, ?::text)', ...decodeCursor(q.cursor, ['date', 'string']));
  const limit = f.param(q.limit + 1);
  const { rows } = await db.query<Row>(`SELECT * FROM check_cashings WHERE ${f.where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`, f.params);
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map(toApi), nextCursor };
}

/* ───────────────────────────── check images ───────────────────────────── */

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The bytes of a check image sent in base64 (the scanner's PNG).
 * @throws ProblemError 400 `invalid_check_image` naming `imagePng` when it is not a PNG or is above 5 MiB.
 */
export function checkImageBytes(base64: string): Buffer {
  const bytes = Buffer.from(base64, 'base64');
  const problem =
    bytes.length > CHECK_IMAGE_MAX_BYTES
      ? `is above ${CHECK_IMAGE_MAX_BYTES} bytes`
      : !bytes.subarray(0, 8).equals(PNG_SIGNATURE)
        ? 'is not a PNG image'
        : null;
  if (problem)
    throw new ProblemError(400, 'invalid_check_image', `The check image ${problem}: scan the check again.`, [{ path: 'imagePng', message: problem }]);
  return bytes;
}

/** Stores the image of check cashing `id` (append-only `check_images`; its SHA-256 and size beside it, never in the audit log). */
async function storeCheckImage(m: Mutation, id: string, base64: string): Promise<void> {
  const bytes = checkImageBytes(base64);
  await m.tx.query(
    `INSERT INTO check_images (check_cashing_id, merchant_id, content_type, byte_length, sha256, data_base64, created_at) VALUES ($1, $2, 'image/png', $3, $4, $5, $6)`,
    [id, m.merchantId, bytes.length, createHash('sha256').update(bytes).digest('hex'), bytes.toString('base64'), m.now.toISOString()],
  );
}

/**
 * The stored image of a check cashing of the merchant.
 * @throws ProblemError 404 `not_found` when the record is not the merchant's or has no stored image.
 */
export async function getCheckImage(db: Queryable, merchantId: string, id: string): Promise<{ contentType: string; bytes: Buffer; sha256: string }> {
  const { rows } = await db.query<{ content_type: string; data_base64: string; sha256: string }>(
    'SELECT content_type, data_base64, sha256 FROM check_images WHERE merchant_id = $1 AND check_cashing_id = $2',
    [merchantId, id],
  );
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Check cashing ${id} has no stored image.`);
  return { contentType: rows[0].content_type, bytes: Buffer.from(rows[0].data_base64, 'base64'), sha256: rows[0].sha256 };
}

/**
 * The checks paid out through the drawer of shift `shiftId` (the register named it): count, cash handed out (payouts)
 * and fees, minor units — the shift report's "Checks cashed out" (workflows/shift-closeout.ts).
 */
export async function checkCashOfShift(
  db: Queryable,
  merchantId: string,
  shiftId: string,
): Promise<{ count: number; payoutCents: number; feeCents: number }> {
  const { rows } = await db.query<{ n: number | string; payout: number | string | null; fee: number | string | null }>(
    `SELECT count(*) AS n, SUM(payout_cents) AS payout, SUM(fee_cents) AS fee FROM check_cashings WHERE merchant_id = $1 AND shift_id = $2 AND status = 'paid'`,
    [merchantId, shiftId],
  );
  return { count: Number(rows[0]?.n ?? 0), payoutCents: Number(rows[0]?.payout ?? 0), feeCents: Number(rows[0]?.fee ?? 0) };
}
