/** Parts of the shift screen: the count by denomination, the X/Z report on screen, the server's check of a closeout. */
import { useEffect, useState } from 'react';
import {
  countedTotalCents,
  denominationsOf,
  formatMoney,
  type DenominationCount,
  type ReportDifference,
  type ZReport,
} from '../../../../core/index.ts';
import { staffSession$ } from '../../common/staff-session.ts';
import { useObservable } from '../../ui/hooks.ts';
import { shiftReportLines } from '../devices/shift-report-job.ts';
import type { StoredCloseout } from '../shifts/shift-store.ts';

/** A count line per denomination of the currency, in its order; `text` what the cashier typed. */
export type CountTexts = Record<string, string>;
const countKey = (d: { kind: string; valueCents: number }) => `${d.kind}-${d.valueCents}`;

export function countsOf(currency: string, texts: CountTexts): DenominationCount[] | 'invalid' {
  const out: DenominationCount[] = [];
  for (const d of denominationsOf(currency)) {
    const text = (texts[countKey(d)] ?? '').trim();
    if (text === '') continue;
    if (!/^\d{1,5}$/.test(text)) return 'invalid';
    const count = Number(text);
    if (count > 0) out.push({ kind: d.kind, valueCents: d.valueCents, count });
  }
  return out;
}

/** The drawer count by denomination: a number input per note and coin, with the running total. */
export function DenominationCounter({ currency, texts, onTexts }: { currency: string; texts: CountTexts; onTexts: (t: CountTexts) => void }) {
  const counts = countsOf(currency, texts);
  return (
    <div className="denomination-count">
      <div className="denomination-grid">
        {denominationsOf(currency).map((d) => {
          const key = countKey(d);
          return (
            <label key={key} className="denomination">
              <span>{d.label}</span>
              <input
                inputMode="numeric"
                autoComplete="off"
                data-testid={`count-${key}`}
                aria-label={`Number of ${d.label.replace(/ (coin|note)$/, '')} ${d.kind}s`}
                value={texts[key] ?? ''}
                onChange={(e) => onTexts({ ...texts, [key]: e.target.value })}
              />
            </label>
          );
        })}
      </div>
      <p className="counted-total">
        Counted:{' '}
        <strong data-testid="counted-total">{counts === 'invalid' ? 'not a count' : formatMoney(countedTotalCents(counts), currency)}</strong>
      </p>
    </div>
  );
}

/**
 * A report on screen: the same lines as the printed one, each section (a line without a value) a heading over its own
 * list of terms and values (a `<dl>` holds only term/value pairs: WCAG 1.3.1, axe `definition-list`).
 */
export function ReportView({ report, testId }: { report: ZReport; testId: string }) {
  const sections: { heading?: string; rows: [string, string][] }[] = [{ rows: [] }];
  for (const [label, value] of shiftReportLines(report)) {
    if (value === undefined) sections.push({ heading: label, rows: [] });
    else sections[sections.length - 1]!.rows.push([label, value]);
  }
  return (
    <div className="shift-report" data-testid={testId}>
      {sections.map((section, i) => (
        <div key={i}>
          {section.heading ? <h3 className="shift-report-heading">{section.heading}</h3> : null}
          {section.rows.length > 0 ? (
            <dl className="shift-report-list">
              {section.rows.map(([label, value], j) => (
                <div key={j} className="shift-report-row" data-label={label}>
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          ) : null}
        </div>
      ))}
    </div>
  );
}

/**
 * The server's check of a synced closeout: it recomputes the shift from the sales and ledger postings it holds
 * (`GET /api/pos/shifts/{id}`, staff only) and lists the figures that differ from the register's — never silently
 * different numbers. Needs a staff member signed in on this register (a register credential cannot read reports).
 */
export function ServerCheck({ closeout }: { closeout: StoredCloseout }) {
  const staff = useObservable(staffSession$, staffSession$.value);
  const [check, setCheck] = useState<{ differences: ReportDifference[] } | { error: string } | undefined>();
  useEffect(() => {
    setCheck(undefined);
    if (!staff) return undefined;
    let isCurrent = true;
    fetch(`/api/pos/shifts/${encodeURIComponent(closeout.shiftId)}`, { headers: { authorization: `Bearer ${staff.staffToken}` } })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return (await response.json()) as { differences: ReportDifference[] };
      })
      .then(
        (body) => isCurrent && setCheck({ differences: body.differences }),
        (err: unknown) => isCurrent && setCheck({ error: err instanceof Error ? err.message : String(err) }),
      );
    return () => {
      isCurrent = false;
    };
  }, [closeout.shiftId, closeout.syncSeq, staff]);
  if (!staff)
    return (
      <p className="muted" data-testid="server-check" data-state="signed-out">
        Sign in (Back office) to see the server's check of these figures.
      </p>
    );
  if (!check)
    return (
      <p className="muted" data-testid="server-check" data-state="checking">
        Asking the server to check these figures…
      </p>
    );
  if ('error' in check)
    return (
      <p className="muted" data-testid="server-check" data-state="error">
        The server could not check these figures now ({check.error}).
      </p>
    );
  if (check.differences.length === 0)
    return (
      <p className="muted" data-testid="server-check" data-state="agree">
        The server recomputed this shift from its sales and the ledger's cash drawer postings: its figures agree.
      </p>
    );
  return (
    <div className="banner banner-error" role="alert" data-testid="server-check" data-state="differ">
      The server recomputed this shift and got different figures:{' '}
      {check.differences.map((d) => `${d.field} (register ${JSON.stringify(d.register)}, server ${JSON.stringify(d.server)})`).join('; ')}
    </div>
  );
}
