/**
 * Back-office reports (spec: "reports" collection; DESIGN §4, §7; docs/api.md "Reports"): sales summaries by day,
 * hour of day, item, category, tender and staff member; tax collected; refunds; the ledger's trial balance over a
 * period. Staff only. Every figure is integer minor units (`…Cents`) of the merchant's currency.
 *
 * **When a sale counts.** A sale is counted at the time its sale journal transaction occurred (`kind = 'sale'`,
 * `source_type = 'order'`): a register sale at its business time (`createdAt`), an API order when it became fully
 * paid. A refund counts at the time of its refund journal transaction. So the sales figures of any period reconcile
 * with the ledger postings of the same period (order-sourced journal transactions):
 *
 * - `netSalesCents` = −Σ postings on `sales_revenue`, `service_revenue`, `discounts`, `refunds`;
 * - `taxCents` (= tax collected − tax refunded) = −Σ postings on `sales_tax_payable`;
 * - `tipCents` = tips on sales − tips refunded.
 *
 * Cancellations of open API orders give back money received ahead of a sale that never happened: they are not
 * refunds of a sale and do not appear in the sales figures (the refunds report lists them, kind `cancellation`).
 * Invoices and free-amount pay links post their own journal transactions (source `invoice` / `pay_request`): they are
 * in the trial balance, not in the order-based sales summary.
 *
 * **Period.** `from` and `to` are calendar dates (`YYYY-MM-DD`, both inclusive) in the merchant's IANA time zone
 * (`merchants.time_zone`, default `UTC`) or the `timeZone` given; the period runs from 00:00 of `from` to 00:00 of
 * the day after `to`, local time (so a day of a daylight-saving change has 23 or 25 hours). At most 366 days.
 */
import { z } from 'zod';
import type { Order } from '../../../core/index.ts';
import type { Queryable } from '../db/db.ts';
import { ProblemError } from '../http/problem.ts';

/** Longest period a report covers, in days. */
export const MAX_REPORT_DAYS = 366;

/** `from`, `to`, `timeZone` of every report, as the query string gives them. */
export const reportPeriodQuerySchema = z.strictObject({
  from: z.iso.date().describe('First day of the period (YYYY-MM-DD, merchant time zone), inclusive.'),
  to: z.iso.date().optional().describe('Last day of the period (YYYY-MM-DD), inclusive; default `from`. At most 366 days after `from`.'),
  timeZone: z.string().min(1).max(64).optional().describe("IANA time zone (e.g. America/New_York); default the merchant's (UTC unless set)."),
  format: z.enum(['json', 'csv']).optional().describe('`csv` answers text/csv (so does `Accept: text/csv`); default json.'),
});
export type ReportPeriodQuery = z.infer<typeof reportPeriodQuerySchema>;

/** The period a report covered, echoed in every JSON report. `start`/`end` are UTC instants, `end` exclusive. */
export const reportPeriodSchema = z.strictObject({
  from: z.iso.date(),
  to: z.iso.date(),
  timeZone: z.string(),
  start: z.iso.datetime().describe('00:00 of `from` in the time zone, as UTC.'),
  end: z.iso.datetime().describe('00:00 of the day after `to` in the time zone, as UTC (exclusive).'),
});
export type ReportPeriod = z.infer<typeof reportPeriodSchema>;

/**
 * Resolves a period query against the merchant: its time zone and currency, and the UTC bounds.
 * @throws ProblemError 400 naming `timeZone` (unknown zone), `to` (before `from`, or more than 366 days).
 */
