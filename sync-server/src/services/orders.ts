/**
 * Orders through the staff API (DESIGN §5, §7, §8): create from catalog references (priced here, never by the caller),
 * pay with one or several tenders, cancel, refund (by line and quantity, or by amount), receipts. Register-pushed
 * orders (sync/replication.ts) are the same `orders` rows with `source = 'register'`; they arrive paid and can be
 * refunded here.
 *
 * Every state change runs in one database transaction under the merchant's write lock and writes, together: the
 * order row, its payment/refund records, a balanced journal transaction for every money move (core/order-ledger.ts,
 * core/refunds.ts), an audit row, and the webhook events (`order.created`, `order.paid`, `payment.refunded`). Illegal
 * moves of the state machine (core/order-states.ts) are a 409 problem naming the current state (`currentState`).
 *
 * For other helpers:
 * - {@link applyExternalPayment}`(tx, ctx, { merchantId, orderId, amountCents, rail, reference, … })` records a payment
 *   that arrived through another channel (a pay link, an invoice payment) on an OPEN order, inside the caller's
 *   transaction: payment record, journal transaction (Dr `card_clearing:<rail>`, Cr receivables/tips), order state
 *   (→ `paid` when fully paid, with the sale posted and `order.paid` emitted), audit. Throws ProblemError 409 when the
 *   order is not open, 400 when the amount exceeds the balance due, 404 when the order is unknown.
 * - {@link announceRegisterOrder}`(tx, merchantId, order, now)` emits `order.created` + `order.paid` for a register
 *   sale stored by replication.
 * - {@link getOrderView}, {@link listOrders} read orders in the API shape.
 */
import {
  assertOrderTransition,
  assertPaymentTransition,
  buildCancellationJournalTransaction,
  buildOrderPaymentJournalTransaction,
  buildOrderSettlementJournalTransaction,
  buildRefundJournalTransaction,
  cashDrawerAccount,
  formatMoney,
  formatReceiptNumber,
  IllegalTransitionError,
  MAX_AMOUNT_CENTS,
  newId,
  parseReceiptNumber,
  planOrderRefund,
  REFUNDABLE_PAYMENT_STATES,
  priceCart,
  PricingError,
  RefundError,
  refundState,
  saleJournalTransactionId,
  tenderAccount,
  type Discount,
  type JournalTransaction,
  type Order,
  type OrderCreate,
  type OrderStateName,
  type OrderReceipt,
  type OrderView,
  type PaymentCreate,
  type PaymentRecord,
  type PaymentStateName,
  type ReceiptSend,
  type RefundCreate,
  type RefundRecord,
  type Tender,
  type TenderInput,
} from '../../../core/index.ts';
import { callerOf, type Principal } from '../auth/identity.ts';
import type { AppContext } from '../context.ts';
import { lockMerchant, type Queryable } from '../db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../http/cursor.ts';
import { SqlFilter } from '../db/sql-filter.ts';
import { ProblemError, StateConflictError, type Problem } from '../http/problem.ts';

export { StateConflictError };
import { appendAudit } from './audit.ts';
import { emitEvent } from './events.ts';
import { postJournalTransaction } from './ledger.ts';
import { SANDBOX_STAFF_CARDS, STAFF_CARD_RAIL } from './payments.ts';
import { recordSaleStock } from './inventory.ts';
import { getMerchant, loadCatalog } from './pay-requests.ts';
import { cancelPendingPayLinks } from './pay-links.ts';
import { storePhoneToE164 } from './customers.ts';
import { getSettings } from './settings.ts';

/* ───────────────────────────── errors ───────────────────────────── */

/** Runs an order state move, turning the state machine's refusal into the 409 problem. */
function guardOrder(orderId: string, from: OrderStateName, to: OrderStateName, action: string): void {
  try {
    assertOrderTransition(from, to, action);
  } catch (err) {
    if (err instanceof IllegalTransitionError) throw StateConflictError.fromTransition(err, orderId);
    throw err;
  }
}

function guardPayment(paymentId: string, from: PaymentStateName, to: PaymentStateName, action: string): void {
  try {
    assertPaymentTransition(from, to, action);
  } catch (err) {
    if (err instanceof IllegalTransitionError) throw StateConflictError.fromTransition(err, paymentId);
    throw err;
  }
}

/* ───────────────────────────── rows ───────────────────────────── */

interface OrderRow {
  id: string;
  merchant_id: string;
  register_id: string;
  state: OrderStateName;
  data: Order;
  sync_seq: number | string;
  updated_at: Date;
  source: 'register' | 'api';
  refunded_cents: number | string;
}

interface PaymentRow {
  id: string;
  order_id: string;
  line_no: number;
  method: PaymentRecord['method'];
  rail: string;
  state: PaymentStateName;
  amount_cents: number | string;
  tip_cents: number | string;
  tendered_cents: number | string | null;
  change_cents: number | string | null;
  refunded_cents: number | string;
  card_brand: string | null;
  last4: string | null;
  auth_code: string | null;
  reference: string | null;
  account_code: string;
  journal_transaction_id: string | null;
  created_at: Date;
  captured_at: Date | null;
  decline_code: string | null;
}

