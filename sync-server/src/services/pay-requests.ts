import {
  catalogSnapshot,
  formatMoney,
  MAX_AMOUNT_CENTS,
  newId,
  priceCart,
  PricingError,
  type CatalogItem,
  type OrderLine,
  type PayRequest,
  type PayRequestCreate,
  type TaxRate,
  assertPayRequestTransition,
  IllegalTransitionError,
  buildPayRequestSaleJournal,
  effectivePayRequestStatus,
  type PayPageCharge,
  type PayRequestRecord,
} from '../../../core/index.ts';
import { lockMerchant, type Db, type Queryable } from '../db/db.ts';
import { callerOf, type Principal } from '../auth/identity.ts';
import { createdAtKey, decodeCursor, pageOf } from '../http/cursor.ts';
import { ProblemError, StateConflictError } from '../http/problem.ts';
import { appendAudit } from './audit.ts';
import { postJournalTransaction } from './ledger.ts';
import { applyInvoicePayment } from './invoices.ts';
import { applyExternalPayment } from './orders.ts';
import { cancelPendingPayLinks } from './pay-links.ts';
import { recordSaleStock } from './inventory.ts';
import { SandboxProcessor, type PaymentProcessor } from './payments.ts';
import type { AppContext } from '../context.ts';

/** Pay requests expire 7 days after creation unless paid (DESIGN §5). */
export const PAY_REQUEST_TTL_MS = 7 * 24 * 3600 * 1000;

export interface MerchantRow {
  id: string;
  name: string;
  currency: string;
  is_demo: boolean;
}

export async function getMerchant(db: Queryable, merchantId: string): Promise<MerchantRow> {
  const { rows } = await db.query<MerchantRow>('SELECT id, name, currency, is_demo FROM merchants WHERE id = $1', [merchantId]);
  if (!rows[0]) throw new ProblemError(404, 'merchant_not_found', `Merchant ${merchantId} does not exist.`);
  return rows[0];
}

/** The merchant's live catalog (not deleted) as a pricing snapshot. */
export async function loadCatalog(db: Queryable, merchantId: string) {
  const items = await db.query<{ data: CatalogItem }>('SELECT data FROM catalog_items WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  const rates = await db.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  return catalogSnapshot(
    items.rows.map((r) => r.data),
    rates.rows.map((r) => r.data),
  );
}

interface PayRequestRow {
  id: string;
  merchant_id: string;
  status: PayRequest['status'];
  amount_cents: number | string;
  currency: string;
  phone: string | null;
  memo: string | null;
  line_items: OrderLine[] | null;
  url: string;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  invoice_id: string | null;
  order_id: string | null;
  canceled_at: Date | null;
  superseded_by: string | null;
  payment: PayRequestRecord['payment'] | null;
}

/**
 * The API shape of a stored pay request at `now`: `pending` past `expiresAt` reads as `expired` (DESIGN §5). Links,
 * cancellation and payment appear only when they apply, so a new free-amount request is exactly core
 * `payRequestSchema`.
 */
