/**
 * Money transfers: cash in at the register, sent abroad by a partner (partner.ts). Owns
 * `money_transfers` and its append-only `money_transfer_events`. The partner's quote is shown as the Remittance
 * Transfer Rule's pre-payment disclosure (core `remittanceDisclosure`); once paid, the receipt carries the 30-minute
 * cancellation right. Ledger, one journal transaction when the cash is taken: Dr the cash drawer (amount + fee),
 * Cr `fee_income` (fee), Cr `transfers_payable:<partner>` (amount owed to the partner); a cancellation at the counter
 * posts the exact reversal (the cash goes back out of the drawer), a refund by the partner owes it to the sender
 * (`refunds_payable:money_transfers`: no cash moves). ID and screening are the workflow's (workflows/financial-services.ts).
 */
import { z } from 'zod';
import {
  buildJournalTransaction,
  canTransferMove,
  cashDrawerAccount,
  checkServiceLimits,
  MAX_AMOUNT_CENTS,
  PAYOUT_METHODS,
  pageQueryFields,
  remittanceDisclosure,
  remittanceDisclosureSchema,
  TRANSFER_PROGRESS,
  TRANSFER_STATUSES,
  transferQuoteSchema,
  ulid,
  type RemittanceReceiptParties,
  type TransferQuote,
  type ServiceLimits,
  type TransferStatus,
} from '../../../../core/index.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { PartnerError, type TransferPartner } from './partner.ts';
import { likeContains, SqlFilter } from '../../platform/db/sql-filter.ts';

const personName = z.string().trim().min(2).max(100);

/** `POST /api/pos/transfers/quote` body. */
export const transferQuoteBody = z.strictObject({
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS).describe('Amount to send (minor units of the store currency), fees not included'),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
    .describe('Destination country'),
  payoutMethod: z.enum(PAYOUT_METHODS),
});