interface RefundRow {
  id: string;
  order_id: string;
  kind: RefundRecord['kind'];
  amount_cents: number | string;
  goods_cents: number | string;
  tax_cents: number | string;
  tip_cents: number | string;
  lines: RefundRecord['lines'];
  allocations: RefundRecord['allocations'];
  restock: boolean;
  reason: string | null;
  journal_transaction_id: string;
  created_at: Date;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const numOrNull = (v: number | string | null) => (v === null ? null : Number(v));

function toPayment(row: PaymentRow): PaymentRecord {
  return {
    id: row.id,
    orderId: row.order_id,
    state: row.state,
    method: row.method,
    rail: row.rail,
    amountCents: Number(row.amount_cents),
    tipCents: Number(row.tip_cents),
    tenderedCents: numOrNull(row.tendered_cents),
    changeCents: numOrNull(row.change_cents),
    refundedCents: Number(row.refunded_cents),
    cardBrand: row.card_brand,
    last4: row.last4,
    authCode: row.auth_code,
    reference: row.reference,
    accountCode: row.account_code,
    journalTransactionId: row.journal_transaction_id,
    createdAt: iso(row.created_at),
    capturedAt: row.captured_at ? iso(row.captured_at) : null,
    declineCode: row.decline_code ?? null,
  };
}

function toRefund(row: RefundRow): RefundRecord {
  return {
    id: row.id,
    orderId: row.order_id,
    kind: row.kind,
    amountCents: Number(row.amount_cents),
    goodsCents: Number(row.goods_cents),
    taxCents: Number(row.tax_cents),
    tipCents: Number(row.tip_cents),
    lines: row.lines,
    allocations: row.allocations,
    restock: row.restock,
    reason: row.reason,
    journalTransactionId: row.journal_transaction_id,
    createdAt: iso(row.created_at),
  };
}

/** The payments of a register order, derived from its tenders (ids `pmt_<tender ULID>`), before any is refunded. */
function registerPayments(order: Order): PaymentRecord[] {
  return order.tenders.map((t) => ({
    id: `pmt_${t.id.replace(/^tnd_/, '')}`,
    orderId: order.id,
    state: 'captured' as const,
    method: t.method,
    rail: t.method === 'card' ? 'card_present' : t.method,
    amountCents: t.amountCents,
    tipCents: t.tipCents,
    tenderedCents: t.tenderedCents ?? null,
    changeCents: t.changeCents ?? null,
    refundedCents: 0,
    cardBrand: t.cardBrand ?? null,
    last4: t.last4 ?? null,
    authCode: t.authCode ?? null,
    reference: null,
    accountCode: tenderAccount(t.method, order.registerNumber),
    journalTransactionId: order.journalTransactionId,
    createdAt: order.createdAt,
    capturedAt: order.createdAt,
    declineCode: null,
  }));
}

function toView(row: OrderRow, details?: { payments: PaymentRecord[]; refunds: RefundRecord[] }): OrderView {
  const order = row.data;
  return {
    ...order,
    state: row.state,
    updatedAt: iso(row.updated_at),
    syncSeq: Number(row.sync_seq),
    source: row.source,
    refundedCents: Number(row.refunded_cents),
    balanceDueCents: row.state === 'open' ? Math.max(0, order.totalCents + order.tipCents - order.paidCents) : 0,
    ...(details ?? {}),
  };
}

async function orderRow(db: Queryable, merchantId: string, id: string): Promise<OrderRow> {
  const { rows } = await db.query<OrderRow>(
    'SELECT id, merchant_id, register_id, state, data, sync_seq, updated_at, source, refunded_cents FROM orders WHERE id = $1 AND merchant_id = $2',
    [id, merchantId],
  );
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Order ${id} does not exist.`);
  return rows[0];
}

async function paymentsOf(db: Queryable, row: OrderRow): Promise<PaymentRecord[]> {
  const { rows } = await db.query<PaymentRow>('SELECT * FROM order_payments WHERE order_id = $1 ORDER BY line_no', [row.id]);
  if (rows.length === 0 && row.source === 'register') return registerPayments(row.data);
  return rows.map(toPayment);
}

async function refundsOf(db: Queryable, orderId: string): Promise<RefundRecord[]> {
  const { rows } = await db.query<RefundRow>('SELECT * FROM order_refunds WHERE order_id = $1 ORDER BY created_at, id', [orderId]);
  return rows.map(toRefund);
}

/** An order in the API shape with its payments and refunds. @throws ProblemError 404 when not the merchant's. */
export async function getOrderView(db: Queryable, merchantId: string, id: string): Promise<OrderView> {
  const row = await orderRow(db, merchantId, id);
  return toView(row, { payments: await paymentsOf(db, row), refunds: await refundsOf(db, id) });
}

/** Filters of `GET /api/pos/orders`. `createdFrom` inclusive, `createdTo` exclusive (ISO 8601). */
export interface OrderListQuery {
  limit: number;
  cursor?: string;
  registerId?: string;
  status?: OrderStateName;
  customerId?: string;
  createdFrom?: string;
  createdTo?: string;
  source?: 'register' | 'api';
}

/** Orders newest first by business time (`createdAt`), ties by id; cursor pagination (DESIGN §7). */
export async function listOrders(db: Queryable, merchantId: string, q: OrderListQuery): Promise<{ data: OrderView[]; nextCursor: string | null }> {
  const filter = new SqlFilter(['merchant_id = ?'], [merchantId]);
  if (q.registerId) filter.add('register_id = ?', q.registerId);
  if (q.status) filter.add('state = ?', q.status);
  if (q.customerId) filter.add(`data->>'customerId' = ?`, q.customerId);
  if (q.source) filter.add('source = ?', q.source);
  if (q.createdFrom) filter.add('created_at >= ?::timestamptz', q.createdFrom);
  if (q.createdTo) filter.add('created_at < ?::timestamptz', q.createdTo);
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    filter.add('(created_at, id) < (?::timestamptz, ?::text)', createdAt, id);
  }
  const limit = filter.param(q.limit + 1);
  const { rows } = await db.query<OrderRow & { created_at: Date }>(
    `SELECT id, merchant_id, register_id, state, data, sync_seq, updated_at, source, refunded_cents, created_at FROM orders
     WHERE ${filter.where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    filter.params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => toView(r)), nextCursor };
}

/* ───────────────────────────── helpers ───────────────────────────── */

/** The merchant's back-office register (created on first use): API orders take their receipt numbers from it. */
async function backOfficeRegister(tx: Queryable, merchantId: string, now: Date, actor: string): Promise<{ id: string; number: number }> {
  const found = await tx.query<{ id: string; number: number }>(`SELECT id, number FROM registers WHERE merchant_id = $1 AND kind = 'back_office'`, [merchantId]);
  if (found.rows[0]) return found.rows[0];
  const next = (await tx.query<{ n: number | string }>('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM registers WHERE merchant_id = $1', [merchantId])).rows[0]!;
  const created = { id: newId('register'), number: Number(next.n) };
  await tx.query(`INSERT INTO registers (id, merchant_id, number, name, kind) VALUES ($1, $2, $3, 'Back office', 'back_office')`, [created.id, merchantId, created.number]);
  await appendAudit(tx, { merchantId, actor, registerId: created.id, action: 'register.created', entityType: 'register', entityId: created.id, occurredAt: now, data: { number: created.number, kind: 'back_office' } });
  return created;
}

async function nextReceiptNumber(tx: Queryable, register: { id: string; number: number }): Promise<string> {
  const { rows } = await tx.query<{ receipt_number: string }>(
    'SELECT receipt_number FROM orders WHERE register_id = $1 ORDER BY length(receipt_number) DESC, receipt_number DESC LIMIT 1',
    [register.id],
  );
  const last = rows[0] ? (parseReceiptNumber(rows[0].receipt_number)?.sequence ?? 0) : 0;
  return formatReceiptNumber(register.number, last + 1);
}

async function nextSeq(tx: Queryable): Promise<number> {
  return Number((await tx.query<{ seq: number | string }>(`SELECT nextval('sync_seq') AS seq`)).rows[0]!.seq);
}

async function post(tx: Queryable, merchantId: string, jt: JournalTransaction): Promise<void> {
  await postJournalTransaction(tx, merchantId, jt);
}

