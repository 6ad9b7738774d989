/** The tables and panels of Back office → Reports: sales, tenders, tax, refunds, trial balance. */
import { formatMoney } from '../../../core/index.ts';
import type { RefundReport, SalesGrouping, SalesReport, SalesRow, TaxReport, TenderRow, TrialBalanceReport } from '../common/back-office-api.ts';
import { DataTable } from '../ui/data-table.tsx';

export const GROUP_TEXT: Record<SalesGrouping, string> = {
  day: 'Day',
  hour: 'Hour of day',
  item: 'Item',
  category: 'Category',
  tender: 'Tender',
  staff: 'Staff',
};
/** A horizontal bar: `value` as a share of `max` (CSS width), with the amount as its accessible text. */
function Bar({ value, max }: { value: number; max: number }) {
  const pct = max > 0 ? Math.max(0, Math.min(100, (value / max) * 100)) : 0;
  return (
    <span className="bo-bar" aria-hidden="true">
      <span className={value < 0 ? 'bo-bar-fill bo-bar-negative' : 'bo-bar-fill'} style={{ width: `${pct.toFixed(1)}%` }} />
    </span>
  );
}
/** Tax collected per rate, with the net (collected − refunded) in the foot. */
export function TaxTable({ report }: { report: TaxReport }) {
  const money = (cents: number) => formatMoney(cents, report.currency);
  const max = Math.max(0, ...report.rows.map((r) => r.taxCents));
  return (
    <DataTable
      caption="Tax by rate"
      captionHidden
      columns={[
        {
          key: 'rate',
          header: 'Rate',
          cell: (r) => `${r.name} (${(r.basisPoints / 100).toFixed(r.basisPoints % 100 === 0 ? 0 : 2)}%${r.inclusive ? ', included' : ''})`,
        },
        { key: 'sales', header: 'Sales', numeric: true, cell: (r) => r.orders },
        { key: 'taxable', header: 'Taxable', numeric: true, cell: (r) => money(r.taxableCents) },
        { key: 'tax', header: 'Tax', numeric: true, cell: (r) => money(r.taxCents) },
        { key: 'bar', header: 'Share of tax', hideHeader: true, className: 'bo-bar-cell', cell: (r) => <Bar value={r.taxCents} max={max} /> },
      ]}
      rows={report.rows}
      rowKey={(r) => `${r.taxRateId}-${r.basisPoints}-${r.inclusive}`}
      rowAttributes={() => ({ 'data-testid': 'tax-row' })}
      emptyText="No tax collected in this period."
      emptyClassName="muted"
      foot={[
        {
          key: 'net',
          label: 'Net (collected − refunded)',
          cells: { taxable: money(report.totals.taxableCents), tax: money(report.totals.netCents) },
        },
      ]}
    />
  );
}

/** Refunds and cancellations that gave money back in the period, oldest first. */
export function RefundsPanel({ report, onCsv }: { report: RefundReport; onCsv: () => void }) {
  const money = (cents: number) => formatMoney(cents, report.currency);
  const maxRefund = Math.max(0, ...report.rows.map((r) => r.amountCents));
  return (
    <div className="bo-panel" data-testid="refunds-report">
      <div className="bo-panel-header">
        <h3>Refunds</h3>
        <button type="button" className="button button-ghost" onClick={onCsv} data-testid="refunds-csv">
          Download CSV
        </button>
      </div>
      <DataTable
        caption="Refunds and cancellations"
        captionHidden
        columns={[
          { key: 'when', header: 'When', cell: (r) => new Date(r.occurredAt).toLocaleString() },
          { key: 'receipt', header: 'Receipt', cell: (r) => r.receiptNumber },
          {
            key: 'kind',
            header: 'Kind',
            cell: (r) =>
              r.kind === 'refund'
                ? r.lines > 0
                  ? `Refund (${r.lines} line${r.lines === 1 ? '' : 's'}${r.restock ? ', restocked' : ''})`
                  : 'Refund by amount'
                : 'Cancellation',
          },
          { key: 'reason', header: 'Reason', cell: (r) => r.reason ?? '' },
          { key: 'tax', header: 'Tax', numeric: true, cell: (r) => money(r.taxCents) },
          { key: 'amount', header: 'Given back', numeric: true, cell: (r) => money(r.amountCents), cellTestId: 'refund-amount' },
          {
            key: 'bar',
            header: 'Share of refunds',
            hideHeader: true,
            className: 'bo-bar-cell',
            cell: (r) => <Bar value={r.amountCents} max={maxRefund} />,
          },
        ]}
        rows={report.rows}
        rowKey={(r) => r.refundId}
        rowAttributes={(r) => ({ 'data-testid': 'refund-row', 'data-order-id': r.orderId })}
        emptyText="No refunds in this period."
        emptyClassName="muted"
        foot={[
          {
            key: 'totals',
            label: `${report.totals.refunds} refund${report.totals.refunds === 1 ? '' : 's'}, ${report.totals.cancellations} cancellation${report.totals.cancellations === 1 ? '' : 's'}`,
            cells: { tax: money(report.totals.taxCents), amount: money(report.totals.amountCents) },
            testIds: { amount: 'refunds-total' },
          },
        ]}
      />
    </div>
  );
}

