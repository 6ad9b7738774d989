/**
 * Text-to-Pay requests (docs/api.md "Invoices and Text-to-Pay"): the `pay_requests` table is written here only. A request
 * is a free amount, catalog lines priced by the server, an open order's balance or an invoice's balance; it is paid
 * once on the hosted pay page, canceled, or expires after 7 days. What paying it does to an order, an invoice, the
 * ledger or stock is the pay-link-payment workflow's (workflows/pay-link-payment.ts); this module keeps the request.
 */
import {
  formatStoreMoney,
  MAX_AMOUNT_CENTS,
  newId,
  smsSegments,
  type SmsEncoding,
  priceCart,
  PricingError,
  type CatalogSnapshot,
  type OrderLine,
  type PayRequest,
  type PayRequestCreate,
  assertPayRequestTransition,
  IllegalTransitionError,
  buildPayRequestSaleJournal,
  effectivePayRequestStatus,
  type PayRequestRecord,
  type MessagePlaceholder,
  type StoreLanguage,
} from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError, StateConflictError } from '../../platform/http/problem.ts';
import { actorOf, mutation, type Mutation } from '../../kernel/mutation.ts';
import { getMerchant, type MerchantRow } from '../../kernel/merchant.ts';
import { composeMessage } from '../../kernel/message-templates.ts';
import type { AppContext } from '../../platform/context.ts';

/** Pay requests expire 7 days after creation unless paid. */
export const PAY_REQUEST_TTL_MS = 7 * 24 * 3600 * 1000;

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
 * The API shape of a stored pay request at `now`: `pending` past `expiresAt` reads as `expired`. Links,
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
 * Prices a pay request's catalog lines against `catalog` (core priceCart, no discounts). Returns the priced lines and
 * their total in minor units.
 * @throws ProblemError 400 naming the `lineItems.<i>…` field that cannot be priced, or `amount_out_of_range` naming
 *   `lineItems` when the total is outside 1 … 99 999 999.
 */
export function pricePayRequestLines(
  catalog: CatalogSnapshot,
  lineItems: PayRequestCreate['lineItems'] & object,
): { lineItems: OrderLine[]; amountCents: number } {
  let totals;
  try {
    totals = priceCart(lineItems, [], catalog);
  } catch (err) {
    if (err instanceof PricingError) {
      const path = err.path.replace(/^lines(?=\.|$)/, 'lineItems');
      throw new ProblemError(400, err.code, `Invalid ${path}: ${err.message}`, [{ path, message: err.message }]);
    }
    throw err;
  }
  const amountCents = totals.totalCents;
  if (amountCents < 1 || amountCents > MAX_AMOUNT_CENTS) {
    throw new ProblemError(
      400,
      'amount_out_of_range',
      `Invalid lineItems: they total ${amountCents} cents; a pay request is 1 … ${MAX_AMOUNT_CENTS}.`,
      [{ path: 'lineItems', message: `total ${amountCents} is outside 1 … ${MAX_AMOUNT_CENTS}` }],
    );
  }
  return { lineItems: totals.lines, amountCents };
}

/**
 * The values of a pay request's text (the `pay_request_sms` template): the store's name, `amountCents` (minor units, in
 * the store's currency) formatted in the store's language, `memo` (none → empty) and the request's `payLink`. The same
 * for the preview and for the text sent.
 */
function payRequestTextValues(
  merchant: Pick<MerchantRow, 'name' | 'currency' | 'language'>,
  amountCents: number,
  memo: string | null | undefined,
  payLink: string,
): Partial<Record<MessagePlaceholder, string>> {
  return { store: merchant.name, amount: formatStoreMoney(amountCents, merchant.currency, merchant.language), memo: memo ?? '', payLink };
}

/**
 * The text a pay request of `amountCents` (minor units) with `memo` would send, before it is created: the store's
 * template in its language with a link as long as the real one (`ctx.config.baseUrl` + `/pay/pr_…`), and how it is sent
 * (`core/sms-segments.ts`: GSM-7 or UCS-2, and in how many parts). Reads only.
 */
export async function previewPayRequestText(
  ctx: Pick<AppContext, 'config' | 'db'>,
  merchantId: string,
  input: { amountCents: number; memo?: string | undefined },
): Promise<{ body: string; encoding: SmsEncoding; segments: number; characters: number }> {
  const merchant = await getMerchant(ctx.db, merchantId);
  const payLink = `${ctx.config.baseUrl}/pay/${newId('payRequest')}`;
  const { body } = await composeMessage(ctx.db, merchant, 'pay_request_sms', payRequestTextValues(merchant, input.amountCents, input.memo, payLink));
  const { encoding, segments } = smsSegments(body);
  return { body, encoding, segments, characters: [...body].length };
}