async function saveOrder(tx: Queryable, row: OrderRow, order: Order, now: Date, refundedCents?: number): Promise<OrderRow> {
  const seq = await nextSeq(tx);
  await tx.query(
    `UPDATE orders SET state = $2, data = $3::jsonb, sync_seq = $4, updated_at = $5, refunded_cents = $6 WHERE id = $1`,
    [row.id, order.state, JSON.stringify(order), seq, now.toISOString(), refundedCents ?? Number(row.refunded_cents)],
  );
  return { ...row, state: order.state, data: order, sync_seq: seq, updated_at: now, refunded_cents: refundedCents ?? row.refunded_cents };
}

/** What a transaction changed beyond orders and the ledger, for the change feed after commit. */
interface Effects {
  stockChanged: boolean;
}

/**
 * Stock movements of API sales (kind `sale`, keyed by the order id) and restocking refunds (kind `return`, keyed by
 * the refund id) through the inventory service, in the same transaction. Untracked variations are skipped there.
 */
async function recordStock(tx: Queryable, effects: Effects | undefined, input: Parameters<typeof recordSaleStock>[1]): Promise<void> {
  if ((await recordSaleStock(tx, input)) && effects) effects.stockChanged = true;
}

function notifyWritten(ctx: AppContext, merchantId: string, effects?: Effects): void {
  ctx.feed.notify(merchantId, 'orders');
  ctx.feed.notify(merchantId, 'journal-transactions');
  if (effects?.stockChanged) ctx.feed.notify(merchantId, 'catalog-items');
}

/**
 * Webhook events of a register sale just stored by replication (DESIGN §6), in the caller's transaction:
 * `order.created`, and `order.paid` as well since a register sale arrives paid. The object is the order as
 * `GET /api/pos/orders/{id}` shows it (without payments and refunds).
 */
export async function announceRegisterOrder(tx: Queryable, merchantId: string, order: Order, now: Date): Promise<void> {
  const object = { ...order, source: 'register', refundedCents: 0, balanceDueCents: order.state === 'open' ? Math.max(0, order.totalCents + order.tipCents - order.paidCents) : 0 };
  await emitEvent(tx, { merchantId, type: 'order.created', object, occurredAt: now });
  if (order.state === 'paid') await emitEvent(tx, { merchantId, type: 'order.paid', object, occurredAt: now });
}

/* ───────────────────────────── create ───────────────────────────── */

/**
 * Creates an open order from catalog references, priced from the merchant's catalog (spec app rule 2), with an
 * optional customer and discounts. Writes the order, an audit row and `order.created` in one transaction.
 * @throws ProblemError 400 naming the field when a line cannot be priced, the customer is unknown or the total is out
 *   of bounds.
 */
export async function createOrder(ctx: AppContext, principal: Principal, input: OrderCreate): Promise<OrderView> {
  const now = ctx.clock();
  const actor = callerOf(principal);
  const view = await ctx.db.transaction(async (tx) => {
    await lockMerchant(tx, principal.merchantId);
    const merchant = await getMerchant(tx, principal.merchantId);
    if (input.customerId) {
      const customer = await tx.query('SELECT 1 FROM customers WHERE id = $1 AND merchant_id = $2 AND deleted_at IS NULL', [input.customerId, merchant.id]);
      if (customer.rows.length === 0) {
        throw new ProblemError(400, 'unknown_customer', `Invalid customerId: customer ${input.customerId} does not exist.`, [{ path: 'customerId', message: 'is not a customer of this store' }]);
      }
    }
    const discounts: Discount[] = (input.discounts ?? []).map((d) => ({ ...d, id: newId('discount') }));
    const catalog = await loadCatalog(tx, merchant.id);
    let totals;
    try {
      totals = priceCart(input.lineItems, discounts, catalog);
    } catch (err) {
      if (err instanceof PricingError) {
        const path = err.path.replace(/^lines(?=\.|$)/, 'lineItems');
        throw new ProblemError(400, err.code, `Invalid ${path}: ${err.message}`, [{ path, message: err.message }]);
      }
      throw err;
    }
    if (totals.totalCents > MAX_AMOUNT_CENTS) {
      throw new ProblemError(400, 'amount_out_of_range', `Invalid lineItems: the order totals ${totals.totalCents}; at most ${MAX_AMOUNT_CENTS}.`, [
        { path: 'lineItems', message: `total ${totals.totalCents} exceeds ${MAX_AMOUNT_CENTS}` },
      ]);
    }
    const register = await backOfficeRegister(tx, merchant.id, now, actor);
    const order: Order = {
      id: newId('order'),
      registerId: register.id,
      registerNumber: register.number,
      receiptNumber: await nextReceiptNumber(tx, register),
      state: 'open',
      currency: merchant.currency,
      createdAt: now.toISOString(),
      ...(principal.kind === 'staff' ? { staffId: principal.staffId } : {}),
      ...(input.customerId ? { customerId: input.customerId } : {}),
      lines: totals.lines,
      discounts,
      taxLines: totals.taxLines,
      subtotalCents: totals.subtotalCents,
      discountCents: totals.discountCents,
      taxCents: totals.taxCents,
      totalCents: totals.totalCents,
      tipCents: 0,
      paidCents: 0,
      tenders: [],
      journalTransactionId: null,
      ...(input.note ? { note: input.note } : {}),
    };
    const seq = await nextSeq(tx);
    await tx.query(
      `INSERT INTO orders (id, merchant_id, register_id, receipt_number, state, total_cents, created_at, data, sync_seq, updated_at, source)
       VALUES ($1, $2, $3, $4, 'open', $5, $6, $7::jsonb, $8, $6, 'api')`,
      [order.id, merchant.id, register.id, order.receiptNumber, order.totalCents, order.createdAt, JSON.stringify(order), seq],
    );
    await appendAudit(tx, {
      merchantId: merchant.id,
      actor,
      registerId: register.id,
      action: 'order.created',
      entityType: 'order',
      entityId: order.id,
      occurredAt: now,
      data: { state: 'open', receiptNumber: order.receiptNumber, totalCents: order.totalCents, lines: order.lines.length, customerId: order.customerId ?? null },
    });
    const row: OrderRow = { id: order.id, merchant_id: merchant.id, register_id: register.id, state: 'open', data: order, sync_seq: seq, updated_at: now, source: 'api', refunded_cents: 0 };
    const created = toView(row, { payments: [], refunds: [] });
    await emitEvent(tx, { merchantId: merchant.id, type: 'order.created', object: created as unknown as Record<string, unknown>, occurredAt: now });
    return created;
  });
  notifyWritten(ctx, principal.merchantId);
  return view;
}

/* ───────────────────────────── payments ───────────────────────────── */

/** One tender to record: what the rail said and where the money sits. */
interface CapturedTender {
  method: PaymentRecord['method'];
  rail: string;
  accountCode: string;
  amountCents: number;
  tipCents: number;
  tenderedCents?: number;
  changeCents?: number;
  cardBrand?: string;
  lastFour?: string;
  authCode?: string;
  reference?: string;
}