function toRecord(row: PayRequestRow, now: Date): PayRequestRecord {
  return {
    id: row.id,
    status: effectivePayRequestStatus(row.status, row.expires_at, now),
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    phone: row.phone,
    memo: row.memo,
    ...(row.line_items ? { lineItems: row.line_items } : {}),
    url: row.url,
    expiresAt: new Date(row.expires_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
    paidAt: row.paid_at ? new Date(row.paid_at).toISOString() : null,
    ...(row.invoice_id ? { invoiceId: row.invoice_id } : {}),
    ...(row.order_id ? { orderId: row.order_id } : {}),
    ...(row.canceled_at ? { canceledAt: new Date(row.canceled_at).toISOString() } : {}),
    ...(row.superseded_by ? { supersededBy: row.superseded_by } : {}),
    ...(row.payment ? { payment: row.payment } : {}),
  };
}

/**
 * The balance due of an open order of the merchant, in minor units: what a pay link for it charges.
 * @throws ProblemError 400 naming `orderId` when the order does not exist or is fully paid; 409 naming `currentState`
 *   when it is not open.
 */
async function openOrderBalance(db: Queryable, merchantId: string, orderId: string): Promise<number> {
  const { rows } = await db.query<{ state: string; total: number | string; tips: number | string; paid: number | string }>(
    `SELECT state, (data->>'totalCents')::bigint AS total, COALESCE((data->>'tipCents')::bigint, 0) AS tips, COALESCE((data->>'paidCents')::bigint, 0) AS paid
       FROM orders WHERE id = $1 AND merchant_id = $2`,
    [orderId, merchantId],
  );
  const order = rows[0];
  if (!order) throw new ProblemError(400, 'unknown_order', `Invalid orderId: order ${orderId} does not exist.`, [{ path: 'orderId', message: 'is not an order of this store' }]);
  if (order.state !== 'open') throw new StateConflictError('order', orderId, order.state, `Order ${orderId} is ${order.state}: only an open order can be paid by a pay link.`);
  const due = Number(order.total) + Number(order.tips) - Number(order.paid);
  if (due < 1) throw new ProblemError(400, 'nothing_due', `Invalid orderId: order ${orderId} has nothing left to pay.`, [{ path: 'orderId', message: 'has no balance due' }]);
  return due;
}

/**
 * Creates a Text-to-Pay link (spec "Pay request", DESIGN §5, §7): a free `amountCents`, or `lineItems` priced here
 * against the merchant's catalog (apps never send prices). The record, its SMS and the audit row are written in one
 * transaction.
 * @throws ProblemError 400 when a line item cannot be priced or the priced total is out of bounds.
 */
export async function createPayRequest(ctx: AppContext, principal: Principal, input: PayRequestCreate): Promise<PayRequest> {
  const merchant = await getMerchant(ctx.db, principal.merchantId);
  let amountCents = input.amountCents;
  let lineItems: OrderLine[] | undefined;
  if (input.lineItems) {
    const catalog = await loadCatalog(ctx.db, merchant.id);
    try {
      const totals = priceCart(input.lineItems, [], catalog);
      lineItems = totals.lines;
      amountCents = totals.totalCents;
    } catch (err) {
      if (err instanceof PricingError) {
        const path = err.path.replace(/^lines(?=\.|$)/, 'lineItems');
        throw new ProblemError(400, err.code, `Invalid ${path}: ${err.message}`, [{ path, message: err.message }]);
      }
      throw err;
    }
    if (amountCents < 1 || amountCents > MAX_AMOUNT_CENTS) {
      throw new ProblemError(400, 'amount_out_of_range', `Invalid lineItems: they total ${amountCents} cents; a pay request is 1 … ${MAX_AMOUNT_CENTS}.`, [
        { path: 'lineItems', message: `total ${amountCents} is outside 1 … ${MAX_AMOUNT_CENTS}` },
      ]);
    }
  }
  const now = ctx.clock();
  if (input.orderId) amountCents = await openOrderBalance(ctx.db, merchant.id, input.orderId);
  const id = newId('payRequest');
  const record: PayRequest = {
    id,
    status: 'pending',
    amountCents: amountCents!,
    currency: merchant.currency,
    phone: input.phone,
    memo: input.memo ?? null,
    ...(lineItems ? { lineItems } : {}),
    ...(input.orderId ? { orderId: input.orderId } : {}),
    url: `${ctx.config.baseUrl}/pay/${id}`,
    expiresAt: new Date(now.getTime() + PAY_REQUEST_TTL_MS).toISOString(),
    createdAt: now.toISOString(),
    paidAt: null,
  };
  const smsBody = `${merchant.name}: payment request for ${formatMoney(record.amountCents, record.currency)}${record.memo ? ` (${record.memo})` : ''}. Pay here: ${record.url}`;
  await ctx.db.transaction(async (tx) => {
    await lockMerchant(tx, merchant.id);
    // Under the merchant lock: the order may have been paid or canceled since the balance was read.
    if (input.orderId && (await openOrderBalance(tx, merchant.id, input.orderId)) !== record.amountCents) {
      throw new ProblemError(409, 'order_changed', `Order ${input.orderId} changed while the pay link was being created; try again.`);
    }
    await tx.query(
      `INSERT INTO pay_requests (id, merchant_id, status, amount_cents, currency, phone, memo, line_items, url, created_by, created_at, expires_at, order_id)
       VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)`,
      [id, merchant.id, record.amountCents, record.currency, record.phone, record.memo, lineItems ? JSON.stringify(lineItems) : null, record.url, callerOf(principal), record.createdAt, record.expiresAt, input.orderId ?? null],
    );
    // One pending link per order: the new one replaces any older one (an old link then leads to this one).
    if (input.orderId) await cancelPendingPayLinks(tx, { merchantId: merchant.id, orderId: input.orderId, reason: 'superseded', supersededBy: id, except: [id], actor: callerOf(principal), now });
    const sms = await ctx.sms.send({ merchantId: merchant.id, to: record.phone, body: smsBody }, { tx, now });
    await appendAudit(tx, {
      merchantId: merchant.id,
      actor: callerOf(principal),
      appId: principal.kind === 'app' ? principal.appId : null,
      action: 'pay_request.created',
      entityType: 'pay_request',
      entityId: id,
      occurredAt: now,
      data: { amountCents: record.amountCents, currency: record.currency, phone: record.phone, memo: record.memo, smsId: sms.id, lineItemCount: lineItems?.length ?? 0, orderId: input.orderId ?? null },
    });
  });
  return record;
}

/**
 * One pay request in the API shape (status as of `now`), with its merchant. `merchantId` restricts the lookup to that
 * merchant (a request of another merchant is "not found").
 */
export async function getPayRequest(db: Queryable, id: string, merchantId?: string, now: Date = new Date()): Promise<(PayRequestRecord & { merchantId: string }) | undefined> {
  const { rows } = await db.query<PayRequestRow>('SELECT * FROM pay_requests WHERE id = $1', [id]);
  const row = rows[0];
  if (!row || (merchantId && row.merchant_id !== merchantId)) return undefined;
  return { ...toRecord(row, now), merchantId: row.merchant_id };
}

/* ───────────────────────────── life cycle (DESIGN §5) ───────────────────────────── */

/** The processor of the hosted pay page and staff card payments: the deterministic sandbox (DESIGN §9, §10). */
export const defaultPaymentProcessor: PaymentProcessor = new SandboxProcessor();

function guardPayRequest(id: string, from: PayRequest['status'], to: 'paid' | 'expired' | 'canceled', action: string): void {
  try {
    assertPayRequestTransition(from, to, action);
  } catch (err) {
    if (err instanceof IllegalTransitionError) throw StateConflictError.fromTransition(err, id);
    throw err;
  }
}

async function lockedRow(tx: Queryable, merchantId: string, id: string): Promise<PayRequestRow> {
  const { rows } = await tx.query<PayRequestRow>('SELECT * FROM pay_requests WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [id, merchantId]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Pay request ${id} does not exist.`);
  return rows[0];
}

/**
 * Pay requests of the merchant, newest first (cursor pagination). `status` filters by the state now (a pending
 * request past its expiry is listed as `expired`); `invoiceId` by the invoice it pays.
 */
export async function listPayRequests(
  db: Queryable,
  merchantId: string,
  now: Date,
  q: { limit: number; cursor?: string; status?: PayRequest['status']; invoiceId?: string },
): Promise<{ data: PayRequestRecord[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.status === 'pending' || q.status === 'expired') {
    params.push(now.toISOString());
    const at = `$${params.length}::timestamptz`;
    where += q.status === 'pending' ? ` AND status = 'pending' AND expires_at > ${at}` : ` AND (status = 'expired' OR (status = 'pending' AND expires_at <= ${at}))`;
  } else if (q.status) {
    params.push(q.status);
    where += ` AND status = $${params.length}`;
  }
  if (q.invoiceId) {
    params.push(q.invoiceId);
    where += ` AND invoice_id = $${params.length}`;
  }
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<PayRequestRow>(`SELECT * FROM pay_requests WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`, params);
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => toRecord(r, now)), nextCursor };
}

