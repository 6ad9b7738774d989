/**
 * Orders: the `orders`, `order_payments` and `order_refunds` tables are written here only. Create
 * from catalog references (priced here from a catalog snapshot the caller loads, never by the caller's prices), pay
 * with one or several tenders, cancel, refund (by line and quantity, or by amount), receipts. Register-pushed orders
 * are the same `orders` rows with `source = 'register'` (one insert: {@link insertOrders}); they arrive paid and can
 * be refunded here.
 *
 * Every write takes a {@link Mutation} (kernel/mutation.ts: transaction, merchant lock, audit, outbox, change feed)
 * and writes, together: the order row, its payment/refund records, a balanced journal transaction for every money
 * move (core/order-ledger.ts, core/refunds.ts), an audit row, and the webhook events (`order.created`, `order.paid`,
 * `payment.refunded`). Illegal moves of the state machine (core/order-states.ts) are a 409 problem naming the current
 * state (`currentState`). What an order change does to other modules — charging a tender, stock, pay links, the
 * customer — is a workflow's (workflows/create-order.ts, order-payment.ts, refund-order.ts, cancel-order.ts…).
 */
import {
  assertOrderTransition,
  assertPaymentTransition,
  buildCancellationJournalTransaction,
  buildJournalTransaction,
  buildOrderPaymentJournalTransaction,
  buildOrderSettlementJournalTransaction,
  buildRefundJournalTransaction,
  formatMoney,
  formatStoreMoney,
  formatReceiptNumber,
  IllegalTransitionError,
  MAX_AMOUNT_CENTS,
  newId,
  orderJournalHeader,
  parseReceiptNumber,
  planOrderRefund,
  REFUNDABLE_PAYMENT_STATES,
  priceCart,
  PricingError,
  RefundError,
  refundState,
  saleJournalTransactionId,
  tenderAccount,
  tenderLabel,
  tipLimitProblem,
  type CatalogSnapshot,
  type Discount,
  type JournalTransaction,
  type Order,
  type OrderCreate,
  type OrderStateName,
  type OrderReceipt,
  type OrderView,
  type PaymentRecord,
  type PaymentStateName,
  type ReceiptSend,
  type RefundCreate,
  type RefundRecord,
  type Tender,
  type TenderInput,
  type TipLimit,
} from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import { prepared, type Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { SqlFilter } from '../../platform/db/sql-filter.ts';
import { ProblemError, StateConflictError, type Problem } from '../../platform/http/problem.ts';
import { getMerchant, tipLimitOf } from '../../kernel/merchant.ts';
import { composeMessage } from '../../kernel/message-templates.ts';
import { actorOf, mutation, type Mutation } from '../../kernel/mutation.ts';

export { StateConflictError };

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

/** A stored order row (the order document in `data`, server stamps beside it). */
export interface OrderRow {
  id: string;
  merchant_id: string;
  register_id: string;
  state: OrderStateName;
  data: Order;
  sync_seq: number | string;
  updated_at: Date;
  source: 'register' | 'api';
  refunded_cents: number | string;
  /** What the customer owes in state `balance_due` (migration 0195), its receivable account and why; 0 / null otherwise. */
  balance_due_cents?: number | string;
  balance_due_account?: string | null;
  balance_due_reason?: BalanceDueReason | null;
}

/** Why a `balance_due` order owes (migration 0195). */
export type BalanceDueReason = 'offline_card_declined' | 'offline_card_expired' | 'bank_payment_returned';

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
  routing?: PaymentRecord['routing'];
  fee_cents?: number | string;
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
  approved_by: string | null;
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
    routing: row.routing ?? null,
    feeCents: Number(row.fee_cents ?? 0),
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
    approvedBy: row.approved_by ?? null,
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
    // An offline card (store and forward) is shown where its money is once forwarded and captured, so a refund of it
    // credits card-present clearing, not the store-and-forward account the forward has emptied.
    accountCode: tenderAccount(t.method, order.registerNumber),
    journalTransactionId: order.journalTransactionId,
    createdAt: order.createdAt,
    capturedAt: order.createdAt,
    declineCode: null,
    routing: null,
    feeCents: 0,
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
    balanceDueCents:
      row.state === 'open'
        ? Math.max(0, order.totalCents + order.tipCents - order.paidCents)
        : row.state === 'balance_due'
          ? Number(row.balance_due_cents ?? 0)
          : 0,
    ...(row.state === 'balance_due' && row.balance_due_reason ? { balanceDueReason: row.balance_due_reason } : {}),
    ...(details ?? {}),
  };
}

async function orderRow(db: Queryable, merchantId: string, id: string): Promise<OrderRow> {
  const { rows } = await db.query<OrderRow>(
    'SELECT id, merchant_id, register_id, state, data, sync_seq, updated_at, source, refunded_cents, balance_due_cents, balance_due_account, balance_due_reason FROM orders WHERE id = $1 AND merchant_id = $2',
    [id, merchantId],
  );
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Order ${id} does not exist.`);
  return rows[0];
}

/** Whether the merchant holds order `id` (a register's sale that has reached the server, or an API order). */
export async function orderExists(db: Queryable, merchantId: string, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM orders WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return rows.length > 0;
}

async function paymentsOf(db: Queryable, row: OrderRow): Promise<PaymentRecord[]> {
  const { rows } = await db.query<PaymentRow>('SELECT * FROM order_payments WHERE order_id = $1 ORDER BY line_no', [row.id]);
  const payments = rows.length === 0 && row.source === 'register' ? registerPayments(row.data) : rows.map(toPayment);
  return withSettlements(db, row.merchant_id, payments);
}

/**
 * Each payment's settlement (read from the payments module's `settlements`, keyed by what recorded it: the payment id,
 * its pay request (`reference`), or a forwarded offline tender's `tnd_…` id), when it has one.
 */
async function withSettlements(db: Queryable, merchantId: string, payments: PaymentRecord[]): Promise<PaymentRecord[]> {
  const keys = (p: PaymentRecord) => [p.id, `tnd_${p.id.slice(4)}`, ...(p.reference?.startsWith('pr_') ? [p.reference] : [])];
  if (payments.length === 0) return payments;
  const { rows } = await db.query<{
    id: string;
    source_id: string;
    status: 'pending' | 'settled' | 'returned';
    settles_at: Date | string;
    settled_at: Date | string | null;
    return_code: string | null;
  }>('SELECT id, source_id, status, settles_at, settled_at, return_code FROM settlements WHERE merchant_id = $1 AND source_id = ANY($2::text[])', [
    merchantId,
    payments.flatMap(keys),
  ]);
  if (rows.length === 0) return payments;
  const bySource = new Map(rows.map((r) => [r.source_id, r]));
  return payments.map((p) => {
    const s = keys(p)
      .map((k) => bySource.get(k))
      .find(Boolean);
    if (!s || (p.state !== 'captured' && p.state !== 'partially_refunded' && p.state !== 'refunded' && p.state !== 'returned')) return p;
    return {
      ...p,
      settlement: {
        id: s.id,
        status: s.status,
        settlesAt: iso(s.settles_at),
        settledAt: s.settled_at ? iso(s.settled_at) : null,
        returnCode: s.return_code,
      },
    };
  });
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

/** Orders newest first by business time (`createdAt`), ties by id; cursor pagination. */
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
    `SELECT id, merchant_id, register_id, state, data, sync_seq, updated_at, source, refunded_cents, balance_due_cents, balance_due_reason, created_at FROM orders
     WHERE ${filter.where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    filter.params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => toView(r)), nextCursor };
}

