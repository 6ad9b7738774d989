/**
 * Financial services workflows: the steps of check cashing, money transfers and bill payments
 * that span modules — ID verification (modules/id-verification), sanctions screening (modules/sanctions), then the
 * service's own module (modules/check-cashing, modules/transfers, modules/bill-payments) — each request in one
 * mutation, in this order:
 *
 * 1. the service's checks that need no customer (money movement — 403 `money_movement_disabled` in the demo store —,
 *    MICR checksum and duplicates, per-transaction limit, the partner's quote);
 * 2. the customer's ID for the service (expiry, minimum age): refused → 422 `id_not_accepted`;
 * 3. the per-customer daily limit (the customer is the SHA-256 of the document's jurisdiction and number);
 * 4. screening of every party: `blocked` → 422 `screening_blocked`; `potential_match` → the record is kept `held`
 *    (202), nothing paid, until a manager clears the screening (`POST /api/pos/screenings/{id}/clear`) and the
 *    cashier completes it — or a manager refuses it;
 * 5. the money: cash out of the drawer (check) or cash in and the partner (transfer), with the journal transaction.
 *
 * Every step is audited by its module; a refusal is audited too (`check_cashing.refused`, `transfer.refused`): a
 * refusal after the ID or the screening commits them with the refusal (the screening decision is kept), an earlier
 * one is written in its own mutation.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { financialServiceSettingsSchema, PAYOUT_METHODS } from '../../../core/index.ts';
import { getMerchant } from '../kernel/merchant.ts';
import { moneyMovementOf } from '../kernel/money-movement.ts';
import type { Queryable } from '../platform/db/db.ts';
import { parseAamva } from '../../../core/aamva.ts';
import { mutation, type Mutation, type MutationActor } from '../kernel/mutation.ts';
import type { AppContext } from '../platform/context.ts';
import { ProblemError } from '../platform/http/problem.ts';
import {
  assertCustomerDailyLimit,
  finishHeldCheck,
  getCheckCashing,
  planCheckCashing,
  recordCheckCashing,
  CHECK_REFUSED_ACTION,
  type CheckCashCreate,
  type CheckCashing,
} from '../modules/check-cashing/index.ts';
import {
  assertPayerDailyLimit,
  BILL_ID_REQUIRED_FROM_CENTS,
  billPaymentScreening,
  billPaymentsInFlight,
  finishHeldBillPayment,
  payerNameRef,
  planBillPayment,
  recordBillPayment,
  refreshBillPayment,
  validateBillAccount,
  type BillPayment,
  type BillPaymentCreate,
  type BillPartner,
} from '../modules/bill-payments/index.ts';
import { getFinancialServiceSettings } from '../modules/financial-services/index.ts';
import { verifyId, type VerifyIdResult } from '../modules/id-verification/index.ts';
import { assertScreeningCleared, decideScreening, getScreening, screenParty, type ScreenPartyResult } from '../modules/sanctions/index.ts';
import {
  assertSenderDailyLimit,
  finishHeldTransfer,
  planTransfer,
  recordTransfer,
  refreshTransfer,
  transferScreenings,
  transfersInFlight,
  type TransferPartner,
  type Transfer,
  type TransferCreate,
} from '../modules/transfers/index.ts';

/** A workflow's answer: 201 done, or 202 held for a manager. */
export interface ServiceResult<T> {
  status: 201 | 202;
  body: T;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: ProblemError };

/**
 * Whether two written names are the same name: the same words, whatever their case, accents, punctuation or order
 * (`Daniel Moreno`, `MORENO, DANIEL`).
 */
function sameName(a: string, b: string): boolean {
  const words = (name: string) =>
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .sort()
      .join(' ');
  return words(a) === words(b);
}

/** The holder's full name from the verification (first middle last). */
function holderName(v: VerifyIdResult): string {
  return [v.holder.firstName, v.holder.middleName, v.holder.lastName].filter((p): p is string => !!p).join(' ');
}

/** The SHA-256 of the document's jurisdiction and number (the per-customer limit's key; the number is never stored). */
function documentRef(payload: string, v: VerifyIdResult): string {
  const number = parseAamva(payload).holder.documentNumber ?? v.holder.documentNumberMasked ?? '';
  return createHash('sha256')
    .update(`${v.holder.jurisdiction ?? ''}|${number}`)
    .digest('hex');
}

