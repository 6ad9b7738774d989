/**
 * Back office → Reports: a period picker (presets and from/to dates in the merchant's time zone), the sales summary
 * grouped by day, hour, item, category, tender or staff as a table with CSS bars (no chart library), the tax report,
 * the refunds (and cancellations) of the period, the trial balance of the ledger, and CSV downloads of each.
 */
import { useEffect, useId, useState } from 'react';
import { formatMoney } from '../../../core/index.ts';
import {
  errorMessage,
  SALES_GROUPINGS,
  type RefundReport,
  type SalesGrouping,
  type SalesReport,
  type SalesRow,
  type TaxReport,
  type TenderRow,
  type TrialBalanceReport,
} from '../common/back-office-api.ts';
import { DataTable } from '../ui/data-table.tsx';
import { downloadBlob } from './download.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';

const GROUP_TEXT: Record<SalesGrouping, string> = {
  day: 'Day',
  hour: 'Hour of day',
  item: 'Item',
  category: 'Category',
  tender: 'Tender',
  staff: 'Staff',
};

function localDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
function daysAgo(n: number): string {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return localDate(d);
}
function monthStart(): string {
  const d = new Date();
  d.setDate(1);
  return localDate(d);
}

const isTender = (report: SalesReport): report is SalesReport & { rows: TenderRow[] } => report.groupBy === 'tender';

/** A horizontal bar: `value` as a share of `max` (CSS width), with the amount as its accessible text. */
function Bar({ value, max }: { value: number; max: number }) {
  const pct = max > 0 ? Math.max(0, Math.min(100, (value / max) * 100)) : 0;
  return (
    <span className="bo-bar" aria-hidden="true">
      <span className={value < 0 ? 'bo-bar-fill bo-bar-negative' : 'bo-bar-fill'} style={{ width: `${pct.toFixed(1)}%` }} />
    </span>
  );
}