/* ───────────────────────────── helpers ───────────────────────────── */

/**
 * The next receipt number of a register (`R<n>-<6+ digit sequence>`, core/receipt.ts) in O(1): the register's
 * counter in `receipt_sequences` (migration 0081) goes up by one (`UPDATE … RETURNING`, under the merchant lock). A
 * register without a counter yet gets one that continues its existing orders' highest sequence (read once).
 */
async function nextReceiptNumber(m: Mutation, register: { id: string; number: number }): Promise<string> {
  const bumped = await m.tx.query<{ last_seq: number | string }>(
    'UPDATE receipt_sequences SET last_seq = last_seq + 1 WHERE register_id = $1 RETURNING last_seq',
    [register.id],
  );
  if (bumped.rows[0]) return formatReceiptNumber(register.number, Number(bumped.rows[0].last_seq));
  const { rows } = await m.tx.query<{ receipt_number: string }>(
    'SELECT receipt_number FROM orders WHERE register_id = $1 ORDER BY length(receipt_number) DESC, receipt_number DESC LIMIT 1',
    [register.id],
  );
  const next = (rows[0] ? (parseReceiptNumber(rows[0].receipt_number)?.sequence ?? 0) : 0) + 1;
  await m.tx.query('INSERT INTO receipt_sequences (register_id, merchant_id, last_seq) VALUES ($1, $2, $3)', [register.id, m.merchantId, next]);
  return formatReceiptNumber(register.number, next);
}

async function nextSeq(tx: Queryable): Promise<number> {
  return Number((await tx.query<{ seq: number | string }>(`SELECT nextval('sync_seq') AS seq`)).rows[0]!.seq);
}

async function post(m: Mutation, jt: JournalTransaction): Promise<void> {
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
}

async function saveOrder(m: Mutation, row: OrderRow, order: Order, refundedCents?: number): Promise<OrderRow> {
  const seq = await nextSeq(m.tx);
  await m.tx.query(`UPDATE orders SET state = $2, data = $3::jsonb, sync_seq = $4, updated_at = $5, refunded_cents = $6 WHERE id = $1`, [
    row.id,
    order.state,
    JSON.stringify(order),
    seq,
    m.now.toISOString(),
    refundedCents ?? Number(row.refunded_cents),
  ]);
  m.changed('orders');
  return { ...row, state: order.state, data: order, sync_seq: seq, updated_at: m.now, refunded_cents: refundedCents ?? row.refunded_cents };
}

/**
 * Re-points the merchant's orders naming customer `fromId` (a register's customer merged into another) at
 * `toId`: their `customerId` changes, nothing else (amounts stay frozen), and each takes a new sync sequence so the
 * registers pull the re-pointed copy. Writes no audit row (the caller's merge is audited). Returns the order ids.
 */
export async function reattachCustomerOrders(m: Mutation, fromId: string, toId: string): Promise<string[]> {
  const { rows } = await m.tx.query<{ id: string }>(
    `UPDATE orders SET data = jsonb_set(data, '{customerId}', to_jsonb($3::text)), sync_seq = nextval('sync_seq'), updated_at = $4
      WHERE merchant_id = $1 AND data->>'customerId' = $2 RETURNING id`,
    [m.merchantId, fromId, toId, m.now.toISOString()],
  );
  if (rows.length > 0) m.changed('orders');
  return rows.map((r) => r.id);
}

/** One order to store: the core document and where it came from. */
export interface OrderInsert {
  order: Order;
  source: 'api' | 'register';
}

/**
 * Stores new orders in one multi-row INSERT with one column list (API orders and register sales alike): each row
 * gets the next `sync_seq` (registers pull by it) and `updated_at = m.now`; `orders` is marked changed for the change
 * feed. Writes no audit row and no event: the caller's step does (`order.created` / `order.stored`).
 * Returns the sync sequence given to each order id.
 * @throws the database's unique violation when an id or a (register, receipt number) is taken.
 */
export async function insertOrders(m: Mutation, rows: readonly OrderInsert[]): Promise<Map<string, number>> {
  const seqs = new Map<string, number>();
  if (rows.length === 0) return seqs;
  // One statement whatever the number of rows (arrays, not a VALUES list), sequences drawn in the order given. The
  // documents travel as one JSON array (a jsonb parameter, parsed once) rather than a text[] of JSON: the driver would
  // escape every quote of every document into an array literal, the heaviest client-side work of a push.
  const { rows: stored } = await m.tx.query<{ id: string; sync_seq: number | string }>(
    prepared(
      'orders_insert',
      `INSERT INTO orders (id, merchant_id, register_id, receipt_number, state, total_cents, created_at, data, sync_seq, updated_at, source)
     SELECT id, $1, register_id, receipt_number, state, total_cents, created_at, d.data, nextval('sync_seq'), $2, source
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::timestamptz[], $9::text[]) WITH ORDINALITY
            AS t(id, register_id, receipt_number, state, total_cents, created_at, source, n)
       JOIN jsonb_array_elements($10::jsonb) WITH ORDINALITY AS d(data, n) USING (n)
      ORDER BY n
     RETURNING id, sync_seq`,
    ),
    [
      m.merchantId,
      m.now.toISOString(),
      rows.map(({ order }) => order.id),
      rows.map(({ order }) => order.registerId),
      rows.map(({ order }) => order.receiptNumber),
      rows.map(({ order }) => order.state),
      rows.map(({ order }) => order.totalCents),
      rows.map(({ order }) => order.createdAt),
      rows.map(({ source }) => source),
      JSON.stringify(rows.map(({ order }) => order)),
    ],
  );
  for (const r of stored) seqs.set(r.id, Number(r.sync_seq));
  m.changed('orders');
  return seqs;
}

/* ───────────────────────────── create ───────────────────────────── */

/**
 * Creates an open order in the mutation from catalog references priced against `catalog` (never at a caller's price), with
 * discounts, an optional customer (checked by the caller) and note, on the back-office register with its next
 * receipt number. Writes the order, an audit row `order.created` and the event `order.created`.
 * @throws ProblemError 400 naming the `lineItems.<i>…` field when a line cannot be priced, or `amount_out_of_range`
 *   naming `lineItems` when the total exceeds 99 999 999.
 */
