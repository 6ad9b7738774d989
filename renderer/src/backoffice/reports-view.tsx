/**
 * Back office → Reports: a period picker (presets and from/to dates in the merchant's time zone), the sales summary
 * grouped by day, hour, item, category, tender or staff as a table with CSS bars (no chart library), the tax report,
 * the refunds (and cancellations) of the period, the trial balance of the ledger, and CSV downloads of each.
 */
import { useEffect, useId, useState } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { errorMessage, SALES_GROUPINGS, type RefundReport, type SalesGrouping, type SalesReport, type SalesRow, type TaxReport, type TenderRow, type TrialBalanceReport } from './api.ts';
import { downloadBlob } from './download.ts';
import { LoadError, useApi } from './shared.tsx';

const GROUP_TEXT: Record<SalesGrouping, string> = { day: 'Day', hour: 'Hour of day', item: 'Item', category: 'Category', tender: 'Tender', staff: 'Staff' };

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
            <input id={`${id}-from`} className="bo-input" type="date" value={from} max={to} onChange={(e) => e.target.value && setFrom(e.target.value)} data-testid="report-from" />
          </div>
          <div className="bo-field">
            <label htmlFor={`${id}-to`}>To</label>
            <input id={`${id}-to`} className="bo-input" type="date" value={to} min={from} onChange={(e) => e.target.value && setTo(e.target.value)} data-testid="report-to" />
          </div>
          <div className="bo-field">
            <label htmlFor={`${id}-group`}>Sales by</label>
            <select id={`${id}-group`} className="bo-input" value={groupBy} onChange={(e) => setGroupBy(e.target.value as SalesGrouping)} data-testid="report-group">
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
              Sales by {GROUP_TEXT[sales.groupBy].toLowerCase()} · {sales.period.from === sales.period.to ? sales.period.from : `${sales.period.from} – ${sales.period.to}`} ({sales.period.timeZone})
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
          {sales.rows.length === 0 ? <p className="bo-empty">No sales in this period.</p> : isTender(sales) ? <TenderTable report={sales} /> : <SalesTable report={sales} rows={sales.rows as SalesRow[]} />}
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
          {tax.rows.length === 0 ? (
            <p className="muted">No tax collected in this period.</p>
          ) : (
            <table className="orders-table bo-table">
              <thead>
                <tr>
                  <th scope="col">Rate</th>
                  <th scope="col" className="numeric">
                    Sales
                  </th>
                  <th scope="col" className="numeric">
                    Taxable
                  </th>
                  <th scope="col" className="numeric">
                    Tax
                  </th>
                  <th scope="col" className="bo-bar-cell">
                    <span className="visually-hidden">Share of tax</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tax.rows.map((r) => (
                  <tr key={`${r.taxRateId}-${r.basisPoints}-${r.inclusive}`} data-testid="tax-row">
                    <td>
                      {r.name} ({(r.basisPoints / 100).toFixed(r.basisPoints % 100 === 0 ? 0 : 2)}%{r.inclusive ? ', included' : ''})
                    </td>
                    <td className="numeric">{r.orders}</td>
                    <td className="numeric">{formatMoney(r.taxableCents, tax.currency)}</td>
                    <td className="numeric">{formatMoney(r.taxCents, tax.currency)}</td>
                    <td className="bo-bar-cell">
                      <Bar value={r.taxCents} max={Math.max(...tax.rows.map((x) => x.taxCents))} />
                    </td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Net (collected − refunded)</th>
                  <td />
                  <td className="numeric">{formatMoney(tax.totals.taxableCents, tax.currency)}</td>
                  <td className="numeric">{formatMoney(tax.totals.netCents, tax.currency)}</td>
                  <td />
                </tr>
              </tfoot>
            </table>
          )}
        </div>
      ) : null}
      {refunds && !error ? <RefundsPanel report={refunds} onCsv={() => csv('refunds')} /> : null}
      {ledger && !error ? <TrialBalancePanel report={ledger} onCsv={() => csv('trial-balance')} /> : null}
    </section>
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
      {report.rows.length === 0 ? (
        <p className="muted">No refunds in this period.</p>
      ) : (
        <table className="orders-table bo-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Receipt</th>
              <th scope="col">Kind</th>
              <th scope="col">Reason</th>
              <th scope="col" className="numeric">
                Tax
              </th>
              <th scope="col" className="numeric">
                Given back
              </th>
              <th scope="col" className="bo-bar-cell">
                <span className="visually-hidden">Share of refunds</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {report.rows.map((r) => (
              <tr key={r.refundId} data-testid="refund-row" data-order-id={r.orderId}>
                <td>{new Date(r.occurredAt).toLocaleString()}</td>
                <td>{r.receiptNumber}</td>
                <td>{r.kind === 'refund' ? (r.lines > 0 ? `Refund (${r.lines} line${r.lines === 1 ? '' : 's'}${r.restock ? ', restocked' : ''})` : 'Refund by amount') : 'Cancellation'}</td>
                <td>{r.reason ?? ''}</td>
                <td className="numeric">{money(r.taxCents)}</td>
                <td className="numeric" data-testid="refund-amount">
                  {money(r.amountCents)}
                </td>
                <td className="bo-bar-cell">
                  <Bar value={r.amountCents} max={maxRefund} />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={4}>
                {report.totals.refunds} refund{report.totals.refunds === 1 ? '' : 's'}, {report.totals.cancellations} cancellation{report.totals.cancellations === 1 ? '' : 's'}
              </th>
              <td className="numeric">{money(report.totals.taxCents)}</td>
              <td className="numeric" data-testid="refunds-total">
                {money(report.totals.amountCents)}
              </td>
              <td />
            </tr>
          </tfoot>
        </table>
      )}
    </div>
  );
}

const ACCOUNT_TYPE: Record<string, string> = { asset: 'Asset', liability: 'Liability', revenue: 'Revenue', contra_revenue: 'Contra revenue', expense: 'Expense' };

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
      {rows.length === 0 ? (
        <p className="muted">Nothing posted to the ledger yet.</p>
      ) : (
        <table className="orders-table bo-table">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Type</th>
              <th scope="col" className="numeric">
                Opening
              </th>
              <th scope="col" className="numeric">
                Debits
              </th>
              <th scope="col" className="numeric">
                Credits
              </th>
              <th scope="col" className="numeric">
                Closing
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.code} data-testid="tb-row" data-code={r.code}>
                <td>
                  {r.code} · {r.name}
                </td>
                <td>{ACCOUNT_TYPE[r.type] ?? r.type}</td>
                <td className="numeric">{balance(r.openingCents)}</td>
                <td className="numeric">{r.debitCents ? money(r.debitCents) : ''}</td>
                <td className="numeric">{r.creditCents ? money(r.creditCents) : ''}</td>
                <td className="numeric">{balance(r.closingCents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total
              </th>
              <td className="numeric">{balance(report.totals.openingCents)}</td>
              <td className="numeric" data-testid="tb-debits">
                {money(report.totals.debitCents)}
              </td>
              <td className="numeric" data-testid="tb-credits">
                {money(report.totals.creditCents)}
              </td>
              <td className="numeric">{balance(report.totals.closingCents)}</td>
            </tr>
          </tfoot>
        </table>
      )}
    </div>
  );
}