export async function resolvePeriod(db: Queryable, merchantId: string, q: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>): Promise<{ period: ReportPeriod; currency: string }> {
  const to = q.to ?? q.from;
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000;
  if (days < 0) throw new ProblemError(400, 'validation_error', `Invalid to: ${to} is before from (${q.from}).`, [{ path: 'to', message: 'must not be before from' }]);
  if (days >= MAX_REPORT_DAYS) {
    throw new ProblemError(400, 'validation_error', `Invalid to: a report covers at most ${MAX_REPORT_DAYS} days.`, [{ path: 'to', message: `must be within ${MAX_REPORT_DAYS} days of from` }]);
  }
  const merchant = (await db.query<{ currency: string; time_zone: string }>('SELECT currency, time_zone FROM merchants WHERE id = $1', [merchantId])).rows[0];
  if (!merchant) throw new ProblemError(404, 'not_found', 'No such merchant.');
  const timeZone = q.timeZone ?? merchant.time_zone;
  // The database's own zone list decides, since it does the arithmetic.
  const known = await db.query('SELECT 1 FROM pg_timezone_names WHERE name = $1', [timeZone]);
  if (known.rows.length === 0) {
    throw new ProblemError(400, 'validation_error', `Invalid timeZone: "${timeZone}" is not an IANA time zone name.`, [{ path: 'timeZone', message: 'must be an IANA time zone, e.g. America/New_York' }]);
  }
  const bounds = (
    await db.query<{ start: Date; end: Date }>(
      `SELECT ($1::date::timestamp AT TIME ZONE $3) AS start, (($2::date + 1)::timestamp AT TIME ZONE $3) AS "end"`,
      [q.from, to, timeZone],
    )
  ).rows[0]!;
  return {
    currency: merchant.currency,
    period: { from: q.from, to, timeZone, start: new Date(bounds.start).toISOString(), end: new Date(bounds.end).toISOString() },
  };
}

/* ───────────────────────────── sales ───────────────────────────── */

export const SALES_GROUPINGS = ['day', 'hour', 'item', 'category', 'tender', 'staff'] as const;
export type SalesGrouping = (typeof SALES_GROUPINGS)[number];

const salesFigures = {
  orders: z.int().describe('Sales (paid orders) counted in the period.'),
  refunds: z.int().describe('Refunds (kind refund) counted in the period.'),
  quantity: z.int().describe('Units sold.'),
  refundedQuantity: z.int().describe('Units given back by line refunds.'),
  grossSalesCents: z.int().describe('Line amounts before discounts, inclusive tax taken out (what revenue accounts are credited).'),
  discountCents: z.int(),
  refundCents: z.int().describe('Goods given back, tax excluded (the refunds contra-revenue account).'),
  netSalesCents: z.int().describe('gross − discounts − refunds.'),
  taxCents: z.int().describe('Tax on sales − tax refunded.'),
  tipCents: z.int().describe('Tips on sales − tips refunded.'),
  totalCents: z.int().describe('net sales + tax + tips: what the merchant keeps.'),
};

/** One row of a sales summary grouped by day, hour, item, category or staff member. */
export const salesRowSchema = z.strictObject({
  key: z
    .string()
    .describe(
      'day: YYYY-MM-DD; hour: 00…23 (hour of day); item: catalog item id; category: category name; staff: staff id or "none". ' +
        'Item and category summaries add a "(tips)" row and, when refunds are not tied to lines, an "(unallocated)" row, so ' +
        'the money columns add up to the totals; their `orders` counts orders containing the item (not additive).',
    ),
  label: z.string(),
  ...salesFigures,
});
export type SalesRow = z.infer<typeof salesRowSchema>;

/** One row of the sales summary by tender method. */
export const tenderRowSchema = z.strictObject({
  key: z.string().describe('Tender method: cash, card, check, other.'),
  label: z.string(),
  count: z.int().describe('Tenders on the sales of the period.'),
  amountCents: z.int().describe('What they paid, tips included.'),
  tipCents: z.int(),
  refundCents: z.int().describe('Money given back to this method by refunds of the period (tax and tips included).'),
  netCents: z.int().describe('amount − refunds.'),
});
export type TenderRow = z.infer<typeof tenderRowSchema>;

export const salesTotalsSchema = z.strictObject(salesFigures);
export type SalesTotals = z.infer<typeof salesTotalsSchema>;

/** `GET /api/pos/reports/sales` JSON body. */
export const salesReportSchema = z.strictObject({
  report: z.literal('sales'),
  groupBy: z.enum(SALES_GROUPINGS),
  period: reportPeriodSchema,
  currency: z.string(),
  totals: salesTotalsSchema,
  rows: z.union([z.array(salesRowSchema), z.array(tenderRowSchema)]).describe('tender rows when groupBy=tender, else sales rows; sorted by key.'),
});
export type SalesReport = z.infer<typeof salesReportSchema>;

interface SaleRecord {
  order: Order;
  day: string;
  hour: string;
}