/**
 * Cancels a pending pay request (`pending → canceled`); its link then shows "canceled".
 * @throws ProblemError 404; 409 naming `currentState` when it is paid, expired or already canceled.
 */
export async function cancelPayRequest(ctx: AppContext, principal: Principal, id: string, input: { reason?: string }): Promise<PayRequestRecord> {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    await lockMerchant(tx, principal.merchantId);
    const row = await lockedRow(tx, principal.merchantId, id);
    guardPayRequest(id, effectivePayRequestStatus(row.status, row.expires_at, now), 'canceled', 'cancel');
    const { rows } = await tx.query<PayRequestRow>(
      `UPDATE pay_requests SET status = 'canceled', canceled_at = $2, cancel_reason = $3 WHERE id = $1 RETURNING *`,
      [id, now.toISOString(), input.reason ?? null],
    );
    await appendAudit(tx, {
      merchantId: principal.merchantId,
      actor: callerOf(principal),
      appId: principal.kind === 'app' ? principal.appId : null,
      action: 'pay_request.canceled',
      entityType: 'pay_request',
      entityId: id,
      occurredAt: now,
      data: { reason: input.reason ?? null },
    });
    return toRecord(rows[0]!, now);
  });
}

/** Invoice pay links stay valid 30 days past the due date, and at least the default 7 days from now. */
export function invoiceLinkExpiry(dueDate: string, now: Date): Date {
  const afterDue = new Date(`${dueDate}T00:00:00.000Z`).getTime() + 31 * 24 * 3600 * 1000;
  return new Date(Math.max(afterDue, now.getTime() + PAY_REQUEST_TTL_MS));
}

