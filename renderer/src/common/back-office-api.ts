/**
 * Back-office API client: typed calls to the sync server with the register's staff token. The back office is online
 * only (no local collections): every call goes to the server, and a network failure surfaces as {@link OfflineError}
 * so screens can show the "needs a connection" state while the register keeps selling.
 *
 * Errors are RFC 9457 problem bodies (`{ type, title, status, detail, code, errors?: [{ path, message }] }`); they
 * come back as {@link ApiError} so a form can show each `errors[].path` next to its field.
 */
import type { z } from 'zod';
import { problemSchema, SALES_GROUPINGS } from '../../../core/index.ts';
import type {
  ApiCatalogItem,
  CatalogPage,
  CategorySummary,
  Cents,
  CreditBalance,
  CustomerRecord,
  DemoMail,
  DemoOutboxEntry,
  DemoOutboxList,
  DemoText,
  ImageGenerateResponse,
  ImportReport,
  ImportJob,
  Invoice,
  InvoiceSeries,
  InvoiceStatus,
  KeptImage,
  OrderReceipt,
  OrderStateName,
  OrderView,
  Page,
  PayRequestRecord,
  Problem,
  ReceiptSent,
  RefundCreate,
  RefundReport,
  RefundResult,
  ReceiptSend,
  SalesGrouping,
  SalesReport,
  SalesRow,
  SeriesStatus,
  StockLevel,
  StockMovementResult,
  StoreSettings,
  MessageKind,
  MessageTemplatePreview,
  MessageTemplatePreviewRequest,
  MessageTemplateSave,
  MessageTemplateView,
  StoreLanguage,
  RailConfig,
  TaxReport,
  TenderRow,
  TrialBalanceReport,
  catalogItemCreateSchema,
  catalogItemUpdateSchema,
  customerCreateSchema,
  customerUpdateSchema,
  invoiceCreateSchema,
  invoicePaymentCreateSchema,
  invoiceSeriesCreateSchema,
} from '../../../core/index.ts';
import { REGISTER_SCHEMA_VERSION } from './session.ts';

/** An RFC 9457 problem body as our server sends it, and its field errors (core/problem.ts). */
export type { Problem };

/** The server answered with an HTTP error; `problem` is its problem body (or a synthesized one). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
  }
  get status(): number {
    return this.problem.status;
  }
  /** Field errors keyed by path (the first message per path). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.problem.errors ?? []) out[e.path] ??= e.message;
    return out;
  }
}

/** The request never reached the server (no connection, server down). */
export class OfflineError extends Error {
  override name = 'OfflineError';
  constructor() {
    super('This needs a connection to the server.');
  }
}

/** A message for people from any error a call may throw. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError || err instanceof OfflineError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** A cursor-paginated list page (core `pageSchema`; `nextCursor` null on the last page). */
export type { Page };

/** A catalog item as the API answers it (core `apiCatalogItemSchema`). */
export type { ApiCatalogItem };

/** A category of live items with how many items carry it (core `categorySummarySchema`). */
export type { CategorySummary };

/** `GET /api/pos/catalog` (core `catalogPageSchema`). */
export type { CatalogPage };

/**
 * An item as the editor sends it (`catalogItemCreateSchema` / `catalogItemUpdateSchema` in core/catalog.ts). Lists
 * (`variations`, `modifierLists`, `taxRateIds`) replace the stored ones; entries sent with their `id` keep it.
 * `description: null` / `imageUrl: null` (update only) remove them.
 */
export type ItemInput = Omit<z.input<typeof catalogItemCreateSchema>, 'description' | 'imageUrl'> &
  Pick<z.input<typeof catalogItemUpdateSchema>, 'description' | 'imageUrl'>;

/** A stock row of the inventory API (core `stockLevelSchema`). */
export type { StockLevel };

/** What a stock receive, adjust or count answers (core `stockMovementResultSchema`). */

/** The answer of a CSV import (core `importReportSchema`). */
export type { ImportReport, ImportJob };

