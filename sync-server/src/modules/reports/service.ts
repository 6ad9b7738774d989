/**
 * Back-office reports (docs/api.md "Reports"): sales summaries by day,
 * hour of day, item, category, tender and staff member; tax collected; refunds; the ledger's trial balance over a
 * period. Staff only. Every figure is integer minor units (`…Cents`) of the merchant's currency.
 *
 * **When a sale counts.** A sale is counted at the time its sale journal transaction occurred (`kind = 'sale'`):
 * - a register sale at its business time (`createdAt`), an API order when it became fully paid (source `order`);
 * - an invoice when it was issued (sent for the first time: the receivable and the revenue are posted then, source
 *   `invoice`; its later payments move money from receivables to the rail and are not sales again);
 * - a pay link that is neither an order's nor an invoice's (a free amount or `lineItems`) when it was paid (source
 *   `pay_request`; links paying an order or an invoice are that order's or invoice's payments).
 *
 * A refund counts at the time of its refund journal transaction; an issued invoice that is voided counts as a
 * **void** at the time of the reversing transaction (source `invoice`, kind `adjustment`). So the sales figures of any
 * period reconcile with the ledger postings of the same period, whatever the source:
 *
 * - `netSalesCents` = −Σ postings on `sales_revenue`, `service_revenue`, `discounts`, `refunds`;
 * - `taxCents` (= tax on sales − tax refunded − tax of voided invoices) = −Σ postings on `sales_tax_payable`;
 * - `tipCents` = tips on sales − tips refunded.
 *
 * Cancellations of open API orders give back money received ahead of a sale that never happened: they are not
 * refunds of a sale and do not appear in the sales figures (the refunds report lists them, kind `cancellation`).
 *
 * **Period.** `from` and `to` are calendar dates (`YYYY-MM-DD`, both inclusive) in the merchant's IANA time zone
 * (`merchants.time_zone`, default `UTC`) or the `timeZone` given; the period runs from 00:00 of `from` to 00:00 of
 * the day after `to`, local time (so a day of a daylight-saving change has 23 or 25 hours). At most 366 days.
 */
import { z } from 'zod';
import {
  computeOrderTotals,
  reportPeriodSchema,
  tenderLabel,
  type InvoiceLine,
  type LedgerReconciliation,
  type Order,
  type OrderLine,
  type RefundReport,
  type ReportPeriod,
  type SalesGrouping,
  type SalesReport,
  type SalesRow,
  type SalesTotals,
  type TaxLine,
  type TaxReport,
  type TaxRow,
  type TenderRow,
  type TrialBalanceReport,
  type TrialBalanceRow,
} from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/** The report bodies' schemas live in core/reports.ts (shared with the register's back office). */
export {
  SALES_GROUPINGS,
  refundReportSchema,
  salesReportSchema,
  taxReportSchema,
  trialBalanceReportSchema,
  type ReportPeriod,
} from '../../../../core/index.ts';

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

/**
 * Resolves a period query against the merchant: its time zone and currency, and the UTC bounds.
 * @throws ProblemError 400 naming `timeZone` (unknown zone), `to` (before `from`, or more than 366 days).
 */