const ACCOUNT_TYPE: Record<string, string> = {
  asset: 'Asset',
  liability: 'Liability',
  revenue: 'Revenue',
  contra_revenue: 'Contra revenue',
  expense: 'Expense',
};

/** The trial balance over the period: opening, debits, credits, closing per account; debits equal credits. */
export function TrialBalancePanel({ report, onCsv }: { report: TrialBalanceReport; onCsv: () => void }) {
  const money = (cents: number) => formatMoney(cents, report.currency);
  // A balance reads as debit (positive) or credit (negative, shown with "Cr").
  const balance = (cents: number) => (cents < 0 ? `${money(-cents)} Cr` : cents > 0 ? `${money(cents)} Dr` : money(0));
  const rows = report.rows.filter((r) => r.openingCents !== 0 || r.debitCents !== 0 || r.creditCents !== 0);
  return (
    <div className="bo-panel" data-testid="trial-balance">
      <div className="bo-panel-header">
        <h3>Trial balance</h3>
        <button type="button" className="button button-ghost" onClick={onCsv} data-testid="trial-balance-csv">
          Download CSV
        </button>
      </div>
      <DataTable
        caption="Trial balance by account"
        captionHidden
        columns={[
          { key: 'account', header: 'Account', cell: (r) => `${r.code} · ${r.name}` },
          { key: 'type', header: 'Type', cell: (r) => ACCOUNT_TYPE[r.type] ?? r.type },
          { key: 'opening', header: 'Opening', numeric: true, cell: (r) => balance(r.openingCents) },
          { key: 'debits', header: 'Debits', numeric: true, cell: (r) => (r.debitCents ? money(r.debitCents) : '') },
          { key: 'credits', header: 'Credits', numeric: true, cell: (r) => (r.creditCents ? money(r.creditCents) : '') },
          { key: 'closing', header: 'Closing', numeric: true, cell: (r) => balance(r.closingCents) },
        ]}
        rows={rows}
        rowKey={(r) => r.code}
        rowAttributes={(r) => ({ 'data-testid': 'tb-row', 'data-code': r.code })}
        emptyText="Nothing posted to the ledger yet."
        emptyClassName="muted"
        foot={[
          {
            key: 'total',
            label: 'Total',
            cells: {
              opening: balance(report.totals.openingCents),
              debits: money(report.totals.debitCents),
              credits: money(report.totals.creditCents),
              closing: balance(report.totals.closingCents),
            },
            testIds: { debits: 'tb-debits', credits: 'tb-credits' },
          },
        ]}
      />
    </div>
  );
}

/** Sales per group (day, hour, item, category, staff) with a bar of the net sales. */
export function SalesTable({ report, rows }: { report: SalesReport; rows: SalesRow[] }) {
  const money = (cents: number) => formatMoney(cents, report.currency);
  const max = Math.max(0, ...rows.map((r) => r.netSalesCents));
  return (
    <DataTable
      caption={`Sales by ${GROUP_TEXT[report.groupBy].toLowerCase()}`}
      captionHidden
      columns={[
        { key: 'label', header: GROUP_TEXT[report.groupBy], cell: (r) => r.label },
        { key: 'sales', header: 'Sales', numeric: true, cell: (r) => r.orders },
        { key: 'units', header: 'Units', numeric: true, cell: (r) => r.quantity - r.refundedQuantity },
        { key: 'net', header: 'Net sales', numeric: true, cell: (r) => money(r.netSalesCents), cellTestId: 'sales-row-net' },
        { key: 'bar', header: 'Chart', hideHeader: true, className: 'bo-bar-cell', cell: (r) => <Bar value={r.netSalesCents} max={max} /> },
        { key: 'total', header: 'Total', numeric: true, cell: (r) => money(r.totalCents) },
      ]}
      rows={rows}
      rowKey={(r) => r.key}
      rowAttributes={(r) => ({ 'data-testid': 'sales-row', 'data-key': r.key })}
    />
  );
}

/** Money taken per tender, refunds and net, with a bar of the net. */
export function TenderTable({ report }: { report: SalesReport & { rows: TenderRow[] } }) {
  const money = (cents: number) => formatMoney(cents, report.currency);
  const max = Math.max(0, ...report.rows.map((r) => r.netCents));
  return (
    <DataTable
      caption="Sales by tender"
      captionHidden
      columns={[
        { key: 'label', header: 'Tender', cell: (r) => r.label },
        { key: 'count', header: 'Count', numeric: true, cell: (r) => r.count },
        { key: 'taken', header: 'Taken', numeric: true, cell: (r) => money(r.amountCents) },
        { key: 'refunded', header: 'Refunded', numeric: true, cell: (r) => money(r.refundCents) },
        { key: 'net', header: 'Net', numeric: true, cell: (r) => money(r.netCents), cellTestId: 'sales-row-net' },
        { key: 'bar', header: 'Chart', hideHeader: true, className: 'bo-bar-cell', cell: (r) => <Bar value={r.netCents} max={max} /> },
      ]}
      rows={report.rows}
      rowKey={(r) => r.key}
      rowAttributes={(r) => ({ 'data-testid': 'sales-row', 'data-key': r.key })}
    />
  );
}