export function ReportsView() {
  const api = useApi();
  const id = useId();
  const [from, setFrom] = useState(() => daysAgo(0));
  const [to, setTo] = useState(() => daysAgo(0));
  const [groupBy, setGroupBy] = useState<SalesGrouping>('day');
  const [sales, setSales] = useState<SalesReport | undefined>();
  const [tax, setTax] = useState<TaxReport | undefined>();
  const [refunds, setRefunds] = useState<RefundReport | undefined>();
  const [ledger, setLedger] = useState<TrialBalanceReport | undefined>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const [csvError, setCsvError] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    setLoading(true);
    setError(undefined);
    Promise.all([api.salesReport(from, to, groupBy), api.taxReport(from, to), api.refundReport(from, to), api.trialBalance(from, to)]).then(
      ([s, t, r, b]) => {
        if (!current) return;
        setSales(s);
        setTax(t);
        setRefunds(r);
        setLedger(b);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [api, from, to, groupBy]);

  const csv = async (report: 'sales' | 'tax' | 'refunds' | 'trial-balance') => {
    setCsvError(undefined);
    try {
      const blob = await api.reportCsv(report, { from, to, ...(report === 'sales' ? { groupBy } : {}) });
      downloadBlob(blob, `${report}${report === 'sales' ? `-by-${groupBy}` : ''}-${from}-${to}.csv`);
    } catch (err) {
      setCsvError(errorMessage(err));
    }
  };

  const preset = (f: string, t: string) => {
    setFrom(f);
    setTo(t);
  };

  return (
    <section className="bo-section" aria-labelledby={`${id}-title`}>
      <div className="bo-toolbar">
        <h2 id={`${id}-title`}>Reports</h2>
      </div>
      <div className="bo-panel bo-period">
        <div className="bo-actions" role="group" aria-label="Period presets">
          <button type="button" className="button" onClick={() => preset(daysAgo(0), daysAgo(0))}>
            Today
          </button>
          <button type="button" className="button" onClick={() => preset(daysAgo(1), daysAgo(1))}>
            Yesterday
          </button>
          <button type="button" className="button" onClick={() => preset(daysAgo(6), daysAgo(0))}>
            Last 7 days
          </button>
          <button type="button" className="button" onClick={() => preset(monthStart(), daysAgo(0))}>
            This month
          </button>
        </div>
        <div className="bo-row">
          <div className="bo-field">
            <label htmlFor={`${id}-from`}>From</label>
            <input
              id={`${id}-from`}
              className="bo-input"
              type="date"
              value={from}
              max={to}
              onChange={(e) => e.target.value && setFrom(e.target.value)}
              data-testid="report-from"
            />
          </div>
          <div className="bo-field">
            <label htmlFor={`${id}-to`}>To</label>
            <input
              id={`${id}-to`}
              className="bo-input"
              type="date"
              value={to}
              min={from}
              onChange={(e) => e.target.value && setTo(e.target.value)}
              data-testid="report-to"
            />
          </div>
          <div className="bo-field">
            <label htmlFor={`${id}-group`}>Sales by</label>
            <select
              id={`${id}-group`}
              className="bo-input"
              value={groupBy}
              onChange={(e) => setGroupBy(e.target.value as SalesGrouping)}
              data-testid="report-group"
            >
              {SALES_GROUPINGS.map((g) => (
                <option key={g} value={g}>
                  {GROUP_TEXT[g]}
                </option>
              ))}
            </select>
          </div>
        </div>
      </div>
      {loading ? (
        <p className="muted" role="status" data-testid="report-loading">
          <progress /> Loading the reports…
        </p>
      ) : null}
      {error ? <LoadError error={error} what="Reports" /> : null}
      {csvError ? (
        <p className="form-error" role="alert">
          {csvError}
        </p>
      ) : null}
      {sales && !error ? (
        <div className="bo-panel" data-testid="sales-report" data-group-by={sales.groupBy}>
          <div className="bo-panel-header">
            <h3>
              Sales by {GROUP_TEXT[sales.groupBy].toLowerCase()} ·{' '}
              {sales.period.from === sales.period.to ? sales.period.from : `${sales.period.from} – ${sales.period.to}`} ({sales.period.timeZone})
            </h3>
            <button type="button" className="button button-ghost" onClick={() => csv('sales')} data-testid="sales-csv">
              Download CSV
            </button>
          </div>
          <dl className="bo-totals">
            <div>
              <dt>Sales</dt>
              <dd data-testid="sales-orders">{sales.totals.orders}</dd>
            </div>
            <div>
              <dt>Net sales</dt>
              <dd data-testid="sales-net">{formatMoney(sales.totals.netSalesCents, sales.currency)}</dd>
            </div>
            <div>
              <dt>Tax</dt>
              <dd>{formatMoney(sales.totals.taxCents, sales.currency)}</dd>
            </div>
            <div>
              <dt>Tips</dt>
              <dd>{formatMoney(sales.totals.tipCents, sales.currency)}</dd>
            </div>
            <div>
              <dt>Refunds</dt>
              <dd>{formatMoney(sales.totals.refundCents, sales.currency)}</dd>
            </div>
            {sales.totals.voids > 0 ? (
              <div>
                <dt>Voided invoices</dt>
                <dd data-testid="sales-voids">{formatMoney(sales.totals.voidCents, sales.currency)}</dd>
              </div>
            ) : null}
            <div>
              <dt>Total</dt>
              <dd data-testid="sales-total">{formatMoney(sales.totals.totalCents, sales.currency)}</dd>
            </div>
          </dl>
          {sales.rows.length === 0 ? (
            <p className="bo-empty">No sales in this period.</p>
          ) : isTender(sales) ? (
            <TenderTable report={sales} />
          ) : (
            <SalesTable report={sales} rows={sales.rows as SalesRow[]} />
          )}
        </div>
      ) : null}
      {tax && !error ? (
        <div className="bo-panel" data-testid="tax-report">
          <div className="bo-panel-header">
            <h3>Tax</h3>
            <button type="button" className="button button-ghost" onClick={() => csv('tax')} data-testid="tax-csv">
              Download CSV
            </button>
          </div>
          <TaxTable report={tax} />
        </div>
      ) : null}
      {refunds && !error ? <RefundsPanel report={refunds} onCsv={() => csv('refunds')} /> : null}
      {ledger && !error ? <TrialBalancePanel report={ledger} onCsv={() => csv('trial-balance')} /> : null}
    </section>
  );
}

/** Tax collected per rate, with the net (collected − refunded) in the foot. */
function TaxTable({ report }: { report: TaxReport }) {
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
function RefundsPanel({ report, onCsv }: { report: RefundReport; onCsv: () => void }) {
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
function TrialBalancePanel({ report, onCsv }: { report: TrialBalanceReport; onCsv: () => void }) {
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
function SalesTable({ report, rows }: { report: SalesReport; rows: SalesRow[] }) {
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
function TenderTable({ report }: { report: SalesReport & { rows: TenderRow[] } }) {
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