function SalesTable({ report, rows }: { report: SalesReport; rows: SalesRow[] }) {
  const max = Math.max(0, ...rows.map((r) => r.netSalesCents));
  return (
    <table className="orders-table bo-table">
      <thead>
        <tr>
          <th scope="col">{GROUP_TEXT[report.groupBy]}</th>
          <th scope="col" className="numeric">
            Sales
          </th>
          <th scope="col" className="numeric">
            Units
          </th>
          <th scope="col" className="numeric">
            Net sales
          </th>
          <th scope="col" className="bo-bar-cell">
            <span className="visually-hidden">Chart</span>
          </th>
          <th scope="col" className="numeric">
            Total
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-testid="sales-row" data-key={r.key}>
            <td>{r.label}</td>
            <td className="numeric">{r.orders}</td>
            <td className="numeric">{r.quantity - r.refundedQuantity}</td>
            <td className="numeric" data-testid="sales-row-net">
              {formatMoney(r.netSalesCents, report.currency)}
            </td>
            <td className="bo-bar-cell">
              <Bar value={r.netSalesCents} max={max} />
            </td>
            <td className="numeric">{formatMoney(r.totalCents, report.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TenderTable({ report }: { report: SalesReport & { rows: TenderRow[] } }) {
  const max = Math.max(0, ...report.rows.map((r) => r.netCents));
  return (
    <table className="orders-table bo-table">
      <thead>
        <tr>
          <th scope="col">Tender</th>
          <th scope="col" className="numeric">
            Count
          </th>
          <th scope="col" className="numeric">
            Taken
          </th>
          <th scope="col" className="numeric">
            Refunded
          </th>
          <th scope="col" className="numeric">
            Net
          </th>
          <th scope="col" className="bo-bar-cell">
            <span className="visually-hidden">Chart</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {report.rows.map((r) => (
          <tr key={r.key} data-testid="sales-row" data-key={r.key}>
            <td>{r.label}</td>
            <td className="numeric">{r.count}</td>
            <td className="numeric">{formatMoney(r.amountCents, report.currency)}</td>
            <td className="numeric">{formatMoney(r.refundCents, report.currency)}</td>
            <td className="numeric" data-testid="sales-row-net">
              {formatMoney(r.netCents, report.currency)}
            </td>
            <td className="bo-bar-cell">
              <Bar value={r.netCents} max={max} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