/**
 * Writes the pay link of an invoice (a pay request with `invoiceId`, for the invoice's balance due) inside `tx`. No
 * message is sent here: the invoice's send does that.
 */
export async function insertInvoicePayLink(
  tx: Queryable,
  ctx: Pick<AppContext, 'config'>,
  link: { merchantId: string; invoiceId: string; invoiceNumber: string; amountCents: number; currency: string; phone: string | null; dueDate: string; actor: string; now: Date },
): Promise<PayRequestRecord> {
  const id = newId('payRequest');
  const url = `${ctx.config.baseUrl}/pay/${id}`;
  const expiresAt = invoiceLinkExpiry(link.dueDate, link.now);
  const { rows } = await tx.query<PayRequestRow>(
    `INSERT INTO pay_requests (id, merchant_id, status, amount_cents, currency, phone, memo, line_items, url, created_by, created_at, expires_at, invoice_id)
     VALUES ($1, $2, 'pending', $3, $4, $5, $6, NULL, $7, $8, $9, $10, $11) RETURNING *`,
    [id, link.merchantId, link.amountCents, link.currency, link.phone, `Invoice ${link.invoiceNumber}`, url, link.actor, link.now.toISOString(), expiresAt.toISOString(), link.invoiceId],
  );
  await appendAudit(tx, {
    merchantId: link.merchantId,
    actor: link.actor,
    action: 'pay_request.created',
    entityType: 'pay_request',
    entityId: id,
    occurredAt: link.now,
    data: { amountCents: link.amountCents, currency: link.currency, invoiceId: link.invoiceId },
  });
  return toRecord(rows[0]!, link.now);
}