/** The sandbox card rail declined tender `index`: {@link payOrder} stores the attempt, then answers 402. */
class CardDeclined extends Error {
  override name = 'CardDeclined';
  constructor(
    readonly index: number,
    readonly code: string,
    readonly tender: Extract<TenderInput, { method: 'card' }>,
  ) {
    super(`declined: ${code}`);
  }
}

/** 402 for a declined card tender, naming the stored declined payment (`paymentId`). */
class PaymentDeclinedError extends ProblemError {
  constructor(
    readonly paymentId: string,
    declined: CardDeclined,
  ) {
    super(402, declined.code, `The sandbox card rail declined tenders.${declined.index} (${declined.tender.cardToken}): nothing was charged; the attempt is recorded as payment ${paymentId} (declined).`, [
      { path: `tenders.${declined.index}.cardToken`, message: `declined: ${declined.code}` },
    ]);
  }

  override toProblem(): Problem {
    return { ...super.toProblem(), paymentId: this.paymentId };
  }
}

/**
 * Checks tenders before any of them is charged: a tip above its tender's amount, cash handed over below the amount,
 * or more than the order's goods balance → 400 naming the field, and no card is sent to the rail (so a request that
 * could never be taken leaves no declined attempt behind either).
 * @throws ProblemError 400 `validation_error` (`tenders.<i>.tipCents` / `tenders.<i>.tenderedCents`), `overpayment` (`tenders`), or `amount_out_of_range` (`tenders`) when the order's paid amount with tips would exceed MAX_AMOUNT_CENTS.
 */
function checkTenders(order: Order, tenders: TenderInput[]): void {
  for (const [index, t] of tenders.entries()) {
    if ((t.tipCents ?? 0) > t.amountCents) {
      throw new ProblemError(400, 'validation_error', `Invalid tenders.${index}.tipCents: the tip cannot exceed the tender's amountCents (tips are included in it).`, [
        { path: `tenders.${index}.tipCents`, message: 'must not exceed amountCents' },
      ]);
    }
    if (t.method === 'cash' && t.tenderedCents !== undefined && t.tenderedCents < t.amountCents) {
      throw new ProblemError(400, 'validation_error', `Invalid tenders.${index}.tenderedCents: cash handed over (${t.tenderedCents}) is less than the amount (${t.amountCents}).`, [
        { path: `tenders.${index}.tenderedCents`, message: 'must be at least amountCents' },
      ]);
    }
  }
  const goodsDue = order.totalCents - (order.paidCents - order.tipCents);
  const goodsPaid = tenders.reduce((a, t) => a + t.amountCents - (t.tipCents ?? 0), 0);
  if (goodsPaid > goodsDue) throw overpayment('tenders', goodsPaid, goodsDue);
  // What one order is paid, tips included, stays within the amount bound every order schema holds (paidCents, tipCents).
  const paying = tenders.reduce((a, t) => a + t.amountCents, 0);
  if (order.paidCents + paying > MAX_AMOUNT_CENTS) {
    throw new ProblemError(400, 'amount_out_of_range', `Invalid tenders: the order would be paid ${order.paidCents + paying} with tips; at most ${MAX_AMOUNT_CENTS}.`, [
      { path: 'tenders', message: `paid ${order.paidCents + paying} exceeds ${MAX_AMOUNT_CENTS}` },
    ]);
  }
}

function overpayment(path: string, goodsPaid: number, goodsDue: number): ProblemError {
  return new ProblemError(400, 'overpayment', `Invalid ${path}: the tenders pay ${goodsPaid} toward the order but only ${goodsDue} is due (tips come on top, in tipCents).`, [
    { path, message: `pays ${goodsPaid} but ${goodsDue} is due` },
  ]);
}

/** Captures one tender already passed by {@link checkTenders}; a sandbox card decline throws {@link CardDeclined}. */
function captureTender(t: TenderInput, index: number, registerNumber: number, paymentUlid: string): CapturedTender {
  const tipCents = t.tipCents ?? 0;
  switch (t.method) {
    case 'cash': {
      return {
        method: 'cash',
        rail: 'cash',
        accountCode: cashDrawerAccount(registerNumber),
        amountCents: t.amountCents,
        tipCents,
        ...(t.tenderedCents !== undefined ? { tenderedCents: t.tenderedCents, changeCents: t.tenderedCents - t.amountCents } : {}),
      };
    }
    case 'card': {
      // Deterministic sandbox card rail (DESIGN §10): documented tokens, never a card number.
      const card = SANDBOX_STAFF_CARDS[t.cardToken]!;
      if ('decline' in card) throw new CardDeclined(index, card.decline, t);
      return { method: 'card', rail: STAFF_CARD_RAIL, accountCode: `card_clearing:${STAFF_CARD_RAIL}`, amountCents: t.amountCents, tipCents, cardBrand: card.brand, lastFour: card.last4, authCode: `SBX${paymentUlid.slice(-6)}` };
    }
    case 'check':
      return { method: 'check', rail: 'check', accountCode: 'check_clearing', amountCents: t.amountCents, tipCents, ...(t.checkNumber ? { reference: `check ${t.checkNumber}` } : {}) };
    case 'other':
      return { method: 'other', rail: 'other', accountCode: 'other_tender_clearing', amountCents: t.amountCents, tipCents, ...(t.reference ? { reference: t.reference } : {}) };
  }
}

/**
 * Records captured tenders on an open order inside `tx` (the merchant is locked): payment rows, one journal
 * transaction each, the order's tenders and totals; when the balance reaches zero the order becomes `paid`, its sale
 * is posted and `order.paid` emitted.
 */
