/**
 * Bill payments (issue 14, DESIGN §12): the customer pays a utility, phone, card or rent bill in cash at the register;
 * the partner (partner.ts) forwards it to the biller. Owns `bill_payments`. The account number is validated against
 * the biller's rule (core `billerAccountProblem`: length and check digit) before any money is taken, and stored
 * masked. Ledger, one journal transaction: Dr the cash drawer (amount + fee), Cr `fee_income` (fee),
 * Cr `transfers_payable:bills_<partner>` (owed to the partner); a rejection by the biller posts the exact reversal.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  BILL_PAYMENT_STATUSES,
  billerAccountProblem,
  billerAccountRuleSchema,
  buildJournalTransaction,
  cashDrawerAccount,
  checkServiceLimits,
  maskAccount,
  MAX_AMOUNT_CENTS,
  pageQueryFields,
  ulid,
  type ServiceLimits,
} from '../../../../core/index.ts';
import { postJournalTransaction } from '../../kernel/ledger.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { BillPartnerError, type Biller, type BillPartner } from './partner.ts';
import { likeContains, SqlFilter } from '../../platform/db/sql-filter.ts';

/** A biller as the API answers it. */
export const billerSchema = z.strictObject({ id: z.string(), name: z.string(), category: z.enum(['utilities', 'telecom', 'credit_card', 'rent']), accountRule: billerAccountRuleSchema });

/** `POST /api/pos/bill-payments/validate` body. */
export const billAccountBody = z.strictObject({
  billerId: z.string().min(1).max(64),
  accountNumber: z.string().min(1).max(40).describe('Spaces and dashes are ignored'),
});