/** What a new pay request charges, as the workflow settled it: a free amount, priced catalog lines, or an order's balance. */
export type PayRequestAmount =
  | { amountCents: number; lineItems?: undefined; orderId?: undefined }
  | { amountCents: number; lineItems: OrderLine[]; orderId?: undefined }
  | { amountCents: number; orderId: string; lineItems?: undefined };

/**
 * Creates a Text-to-Pay link in the mutation `m`: the record for `amount`
 * (priced by the caller: {@link pricePayRequestLines}, or an order's balance due), its SMS (`ctx.sms`, in the same
 * transaction) and the audit row `pay_request.created`. The link expires {@link PAY_REQUEST_TTL_MS} after `m.now`.
 */
export async function createPayRequest(
  ctx: Pick<AppContext, 'config' | 'sms'>,
  m: Mutation,
  merchant: Pick<MerchantRow, 'id' | 'name' | 'currency' | 'language'>,
  input: Pick<PayRequestCreate, 'phone' | 'memo'>,
  amount: PayRequestAmount,
): Promise<PayRequest> {
  const id = newId('payRequest');
  const record: PayRequest = {
    id,
    status: 'pending',
    amountCents: amount.amountCents,
    currency: merchant.currency,
    phone: input.phone,
    memo: input.memo ?? null,
    ...(amount.lineItems ? { lineItems: amount.lineItems } : {}),
    ...(amount.orderId ? { orderId: amount.orderId } : {}),
    url: `${ctx.config.baseUrl}/pay/${id}`,
    expiresAt: new Date(m.now.getTime() + PAY_REQUEST_TTL_MS).toISOString(),
    createdAt: m.now.toISOString(),
    paidAt: null,
  };
  await m.tx.query(
    `INSERT INTO pay_requests (id, merchant_id, status, amount_cents, currency, phone, memo, line_items, url, created_by, created_at, expires_at, order_id)
     VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)`,
    [
      id,
      merchant.id,
      record.amountCents,
      record.currency,
      record.phone,
      record.memo,
      amount.lineItems ? JSON.stringify(amount.lineItems) : null,
      record.url,
      m.actor,
      record.createdAt,
      record.expiresAt,
      amount.orderId ?? null,
    ],
  );
  // In the store's language, with its own template if it saved one (kernel/message-templates.ts); the link as made above.
  const { body: smsBody } = await composeMessage(
    m.tx,
    merchant,
    'pay_request_sms',
    payRequestTextValues(merchant, record.amountCents, record.memo, record.url),
  );
  const sms = await ctx.sms.send(
    { merchantId: merchant.id, to: record.phone, body: smsBody, kind: 'pay_request', subjectRef: `pay_request:${id}` },
    { tx: m.tx, now: m.now },
  );
  await m.audit({
    action: 'pay_request.created',
    entityType: 'pay_request',
    entityId: id,
    data: {
      amountCents: record.amountCents,
      currency: record.currency,
      phone: record.phone,
      memo: record.memo,
      smsId: sms.id,
      lineItemCount: amount.lineItems?.length ?? 0,
      orderId: amount.orderId ?? null,
    },
  });
  return record;
}

/**
 * One pay request in the API shape (status as of `now`), with its merchant. `merchantId` restricts the lookup to that
 * merchant (a request of another merchant is "not found").
 */
export async function getPayRequest(
  db: Queryable,
  id: string,
  merchantId?: string,
  now: Date = new Date(),
): Promise<(PayRequestRecord & { merchantId: string }) | undefined> {
  const { rows } = await db.query<PayRequestRow>('SELECT * FROM pay_requests WHERE id = $1', [id]);
  const row = rows[0];
  if (!row || (merchantId && row.merchant_id !== merchantId)) return undefined;
  return { ...toRecord(row, now), merchantId: row.merchant_id };
}