/** What `POST /api/v1/images/generate` answers (core `imageGenerateResponseSchema`). */
export type GeneratedImages = ImageGenerateResponse;

/** A customer as the API answers it (core `customerRecordSchema`). */
export type Customer = CustomerRecord;

/** `POST /api/pos/customers` body (core `customerCreateSchema`). */
export type CustomerCreateInput = z.input<typeof customerCreateSchema>;
/** `PATCH /api/pos/customers/{id}` body (core `customerUpdateSchema`): `null` clears a field. */
export type CustomerUpdateInput = z.input<typeof customerUpdateSchema>;

/**
 * An order as the order API answers it (core `orderViewSchema`, `routes/orders.ts`): register sales and API orders
 * alike. List pages carry the summary; `GET /api/pos/orders/{id}` and the write endpoints add `payments` and `refunds`.
 */
export type ApiOrder = OrderView;

/** An order state (`open`, `paid`, `partially_refunded`, `refunded`, `canceled`). */
export type ApiOrderState = OrderStateName;

/** A refund as `POST /api/pos/orders/{id}/refunds` takes it: by `lines` (with `restock`) or by `amountCents`. */
export type OrderRefundInput = RefundCreate;

/** What `POST /api/pos/orders/{id}/refunds` answers: the new refund record and the order after it (core `refundResultSchema`). */
export type OrderRefundResult = RefundResult;

/** Where to send a receipt (`receiptSendSchema`): SMS to an E.164 phone or e-mail; without `to`, the customer's. */
export type OrderReceiptSend = ReceiptSend;

/** What `POST /api/pos/orders/{id}/receipts` answers (202): the queued message (core `receiptSentSchema`). */
export type OrderReceiptSent = ReceiptSent;

/** `GET /api/pos/orders/{id}/receipt`: the re-print data (core `OrderReceipt`). */
export type { OrderReceipt };

/** A Text-to-Pay request (core `payRequestRecordSchema`); `status` is the state now (expired computed). */
export type PayRequest = PayRequestRecord;

/** Invoices, their states and recurring series: core/invoices.ts. */
export type { Invoice, InvoiceSeries, InvoiceStatus, SeriesStatus };

/** `POST /api/pos/invoices` body (core `invoiceCreateSchema`). */
export type InvoiceCreateInput = z.input<typeof invoiceCreateSchema>;

/** The report bodies (`/api/pos/reports/*` JSON) and their groupings: core/reports.ts. */
export { SALES_GROUPINGS };
export type { RefundReport, SalesGrouping, SalesReport, SalesRow, TaxReport, TenderRow, TrialBalanceReport };

/** The store's settings (`/api/pos/settings`, core `storeSettingsSchema`). */
export type { StoreSettings };

/** A payment rail as the store has it (`/api/pos/rails`, core `railConfigSchema`). */
export type { RailConfig };

/** A payout to the store's bank (`/api/pos/payouts`). */
export interface Payout {
  id: string;
  amountCents: number;
  currency: string;
  status: 'paid';
  processor: string;
  journalTransactionId: string;
  createdBy: string;
  createdAt: string;
}

/** `POST /api/pos/invoice-series` body (core `invoiceSeriesCreateSchema`). */
export type InvoiceSeriesCreateInput = z.input<typeof invoiceSeriesCreateSchema>;

type Query = Record<string, string | number | undefined>;

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** An e-mail of the outbox (`GET /api/pos/email-outbox`) with its delivery state. */
export interface EmailMessage {
  id: string;
  to: string;
  subject: string;
  body: string;
  kind: 'receipt' | 'invoice' | 'notice';
  status: 'queued' | 'sending' | 'sent' | 'bounced' | 'complained' | 'suppressed' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  sentAt: string | null;
  messageId: string | null;
  /** What it is about: `invoice:<id>`, `order:<id>`, `pay_request:<id>`; null for notices. */
  subjectRef: string | null;
  createdAt: string;
}

