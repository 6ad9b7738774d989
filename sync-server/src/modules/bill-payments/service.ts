/**
 * Bill payments: the customer pays a utility, phone, card or rent bill in cash at the register;
 * the partner (partner.ts) forwards it to the biller. Owns `bill_payments`. The account number is validated against
 * the biller's rule (core `billerAccountProblem`: length and check digit) before any money is taken, and stored
 * masked. The payer's ID (when shown) and sanctions screening are the workflow's (workflows/financial-services.ts): a
 * payer who is a potential match holds the payment (`held`: nothing taken, nothing sent) until a manager clears the
 * screening. Ledger, one journal transaction when the cash is taken: Dr the cash drawer (amount + fee), Cr
 * `fee_income` (fee), Cr `transfers_payable:bills_<partner>` (owed to the partner); a rejection by the biller moves no
 * cash at the counter: Dr the partner's payable and `fee_income`, Cr `refunds_payable:bill_payments` (owed to the
 * customer).
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
import { getMerchant } from '../../kernel/merchant.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { BillPartnerError, type Biller, type BillPartner } from './partner.ts';
import { likeContains, SqlFilter } from '../../platform/db/sql-filter.ts';

/** A biller as the API answers it. */
export const billerSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  category: z.enum(['utilities', 'telecom', 'credit_card', 'rent']),
  accountRule: billerAccountRuleSchema,
});

/** `POST /api/pos/bill-payments/validate` body. */
export const billAccountBody = z.strictObject({
  billerId: z.string().min(1).max(64),
  accountNumber: z.string().min(1).max(40).describe('Spaces and dashes are ignored'),
});

/** From this amount (minor units) a bill payment needs the payer's ID: the $3,000 funds-transfer record-keeping threshold of 31 CFR 1010.410(e). */
export const BILL_ID_REQUIRED_FROM_CENTS = 300_000;