async function verifiedCustomer(m: Mutation, payload: string, service: string): Promise<Outcome<{ v: VerifyIdResult; name: string; ref: string }>> {
  const v = await verifyId(m.tx, m.merchantId, { payload, service }, m);
  if (!v.ok) {
    return {
      ok: false,
      error: new ProblemError(422, 'id_not_accepted', `The ID cannot be accepted for this service: ${v.problems.join(', ')}.`, [
        { path: 'idPayload', message: v.problems.join(', ') },
      ]),
    };
  }
  const name = holderName(v);
  if (!name)
    return { ok: false, error: new ProblemError(422, 'id_not_accepted', 'The ID carries no name.', [{ path: 'idPayload', message: 'no name' }]) };
  return { ok: true, value: { v, name, ref: documentRef(payload, v) } };
}

function blockedProblem(s: ScreenPartyResult, who: string): ProblemError {
  return new ProblemError(
    422,
    'screening_blocked',
    `The ${who} matches the sanctions list (${s.listVersion}, score ${s.score.toFixed(2)}): the transaction is refused. Screening ${s.screeningId}.`,
  );
}

/** Runs `fn` in a mutation; a refusal returned by it is audited there and committed, then thrown. Earlier throws are audited in a mutation of their own. */
async function runService<T>(
  ctx: AppContext,
  who: MutationActor,
  refusedAction: string,
  entityType: string,
  data: Record<string, unknown>,
  fn: (m: Mutation) => Promise<Outcome<T>>,
): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await mutation(ctx, who, async (m) => {
      const o = await fn(m);
      if (!o.ok)
        await m.audit({
          action: refusedAction,
          entityType,
          entityId: 'refused',
          data: { ...data, code: o.error.code, status: o.error.status, detail: o.error.message },
        });
      return o;
    });
  } catch (e) {
    if (e instanceof ProblemError) {
      await mutation(ctx, who, (m) =>
        m.audit({ action: refusedAction, entityType, entityId: 'refused', data: { ...data, code: e.code, status: e.status, detail: e.message } }),
      ).catch(() => undefined);
    }
    throw e;
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * `POST /api/pos/check-cashings`: cashes a check (see the file comment for the steps).
 * @returns 201 `paid` with the receipt, or 202 `held` (potential sanctions match)
 * @throws ProblemError 403 `money_movement_disabled`; 400 `micr_bad_routing_checksum`; 409 `duplicate_check`;
 *   422 `limit_per_transaction` / `limit_per_customer_day` / `id_not_accepted` / `screening_blocked`;
 *   400 `invalid_id_barcode`.
 */
export async function cashCheck(ctx: AppContext, who: MutationActor, input: CheckCashCreate): Promise<ServiceResult<CheckCashing>> {
  const data = { amountCents: input.amountCents, routingNumber: input.micr.routingNumber };
  const record = await runService(ctx, who, CHECK_REFUSED_ACTION, 'check_cashing', data, async (m): Promise<Outcome<CheckCashing>> => {
    const settings = await getFinancialServiceSettings(m.tx, m.merchantId);
    const plan = await planCheckCashing(m.tx, m.merchantId, input, settings);
    const customer = await verifiedCustomer(m, input.idPayload, 'check_cashing');
    if (!customer.ok) return customer;
    const { v, name, ref } = customer.value;
    await assertCustomerDailyLimit(
      m.tx,
      m.merchantId,
      { name, ref, idVerificationId: v.verificationId },
      input.amountCents,
      m.now,
      settings.checkLimits,
    );
    const s = await screenParty(m.tx, m.merchantId, { name, role: 'check_casher' }, m);
    if (s.outcome === 'blocked') return { ok: false, error: blockedProblem(s, 'customer') };
    return {
      ok: true,
      value: await recordCheckCashing(m, plan, { name, ref, idVerificationId: v.verificationId }, s.screeningId, s.outcome === 'potential_match'),
    };
  });
  return { status: record.status === 'held' ? 202 : 201, body: record };
}

/**
 * `POST /api/pos/check-cashings/{id}/complete`: pays out a held check once a manager cleared its screening.
 * @throws ProblemError 409 `screening_hold` while not cleared; 409 `illegal_state_transition` unless held; 403.
 */
export async function completeHeldCheck(ctx: AppContext, who: MutationActor, id: string, shiftId?: string): Promise<CheckCashing> {
  return mutation(ctx, who, async (m) => {
    const record = await getCheckCashing(m.tx, m.merchantId, id);
    if (record.status !== 'held') throw new ProblemError(409, 'illegal_state_transition', `Check cashing ${id} is ${record.status}, not held.`);
    if (record.screeningId) await assertScreeningCleared(m.tx, m.merchantId, record.screeningId);
    return finishHeldCheck(m, id, 'paid', undefined, shiftId);
  });
}

/** Refuses the held screening (when still held) with the reason, then marks `held` record refused. */
async function refuseScreenings(m: Mutation, ids: readonly string[], reason: string): Promise<void> {
  for (const sid of ids) {
    const s = await getScreening(m.tx, m.merchantId, sid);
    if (s?.status === 'held') await decideScreening(m, sid, 'refuse', reason);
  }
}

/** `POST /api/pos/check-cashings/{id}/refuse` (manager): the held check is refused, its screening too. */
export async function refuseHeldCheck(ctx: AppContext, who: MutationActor, id: string, reason: string): Promise<CheckCashing> {
  return mutation(ctx, who, async (m) => {
    const record = await getCheckCashing(m.tx, m.merchantId, id);
    if (record.status === 'held' && record.screeningId) await refuseScreenings(m, [record.screeningId], reason);
    return finishHeldCheck(m, id, 'refused', reason);
  });
}

/**
 * `POST /api/pos/transfers`: sends money (sender's ID and screening, receiver's screening, limits, quote, partner).
 * @returns 201 `sent` with the Remittance Transfer Rule receipt, or 202 `held` (a party is a potential match)
 * @throws ProblemError 403 `money_movement_disabled`; 422 limits / `corridor_unsupported` / `id_not_accepted` /
 *   `screening_blocked` / `partner_rejected`; 504 `partner_timeout`.
 */
export async function sendTransfer(
  ctx: AppContext,
  who: MutationActor,
  input: TransferCreate,
  partner: TransferPartner,
): Promise<ServiceResult<Transfer>> {
  const data = { amountCents: input.amountCents, country: input.country, receiverName: input.receiverName };
  const transfer = await runService(ctx, who, 'transfer.refused', 'money_transfer', data, async (m): Promise<Outcome<Transfer>> => {
    const { transferLimits } = await getFinancialServiceSettings(m.tx, m.merchantId);
    const plan = await planTransfer(m.tx, m.merchantId, input, partner, m.now, transferLimits);
    const sender = await verifiedCustomer(m, input.idPayload, 'money_transfer');
    if (!sender.ok) return sender;
    const { v, name, ref } = sender.value;
    await assertSenderDailyLimit(m.tx, m.merchantId, ref, input.amountCents, m.now, transferLimits);
    const s1 = await screenParty(m.tx, m.merchantId, { name, role: 'transfer_sender' }, m);
    const s2 = await screenParty(m.tx, m.merchantId, { name: input.receiverName, role: 'transfer_receiver' }, m);
    if (s1.outcome === 'blocked') return { ok: false, error: blockedProblem(s1, 'sender') };
    if (s2.outcome === 'blocked') return { ok: false, error: blockedProblem(s2, 'receiver') };
    const held = s1.outcome === 'potential_match' || s2.outcome === 'potential_match';
    const parties = {
      senderName: name,
      senderRef: ref,
      idVerificationId: v.verificationId,
      senderScreeningId: s1.screeningId,
      receiverScreeningId: s2.screeningId,
    };
    return { ok: true, value: await recordTransfer(m, plan, parties, held, partner) };
  });
  return { status: transfer.status === 'held' ? 202 : 201, body: transfer };
}

/**
 * `POST /api/pos/transfers/{id}/complete`: sends a held transfer once a manager cleared every held screening.
 * @throws ProblemError 409 `screening_hold`; 409 `illegal_state_transition`; 403; partner problems.
 */
export async function completeHeldTransfer(
  ctx: AppContext,
  who: MutationActor,
  id: string,
  partner: TransferPartner,
  shiftId?: string,
): Promise<Transfer> {
  return mutation(ctx, who, async (m) => {
    const { status, ids } = await transferScreenings(m.tx, m.merchantId, id);
    if (status !== 'held') throw new ProblemError(409, 'illegal_state_transition', `Transfer ${id} is ${status}, not held.`);
    for (const sid of ids) await assertScreeningCleared(m.tx, m.merchantId, sid);
    return finishHeldTransfer(m, id, 'send', partner, undefined, shiftId);
  });
}

/** `POST /api/pos/transfers/{id}/refuse` (manager): the held transfer is refused, its held screenings too. */
export async function refuseHeldTransfer(
  ctx: AppContext,
  who: MutationActor,
  id: string,
  reason: string,
  partner: TransferPartner,
): Promise<Transfer> {
  return mutation(ctx, who, async (m) => {
    const { status, ids } = await transferScreenings(m.tx, m.merchantId, id);
    if (status === 'held') await refuseScreenings(m, ids, reason);
    return finishHeldTransfer(m, id, 'refuse', partner, reason);
  });
}

/**
 * `POST /api/pos/bill-payments`: pays a bill — money movement, the account (length, check digit) and the per-payment
 * limit; the payer's ID when shown (required from {@link BILL_ID_REQUIRED_FROM_CENTS}: then the payer is the ID's
 * holder and the daily limit keys on the document); the payer's daily limit; the payer's screening (`bill_payer`) —
 * with an ID, the holder's name and, when it is another, the name the cashier typed: either blocked refuses, either
 * a potential match holds; then the partner and the cash.
 * @returns 201 `accepted` with the receipt, or 202 `held` (the payer is a potential match: nothing taken)
 * @throws ProblemError 403 `money_movement_disabled`; 404 `biller_not_found`; 400 `invalid_account` /
 *   `invalid_id_barcode`; 422 `limit_per_transaction` / `limit_per_customer_day` / `id_required` /
 *   `id_not_accepted` / `screening_blocked` / `partner_rejected`; 504 `partner_timeout`.
 */
export async function payBill(
  ctx: AppContext,
  who: MutationActor,
  input: BillPaymentCreate,
  partner: BillPartner,
): Promise<ServiceResult<BillPayment>> {
  const data = { billerId: input.billerId, amountCents: input.amountCents };
  const payment = await runService(ctx, who, 'bill_payment.refused', 'bill_payment', data, async (m): Promise<Outcome<BillPayment>> => {
    const settings = await getFinancialServiceSettings(m.tx, m.merchantId);
    const plan = await planBillPayment(m.tx, m.merchantId, input, partner, settings);
    let payer = { name: input.customerName, ref: payerNameRef(input.customerName), idVerificationId: null as string | null };
    if (input.idPayload) {
      const customer = await verifiedCustomer(m, input.idPayload, 'bill_payment');
      if (!customer.ok) return customer;
      payer = { name: customer.value.name, ref: customer.value.ref, idVerificationId: customer.value.v.verificationId };
    } else if (input.amountCents >= BILL_ID_REQUIRED_FROM_CENTS) {
      throw new ProblemError(
        422,
        'id_required',
        `A bill payment of ${(BILL_ID_REQUIRED_FROM_CENTS / 100).toFixed(2)} or more needs the payer's ID.`,
        [{ path: 'idPayload', message: `required from ${BILL_ID_REQUIRED_FROM_CENTS}` }],
      );
    }
    await assertPayerDailyLimit(m.tx, m.merchantId, payer.ref, input.amountCents, m.now, settings.billPaymentLimits);
    const s = await screenParty(m.tx, m.merchantId, { name: payer.name, role: 'bill_payer' }, m);
    // The name the cashier typed is screened too when the ID says another: a listed payer cannot pass under a clear ID.
    const typed =
      payer.idVerificationId && !sameName(input.customerName, payer.name)
        ? await screenParty(m.tx, m.merchantId, { name: input.customerName, role: 'bill_payer' }, m)
        : null;
    if (s.outcome === 'blocked') return { ok: false, error: blockedProblem(s, 'payer') };
    if (typed?.outcome === 'blocked') return { ok: false, error: blockedProblem(typed, "payer's name as given") };
    const held = s.outcome === 'potential_match' || typed?.outcome === 'potential_match';
    const screened = { ...payer, screeningId: s.screeningId, nameScreeningId: typed?.screeningId ?? null };
    return { ok: true, value: await recordBillPayment(m, plan, screened, held, partner) };
  });
  return { status: payment.status === 'held' ? 202 : 201, body: payment };
}

/**
 * `POST /api/pos/bill-payments/{id}/complete`: pays a held bill once a manager cleared the payer's screenings; the
 * account number is given again (only its masked form is stored) and must be the held payment's.
 * @throws ProblemError 409 `screening_hold` while not cleared; 409 `illegal_state_transition` unless held; 409
 *   `account_mismatch`; 400 `invalid_account`; 403 `money_movement_disabled`; partner problems.
 */
export async function completeHeldBillPayment(
  ctx: AppContext,
  who: MutationActor,
  id: string,
  body: { accountNumber: string; shiftId?: string | undefined },
  partner: BillPartner,
): Promise<BillPayment> {
  return mutation(ctx, who, async (m) => {
    const held = await billPaymentScreening(m.tx, m.merchantId, id);
    if (held.status !== 'held') throw new ProblemError(409, 'illegal_state_transition', `Bill payment ${id} is ${held.status}, not held.`);
    for (const sid of held.screeningIds) await assertScreeningCleared(m.tx, m.merchantId, sid);
    const { biller, account } = await validateBillAccount(partner, { billerId: held.billerId, accountNumber: body.accountNumber });
    return finishHeldBillPayment(m, id, { pay: { account, biller, shiftId: body.shiftId } }, partner);
  });
}

/** `POST /api/pos/bill-payments/{id}/refuse` (manager): the held bill payment is refused, its held screening too; nothing taken. */
export async function refuseHeldBillPayment(
  ctx: AppContext,
  who: MutationActor,
  id: string,
  reason: string,
  partner: BillPartner,
): Promise<BillPayment> {
  return mutation(ctx, who, async (m) => {
    const held = await billPaymentScreening(m.tx, m.merchantId, id);
    if (held.status === 'held') await refuseScreenings(m, held.screeningIds, reason);
    return finishHeldBillPayment(m, id, { refuse: reason }, partner);
  });
}

/** `GET /api/pos/financial-services`: what the register shows before the cashier starts. */
export const financialServicesOverviewSchema = z.strictObject({
  moneyMovement: z.enum(['enabled', 'disabled']).describe('`disabled` in the demo store: every service answers 403 `money_movement_disabled`'),
  message: z.string().nullable().describe('What the register shows when money movement is disabled'),
  settings: financialServiceSettingsSchema,
  corridors: z.array(z.strictObject({ country: z.string(), currency: z.string(), rate: z.string() })),
  payoutMethods: z.array(z.enum(PAYOUT_METHODS)),
});

/** The overview of {@link financialServicesOverviewSchema} for the merchant. */
export async function financialServicesOverview(
  db: Queryable,
  merchantId: string,
  corridors: Readonly<Record<string, { currency: string; rate: string }>>,
): Promise<z.infer<typeof financialServicesOverviewSchema>> {
  const merchant = await getMerchant(db, merchantId);
  const movement = moneyMovementOf(merchant);
  return {
    moneyMovement: movement,
    message:
      movement === 'disabled'
        ? `Money movement is disabled in the demo store "${merchant.name}": check cashing, money transfers and bill payments cannot run here.`
        : null,
    settings: await getFinancialServiceSettings(db, merchantId),
    corridors: Object.entries(corridors).map(([country, c]) => ({ country, ...c })),
    payoutMethods: [...PAYOUT_METHODS],
  };
}

/** What one housekeeping pass of {@link trackFinancialServices} did. */
export interface FinancialServicesTickReport {
  /** Transfers asked about, and those whose status moved (sent → available → paid, or refunded). */
  transfers: { checked: number; moved: number };
  /** Bill payments asked about, and those posted or rejected (reversal posted). */
  billPayments: { checked: number; moved: number };
  errors: { id: string; message: string }[];
}

/** Most transfers and bill payments one tick asks the partners about (the rest follow on the next ticks, oldest first). */
export const FINANCIAL_SERVICES_TICK_BATCH = 200;

/**
 * The housekeeping tick's status tracking (workflows/housekeeping.ts runs it): every transfer the partner still
 * moves and every bill payment not yet posted is asked about — transfers advance submitted → sent → available → paid or
 * are refunded (reversal posted), bill payments are posted or rejected by the biller (reversal posted), exactly as
 * `POST …/refresh` does — each in its own mutation by `system:financial-services`, audited like a refresh. An error of
 * one record (the partner down) is reported and does not stop the others.
 */
export async function trackFinancialServices(
  ctx: AppContext,
  partners: { transfer: TransferPartner; bill: BillPartner },
): Promise<FinancialServicesTickReport> {
  const report: FinancialServicesTickReport = { transfers: { checked: 0, moved: 0 }, billPayments: { checked: 0, moved: 0 }, errors: [] };
  const who = (merchantId: string): MutationActor => ({ merchantId, actor: 'system:financial-services' });
  for (const t of await transfersInFlight(ctx.db, FINANCIAL_SERVICES_TICK_BATCH)) {
    try {
      const before = await ctx.db.query<{ status: string }>('SELECT status FROM money_transfers WHERE id = $1', [t.id]);
      const after = await mutation(ctx, who(t.merchantId), (m) => refreshTransfer(m, t.id, partners.transfer));
      report.transfers.checked += 1;
      if (after.status !== before.rows[0]?.status) report.transfers.moved += 1;
    } catch (err) {
      report.errors.push({ id: t.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  for (const b of await billPaymentsInFlight(ctx.db, FINANCIAL_SERVICES_TICK_BATCH)) {
    try {
      const after = await mutation(ctx, who(b.merchantId), (m) => refreshBillPayment(m, b.id, partners.bill));
      report.billPayments.checked += 1;
      if (after.status !== 'accepted') report.billPayments.moved += 1;
    } catch (err) {
      report.errors.push({ id: b.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return report;
}