/** A text of the outbox (`GET /api/pos/sms-outbox`) with its delivery state. */
export interface SmsMessage {
  id: string;
  to: string;
  body: string;
  status: 'queued' | 'sending' | 'sent' | 'delivered' | 'failed' | 'opted_out';
  providerCode: string | null;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  subjectRef: string | null;
  createdAt: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
}

/** An address no e-mail is sent to (it bounced). */
export interface EmailSuppression {
  address: string;
  reason: string;
  emailId: string;
  createdAt: string;
}

/** A phone that answered STOP. */
export interface SmsOptOut {
  phone: string;
  keyword: string;
  optedOutAt: string;
}

/** One message the demo's local mail server or SMS provider received (`GET /api/pos/demo-outbox`; core/demo-outbox.ts). */
export type { DemoOutboxEntry };

/** Typed calls with the staff token; see the route files under `sync-server/src/routes/` for the shapes. */
export class BackOfficeApi {
  constructor(private readonly token: string) {}

  /**
   * One request. POSTs carry a fresh `Idempotency-Key`.
   * @throws OfflineError when the network is down; ApiError on any HTTP error (problem body attached).
   */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.raw(method, path, body);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /**
   * The raw response of a successful request (for CSV downloads and uploads). `body` is sent as JSON, or as it is when
   * `contentType` names another type (a CSV file's text). Same errors as {@link request}.
   */
  async raw(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION };
    if (body !== undefined) headers['content-type'] = contentType;
    if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
    const payload = body === undefined ? undefined : contentType === 'application/json' ? JSON.stringify(body) : String(body);
    let response: Response;
    try {
      response = await fetch(path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    } catch {
      throw new OfflineError();
    }
    if (!response.ok) {
      let problem: Problem = {
        type: 'about:blank',
        status: response.status,
        title: response.statusText,
        detail: `HTTP ${response.status}`,
        code: 'http_error',
      };
      try {
        // Only the members of the right shape are taken; anything else keeps the synthesized problem.
        const parsed = problemSchema.partial().safeParse(await response.json());
        if (parsed.success) problem = { ...problem, ...parsed.data, status: response.status };
      } catch {
        /* not JSON: keep the synthesized problem */
      }
      throw new ApiError(problem);
    }
    return response;
  }

