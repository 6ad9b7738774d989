/**
 * Invoices (staff only): drafts priced on the server (catalog references, or custom lines with a
 * description and an amount), sending by SMS and/or e-mail with a pay link, payments through the hosted pay page or
 * recorded at the register / through the API (partial payments allowed), overdue by due date, void.
 *
 * Ledger (docs/decisions/0007-invoices-and-text-to-pay.md): sending a draft ISSUES the invoice — Dr `customer_receivables` total, Cr
 * revenue and `sales_tax_payable` (id `jtx_<invoice ULID>`); every payment — Dr the rail's account, Cr
 * `customer_receivables`; voiding an issued invoice posts the reversal of its issue transaction. Each in the same
 * database transaction as the invoice change and its audit row.
 *
 * Pay links: an issued invoice with a balance has exactly one pending pay request (`invoiceId`) for the whole balance
 * due. A payment recorded here replaces it with a link for the new balance (the old one is canceled with
 * `supersededBy`, and the pay page sends the customer on to the new one); payment in full or void cancels it.
 * Those links, the goods' stock and the card rail are other modules': the workflows (workflows/invoice-*.ts) sequence them.
 */
import {
  assertInvoiceTransition,
  IllegalTransitionError,
  buildInvoiceIssueJournal,
  buildInvoicePaymentJournal,
  buildInvoiceVoidJournal,
  effectiveInvoiceStatus,
  formatInvoiceNumber,
  formatStoreMoney,
  type MessagePlaceholder,
  type StoreLanguage,
  InvoicePricingError,
  MAX_AMOUNT_CENTS,
  newId,
  priceInvoiceLines,
  PricingError,
  utcDate,
  type CatalogSnapshot,
  type Invoice,
  type InvoiceCreate,
  type InvoiceCustomLineInput,
  type InvoiceLine,
  type InvoicePayment,
  type InvoicePaymentCreate,
  type InvoiceStatus,
  type InvoiceTotals,
  type InvoiceUpdate,
  type LineItemInput,
  type PayRequestRecord,
  type TaxLine,
  buildInvoiceRefundJournal,
  invoiceRefundTaxCents,
  type InvoiceRefund,
  type InvoiceRefundCreate,
} from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError, StateConflictError, type Problem } from '../../platform/http/problem.ts';
import { getJournalTransaction } from '../../kernel/ledger.ts';
import { getMerchant, type MerchantRow } from '../../kernel/merchant.ts';
import { composeMessage } from '../../kernel/message-templates.ts';
import { renderInvoicePdf } from './pdf.ts';
import { actorOf, mutation, type Mutation } from '../../kernel/mutation.ts';

/** Reads the merchant's live catalog as a pricing snapshot (the catalog module's `loadCatalog`, handed in by workflows). */
export type CatalogLoader = (db: Queryable, merchantId: string) => Promise<CatalogSnapshot>;

/* ───────────────────────────── rows and shapes ───────────────────────────── */

/** A stored invoice row, with its pending pay link (`link_id`, `link_url`) when read through `selectInvoice`. */
export interface InvoiceRow {
  id: string;
  merchant_id: string;
  number_seq: number;
  status: InvoiceStatus;
  customer_id: string;
  bill_to: Invoice['billTo'];
  currency: string;
  lines: InvoiceLine[];
  tax_lines: TaxLine[];
  subtotal_cents: number | string;
  tax_cents: number | string;
  total_cents: number | string;
  paid_cents: number | string;
  refunded_cents?: number | string;
  due_date: string | Date;
  memo: string | null;
  series_id: string | null;
  occurrence_date: string | Date | null;
  channels: string[] | null;
  issue_jtx_id: string | null;
  sent_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
  void_reason: string | null;
  created_at: Date;
  updated_at: Date;
  link_id?: string | null;
  link_url?: string | null;
}

interface PaymentRow {
  id: string;
  invoice_id: string;
  amount_cents: number | string;
  method: InvoicePayment['method'];
  rail: string;
  channel: InvoicePayment['channel'];
  account_code: string;
  card_brand: string | null;
  last4: string | null;
  reference: string | null;
  pay_request_id: string | null;
  jtx_id: string | null;
  state: InvoicePayment['state'];
  decline_code: string | null;
  routing: InvoicePayment['routing'];
  fee_cents: number | string;
  created_at: Date;
}

interface RefundRow {
  id: string;
  invoice_id: string;
  amount_cents: number | string;
  tax_cents: number | string;
  allocations: InvoiceRefund['allocations'];
  reason: string | null;
  jtx_id: string;
  created_by: string;
  created_at: Date;
}

const toRefund = (r: RefundRow): InvoiceRefund => ({
  id: r.id,
  invoiceId: r.invoice_id,
  amountCents: Number(r.amount_cents),
  taxCents: Number(r.tax_cents),
  allocations: r.allocations.map((a) => ({ paymentId: a.paymentId, amountCents: Number(a.amountCents), accountCode: a.accountCode })),
  reason: r.reason,
  journalTransactionId: r.jtx_id,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at).toISOString(),
});

/** `DATE` columns come back as strings from node-postgres' text mode or as Date objects: normalise to YYYY-MM-DD. */
export function dateOnly(value: string | Date): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value).slice(0, 10);
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