/** The invoice's pending, unexpired pay link, if any. */
export async function pendingInvoiceLink(tx: Queryable, invoiceId: string, now: Date): Promise<PayRequestRecord | undefined> {
  const { rows } = await tx.query<PayRequestRow>(
    `SELECT * FROM pay_requests WHERE invoice_id = $1 AND status = 'pending' AND expires_at > $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [invoiceId, now.toISOString()],
  );
  return rows[0] ? toRecord(rows[0], now) : undefined;
}

/**
 * Pays a pay request from the hosted pay page (DESIGN §5, §10): in one transaction, under the merchant's lock and
 * the request's row lock, checks it is still pending and unexpired, charges the token on the processor, and records
 * the outcome — the request `paid` with its payment (method, rail, brand, last four, processor reference), a balanced
 * journal transaction (an invoice's link: Dr the rail's clearing account, Cr receivables, and the invoice payment;
 * otherwise a sale: Dr clearing, Cr revenue and tax, and `sale` stock movements for its catalog lines), and an audit row.
 * A decline is a 402 that charges and changes nothing, its attempt kept in the audit trail (`pay_request.payment_declined`).
 * @throws ProblemError 404; 409 naming `currentState` when not pending; 402 `card_declined` / `insufficient_funds` /
 *   `expired_card` / `account_closed` / `invalid_token` naming `token`.
 */
export async function payPayRequest(ctx: AppContext, id: string, charge: PayPageCharge, processor: PaymentProcessor = defaultPaymentProcessor): Promise<PayRequestRecord> {
  const now = ctx.clock();
  const found = await getPayRequest(ctx.db, id, undefined, now);
  if (!found) throw new ProblemError(404, 'not_found', `Pay request ${id} does not exist.`);
  const merchantId = found.merchantId;
  let stockChanged = false;
  const outcome = await ctx.db.transaction(async (tx): Promise<PayRequestRecord | ProblemError> => {
    await lockMerchant(tx, merchantId);
    const row = await lockedRow(tx, merchantId, id);
    guardPayRequest(id, effectivePayRequestStatus(row.status, row.expires_at, now), 'paid', 'pay');
    const amountCents = Number(row.amount_cents);
    const result = await processor.charge({ method: charge.method, token: charge.token, amountCents, currency: row.currency, reference: id });
    if (result.outcome === 'declined') {
      // Kept in the audit trail (method, code, when): a store answering "my card was declined" can look it up.
      await appendAudit(tx, { merchantId, actor: `pay_page:${id}`, action: 'pay_request.payment_declined', entityType: 'pay_request', entityId: id, occurredAt: now, data: { method: charge.method, amountCents, declineCode: result.code } });
      return new ProblemError(402, result.code, `${result.message} Nothing was charged.`, [{ path: 'token', message: `declined: ${result.code}` }]);
    }
    const actor = `pay_page:${id}`;
    let journalTransactionId: string;
    if (row.order_id) {
      const order = await applyExternalPayment(tx, ctx, {
        merchantId,
        orderId: row.order_id,
        amountCents,
        rail: result.rail,
        reference: id,
        payRequestId: id,
        method: charge.method === 'bank_transfer' ? 'other' : 'card',
        ...(result.brand ? { cardBrand: result.brand } : {}),
        ...(result.last4 ? { last4: result.last4 } : {}),
        actor,
      });
      const recorded = order.payments?.find((p) => p.reference === id);
      if (!recorded?.journalTransactionId) throw new Error(`payment of ${id} on order ${row.order_id} has no journal transaction`);
      journalTransactionId = recorded.journalTransactionId;
    } else if (row.invoice_id) {
      const applied = await applyInvoicePayment(tx, ctx, {
        merchantId,
        invoiceId: row.invoice_id,
        amountCents,
        method: charge.method,
        rail: result.rail,
        accountCode: result.accountCode,
        channel: 'pay_page',
        cardBrand: result.brand,
        last4: result.last4,
        reference: result.processorReference,
        payRequestId: id,
        registerId: null,
        actor,
        now,
      });
      journalTransactionId = applied.journalTransactionId;
    } else {
      const jt = buildPayRequestSaleJournal({
        id: newId('journalTransaction'),
        payRequestId: id,
        currency: row.currency,
        amountCents,
        accountCode: result.accountCode,
        occurredAt: now.toISOString(),
        memo: row.memo,
        ...(row.line_items ? { lineItems: row.line_items } : {}),
      });
      await postJournalTransaction(tx, merchantId, jt);
      journalTransactionId = jt.id;
      // A link carrying catalog lines is a sale of those goods: they leave stock when it is paid.
      if (row.line_items) stockChanged = await recordSaleStock(tx, { merchantId, kind: 'sale', sourceId: id, lines: row.line_items, actor, now });
    }
    const payment = { method: charge.method, rail: result.rail, brand: result.brand, last4: result.last4, processorReference: result.processorReference, journalTransactionId };
    const { rows } = await tx.query<PayRequestRow>(`UPDATE pay_requests SET status = 'paid', paid_at = $2, payment = $3::jsonb WHERE id = $1 RETURNING *`, [id, now.toISOString(), JSON.stringify(payment)]);
    await appendAudit(tx, {
      merchantId,
      actor,
      action: 'pay_request.paid',
      entityType: 'pay_request',
      entityId: id,
      occurredAt: now,
      data: { amountCents, ...payment, invoiceId: row.invoice_id, orderId: row.order_id },
    });
    return toRecord(rows[0]!, now);
  });
  if (outcome instanceof ProblemError) throw outcome;
  const record = outcome;
  ctx.feed.notify(merchantId, 'journal-transactions');
  // An order paid through its link changed state and may have moved stock; registers pull both.
  if (found.orderId) ctx.feed.notify(merchantId, 'orders');
  if (stockChanged || found.orderId) ctx.feed.notify(merchantId, 'catalog-items');
  return record;
}

/**
 * The expiry job (DESIGN §5): stores `expired` on every pending request past its expiry, with an audit row each.
 * Reads already show them expired; this makes the stored state agree. Returns how many it expired.
 */
export async function expirePayRequests(db: Db, now: Date): Promise<number> {
  const due = await db.query<{ merchant_id: string }>(`SELECT DISTINCT merchant_id FROM pay_requests WHERE status = 'pending' AND expires_at <= $1`, [now.toISOString()]);
  let count = 0;
  for (const { merchant_id: merchantId } of due.rows) {
    count += await db.transaction(async (tx) => {
      await lockMerchant(tx, merchantId);
      const { rows } = await tx.query<{ id: string; expires_at: Date }>(
        `UPDATE pay_requests SET status = 'expired' WHERE merchant_id = $1 AND status = 'pending' AND expires_at <= $2 RETURNING id, expires_at`,
        [merchantId, now.toISOString()],
      );
      for (const r of rows) {
        await appendAudit(tx, { merchantId, actor: 'system', action: 'pay_request.expired', entityType: 'pay_request', entityId: r.id, occurredAt: now, data: { expiresAt: new Date(r.expires_at).toISOString() } });
      }
      return rows.length;
    });
  }
  return count;
}