/* ───────────────────────────── life cycle ───────────────────────────── */

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
    where +=
      q.status === 'pending'
        ? ` AND status = 'pending' AND expires_at > ${at}`
        : ` AND (status = 'expired' OR (status = 'pending' AND expires_at <= ${at}))`;
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
  const { rows } = await db.query<PayRequestRow>(
    `SELECT * FROM pay_requests WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => toRecord(r, now)), nextCursor };
}

/**
 * Cancels a pending pay request (`pending → canceled`); its link then shows "canceled".
 * @throws ProblemError 404; 409 naming `currentState` when it is paid, expired or already canceled.
 */
export async function cancelPayRequest(ctx: AppContext, principal: Principal, id: string, input: { reason?: string }): Promise<PayRequestRecord> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const row = await lockedRow(m.tx, m.merchantId, id);
    guardPayRequest(id, effectivePayRequestStatus(row.status, row.expires_at, m.now), 'canceled', 'cancel');
    const { rows } = await m.tx.query<PayRequestRow>(
      `UPDATE pay_requests SET status = 'canceled', canceled_at = $2, cancel_reason = $3 WHERE id = $1 RETURNING *`,
      [id, m.now.toISOString(), input.reason ?? null],
    );
    await m.audit({ action: 'pay_request.canceled', entityType: 'pay_request', entityId: id, data: { reason: input.reason ?? null } });
    return toRecord(rows[0]!, m.now);
  });
}

/** Invoice pay links stay valid 30 days past the due date, and at least the default 7 days from now. */
export function invoiceLinkExpiry(dueDate: string, now: Date): Date {
  const afterDue = new Date(`${dueDate}T00:00:00.000Z`).getTime() + 31 * 24 * 3600 * 1000;
  return new Date(Math.max(afterDue, now.getTime() + PAY_REQUEST_TTL_MS));
}

/**
 * Writes the pay link of an invoice (a pay request with `invoiceId`, for the invoice's balance due in minor units) in
 * the mutation, with its audit row. No message is sent here: the invoice's send does that.
 */
export async function insertInvoicePayLink(
  m: Mutation,
  config: Pick<AppContext['config'], 'baseUrl'>,
  link: { invoiceId: string; invoiceNumber: string; amountCents: number; currency: string; phone: string | null; dueDate: string },
): Promise<PayRequestRecord> {
  const id = newId('payRequest');
  const url = `${config.baseUrl}/pay/${id}`;
  const expiresAt = invoiceLinkExpiry(link.dueDate, m.now);
  const { rows } = await m.tx.query<PayRequestRow>(
    `INSERT INTO pay_requests (id, merchant_id, status, amount_cents, currency, phone, memo, line_items, url, created_by, created_at, expires_at, invoice_id)
     VALUES ($1, $2, 'pending', $3, $4, $5, $6, NULL, $7, $8, $9, $10, $11) RETURNING *`,
    [
      id,
      m.merchantId,
      link.amountCents,
      link.currency,
      link.phone,
      `Invoice ${link.invoiceNumber}`,
      url,
      m.actor,
      m.now.toISOString(),
      expiresAt.toISOString(),
      link.invoiceId,
    ],
  );
  await m.audit({
    action: 'pay_request.created',
    entityType: 'pay_request',
    entityId: id,
    data: { amountCents: link.amountCents, currency: link.currency, invoiceId: link.invoiceId },
  });
  return toRecord(rows[0]!, m.now);
}

/** The invoice's pending, unexpired pay link, if any. */
export async function pendingInvoiceLink(tx: Queryable, invoiceId: string, now: Date): Promise<PayRequestRecord | undefined> {
  const { rows } = await tx.query<PayRequestRow>(
    `SELECT * FROM pay_requests WHERE invoice_id = $1 AND status = 'pending' AND expires_at > $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [invoiceId, now.toISOString()],
  );
  return rows[0] ? toRecord(rows[0], now) : undefined;
}

/* ───────────────────────────── paying on the pay page ───────────────────────────── */

/** A pay request about to be paid: what it charges (minor units) and what it pays for (an order, an invoice, or goods). */
export interface PayableRequest {
  id: string;
  amountCents: number;
  currency: string;
  memo: string | null;
  lineItems: OrderLine[] | null;
  orderId: string | null;
  invoiceId: string | null;
}

/**
 * Locks the pay request in the mutation (row lock, under the merchant's lock) and checks it can be paid now.
 * @throws ProblemError 404; 409 naming `currentState` when it is not pending (paid, canceled, expired).
 */
export async function lockPayableRequest(m: Mutation, id: string): Promise<PayableRequest> {
  const row = await lockedRow(m.tx, m.merchantId, id);
  guardPayRequest(id, effectivePayRequestStatus(row.status, row.expires_at, m.now), 'paid', 'pay');
  return {
    id,
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    memo: row.memo,
    lineItems: row.line_items,
    orderId: row.order_id,
    invoiceId: row.invoice_id,
  };
}