export async function resolvePeriod(
  db: Queryable,
  merchantId: string,
  q: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>,
): Promise<{ period: ReportPeriod; currency: string }> {
  const to = q.to ?? q.from;
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000;
  if (days < 0)
    throw new ProblemError(400, 'validation_error', `Invalid to: ${to} is before from (${q.from}).`, [
      { path: 'to', message: 'must not be before from' },
    ]);
  if (days >= MAX_REPORT_DAYS) {
    throw new ProblemError(400, 'validation_error', `Invalid to: a report covers at most ${MAX_REPORT_DAYS} days.`, [
      { path: 'to', message: `must be within ${MAX_REPORT_DAYS} days of from` },
    ]);
  }
  const merchant = (await db.query<{ currency: string; time_zone: string }>('SELECT currency, time_zone FROM merchants WHERE id = $1', [merchantId]))
    .rows[0];
  if (!merchant) throw new ProblemError(404, 'not_found', 'No such merchant.');
  const timeZone = q.timeZone ?? merchant.time_zone;
  // The database's own zone list decides, since it does the arithmetic.
  const known = await db.query('SELECT 1 FROM pg_timezone_names WHERE name = $1', [timeZone]);
  if (known.rows.length === 0) {
    throw new ProblemError(400, 'validation_error', `Invalid timeZone: "${timeZone}" is not an IANA time zone name.`, [
      { path: 'timeZone', message: 'must be an IANA time zone, e.g. America/New_York' },
    ]);
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

/** One line of a sale as the reports see it, whatever the source. */
interface ReportLine {
  /** Catalog item id, or `(custom)` / `(pay link)`. */
  itemKey: string;
  catalogItemId: string | null;
  label: string;
  quantity: number;
  /** What the revenue account is credited: gross less the tax it includes (cents). */
  revenueCents: number;
  discountCents: number;
  taxCents: number;
}

/**
 * A sale (`sign` 1) or the void of an issued invoice (`sign` −1) in one shape, whatever its source. Amounts are the
 * sale's own (positive) cents; the void's sign says how they count.
 */
interface SaleRecord {
  source: 'order' | 'invoice' | 'pay_request';
  sign: 1 | -1;
  day: string;
  hour: string;
  staffId: string | null;
  lines: ReportLine[];
  discountCents: number;
  taxCents: number;
  tipCents: number;
  tenders: { method: string; amountCents: number; tipCents: number }[];
  taxLines: readonly TaxLine[];
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

/** Revenue credited for a line: its gross less the tax it includes (core/ledger.ts buildSaleJournalTransaction). */
function lineRevenue(line: { grossCents: number; taxCents: number; taxes: readonly { inclusive: boolean }[] }): number {
  return line.grossCents - (line.taxes.some((t) => t.inclusive) ? line.taxCents : 0);
}

const CUSTOM_KEY = '(custom)';
const PAY_LINK_KEY = '(pay link)';

/** The staff member behind an actor string (`staff:<id>`), if any. */
function staffOf(actor: string | null | undefined): string | null {
  return actor?.startsWith('staff:') ? actor.slice('staff:'.length) : null;
}

interface SaleSourceRow {
  jt_id: string;
  occurred_at: Date;
  kind: 'sale' | 'adjustment';
  source_type: 'order' | 'invoice' | 'pay_request';
  day: string;
  hour: string;
  order_data: Order | null;
  inv_lines: InvoiceLine[] | null;
  inv_tax_lines: TaxLine[] | null;
  inv_tax_cents: string | number | null;
  inv_total_cents: string | number | null;
  inv_created_by: string | null;
  pr_line_items: OrderLine[] | null;
  pr_amount_cents: string | number | null;
  pr_payment: { method: string } | null;
  pr_memo: string | null;
  pr_created_by: string | null;
}

function toSaleRecord(r: SaleSourceRow): SaleRecord {
  const base = { day: r.day, hour: r.hour };
  if (r.source_type === 'order') {
    const order = r.order_data!;
    return {
      ...base,
      source: 'order',
      sign: 1,
      staffId: order.staffId ?? null,
      lines: order.lines.map((l) => ({
        itemKey: l.catalogItemId,
        catalogItemId: l.catalogItemId,
        label: l.name,
        quantity: l.quantity,
        revenueCents: lineRevenue(l),
        discountCents: l.discountCents,
        taxCents: l.taxCents,
      })),
      discountCents: order.discountCents,
      taxCents: order.taxCents,
      tipCents: order.tipCents,
      tenders: order.tenders.map((t) => ({ method: t.method, amountCents: t.amountCents, tipCents: t.tipCents })),
      taxLines: order.taxLines,
    };
  }
  if (r.source_type === 'invoice') {
    return {
      ...base,
      source: 'invoice',
      sign: r.kind === 'sale' ? 1 : -1,
      staffId: staffOf(r.inv_created_by),
      lines: r.inv_lines!.map((l) => ({
        itemKey: l.catalogItemId ?? CUSTOM_KEY,
        catalogItemId: l.catalogItemId,
        label: l.catalogItemId ? l.description : 'Custom invoice lines',
        quantity: l.quantity,
        revenueCents: lineRevenue(l),
        discountCents: 0,
        taxCents: l.taxCents,
      })),
      discountCents: 0,
      taxCents: Number(r.inv_tax_cents),
      tipCents: 0,
      tenders: [{ method: 'invoice', amountCents: Number(r.inv_total_cents), tipCents: 0 }],
      taxLines: r.inv_tax_lines!,
    };
  }
  const amountCents = Number(r.pr_amount_cents);
  const items = r.pr_line_items;
  return {
    ...base,
    source: 'pay_request',
    sign: 1,
    staffId: staffOf(r.pr_created_by),
    lines: items
      ? items.map((l) => ({
          itemKey: l.catalogItemId,
          catalogItemId: l.catalogItemId,
          label: l.name,
          quantity: l.quantity,
          revenueCents: lineRevenue(l),
          discountCents: l.discountCents,
          taxCents: l.taxCents,
        }))
      : [
          {
            itemKey: PAY_LINK_KEY,
            catalogItemId: null,
            label: 'Pay links (free amount)',
            quantity: 1,
            revenueCents: amountCents,
            discountCents: 0,
            taxCents: 0,
          },
        ],
    discountCents: items ? items.reduce((a, l) => a + l.discountCents, 0) : 0,
    taxCents: items ? items.reduce((a, l) => a + l.taxCents, 0) : 0,
    tipCents: 0,
    tenders: [{ method: r.pr_payment?.method ?? 'other', amountCents, tipCents: 0 }],
    taxLines: items ? computeOrderTotals(items, []).taxLines : [],
  };
}

/**
 * Sales (and invoice voids) of the period in occurrence order, from every source, read in batches (keyset on the
 * journal transaction's time and id).
 */
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
    const { rows } = await db.query<SaleSourceRow>(
      `SELECT j.id AS jt_id, j.occurred_at, j.kind, j.source_type,
              to_char(j.occurred_at AT TIME ZONE $4, 'YYYY-MM-DD') AS day, to_char(j.occurred_at AT TIME ZONE $4, 'HH24') AS hour,
              o.data AS order_data,
              i.lines AS inv_lines, i.tax_lines AS inv_tax_lines, i.tax_cents AS inv_tax_cents, i.total_cents AS inv_total_cents, i.created_by AS inv_created_by,
              pr.line_items AS pr_line_items, pr.amount_cents AS pr_amount_cents, pr.payment AS pr_payment, pr.memo AS pr_memo, pr.created_by AS pr_created_by
       FROM journal_transactions j
       LEFT JOIN orders o ON j.source_type = 'order' AND o.id = j.source_id AND o.merchant_id = j.merchant_id
       LEFT JOIN invoices i ON j.source_type = 'invoice' AND i.id = j.source_id AND i.merchant_id = j.merchant_id
       LEFT JOIN pay_requests pr ON j.source_type = 'pay_request' AND pr.id = j.source_id AND pr.merchant_id = j.merchant_id
       WHERE j.merchant_id = $1 AND j.occurred_at >= $2 AND j.occurred_at < $3
         AND ((j.kind = 'sale' AND j.source_type IN ('order', 'invoice', 'pay_request')) OR (j.kind = 'adjustment' AND j.source_type = 'invoice'))
         ${keyset}
       ORDER BY j.occurred_at, j.id LIMIT $${params.length}`,
      params,
    );
    for (const r of rows) {
      // A journal transaction whose source row is gone cannot be described; the ledger keeps it (trial balance).
      if (
        (r.source_type === 'order' && !r.order_data) ||
        (r.source_type === 'invoice' && !r.inv_lines) ||
        (r.source_type === 'pay_request' && r.pr_amount_cents === null)
      )
        continue;
      yield toSaleRecord(r);
    }
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
  voids: 0,
  quantity: 0,
  refundedQuantity: 0,
  grossSalesCents: 0,
  discountCents: 0,
  refundCents: 0,
  voidCents: 0,
  netSalesCents: 0,
  taxCents: 0,
  tipCents: 0,
  totalCents: 0,
});

function finishFigures(f: SalesTotals): SalesTotals {
  const netSalesCents = f.grossSalesCents - f.discountCents - f.refundCents - f.voidCents;
  return { ...f, netSalesCents, totalCents: netSalesCents + f.taxCents + f.tipCents };
}

/** How an order line is keyed in item and category summaries. */
const orderLineKey = (line: OrderLine) => ({ itemKey: line.catalogItemId, catalogItemId: line.catalogItemId, label: line.name });

/** Rows of item/category summaries that are not an item: tips, and refunds no line explains. */
const TIPS_KEY = '(tips)';
const UNALLOCATED_KEY = '(unallocated)';

/**
 * The sales summary of a period grouped by `groupBy`. Rows are sorted by key; totals are over the whole period (the
 * sum of the rows' figures, for every grouping but tender, whose rows have their own shape).
 */
export async function salesReport(
  db: Queryable,
  merchantId: string,
  query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>,
  groupBy: SalesGrouping,
): Promise<SalesReport> {
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
    if (!t)
      tenders.set(method, (t = { key: method, label: tenderLabel(method), count: 0, amountCents: 0, tipCents: 0, refundCents: 0, netCents: 0 }));
    return t;
  };
  const staffIds = new Set<string>();
  // Lines are attributed to their item (label: the name on the first line seen) or to the item's category in the
  // catalog now (items no longer in the catalog: "Uncategorized").
  const categories = groupBy === 'category' ? await categoriesOf(db, merchantId) : new Map<string, string>();
  const byLine = (line: Pick<ReportLine, 'itemKey' | 'catalogItemId' | 'label'>) => {
    if (groupBy === 'item') return group(line.itemKey, line.label);
    const name = (line.catalogItemId && categories.get(line.catalogItemId)) || 'Uncategorized';
    return group(name, name);
  };

  for await (const sale of salesOf(db, merchantId, period)) {
    const gross = sale.lines.reduce((a, l) => a + l.revenueCents, 0);
    const units = sale.lines.reduce((a, l) => a + l.quantity, 0);
    if (sale.staffId) staffIds.add(sale.staffId);
    if (sale.sign < 0) {
      // An issued invoice voided: its revenue and tax come off, as voids (the invoice was a sale on account).
      const addVoid = (f: SalesTotals, revenueCents: number, taxCents: number) => {
        f.voids += 1;
        f.voidCents += revenueCents;
        f.taxCents -= taxCents;
      };
      addVoid(totals, gross, sale.taxCents);
      for (const t of sale.tenders) tender(t.method).refundCents += t.amountCents;
      if (groupBy === 'item' || groupBy === 'category') {
        const seen = new Set<SalesTotals>();
        for (const line of sale.lines) {
          const g = byLine(line);
          g.voidCents += line.revenueCents;
          g.taxCents -= line.taxCents;
          if (!seen.has(g)) g.voids += 1;
          seen.add(g);
        }
      } else if (groupBy !== 'tender') {
        const key = groupBy === 'day' ? sale.day : groupBy === 'hour' ? sale.hour : (sale.staffId ?? 'none');
        addVoid(group(key, groupBy === 'hour' ? `${sale.hour}:00–${sale.hour}:59` : key), gross, sale.taxCents);
      }
      continue;
    }
    totals.orders += 1;
    totals.quantity += units;
    totals.grossSalesCents += gross;
    totals.discountCents += sale.discountCents;
    totals.taxCents += sale.taxCents;
    totals.tipCents += sale.tipCents;
    for (const t of sale.tenders) {
      const row = tender(t.method);
      row.count += 1;
      row.amountCents += t.amountCents;
      row.tipCents += t.tipCents;
    }
    if (groupBy === 'item' || groupBy === 'category') {
      const seen = new Set<SalesTotals>();
      for (const line of sale.lines) {
        const g = byLine(line);
        if (!seen.has(g)) g.orders += 1;
        seen.add(g);
        g.quantity += line.quantity;
        g.grossSalesCents += line.revenueCents;
        g.discountCents += line.discountCents;
        g.taxCents += line.taxCents;
      }
      // Tips belong to the order, not to an item: one row of their own keeps the money columns adding up.
      if (sale.tipCents !== 0) group(TIPS_KEY, 'Tips').tipCents += sale.tipCents;
    } else if (groupBy !== 'tender') {
      const key = groupBy === 'day' ? sale.day : groupBy === 'hour' ? sale.hour : (sale.staffId ?? 'none');
      const g = group(key, groupBy === 'hour' ? `${sale.hour}:00–${sale.hour}:59` : key);
      g.orders += 1;
      g.quantity += units;
      g.grossSalesCents += gross;
      g.discountCents += sale.discountCents;
      g.taxCents += sale.taxCents;
      g.tipCents += sale.tipCents;
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
        const g = byLine(orderLineKey(line));
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
      if (firstLine) byLine(orderLineKey(firstLine)).refunds += 1;
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
  const figures = finishFigures(totals);
  const reconciliation = await reconcileWithLedger(db, merchantId, period, { netSalesCents: figures.netSalesCents, taxCents: figures.taxCents });
  return { report: 'sales', groupBy, period, currency, totals: figures, rows, reconciliation };
}

/** Base codes of the accounts whose credits are net sales (the sales report's `netSalesCents`). */
const NET_SALES_ACCOUNTS = ['sales_revenue', 'service_revenue', 'discounts', 'refunds'];

/**
 * Compares a report's net sales and tax with the ledger postings of the journal transactions occurring in the period
 * (−Σ on the net-sales accounts, −Σ on sales tax payable). `netSalesCents` omitted: only tax is compared.
 */
async function reconcileWithLedger(
  db: Queryable,
  merchantId: string,
  period: ReportPeriod,
  report: { netSalesCents?: number; taxCents: number },
): Promise<LedgerReconciliation> {
  const { rows } = await db.query<{ net_sales: string | number; tax: string | number }>(
    `SELECT COALESCE(-SUM(p.amount_cents) FILTER (WHERE split_part(a.code, ':', 1) = ANY($4::text[])), 0)::bigint AS net_sales,
            COALESCE(-SUM(p.amount_cents) FILTER (WHERE split_part(a.code, ':', 1) = 'sales_tax_payable'), 0)::bigint AS tax
     FROM journal_transactions j JOIN postings p ON p.journal_transaction_id = j.id JOIN accounts a ON a.id = p.account_id
     WHERE j.merchant_id = $1 AND j.occurred_at >= $2 AND j.occurred_at < $3`,
    [merchantId, period.start, period.end, NET_SALES_ACCOUNTS],
  );
  const ledgerNetSalesCents = Number(rows[0]?.net_sales ?? 0);
  const ledgerTaxCents = Number(rows[0]?.tax ?? 0);
  const netSalesDifferenceCents = report.netSalesCents === undefined ? 0 : report.netSalesCents - ledgerNetSalesCents;
  const taxDifferenceCents = report.taxCents - ledgerTaxCents;
  return {
    reconciled: netSalesDifferenceCents === 0 && taxDifferenceCents === 0,
    ledgerNetSalesCents,
    ledgerTaxCents,
    netSalesDifferenceCents,
    taxDifferenceCents,
  };
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
  const { rows } = await db.query<{ id: string; name: string }>('SELECT id, name FROM staff WHERE merchant_id = $1 AND id = ANY($2::text[])', [
    merchantId,
    staffIds,
  ]);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/* ───────────────────────────── tax ───────────────────────────── */

/** Tax collected in the period per tax rate, and tax refunded. */
export async function taxReport(db: Queryable, merchantId: string, query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>): Promise<TaxReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const rows = new Map<string, TaxRow>();
  let voidedTax = 0;
  for await (const sale of salesOf(db, merchantId, period)) {
    if (sale.sign < 0) {
      voidedTax += sale.taxCents;
      continue;
    }
    for (const t of sale.taxLines) {
      const key = `${t.taxRateId}\u0000${t.basisPoints}\u0000${t.inclusive}`;
      let row = rows.get(key);
      if (!row)
        rows.set(
          key,
          (row = {
            taxRateId: t.taxRateId,
            name: t.name,
            basisPoints: t.basisPoints,
            inclusive: t.inclusive,
            orders: 0,
            taxableCents: 0,
            taxCents: 0,
          }),
        );
      row.orders += 1;
      row.taxableCents += t.taxableCents;
      row.taxCents += t.taxCents;
    }
  }
  const refunded =
    (await refundsOf(db, merchantId, period)).filter((r) => r.kind === 'refund').reduce((a, r) => a + Number(r.tax_cents), 0) + voidedTax;
  const list = [...rows.values()].sort(
    (a, b) => a.taxRateId.localeCompare(b.taxRateId) || a.basisPoints - b.basisPoints || Number(a.inclusive) - Number(b.inclusive),
  );
  const collected = list.reduce((a, r) => a + r.taxCents, 0);
  return {
    report: 'tax',
    period,
    currency,
    rows: list,
    totals: {
      taxableCents: list.reduce((a, r) => a + r.taxableCents, 0),
      collectedCents: collected,
      refundedCents: refunded,
      netCents: collected - refunded,
    },
    reconciliation: await reconcileWithLedger(db, merchantId, period, { taxCents: collected - refunded }),
  };
}

/* ───────────────────────────── refunds ───────────────────────────── */

/** Every refund and cancellation of the period, oldest first. */
export async function refundReport(
  db: Queryable,
  merchantId: string,
  query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>,
): Promise<RefundReport> {
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

/**
 * The trial balance over the period: per account, the balance before it, the debits and credits posted in it (by
 * the journal transactions' `occurredAt`) and the closing balance. Every journal transaction counts, whatever its
 * source (orders, invoices, pay links, …).
 */
export async function trialBalanceReport(
  db: Queryable,
  merchantId: string,
  query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>,
): Promise<TrialBalanceReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const { rows } = await db.query<{
    code: string;
    name: string;
    type: TrialBalanceRow['type'];
    opening: string | number;
    debit: string | number;
    credit: string | number;
  }>(
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

/* ───────────────────────────── settlements ───────────────────────────── */

/** `GET /api/pos/reports/settlements` query: the period (no CSV). */
export const settlementReportQuerySchema = reportPeriodQuerySchema.omit({ format: true });

const settlementFigures = z.strictObject({
  pendingCount: z.int(),
  pendingCents: z.int().describe('Card and bank payments captured in the period still waiting for their rail to settle.'),
  settledCount: z.int(),
  settledCents: z.int(),
  returnedCount: z.int(),
  returnedCents: z.int().describe('Returned by the bank: reversed in the ledger.'),
});

/** The settlements report: card and bank payments captured in the period by their settlement state now, in all and per rail. */
export const settlementReportSchema = z.strictObject({
  report: z.literal('settlements'),
  period: reportPeriodSchema,
  currency: z.string(),
  totals: settlementFigures,
  rows: z.array(settlementFigures.extend({ rail: z.string() })),
});
/** See {@link settlementReportSchema}. */
export type SettlementReport = z.infer<typeof settlementReportSchema>;

/**
 * Settlements of delayed rails (modules/payments/settlements.ts) for payments captured in the period: counts and
 * amounts (minor units) pending, settled and returned, in all and per rail.
 * @throws ProblemError 400 as {@link resolvePeriod}
 */
export async function settlementReport(
  db: Queryable,
  merchantId: string,
  query: Pick<ReportPeriodQuery, 'from' | 'to' | 'timeZone'>,
): Promise<SettlementReport> {
  const { period, currency } = await resolvePeriod(db, merchantId, query);
  const { rows } = await db.query<{ rail: string; status: 'pending' | 'settled' | 'returned'; n: number | string; cents: number | string }>(
    `SELECT rail, status, count(*) AS n, COALESCE(SUM(amount_cents), 0) AS cents FROM settlements
      WHERE merchant_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY rail, status ORDER BY rail`,
    [merchantId, period.start, period.end],
  );
  const empty = () => ({ pendingCount: 0, pendingCents: 0, settledCount: 0, settledCents: 0, returnedCount: 0, returnedCents: 0 });
  const totals = empty();
  const byRail = new Map<string, ReturnType<typeof empty>>();
  for (const r of rows) {
    const row = byRail.get(r.rail) ?? empty();
    byRail.set(r.rail, row);
    for (const target of [row, totals]) {
      target[`${r.status}Count`] += Number(r.n);
      target[`${r.status}Cents`] += Number(r.cents);
    }
  }
  return { report: 'settlements', period, currency, totals, rows: [...byRail].map(([rail, f]) => ({ rail, ...f })) };
}