interface RefundRecordRow {
  id: string;
  order_id: string;
  receipt_number: string;
  kind: 'refund' | 'cancellation';
  amount_cents: number | string;
  goods_cents: number | string;
  tax_cents: number | string;
  tip_cents: number | string;
  lines: { lineId: string; quantity: number; amountCents: number; taxCents: number }[];
  allocations: { paymentId: string; amountCents: number; accountCode: string }[];
  restock: boolean;
  reason: string | null;
  occurred_at: Date;
  day: string;
  hour: string;
  staff_id: string | null;
  order_lines: Order['lines'];
}

const BATCH = 500;

/** Sales of the period in occurrence order, read in batches (keyset on the journal transaction's time and id). */
async function* salesOf(db: Queryable, merchantId: string, period: ReportPeriod): AsyncGenerator<SaleRecord> {
  let after: [string, string] | undefined;
  for (;;) {
    const params: unknown[] = [merchantId, period.start, period.end, period.timeZone];
    let keyset = '';
    if (after) {
      params.push(after[0], after[1]);
      keyset = 'AND (j.occurred_at, j.id) > ($5::timestamptz, $6::text)';
    }
    params.push(BATCH);
    const { rows } = await db.query<{ jt_id: string; occurred_at: Date; data: Order; day: string; hour: string }>(
      `SELECT j.id AS jt_id, j.occurred_at, o.data,
              to_char(j.occurred_at AT TIME ZONE $4, 'YYYY-MM-DD') AS day, to_char(j.occurred_at AT TIME ZONE $4, 'HH24') AS hour
       FROM journal_transactions j JOIN orders o ON o.id = j.source_id AND o.merchant_id = j.merchant_id
       WHERE j.merchant_id = $1 AND j.kind = 'sale' AND j.source_type = 'order' AND j.occurred_at >= $2 AND j.occurred_at < $3 ${keyset}
       ORDER BY j.occurred_at, j.id LIMIT $${params.length}`,
      params,
    );
    for (const r of rows) yield { order: r.data, day: r.day, hour: r.hour };
    if (rows.length < BATCH) return;
    const last = rows.at(-1)!;
    after = [new Date(last.occurred_at).toISOString(), last.jt_id];
  }
}

/** Refund records (both kinds) whose journal transaction occurred in the period, oldest first. */
async function refundsOf(db: Queryable, merchantId: string, period: ReportPeriod): Promise<RefundRecordRow[]> {
  const { rows } = await db.query<RefundRecordRow>(
    `SELECT r.id, r.order_id, o.receipt_number, r.kind, r.amount_cents, r.goods_cents, r.tax_cents, r.tip_cents, r.lines, r.allocations,
            r.restock, r.reason, j.occurred_at, o.data->>'staffId' AS staff_id, o.data->'lines' AS order_lines,
            to_char(j.occurred_at AT TIME ZONE $4, 'YYYY-MM-DD') AS day, to_char(j.occurred_at AT TIME ZONE $4, 'HH24') AS hour
     FROM order_refunds r JOIN journal_transactions j ON j.id = r.journal_transaction_id JOIN orders o ON o.id = r.order_id
     WHERE r.merchant_id = $1 AND j.occurred_at >= $2 AND j.occurred_at < $3
     ORDER BY j.occurred_at, r.id`,
    [merchantId, period.start, period.end, period.timeZone],
  );
  return rows;
}

const emptyFigures = (): SalesTotals => ({
  orders: 0,
  refunds: 0,
  quantity: 0,
  refundedQuantity: 0,
  grossSalesCents: 0,
  discountCents: 0,
  refundCents: 0,
  netSalesCents: 0,
  taxCents: 0,
  tipCents: 0,
  totalCents: 0,
});

function finishFigures(f: SalesTotals): SalesTotals {
  const netSalesCents = f.grossSalesCents - f.discountCents - f.refundCents;
  return { ...f, netSalesCents, totalCents: netSalesCents + f.taxCents + f.tipCents };
}

/** Revenue credited for a line: its gross less the tax it includes (core/ledger.ts buildSaleJournalTransaction). */
function lineRevenue(line: Order['lines'][number]): number {
  return line.grossCents - (line.taxes.some((t) => t.inclusive) ? line.taxCents : 0);
}

/** Rows of item/category summaries that are not an item: tips, and refunds no line explains. */
const TIPS_KEY = '(tips)';
const UNALLOCATED_KEY = '(unallocated)';

const TENDER_LABELS: Record<string, string> = { cash: 'Cash', card: 'Card', check: 'Check', other: 'Other' };