/**
 * Keeps a declined pay-page attempt in the audit trail (`pay_request.payment_declined`: method, amount, code), so a
 * store answering "my card was declined" can look it up. Returns the 402 to answer (naming `token`).
 */
export async function recordDeclinedPayPageAttempt(
  m: Mutation,
  request: PayableRequest,
  attempt: { method: string; code: string; message: string },
): Promise<ProblemError> {
  await m.audit({
    action: 'pay_request.payment_declined',
    entityType: 'pay_request',
    entityId: request.id,
    data: { method: attempt.method, amountCents: request.amountCents, declineCode: attempt.code },
  });
  return new ProblemError(402, attempt.code, `${attempt.message} Nothing was charged.`, [{ path: 'token', message: `declined: ${attempt.code}` }]);
}

/**
 * Posts the sale of a free-amount or catalog-lines pay request (Dr the rail's clearing `accountCode`, Cr revenue and
 * tax: core buildPayRequestSaleJournal) in the mutation. Returns the journal transaction id.
 */
export async function postPayRequestSale(m: Mutation, request: PayableRequest, accountCode: string): Promise<string> {
  const jt = buildPayRequestSaleJournal({
    id: newId('journalTransaction'),
    payRequestId: request.id,
    currency: request.currency,
    amountCents: request.amountCents,
    accountCode,
    occurredAt: m.now.toISOString(),
    memo: request.memo,
    ...(request.lineItems ? { lineItems: request.lineItems } : {}),
  });
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  return jt.id;
}

/**
 * Marks the pay request `paid` with its payment (method, rail, brand, last four, processor reference, journal
 * transaction) and writes the audit row `pay_request.paid`. Returns the request as the API shows it.
 */
export async function markPayRequestPaid(
  m: Mutation,
  request: PayableRequest,
  payment: NonNullable<PayRequestRecord['payment']>,
): Promise<PayRequestRecord> {
  const { rows } = await m.tx.query<PayRequestRow>(
    `UPDATE pay_requests SET status = 'paid', paid_at = $2, payment = $3::jsonb WHERE id = $1 RETURNING *`,
    [request.id, m.now.toISOString(), JSON.stringify(payment)],
  );
  await m.audit({
    action: 'pay_request.paid',
    entityType: 'pay_request',
    entityId: request.id,
    data: { amountCents: request.amountCents, ...payment, invoiceId: request.invoiceId, orderId: request.orderId },
  });
  return toRecord(rows[0]!, m.now);
}

/** Payment methods as a receipt names them, per store language. */
const RECEIPT_METHOD: Record<StoreLanguage, Record<string, string>> = {
  en: { card: 'Card', apple_pay: 'Apple Pay', google_pay: 'Google Pay', bank_transfer: 'Bank transfer' },
  es: { card: 'Tarjeta', apple_pay: 'Apple Pay', google_pay: 'Google Pay', bank_transfer: 'Transferencia bancaria' },
  fr: { card: 'Carte', apple_pay: 'Apple Pay', google_pay: 'Google Pay', bank_transfer: 'Virement bancaire' },
};

/** The words of a pay request's receipt, per store language (English as the server always wrote it). */
const RECEIPT_WORDS: Record<StoreLanguage, { payment: string; tax: string; total: string; paidBy: string; thanks: string }> = {
  en: { payment: 'Payment', tax: 'Tax', total: 'Total', paidBy: 'Paid by', thanks: 'Thank you!' },
  es: { payment: 'Pago', tax: 'Impuesto', total: 'Total', paidBy: 'Pagado con', thanks: '¡Gracias!' },
  fr: { payment: 'Paiement', tax: 'Taxe', total: 'Total', paidBy: 'Payé par', thanks: 'Merci !' },
};

/** The Intl locale of a receipt's date in each store language (`en` keeps the `en-US` it always used). */
const RECEIPT_DATE_LOCALE: Record<StoreLanguage, string> = { en: 'en-US', es: 'es', fr: 'fr' };

/**
 * The plain-text receipt of a paid pay request, in the store's language (`merchant.language`, default English): the
 * store, the request, when it was paid (the store's time zone), its lines and tax when it carries catalog lines, the
 * total paid and how (brand and last four, or the account's last four — never more of a number); amounts formatted
 * for the language and currency ({@link formatStoreMoney}). Pure.
 */