export async function createOrder(
  m: Mutation,
  input: OrderCreate,
  context: { currency: string; catalog: CatalogSnapshot; staffId?: string; register: { id: string; number: number } },
): Promise<OrderView> {
  const discounts: Discount[] = (input.discounts ?? []).map((d) => ({ ...d, id: newId('discount') }));
  let totals;
  try {
    totals = priceCart(input.lineItems, discounts, context.catalog);
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
  const register = context.register;
  const order: Order = {
    id: newId('order'),
    registerId: register.id,
    registerNumber: register.number,
    receiptNumber: await nextReceiptNumber(m, register),
    state: 'open',
    currency: context.currency,
    createdAt: m.now.toISOString(),
    ...(context.staffId ? { staffId: context.staffId } : {}),
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
  const seq = (await insertOrders(m, [{ order, source: 'api' }])).get(order.id)!;
  await m.audit({
    registerId: register.id,
    action: 'order.created',
    entityType: 'order',
    entityId: order.id,
    data: {
      state: 'open',
      receiptNumber: order.receiptNumber,
      totalCents: order.totalCents,
      lines: order.lines.length,
      customerId: order.customerId ?? null,
    },
  });
  const row: OrderRow = {
    id: order.id,
    merchant_id: m.merchantId,
    register_id: register.id,
    state: 'open',
    data: order,
    sync_seq: seq,
    updated_at: m.now,
    source: 'api',
    refunded_cents: 0,
  };
  const created = toView(row, { payments: [], refunds: [] });
  await m.emit('order.created', created as unknown as Record<string, unknown>);
  // API orders are a journal-free change for registers, but the change feed has always told both collections.
  m.changed('journal-transactions');
  return created;
}

/* ───────────────────────────── payments ───────────────────────────── */

/** One tender to record: what the rail said and where the money sits (payments/staff-tenders.ts captures them). */
export interface CapturedTender {
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
  /** The routing decision of a card taken through the staff API, and the fee posted for it (minor units). */
  routing?: PaymentRecord['routing'];
  feeCents?: number;
}

/** A card tender the rail declined (`tenders.<index>`), to store with {@link recordDeclinedPayment}. */
export interface DeclinedCardTender {
  index: number;
  code: string;
  tender: Extract<TenderInput, { method: 'card' }>;
  rail: string;
  accountCode: string;
  /** The routing decision that chose `rail` (candidates with fees, reason), kept on the declined payment like a captured one's. */
  routing?: PaymentRecord['routing'];
}

/** 402 for a declined card tender, naming the stored declined payment (`paymentId`). */
export class PaymentDeclinedError extends ProblemError {
  constructor(
    readonly paymentId: string,
    declined: DeclinedCardTender,
  ) {
    super(
      402,
      declined.code,
      `The sandbox card rail declined tenders.${declined.index} (${declined.tender.cardToken}): nothing was charged; the attempt is recorded as payment ${paymentId} (declined).`,
      [{ path: `tenders.${declined.index}.cardToken`, message: `declined: ${declined.code}` }],
    );
  }

  override toProblem(): Problem {
    return { ...super.toProblem(), paymentId: this.paymentId };
  }
}

/**
 * Checks tenders before any of them is charged: a tip above its tender's amount or beyond the store's tip bound, cash
 * handed over below the amount, more than the order's goods balance, or no tender while something is due → 400 naming
 * the field, and no card is sent to the rail (so a request that could never be taken leaves no declined attempt
 * behind either). No tender at all is how an order with nothing due (a total of 0) is completed.
 * @throws ProblemError 400 `validation_error` (`tenders.<i>.tipCents` / `tenders.<i>.tenderedCents` / `tenders`),
 *   `tip_out_of_range` (`tenders.<i>.tipCents`), `overpayment` (`tenders`), or `amount_out_of_range` (`tenders`) when
 *   the order's paid amount with tips would exceed MAX_AMOUNT_CENTS.
 */
function checkTenders(order: Order, tenders: TenderInput[], tipLimit: TipLimit): void {
  let tips = order.tipCents;
  for (const [index, t] of tenders.entries()) {
    tips += t.tipCents ?? 0;
    if (t.tipCents) checkTipBound(order, tips, tipLimit, `tenders.${index}.tipCents`);
    if ((t.tipCents ?? 0) > t.amountCents) {
      throw new ProblemError(
        400,
        'validation_error',
        `Invalid tenders.${index}.tipCents: the tip cannot exceed the tender's amountCents (tips are included in it).`,
        [{ path: `tenders.${index}.tipCents`, message: 'must not exceed amountCents' }],
      );
    }
    if (t.method === 'cash' && t.tenderedCents !== undefined && t.tenderedCents < t.amountCents) {
      throw new ProblemError(
        400,
        'validation_error',
        `Invalid tenders.${index}.tenderedCents: cash handed over (${t.tenderedCents}) is less than the amount (${t.amountCents}).`,
        [{ path: `tenders.${index}.tenderedCents`, message: 'must be at least amountCents' }],
      );
    }
  }
  const goodsDue = order.totalCents - (order.paidCents - order.tipCents);
  if (tenders.length === 0 && goodsDue > 0) {
    throw new ProblemError(
      400,
      'validation_error',
      `Invalid tenders: ${goodsDue} is due; only an order with nothing due is completed without a tender.`,
      [{ path: 'tenders', message: `needs at least one tender while ${goodsDue} is due` }],
    );
  }
  const goodsPaid = tenders.reduce((a, t) => a + t.amountCents - (t.tipCents ?? 0), 0);
  if (goodsPaid > goodsDue) throw overpayment('tenders', goodsPaid, goodsDue);
  // What one order is paid, tips included, stays within the amount bound every order schema holds (paidCents, tipCents).
  const paying = tenders.reduce((a, t) => a + t.amountCents, 0);
  if (order.paidCents + paying > MAX_AMOUNT_CENTS) {
    throw new ProblemError(
      400,
      'amount_out_of_range',
      `Invalid tenders: the order would be paid ${order.paidCents + paying} with tips; at most ${MAX_AMOUNT_CENTS}.`,
      [{ path: 'tenders', message: `paid ${order.paidCents + paying} exceeds ${MAX_AMOUNT_CENTS}` }],
    );
  }
}

/**
 * The store's tip bound on one order: its tips after this payment (`tipsCents`, minor units, all tenders together)
 * against core's `tipLimitProblem` for its total.
 * @throws ProblemError 400 `tip_out_of_range` naming `path`.
 */
function checkTipBound(order: Order, tipsCents: number, limit: TipLimit, path: string): void {
  const problem = tipLimitProblem(order.totalCents, tipsCents, limit);
  if (problem) throw new ProblemError(400, 'tip_out_of_range', `Invalid ${path}: ${problem}.`, [{ path, message: problem }]);
}

function overpayment(path: string, goodsPaid: number, goodsDue: number): ProblemError {
  return new ProblemError(
    400,
    'overpayment',
    `Invalid ${path}: the tenders pay ${goodsPaid} toward the order but only ${goodsDue} is due (tips come on top, in tipCents).`,
    [{ path, message: `pays ${goodsPaid} but ${goodsDue} is due` }],
  );
}

/**
 * The open order `orderId` of the mutation's merchant, ready to take `tenders` (checked: see checkTenders), before any
 * tender is charged — or a `balance_due` order whose balance the tenders collect (see {@link recordBalanceCollection}).
 * @throws ProblemError 404 unknown order; 409 (`currentState`) when neither open nor balance due; 400 overpayment / bad tender.
 */
export async function openOrderForTenders(m: Mutation, orderId: string, tenders: TenderInput[]): Promise<OrderRow> {
  const row = await orderRow(m.tx, m.merchantId, orderId);
  if (row.state === 'balance_due') {
    checkCollectionTenders(row, tenders);
    return row;
  }
  if (row.state !== 'open') guardOrder(row.id, row.state, 'paid', 'pay');
  checkTenders(row.data, tenders, tipLimitOf(await getMerchant(m.tx, m.merchantId)));
  return row;
}

/** What {@link recordPayments} did: the order after it, and whether it became paid (sale posted, `order.paid` emitted). */
export interface RecordedPayments {
  row: OrderRow;
  isPaid: boolean;
}

/**
 * Records captured tenders on an open order in the mutation: payment rows, one journal transaction each, audit
 * `payment.captured` each, the order's tenders and totals; when the balance reaches zero the order becomes `paid`,
 * its sale is posted, audit `order.paid` and `order.paid` emitted. `amountPath` is the field an overpayment names.
 * @throws ProblemError 409 (`currentState`) when the order is not open; 400 `overpayment` naming `amountPath`.
 */
export async function recordPayments(
  m: Mutation,
  row: OrderRow,
  tenders: { ulid: string; captured: CapturedTender }[],
  meta: { amountPath: string },
): Promise<RecordedPayments> {
  const order = row.data;
  if (row.state !== 'open') guardOrder(row.id, row.state, 'paid', 'pay');
  const goodsDue = order.totalCents - (order.paidCents - order.tipCents);
  const goodsPaid = tenders.reduce((a, t) => a + t.captured.amountCents - t.captured.tipCents, 0);
  if (goodsPaid > goodsDue) throw overpayment(meta.amountPath, goodsPaid, goodsDue);
  const existing = Number(
    (await m.tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n,
  );
  const nowIso = m.now.toISOString();
  const newTenders: Tender[] = [];
  for (const [i, { ulid, captured: c }] of tenders.entries()) {
    const paymentId = `pmt_${ulid}`;
    let state: PaymentStateName = 'pending';
    guardPayment(paymentId, state, 'authorized', 'authorize');
    state = 'authorized';
    guardPayment(paymentId, state, 'captured', 'capture');
    state = 'captured';
    const jt = buildOrderPaymentJournalTransaction(
      order,
      { id: paymentId, accountCode: c.accountCode, amountCents: c.amountCents, tipCents: c.tipCents },
      nowIso,
    );
    await post(m, jt);
    await m.tx.query(
      `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, tendered_cents, change_cents,
         card_brand, last4, auth_code, reference, account_code, journal_transaction_id, created_by, created_at, authorized_at, captured_at, updated_at, routing, fee_cents)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $19, $19, $20::jsonb, $21)`,
      [
        paymentId,
        row.merchant_id,
        row.id,
        existing + i,
        c.method,
        c.rail,
        state,
        c.amountCents,
        c.tipCents,
        c.tenderedCents ?? null,
        c.changeCents ?? null,
        c.cardBrand ?? null,
        c.lastFour ?? null,
        c.authCode ?? null,
        c.reference ?? null,
        c.accountCode,
        jt.id,
        m.actor,
        nowIso,
        c.routing ? JSON.stringify(c.routing) : null,
        c.feeCents ?? 0,
      ],
    );
    await m.audit({
      registerId: order.registerId,
      action: 'payment.captured',
      entityType: 'payment',
      entityId: paymentId,
      data: {
        orderId: row.id,
        method: c.method,
        rail: c.rail,
        amountCents: c.amountCents,
        tipCents: c.tipCents,
        journalTransactionId: jt.id,
        state: 'captured',
      },
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
    if (sale) await post(m, sale);
    else next = { ...next, journalTransactionId: null };
  }
  const saved = await saveOrder(m, row, next);
  if (isPaid) {
    await m.audit({
      registerId: order.registerId,
      action: 'order.paid',
      entityType: 'order',
      entityId: row.id,
      data: {
        from: 'open',
        to: 'paid',
        totalCents: next.totalCents,
        tipCents: next.tipCents,
        paidCents: next.paidCents,
        journalTransactionId: next.journalTransactionId,
      },
    });
    const view = toView(saved, { payments: await paymentsOf(m.tx, saved), refunds: [] });
    await m.emit('order.paid', view as unknown as Record<string, unknown>);
  }
  return { row: saved, isPaid };
}

/**
 * Stores a declined card attempt on an open order (`pending → declined`): a payment row in state
 * `declined` with the rail's code, no journal transaction, nothing toward the order's balance; audit `payment.declined`.
 * Returns the 402 to answer once this is committed, naming the stored payment.
 */
export async function recordDeclinedPayment(m: Mutation, row: OrderRow, declined: DeclinedCardTender): Promise<PaymentDeclinedError> {
  const paymentId = newId('payment');
  guardPayment(paymentId, 'pending', 'declined', 'decline');
  const existing = Number(
    (await m.tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n,
  );
  const nowIso = m.now.toISOString();
  const { amountCents, tipCents = 0 } = declined.tender;
  await m.tx.query(
    `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, reference, account_code, decline_code, created_by, created_at, updated_at, routing)
     VALUES ($1, $2, $3, $4, 'card', $11, 'declined', $5, $6, $7, $12, $8, $9, $10, $10, $13::jsonb)`,
    [
      paymentId,
      row.merchant_id,
      row.id,
      existing,
      amountCents,
      tipCents,
      declined.tender.cardToken,
      declined.code,
      m.actor,
      nowIso,
      declined.rail,
      declined.accountCode,
      declined.routing ? JSON.stringify(declined.routing) : null,
    ],
  );
  await m.audit({
    registerId: row.data.registerId,
    action: 'payment.declined',
    entityType: 'payment',
    entityId: paymentId,
    data: { orderId: row.id, method: 'card', rail: declined.rail, amountCents, declineCode: declined.code, state: 'declined' },
  });
  return new PaymentDeclinedError(paymentId, declined);
}

/** A payment that arrived through another channel (pay link, invoice), for {@link recordExternalPayment}. */
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
  /** `card` for card rails, `apple_pay` / `google_pay` for wallets (reported as themselves), else `other` (default `other`). */
  method?: 'card' | 'apple_pay' | 'google_pay' | 'other';
  cardBrand?: string;
  last4?: string;
  /** Audit actor, e.g. `system` or `pay_page:pr_…` (default `system`; the mutation's actor when recorded in one). */
  actor?: string;
  /** The pay link being paid, when it is one: it stays for its caller to mark paid; the order's other links are canceled. */
  payRequestId?: string;
}

/**
 * Records an external payment (pay link, invoice) on an OPEN order of the mutation's merchant: payment record,
 * journal transaction (Dr `card_clearing:<rail>`, Cr receivables/tips), order state (→ `paid` when fully paid, with
 * the sale posted and `order.paid` emitted), audit. Returns what {@link recordPayments} did.
 * @throws ProblemError 404 unknown order; 409 `illegal_state_transition` with `currentState` when the order is not
 *   open; 400 `overpayment` when `amountCents − tipCents` exceeds the balance due, or a bad rail/amount;
 *   400 `tip_out_of_range` naming `tipCents` beyond the store's tip bound.
 */
export async function recordExternalPayment(m: Mutation, payment: Omit<ExternalPayment, 'merchantId' | 'actor'>): Promise<RecordedPayments> {
  const tipCents = payment.tipCents ?? 0;
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(payment.rail)) {
    throw new ProblemError(400, 'validation_error', 'Invalid rail: use lower-case letters, digits and _.', [
      { path: 'rail', message: 'must match ^[a-z][a-z0-9_]{0,39}$' },
    ]);
  }
  if (
    !Number.isSafeInteger(payment.amountCents) ||
    payment.amountCents < 1 ||
    payment.amountCents > MAX_AMOUNT_CENTS ||
    !Number.isSafeInteger(tipCents) ||
    tipCents < 0 ||
    tipCents > payment.amountCents
  ) {
    throw new ProblemError(400, 'validation_error', `Invalid amountCents: 1 … ${MAX_AMOUNT_CENTS}, covering tipCents.`, [
      { path: 'amountCents', message: 'out of range' },
    ]);
  }
  const row = await orderRow(m.tx, m.merchantId, payment.orderId);
  if (row.state !== 'open') guardOrder(row.id, row.state, 'paid', 'pay');
  if (tipCents > 0) checkTipBound(row.data, row.data.tipCents + tipCents, tipLimitOf(await getMerchant(m.tx, m.merchantId)), 'tipCents');
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
  return recordPayments(m, row, [{ ulid, captured }], { amountPath: 'amountCents' });
}

/**
 * The balance due of an open order of the merchant, in minor units: what a pay link for it charges.
 * @throws ProblemError 400 naming `orderId` when the order does not exist or is fully paid; 409 naming `currentState`
 *   when it is not open.
 */
export async function payLinkBalance(db: Queryable, merchantId: string, orderId: string): Promise<number> {
  const { rows } = await db.query<{ state: string; total: number | string; tips: number | string; paid: number | string }>(
    `SELECT state, (data->>'totalCents')::bigint AS total, COALESCE((data->>'tipCents')::bigint, 0) AS tips, COALESCE((data->>'paidCents')::bigint, 0) AS paid
       FROM orders WHERE id = $1 AND merchant_id = $2`,
    [orderId, merchantId],
  );
  const order = rows[0];
  if (!order)
    throw new ProblemError(400, 'unknown_order', `Invalid orderId: order ${orderId} does not exist.`, [
      { path: 'orderId', message: 'is not an order of this store' },
    ]);
  if (order.state !== 'open')
    throw new StateConflictError('order', orderId, order.state, `Order ${orderId} is ${order.state}: only an open order can be paid by a pay link.`);
  const due = Number(order.total) + Number(order.tips) - Number(order.paid);
  if (due < 1)
    throw new ProblemError(400, 'nothing_due', `Invalid orderId: order ${orderId} has nothing left to pay.`, [
      { path: 'orderId', message: 'has no balance due' },
    ]);
  return due;
}

/* ───────────────────────────── cancel ───────────────────────────── */

/**
 * Cancels an open order (open → canceled) in the mutation. Payments it had collected are given back: one
 * `cancellation` refund record and journal transaction, each payment → refunded, `payment.refunded` emitted; audit
 * `order.canceled`. The order's pay links are the workflow's (workflows/cancel-order.ts).
 * @throws ProblemError 404; 409 (`currentState`) when the order is not open.
 */
export async function cancelOrder(m: Mutation, orderId: string, input: { reason?: string }): Promise<OrderView> {
  const now = m.now;
  const row = await orderRow(m.tx, m.merchantId, orderId);
  guardOrder(row.id, row.state, 'canceled', 'cancel');
  const payments = (await paymentsOf(m.tx, row)).filter((p) => p.state === 'captured');
  let refundedCents = 0;
  let refund: RefundRecord | undefined;
  let cancellationJtId: string | null = null;
  if (payments.length > 0) {
    const jt = buildCancellationJournalTransaction(
      row.data,
      payments.map((p) => ({ id: p.id, accountCode: p.accountCode, amountCents: p.amountCents, tipCents: p.tipCents })),
      now.toISOString(),
    );
    await post(m, jt);
    cancellationJtId = jt.id;
    for (const p of payments) {
      guardPayment(p.id, p.state, 'refunded', 'refund');
      await m.tx.query(`UPDATE order_payments SET state = 'refunded', refunded_cents = amount_cents, updated_at = $2 WHERE id = $1`, [
        p.id,
        now.toISOString(),
      ]);
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
      approvedBy: null,
      journalTransactionId: jt.id,
      createdAt: now.toISOString(),
    };
    await insertRefund(m, refund);
  }
  const saved = await saveOrder(m, row, { ...row.data, state: 'canceled' }, refundedCents);
  await m.audit({
    registerId: row.data.registerId,
    action: 'order.canceled',
    entityType: 'order',
    entityId: orderId,
    data: {
      from: row.state,
      to: 'canceled',
      reason: input.reason ?? null,
      refundedCents,
      refundId: refund?.id ?? null,
      journalTransactionId: cancellationJtId,
    },
  });
  const out = toView(saved, { payments: await paymentsOf(m.tx, saved), refunds: await refundsOf(m.tx, orderId) });
  if (refund) await m.emit('payment.refunded', { ...refund, order: out } as unknown as Record<string, unknown>);
  m.changed('journal-transactions');
  return out;
}

async function insertRefund(m: Mutation, r: RefundRecord): Promise<void> {
  await m.tx.query(
    `INSERT INTO order_refunds (id, merchant_id, order_id, kind, amount_cents, goods_cents, tax_cents, tip_cents, lines, allocations, restock, reason, journal_transaction_id, created_by, created_at, approved_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13, $14, $15, $16)`,
    [
      r.id,
      m.merchantId,
      r.orderId,
      r.kind,
      r.amountCents,
      r.goodsCents,
      r.taxCents,
      r.tipCents,
      JSON.stringify(r.lines),
      JSON.stringify(r.allocations),
      r.restock,
      r.reason,
      r.journalTransactionId,
      m.actor,
      r.createdAt,
      r.approvedBy,
    ],
  );
}

/* ───────────────────────────── refund ───────────────────────────── */

/** Register orders keep their tenders in the document; their payment rows are written the first time one is refunded. */
async function materializePayments(tx: Queryable, row: OrderRow, payments: PaymentRecord[]): Promise<void> {
  const stored = Number(
    (await tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n,
  );
  if (stored > 0) return;
  for (const [i, p] of payments.entries()) {
    await tx.query(
      `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, tendered_cents, change_cents,
         card_brand, last4, auth_code, reference, account_code, journal_transaction_id, created_by, created_at, authorized_at, captured_at, updated_at, decline_code)
       VALUES ($1, $2, $3, $4, $5, $6, $18, $7, $8, $9, $10, $11, $12, $13, NULL, $14, $15, $16, $17, $17, $17, $17, $19)`,
      [
        p.id,
        row.merchant_id,
        row.id,
        i,
        p.method,
        p.rail,
        p.amountCents,
        p.tipCents,
        p.tenderedCents,
        p.changeCents,
        p.cardBrand,
        p.last4,
        p.authCode,
        p.accountCode,
        p.journalTransactionId,
        `register:${row.register_id}`,
        p.createdAt,
        p.state,
        p.declineCode,
      ],
    );
  }
}

/** A refund just written, with the goods to put back on stock (`restock`: variation and quantity of each refunded line). */
export interface RefundResult {
  refund: RefundRecord;
  order: OrderView;
  restock: { variationId: string | null; quantity: number }[];
}

/**
 * Refunds a paid order in the mutation, fully or partly: by line and quantity, or by amount (core planOrderRefund). Writes
 * a refund record (never an edit of the order's lines), its journal transaction (Dr refunds / tax / tips, Cr the
 * payments' accounts), the payments' and order's new states, an audit row and `payment.refunded`. The lines to
 * restock (refund by line unless `restock: false`) are returned for the workflow to put back (workflows/refund-order.ts).
 * `approve`, when given, is called with the refund's amount (cents) before anything is written and answers the
 * approver's staff id (recorded as `approvedBy`) or null; it throws to refuse the refund.
 * @throws ProblemError 404; 409 (`currentState`) when the order is not paid or partially refunded; 400 naming the field
 *   when a line is unknown or the refund exceeds what is left.
 */
export async function refundOrder(
  m: Mutation,
  orderId: string,
  input: RefundCreate,
  approve?: (amountCents: number) => Promise<string | null>,
  /** Cash given back from another drawer than the sale's (a register return): its account, e.g. `cash_drawer:R2`. */
  options: { cashDrawerAccount?: string } = {},
): Promise<RefundResult> {
  const now = m.now;
  const row = await orderRow(m.tx, m.merchantId, orderId);
  const order = row.data;
  if (row.state !== 'paid' && row.state !== 'partially_refunded') guardOrder(row.id, row.state, 'refunded', 'refund');
  // Core's refund rule (planOrderRefund) decides which payments a refund draws on and how much is left.
  const allPayments = await paymentsOf(m.tx, row);
  const payments = allPayments.filter((p) => (REFUNDABLE_PAYMENT_STATES as readonly string[]).includes(p.state));
  let plan;
  try {
    plan = planOrderRefund(
      order,
      allPayments,
      await refundsOf(m.tx, orderId),
      input.lines ? { lines: input.lines } : { amountCents: input.amountCents! },
    );
  } catch (err) {
    if (err instanceof RefundError)
      throw new ProblemError(400, err.code, `Invalid ${err.path}: ${err.message}.`, [{ path: err.path, message: err.message }]);
    throw err;
  }
  if (options.cashDrawerAccount) {
    const drawer = options.cashDrawerAccount;
    plan = { ...plan, allocations: plan.allocations.map((a) => (a.accountCode.startsWith('cash_drawer:') ? { ...a, accountCode: drawer } : a)) };
  }
  const refundedCents = Number(row.refunded_cents) + plan.amountCents;
  const to = plan.orderState;
  guardOrder(row.id, row.state, to, 'refund');
  // The caller's approval rule (a cashier above the store's limit needs a manager's): the approver's staff id or null.
  const approvedBy = approve ? await approve(plan.amountCents) : null;
  await materializePayments(m.tx, row, payments);
  const refundId = newId('refund');
  const jt = buildRefundJournalTransaction(order, plan, refundId, now.toISOString());
  await post(m, jt);
  for (const a of plan.allocations) {
    const p = payments.find((x) => x.id === a.paymentId)!;
    const refunded = p.refundedCents + a.amountCents;
    const state = refundState(p.amountCents, refunded) as PaymentStateName;
    guardPayment(p.id, p.state, state, 'refund');
    await m.tx.query('UPDATE order_payments SET state = $2, refunded_cents = $3, updated_at = $4 WHERE id = $1', [
      p.id,
      state,
      refunded,
      now.toISOString(),
    ]);
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
    approvedBy,
    journalTransactionId: jt.id,
    createdAt: now.toISOString(),
  };
  await insertRefund(m, refund);
  const saved = await saveOrder(m, row, { ...order, state: to }, refundedCents);
  await m.audit({
    registerId: order.registerId,
    action: 'order.refunded',
    entityType: 'order',
    entityId: orderId,
    data: {
      from: row.state,
      to,
      refundId,
      amountCents: plan.amountCents,
      refundedCents,
      journalTransactionId: jt.id,
      lines: plan.lines.length,
      restock,
      approvedBy,
    },
  });
  const view = toView(saved, { payments: await paymentsOf(m.tx, saved), refunds: await refundsOf(m.tx, orderId) });
  await m.emit('payment.refunded', { ...refund, order: view } as unknown as Record<string, unknown>);
  const restockLines = restock
    ? plan.lines.map((l) => {
        const line = order.lines.find((x) => x.id === l.lineId)!;
        return { variationId: line.variationId, quantity: l.quantity };
      })
    : [];
  return { refund, order: view, restock: restockLines };
}

/** The journal transaction id of order payment `paymentId` (a captured one has one). @throws Error when it has none. */
export async function paymentJournal(db: Queryable, paymentId: string): Promise<string> {
  const { rows } = await db.query<{ journal_transaction_id: string | null }>('SELECT journal_transaction_id FROM order_payments WHERE id = $1', [
    paymentId,
  ]);
  if (!rows[0]?.journal_transaction_id) throw new Error(`payment ${paymentId} has no journal transaction`);
  return rows[0].journal_transaction_id;
}

/* ───────────────────────────── balance due ───────────────────────────── */

/** A payment of a paid order that failed after the sale, for {@link openBalanceDue}. */
export interface FailedPayment {
  orderId: string;
  /** What the customer owes again, in minor units (> 0). */
  amountCents: number;
  reason: BalanceDueReason;
  /**
   * The receivable the amount already sits in (the forward's outcome or the bank return's reversal posted it):
   * `customer_receivables:offline_card_declined` (core OFFLINE_CARD_RECEIVABLE) or `customer_receivables`.
   */
  receivableAccount: string;
  /** A register order's failed tender (`tnd_…`, an offline card): its payment is kept as `declined`. */
  tenderId?: string;
  /** An order payment's `reference` (a pay request id): that payment becomes `returned`. */
  paymentReference?: string;
  /** The processor's or bank's code: `card_declined`, `forward_window_expired`, `R01`… */
  code: string;
  /** The journal transaction that posted the amount to the receivable. */
  journalTransactionId: string;
}

/** Writes the order's state and balance due in one statement (the 0195 guard sees both change together). */
async function saveBalance(
  m: Mutation,
  row: OrderRow,
  state: OrderStateName,
  balance: { cents: number; account: string | null; reason: BalanceDueReason | null },
): Promise<OrderRow> {
  const seq = await nextSeq(m.tx);
  const data: Order = { ...row.data, state };
  await m.tx.query(
    `UPDATE orders SET state = $2, data = $3::jsonb, sync_seq = $4, updated_at = $5, balance_due_cents = $6, balance_due_account = $7, balance_due_reason = $8 WHERE id = $1`,
    [row.id, state, JSON.stringify(data), seq, m.now.toISOString(), balance.cents, balance.account, balance.reason],
  );
  m.changed('orders');
  return {
    ...row,
    state,
    data,
    sync_seq: seq,
    updated_at: m.now,
    balance_due_cents: balance.cents,
    balance_due_account: balance.account,
    balance_due_reason: balance.reason,
  };
}

/**
 * A payment of a paid (or partly refunded, or already balance-due) order failed after the sale, in the mutation: the
 * order moves to `balance_due` with the amount added to what the customer owes (the order state machine as extended in
 * docs/decisions/0052-balance-due-and-card-settlement.md). The failed payment shows it: a register's offline card tender is kept
 * as a `declined` payment (the register's tenders are written as payment rows now, if not yet), an order payment
 * returned by the bank becomes `returned`. Audit `order.balance_due`. The amount is already in the receivable: this
 * posts nothing. An order in another state (refunded, canceled, open) is left as it is, audited
 * `order.balance_due_skipped` (the receivable shows the money; nothing on the order can be collected).
 * @returns the order after it, or null when it was left as it is
 */
export async function openBalanceDue(m: Mutation, failed: FailedPayment): Promise<OrderView | null> {
  const row = await orderRow(m.tx, m.merchantId, failed.orderId);
  const audit = { amountCents: failed.amountCents, reason: failed.reason, code: failed.code, journalTransactionId: failed.journalTransactionId };
  if (row.state !== 'paid' && row.state !== 'partially_refunded' && row.state !== 'balance_due') {
    await m.audit({
      registerId: row.data.registerId,
      action: 'order.balance_due_skipped',
      entityType: 'order',
      entityId: row.id,
      data: { state: row.state, ...audit },
    });
    return null;
  }
  guardOrder(row.id, row.state, 'balance_due', 'open a balance due');
  if (failed.tenderId) {
    const paymentId = `pmt_${failed.tenderId.replace(/^tnd_/, '')}`;
    const payments = await paymentsOf(m.tx, row);
    await materializePayments(
      m.tx,
      row,
      payments.map((p) => (p.id === paymentId && p.state === 'captured' ? { ...p, state: 'declined' as const, declineCode: failed.code } : p)),
    );
  }
  if (failed.paymentReference) {
    const { rows } = await m.tx.query<{ id: string; state: PaymentStateName }>(
      `SELECT id, state FROM order_payments WHERE order_id = $1 AND reference = $2 AND state = 'captured'`,
      [row.id, failed.paymentReference],
    );
    for (const p of rows) {
      guardPayment(p.id, p.state, 'returned', 'return');
      await m.tx.query(`UPDATE order_payments SET state = 'returned', decline_code = $2, updated_at = $3 WHERE id = $1`, [
        p.id,
        failed.code,
        m.now.toISOString(),
      ]);
    }
  }
  const owed = (row.state === 'balance_due' ? Number(row.balance_due_cents ?? 0) : 0) + failed.amountCents;
  const saved = await saveBalance(m, row, 'balance_due', { cents: owed, account: failed.receivableAccount, reason: failed.reason });
  await m.audit({
    registerId: row.data.registerId,
    action: 'order.balance_due',
    entityType: 'order',
    entityId: row.id,
    data: { from: row.state, to: 'balance_due', balanceDueCents: owed, receivableAccount: failed.receivableAccount, ...audit },
  });
  return toView(saved, { payments: await paymentsOf(m.tx, saved), refunds: await refundsOf(m.tx, row.id) });
}

/**
 * Checks tenders that collect a `balance_due` order's balance before any is charged: no tip (the tip was the sale's),
 * cash handed over ≥ the amount, and no more than the balance due.
 * @throws ProblemError 400 `validation_error` naming `tenders.<i>.tipCents` / `tenders.<i>.tenderedCents` / `tenders`,
 *   `overpayment` naming `tenders`.
 */
function checkCollectionTenders(row: OrderRow, tenders: TenderInput[]): void {
  const due = Number(row.balance_due_cents ?? 0);
  if (tenders.length === 0)
    throw new ProblemError(400, 'validation_error', `Invalid tenders: ${due} is due; collect it with at least one tender.`, [
      { path: 'tenders', message: `needs at least one tender while ${due} is due` },
    ]);
  for (const [index, t] of tenders.entries()) {
    if (t.tipCents) {
      throw new ProblemError(400, 'validation_error', `Invalid tenders.${index}.tipCents: collecting a balance due takes no tip.`, [
        { path: `tenders.${index}.tipCents`, message: 'must be 0 when collecting a balance due' },
      ]);
    }
    if (t.method === 'cash' && t.tenderedCents !== undefined && t.tenderedCents < t.amountCents) {
      throw new ProblemError(
        400,
        'validation_error',
        `Invalid tenders.${index}.tenderedCents: cash handed over (${t.tenderedCents}) is less than the amount (${t.amountCents}).`,
        [{ path: `tenders.${index}.tenderedCents`, message: 'must be at least amountCents' }],
      );
    }
  }
  const paying = tenders.reduce((a, t) => a + t.amountCents, 0);
  if (paying > due)
    throw new ProblemError(400, 'overpayment', `Invalid tenders: the tenders pay ${paying} but the balance due is ${due}.`, [
      { path: 'tenders', message: `pays ${paying} but ${due} is due` },
    ]);
}

/**
 * Collects (part of) a `balance_due` order's balance with captured tenders, in the mutation: a payment row each
 * (state `captured`, after the order's earlier payments), a journal transaction each (kind `payment`: Dr the tender's
 * account, Cr the order's balance-due receivable — `customer_receivables:offline_card_declined` or
 * `customer_receivables`), audit `payment.captured` each; the balance goes down, and at zero the order is back to
 * `paid` (`partially_refunded` when it had refunds), audit `order.balance_collected` and `order.paid` emitted.
 * @throws ProblemError 409 (`currentState`) when the order is not `balance_due`; 400 `overpayment` naming `tenders`.
 */
export async function recordBalanceCollection(
  m: Mutation,
  row: OrderRow,
  tenders: { ulid: string; captured: CapturedTender }[],
): Promise<RecordedPayments> {
  if (row.state !== 'balance_due') guardOrder(row.id, row.state, 'paid', 'collect a balance due');
  const due = Number(row.balance_due_cents ?? 0);
  const account = row.balance_due_account ?? 'customer_receivables';
  const paying = tenders.reduce((a, t) => a + t.captured.amountCents, 0);
  if (paying > due)
    throw new ProblemError(400, 'overpayment', `Invalid tenders: the tenders pay ${paying} but the balance due is ${due}.`, [
      { path: 'tenders', message: `pays ${paying} but ${due} is due` },
    ]);
  // A register order's tenders become payment rows first, so its payments list keeps them beside the new ones.
  await materializePayments(m.tx, row, await paymentsOf(m.tx, row));
  const existing = Number(
    (await m.tx.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM order_payments WHERE order_id = $1', [row.id])).rows[0]!.n,
  );
  const nowIso = m.now.toISOString();
  for (const [i, { ulid, captured: c }] of tenders.entries()) {
    const paymentId = `pmt_${ulid}`;
    guardPayment(paymentId, 'pending', 'authorized', 'authorize');
    guardPayment(paymentId, 'authorized', 'captured', 'capture');
    const jt = buildJournalTransaction(
      orderJournalHeader(row.data, 'payment', nowIso, `Balance due collected ${row.data.receiptNumber} (${paymentId})`),
      [
        { accountCode: c.accountCode, amountCents: c.amountCents },
        { accountCode: account, amountCents: -c.amountCents },
      ],
    );
    await post(m, jt);
    await m.tx.query(
      `INSERT INTO order_payments (id, merchant_id, order_id, line_no, method, rail, state, amount_cents, tip_cents, tendered_cents, change_cents,
         card_brand, last4, auth_code, reference, account_code, journal_transaction_id, created_by, created_at, authorized_at, captured_at, updated_at, routing, fee_cents)
       VALUES ($1, $2, $3, $4, $5, $6, 'captured', $7, 0, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $17, $17, $18::jsonb, $19)`,
      [
        paymentId,
        row.merchant_id,
        row.id,
        existing + i,
        c.method,
        c.rail,
        c.amountCents,
        c.tenderedCents ?? null,
        c.changeCents ?? null,
        c.cardBrand ?? null,
        c.lastFour ?? null,
        c.authCode ?? null,
        c.reference ?? null,
        c.accountCode,
        jt.id,
        m.actor,
        nowIso,
        c.routing ? JSON.stringify(c.routing) : null,
        c.feeCents ?? 0,
      ],
    );
    await m.audit({
      registerId: row.data.registerId,
      action: 'payment.captured',
      entityType: 'payment',
      entityId: paymentId,
      data: {
        orderId: row.id,
        method: c.method,
        rail: c.rail,
        amountCents: c.amountCents,
        tipCents: 0,
        journalTransactionId: jt.id,
        state: 'captured',
        collects: account,
      },
    });
  }
  const left = due - paying;
  const to: OrderStateName = left > 0 ? 'balance_due' : Number(row.refunded_cents) > 0 ? 'partially_refunded' : 'paid';
  guardOrder(row.id, row.state, to, 'collect a balance due');
  const saved = await saveBalance(
    m,
    row,
    to,
    left > 0 ? { cents: left, account, reason: row.balance_due_reason ?? null } : { cents: 0, account: null, reason: null },
  );
  await m.audit({
    registerId: row.data.registerId,
    action: 'order.balance_collected',
    entityType: 'order',
    entityId: row.id,
    data: { from: 'balance_due', to, collectedCents: paying, balanceDueCents: left, receivableAccount: account },
  });
  if (to !== 'balance_due') {
    const view = toView(saved, { payments: await paymentsOf(m.tx, saved), refunds: await refundsOf(m.tx, row.id) });
    await m.emit('order.paid', view as unknown as Record<string, unknown>);
  }
  return { row: saved, isPaid: false };
}

/* ───────────────────────────── receipts ───────────────────────────── */

/** `cash` → `Cash`, `visa` → `Visa` (receipt labels). */
function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The receipt of an order (re-print data). @throws ProblemError 404. */
export async function getReceipt(db: Queryable, merchantId: string, orderId: string): Promise<OrderReceipt> {
  const merchant = await getMerchant(db, merchantId);
  const order = await getOrderView(db, merchantId, orderId);
  const money = (c: number) => formatMoney(c, order.currency);
  // Times as the store reads its clock (settings' time zone), not UTC.
  const storeTime = (iso: string, style: 'full' | 'date') =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: merchant.time_zone,
      dateStyle: 'medium',
      ...(style === 'full' ? { timeStyle: 'short' } : {}),
    }).format(new Date(iso));
  const receiptTender = (t: { method: string; cardBrand: string | null; last4: string | null }) =>
    t.method === 'card' && t.last4 ? `${capitalize(t.cardBrand ?? 'card')} •••• ${t.last4}` : tenderLabel(t.method);
  const receipt: Omit<OrderReceipt, 'text'> = {
    orderId: order.id,
    receiptNumber: order.receiptNumber,
    merchantName: merchant.name,
    currency: order.currency,
    createdAt: order.createdAt,
    state: order.state,
    lines: order.lines.map((l) => ({
      name: l.name,
      quantity: l.quantity,
      modifiers: l.modifiers.map((m) => m.name),
      unitPriceCents: l.unitPriceCents,
      amountCents: l.grossCents,
    })),
    subtotalCents: order.subtotalCents,
    discountCents: order.discountCents,
    taxLines: order.taxLines.map((t) => ({ name: t.name, taxCents: t.taxCents, inclusive: t.inclusive })),
    totalCents: order.totalCents,
    tipCents: order.tipCents,
    paidCents: order.paidCents,
    // Only payments that moved money are tenders on a receipt: a declined card attempt is not.
    tenders: (order.payments ?? [])
      .filter((p) => p.state !== 'declined' && p.state !== 'voided' && p.state !== 'pending')
      .map((p) => ({
        method: p.method,
        amountCents: p.amountCents,
        tipCents: p.tipCents,
        changeCents: p.changeCents,
        cardBrand: p.cardBrand,
        last4: p.last4,
      })),
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
    ...receipt.tenders.map((t) => row(receiptTender(t), money(t.amountCents))),
    ...receipt.tenders.filter((t) => (t.changeCents ?? 0) > 0).map((t) => row('Change', money(t.changeCents!))),
    ...receipt.refunds.map((r) => row(`Refund ${storeTime(r.createdAt, 'date')}`, `-${money(r.amountCents)}`)),
    ...(receipt.balanceDueCents > 0 ? [row('Balance due', money(receipt.balanceDueCents))] : []),
    '',
    order.state === 'canceled' ? 'CANCELED' : order.state === 'refunded' ? 'REFUNDED IN FULL' : 'Thank you!',
  ].join('\n');
  return { ...receipt, text };
}

/**
 * Sends the receipt by SMS (`ctx.sms`) or e-mail (`ctx.email`) outbox to `input.to` — the recipient the caller settled
 * (workflows/send-receipt.ts: as typed, in E.164 for SMS, or else the order's customer's phone or e-mail) — and
 * audits it (`receipt.sent`). Returns the message id.
 * @throws ProblemError 404; 400 naming `to` when there is no recipient.
 */
export async function sendReceipt(
  ctx: AppContext,
  principal: Principal,
  orderId: string,
  input: { channel: ReceiptSend['channel']; to?: string | undefined },
): Promise<{ id: string; channel: 'sms' | 'email'; to: string; orderId: string }> {
  const receipt = await getReceipt(ctx.db, principal.merchantId, orderId);
  const to = input.to;
  if (!to) {
    throw new ProblemError(
      400,
      'validation_error',
      `Invalid to: the order has no customer ${input.channel === 'sms' ? 'phone' : 'e-mail'}; say where to send the receipt.`,
      [{ path: 'to', message: 'is required when the order has no customer with one' }],
    );
  }
  const sent = await mutation(ctx, actorOf(principal), async (m) => {
    // In the store's language, with its own template if it saved one (kernel/message-templates.ts).
    const merchant = await getMerchant(m.tx, principal.merchantId);
    const money = (c: number) => formatStoreMoney(c, receipt.currency, merchant.language);
    let message: { id: string };
    if (input.channel === 'sms') {
      const text = await composeMessage(m.tx, merchant, 'receipt_sms', {
        store: receipt.merchantName,
        receiptNumber: receipt.receiptNumber,
        total: money(receipt.totalCents),
        tip: receipt.tipCents ? money(receipt.tipCents) : '',
        paid: money(receipt.paidCents),
        refunded: receipt.refundedCents ? money(receipt.refundedCents) : '',
      });
      message = await ctx.sms.send(
        { merchantId: principal.merchantId, to, body: text.body, kind: 'receipt', subjectRef: `order:${orderId}` },
        { tx: m.tx, now: m.now },
      );
    } else {
      const email = await composeMessage(m.tx, merchant, 'receipt_email', {
        store: receipt.merchantName,
        receiptNumber: receipt.receiptNumber,
        total: money(receipt.totalCents),
        receipt: receipt.text,
      });
      message = await ctx.email.send(
        { merchantId: principal.merchantId, to, subject: email.subject ?? '', body: email.body, kind: 'receipt', subjectRef: `order:${orderId}` },
        { tx: m.tx, now: m.now },
      );
    }
    await m.audit({ action: 'receipt.sent', entityType: 'order', entityId: orderId, data: { channel: input.channel, to, messageId: message.id } });
    return message;
  });
  return { id: sent.id, channel: input.channel, to, orderId };
}