/**
 * The sales summary of a period grouped by `groupBy`. Rows are sorted by key; totals are over the whole period (the
 * sum of the rows' figures, for every grouping but tender, whose rows have their own shape).
 */
export async function salesReport(db: Queryable, merchantId: string, query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>, groupBy: SalesGrouping): Promise<SalesReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const totals = emptyFigures();
  const groups = new Map<string, SalesTotals & { label: string }>();
  const tenders = new Map<string, TenderRow>();
  const group = (key: string, label: string) => {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ...emptyFigures(), label }));
    return g;
  };
  const tender = (method: string) => {
    let t = tenders.get(method);
    if (!t) tenders.set(method, (t = { key: method, label: TENDER_LABELS[method] ?? method, count: 0, amountCents: 0, tipCents: 0, refundCents: 0, netCents: 0 }));
    return t;
  };
  const staffIds = new Set<string>();
  // Lines are attributed to their item (label: the name on the first line seen) or to the item's category in the
  // catalog now (items no longer in the catalog: "Uncategorized").
  const categories = groupBy === 'category' ? await categoriesOf(db, merchantId) : new Map<string, string>();
  const byLine = (line: Order['lines'][number]) => {
    if (groupBy === 'item') return group(line.catalogItemId, line.name);
    const name = categories.get(line.catalogItemId) ?? 'Uncategorized';
    return group(name, name);
  };

  for await (const { order, day, hour } of salesOf(db, merchantId, period)) {
    const gross = order.lines.reduce((a, l) => a + lineRevenue(l), 0);
    const units = order.lines.reduce((a, l) => a + l.quantity, 0);
    totals.orders += 1;
    totals.quantity += units;
    totals.grossSalesCents += gross;
    totals.discountCents += order.discountCents;
    totals.taxCents += order.taxCents;
    totals.tipCents += order.tipCents;
    if (order.staffId) staffIds.add(order.staffId);
    for (const t of order.tenders) {
      const row = tender(t.method);
      row.count += 1;
      row.amountCents += t.amountCents;
      row.tipCents += t.tipCents;
    }
    if (groupBy === 'item' || groupBy === 'category') {
      const seen = new Set<SalesTotals>();
      for (const line of order.lines) {
        const g = byLine(line);
        if (!seen.has(g)) g.orders += 1;
        seen.add(g);
        g.quantity += line.quantity;
        g.grossSalesCents += lineRevenue(line);
        g.discountCents += line.discountCents;
        g.taxCents += line.taxCents;
      }
      // Tips belong to the order, not to an item: one row of their own keeps the money columns adding up.
      if (order.tipCents !== 0) group(TIPS_KEY, 'Tips').tipCents += order.tipCents;
    } else if (groupBy !== 'tender') {
      const key = groupBy === 'day' ? day : groupBy === 'hour' ? hour : (order.staffId ?? 'none');
      const g = group(key, groupBy === 'hour' ? `${hour}:00–${hour}:59` : key);
      g.orders += 1;
      g.quantity += units;
      g.grossSalesCents += gross;
      g.discountCents += order.discountCents;
      g.taxCents += order.taxCents;
      g.tipCents += order.tipCents;
    }
  }

  const refunds = (await refundsOf(db, merchantId, period)).filter((r) => r.kind === 'refund');
  const paymentMethods = new Map<string, string>();
  if (groupBy === 'tender' && refunds.length > 0) {
    const ids = [...new Set(refunds.flatMap((r) => r.allocations.map((a) => a.paymentId)))];
    const { rows } = await db.query<{ id: string; method: string }>('SELECT id, method FROM order_payments WHERE id = ANY($1::text[])', [ids]);
    for (const r of rows) paymentMethods.set(r.id, r.method);
  }
  for (const r of refunds) {
    const net = Number(r.goods_cents) - Number(r.tax_cents);
    const tax = Number(r.tax_cents);
    const tip = Number(r.tip_cents);
    const units = r.lines.reduce((a, l) => a + l.quantity, 0);
    totals.refunds += 1;
    totals.refundedQuantity += units;
    totals.refundCents += net;
    totals.taxCents -= tax;
    totals.tipCents -= tip;
    if (r.staff_id) staffIds.add(r.staff_id);
    if (groupBy === 'tender') {
      for (const a of r.allocations) tender(paymentMethods.get(a.paymentId) ?? 'other').refundCents += a.amountCents;
    } else if (groupBy === 'item' || groupBy === 'category') {
      // Line refunds go to the line's item; what the lines do not explain (refunds by amount, rounding of the tax
      // cap) goes to one "unallocated" row, so the rows still add up to the totals.
      let netLeft = net;
      let taxLeft = tax;
      for (const l of r.lines) {
        const line = r.order_lines.find((x) => x.id === l.lineId);
        if (!line) continue;
        const g = byLine(line);
        g.refundedQuantity += l.quantity;
        g.refundCents += l.amountCents - l.taxCents;
        g.taxCents -= l.taxCents;
        netLeft -= l.amountCents - l.taxCents;
        taxLeft -= l.taxCents;
      }
      if (tip !== 0) group(TIPS_KEY, 'Tips').tipCents -= tip;
      const firstLine = r.lines.length > 0 ? r.order_lines.find((x) => x.id === r.lines[0]!.lineId) : undefined;
      if (netLeft !== 0 || taxLeft !== 0 || !firstLine) {
        const g = group(UNALLOCATED_KEY, 'Refunds not tied to a line');
        g.refundCents += netLeft;
        g.taxCents -= taxLeft;
        if (!firstLine) g.refunds += 1;
      }
      if (firstLine) byLine(firstLine).refunds += 1;
    } else {
      const key = groupBy === 'day' ? r.day : groupBy === 'hour' ? r.hour : (r.staff_id ?? 'none');
      const g = group(key, groupBy === 'hour' ? `${r.hour}:00–${r.hour}:59` : key);
      g.refunds += 1;
      g.refundedQuantity += units;
      g.refundCents += net;
      g.taxCents -= tax;
      g.tipCents -= tip;
    }
  }

  let rows: SalesRow[] | TenderRow[];
  if (groupBy === 'tender') {
    rows = [...tenders.values()].map((t) => ({ ...t, netCents: t.amountCents - t.refundCents })).sort((a, b) => a.key.localeCompare(b.key));
  } else {
    const entries = [...groups.entries()];
    if (groupBy === 'staff') {
      const names = await staffNamesOf(db, merchantId, [...staffIds]);
      for (const [key, g] of entries) g.label = key === 'none' ? 'No staff member' : (names.get(key) ?? key);
    }
    rows = entries
      .map(([key, g]) => {
        const { label, ...figures } = g;
        return { key, label, ...finishFigures(figures) };
      })
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  return { report: 'sales', groupBy, period, currency, totals: finishFigures(totals), rows };
}