export function payRequestReceiptText(
  merchant: Pick<MerchantRow, 'name' | 'time_zone'> & { language?: StoreLanguage },
  request: PayableRequest,
  payment: NonNullable<PayRequestRecord['payment']>,
  paidAt: Date,
): string {
  const language = merchant.language ?? 'en';
  const words = RECEIPT_WORDS[language];
  const money = (c: number) => formatStoreMoney(c, request.currency, language).replace(/\u00a0|\u202f/g, ' ');
  const row = (left: string, right: string) => `${left}${' '.repeat(Math.max(1, 42 - left.length - right.length))}${right}`;
  const when = new Intl.DateTimeFormat(RECEIPT_DATE_LOCALE[language], {
    timeZone: merchant.time_zone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(paidAt);
  const lines = request.lineItems ?? [];
  const tax = lines.reduce((a, l) => a + l.taxCents, 0);
  const method = RECEIPT_METHOD[language][payment.method] ?? payment.method;
  const how =
    payment.brand && payment.last4
      ? `${method} (${payment.brand} •••• ${payment.last4})`
      : payment.last4
        ? `${method} (•••• ${payment.last4})`
        : method;
  return [
    merchant.name,
    `${words.payment} ${request.id}`,
    when,
    ...(request.memo ? [request.memo] : []),
    '',
    ...lines.map((l) => row(`${l.quantity} × ${l.name}`, money(l.grossCents))),
    ...(tax > 0 ? [row(words.tax, money(tax))] : []),
    row(words.total, money(request.amountCents)),
    row(`${words.paidBy} ${how}`, money(request.amountCents)),
    '',
    words.thanks,
  ].join('\n');
}

/**
 * E-mails the receipt of a pay request just paid in mutation `m` to `to` (the address the customer gave on the pay
 * page), composed from the store's `pay_request_receipt_email` template in its language (kernel/message-templates.ts;
 * the receipt itself in that language too): through the e-mail outbox in the payment's own transaction, so it exists
 * exactly when the payment does and once per payment (the request is paid once), and audited
 * (`pay_request.receipt_sent`). Returns the message id.
 */
export async function emailPayRequestReceipt(
  ctx: Pick<AppContext, 'email'>,
  m: Mutation,
  merchant: Pick<MerchantRow, 'id' | 'name' | 'time_zone' | 'language'>,
  request: PayableRequest,
  payment: NonNullable<PayRequestRecord['payment']>,
  to: string,
): Promise<string> {
  const { subject, body } = await composeMessage(m.tx, merchant, 'pay_request_receipt_email', {
    store: merchant.name,
    amount: formatStoreMoney(request.amountCents, request.currency, merchant.language),
    memo: request.memo ?? '',
    receipt: payRequestReceiptText(merchant, request, payment, m.now),
  });
  const { id } = await ctx.email.send(
    {
      merchantId: m.merchantId,
      to,
      subject: subject ?? '',
      body,
      kind: 'receipt',
      subjectRef: `pay_request:${request.id}`,
    },
    { tx: m.tx, now: m.now },
  );
  await m.audit({
    action: 'pay_request.receipt_sent',
    entityType: 'pay_request',
    entityId: request.id,
    data: { channel: 'email', to, messageId: id },
  });
  return id;
}

/**
 * The expiry job: stores `expired` on every pending request past its expiry, with an audit row each
 * (actor `system`), one mutation per merchant at `now`. Reads already show them expired; this makes the stored state
 * agree. Returns how many it expired.
 */
export async function expirePayRequests(app: Pick<AppContext, 'db' | 'feed'>, now: Date): Promise<number> {
  const due = await app.db.query<{ merchant_id: string }>(
    `SELECT DISTINCT merchant_id FROM pay_requests WHERE status = 'pending' AND expires_at <= $1`,
    [now.toISOString()],
  );
  let count = 0;
  for (const { merchant_id: merchantId } of due.rows) {
    count += await mutation({ db: app.db, feed: app.feed, clock: () => now }, { merchantId, actor: 'system' }, async (m) => {
      const { rows } = await m.tx.query<{ id: string; expires_at: Date }>(
        `UPDATE pay_requests SET status = 'expired' WHERE merchant_id = $1 AND status = 'pending' AND expires_at <= $2 RETURNING id, expires_at`,
        [merchantId, now.toISOString()],
      );
      for (const r of rows)
        await m.audit({
          action: 'pay_request.expired',
          entityType: 'pay_request',
          entityId: r.id,
          data: { expiresAt: new Date(r.expires_at).toISOString() },
        });
      return rows.length;
    });
  }
  return count;
}
