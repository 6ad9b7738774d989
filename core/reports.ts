/**
 * The JSON bodies of the reports API (`GET /api/pos/reports/{sales,tax,refunds,trial-balance}`, computed by
 * sync-server/src/services/reports.ts; the CSV downloads carry the same rows). Amounts are integer minor units
 * (`…Cents`) of `currency`; days are counted in the period's IANA `timeZone`.
 */
import { z } from 'zod';

/** The period a report covered, echoed in every JSON report. `start`/`end` are UTC instants, `end` exclusive. */
export const reportPeriodSchema = z.strictObject({
  from: z.iso.date(),
  to: z.iso.date(),
  timeZone: z.string(),
  start: z.iso.datetime().describe('00:00 of `from` in the time zone, as UTC.'),
  end: z.iso.datetime().describe('00:00 of the day after `to` in the time zone, as UTC (exclusive).'),
});
export type ReportPeriod = z.infer<typeof reportPeriodSchema>;

/** How the sales summary groups its rows. */
export const SALES_GROUPINGS = ['day', 'hour', 'item', 'category', 'tender', 'staff'] as const;
export type SalesGrouping = (typeof SALES_GROUPINGS)[number];

const salesFigures = {
  orders: z.int().describe('Sales counted in the period: paid orders, issued invoices and paid pay links (the field keeps its first name).'),
  refunds: z.int().describe('Refunds (kind refund) counted in the period.'),
  voids: z.int().describe('Issued invoices voided in the period.'),
  quantity: z.int().describe('Units sold.'),
  refundedQuantity: z.int().describe('Units given back by line refunds.'),
  grossSalesCents: z.int().describe('Line amounts before discounts, inclusive tax taken out (what revenue accounts are credited).'),
  discountCents: z.int(),
  refundCents: z.int().describe('Goods given back, tax excluded (the refunds contra-revenue account).'),
  voidCents: z.int().describe('Revenue of the invoices voided in the period, tax excluded (their issue reversed).'),
  netSalesCents: z.int().describe('gross − discounts − refunds − voids.'),
  taxCents: z.int().describe('Tax on sales − tax refunded − tax of voided invoices.'),
  tipCents: z.int().describe('Tips on sales − tips refunded.'),
  totalCents: z.int().describe('net sales + tax + tips: what the merchant keeps.'),
};

/** One row of a sales summary grouped by day, hour, item, category or staff member. */
export const salesRowSchema = z.strictObject({
  key: z
    .string()
    .describe(
      'day: YYYY-MM-DD; hour: 00…23 (hour of day); item: catalog item id ("(custom)" for custom invoice lines, "(pay link)" for ' +
        'free-amount pay links); category: category name; staff: staff id (of the cashier, or of who created the invoice or pay link) or "none". ' +
        'Item and category summaries add a "(tips)" row and, when refunds are not tied to lines, an "(unallocated)" row, so ' +
        'the money columns add up to the totals; their `orders` counts orders containing the item (not additive).',
    ),
  label: z.string(),
  ...salesFigures,
});
export type SalesRow = z.infer<typeof salesRowSchema>;

/** One row of the sales summary by tender method. */
export const tenderRowSchema = z.strictObject({
  key: z
    .string()
    .describe(
      'Tender: cash, card, check, other, apple_pay, google_pay (register and API orders: a wallet is its own tender, never card); apple_pay, google_pay, bank_transfer (free-amount pay links); invoice (sales on account: issued invoices, whatever later pays them).',
    ),
  label: z.string(),
  count: z.int().describe('Tenders on the sales of the period.'),
  amountCents: z.int().describe('What they paid, tips included.'),
  tipCents: z.int(),
  refundCents: z
    .int()
    .describe('Money given back to this method by refunds of the period (tax and tips included); for `invoice`, the totals of the invoices voided.'),
  netCents: z.int().describe('amount − refunds.'),
});
export type TenderRow = z.infer<typeof tenderRowSchema>;

export const salesTotalsSchema = z.strictObject(salesFigures);
export type SalesTotals = z.infer<typeof salesTotalsSchema>;

/**
 * How a report's money figures compare with the ledger postings of the same period: a report never shows a
 * number that silently differs from the books. `reconciled` false means the business records and the postings
 * disagree (an edit outside the API, a lost source row): the figures are shown as computed, flagged, and an alert is
 * raised (server log + audit entry `report.unreconciled`).
 */
export const ledgerReconciliationSchema = z.strictObject({
  reconciled: z.boolean().describe("True when the figures below equal the report's"),
  ledgerNetSalesCents: z
    .int()
    .describe('−Σ postings on sales revenue, service revenue, discounts and refunds of the journal transactions in the period'),
  ledgerTaxCents: z.int().describe('−Σ postings on sales tax payable of the journal transactions in the period'),
  netSalesDifferenceCents: z.int().describe('Report − ledger'),
  taxDifferenceCents: z.int().describe('Report − ledger'),
});
export type LedgerReconciliation = z.infer<typeof ledgerReconciliationSchema>;

