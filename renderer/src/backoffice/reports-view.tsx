/**
 * Back office → Reports: a period picker (presets and from/to dates in the merchant's time zone), the sales summary
 * grouped by day, hour, item, category, tender or staff as a table with CSS bars (no chart library), the tax report,
 * the refunds (and cancellations) of the period, the trial balance of the ledger, and CSV downloads of each. The
 * period's reports are one query (common/back-office-query.ts) keyed by the period and the grouping.
 */
import { useId, useState } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { SALES_GROUPINGS, type SalesGrouping, type SalesReport, type SalesRow, type TenderRow } from '../common/back-office-api.ts';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { downloadBlob } from './download.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import { GROUP_TEXT, RefundsPanel, SalesTable, TaxTable, TenderTable, TrialBalancePanel } from './report-tables.tsx';

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

export function ReportsView() {
  const id = useId();
  const [from, setFrom] = useState(() => daysAgo(0));
  const [to, setTo] = useState(() => daysAgo(0));
  const [groupBy, setGroupBy] = useState<SalesGrouping>('day');
  // The four reports of the picked period, read together: choosing the period or the grouping again reads them all
  // again (a refund made meanwhile shows at once), and one failure shows in place of them all.
  const reports = useBackOfficeData('reports', [from, to, groupBy], (api) =>
    Promise.all([api.salesReport(from, to, groupBy), api.taxReport(from, to), api.refundReport(from, to), api.trialBalance(from, to)]),
  );
  const error = reports.error;
  const loading = reports.fetching;
  const [sales, tax, refunds, ledger] = reports.data ?? [];
  // A CSV download changes nothing on the server: no section to read again.
  const downloads = useBackOfficeActions([]);

  const csv = async (report: 'sales' | 'tax' | 'refunds' | 'trial-balance') => {
    const blob = await downloads.run((api) => api.reportCsv(report, { from, to, ...(report === 'sales' ? { groupBy } : {}) }));
    if (blob) downloadBlob(blob, `${report}${report === 'sales' ? `-by-${groupBy}` : ''}-${from}-${to}.csv`);
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
      {downloads.error ? (
        <p className="form-error" role="alert">
          {downloads.error}
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