/** Category of every catalog item of the merchant, deleted ones included (their past sales keep a category). */
async function categoriesOf(db: Queryable, merchantId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; category: string | null }>(
    `SELECT id, data->>'category' AS category FROM catalog_items WHERE merchant_id = $1`,
    [merchantId],
  );
  return new Map(rows.filter((r) => r.category).map((r) => [r.id, r.category!]));
}

async function staffNamesOf(db: Queryable, merchantId: string, staffIds: string[]): Promise<Map<string, string>> {
  if (staffIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; name: string }>('SELECT id, name FROM staff WHERE merchant_id = $1 AND id = ANY($2::text[])', [merchantId, staffIds]);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/* ───────────────────────────── tax ───────────────────────────── */

export const taxRowSchema = z.strictObject({
  taxRateId: z.string(),
  name: z.string(),
  basisPoints: z.int(),
  inclusive: z.boolean(),
  orders: z.int().describe('Sales carrying this rate.'),
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
    refundedCents: z.int().describe('Tax given back by refunds (not split per rate: refunds by amount carry none).'),
    netCents: z.int().describe('collected − refunded: the movement of sales tax payable from orders.'),
  }),
});
export type TaxReport = z.infer<typeof taxReportSchema>;

/** Tax collected in the period per tax rate, and tax refunded. */
export async function taxReport(db: Queryable, merchantId: string, query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>): Promise<TaxReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const rows = new Map<string, TaxRow>();
  for await (const { order } of salesOf(db, merchantId, period)) {
    for (const t of order.taxLines) {
      const key = `${t.taxRateId}\u0000${t.basisPoints}\u0000${t.inclusive}`;
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { taxRateId: t.taxRateId, name: t.name, basisPoints: t.basisPoints, inclusive: t.inclusive, orders: 0, taxableCents: 0, taxCents: 0 }));
      row.orders += 1;
      row.taxableCents += t.taxableCents;
      row.taxCents += t.taxCents;
    }
  }
  const refunded = (await refundsOf(db, merchantId, period)).filter((r) => r.kind === 'refund').reduce((a, r) => a + Number(r.tax_cents), 0);
  const list = [...rows.values()].sort((a, b) => a.taxRateId.localeCompare(b.taxRateId) || a.basisPoints - b.basisPoints || Number(a.inclusive) - Number(b.inclusive));
  const collected = list.reduce((a, r) => a + r.taxCents, 0);
  return {
    report: 'tax',
    period,
    currency,
    rows: list,
    totals: { taxableCents: list.reduce((a, r) => a + r.taxableCents, 0), collectedCents: collected, refundedCents: refunded, netCents: collected - refunded },
  };
}