/** `POST /api/pos/bill-payments` body. */
export const billPaymentCreateSchema = billAccountBody.extend({
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  customerName: z.string().trim().min(2).max(100),
  registerNumber: z.int().min(1).max(999).optional(),
  shiftId: z.string().regex(/^shf_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a shift id (shf_…)').optional().describe("The register's open shift whose drawer takes the cash (its X/Z report counts it)"),
});
/** See {@link billPaymentCreateSchema}. */
export type BillPaymentCreate = z.infer<typeof billPaymentCreateSchema>;

/** A bill payment as the API answers it. */
export const billPaymentSchema = z.strictObject({
  id: z.string(),
  status: z.enum(BILL_PAYMENT_STATUSES),
  billerId: z.string(),
  billerName: z.string(),
  accountMasked: z.string(),
  customerName: z.string(),
  amountCents: z.int(),
  feeCents: z.int(),
  totalCents: z.int(),
  currency: z.string(),
  confirmationNumber: z.string(),
  rejectReason: z.string().nullable(),
  journalTransactionId: z.string(),
  reversalJournalTransactionId: z.string().nullable(),
  receipt: z.array(z.string()),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** See {@link billPaymentSchema}. */
export type BillPayment = z.infer<typeof billPaymentSchema>;

/** `GET /api/pos/bill-payments` query. */
export const billPaymentListQuery = z.strictObject({ ...pageQueryFields, status: z.enum(BILL_PAYMENT_STATUSES).optional(), billerId: z.string().max(64).optional(), customerName: z.string().max(100).optional() });

interface Row {
  id: string;
  biller_id: string;
  biller_name: string;
  account_masked: string;
  customer_name: string;
  amount_cents: string | number;
  fee_cents: string | number;
  currency: string;
  partner: string;
  confirmation_number: string;
  status: (typeof BILL_PAYMENT_STATUSES)[number];
  reject_reason: string | null;
  cash_account: string;
  journal_transaction_id: string;
  reversal_journal_transaction_id: string | null;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const usd = (c: number) => (c / 100).toFixed(2);

function toApi(r: Row): BillPayment {
  const amount = Number(r.amount_cents);
  const fee = Number(r.fee_cents);
  return {
    id: r.id,
    status: r.status,
    billerId: r.biller_id,
    billerName: r.biller_name,
    accountMasked: r.account_masked,
    customerName: r.customer_name,
    amountCents: amount,
    feeCents: fee,
    totalCents: amount + fee,
    currency: r.currency,
    confirmationNumber: r.confirmation_number,
    rejectReason: r.reject_reason,
    journalTransactionId: r.journal_transaction_id,
    reversalJournalTransactionId: r.reversal_journal_transaction_id,
    receipt: [
      'BILL PAYMENT',
      `${r.biller_name} account ${r.account_masked}`,
      `Amount: ${usd(amount)} ${r.currency}`,
      `Fee: ${usd(fee)} ${r.currency}`,
      `Total paid: ${usd(amount + fee)} ${r.currency}`,
      `Confirmation: ${r.confirmation_number}`,
      'Posting to the biller may take up to 1 business day.',
    ],
    createdBy: r.created_by,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/** The partner's biller directory. */
export async function listBillers(partner: BillPartner): Promise<Biller[]> {
  return [...(await partner.billers())];
}

/**
 * Validates an account number for a biller (length, check digit) — the step before any money is taken.
 * @throws ProblemError 404 `biller_not_found` naming `billerId`; 400 `invalid_account` naming `accountNumber`.
 */
export async function validateBillAccount(partner: BillPartner, body: z.infer<typeof billAccountBody>): Promise<{ biller: Biller; account: string; accountMasked: string }> {
  const biller = (await partner.billers()).find((b) => b.id === body.billerId);
  if (!biller) throw new ProblemError(404, 'biller_not_found', `Biller ${body.billerId} is not in the directory.`, [{ path: 'billerId', message: 'is not a biller of the directory' }]);
  const problem = billerAccountProblem(body.accountNumber, biller.accountRule);
  if (problem) throw new ProblemError(400, 'invalid_account', problem, [{ path: 'accountNumber', message: problem }]);
  const account = body.accountNumber.replace(/[\s-]/g, '');
  return { biller, account, accountMasked: maskAccount(account) };
}

const payableAccount = (partner: string) => `transfers_payable:bills_${partner.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function postingsOf(amount: number, fee: number, cashAccount: string, partner: string, sign: 1 | -1) {
  return [
    { accountCode: cashAccount, amountCents: sign * (amount + fee) },
    { accountCode: 'fee_income', amountCents: -sign * fee },
    { accountCode: payableAccount(partner), amountCents: -sign * amount },
  ];
}

/** The store's bill-payment settings (modules/financial-services, handed in by the route). */
export interface BillPaymentSettings {
  billPaymentFeeCents: number;
  billPaymentLimits: ServiceLimits;
}

/**
 * Pays a bill inside `m`: money movement (403 in the demo store), account validation, the store's limits (per payment,
 * per customer per day) and fee, the partner, the journal transaction, the row, audit `bill_payment.accepted`.
 * @throws ProblemError 403 `money_movement_disabled`; 404 `biller_not_found`; 400 `invalid_account`;
 *   422 `limit_per_transaction` / `limit_per_customer_day`; 422 `partner_rejected`; 504 `partner_timeout`.
 */
export async function payBill(m: Mutation, input: BillPaymentCreate, partner: BillPartner, settings: BillPaymentSettings): Promise<BillPayment> {
  const merchant = await getMerchant(m.tx, m.merchantId);
  assertMoneyMovementAllowed(merchant, 'A bill payment');
  const { biller, account, accountMasked } = await validateBillAccount(partner, input);
  const customerRef = createHash('sha256').update(input.customerName.toLowerCase().replace(/\s+/g, ' ')).digest('hex');
  const dayStart = new Date(Date.UTC(m.now.getUTCFullYear(), m.now.getUTCMonth(), m.now.getUTCDate()));
  const today = await m.tx.query<{ n: string | number }>(
    `SELECT COALESCE(SUM(amount_cents), 0) AS n FROM bill_payments WHERE merchant_id = $1 AND customer_ref = $2 AND status <> 'rejected' AND created_at >= $3`,
    [m.merchantId, customerRef, dayStart.toISOString()],
  );
  const refusal = checkServiceLimits(input.amountCents, Number(today.rows[0]!.n), settings.billPaymentLimits);
  if (refusal) throw new ProblemError(422, refusal.code, refusal.message, [{ path: 'amountCents', message: `must not exceed ${refusal.limitCents}` }]);
  const fee = settings.billPaymentFeeCents;
  const id = `bpy_${ulid()}`;
  let confirmationNumber: string;
  try {
    ({ confirmationNumber } = await partner.pay({ reference: id, billerId: biller.id, account, amountCents: input.amountCents, currency: merchant.currency }));
  } catch (e) {
    if (e instanceof BillPartnerError) throw new ProblemError(e.code === 'partner_timeout' ? 504 : 422, e.code, e.message);
    throw e;
  }
  const cashAccount = input.registerNumber ? cashDrawerAccount(input.registerNumber) : 'cash_drawer';
  const jt = buildJournalTransaction(
    { kind: 'financial_service', sourceType: 'bill_payment', sourceId: id, registerId: m.registerId ?? null, currency: merchant.currency, occurredAt: m.now.toISOString(), memo: `Bill payment ${id} to ${biller.name}` },
    postingsOf(input.amountCents, fee, cashAccount, partner.name, 1),
  );
  await postJournalTransaction(m.tx, m.merchantId, jt);
  m.changed('journal-transactions');
  const { rows } = await m.tx.query<Row>(
    `INSERT INTO bill_payments (id, merchant_id, biller_id, biller_name, account_masked, customer_name, customer_ref, amount_cents, fee_cents, currency, partner, confirmation_number, status,
       cash_account, journal_transaction_id, register_id, created_by, created_at, updated_at, shift_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'accepted', $13, $14, $15, $16, $17, $17, $18) RETURNING *`,
    [id, m.merchantId, biller.id, biller.name, accountMasked, input.customerName, customerRef, input.amountCents, fee, merchant.currency, partner.name, confirmationNumber, cashAccount, jt.id, m.registerId ?? null, m.actor, m.now.toISOString(), input.shiftId ?? null],
  );
  await m.audit({ action: 'bill_payment.accepted', entityType: 'bill_payment', entityId: id, data: { billerId: biller.id, accountMasked, amountCents: input.amountCents, feeCents: fee, confirmationNumber, journalTransactionId: jt.id } });
  return toApi(rows[0]!);
}

async function row(db: Queryable, merchantId: string, id: string): Promise<Row> {
  const { rows } = await db.query<Row>('SELECT * FROM bill_payments WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Bill payment ${id} does not exist.`);
  return rows[0];
}

/** A bill payment, or 404. */
export async function getBillPayment(db: Queryable, merchantId: string, id: string): Promise<BillPayment> {
  return toApi(await row(db, merchantId, id));
}

/**
 * Asks the partner where an `accepted` payment is: `posted`, or `rejected` by the biller — then the reversal journal
 * transaction is posted (the customer's money is owed back) and audited `bill_payment.rejected`.
 */
export async function refreshBillPayment(m: Mutation, id: string, partner: BillPartner): Promise<BillPayment> {
  const r = await row(m.tx, m.merchantId, id);
  if (r.status !== 'accepted') return toApi(r);
  const s = await partner.status({ confirmationNumber: r.confirmation_number, acceptedAt: new Date(r.created_at), now: m.now });
  if (s.status === 'accepted') return toApi(r);
  if (s.status === 'posted') {
    await m.tx.query(`UPDATE bill_payments SET status = 'posted', updated_at = $3 WHERE merchant_id = $1 AND id = $2`, [m.merchantId, id, m.now.toISOString()]);
    await m.audit({ action: 'bill_payment.posted', entityType: 'bill_payment', entityId: id, data: { confirmationNumber: r.confirmation_number } });
    return getBillPayment(m.tx, m.merchantId, id);
  }
  const jt = buildJournalTransaction(
    { kind: 'adjustment', sourceType: 'bill_payment', sourceId: id, registerId: m.registerId ?? null, currency: r.currency, occurredAt: m.now.toISOString(), memo: `Bill payment ${id} rejected by the biller: reversal of ${r.journal_transaction_id}` },
    postingsOf(Number(r.amount_cents), Number(r.fee_cents), r.cash_account, r.partner, -1),
  );
  await postJournalTransaction(m.tx, m.merchantId, jt);
  m.changed('journal-transactions');
  await m.tx.query(`UPDATE bill_payments SET status = 'rejected', reject_reason = $3, reversal_journal_transaction_id = $4, updated_at = $5 WHERE merchant_id = $1 AND id = $2`, [m.merchantId, id, s.reason ?? 'rejected by the biller', jt.id, m.now.toISOString()]);
  await m.audit({ action: 'bill_payment.rejected', entityType: 'bill_payment', entityId: id, data: { reason: s.reason ?? null, reversalJournalTransactionId: jt.id } });
  return getBillPayment(m.tx, m.merchantId, id);
}

/**
 * Bill payments still `accepted` (not yet posted or rejected) across every store, oldest update first, at most
 * `limit`: what the housekeeping tick asks the partner about (workflows/financial-services.ts `trackFinancialServices`).
 */
export async function billPaymentsInFlight(db: Queryable, limit: number): Promise<{ merchantId: string; id: string }[]> {
  const { rows } = await db.query<{ merchant_id: string; id: string }>(`SELECT merchant_id, id FROM bill_payments WHERE status = 'accepted' ORDER BY updated_at, id LIMIT $1`, [limit]);
  return rows.map((r) => ({ merchantId: r.merchant_id, id: r.id }));
}

/** The merchant's bill payments, newest first; filter by status, biller, customer name (contains). */
export async function listBillPayments(db: Queryable, merchantId: string, q: z.infer<typeof billPaymentListQuery>): Promise<{ data: BillPayment[]; nextCursor: string | null }> {
  const f = new SqlFilter(['merchant_id = ?'], [merchantId]);
  if (q.status) f.add('status = ?', q.status);
  if (q.billerId) f.add('biller_id = ?', q.billerId);
  if (q.customerName) f.add('customer_name ILIKE ?', likeContains(q.customerName));
  if (q.cursor) f.add('(created_at, id) < (?::timestamptz, ?::text)', ...decodeCursor(q.cursor, ['date', 'string']));
  const limit = f.param(q.limit + 1);
  const { rows } = await db.query<Row>(`SELECT * FROM bill_payments WHERE ${f.where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`, f.params);
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map(toApi), nextCursor };
}

/**
 * The bill payments whose cash went into the drawer of shift `shiftId`: count, cash taken (amount + fee) and fees,
 * minor units (a later rejection by the biller moves no cash at the counter) — the shift report's "Bill payments in".
 */
export async function billCashOfShift(db: Queryable, merchantId: string, shiftId: string): Promise<{ count: number; amountCents: number; feeCents: number }> {
  const { rows } = await db.query<{ n: number | string; amount: number | string | null; fee: number | string | null }>(
    `SELECT count(*) AS n, SUM(amount_cents + fee_cents) AS amount, SUM(fee_cents) AS fee FROM bill_payments WHERE merchant_id = $1 AND shift_id = $2`,
    [merchantId, shiftId],
  );
  return { count: Number(rows[0]?.n ?? 0), amountCents: Number(rows[0]?.amount ?? 0), feeCents: Number(rows[0]?.fee ?? 0) };
}