/** `GET /api/pos/reports/sales` JSON body. */
export const salesReportSchema = z.strictObject({
  report: z.literal('sales'),
  groupBy: z.enum(SALES_GROUPINGS),
  period: reportPeriodSchema,
  currency: z.string(),
  totals: salesTotalsSchema,
  rows: z.union([z.array(salesRowSchema), z.array(tenderRowSchema)]).describe('tender rows when groupBy=tender, else sales rows; sorted by key.'),
  reconciliation: ledgerReconciliationSchema.describe('totals.netSalesCents and totals.taxCents against the ledger'),
});
export type SalesReport = z.infer<typeof salesReportSchema>;

export const taxRowSchema = z.strictObject({
  taxRateId: z.string(),
  name: z.string(),
  basisPoints: z.int(),
  inclusive: z.boolean(),
  orders: z.int().describe('Sales (orders, issued invoices, paid pay links) carrying this rate.'),
  taxableCents: z.int().describe('Taxable base (net of discounts).'),
  taxCents: z.int().describe('Tax collected on sales at this rate.'),
});
export type TaxRow = z.infer<typeof taxRowSchema>;

/** `GET /api/pos/reports/tax` JSON body. */
export const taxReportSchema = z.strictObject({
  report: z.literal('tax'),
  period: reportPeriodSchema,
  currency: z.string(),
  rows: z.array(taxRowSchema).describe('Per tax rate (id, rate and inclusive flag: a rate changed mid-period has two rows).'),
  totals: z.strictObject({
    taxableCents: z.int(),
    collectedCents: z.int().describe('Tax collected on sales.'),
    refundedCents: z.int().describe('Tax given back by refunds and by voids of issued invoices (not split per rate: refunds by amount carry none).'),
    netCents: z.int().describe('collected − refunded: the movement of sales tax payable from sales (orders, invoices, pay links).'),
  }),
  reconciliation: ledgerReconciliationSchema.describe(
    'totals.netCents against the ledger (net sales are not part of this report: their difference is 0)',
  ),
});
export type TaxReport = z.infer<typeof taxReportSchema>;

export const refundReportRowSchema = z.strictObject({
  refundId: z.string(),
  orderId: z.string(),
  receiptNumber: z.string(),
  kind: z.enum(['refund', 'cancellation']),
  occurredAt: z.iso.datetime(),
  amountCents: z.int().describe('Money given back, tax and tips included.'),
  goodsCents: z.int().describe('Goods part, tax included.'),
  taxCents: z.int(),
  tipCents: z.int(),
  lines: z.int().describe('Order lines refunded (0 for a refund by amount).'),
  restock: z.boolean(),
  reason: z.string().nullable(),
});

/** `GET /api/pos/reports/refunds` JSON body. */
export const refundReportSchema = z.strictObject({
  report: z.literal('refunds'),
  period: reportPeriodSchema,
  currency: z.string(),
  rows: z.array(refundReportRowSchema),
  totals: z.strictObject({
    refunds: z.int(),
    cancellations: z.int(),
    amountCents: z.int().describe('All money given back (refunds and cancellations).'),
    refundCents: z.int().describe('Goods given back by refunds, tax excluded (as in the sales summary).'),
    taxCents: z.int(),
    tipCents: z.int(),
  }),
});
export type RefundReport = z.infer<typeof refundReportSchema>;

export const trialBalanceRowSchema = z.strictObject({
  code: z.string(),
  name: z.string(),
  type: z.enum(['asset', 'liability', 'revenue', 'contra_revenue', 'expense']),
  openingCents: z.int().describe('Balance before the period (debit > 0, credit < 0).'),
  debitCents: z.int().describe('Debits posted in the period (≥ 0).'),
  creditCents: z.int().describe('Credits posted in the period (≥ 0).'),
  closingCents: z.int().describe('opening + debits − credits.'),
});
export type TrialBalanceRow = z.infer<typeof trialBalanceRowSchema>;

/** `GET /api/pos/reports/trial-balance` JSON body. */
export const trialBalanceReportSchema = z.strictObject({
  report: z.literal('trial-balance'),
  period: reportPeriodSchema,
  currency: z.string(),
  rows: z.array(trialBalanceRowSchema),
  totals: z.strictObject({
    openingCents: z.int().describe('Always 0: the ledger balances.'),
    debitCents: z.int(),
    creditCents: z.int().describe('Equals debitCents.'),
    closingCents: z.int().describe('Always 0.'),
  }),
});
export type TrialBalanceReport = z.infer<typeof trialBalanceReportSchema>;