function toPayment(r: PaymentRow, refundedCents = 0): InvoicePayment {
  return {
    id: r.id,
    invoiceId: r.invoice_id,
    amountCents: Number(r.amount_cents),
    method: r.method,
    rail: r.rail,
    channel: r.channel,
    accountCode: r.account_code,
    cardBrand: r.card_brand,
    last4: r.last4,
    reference: r.reference,
    payRequestId: r.pay_request_id,
    state: r.state,
    declineCode: r.decline_code,
    routing: r.routing ?? null,
    feeCents: Number(r.fee_cents ?? 0),
    refundedCents,
    journalTransactionId: r.jtx_id,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

function toInvoice(row: InvoiceRow, today: string, payments?: InvoicePayment[], refunds?: InvoiceRefund[]): Invoice {
  const total = Number(row.total_cents);
  const paid = Number(row.paid_cents);
  const dueDate = dateOnly(row.due_date);
  const open = row.status !== 'void' && row.status !== 'draft';
  return {
    id: row.id,
    number: formatInvoiceNumber(Number(row.number_seq)),
    status: effectiveInvoiceStatus(row.status, dueDate, today),
    customerId: row.customer_id,
    billTo: row.bill_to,
    currency: row.currency,
    lines: row.lines,
    taxLines: row.tax_lines,
    subtotalCents: Number(row.subtotal_cents),
    taxCents: Number(row.tax_cents),
    totalCents: total,
    paidCents: paid,
    balanceDueCents: row.status === 'void' ? 0 : total - paid,
    dueDate,
    memo: row.memo,
    seriesId: row.series_id,
    occurrenceDate: row.occurrence_date ? dateOnly(row.occurrence_date) : null,
    payRequestId: open ? (row.link_id ?? null) : null,
    payUrl: open ? (row.link_url ?? null) : null,
    issueJournalTransactionId: row.issue_jtx_id,
    sentAt: iso(row.sent_at),
    paidAt: iso(row.paid_at),
    voidedAt: iso(row.voided_at),
    voidReason: row.void_reason,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    refundedCents: Number(row.refunded_cents ?? 0),
    ...(payments ? { payments } : {}),
    ...(refunds ? { refunds } : {}),
  };
}

/** Invoice columns plus its pending, unexpired pay link (`$now` is the parameter named by `nowParam`). */
const selectInvoice = (nowParam: string) => `SELECT i.*, l.id AS link_id, l.url AS link_url FROM invoices i
  LEFT JOIN LATERAL (SELECT id, url FROM pay_requests p WHERE p.invoice_id = i.id AND p.status = 'pending' AND p.expires_at > ${nowParam}::timestamptz
                     ORDER BY p.created_at DESC, p.id DESC LIMIT 1) l ON true`;

async function invoiceRow(db: Queryable, merchantId: string, id: string, now: Date, forUpdate = false): Promise<InvoiceRow> {
  if (forUpdate) await db.query('SELECT id FROM invoices WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [id, merchantId]);
  const { rows } = await db.query<InvoiceRow>(`${selectInvoice('$3')} WHERE i.id = $1 AND i.merchant_id = $2`, [id, merchantId, now.toISOString()]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Invoice ${id} does not exist.`);
  return rows[0];
}

async function refundsOf(db: Queryable, invoiceId: string): Promise<InvoiceRefund[]> {
  const { rows } = await db.query<RefundRow>('SELECT * FROM invoice_refunds WHERE invoice_id = $1 ORDER BY created_at, id', [invoiceId]);
  return rows.map(toRefund);
}

/** The invoice's payments (captured and declined, oldest first), each with what refunds gave back of it. */
async function paymentsOf(db: Queryable, invoiceId: string, refunds: readonly InvoiceRefund[]): Promise<InvoicePayment[]> {
  const { rows } = await db.query<PaymentRow>('SELECT * FROM invoice_payments WHERE invoice_id = $1 ORDER BY created_at, id', [invoiceId]);
  const refunded = new Map<string, number>();
  for (const a of refunds.flatMap((r) => r.allocations)) refunded.set(a.paymentId, (refunded.get(a.paymentId) ?? 0) + a.amountCents);
  return rows.map((r) => toPayment(r, refunded.get(r.id) ?? 0));
}

/** An invoice with its payments and refunds, as of the context's clock. @throws ProblemError 404 when not the merchant's. */
export async function getInvoice(ctx: Pick<AppContext, 'db' | 'clock'>, merchantId: string, id: string): Promise<Invoice> {
  const now = ctx.clock();
  const row = await invoiceRow(ctx.db, merchantId, id, now);
  const refunds = await refundsOf(ctx.db, id);
  return toInvoice(row, utcDate(now), await paymentsOf(ctx.db, id, refunds), refunds);
}

/** The merchant's invoices, newest first; `status` is the state now (overdue computed from the due date). */
export async function listInvoices(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  merchantId: string,
  q: { limit: number; cursor?: string; status?: InvoiceStatus; customerId?: string; seriesId?: string },
): Promise<{ data: Invoice[]; nextCursor: string | null }> {
  const now = ctx.clock();
  const today = utcDate(now);
  const params: unknown[] = [merchantId, now.toISOString()];
  let where = 'i.merchant_id = $1';
  switch (q.status) {
    case undefined:
      break;
    case 'overdue':
      params.push(today);
      where += ` AND (i.status = 'overdue' OR (i.status IN ('sent', 'partially_paid') AND i.due_date < $${params.length}))`;
      break;
    case 'sent':
    case 'partially_paid':
      params.push(q.status, today);
      where += ` AND i.status = $${params.length - 1} AND i.due_date >= $${params.length}`;
      break;
    default:
      params.push(q.status);
      where += ` AND i.status = $${params.length}`;
  }
  if (q.customerId) {
    params.push(q.customerId);
    where += ` AND i.customer_id = $${params.length}`;
  }
  if (q.seriesId) {
    params.push(q.seriesId);
    where += ` AND i.series_id = $${params.length}`;
  }
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (i.created_at, i.id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await ctx.db.query<InvoiceRow>(
    `${selectInvoice('$2')} WHERE ${where} ORDER BY i.created_at DESC, i.id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => toInvoice(r, today)), nextCursor };
}

/* ───────────────────────────── helpers ───────────────────────────── */

function guardInvoice(id: string, from: InvoiceStatus, to: InvoiceStatus, action: string): void {
  try {
    assertInvoiceTransition(from, to, action);
  } catch (err) {
    if (err instanceof IllegalTransitionError) throw StateConflictError.fromTransition(err, id);
    throw err;
  }
}

/** The bill-to snapshot of a customer. @throws ProblemError 400 `unknown_customer` naming `customerId`. */
export async function billToOf(db: Queryable, merchantId: string, customerId: string): Promise<Invoice['billTo']> {
  const { rows } = await db.query<{ given_name: string | null; family_name: string | null; email: string | null; phone: string | null }>(
    'SELECT given_name, family_name, email, phone FROM customers WHERE id = $1 AND merchant_id = $2 AND deleted_at IS NULL',
    [customerId, merchantId],
  );
  const c = rows[0];
  if (!c)
    throw new ProblemError(400, 'unknown_customer', `Invalid customerId: customer ${customerId} does not exist.`, [
      { path: 'customerId', message: 'is not a customer of this store' },
    ]);
  const name = [c.given_name, c.family_name].filter(Boolean).join(' ') || null;
  return { customerId, name, email: c.email, phone: c.phone };
}

/**
 * Prices lines against `catalog` (the merchant's live catalog). @throws ProblemError 400 naming the line field, or
 * `amount_out_of_range` when the total is outside 1 … 99 999 999.
 */
export function priceLinesFor(
  catalog: CatalogSnapshot,
  lineItems: readonly LineItemInput[],
  customLines: readonly InvoiceCustomLineInput[],
): InvoiceTotals {
  let totals: InvoiceTotals;
  try {
    totals = priceInvoiceLines(lineItems, customLines, catalog, () => newId('orderLine'));
  } catch (err) {
    if (err instanceof PricingError || err instanceof InvoicePricingError) {
      const path = err.path.replace(/^lines(?=\.|$)/, 'lineItems');
      throw new ProblemError(400, err.code, `Invalid ${path}: ${err.message}`, [{ path, message: err.message }]);
    }
    throw err;
  }
  if (totals.totalCents < 1 || totals.totalCents > MAX_AMOUNT_CENTS) {
    throw new ProblemError(
      400,
      'amount_out_of_range',
      `Invalid lineItems: the invoice totals ${totals.totalCents} cents; an invoice is 1 … ${MAX_AMOUNT_CENTS}.`,
      [{ path: 'lineItems', message: `total ${totals.totalCents} is outside 1 … ${MAX_AMOUNT_CENTS}` }],
    );
  }
  return totals;
}

/** A new draft row in the mutation, with its audit row `invoice.created`. Returns the stored row (none when the series already has this occurrence). */
export async function insertDraft(
  m: Mutation,
  draft: {
    currency: string;
    billTo: Invoice['billTo'];
    totals: InvoiceTotals;
    dueDate: string;
    memo: string | null;
    seriesId?: string;
    occurrenceDate?: string;
  },
): Promise<InvoiceRow | undefined> {
  const id = newId('invoice');
  const seq = (
    await m.tx.query<{ n: number | string }>('SELECT COALESCE(MAX(number_seq), 0) + 1 AS n FROM invoices WHERE merchant_id = $1', [m.merchantId])
  ).rows[0]!;
  const { rows } = await m.tx.query<InvoiceRow>(
    `INSERT INTO invoices (id, merchant_id, number_seq, status, customer_id, bill_to, currency, lines, tax_lines, subtotal_cents, tax_cents, total_cents,
       due_date, memo, series_id, occurrence_date, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, 'draft', $4, $5::jsonb, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
     ON CONFLICT (series_id, occurrence_date) WHERE series_id IS NOT NULL DO NOTHING RETURNING *`,
    [
      id,
      m.merchantId,
      Number(seq.n),
      draft.billTo.customerId,
      JSON.stringify(draft.billTo),
      draft.currency,
      JSON.stringify(draft.totals.lines),
      JSON.stringify(draft.totals.taxLines),
      draft.totals.subtotalCents,
      draft.totals.taxCents,
      draft.totals.totalCents,
      draft.dueDate,
      draft.memo,
      draft.seriesId ?? null,
      draft.occurrenceDate ?? null,
      m.actor,
      m.now.toISOString(),
    ],
  );
  const row = rows[0];
  if (!row) return undefined;
  await m.audit({
    action: 'invoice.created',
    entityType: 'invoice',
    entityId: id,
    data: {
      number: formatInvoiceNumber(Number(seq.n)),
      customerId: draft.billTo.customerId,
      totalCents: draft.totals.totalCents,
      dueDate: draft.dueDate,
      seriesId: draft.seriesId ?? null,
      occurrenceDate: draft.occurrenceDate ?? null,
    },
  });
  return row;
}

/* ───────────────────────────── drafts ───────────────────────────── */

/**
 * Creates a draft invoice: customer, lines priced here against the catalog `catalogOf` reads (catalog references at
 * catalog prices; custom lines at their amount), due date, memo. Invoice, audit row in one mutation.
 * @throws ProblemError 400 naming the field (unknown customer, unpriceable line, total out of range).
 */
export async function createInvoice(ctx: AppContext, principal: Principal, input: InvoiceCreate, catalogOf: CatalogLoader): Promise<Invoice> {
  const merchant = await getMerchant(ctx.db, principal.merchantId);
  const billTo = await billToOf(ctx.db, merchant.id, input.customerId);
  const totals = priceLinesFor(await catalogOf(ctx.db, merchant.id), input.lineItems, input.customLines);
  return mutation(ctx, actorOf(principal), async (m) => {
    const row = (await insertDraft(m, { currency: merchant.currency, billTo, totals, dueDate: input.dueDate, memo: input.memo ?? null }))!;
    return toInvoice(row, utcDate(m.now), []);
  });
}

/**
 * Changes a draft: customer, lines (re-priced against the catalog `catalogOf` reads), due date, memo. Only drafts
 * change (an issued invoice is a ledger fact): 409 naming `currentState` otherwise.
 */
export async function updateInvoice(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: InvoiceUpdate,
  catalogOf: CatalogLoader,
): Promise<Invoice> {
  const now = ctx.clock();
  const merchantId = principal.merchantId;
  const current = await invoiceRow(ctx.db, merchantId, id, now);
  if (current.status !== 'draft') {
    const state = effectiveInvoiceStatus(current.status, dateOnly(current.due_date), utcDate(now));
    throw new StateConflictError('invoice', id, state, `Invoice ${id} is ${state}: only drafts can be edited.`);
  }
  const billTo = input.customerId ? await billToOf(ctx.db, merchantId, input.customerId) : current.bill_to;
  let totals: InvoiceTotals | undefined;
  if (input.lineItems || input.customLines) {
    // Lines not sent keep what the draft has: catalog lines by their references, custom lines by their amounts.
    const lineItems =
      input.lineItems ??
      current.lines
        .filter((l) => l.type === 'catalog')
        .map((l) => ({ catalogItemId: l.catalogItemId!, variationId: l.variationId!, modifierIds: l.modifierIds, quantity: l.quantity }));
    const customLines =
      input.customLines ??
      current.lines
        .filter((l) => l.type === 'custom')
        .map((l) => ({
          description: l.description,
          amountCents: l.unitPriceCents,
          quantity: l.quantity,
          kind: l.kind,
          taxRateIds: l.taxes.map((t) => t.taxRateId),
        }));
    if (lineItems.length + customLines.length === 0) {
      throw new ProblemError(400, 'validation_error', 'Invalid lineItems: an invoice needs at least one line.', [
        { path: 'lineItems', message: 'an invoice needs at least one line' },
      ]);
    }
    totals = priceLinesFor(await catalogOf(ctx.db, merchantId), lineItems, customLines);
  }
  await mutation(ctx, actorOf(principal), async (m) => {
    const locked = await invoiceRow(m.tx, merchantId, id, m.now, true);
    if (locked.status !== 'draft')
      throw new StateConflictError('invoice', id, locked.status, `Invoice ${id} is ${locked.status}: only drafts can be edited.`);
    await m.tx.query(
      `UPDATE invoices SET customer_id = $2, bill_to = $3::jsonb, lines = $4::jsonb, tax_lines = $5::jsonb, subtotal_cents = $6, tax_cents = $7, total_cents = $8,
         due_date = $9, memo = $10, updated_at = $11 WHERE id = $1`,
      [
        id,
        billTo.customerId,
        JSON.stringify(billTo),
        JSON.stringify(totals?.lines ?? locked.lines),
        JSON.stringify(totals?.taxLines ?? locked.tax_lines),
        totals?.subtotalCents ?? Number(locked.subtotal_cents),
        totals?.taxCents ?? Number(locked.tax_cents),
        totals?.totalCents ?? Number(locked.total_cents),
        input.dueDate ?? dateOnly(locked.due_date),
        input.memo === undefined ? locked.memo : input.memo,
        m.now.toISOString(),
      ],
    );
    await m.audit({ action: 'invoice.updated', entityType: 'invoice', entityId: id, data: { fields: Object.keys(input) } });
  });
  return getInvoice(ctx, merchantId, id);
}

/* ───────────────────────────── send ───────────────────────────── */

/** Which channels to use: those asked for (each must be reachable), else every channel the customer has. */
export function channelsFor(billTo: Invoice['billTo'], asked: readonly ('sms' | 'email')[] | undefined): ('sms' | 'email')[] {
  if (asked) {
    const unique = [...new Set(asked)];
    for (const [i, c] of unique.entries()) {
      if (c === 'sms' && !billTo.phone)
        throw new ProblemError(400, 'validation_error', `Invalid channels.${i}: the customer has no phone number.`, [
          { path: `channels.${i}`, message: 'the customer has no phone number' },
        ]);
      if (c === 'email' && !billTo.email)
        throw new ProblemError(400, 'validation_error', `Invalid channels.${i}: the customer has no e-mail address.`, [
          { path: `channels.${i}`, message: 'the customer has no e-mail address' },
        ]);
    }
    return unique;
  }
  const all: ('sms' | 'email')[] = [];
  if (billTo.phone) all.push('sms');
  if (billTo.email) all.push('email');
  if (all.length === 0)
    throw new ProblemError(400, 'validation_error', 'Invalid channels: the customer has neither a phone number nor an e-mail address.', [
      { path: 'channels', message: 'the customer cannot be reached' },
    ]);
  return all;
}

/**
 * The placeholders of an invoice's messages (core MESSAGE_KIND_SPECS `invoice_*`): amounts in the invoice's currency
 * and the store's language, the lines one a line, the pay link `url` as made (signed and expiring as always).
 */
function invoiceMessageValues(merchantName: string, language: StoreLanguage, inv: Invoice, url: string): Partial<Record<MessagePlaceholder, string>> {
  const money = (c: number) => formatStoreMoney(c, inv.currency, language);
  return {
    store: merchantName,
    invoiceNumber: inv.number,
    lines: inv.lines.map((l) => `  ${l.quantity} x ${l.description}  ${money(l.grossCents)}`).join('\n'),
    subtotal: money(inv.subtotalCents),
    tax: money(inv.taxCents),
    total: money(inv.totalCents),
    paid: inv.paidCents > 0 ? money(inv.paidCents) : '',
    balanceDue: money(inv.balanceDueCents),
    dueDate: inv.dueDate,
    memo: inv.memo ?? '',
    payLink: url,
  };
}

/** An invoice being sent (see {@link markInvoiceSent}): the invoice after the change and what the send is. */
export interface InvoiceSending {
  invoice: Invoice;
  /** True when this send issues a draft (receivable posted now; its goods leave stock now). */
  isIssue: boolean;
  issueJournalTransactionId: string | null;
  channels: ('sms' | 'email')[];
}

/**
 * First step of sending an invoice, in the mutation: locks it; a draft is ISSUED (draft → sent, the
 * receivable posted: Dr `customer_receivables`, Cr revenue and tax); an issued invoice with a balance (sent,
 * partially paid, overdue) is sent again as a reminder. Stores the channels. Stock and the pay link are the
 * workflow's (workflows/invoice-issue.ts); {@link deliverInvoice} sends.
 * @throws ProblemError 404; 409 naming `currentState` for paid or void invoices; 400 naming `channels` when the
 *   customer cannot be reached that way.
 */
export async function markInvoiceSent(m: Mutation, id: string, input: { channels?: ('sms' | 'email')[] }): Promise<InvoiceSending> {
  const now = m.now;
  const today = utcDate(now);
  const row = await invoiceRow(m.tx, m.merchantId, id, now, true);
  const status = effectiveInvoiceStatus(row.status, dateOnly(row.due_date), today);
  if (status === 'paid' || status === 'void') guardInvoice(id, status, 'sent', 'send');
  const channels = channelsFor(row.bill_to, input.channels);
  const isIssue = status === 'draft';
  let issueJtxId = row.issue_jtx_id;
  if (isIssue) {
    guardInvoice(id, status, 'sent', 'send');
    const jt = buildInvoiceIssueJournal(toInvoice(row, today), now.toISOString());
    await m.postJournalTransaction(jt);
    issueJtxId = jt.id;
  }
  m.changed('journal-transactions');
  await m.tx.query(
    `UPDATE invoices SET status = $2, sent_at = COALESCE(sent_at, $3), issue_jtx_id = $4, channels = $5, updated_at = $3 WHERE id = $1`,
    [id, isIssue ? 'sent' : row.status, now.toISOString(), issueJtxId, channels],
  );
  const fresh = await invoiceRow(m.tx, m.merchantId, id, now);
  return { invoice: toInvoice(fresh, today), isIssue, issueJournalTransactionId: issueJtxId, channels };
}

/** The `attachment_kind` of an invoice e-mail's PDF (rendered by {@link invoicePdfAttachment} at send time). */
export const INVOICE_PDF_ATTACHMENT = 'invoice_pdf';

/**
 * The PDF of invoice `invoiceId` of merchant `merchantId` as an e-mail attachment (`<number>.pdf`,
 * `application/pdf`), drawn now by renderInvoicePdf: the delivery worker's renderer of {@link INVOICE_PDF_ATTACHMENT}.
 * @throws ProblemError 404 when the invoice or the merchant does not exist.
 */
export async function invoicePdfAttachment(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  merchantId: string,
  invoiceId: string,
): Promise<{ filename: string; contentType: string; content: Uint8Array }> {
  const invoice = await getInvoice(ctx, merchantId, invoiceId);
  const merchant = await getMerchant(ctx.db, merchantId);
  return { filename: `${invoice.number}.pdf`, contentType: 'application/pdf', content: await renderInvoicePdf(invoice, merchant) };
}

/**
 * Last step of sending an invoice: the SMS and/or e-mail with the pay link `link` (outboxes, same transaction) and
 * the audit row `invoice.sent` (an issue) or `invoice.reminder_sent`.
 */
export async function deliverInvoice(
  ctx: Pick<AppContext, 'sms' | 'email'>,
  m: Mutation,
  merchant: Pick<MerchantRow, 'id' | 'name' | 'language'>,
  sending: InvoiceSending,
  link: Pick<PayRequestRecord, 'id' | 'url'>,
): Promise<void> {
  const { invoice: view, channels, isIssue } = sending;
  const sent: Record<string, string> = {};
  // In the store's language, with its own templates if it saved them (kernel/message-templates.ts).
  const values = invoiceMessageValues(merchant.name, merchant.language, view, link.url);
  if (channels.includes('sms') && view.billTo.phone) {
    const { body } = await composeMessage(m.tx, merchant, isIssue ? 'invoice_sms' : 'invoice_reminder_sms', values);
    sent.smsId = (
      await ctx.sms.send(
        { merchantId: merchant.id, to: view.billTo.phone, body, kind: isIssue ? 'invoice' : 'invoice_reminder', subjectRef: `invoice:${view.id}` },
        { tx: m.tx, now: m.now },
      )
    ).id;
  }
  if (channels.includes('email') && view.billTo.email) {
    const email = await composeMessage(m.tx, merchant, isIssue ? 'invoice_email' : 'invoice_reminder_email', values);
    sent.emailId = (
      await ctx.email.send(
        {
          merchantId: merchant.id,
          to: view.billTo.email,
          subject: email.subject ?? '',
          body: email.body,
          kind: 'invoice',
          // The PDF is drawn when the message is sent (the delivery worker asks invoicePdfAttachment), not stored.
          attachment: { kind: INVOICE_PDF_ATTACHMENT, ref: view.id },
          subjectRef: `invoice:${view.id}`,
        },
        { tx: m.tx, now: m.now },
      )
    ).id;
  }
  await m.audit({
    action: isIssue ? 'invoice.sent' : 'invoice.reminder_sent',
    entityType: 'invoice',
    entityId: view.id,
    data: {
      channels,
      payRequestId: link.id,
      ...sent,
      ...(isIssue ? { journalTransactionId: sending.issueJournalTransactionId, totalCents: view.totalCents } : {}),
    },
  });
}

/* ───────────────────────────── payments ───────────────────────────── */

/** A payment to apply to an invoice in a mutation (see {@link applyInvoicePayment}). */
export interface InvoicePaymentInput {
  invoiceId: string;
  amountCents: number;
  method: InvoicePayment['method'];
  rail: string;
  /** Where the money sits: `card_clearing:<rail>`, `cash_drawer:R<n>`, `check_clearing`, `bank`, … */
  accountCode: string;
  channel: InvoicePayment['channel'];
  cardBrand?: string | null;
  last4?: string | null;
  reference?: string | null;
  /** The pay link it came through (pay page payments). */
  payRequestId?: string | null;
  registerId?: string | null;
  /** The routing decision of a card payment taken through the API (kept on the payment). */
  routing?: InvoicePayment['routing'];
  /** The processing fee posted for it (minor units), kept on the payment. */
  feeCents?: number;
}

/** What {@link applyInvoicePayment} recorded, and what the invoice's pay links must now be (balance in minor units). */
export interface AppliedInvoicePayment {
  payment: InvoicePayment;
  journalTransactionId: string;
  paidInFull: boolean;
  /** The invoice's balance due after this payment, its number, currency, customer phone and due date (for a new link). */
  balanceDueCents: number;
  invoiceNumber: string;
  currency: string;
  phone: string | null;
  dueDate: string;
}

/**
 * A payment of the invoice was returned by the bank at settlement (its reversal already posted: the receivable is owed
 * again), in the mutation: the invoice's paid amount goes down by `amountCents` and it is open again — `partially_paid`
 * while something is still paid, else `sent` (either reads `overdue` past its due date) — with `paid_at` cleared and an
 * audit `invoice.payment_returned`. This undoes a payment rather than moving the invoice state machine forward (see
 * docs/decisions/0052-balance-due-and-card-settlement.md). A void or draft invoice is left as it is (audited as skipped).
 * @returns the invoice's balance due after it (minor units), or null when it was left as it is
 */
export async function reopenInvoiceBalance(
  m: Mutation,
  invoiceId: string,
  returned: { amountCents: number; payRequestId: string; code: string; journalTransactionId: string },
): Promise<number | null> {
  const row = await invoiceRow(m.tx, m.merchantId, invoiceId, m.now, true);
  const data = {
    payRequestId: returned.payRequestId,
    amountCents: returned.amountCents,
    code: returned.code,
    journalTransactionId: returned.journalTransactionId,
  };
  if (row.status !== 'paid' && row.status !== 'partially_paid' && row.status !== 'sent' && row.status !== 'overdue') {
    await m.audit({ action: 'invoice.payment_return_skipped', entityType: 'invoice', entityId: invoiceId, data: { ...data, status: row.status } });
    return null;
  }
  const paidCents = Math.max(0, Number(row.paid_cents) - returned.amountCents);
  const to: InvoiceStatus = paidCents > 0 ? 'partially_paid' : 'sent';
  await m.tx.query(`UPDATE invoices SET paid_cents = $2, status = $3, paid_at = NULL, updated_at = $4 WHERE id = $1`, [
    invoiceId,
    paidCents,
    to,
    m.now.toISOString(),
  ]);
  const balance = Number(row.total_cents) - paidCents;
  await m.audit({
    action: 'invoice.payment_returned',
    entityType: 'invoice',
    entityId: invoiceId,
    data: { ...data, from: row.status, to, paidCents, balanceDueCents: balance },
  });
  return balance;
}

/**
 * Applies a payment to an issued invoice in the mutation: the payment record, its journal transaction (Dr
 * `accountCode`, Cr `customer_receivables`), the invoice's paid amount and state (paid in full → `paid`; else
 * `partially_paid`, or `overdue` past the due date), audit `invoice.payment_recorded`. The pay links are the
 * workflow's (workflows/invoice-payment.ts).
 * @throws ProblemError 404; 409 naming `currentState` when the invoice is a draft, paid or void; 400 `overpayment`
 *   naming `amountCents` when it exceeds the balance due.
 */
export async function applyInvoicePayment(m: Mutation, p: InvoicePaymentInput): Promise<AppliedInvoicePayment> {
  const today = utcDate(m.now);
  const row = await invoiceRow(m.tx, m.merchantId, p.invoiceId, m.now, true);
  const status = effectiveInvoiceStatus(row.status, dateOnly(row.due_date), today);
  const balance = Number(row.total_cents) - Number(row.paid_cents);
  const paidInFull = p.amountCents >= balance;
  const target: InvoiceStatus = paidInFull ? 'paid' : status === 'overdue' ? 'overdue' : 'partially_paid';
  guardInvoice(p.invoiceId, status, target, 'pay');
  if (p.amountCents > balance) {
    throw new ProblemError(400, 'overpayment', `Invalid amountCents: ${p.amountCents} is more than the balance due (${balance}).`, [
      { path: 'amountCents', message: `must be at most the balance due, ${balance}` },
    ]);
  }
  const number = formatInvoiceNumber(Number(row.number_seq));
  const paymentId = newId('invoicePayment');
  const jt = buildInvoicePaymentJournal({
    id: `jtx_${paymentId.slice(4)}`,
    invoiceId: p.invoiceId,
    invoiceNumber: number,
    currency: row.currency,
    amountCents: p.amountCents,
    accountCode: p.accountCode,
    registerId: p.registerId ?? null,
    occurredAt: m.now.toISOString(),
    via: p.channel === 'pay_page' ? `pay link ${p.payRequestId}` : p.method,
  });
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  const { rows } = await m.tx.query<PaymentRow>(
    `INSERT INTO invoice_payments (id, merchant_id, invoice_id, amount_cents, method, rail, channel, account_code, card_brand, last4, reference, pay_request_id, register_id, jtx_id, created_by, created_at, routing, fee_cents)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18) RETURNING *`,
    [
      paymentId,
      m.merchantId,
      p.invoiceId,
      p.amountCents,
      p.method,
      p.rail,
      p.channel,
      p.accountCode,
      p.cardBrand ?? null,
      p.last4 ?? null,
      p.reference ?? null,
      p.payRequestId ?? null,
      p.registerId ?? null,
      jt.id,
      m.actor,
      m.now.toISOString(),
      p.routing ? JSON.stringify(p.routing) : null,
      p.feeCents ?? 0,
    ],
  );
  const paidCents = Number(row.paid_cents) + p.amountCents;
  await m.tx.query(`UPDATE invoices SET paid_cents = $2, status = $3, paid_at = $4, updated_at = $5 WHERE id = $1`, [
    p.invoiceId,
    paidCents,
    target,
    paidInFull ? m.now.toISOString() : null,
    m.now.toISOString(),
  ]);
  await m.audit({
    action: 'invoice.payment_recorded',
    entityType: 'invoice',
    entityId: p.invoiceId,
    data: {
      paymentId,
      amountCents: p.amountCents,
      method: p.method,
      rail: p.rail,
      channel: p.channel,
      journalTransactionId: jt.id,
      from: status,
      to: target,
      balanceDueCents: balance - p.amountCents,
    },
  });
  return {
    payment: toPayment(rows[0]!),
    journalTransactionId: jt.id,
    paidInFull,
    balanceDueCents: balance - p.amountCents,
    invoiceNumber: number,
    currency: row.currency,
    phone: row.bill_to.phone,
    dueDate: dateOnly(row.due_date),
  };
}

/**
 * Checks, in the mutation and before any card is charged, that invoice `id` can take `amountCents` (minor units).
 * Returns its currency.
 * @throws ProblemError 404; 409 naming `currentState` when it is a draft, paid or void; 400 `overpayment` naming
 *   `amountCents` when it exceeds the balance due.
 */
export async function checkInvoicePayable(m: Mutation, id: string, amountCents: number): Promise<{ currency: string }> {
  const row = await invoiceRow(m.tx, m.merchantId, id, m.now, true);
  const status = effectiveInvoiceStatus(row.status, dateOnly(row.due_date), utcDate(m.now));
  if (status === 'draft' || status === 'paid' || status === 'void') guardInvoice(id, status, 'paid', 'pay');
  const balance = Number(row.total_cents) - Number(row.paid_cents);
  if (amountCents > balance) {
    throw new ProblemError(400, 'overpayment', `Invalid amountCents: ${amountCents} is more than the balance due (${balance}).`, [
      { path: 'amountCents', message: `must be at most the balance due, ${balance}` },
    ]);
  }
  return { currency: row.currency };
}

/** Where a payment not taken by card sits (see {@link offlinePaymentAccount}). */
export interface InvoicePaymentAccount {
  accountCode: string;
  rail: string;
  registerId: string | null;
  cardBrand?: string | null;
  last4?: string | null;
  reference?: string | null;
}

/**
 * The account of a payment received without a card rail: `cash` in the drawer of `registerId` (`cash_drawer:R<n>`),
 * `check` to checks to deposit, `bank_transfer` to the bank, `other` to other tenders.
 * @throws ProblemError 400 naming `registerId` for a register not of the store.
 */
export async function offlinePaymentAccount(
  m: Mutation,
  input: InvoicePaymentCreate & { method: 'cash' | 'check' | 'bank_transfer' | 'other' },
): Promise<InvoicePaymentAccount> {
  switch (input.method) {
    case 'cash': {
      const reg = await m.tx.query<{ number: number }>('SELECT number FROM registers WHERE id = $1 AND merchant_id = $2', [
        input.registerId,
        m.merchantId,
      ]);
      if (!reg.rows[0])
        throw new ProblemError(400, 'unknown_register', `Invalid registerId: ${input.registerId} is not a register of this store.`, [
          { path: 'registerId', message: 'is not a register of this store' },
        ]);
      return { accountCode: `cash_drawer:R${reg.rows[0].number}`, rail: 'cash', registerId: input.registerId!, reference: input.reference ?? null };
    }
    case 'check':
      return {
        accountCode: 'check_clearing',
        rail: 'check',
        registerId: null,
        reference: input.checkNumber ? `check ${input.checkNumber}` : (input.reference ?? null),
      };
    case 'bank_transfer':
      return { accountCode: 'bank', rail: 'bank_transfer', registerId: null, reference: input.reference ?? null };
    case 'other':
      return { accountCode: 'other_tender_clearing', rail: 'other', registerId: null, reference: input.reference ?? null };
  }
}

/**
 * Keeps a declined card payment of an invoice (payment state `declined`, like orders'): a payment row in
 * state `declined` with the rail's reason code — no money, no journal transaction, the invoice unchanged — and the
 * audit entry `invoice.payment_declined` (who tried what, when, with which code). Returns the 402 to answer once
 * committed, naming `cardToken` and carrying the kept payment's id in `paymentId`.
 */
export async function recordDeclinedInvoicePayment(
  m: Mutation,
  id: string,
  attempt: {
    amountCents: number;
    cardToken: string;
    code: string;
    message: string;
    rail: string;
    accountCode: string;
    routing?: InvoicePaymentInput['routing'];
  },
): Promise<ProblemError> {
  const paymentId = newId('invoicePayment');
  // The routing decision is kept on a declined attempt like a captured payment's (candidates, fees, reason).
  await m.tx.query(
    `INSERT INTO invoice_payments (id, merchant_id, invoice_id, amount_cents, method, rail, channel, account_code, state, decline_code, jtx_id, created_by, created_at, routing)
     VALUES ($1, $2, $3, $4, 'card', $5, 'api', $6, 'declined', $7, NULL, $8, $9, $10::jsonb)`,
    [
      paymentId,
      m.merchantId,
      id,
      attempt.amountCents,
      attempt.rail,
      attempt.accountCode,
      attempt.code,
      m.actor,
      m.now.toISOString(),
      attempt.routing ? JSON.stringify(attempt.routing) : null,
    ],
  );
  await m.audit({
    action: 'invoice.payment_declined',
    entityType: 'invoice',
    entityId: id,
    data: { paymentId, method: 'card', amountCents: attempt.amountCents, declineCode: attempt.code, cardToken: attempt.cardToken },
  });
  return new InvoicePaymentDeclinedError(
    paymentId,
    attempt.code,
    `${attempt.message} Nothing was charged; the attempt is kept as payment ${paymentId} (declined).`,
  );
}

/** 402 for a declined invoice card payment, naming the stored declined payment (`paymentId`) and `cardToken`. */
export class InvoicePaymentDeclinedError extends ProblemError {
  constructor(
    readonly paymentId: string,
    code: string,
    detail: string,
  ) {
    super(402, code, detail, [{ path: 'cardToken', message: `declined: ${code}` }]);
  }

  override toProblem(): Problem {
    return { ...super.toProblem(), paymentId: this.paymentId };
  }
}

/* ───────────────────────────── refunds ───────────────────────────── */

/** What {@link refundInvoice} recorded. */
export interface RecordedInvoiceRefund {
  refund: InvoiceRefund;
  invoiceNumber: string;
  currency: string;
}

/**
 * Refunds a paid invoice in the mutation: `amountCents` (default: all still refundable) is taken from the
 * captured payments — `paymentId` only when named, else newest first — each up to what is left of it; the refund
 * record, its journal transaction ({@link buildInvoiceRefundJournal}: Dr refunds and sales tax, Cr the payments'
 * accounts), the invoice's `refunded_cents` and audit `invoice.refunded`. The invoice stays `paid`. The event is the
 * workflow's.
 * @throws ProblemError 404; 409 naming `currentState` when the invoice is not paid; 400 naming `amountCents` when it
 *   exceeds what is refundable (or nothing is left), or `paymentId` when it is not a captured payment of the invoice.
 */
export async function refundInvoice(m: Mutation, id: string, input: InvoiceRefundCreate): Promise<RecordedInvoiceRefund> {
  const row = await invoiceRow(m.tx, m.merchantId, id, m.now, true);
  const status = effectiveInvoiceStatus(row.status, dateOnly(row.due_date), utcDate(m.now));
  if (status !== 'paid') throw new StateConflictError('invoice', id, status, `Invoice ${id} is ${status}: only a paid invoice can be refunded.`);
  const refunds = await refundsOf(m.tx, id);
  const payments = (await paymentsOf(m.tx, id, refunds)).filter((p) => p.state === 'captured');
  let sources = payments.slice().reverse();
  if (input.paymentId) {
    sources = sources.filter((p) => p.id === input.paymentId);
    if (sources.length === 0)
      throw new ProblemError(400, 'unknown_payment', `Invalid paymentId: ${input.paymentId} is not a captured payment of invoice ${id}.`, [
        { path: 'paymentId', message: 'is not a captured payment of this invoice' },
      ]);
  }
  const refundable = sources.reduce((sum, p) => sum + p.amountCents - p.refundedCents, 0);
  const amount = input.amountCents ?? refundable;
  if (amount <= 0 || amount > refundable) {
    throw new ProblemError(400, 'refund_exceeds_refundable', `Invalid amountCents: ${amount} is more than what is left to refund (${refundable}).`, [
      { path: 'amountCents', message: `must be between 1 and the refundable ${refundable}` },
    ]);
  }
  const allocations: InvoiceRefund['allocations'] = [];
  let left = amount;
  for (const p of sources) {
    const take = Math.min(left, p.amountCents - p.refundedCents);
    if (take <= 0) continue;
    allocations.push({ paymentId: p.id, amountCents: take, accountCode: p.accountCode });
    left -= take;
    if (left === 0) break;
  }
  const refundedBefore = Number(row.refunded_cents ?? 0);
  const taxBefore = refunds.reduce((sum, r) => sum + r.taxCents, 0);
  const taxCents = invoiceRefundTaxCents({ totalCents: Number(row.total_cents), taxCents: Number(row.tax_cents) }, refundedBefore, taxBefore, amount);
  const refundId = newId('invoiceRefund');
  const number = formatInvoiceNumber(Number(row.number_seq));
  const jt = buildInvoiceRefundJournal({
    id: `jtx_${refundId.slice(4)}`,
    invoiceId: id,
    invoiceNumber: number,
    currency: row.currency,
    taxCents,
    allocations,
    occurredAt: m.now.toISOString(),
  });
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  const { rows } = await m.tx.query<RefundRow>(
    `INSERT INTO invoice_refunds (id, merchant_id, invoice_id, amount_cents, tax_cents, allocations, reason, jtx_id, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) RETURNING *`,
    [refundId, m.merchantId, id, amount, taxCents, JSON.stringify(allocations), input.reason ?? null, jt.id, m.actor, m.now.toISOString()],
  );
  await m.tx.query('UPDATE invoices SET refunded_cents = refunded_cents + $2, updated_at = $3 WHERE id = $1', [id, amount, m.now.toISOString()]);
  const refund = toRefund(rows[0]!);
  await m.audit({
    action: 'invoice.refunded',
    entityType: 'invoice',
    entityId: id,
    data: { refundId, amountCents: amount, taxCents, allocations, reason: input.reason ?? null, journalTransactionId: jt.id },
  });
  return { refund, invoiceNumber: number, currency: row.currency };
}

/* ───────────────────────────── void ───────────────────────────── */

/**
 * Voids an invoice that has no payment, in the mutation: `draft | sent | overdue → void`. An issued invoice's
 * receivable is reversed (the reversal of its issue transaction); audit `invoice.voided`. Returns the invoice's lines
 * when it had been issued (their goods go back to stock) — the workflow puts them back and cancels the pay links
 * (workflows/invoice-void.ts).
 * @throws ProblemError 409 naming `currentState` for partially paid, paid or void invoices (and an overdue one with
 *   payments: those must be refunded first).
 */
export async function voidInvoice(m: Mutation, id: string, input: { reason?: string }): Promise<{ issuedLines: InvoiceLine[] | null }> {
  const now = m.now;
  const row = await invoiceRow(m.tx, m.merchantId, id, now, true);
  const status = effectiveInvoiceStatus(row.status, dateOnly(row.due_date), utcDate(now));
  guardInvoice(id, status, 'void', 'void');
  if (Number(row.paid_cents) > 0) {
    throw new StateConflictError(
      'invoice',
      id,
      status,
      `Invoice ${id} is ${status} with payments (${row.paid_cents} received): it cannot be voided until they are given back.`,
    );
  }
  let reversalId: string | null = null;
  if (row.issue_jtx_id) {
    const issue = await getJournalTransaction(m.tx, m.merchantId, row.issue_jtx_id);
    if (issue) {
      const reversal = buildInvoiceVoidJournal(issue, newId('journalTransaction'), formatInvoiceNumber(Number(row.number_seq)), now.toISOString());
      await m.postJournalTransaction(reversal);
      reversalId = reversal.id;
    }
  }
  m.changed('journal-transactions');
  await m.tx.query(`UPDATE invoices SET status = 'void', voided_at = $2, void_reason = $3, updated_at = $2 WHERE id = $1`, [
    id,
    now.toISOString(),
    input.reason ?? null,
  ]);
  await m.audit({
    action: 'invoice.voided',
    entityType: 'invoice',
    entityId: id,
    data: { from: status, reason: input.reason ?? null, journalTransactionId: reversalId },
  });
  return { issuedLines: row.issue_jtx_id ? row.lines : null };
}

/* ───────────────────────────── overdue job ───────────────────────────── */

/**
 * Stores `overdue` on every sent or partially paid invoice whose due date is before `now`'s UTC date, with an audit
 * row each (actor `system`; reads already show them overdue; this makes the stored state agree), one mutation per
 * merchant at `now`. Returns how many moved.
 */
export async function markOverdueInvoices(app: Pick<AppContext, 'db' | 'feed'>, now: Date): Promise<number> {
  const today = utcDate(now);
  const due = await app.db.query<{ merchant_id: string }>(
    `SELECT DISTINCT merchant_id FROM invoices WHERE status IN ('sent', 'partially_paid') AND due_date < $1`,
    [today],
  );
  let count = 0;
  for (const { merchant_id: merchantId } of due.rows) {
    count += await mutation({ db: app.db, feed: app.feed, clock: () => now }, { merchantId, actor: 'system' }, async (m) => {
      const { rows } = await m.tx.query<{ id: string; due_date: string | Date }>(
        `UPDATE invoices SET status = 'overdue', updated_at = $3 WHERE merchant_id = $1 AND status IN ('sent', 'partially_paid') AND due_date < $2 RETURNING id, due_date`,
        [merchantId, today, now.toISOString()],
      );
      for (const r of rows)
        await m.audit({ action: 'invoice.overdue', entityType: 'invoice', entityId: r.id, data: { dueDate: dateOnly(r.due_date) } });
      return rows.length;
    });
  }
  return count;
}