const shiftIdSchema = z.string().regex(/^shf_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a shift id (shf_…)');

/** `POST /api/pos/bill-payments` body. */
export const billPaymentCreateSchema = billAccountBody.extend({
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  customerName: z
    .string()
    .trim()
    .min(2)
    .max(100)
    .describe("The payer's name, screened against the sanctions list; with an ID, the ID holder's name is used instead"),
  idPayload: z
    .string()
    .min(1)
    .max(4000)
    .optional()
    .describe(
      `The AAMVA PDF417 payload of the payer's licence: verified, and its holder screened; required from ${BILL_ID_REQUIRED_FROM_CENTS} minor units`,
    ),
  registerNumber: z.int().min(1).max(999).optional(),
  shiftId: shiftIdSchema.optional().describe("The register's open shift whose drawer takes the cash (its X/Z report counts it)"),
});
/** See {@link billPaymentCreateSchema}. */
export type BillPaymentCreate = z.infer<typeof billPaymentCreateSchema>;

/** `POST /api/pos/bill-payments/{id}/complete` body: the account number again (only its masked form is stored) and the register's open shift. */
export const billCompleteBody = z.strictObject({
  accountNumber: z.string().min(1).max(40).describe("The held payment's account number, given again (spaces and dashes ignored)"),
  shiftId: shiftIdSchema.optional().describe("The register's open shift whose drawer takes the cash"),
});

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
  confirmationNumber: z.string().nullable().describe("The partner's confirmation (null while held or once refused: nothing was sent)"),
  rejectReason: z.string().nullable(),
  screeningId: z.string().nullable().describe("The payer's sanctions screening (the ID holder's name when an ID was shown)"),
  nameScreeningId: z
    .string()
    .nullable()
    .describe('The screening of the name the cashier typed, when an ID was shown under another name (null otherwise); a held payment waits for both'),
  idVerificationId: z.string().nullable().describe("The payer's ID verification, when an ID was shown"),
  journalTransactionId: z.string().nullable().describe('Null while held or once refused (no money taken)'),
  reversalJournalTransactionId: z.string().nullable(),
  receipt: z.array(z.string()).nullable().describe('The receipt once paid (null while held or once refused)'),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** See {@link billPaymentSchema}. */
export type BillPayment = z.infer<typeof billPaymentSchema>;

/** `GET /api/pos/bill-payments` query. */
export const billPaymentListQuery = z.strictObject({
  ...pageQueryFields,
  status: z.enum(BILL_PAYMENT_STATUSES).optional(),
  billerId: z.string().max(64).optional(),
  customerName: z.string().max(100).optional(),
});

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
  confirmation_number: string | null;
  status: (typeof BILL_PAYMENT_STATUSES)[number];
  reject_reason: string | null;
  cash_account: string;
  screening_id: string | null;
  name_screening_id: string | null;
  id_verification_id: string | null;
  journal_transaction_id: string | null;
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
    screeningId: r.screening_id,
    nameScreeningId: r.name_screening_id,
    idVerificationId: r.id_verification_id,
    journalTransactionId: r.journal_transaction_id,
    reversalJournalTransactionId: r.reversal_journal_transaction_id,
    receipt: r.journal_transaction_id
      ? [
          'BILL PAYMENT',
          `${r.biller_name} account ${r.account_masked}`,
          `Amount: ${usd(amount)} ${r.currency}`,
          `Fee: ${usd(fee)} ${r.currency}`,
          `Total paid: ${usd(amount + fee)} ${r.currency}`,
          `Confirmation: ${r.confirmation_number}`,
          'Posting to the biller may take up to 1 business day.',
        ]
      : null,
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
export async function validateBillAccount(
  partner: BillPartner,
  body: z.infer<typeof billAccountBody>,
): Promise<{ biller: Biller; account: string; accountMasked: string }> {
  const biller = (await partner.billers()).find((b) => b.id === body.billerId);
  if (!biller)
    throw new ProblemError(404, 'biller_not_found', `Biller ${body.billerId} is not in the directory.`, [
      { path: 'billerId', message: 'is not a biller of the directory' },
    ]);
  const problem = billerAccountProblem(body.accountNumber, biller.accountRule);
  if (problem) throw new ProblemError(400, 'invalid_account', problem, [{ path: 'accountNumber', message: problem }]);
  const account = body.accountNumber.replace(/[\s-]/g, '');
  return { biller, account, accountMasked: maskAccount(account) };
}

const payableAccount = (partner: string) => `transfers_payable:bills_${partner.replace(/[^A-Za-z0-9_-]/g, '_')}`;
/** What the store owes customers whose bill the biller rejected (core `refunds_payable`). */
export const BILL_REFUNDS_OWED_ACCOUNT = 'refunds_payable:bill_payments';

/** The payment's postings: cash in (sign 1); the biller's rejection (sign -1) owes it back to the customer, not the drawer. */
function postingsOf(amount: number, fee: number, cashAccount: string, partner: string, sign: 1 | -1) {
  return [
    { accountCode: sign === 1 ? cashAccount : BILL_REFUNDS_OWED_ACCOUNT, amountCents: sign * (amount + fee) },
    { accountCode: 'fee_income', amountCents: -sign * fee },
    { accountCode: payableAccount(partner), amountCents: -sign * amount },
  ];
}

/** The store's bill-payment settings (modules/financial-services, handed in by the workflow). */
export interface BillPaymentSettings {
  billPaymentFeeCents: number;
  billPaymentLimits: ServiceLimits;
}

/** A bill payment accepted for paying (money movement allowed, account valid, per-payment limit passed), not yet written. */
export interface BillPaymentPlan {
  input: BillPaymentCreate;
  biller: Biller;
  account: string;
  accountMasked: string;
  feeCents: number;
  currency: string;
  cashAccount: string;
}

/**
 * Money movement (403 in the demo store), the account (length, check digit) and the per-payment limit. Reads only.
 * @throws ProblemError 403 `money_movement_disabled`; 404 `biller_not_found`; 400 `invalid_account`; 422 `limit_per_transaction`.
 */
export async function planBillPayment(
  tx: Queryable,
  merchantId: string,
  input: BillPaymentCreate,
  partner: BillPartner,
  settings: BillPaymentSettings,
): Promise<BillPaymentPlan> {
  const merchant = await getMerchant(tx, merchantId);
  assertMoneyMovementAllowed(merchant, 'A bill payment');
  const { biller, account, accountMasked } = await validateBillAccount(partner, input);
  const refusal = checkServiceLimits(input.amountCents, 0, settings.billPaymentLimits);
  if (refusal)
    throw new ProblemError(422, refusal.code, refusal.message, [{ path: 'amountCents', message: `must not exceed ${refusal.limitCents}` }]);
  return {
    input,
    biller,
    account,
    accountMasked,
    feeCents: settings.billPaymentFeeCents,
    currency: merchant.currency,
    cashAccount: input.registerNumber ? cashDrawerAccount(input.registerNumber) : 'cash_drawer',
  };
}

/** The daily-limit key of a payer known only by name: the SHA-256 of the name, lower case, spaces collapsed (a weaker key than an ID's). */
export function payerNameRef(name: string): string {
  return createHash('sha256').update(name.trim().toLowerCase().replace(/\s+/g, ' ')).digest('hex');
}

/**
 * The per-customer daily limit over the payer's payments held or taken today (UTC).
 * @throws ProblemError 422 `limit_per_customer_day` naming `amountCents`.
 */
export async function assertPayerDailyLimit(
  tx: Queryable,
  merchantId: string,
  customerRef: string,
  amountCents: number,
  now: Date,
  limits: ServiceLimits,
): Promise<void> {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const today = await tx.query<{ n: string | number }>(
    `SELECT COALESCE(SUM(amount_cents), 0) AS n FROM bill_payments WHERE merchant_id = $1 AND customer_ref = $2 AND status NOT IN ('rejected', 'refused') AND created_at >= $3`,
    [merchantId, customerRef, dayStart.toISOString()],
  );
  const refusal = checkServiceLimits(amountCents, Number(today.rows[0]!.n), limits);
  if (refusal)
    throw new ProblemError(422, refusal.code, refusal.message, [
      { path: 'amountCents', message: `the payer's total today must not exceed ${refusal.limitCents}` },
    ]);
}

/**
 * Who pays, as the workflow established it: the name screened (the ID holder's when an ID was shown), the daily-limit
 * key, its screening, the screening of the name the cashier typed when it differs from the ID's, and the ID verification.
 */
export interface BillPayer {
  name: string;
  ref: string;
  screeningId: string;
  nameScreeningId: string | null;
  idVerificationId: string | null;
}

/** Pays the biller through the partner and posts the cash in; answers the confirmation and the journal transaction. */
async function payAndPost(
  m: Mutation,
  id: string,
  p: { billerId: string; billerName: string; account: string; amountCents: number; feeCents: number; currency: string; cashAccount: string },
  partner: BillPartner,
): Promise<{ confirmationNumber: string; journalId: string }> {
  let confirmationNumber: string;
  try {
    ({ confirmationNumber } = await partner.pay({
      reference: id,
      billerId: p.billerId,
      account: p.account,
      amountCents: p.amountCents,
      currency: p.currency,
    }));
  } catch (e) {
    if (e instanceof BillPartnerError) throw new ProblemError(e.code === 'partner_timeout' ? 504 : 422, e.code, e.message);
    throw e;
  }
  const jt = buildJournalTransaction(
    {
      kind: 'financial_service',
      sourceType: 'bill_payment',
      sourceId: id,
      registerId: m.registerId ?? null,
      currency: p.currency,
      occurredAt: m.now.toISOString(),
      memo: `Bill payment ${id} to ${p.billerName}`,
    },
    postingsOf(p.amountCents, p.feeCents, p.cashAccount, partner.name, 1),
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  return { confirmationNumber, journalId: jt.id };
}

/**
 * Records the payment inside `m`: `held` (the payer is a potential sanctions match: nothing taken, nothing sent) or
 * paid through the partner with the cash taken (journal transaction in the same database transaction), `accepted`.
 * Only the account's masked form is stored, held or not (a card biller's account is a card number): completing a held
 * payment takes the account number again. Audits `bill_payment.held` / `bill_payment.accepted`.
 * @throws ProblemError 422 `partner_rejected`, 504 `partner_timeout` (nothing written).
 */
export async function recordBillPayment(
  m: Mutation,
  plan: BillPaymentPlan,
  payer: BillPayer,
  held: boolean,
  partner: BillPartner,
): Promise<BillPayment> {
  const id = `bpy_${ulid()}`;
  const { input, biller } = plan;
  const paid = held
    ? null
    : await payAndPost(
        m,
        id,
        {
          billerId: biller.id,
          billerName: biller.name,
          account: plan.account,
          amountCents: input.amountCents,
          feeCents: plan.feeCents,
          currency: plan.currency,
          cashAccount: plan.cashAccount,
        },
        partner,
      );
  const { rows } = await m.tx.query<Row>(
    `INSERT INTO bill_payments (id, merchant_id, biller_id, biller_name, account_masked, customer_name, customer_ref, amount_cents, fee_cents, currency, partner, confirmation_number, status,
       cash_account, journal_transaction_id, register_id, created_by, created_at, updated_at, shift_id, screening_id, id_verification_id, name_screening_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18, $19, $20, $21, $22) RETURNING *`,
    [
      id,
      m.merchantId,
      biller.id,
      biller.name,
      plan.accountMasked,
      payer.name,
      payer.ref,
      input.amountCents,
      plan.feeCents,
      plan.currency,
      partner.name,
      paid?.confirmationNumber ?? null,
      held ? 'held' : 'accepted',
      plan.cashAccount,
      paid?.journalId ?? null,
      m.registerId ?? null,
      m.actor,
      m.now.toISOString(),
      held ? null : (input.shiftId ?? null),
      payer.screeningId,
      payer.idVerificationId,
      payer.nameScreeningId,
    ],
  );
  await m.audit({
    action: held ? 'bill_payment.held' : 'bill_payment.accepted',
    entityType: 'bill_payment',
    entityId: id,
    data: {
      billerId: biller.id,
      accountMasked: plan.accountMasked,
      amountCents: input.amountCents,
      feeCents: plan.feeCents,
      confirmationNumber: paid?.confirmationNumber ?? null,
      journalTransactionId: paid?.journalId ?? null,
      screeningId: payer.screeningId,
      nameScreeningId: payer.nameScreeningId,
    },
  });
  return toApi(rows[0]!);
}

/** A held payment's status and its payer's screenings (the ID holder's or typed name's, and the typed name's when it differs). */
export async function billPaymentScreening(
  db: Queryable,
  merchantId: string,
  id: string,
): Promise<{ status: BillPayment['status']; screeningIds: string[]; billerId: string }> {
  const r = await row(db, merchantId, id);
  return { status: r.status, screeningIds: [r.screening_id, r.name_screening_id].filter((x): x is string => !!x), billerId: r.biller_id };
}

/**
 * Finishes a `held` payment: `pay` (screening cleared — the workflow checks — and the account number given again,
 * since only its masked form is stored; it must be the same account): paid through the partner, cash taken, `accepted`;
 * or `refuse`: `refused`, nothing taken. Audits `bill_payment.accepted` / `bill_payment.refused`.
 * @throws ProblemError 409 `illegal_state_transition` unless held; 409 `account_mismatch` when the account given is not
 *   the held one's; 403 `money_movement_disabled`; partner problems.
 */
export async function finishHeldBillPayment(
  m: Mutation,
  id: string,
  outcome: { pay: { account: string; biller: Biller; shiftId?: string | undefined } } | { refuse: string },
  partner: BillPartner,
): Promise<BillPayment> {
  const r = await row(m.tx, m.merchantId, id);
  if (r.status !== 'held') throw new ProblemError(409, 'illegal_state_transition', `Bill payment ${id} is ${r.status}, not held.`);
  if ('refuse' in outcome) {
    await m.tx.query(`UPDATE bill_payments SET status = 'refused', reject_reason = $3, updated_at = $4 WHERE merchant_id = $1 AND id = $2`, [
      m.merchantId,
      id,
      outcome.refuse,
      m.now.toISOString(),
    ]);
    await m.audit({
      action: 'bill_payment.refused',
      entityType: 'bill_payment',
      entityId: id,
      data: { reason: outcome.refuse, screeningId: r.screening_id, nameScreeningId: r.name_screening_id },
    });
    return getBillPayment(m.tx, m.merchantId, id);
  }
  const { account, biller, shiftId } = outcome.pay;
  if (biller.id !== r.biller_id || maskAccount(account) !== r.account_masked) {
    throw new ProblemError(
      409,
      'account_mismatch',
      `The account given is not the one of held bill payment ${id} (${r.account_masked} at ${r.biller_name}).`,
      [{ path: 'accountNumber', message: `must be the held payment's account ${r.account_masked}` }],
    );
  }
  assertMoneyMovementAllowed(await getMerchant(m.tx, m.merchantId), 'A bill payment');
  const amount = Number(r.amount_cents);
  const fee = Number(r.fee_cents);
  const paid = await payAndPost(
    m,
    id,
    {
      billerId: r.biller_id,
      billerName: r.biller_name,
      account,
      amountCents: amount,
      feeCents: fee,
      currency: r.currency,
      cashAccount: r.cash_account,
    },
    partner,
  );
  await m.tx.query(
    `UPDATE bill_payments SET status = 'accepted', confirmation_number = $3, journal_transaction_id = $4, updated_at = $5, shift_id = $6 WHERE merchant_id = $1 AND id = $2`,
    [m.merchantId, id, paid.confirmationNumber, paid.journalId, m.now.toISOString(), shiftId ?? null],
  );
  await m.audit({
    action: 'bill_payment.accepted',
    entityType: 'bill_payment',
    entityId: id,
    data: {
      billerId: r.biller_id,
      accountMasked: r.account_masked,
      amountCents: amount,
      feeCents: fee,
      confirmationNumber: paid.confirmationNumber,
      journalTransactionId: paid.journalId,
      afterHold: true,
    },
  });
  return getBillPayment(m.tx, m.merchantId, id);
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
 * Asks the partner where an `accepted` payment is: `posted`, or `rejected` by the biller — then the refund is posted
 * as owed to the customer (Dr the partner's payable and `fee_income`, Cr `refunds_payable:bill_payments`: no cash
 * moves at the counter) and audited `bill_payment.rejected`.
 */
export async function refreshBillPayment(m: Mutation, id: string, partner: BillPartner): Promise<BillPayment> {
  const r = await row(m.tx, m.merchantId, id);
  if (r.status !== 'accepted') return toApi(r);
  // An accepted payment has its confirmation (a CHECK of migration 0235); it was accepted when last updated (paid at once, or completed after a hold).
  const s = await partner.status({ confirmationNumber: r.confirmation_number!, acceptedAt: new Date(r.updated_at), now: m.now });
  if (s.status === 'accepted') return toApi(r);
  if (s.status === 'posted') {
    await m.tx.query(`UPDATE bill_payments SET status = 'posted', updated_at = $3 WHERE merchant_id = $1 AND id = $2`, [
      m.merchantId,
      id,
      m.now.toISOString(),
    ]);
    await m.audit({ action: 'bill_payment.posted', entityType: 'bill_payment', entityId: id, data: { confirmationNumber: r.confirmation_number } });
    return getBillPayment(m.tx, m.merchantId, id);
  }
  const jt = buildJournalTransaction(
    {
      kind: 'adjustment',
      sourceType: 'bill_payment',
      sourceId: id,
      registerId: m.registerId ?? null,
      currency: r.currency,
      occurredAt: m.now.toISOString(),
      memo: `Bill payment ${id} rejected by the biller: refund of ${r.journal_transaction_id} owed to the customer`,
    },
    postingsOf(Number(r.amount_cents), Number(r.fee_cents), r.cash_account, r.partner, -1),
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  await m.tx.query(
    `UPDATE bill_payments SET status = 'rejected', reject_reason = $3, reversal_journal_transaction_id = $4, updated_at = $5 WHERE merchant_id = $1 AND id = $2`,
    [m.merchantId, id, s.reason ?? 'rejected by the biller', jt.id, m.now.toISOString()],
  );
  await m.audit({
    action: 'bill_payment.rejected',
    entityType: 'bill_payment',
    entityId: id,
    data: { reason: s.reason ?? null, reversalJournalTransactionId: jt.id },
  });
  return getBillPayment(m.tx, m.merchantId, id);
}

/**
 * Bill payments still `accepted` (not yet posted or rejected) across every store, oldest update first, at most
 * `limit`: what the housekeeping tick asks the partner about (workflows/financial-services.ts `trackFinancialServices`).
 */
export async function billPaymentsInFlight(db: Queryable, limit: number): Promise<{ merchantId: string; id: string }[]> {
  const { rows } = await db.query<{ merchant_id: string; id: string }>(
    `SELECT merchant_id, id FROM bill_payments WHERE status = 'accepted' ORDER BY updated_at, id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ merchantId: r.merchant_id, id: r.id }));
}

/** The merchant's bill payments, newest first; filter by status, biller, customer name (contains). */
export async function listBillPayments(
  db: Queryable,
  merchantId: string,
  q: z.infer<typeof billPaymentListQuery>,
): Promise<{ data: BillPayment[]; nextCursor: string | null }> {
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
export async function billCashOfShift(
  db: Queryable,
  merchantId: string,
  shiftId: string,
): Promise<{ count: number; amountCents: number; feeCents: number }> {
  const { rows } = await db.query<{ n: number | string; amount: number | string | null; fee: number | string | null }>(
    `SELECT count(*) AS n, SUM(amount_cents + fee_cents) AS amount, SUM(fee_cents) AS fee FROM bill_payments WHERE merchant_id = $1 AND shift_id = $2 AND journal_transaction_id IS NOT NULL`,
    [merchantId, shiftId],
  );
  return { count: Number(rows[0]?.n ?? 0), amountCents: Number(rows[0]?.amount ?? 0), feeCents: Number(rows[0]?.fee ?? 0) };
}