/** `POST /api/pos/transfers` body. */
export const transferCreateSchema = transferQuoteBody.extend({
  idPayload: z.string().min(1).max(4000).describe("The AAMVA PDF417 payload of the sender's licence"),
  receiverName: personName.describe('The receiver, screened against the sanctions list'),
  registerNumber: z.int().min(1).max(999).optional(),
  shiftId: z
    .string()
    .regex(/^shf_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a shift id (shf_…)')
    .optional()
    .describe("The register's open shift whose drawer takes the cash (its X/Z report counts it)"),
});
/** See {@link transferCreateSchema}. */
export type TransferCreate = z.infer<typeof transferCreateSchema>;

/** `POST /api/pos/transfers/{id}/complete` and `…/cancel` body (optional): the register's open shift whose drawer the cash goes through. */
export const transferShiftBody = z.strictObject({
  shiftId: z
    .string()
    .regex(/^shf_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a shift id (shf_…)')
    .optional(),
});

/** A quote and its pre-payment disclosure. */
export const transferQuoteResponse = z.strictObject({ quote: transferQuoteSchema, disclosure: remittanceDisclosureSchema });

/** A transfer as the API answers it. */
export const transferSchema = z.strictObject({
  id: z.string(),
  status: z.enum(TRANSFER_STATUSES),
  senderName: z.string(),
  receiverName: z.string(),
  quote: transferQuoteSchema,
  partner: z.string(),
  partnerReference: z.string().nullable(),
  idVerificationId: z.string().nullable(),
  senderScreeningId: z.string().nullable(),
  receiverScreeningId: z.string().nullable(),
  journalTransactionId: z.string().nullable(),
  reversalJournalTransactionId: z.string().nullable(),
  receipt: remittanceDisclosureSchema.nullable().describe('The Remittance Transfer Rule receipt once paid (null while held)'),
  history: z.array(z.strictObject({ status: z.string(), note: z.string().nullable(), at: z.string() })),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** See {@link transferSchema}. */
export type Transfer = z.infer<typeof transferSchema>;

/** `GET /api/pos/transfers` query. */
export const transferListQuery = z.strictObject({
  ...pageQueryFields,
  status: z.enum(TRANSFER_STATUSES).optional(),
  name: z.string().max(100).optional(),
});

interface Row {
  id: string;
  sender_name: string;
  receiver_name: string;
  country: string;
  payout_method: (typeof PAYOUT_METHODS)[number];
  amount_cents: string | number;
  fee_cents: string | number;
  currency: string;
  rate: string;
  receive_amount_minor: string | number;
  receive_currency: string;
  available_on: string;
  partner: string;
  partner_reference: string | null;
  status: TransferStatus;
  id_verification_id: string | null;
  sender_screening_id: string | null;
  receiver_screening_id: string | null;
  cash_account: string;
  journal_transaction_id: string | null;
  reversal_journal_transaction_id: string | null;
  paid_at: Date | string | null;
  receipt_parties: RemittanceReceiptParties | string | null;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const quoteOf = (r: Row): TransferQuote => ({
  sendAmountCents: Number(r.amount_cents),
  sendCurrency: r.currency,
  feeCents: Number(r.fee_cents),
  rate: r.rate,
  receiveAmountMinor: Number(r.receive_amount_minor),
  receiveCurrency: r.receive_currency,
  country: r.country,
  payoutMethod: r.payout_method,
  availableOn: r.available_on,
});

/** Transfers as the API shows them, each with its history; the histories of all `rows` in one statement. */
async function toApis(db: Queryable, rows: readonly Row[]): Promise<Transfer[]> {
  if (rows.length === 0) return [];
  const events = await db.query<{ transfer_id: string; status: string; note: string | null; occurred_at: Date | string }>(
    `SELECT transfer_id, status, note, occurred_at FROM money_transfer_events WHERE transfer_id = ANY($1::text[]) ORDER BY transfer_id, seq`,
    [rows.map((r) => r.id)],
  );
  const history = new Map<string, Transfer['history']>();
  for (const e of events.rows) {
    const list = history.get(e.transfer_id) ?? [];
    list.push({ status: e.status, note: e.note, at: new Date(e.occurred_at).toISOString() });
    history.set(e.transfer_id, list);
  }
  return rows.map((r) => toApi(r, history.get(r.id) ?? []));
}

/**
 * The receipt's parties as kept when the cash was taken; a transfer paid before they were kept names its partner and
 * says the rest was not recorded.
 */
function receiptPartiesOf(r: Row): RemittanceReceiptParties {
  if (r.receipt_parties)
    return typeof r.receipt_parties === 'string' ? (JSON.parse(r.receipt_parties) as RemittanceReceiptParties) : r.receipt_parties;
  return {
    provider: { name: r.partner, phone: 'not recorded', website: 'not recorded' },
    agent: 'not recorded',
    recipientName: r.receiver_name,
    stateRegulator: null,
  };
}

/** The receipt's parties of a transfer paid now: the partner's provider and State regulator, the store, the recipient. */
async function receiptParties(m: Mutation, partner: TransferPartner, receiverName: string): Promise<RemittanceReceiptParties> {
  return {
    provider: partner.provider,
    agent: (await getMerchant(m.tx, m.merchantId)).name,
    recipientName: receiverName,
    stateRegulator: partner.stateRegulator,
  };
}

function toApi(r: Row, history: Transfer['history']): Transfer {
  return {
    id: r.id,
    status: r.status,
    senderName: r.sender_name,
    receiverName: r.receiver_name,
    quote: quoteOf(r),
    partner: r.partner,
    partnerReference: r.partner_reference,
    idVerificationId: r.id_verification_id,
    senderScreeningId: r.sender_screening_id,
    receiverScreeningId: r.receiver_screening_id,
    journalTransactionId: r.journal_transaction_id,
    reversalJournalTransactionId: r.reversal_journal_transaction_id,
    receipt: r.paid_at ? remittanceDisclosure(quoteOf(r), { at: new Date(r.paid_at), parties: receiptPartiesOf(r) }) : null,
    history,
    createdBy: r.created_by,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/** A PartnerError as the caller's problem (nothing taken): 422 for a refusal or corridor, 504 for a timeout. */
export function partnerProblem(e: unknown): unknown {
  if (!(e instanceof PartnerError)) return e;
  return new ProblemError(e.code === 'partner_timeout' ? 504 : 422, e.code, e.message);
}

/**
 * The partner's quote and the pre-payment disclosure (nothing written).
 * @throws ProblemError 422 `corridor_unsupported`.
 */
export async function quoteTransfer(
  db: Queryable,
  merchantId: string,
  body: z.infer<typeof transferQuoteBody>,
  partner: TransferPartner,
  now: Date,
): Promise<z.infer<typeof transferQuoteResponse>> {
  const merchant = await getMerchant(db, merchantId);
  try {
    const quote = await partner.quote({
      sendAmountCents: body.amountCents,
      sendCurrency: merchant.currency,
      country: body.country,
      payoutMethod: body.payoutMethod,
      now,
    });
    return { quote, disclosure: remittanceDisclosure(quote) };
  } catch (e) {
    throw partnerProblem(e);
  }
}

/** A transfer accepted for sending (money movement allowed, per-transfer limit passed, quoted), not yet written. */
export interface TransferPlan {
  input: TransferCreate;
  quote: TransferQuote;
  cashAccount: string;
}

/**
 * Money movement (403 in the demo store), the per-transfer limit of the store's `limits`, the quote. Reads only.
 * @throws ProblemError 403 `money_movement_disabled`; 422 `limit_per_transaction` / `corridor_unsupported`.
 */
export async function planTransfer(
  tx: Queryable,
  merchantId: string,
  input: TransferCreate,
  partner: TransferPartner,
  now: Date,
  limits: ServiceLimits,
): Promise<TransferPlan> {
  assertMoneyMovementAllowed(await getMerchant(tx, merchantId), 'A money transfer');
  const refusal = checkServiceLimits(input.amountCents, 0, limits);
  if (refusal)
    throw new ProblemError(422, refusal.code, refusal.message, [{ path: 'amountCents', message: `must not exceed ${refusal.limitCents}` }]);
  const { quote } = await quoteTransfer(tx, merchantId, input, partner, now);
  return { input, quote, cashAccount: input.registerNumber ? cashDrawerAccount(input.registerNumber) : 'cash_drawer' };
}

/**
 * The per-sender daily limit (sender = SHA-256 of the ID document), over transfers held or taken today (UTC).
 * @throws ProblemError 422 `limit_per_customer_day` naming `amountCents`.
 */
export async function assertSenderDailyLimit(
  tx: Queryable,
  merchantId: string,
  senderRef: string,
  amountCents: number,
  now: Date,
  limits: ServiceLimits,
): Promise<void> {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const { rows } = await tx.query<{ n: string | number }>(
    `SELECT COALESCE(SUM(amount_cents), 0) AS n FROM money_transfers WHERE merchant_id = $1 AND sender_ref = $2 AND status NOT IN ('canceled', 'refunded', 'refused') AND created_at >= $3`,
    [merchantId, senderRef, dayStart.toISOString()],
  );
  const refusal = checkServiceLimits(amountCents, Number(rows[0]!.n), limits);
  if (refusal)
    throw new ProblemError(422, refusal.code, refusal.message, [
      { path: 'amountCents', message: `the sender's total today must not exceed ${refusal.limitCents}` },
    ]);
}

async function event(m: Mutation, transferId: string, status: string, note: string | null = null): Promise<void> {
  await m.tx.query(`INSERT INTO money_transfer_events (id, transfer_id, status, note, occurred_at) VALUES ($1, $2, $3, $4, $5)`, [
    `mte_${ulid()}`,
    transferId,
    status,
    note,
    m.now.toISOString(),
  ]);
}

const payableAccount = (partner: string) => `transfers_payable:${partner.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function transferPostings(q: TransferQuote, cashAccount: string, partner: string, sign: 1 | -1) {
  return [
    { accountCode: cashAccount, amountCents: sign * (q.sendAmountCents + q.feeCents) },
    { accountCode: 'fee_income', amountCents: -sign * q.feeCents },
    { accountCode: payableAccount(partner), amountCents: -sign * q.sendAmountCents },
  ];
}

async function submitAndPost(
  m: Mutation,
  id: string,
  q: TransferQuote,
  cashAccount: string,
  names: { senderName: string; receiverName: string },
  partner: TransferPartner,
): Promise<{ partnerReference: string; journalId: string }> {
  let partnerReference: string;
  try {
    ({ partnerReference } = await partner.submit({ reference: id, quote: q, ...names }));
  } catch (e) {
    throw partnerProblem(e);
  }
  const jt = buildJournalTransaction(
    {
      kind: 'financial_service',
      sourceType: 'money_transfer',
      sourceId: id,
      registerId: m.registerId ?? null,
      currency: q.sendCurrency,
      occurredAt: m.now.toISOString(),
      memo: `Money transfer ${id} to ${q.country}`,
    },
    transferPostings(q, cashAccount, partner.name, 1),
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  return { partnerReference, journalId: jt.id };
}

/** Who sends, as the workflow established it. */
export interface TransferParties {
  senderName: string;
  senderRef: string;
  idVerificationId: string | null;
  senderScreeningId: string | null;
  receiverScreeningId: string | null;
}

/**
 * Records the transfer: `held` (a party is a potential sanctions match: nothing taken, nothing sent) or submitted to
 * the partner and `sent` with the cash taken (journal transaction in the same database transaction). Audits
 * `transfer.held` / `transfer.sent`.
 * @throws ProblemError 422 `partner_rejected`, 504 `partner_timeout` (nothing written).
 */
export async function recordTransfer(
  m: Mutation,
  plan: TransferPlan,
  parties: TransferParties,
  held: boolean,
  partner: TransferPartner,
): Promise<Transfer> {
  const id = `mtr_${ulid()}`;
  const q = plan.quote;
  const sent = held
    ? null
    : await submitAndPost(m, id, q, plan.cashAccount, { senderName: parties.senderName, receiverName: plan.input.receiverName }, partner);
  await m.tx.query(
    `INSERT INTO money_transfers (id, merchant_id, sender_name, sender_ref, receiver_name, country, payout_method, amount_cents, fee_cents, currency, rate, receive_amount_minor, receive_currency,
       available_on, partner, partner_reference, status, id_verification_id, sender_screening_id, receiver_screening_id, cash_account, journal_transaction_id, paid_at, cancel_until, register_id, created_by, created_at, updated_at, shift_id,
       receipt_parties)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $27, $28, $29)`,
    [
      id,
      m.merchantId,
      parties.senderName,
      parties.senderRef,
      plan.input.receiverName,
      q.country,
      q.payoutMethod,
      q.sendAmountCents,
      q.feeCents,
      q.sendCurrency,
      q.rate,
      q.receiveAmountMinor,
      q.receiveCurrency,
      q.availableOn,
      partner.name,
      sent?.partnerReference ?? null,
      held ? 'held' : 'sent',
      parties.idVerificationId,
      parties.senderScreeningId,
      parties.receiverScreeningId,
      plan.cashAccount,
      sent?.journalId ?? null,
      sent ? m.now.toISOString() : null,
      sent ? new Date(m.now.getTime() + 30 * 60_000).toISOString() : null,
      m.registerId ?? null,
      m.actor,
      m.now.toISOString(),
      plan.input.shiftId ?? null,
      sent ? JSON.stringify(await receiptParties(m, partner, plan.input.receiverName)) : null,
    ],
  );
  if (held) await event(m, id, 'held', 'sanctions screening: potential match');
  else {
    await event(m, id, 'submitted');
    await event(m, id, 'sent');
  }
  await m.audit({
    action: held ? 'transfer.held' : 'transfer.sent',
    entityType: 'money_transfer',
    entityId: id,
    data: {
      amountCents: q.sendAmountCents,
      feeCents: q.feeCents,
      rate: q.rate,
      receiveAmountMinor: q.receiveAmountMinor,
      country: q.country,
      journalTransactionId: sent?.journalId ?? null,
      senderScreeningId: parties.senderScreeningId,
      receiverScreeningId: parties.receiverScreeningId,
    },
  });
  return getTransfer(m.tx, m.merchantId, id);
}

async function row(db: Queryable, merchantId: string, id: string): Promise<Row> {
  const { rows } = await db.query<Row>('SELECT * FROM money_transfers WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Transfer ${id} does not exist.`);
  return rows[0];
}

/** A transfer with its history, or 404. */
export async function getTransfer(db: Queryable, merchantId: string, id: string): Promise<Transfer> {
  return (await toApis(db, [await row(db, merchantId, id)]))[0]!;
}

/** The screening ids of a transfer (for the workflow's clearance check). */
export async function transferScreenings(db: Queryable, merchantId: string, id: string): Promise<{ status: TransferStatus; ids: string[] }> {
  const r = await row(db, merchantId, id);
  return { status: r.status, ids: [r.sender_screening_id, r.receiver_screening_id].filter((x): x is string => x !== null) };
}

/**
 * Finishes a `held` transfer: `send` (screenings cleared — the workflow checks): submitted, cash taken, `sent`; or
 * `refuse`: `refused`, nothing taken. Audits `transfer.sent` / `transfer.refused`.
 * @throws ProblemError 409 `illegal_state_transition` unless held; 403 `money_movement_disabled`; partner problems.
 */
export async function finishHeldTransfer(
  m: Mutation,
  id: string,
  outcome: 'send' | 'refuse',
  partner: TransferPartner,
  reason?: string,
  shiftId?: string,
): Promise<Transfer> {
  const r = await row(m.tx, m.merchantId, id);
  if (r.status !== 'held') throw new ProblemError(409, 'illegal_state_transition', `Transfer ${id} is ${r.status}, not held.`);
  if (outcome === 'refuse') {
    await m.tx.query(`UPDATE money_transfers SET status = 'refused', updated_at = $3 WHERE merchant_id = $1 AND id = $2`, [
      m.merchantId,
      id,
      m.now.toISOString(),
    ]);
    await event(m, id, 'refused', reason ?? null);
    await m.audit({ action: 'transfer.refused', entityType: 'money_transfer', entityId: id, data: { reason: reason ?? null } });
    return getTransfer(m.tx, m.merchantId, id);
  }
  assertMoneyMovementAllowed(await getMerchant(m.tx, m.merchantId), 'A money transfer');
  const sent = await submitAndPost(m, id, quoteOf(r), r.cash_account, { senderName: r.sender_name, receiverName: r.receiver_name }, partner);
  await m.tx.query(
    `UPDATE money_transfers SET status = 'sent', partner_reference = $3, journal_transaction_id = $4, paid_at = $5, cancel_until = $6, updated_at = $5, shift_id = COALESCE($7, shift_id), receipt_parties = $8
     WHERE merchant_id = $1 AND id = $2`,
    [
      m.merchantId,
      id,
      sent.partnerReference,
      sent.journalId,
      m.now.toISOString(),
      new Date(m.now.getTime() + 30 * 60_000).toISOString(),
      shiftId ?? null,
      JSON.stringify(await receiptParties(m, partner, r.receiver_name)),
    ],
  );
  await event(m, id, 'submitted', 'screening cleared');
  await event(m, id, 'sent');
  await m.audit({
    action: 'transfer.sent',
    entityType: 'money_transfer',
    entityId: id,
    data: { journalTransactionId: sent.journalId, afterHold: true },
  });
  return getTransfer(m.tx, m.merchantId, id);
}

/** What the store owes senders whose transfer the partner refunded (core `refunds_payable`). */
export const TRANSFER_REFUNDS_OWED_ACCOUNT = 'refunds_payable:money_transfers';

/**
 * The full refund of a transfer: canceled at the counter, the cash goes back out of the drawer; refunded by the
 * partner later, no cash moves at the counter and the refund is owed to the sender (`refunds_payable:money_transfers`).
 */
async function reverse(m: Mutation, r: Row, status: 'canceled' | 'refunded', note: string, cancelShiftId: string | null = null): Promise<void> {
  const jt = buildJournalTransaction(
    {
      kind: 'adjustment',
      sourceType: 'money_transfer',
      sourceId: r.id,
      registerId: m.registerId ?? null,
      currency: r.currency,
      occurredAt: m.now.toISOString(),
      memo:
        status === 'canceled'
          ? `Money transfer ${r.id} canceled: full refund of ${r.journal_transaction_id}`
          : `Money transfer ${r.id} refunded by the partner: full refund of ${r.journal_transaction_id} owed to the sender`,
    },
    transferPostings(quoteOf(r), status === 'canceled' ? r.cash_account : TRANSFER_REFUNDS_OWED_ACCOUNT, r.partner, -1),
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  await m.tx.query(
    `UPDATE money_transfers SET status = $3, reversal_journal_transaction_id = $4, updated_at = $5, cancel_shift_id = $6 WHERE merchant_id = $1 AND id = $2`,
    [m.merchantId, r.id, status, jt.id, m.now.toISOString(), cancelShiftId],
  );
  await event(m, r.id, status, note);
  await m.audit({
    action: `transfer.${status}`,
    entityType: 'money_transfer',
    entityId: r.id,
    data: { reversalJournalTransactionId: jt.id, refundCents: Number(r.amount_cents) + Number(r.fee_cents), note },
  });
}

/**
 * The sender's cancellation (12 CFR 1005.34): within 30 minutes of payment and before the money is picked up, a full
 * refund (amount and fees) with the reversal posted; the cash goes back from the drawer of `shiftId` (the register's
 * open shift, when it names it).
 * @throws ProblemError 409 `cancellation_window_closed` after 30 minutes; 409 `illegal_state_transition` when not cancelable.
 */
export async function cancelTransfer(m: Mutation, id: string, partner: TransferPartner, shiftId?: string): Promise<Transfer> {
  const r = await row(m.tx, m.merchantId, id);
  if (!canTransferMove(r.status, 'canceled'))
    throw new ProblemError(409, 'illegal_state_transition', `Transfer ${id} is ${r.status}: it cannot be canceled.`);
  const paidAt = new Date(r.paid_at!);
  if (m.now.getTime() > paidAt.getTime() + 30 * 60_000) {
    throw new ProblemError(
      409,
      'cancellation_window_closed',
      `The 30-minute cancellation window of transfer ${id} closed at ${new Date(paidAt.getTime() + 30 * 60_000).toISOString()}.`,
    );
  }
  await partner.cancel({ partnerReference: r.partner_reference! });
  await reverse(m, r, 'canceled', 'canceled by the sender within 30 minutes', shiftId ?? null);
  return getTransfer(m.tx, m.merchantId, id);
}

/**
 * Asks the partner where the transfer is and records every step it moved through (sent → available → paid), or its
 * refund (reversal posted). Audits `transfer.status_changed` when it moved.
 */
export async function refreshTransfer(m: Mutation, id: string, partner: TransferPartner): Promise<Transfer> {
  const r = await row(m.tx, m.merchantId, id);
  if (!['submitted', 'sent', 'available'].includes(r.status)) return getTransfer(m.tx, m.merchantId, id);
  const now = await partner.status({
    partnerReference: r.partner_reference!,
    receiverName: r.receiver_name,
    submittedAt: new Date(r.paid_at!),
    now: m.now,
  });
  if (now === 'refunded') {
    await reverse(m, r, 'refunded', 'refunded by the partner');
    return getTransfer(m.tx, m.merchantId, id);
  }
  const from = TRANSFER_PROGRESS.indexOf(r.status);
  const to = TRANSFER_PROGRESS.indexOf(now);
  if (to > from) {
    for (const s of TRANSFER_PROGRESS.slice(from + 1, to + 1)) await event(m, id, s);
    await m.tx.query(`UPDATE money_transfers SET status = $3, updated_at = $4 WHERE merchant_id = $1 AND id = $2`, [
      m.merchantId,
      id,
      now,
      m.now.toISOString(),
    ]);
    await m.audit({ action: 'transfer.status_changed', entityType: 'money_transfer', entityId: id, data: { from: r.status, to: now } });
  }
  return getTransfer(m.tx, m.merchantId, id);
}

/**
 * Transfers the partner still moves (submitted, sent, available) across every store, oldest update first, at most
 * `limit`: what the housekeeping tick asks the partner about (workflows/financial-services.ts `trackFinancialServices`).
 */
export async function transfersInFlight(db: Queryable, limit: number): Promise<{ merchantId: string; id: string }[]> {
  const { rows } = await db.query<{ merchant_id: string; id: string }>(
    `SELECT merchant_id, id FROM money_transfers WHERE status IN ('submitted', 'sent', 'available') ORDER BY updated_at, id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ merchantId: r.merchant_id, id: r.id }));
}

/** The merchant's transfers, newest first; filter by status or a name (sender or receiver, contains). */
export async function listTransfers(
  db: Queryable,
  merchantId: string,
  q: z.infer<typeof transferListQuery>,
): Promise<{ data: Transfer[]; nextCursor: string | null }> {
  const f = new SqlFilter(['merchant_id = ?'], [merchantId]);
  if (q.status) f.add('status = ?', q.status);
  if (q.name) {
    const name = f.param(likeContains(q.name));
    f.add(`(sender_name ILIKE ${name} OR receiver_name ILIKE ${name})`);
  }
  if (q.cursor) f.add('(created_at, id) < (?::timestamptz, ?::text)', ...decodeCursor(q.cursor, ['date', 'string']));
  const limit = f.param(q.limit + 1);
  const { rows } = await db.query<Row>(`SELECT * FROM money_transfers WHERE ${f.where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`, f.params);
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: await toApis(db, page), nextCursor };
}

/**
 * The cash of transfers through the drawer of shift `shiftId`, minor units: taken in (amount + fee of transfers paid
 * in that shift, whatever became of them later) and handed back (transfers canceled at the counter in that shift) —
 * the shift report's "Transfers in" and "Transfers canceled out" (workflows/shift-closeout.ts).
 */
export async function transferCashOfShift(
  db: Queryable,
  merchantId: string,
  shiftId: string,
): Promise<{ in: { count: number; amountCents: number; feeCents: number }; canceled: { count: number; amountCents: number; feeCents: number } }> {
  const { rows } = await db.query<{ kind: 'in' | 'canceled'; n: number | string; amount: number | string | null; fee: number | string | null }>(
    `SELECT 'in' AS kind, count(*) AS n, SUM(amount_cents + fee_cents) AS amount, SUM(fee_cents) AS fee FROM money_transfers WHERE merchant_id = $1 AND shift_id = $2 AND journal_transaction_id IS NOT NULL
     UNION ALL
     SELECT 'canceled' AS kind, count(*) AS n, SUM(amount_cents + fee_cents) AS amount, SUM(fee_cents) AS fee FROM money_transfers WHERE merchant_id = $1 AND cancel_shift_id = $2 AND status = 'canceled'`,
    [merchantId, shiftId],
  );
  const line = (kind: 'in' | 'canceled') => {
    const r = rows.find((x) => x.kind === kind);
    return { count: Number(r?.n ?? 0), amountCents: Number(r?.amount ?? 0), feeCents: Number(r?.fee ?? 0) };
  };
  return { in: line('in'), canceled: line('canceled') };
}