  /* catalog */
  listItems(query: { q?: string; category?: string; cursor?: string; limit?: number } = {}) {
    return this.request<CatalogPage>('GET', withQuery('/api/pos/catalog', { limit: 100, ...query }));
  }
  getItem(id: string) {
    return this.request<ApiCatalogItem>('GET', `/api/pos/catalog/items/${encodeURIComponent(id)}`);
  }
  createItem(input: ItemInput) {
    const { imageUrl, ...rest } = input;
    return this.request<ApiCatalogItem>('POST', '/api/pos/catalog/items', imageUrl ? { ...rest, imageUrl } : rest);
  }
  updateItem(id: string, patch: Partial<ItemInput>) {
    return this.request<ApiCatalogItem>('PATCH', `/api/pos/catalog/items/${encodeURIComponent(id)}`, patch);
  }
  /** Deletes an item (a soft delete on the server: registers drop it, its stock history stays). */
  deleteItem(id: string) {
    return this.request<void>('DELETE', `/api/pos/catalog/items/${encodeURIComponent(id)}`);
  }
  /** Every category with its item count, all pages of `GET /api/pos/catalog/categories` (a store has few). */
  async categories(): Promise<{ data: CategorySummary[] }> {
    const data: CategorySummary[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<CategorySummary> = await this.request(
        'GET',
        withQuery('/api/pos/catalog/categories', { limit: 200, ...(cursor ? { cursor } : {}) }),
      );
      data.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return { data };
  }
  /** Moves every item of category `from` to `to` (merging when `to` exists). */
  renameCategory(from: string, to: string) {
    return this.request<CategorySummary & { itemIds: string[] }>('PATCH', `/api/pos/catalog/categories/${encodeURIComponent(from)}`, { name: to });
  }
  inventory(query: { itemId?: string; cursor?: string } = {}) {
    return this.request<Page<StockLevel>>('GET', withQuery('/api/pos/catalog/inventory', { limit: 200, ...query }));
  }
  lowStock() {
    return this.request<Page<StockLevel>>('GET', withQuery('/api/pos/catalog/inventory/low-stock', { limit: 200 }));
  }
  /** Receive (quantity > 0), adjust (signed, ≠ 0) or count (`counted` ≥ 0) one variation. */
  moveStock(kind: 'receive' | 'adjust' | 'count', variationId: string, amount: number, note?: string) {
    const line = kind === 'count' ? { variationId, counted: amount } : { variationId, quantity: amount };
    return this.request<StockMovementResult>('POST', `/api/pos/catalog/inventory/${kind}`, { lines: [line], ...(note ? { note } : {}) });
  }
  setThreshold(variationId: string, lowStockThreshold: number | null) {
    return this.request<{ data: StockLevel[] }>('POST', '/api/pos/catalog/inventory/thresholds', {
      thresholds: [{ variationId, lowStockThreshold }],
    });
  }
  /** Uploads a Shopify product CSV as the file itself (`text/csv`, up to 16 MiB; a JSON body would stop at 1 MiB). */
  async importCsv(csv: string, dryRun = false): Promise<ImportReport> {
    const response = await this.raw('POST', withQuery('/api/pos/catalog/import', dryRun ? { dryRun: 'true' } : {}), csv, 'text/csv; charset=utf-8');
    return (await response.json()) as ImportReport;
  }
  /** Starts an import job with the file itself (`text/csv`); answers at once with the job (core `importJobSchema`). */
  async startImportJob(csv: string): Promise<ImportJob> {
    const response = await this.raw('POST', '/api/pos/catalog/import-jobs', csv, 'text/csv; charset=utf-8');
    return (await response.json()) as ImportJob;
  }
  /** The job's progress (rows done / total), and its report once it has ended. */
  importJob(id: string) {
    return this.request<ImportJob>('GET', `/api/pos/catalog/import-jobs/${encodeURIComponent(id)}`);
  }
  /** Asks the job to stop after its current chunk (what it committed stays; re-running the file is safe). */
  cancelImportJob(id: string) {
    return this.request<ImportJob>('POST', `/api/pos/catalog/import-jobs/${encodeURIComponent(id)}/cancel`);
  }
  async exportCsv(): Promise<Blob> {
    return (await this.raw('GET', '/api/pos/catalog/export')).blob();
  }

  /* images */
  credits() {
    return this.request<CreditBalance>('GET', '/api/v1/credits');
  }
  generateImage(prompt: string) {
    return this.request<GeneratedImages>('POST', '/api/v1/images/generate', { prompt, style: 'photorealistic', aspect: '1:1', n: 1 });
  }
  /** A permanent copy of a generated image (`/api/v1/media/<id>.png`), for a catalog picture. */
  keepImage(imageId: string) {
    return this.request<KeptImage>('POST', `/api/v1/images/${encodeURIComponent(imageId)}/keep`);
  }

  /* customers */
  listCustomers(query: { q?: string; cursor?: string } = {}) {
    return this.request<Page<Customer>>('GET', withQuery('/api/pos/customers', { limit: 100, ...query }));
  }
  createCustomer(input: CustomerCreateInput) {
    return this.request<Customer>('POST', '/api/pos/customers', input);
  }
  /** `GET /api/pos/settings`. */
  settings() {
    return this.request<StoreSettings>('GET', '/api/pos/settings');
  }

  /** `GET /api/pos/rails`: the eight rails with this store's settings. */
  rails() {
    return this.request<{ data: RailConfig[] }>('GET', '/api/pos/rails');
  }
  /** `PATCH /api/pos/rails/{rail}`. */
  updateRail(rail: RailConfig['rail'], patch: Partial<Omit<RailConfig, 'rail'>>) {
    return this.request<RailConfig>('PATCH', `/api/pos/rails/${encodeURIComponent(rail)}`, patch);
  }
  /** `GET /api/pos/payouts`: newest first. */
  payouts() {
    return this.request<Page<Payout>>('GET', withQuery('/api/pos/payouts', { limit: 20 }));
  }
  /** `POST /api/pos/payouts`: the whole settled balance (403 `money_movement_disabled` in the demo store). */
  createPayout() {
    return this.request<Payout>('POST', '/api/pos/payouts', {});
  }

  /** `PATCH /api/pos/settings`: time zone and/or default phone country. */
  updateSettings(
    patch: Partial<
      Pick<
        StoreSettings,
        'timeZone' | 'dayCutoffHour' | 'defaultCountry' | 'tipLimitBasisPoints' | 'tipLimitCents' | 'cashierRefundLimitCents' | 'language'
      >
    >,
  ) {
    return this.request<StoreSettings>('PATCH', '/api/pos/settings', patch);
  }

  /* message templates (docs/decisions/0094-message-templates-per-store-and-language.md) */
  /** `GET /api/pos/message-templates`: every kind's template in `language` (default the store's). */
  messageTemplates(language?: StoreLanguage) {
    return this.request<{ items: MessageTemplateView[] }>('GET', withQuery('/api/pos/message-templates', { language }));
  }
  /** `PUT /api/pos/message-templates/{kind}`: the store's own template (400 naming `subject` or `body`). */
  saveMessageTemplate(kind: MessageKind, input: MessageTemplateSave) {
    return this.request<MessageTemplateView>('PUT', `/api/pos/message-templates/${encodeURIComponent(kind)}`, input);
  }
  /** `DELETE /api/pos/message-templates/{kind}`: back to the built-in default. */
  resetMessageTemplate(kind: MessageKind, language: StoreLanguage) {
    return this.request<MessageTemplateView>('DELETE', withQuery(`/api/pos/message-templates/${encodeURIComponent(kind)}`, { language }));
  }
  /** `POST /api/pos/message-template-previews`: the template rendered with sample data; changes nothing. */
  previewMessageTemplate(input: MessageTemplatePreviewRequest) {
    return this.request<MessageTemplatePreview>('POST', '/api/pos/message-template-previews', input);
  }

  updateCustomer(id: string, patch: CustomerUpdateInput) {
    return this.request<Customer>('PATCH', `/api/pos/customers/${encodeURIComponent(id)}`, patch);
  }
  customerOrders(id: string) {
    return this.request<Page<ApiOrder>>('GET', withQuery(`/api/pos/customers/${encodeURIComponent(id)}/orders`, { limit: 50 }));
  }

  /* orders */
  /** `GET /api/pos/orders`: newest first by business time; `status` filters by order state. */
  listOrders(query: { status?: ApiOrderState; cursor?: string; limit?: number } = {}) {
    return this.request<Page<ApiOrder>>('GET', withQuery('/api/pos/orders', { limit: 25, ...query }));
  }
  /** `GET /api/pos/orders/{id}`: the order with its payments and refunds. */
  getOrder(id: string) {
    return this.request<ApiOrder>('GET', `/api/pos/orders/${encodeURIComponent(id)}`);
  }
  /** `POST /api/pos/orders/{id}/refunds` (paid or partially refunded orders only). */
  refundOrder(id: string, input: OrderRefundInput) {
    return this.request<OrderRefundResult>('POST', `/api/pos/orders/${encodeURIComponent(id)}/refunds`, input);
  }
  /** `GET /api/register/staff`: the staff who can sign in (with a PIN); the managers and owners among them approve. */
  signInStaff() {
    return this.request<{ data: { id: string; name: string; role: 'owner' | 'manager' | 'cashier' }[] }>('GET', '/api/register/staff');
  }
  /** `POST /api/register/approvals`: a manager's or owner's PIN → a single-use approval token (5 minutes). */
  approve(input: { staffId: string; pin: string; action: 'refund' | 'price_override'; orderId?: string; amountCents?: number }) {
    return this.request<{ approval: string; approvedBy: string; expiresAt: string }>('POST', '/api/register/approvals', input);
  }
  /** `POST /api/pos/orders/{id}/cancel` (open orders only; payments already taken are given back). */
  cancelOrder(id: string, reason?: string) {
    return this.request<ApiOrder>('POST', `/api/pos/orders/${encodeURIComponent(id)}/cancel`, reason ? { reason } : {});
  }
  /** `GET /api/pos/orders/{id}/receipt`: re-print data. */
  orderReceipt(id: string) {
    return this.request<OrderReceipt>('GET', `/api/pos/orders/${encodeURIComponent(id)}/receipt`);
  }
  /** `POST /api/pos/orders/{id}/receipts`: queue the receipt by SMS or e-mail. */
  sendOrderReceipt(id: string, input: OrderReceiptSend) {
    return this.request<OrderReceiptSent>('POST', `/api/pos/orders/${encodeURIComponent(id)}/receipts`, input);
  }
  /**
   * `POST /api/pos/orders/{id}/payments` on a `balance_due` order: collects (part of) what the customer owes after a
   * payment failed after the sale (cash into the order's register drawer, or a card on the sandbox staff rail).
   */
  collectOrderBalance(id: string, tender: { method: 'cash'; amountCents: number } | { method: 'card'; amountCents: number; cardToken: string }) {
    return this.request<ApiOrder>('POST', `/api/pos/orders/${encodeURIComponent(id)}/payments`, { tenders: [tender] });
  }
  /** The customer an order names (`GET /api/pos/customers/{id}`), to say where its receipt goes by default. */
  orderCustomer(customerId: string) {
    return this.request<Customer>('GET', `/api/pos/customers/${encodeURIComponent(customerId)}`);
  }

  /* pay requests (Text-to-Pay) */
  listPayRequests(query: { status?: string; cursor?: string } = {}) {
    return this.request<Page<PayRequest>>('GET', withQuery('/api/pos/pay-requests', { limit: 100, ...query }));
  }
  createPayRequest(input: { amountCents: Cents; phone: string; memo?: string }) {
    return this.request<PayRequest>('POST', '/api/pos/pay-requests', input);
  }
  cancelPayRequest(id: string) {
    return this.request<PayRequest>('POST', `/api/pos/pay-requests/${encodeURIComponent(id)}/cancel`, {});
  }

  /* messages (e-mail and SMS outboxes, suppressions, the demo outbox) */
  listEmailOutbox(query: { status?: string; subjectRef?: string; cursor?: string } = {}) {
    return this.request<Page<EmailMessage>>('GET', withQuery('/api/pos/email-outbox', { limit: 50, ...query }));
  }
  listSmsOutbox(query: { status?: string; subjectRef?: string; cursor?: string } = {}) {
    return this.request<Page<SmsMessage>>('GET', withQuery('/api/pos/sms-outbox', { limit: 50, ...query }));
  }
  /** The newest e-mail and text about `subjectRef` (`invoice:<id>`, `order:<id>`, `pay_request:<id>`). */
  latestMessages(subjectRef: string) {
    return this.request<{ email: EmailMessage | null; sms: SmsMessage | null }>('GET', withQuery('/api/pos/messages/latest', { subjectRef }));
  }
  listEmailSuppressions(query: { cursor?: string } = {}) {
    return this.request<Page<EmailSuppression>>('GET', withQuery('/api/pos/email-suppressions', { limit: 100, ...query }));
  }
  liftEmailSuppression(address: string) {
    return this.request<void>('DELETE', `/api/pos/email-suppressions/${encodeURIComponent(address)}`);
  }
  listSmsOptOuts(query: { cursor?: string } = {}) {
    return this.request<Page<SmsOptOut>>('GET', withQuery('/api/pos/sms-opt-outs', { limit: 100, ...query }));
  }
  /** What demo mode's local servers received from this store; ApiError 404 when real providers send. */
  demoOutbox() {
    return this.request<DemoOutboxList>('GET', '/api/pos/demo-outbox?limit=200');
  }
  demoMail(id: string) {
    return this.request<DemoMail>('GET', `/api/pos/demo-outbox/mail/${encodeURIComponent(id)}`);
  }
  demoText(id: string) {
    return this.request<DemoText>('GET', `/api/pos/demo-outbox/sms/${encodeURIComponent(id)}`);
  }

  /* reports */
  salesReport(from: string, to: string, groupBy: SalesGrouping) {
    return this.request<SalesReport>('GET', withQuery('/api/pos/reports/sales', { from, to, groupBy }));
  }
  taxReport(from: string, to: string) {
    return this.request<TaxReport>('GET', withQuery('/api/pos/reports/tax', { from, to }));
  }
  refundReport(from: string, to: string) {
    return this.request<RefundReport>('GET', withQuery('/api/pos/reports/refunds', { from, to }));
  }
  trialBalance(from: string, to: string) {
    return this.request<TrialBalanceReport>('GET', withQuery('/api/pos/reports/trial-balance', { from, to }));
  }
  /** A report as CSV (`format=csv`), e.g. `reportCsv('sales', { from, to, groupBy })`. */
  async reportCsv(report: 'sales' | 'tax' | 'refunds' | 'trial-balance', query: Query): Promise<Blob> {
    return (await this.raw('GET', withQuery(`/api/pos/reports/${report}`, { ...query, format: 'csv' }))).blob();
  }

  /* invoices */
  listInvoices(query: { status?: string; cursor?: string } = {}) {
    return this.request<Page<Invoice>>('GET', withQuery('/api/pos/invoices', { limit: 100, ...query }));
  }
  createInvoice(input: InvoiceCreateInput) {
    return this.request<Invoice>('POST', '/api/pos/invoices', input);
  }
  sendInvoice(id: string) {
    return this.request<Invoice>('POST', `/api/pos/invoices/${encodeURIComponent(id)}/send`, {});
  }
  recordInvoicePayment(id: string, payment: z.input<typeof invoicePaymentCreateSchema>) {
    return this.request<Invoice>('POST', `/api/pos/invoices/${encodeURIComponent(id)}/payments`, payment);
  }
  /** Refunds a paid invoice: `amountCents` (default everything still refundable), newest payment first. */
  refundInvoice(id: string, refund: { amountCents?: number; reason?: string } = {}) {
    return this.request<Invoice>('POST', `/api/pos/invoices/${encodeURIComponent(id)}/refunds`, refund);
  }
  voidInvoice(id: string) {
    return this.request<Invoice>('POST', `/api/pos/invoices/${encodeURIComponent(id)}/void`, {});
  }
  listSeries(query: { status?: string; cursor?: string } = {}) {
    return this.request<Page<InvoiceSeries>>('GET', withQuery('/api/pos/invoice-series', { limit: 100, ...query }));
  }
  createSeries(input: InvoiceSeriesCreateInput) {
    return this.request<InvoiceSeries>('POST', '/api/pos/invoice-series', input);
  }
  /** pause (active → paused), resume (paused → active), end (→ ended, final). */
  moveSeries(id: string, action: 'pause' | 'resume' | 'end') {
    return this.request<InvoiceSeries>('POST', `/api/pos/invoice-series/${encodeURIComponent(id)}/${action}`, {});
  }
  async invoicePdf(id: string): Promise<Blob> {
    return (await this.raw('GET', `/api/pos/invoices/${encodeURIComponent(id)}/pdf`)).blob();
  }
}

/** The image id of a generated image url (`…/api/v1/images/img_….png`), or undefined. */
export function imageIdOf(url: string): string | undefined {
  return /\/api\/v1\/images\/(img_[0-9A-Za-z]+)\.png$/.exec(url)?.[1];
}

/** A same-origin path for a server url (the server's configured base URL may name another host than this page). */
export function localPath(url: string): string {
  try {
    const parsed = new URL(url, location.href);
    return parsed.pathname.startsWith('/api/') ? `${parsed.pathname}${parsed.search}` : url;
  } catch {
    return url;
  }
}