/* ───────────────────────────── refunds ───────────────────────────── */

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
export type RefundReportRow = z.infer<typeof refundReportRowSchema>;

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

/** Every refund and cancellation of the period, oldest first. */
export async function refundReport(db: Queryable, merchantId: string, query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>): Promise<RefundReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const records = await refundsOf(db, merchantId, period);
  const rows = records.map((r) => ({
    refundId: r.id,
    orderId: r.order_id,
    receiptNumber: r.receipt_number,
    kind: r.kind,
    occurredAt: new Date(r.occurred_at).toISOString(),
    amountCents: Number(r.amount_cents),
    goodsCents: Number(r.goods_cents),
    taxCents: Number(r.tax_cents),
    tipCents: Number(r.tip_cents),
    lines: r.lines.length,
    restock: r.restock,
    reason: r.reason,
  }));
  const refunds = rows.filter((r) => r.kind === 'refund');
  return {
    report: 'refunds',
    period,
    currency,
    rows,
    totals: {
      refunds: refunds.length,
      cancellations: rows.length - refunds.length,
      amountCents: rows.reduce((a, r) => a + r.amountCents, 0),
      refundCents: refunds.reduce((a, r) => a + r.goodsCents - r.taxCents, 0),
      taxCents: refunds.reduce((a, r) => a + r.taxCents, 0),
      tipCents: refunds.reduce((a, r) => a + r.tipCents, 0),
    },
  };
}

/* ───────────────────────────── trial balance ───────────────────────────── */

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

/**
 * The trial balance over the period: per account, the balance before it, the debits and credits posted in it (by
 * the journal transactions' `occurredAt`) and the closing balance. Every journal transaction counts, whatever its
 * source (orders, invoices, pay links, …).
 */
export async function trialBalanceReport(db: Queryable, merchantId: string, query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>): Promise<TrialBalanceReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const { rows } = await db.query<{ code: string; name: string; type: TrialBalanceRow['type']; opening: string | number; debit: string | number; credit: string | number }>(
    `SELECT a.code, a.name, a.type,
            COALESCE(SUM(p.amount_cents) FILTER (WHERE j.occurred_at < $2), 0)::bigint AS opening,
            COALESCE(SUM(p.amount_cents) FILTER (WHERE j.occurred_at >= $2 AND j.occurred_at < $3 AND p.amount_cents > 0), 0)::bigint AS debit,
            COALESCE(-SUM(p.amount_cents) FILTER (WHERE j.occurred_at >= $2 AND j.occurred_at < $3 AND p.amount_cents < 0), 0)::bigint AS credit
     FROM accounts a
     LEFT JOIN postings p ON p.account_id = a.id
     LEFT JOIN journal_transactions j ON j.id = p.journal_transaction_id
     WHERE a.merchant_id = $1
     GROUP BY a.code, a.name, a.type ORDER BY a.code`,
    [merchantId, period.start, period.end],
  );
  const list = rows.map((r) => {
    const openingCents = Number(r.opening);
    const debitCents = Number(r.debit);
    const creditCents = Number(r.credit);
    return { code: r.code, name: r.name, type: r.type, openingCents, debitCents, creditCents, closingCents: openingCents + debitCents - creditCents };
  });
  const sum = (k: 'openingCents' | 'debitCents' | 'creditCents' | 'closingCents') => list.reduce((a, r) => a + r[k], 0);
  return {
    report: 'trial-balance',
    period,
    currency,
    rows: list,
    totals: { openingCents: sum('openingCents'), debitCents: sum('debitCents'), creditCents: sum('creditCents'), closingCents: sum('closingCents') },
  };
}