async function recordPayments(
  tx: Queryable,
  row: OrderRow,
  tenders: { ulid: string; captured: CapturedTender }[],
  meta: { actor: string; appId?: string | null; now: Date; amountPath: string; effects?: Effects; payRequestId?: string },
): Promise<OrderRow> {
  const order = row.data;
  if (row.state !== 'open') guardOrder(row.id, row.state, 'paid', 'pay');
  const goodsDue = order.totalCents - (order.paidCents - order.tipCents);
  const goodsPaid = tenders.reduce((a, t) => a + t.captured.amountCents - t.captured.tipCents, 0);
  if (goodsPaid > goodsDue) throw overpayment(meta.amountPath, goodsPaid, goodsDue);
  const existing = Number((await tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n);
  const nowIso = meta.now.toISOString();
  const newTenders: Tender[] = [];
  for (const [i, { ulid, captured: c }] of tenders.entries()) {
    const paymentId = `pmt_${ulid}`;
    let state: PaymentStateName = 'pending';
    guardPayment(paymentId, state, 'authorized', 'authorize');
    state = 'authorized';
    guardPayment(paymentId, state, 'captured', 'capture');
    state = 'captured';
    const jt = buildOrderPaymentJournalTransaction(order, { id: paymentId, accountCode: c.accountCode, amountCents: c.amountCents, tipCents: c.tipCents }, nowIso);
    await post(tx, row.merchant_id, jt);
    await tx.query(
      `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, tendered_cents, change_cents,
         card_brand, last4, auth_code, reference, account_code, journal_transaction_id, created_by, created_at, authorized_at, captured_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $19, $19)`,
      [paymentId, row.merchant_id, row.id, existing + i, c.method, c.rail, state, c.amountCents, c.tipCents, c.tenderedCents ?? null, c.changeCents ?? null,
        c.cardBrand ?? null, c.lastFour ?? null, c.authCode ?? null, c.reference ?? null, c.accountCode, jt.id, meta.actor, nowIso],
    );
    await appendAudit(tx, {
      merchantId: row.merchant_id,
      actor: meta.actor,
      appId: meta.appId ?? null,
      registerId: order.registerId,
      action: 'payment.captured',
      entityType: 'payment',
      entityId: paymentId,
      occurredAt: meta.now,
      data: { orderId: row.id, method: c.method, rail: c.rail, amountCents: c.amountCents, tipCents: c.tipCents, journalTransactionId: jt.id, state: 'captured' },
    });
    newTenders.push({
      id: `tnd_${ulid}`,
      method: c.method,
      amountCents: c.amountCents,
      tipCents: c.tipCents,
      ...(c.tenderedCents !== undefined ? { tenderedCents: c.tenderedCents, changeCents: c.changeCents ?? 0 } : {}),
      ...(c.cardBrand ? { cardBrand: c.cardBrand } : {}),
      ...(c.lastFour ? { last4: c.lastFour } : {}),
      ...(c.authCode ? { authCode: c.authCode } : {}),
    });
  }
  const tenderList = [...order.tenders, ...newTenders];
  let next: Order = {
    ...order,
    tenders: tenderList,
    paidCents: tenderList.reduce((a, t) => a + t.amountCents, 0),
    tipCents: tenderList.reduce((a, t) => a + t.tipCents, 0),
  };
  const isPaid = goodsPaid === goodsDue;
  if (isPaid) {
    guardOrder(row.id, row.state, 'paid', 'pay');
    next = { ...next, state: 'paid', journalTransactionId: saleJournalTransactionId(order.id) };
    const sale = buildOrderSettlementJournalTransaction(next, nowIso);
    if (sale) await post(tx, row.merchant_id, sale);
    else next = { ...next, journalTransactionId: null };
  }
  const saved = await saveOrder(tx, row, next, meta.now);
  // The order's pay links were for the balance before this payment: none of them fits any more.
  await cancelPendingPayLinks(tx, { merchantId: row.merchant_id, orderId: row.id, reason: isPaid ? 'order_paid' : 'balance_changed', except: meta.payRequestId ? [meta.payRequestId] : [], actor: meta.actor, now: meta.now });
  if (isPaid) {
    await appendAudit(tx, {
      merchantId: row.merchant_id,
      actor: meta.actor,
      appId: meta.appId ?? null,
      registerId: order.registerId,
      action: 'order.paid',
      entityType: 'order',
      entityId: row.id,
      occurredAt: meta.now,
      data: { from: 'open', to: 'paid', totalCents: next.totalCents, tipCents: next.tipCents, paidCents: next.paidCents, journalTransactionId: next.journalTransactionId },
    });
    const view = toView(saved, { payments: await paymentsOf(tx, saved), refunds: [] });
    await emitEvent(tx, { merchantId: row.merchant_id, type: 'order.paid', object: view as unknown as Record<string, unknown>, occurredAt: meta.now });
    await recordStock(tx, meta.effects, {
      merchantId: row.merchant_id,
      kind: 'sale',
      sourceId: row.id,
      lines: next.lines.map((l) => ({ variationId: l.variationId, quantity: l.quantity })),
      actor: meta.actor,
      now: meta.now,
    });
  }
  return saved;
}

/**
 * Pays an open order with one or several tenders (all or nothing). The tenders are checked first (400, nothing
 * written, no card charged); then cash, check and other tenders are captured at once and cards go through the
 * deterministic sandbox rail. A decline takes none of the tenders: the declined attempt alone is committed (payment in
 * state `declined`, no journal transaction, audit `payment.declined`, see {@link recordDeclinedPayment}) and the
 * 402 names it in `paymentId`; the order stays open.
 * @throws ProblemError 404 unknown order; 409 (`currentState`) when not open; 400 overpayment / bad tender;
 *   402 `card_declined` / `insufficient_funds` (with `paymentId`, after the declined attempt is committed).
 */
export async function payOrder(ctx: AppContext, principal: Principal, orderId: string, input: PaymentCreate): Promise<OrderView> {
  const now = ctx.clock();
  const effects: Effects = { stockChanged: false };
  const outcome = await ctx.db.transaction(async (tx): Promise<{ view: OrderView } | { declined: PaymentDeclinedError }> => {
    await lockMerchant(tx, principal.merchantId);
    const row = await orderRow(tx, principal.merchantId, orderId);
    if (row.state !== 'open') guardOrder(row.id, row.state, 'paid', 'pay');
    checkTenders(row.data, input.tenders);
    let tenders;
    try {
      tenders = input.tenders.map((t, i) => {
        const ulid = newId('payment').slice(4);
        return { ulid, captured: captureTender(t, i, row.data.registerNumber, ulid) };
      });
    } catch (err) {
      // Nothing is written before the tenders are captured: the declined attempt is all this transaction keeps.
      if (err instanceof CardDeclined) return { declined: await recordDeclinedPayment(tx, row, err, { actor: callerOf(principal), now }) };
      throw err;
    }
    const saved = await recordPayments(tx, row, tenders, { actor: callerOf(principal), now, amountPath: 'tenders', effects });
    return { view: toView(saved, { payments: await paymentsOf(tx, saved), refunds: await refundsOf(tx, orderId) }) };
  });
  if ('declined' in outcome) throw outcome.declined;
  notifyWritten(ctx, principal.merchantId, effects);
  return outcome.view;
}

/**
 * Stores a declined card attempt on an open order (DESIGN §5: `pending → declined`): a payment row in state
 * `declined` with the rail's code, no journal transaction, nothing toward the order's balance; audit `payment.declined`.
 * Returns the 402 to answer, naming the stored payment.
 */
async function recordDeclinedPayment(tx: Queryable, row: OrderRow, declined: CardDeclined, meta: { actor: string; now: Date }): Promise<PaymentDeclinedError> {
  const paymentId = newId('payment');
  guardPayment(paymentId, 'pending', 'declined', 'decline');
  const existing = Number((await tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n);
  const nowIso = meta.now.toISOString();
  const { amountCents, tipCents = 0 } = declined.tender;
  await tx.query(
    `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, reference, account_code, decline_code, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'card', $11, 'declined', $5, $6, $7, $12, $8, $9, $10, $10)`,
    [paymentId, row.merchant_id, row.id, existing, amountCents, tipCents, declined.tender.cardToken, declined.code, meta.actor, nowIso, STAFF_CARD_RAIL, `card_clearing:${STAFF_CARD_RAIL}`],
  );
  await appendAudit(tx, {
    merchantId: row.merchant_id,
    actor: meta.actor,
    registerId: row.data.registerId,
    action: 'payment.declined',
    entityType: 'payment',
    entityId: paymentId,
    occurredAt: meta.now,
    data: { orderId: row.id, method: 'card', rail: STAFF_CARD_RAIL, amountCents, declineCode: declined.code, state: 'declined' },
  });
  return new PaymentDeclinedError(paymentId, declined);
}

/** A payment that arrived through another channel (pay link, invoice), for {@link applyExternalPayment}. */
export interface ExternalPayment {
  merchantId: string;
  orderId: string;
  /** What was paid, tips included, in minor units (1 … 99 999 999). */
  amountCents: number;
  /** Of `amountCents`, the tip (default 0). */
  tipCents?: number;
  /** The rail it moved on, e.g. `card_not_present`, `apple_pay`, `ach`; the money sits in `card_clearing:<rail>`. */
  rail: string;
  /** The channel's reference (pay request id, processor reference…), kept on the payment. */
  reference: string;
  /** `card` for card-like rails, else `other` (default `other`). */
  method?: 'card' | 'other';
  cardBrand?: string;
  last4?: string;
  /** Audit actor, e.g. `system` or `pay_request:pr_…` (default `system`). */
  actor?: string;
  /** The pay link being paid, when it is one: it stays for its caller to mark paid; the order's other links are canceled. */
  payRequestId?: string;
}

/**
 * Records an external payment on an OPEN order inside the caller's transaction `tx` (see the file comment). The
 * caller notifies nothing: the change feed is told by the next sync pull. Returns the order as the API shows it.
 * @throws ProblemError 404 unknown order; 409 `illegal_state_transition` with `currentState` when the order is not
 *   open; 400 `overpayment` when `amountCents − tipCents` exceeds the balance due, or a bad rail/amount.
 */
export async function applyExternalPayment(tx: Queryable, ctx: Pick<AppContext, 'clock'>, payment: ExternalPayment): Promise<OrderView> {
  const now = ctx.clock();
  const tipCents = payment.tipCents ?? 0;
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(payment.rail)) {
    throw new ProblemError(400, 'validation_error', 'Invalid rail: use lower-case letters, digits and _.', [{ path: 'rail', message: 'must match ^[a-z][a-z0-9_]{0,39}$' }]);
  }
  if (!Number.isSafeInteger(payment.amountCents) || payment.amountCents < 1 || payment.amountCents > MAX_AMOUNT_CENTS || !Number.isSafeInteger(tipCents) || tipCents < 0 || tipCents > payment.amountCents) {
    throw new ProblemError(400, 'validation_error', `Invalid amountCents: 1 … ${MAX_AMOUNT_CENTS}, covering tipCents.`, [{ path: 'amountCents', message: 'out of range' }]);
  }
  await lockMerchant(tx, payment.merchantId);
  const row = await orderRow(tx, payment.merchantId, payment.orderId);
  if (row.state !== 'open') guardOrder(row.id, row.state, 'paid', 'pay');
  const ulid = newId('payment').slice(4);
  const method = payment.method ?? 'other';
  const captured: CapturedTender = {
    method,
    rail: payment.rail,
    accountCode: `card_clearing:${payment.rail}`,
    amountCents: payment.amountCents,
    tipCents,
    reference: payment.reference.slice(0, 200),
    ...(payment.cardBrand ? { cardBrand: payment.cardBrand.slice(0, 20) } : {}),
    ...(payment.last4 && /^\d{4}$/.test(payment.last4) ? { lastFour: payment.last4 } : {}),
  };
  const saved = await recordPayments(tx, row, [{ ulid, captured }], { actor: payment.actor ?? 'system', now, amountPath: 'amountCents', ...(payment.payRequestId ? { payRequestId: payment.payRequestId } : {}) });
  return toView(saved, { payments: await paymentsOf(tx, saved), refunds: await refundsOf(tx, payment.orderId) });
}

/* ───────────────────────────── cancel ───────────────────────────── */

/**
 * Cancels an open order (open → canceled). Payments it had collected are given back in the same transaction: one
 * `cancellation` refund record and journal transaction, each payment → refunded, `payment.refunded` emitted.
 * @throws ProblemError 404; 409 (`currentState`) when the order is not open.
 */
export async function cancelOrder(ctx: AppContext, principal: Principal, orderId: string, input: { reason?: string }): Promise<OrderView> {
  const now = ctx.clock();
  const actor = callerOf(principal);
  const view = await ctx.db.transaction(async (tx) => {
    await lockMerchant(tx, principal.merchantId);
    const row = await orderRow(tx, principal.merchantId, orderId);
    guardOrder(row.id, row.state, 'canceled', 'cancel');
    const payments = (await paymentsOf(tx, row)).filter((p) => p.state === 'captured');
    let refundedCents = 0;
    let refund: RefundRecord | undefined;
    if (payments.length > 0) {
      const jt = buildCancellationJournalTransaction(row.data, payments.map((p) => ({ id: p.id, accountCode: p.accountCode, amountCents: p.amountCents, tipCents: p.tipCents })), now.toISOString());
      await post(tx, row.merchant_id, jt);
      for (const p of payments) {
        guardPayment(p.id, p.state, 'refunded', 'refund');
        await tx.query(`UPDATE order_payments SET state = 'refunded', refunded_cents = amount_cents, updated_at = $2 WHERE id = $1`, [p.id, now.toISOString()]);
      }
      refundedCents = payments.reduce((a, p) => a + p.amountCents, 0);
      const tips = payments.reduce((a, p) => a + p.tipCents, 0);
      refund = {
        id: newId('refund'),
        orderId,
        kind: 'cancellation',
        amountCents: refundedCents,
        goodsCents: refundedCents - tips,
        taxCents: 0,
        tipCents: tips,
        lines: [],
        allocations: payments.map((p) => ({ paymentId: p.id, amountCents: p.amountCents, accountCode: p.accountCode })),
        restock: false,
        reason: input.reason ?? 'order canceled',
        journalTransactionId: jt.id,
        createdAt: now.toISOString(),
      };
      await insertRefund(tx, row.merchant_id, refund, actor);
    }
    const saved = await saveOrder(tx, row, { ...row.data, state: 'canceled' }, now, refundedCents);
    await cancelPendingPayLinks(tx, { merchantId: row.merchant_id, orderId, reason: 'order_canceled', actor, now });
    await appendAudit(tx, {
      merchantId: row.merchant_id,
      actor,
      registerId: row.data.registerId,
      action: 'order.canceled',
      entityType: 'order',
      entityId: orderId,
      occurredAt: now,
      data: { from: row.state, to: 'canceled', reason: input.reason ?? null, refundedCents, refundId: refund?.id ?? null },
    });
    const out = toView(saved, { payments: await paymentsOf(tx, saved), refunds: await refundsOf(tx, orderId) });
    if (refund) await emitEvent(tx, { merchantId: row.merchant_id, type: 'payment.refunded', object: { ...refund, order: out } as unknown as Record<string, unknown>, occurredAt: now });
    return out;
  });
  notifyWritten(ctx, principal.merchantId);
  return view;
}

async function insertRefund(tx: Queryable, merchantId: string, r: RefundRecord, actor: string): Promise<void> {
  await tx.query(
    `INSERT INTO order_refunds (id, merchant_id, order_id, kind, amount_cents, goods_cents, tax_cents, tip_cents, lines, allocations, restock, reason, journal_transaction_id, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13, $14, $15)`,
    [r.id, merchantId, r.orderId, r.kind, r.amountCents, r.goodsCents, r.taxCents, r.tipCents, JSON.stringify(r.lines), JSON.stringify(r.allocations), r.restock, r.reason, r.journalTransactionId, actor, r.createdAt],
  );
}

/* ───────────────────────────── refund ───────────────────────────── */

/** Register orders keep their tenders in the document; their payment rows are written the first time one is refunded. */
async function materializePayments(tx: Queryable, row: OrderRow, payments: PaymentRecord[]): Promise<void> {
  const stored = Number((await tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n);
  if (stored > 0) return;
  for (const [i, p] of payments.entries()) {
    await tx.query(
      `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, tendered_cents, change_cents,
         card_brand, last4, auth_code, reference, account_code, journal_transaction_id, created_by, created_at, authorized_at, captured_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'captured', $7, $8, $9, $10, $11, $12, $13, NULL, $14, $15, $16, $17, $17, $17, $17)`,
      [p.id, row.merchant_id, row.id, i, p.method, p.rail, p.amountCents, p.tipCents, p.tenderedCents, p.changeCents, p.cardBrand, p.last4, p.authCode, p.accountCode, p.journalTransactionId, `register:${row.register_id}`, p.createdAt],
    );
  }
}

/**
 * Refunds a paid order, fully or partly: by line and quantity, or by amount (core planOrderRefund). Writes a refund record
 * (never an edit of the order's lines), its journal transaction (Dr refunds / tax / tips, Cr the payments' accounts),
 * the payments' and order's new states, an audit row and `payment.refunded`; restocks refunded lines unless
 * `restock: false`.
 * @throws ProblemError 404; 409 (`currentState`) when the order is not paid or partially refunded; 400 naming the field
 *   when a line is unknown or the refund exceeds what is left.
 */
export async function refundOrder(ctx: AppContext, principal: Principal, orderId: string, input: RefundCreate): Promise<{ refund: RefundRecord; order: OrderView }> {
  const now = ctx.clock();
  const actor = callerOf(principal);
  const effects: Effects = { stockChanged: false };
  const result = await ctx.db.transaction(async (tx) => {
    await lockMerchant(tx, principal.merchantId);
    const row = await orderRow(tx, principal.merchantId, orderId);
    const order = row.data;
    if (row.state !== 'paid' && row.state !== 'partially_refunded') guardOrder(row.id, row.state, 'refunded', 'refund');
    // Core's refund rule (planOrderRefund) decides which payments a refund draws on and how much is left.
    const allPayments = await paymentsOf(tx, row);
    const payments = allPayments.filter((p) => (REFUNDABLE_PAYMENT_STATES as readonly string[]).includes(p.state));
    let plan;
    try {
      plan = planOrderRefund(order, allPayments, await refundsOf(tx, orderId), input.lines ? { lines: input.lines } : { amountCents: input.amountCents! });
    } catch (err) {
      if (err instanceof RefundError) throw new ProblemError(400, err.code, `Invalid ${err.path}: ${err.message}.`, [{ path: err.path, message: err.message }]);
      throw err;
    }
    const refundedCents = Number(row.refunded_cents) + plan.amountCents;
    const to = plan.orderState;
    guardOrder(row.id, row.state, to, 'refund');
    await materializePayments(tx, row, payments);
    const refundId = newId('refund');
    const jt = buildRefundJournalTransaction(order, plan, refundId, now.toISOString());
    await post(tx, row.merchant_id, jt);
    for (const a of plan.allocations) {
      const p = payments.find((x) => x.id === a.paymentId)!;
      const refunded = p.refundedCents + a.amountCents;
      const state = refundState(p.amountCents, refunded) as PaymentStateName;
      guardPayment(p.id, p.state, state, 'refund');
      await tx.query('UPDATE order_payments SET state = $2, refunded_cents = $3, updated_at = $4 WHERE id = $1', [p.id, state, refunded, now.toISOString()]);
    }
    const restock = input.lines ? input.restock !== false : false;
    const refund: RefundRecord = {
      id: refundId,
      orderId,
      kind: 'refund',
      amountCents: plan.amountCents,
      goodsCents: plan.goodsCents,
      taxCents: plan.taxCents,
      tipCents: plan.tipCents,
      lines: plan.lines,
      allocations: plan.allocations,
      restock,
      reason: input.reason ?? null,
      journalTransactionId: jt.id,
      createdAt: now.toISOString(),
    };
    await insertRefund(tx, row.merchant_id, refund, actor);
    const saved = await saveOrder(tx, row, { ...order, state: to }, now, refundedCents);
    await appendAudit(tx, {
      merchantId: row.merchant_id,
      actor,
      registerId: order.registerId,
      action: 'order.refunded',
      entityType: 'order',
      entityId: orderId,
      occurredAt: now,
      data: { from: row.state, to, refundId, amountCents: plan.amountCents, refundedCents, journalTransactionId: jt.id, lines: plan.lines.length, restock },
    });
    if (restock) {
      await recordStock(tx, effects, {
        merchantId: row.merchant_id,
        kind: 'return',
        sourceId: refundId,
        lines: plan.lines.map((l) => {
          const line = order.lines.find((x) => x.id === l.lineId)!;
          return { variationId: line.variationId, quantity: l.quantity };
        }),
        actor,
        now,
      });
    }
    const view = toView(saved, { payments: await paymentsOf(tx, saved), refunds: await refundsOf(tx, orderId) });
    await emitEvent(tx, { merchantId: row.merchant_id, type: 'payment.refunded', object: { ...refund, order: view } as unknown as Record<string, unknown>, occurredAt: now });
    return { refund, order: view };
  });
  notifyWritten(ctx, principal.merchantId, effects);
  return result;
}

/* ───────────────────────────── receipts ───────────────────────────── */


/** `cash` → `Cash`, `visa` → `Visa` (receipt labels). */
function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The receipt of an order (re-print data). @throws ProblemError 404. */
export async function getReceipt(db: Queryable, merchantId: string, orderId: string): Promise<OrderReceipt> {
  const merchant = await getSettings(db, merchantId);
  const order = await getOrderView(db, merchantId, orderId);
  const money = (c: number) => formatMoney(c, order.currency);
  // Times as the store reads its clock (settings' time zone), not UTC.
  const storeTime = (iso: string, style: 'full' | 'date') =>
    new Intl.DateTimeFormat('en-US', { timeZone: merchant.timeZone, dateStyle: 'medium', ...(style === 'full' ? { timeStyle: 'short' } : {}) }).format(new Date(iso));
  const tenderLabel = (t: { method: string; cardBrand: string | null; last4: string | null }) =>
    t.method === 'card' && t.last4 ? `${capitalize(t.cardBrand ?? 'card')} •••• ${t.last4}` : capitalize(t.method);
  const receipt: Omit<OrderReceipt, 'text'> = {
    orderId: order.id,
    receiptNumber: order.receiptNumber,
    merchantName: merchant.name,
    currency: order.currency,
    createdAt: order.createdAt,
    state: order.state,
    lines: order.lines.map((l) => ({ name: l.name, quantity: l.quantity, modifiers: l.modifiers.map((m) => m.name), unitPriceCents: l.unitPriceCents, amountCents: l.grossCents })),
    subtotalCents: order.subtotalCents,
    discountCents: order.discountCents,
    taxLines: order.taxLines.map((t) => ({ name: t.name, taxCents: t.taxCents, inclusive: t.inclusive })),
    totalCents: order.totalCents,
    tipCents: order.tipCents,
    paidCents: order.paidCents,
    // Only payments that moved money are tenders on a receipt: a declined card attempt is not.
    tenders: (order.payments ?? []).filter((p) => p.state !== 'declined' && p.state !== 'voided' && p.state !== 'pending').map((p) => ({ method: p.method, amountCents: p.amountCents, tipCents: p.tipCents, changeCents: p.changeCents, cardBrand: p.cardBrand, last4: p.last4 })),
    refunds: (order.refunds ?? []).map((r) => ({ id: r.id, amountCents: r.amountCents, createdAt: r.createdAt })),
    refundedCents: order.refundedCents,
    balanceDueCents: order.balanceDueCents,
  };
  const row = (left: string, right: string) => `${left}${' '.repeat(Math.max(1, 42 - left.length - right.length))}${right}`;
  const text = [
    merchant.name,
    `Receipt ${order.receiptNumber}`,
    storeTime(order.createdAt, 'full'),
    '',
    ...receipt.lines.flatMap((l) => [row(`${l.quantity} × ${l.name}`, money(l.amountCents)), ...l.modifiers.map((m) => `    + ${m}`)]),
    '',
    row('Subtotal', money(receipt.subtotalCents)),
    ...(receipt.discountCents > 0 ? [row('Discount', `-${money(receipt.discountCents)}`)] : []),
    ...receipt.taxLines.map((t) => row(`${t.name}${t.inclusive ? ' (included)' : ''}`, money(t.taxCents))),
    row('Total', money(receipt.totalCents)),
    ...(receipt.tipCents > 0 ? [row('Tip', money(receipt.tipCents))] : []),
    ...receipt.tenders.map((t) => row(tenderLabel(t), money(t.amountCents))),
    ...receipt.tenders.filter((t) => (t.changeCents ?? 0) > 0).map((t) => row('Change', money(t.changeCents!))),
    ...receipt.refunds.map((r) => row(`Refund ${storeTime(r.createdAt, 'date')}`, `-${money(r.amountCents)}`)),
    ...(receipt.balanceDueCents > 0 ? [row('Balance due', money(receipt.balanceDueCents))] : []),
    '',
    order.state === 'canceled' ? 'CANCELED' : order.state === 'refunded' ? 'REFUNDED IN FULL' : 'Thank you!',
  ].join('\n');
  return { ...receipt, text };
}

/**
 * Sends the receipt by SMS (`ctx.sms`) or e-mail (`ctx.email`) outbox, to `to` or else the order's customer's phone
 * or e-mail, and audits it. Returns the message id.
 * @throws ProblemError 404; 400 naming `to` when there is no recipient.
 */
export async function sendReceipt(ctx: AppContext, principal: Principal, orderId: string, input: ReceiptSend): Promise<{ id: string; channel: 'sms' | 'email'; to: string; orderId: string }> {
  const now = ctx.clock();
  const receipt = await getReceipt(ctx.db, principal.merchantId, orderId);
  const order = await orderRow(ctx.db, principal.merchantId, orderId);
  let to = input.to;
  if (!to && order.data.customerId) {
    const { rows } = await ctx.db.query<{ phone: string | null; email: string | null }>('SELECT phone, email FROM customers WHERE id = $1 AND merchant_id = $2', [order.data.customerId, principal.merchantId]);
    to = (input.channel === 'sms' ? rows[0]?.phone : rows[0]?.email) ?? undefined;
  }
  // A number typed for this receipt is read like a customer's: national numbers in the store's country.
  if (to && input.channel === 'sms' && input.to) to = await storePhoneToE164(ctx.db, principal.merchantId, to, 'to');
  if (!to) {
    throw new ProblemError(400, 'validation_error', `Invalid to: the order has no customer ${input.channel === 'sms' ? 'phone' : 'e-mail'}; say where to send the receipt.`, [
      { path: 'to', message: 'is required when the order has no customer with one' },
    ]);
  }
  const recipient = to;
  const money = (c: number) => formatMoney(c, receipt.currency);
  const sent = await ctx.db.transaction(async (tx) => {
    const message =
      input.channel === 'sms'
        ? await ctx.sms.send({ merchantId: principal.merchantId, to: recipient, body: `${receipt.merchantName}: receipt ${receipt.receiptNumber}, total ${money(receipt.totalCents)}${receipt.tipCents ? ` + tip ${money(receipt.tipCents)}` : ''}, paid ${money(receipt.paidCents)}${receipt.refundedCents ? `, refunded ${money(receipt.refundedCents)}` : ''}. Thank you!` }, { tx, now })
        : await ctx.email.send({ merchantId: principal.merchantId, to: recipient, subject: `Your receipt ${receipt.receiptNumber} from ${receipt.merchantName}`, body: receipt.text }, { tx, now });
    await appendAudit(tx, {
      merchantId: principal.merchantId,
      actor: callerOf(principal),
      action: 'receipt.sent',
      entityType: 'order',
      entityId: orderId,
      occurredAt: now,
      data: { channel: input.channel, to: recipient, messageId: message.id },
    });
    return message;
  });
  return { id: sent.id, channel: input.channel, to: recipient, orderId };
}
