/**
 * The shift screen: open a shift with a counted float, cash paid in / paid out with a reason, a no-sale
 * drawer open (the drawer opens through the device API, the open is recorded), the X-report mid-shift, and the close:
 * the drawer counted by denomination of the store currency, expected vs counted and the over/short shown before the
 * cashier confirms, then the Z-report on screen and on the receipt printer. Everything is stored on the register
 * first and syncs later (shifts/shift-store.ts); the server's check of a synced closeout (its recomputed figures'
 * differences) is shown to a signed-in staff member.
 *
 * Keyboard: F6 opens this screen (from anywhere); Enter confirms a form, Escape cancels it. Every target is at least
 * 44×44 px for touch.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { merge } from 'rxjs';
import { countedTotalCents, formatMoney, type CashMovementKind, type Shift, type ZReport } from '../../../../core/index.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { currentRegisterStaff } from '../../common/staff-session.ts';
import { deviceUnavailable } from '../devices/device-status-bar.tsx';
import { shiftReportPrintJob } from '../devices/shift-report-job.ts';
import { useRegister } from '../register-context.ts';
import { parseCashInput } from '../../common/cash.ts';
import { closeShift, currentShift, openShift, recordCashMovement, unsyncedSalesOf, xReport, type StoredCloseout } from '../shifts/shift-store.ts';
import { type CountTexts, DenominationCounter, ReportView, ServerCheck, countsOf } from './shift-parts.tsx';

type Mode =
  { kind: 'idle' } | { kind: 'movement'; movement: 'paid_in' | 'paid_out' } | { kind: 'count' } | { kind: 'x'; report: ZReport; at: string };

/** The shift screen (see the module comment). */
export function ShiftView() {
  const { db, session } = useRegister();
  const currency = session.currency;
  const devices = getDeviceClient();
  const [shift, setShift] = useState<Shift | undefined>();
  const [live, setLive] = useState<{ report: ZReport; unsynced: number } | undefined>();
  const [lastCloseout, setLastCloseout] = useState<StoredCloseout | undefined>();
  const [isLoaded, setLoaded] = useState(false);
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [floatText, setFloatText] = useState('');
  const [counts, setCounts] = useState<CountTexts>({});
  const [amountText, setAmountText] = useState('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const [isBusy, setBusy] = useState(false);
  const staffId = () => currentRegisterStaff()?.staff.id;

  // Reload on any change to the shift records or the sales (a sale on the register screen updates the X figures).
  const changes$ = useMemo(() => merge(db.shifts.$, db.cash_movements.$, db.closeouts.$, db.orders.$), [db]);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const sub = changes$.subscribe(() => setVersion((v) => v + 1));
    return () => sub.unsubscribe();
  }, [changes$]);
  useEffect(() => {
    let isCurrent = true;
    void (async () => {
      const open = await currentShift(db, session.registerId);
      const report = open ? await xReport(db, open) : undefined;
      const unsynced = open ? await unsyncedSalesOf(db, open) : 0;
      const latest = await db.closeouts.findOne({ selector: { registerId: session.registerId }, sort: [{ closedAt: 'desc' }] }).exec();
      if (!isCurrent) return;
      setShift(open);
      setLive(report ? { report, unsynced } : undefined);
      setLastCloseout(latest ? (latest.toMutableJSON() as StoredCloseout) : undefined);
      setLoaded(true);
    })().catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
    return () => {
      isCurrent = false;
    };
  }, [db, session.registerId, version]);

  const cancel = () => {
    setMode({ kind: 'idle' });
    setError(undefined);
    setAmountText('');
    setReason('');
    setCounts({});
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && mode.kind !== 'idle') cancel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [mode.kind]);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err instanceof Error ? err.message.split('\n')[0] : String(err));
    } finally {
      setBusy(false);
    }
  };

  const print = (report: ZReport, jobId: string) => {
    if (deviceUnavailable(devices.state$.value, 'printer')) {
      setNote('No receipt printer connected: the report was not printed.');
      return;
    }
    setNote('Sending the report to the printer…');
    devices.print(shiftReportPrintJob(report, session.merchantName, { jobId })).then(
      () => setNote('Report sent to the printer.'),
      (err: unknown) => setNote(`The report was not printed: ${err instanceof Error ? err.message : String(err)}`),
    );
  };

  const onOpen = (e: FormEvent) => {
    e.preventDefault();
    const counted = countsOf(currency, counts);
    const typed = floatText.trim() === '' ? undefined : parseCashInput(floatText, currency);
    if (counted === 'invalid' || (floatText.trim() !== '' && typed === undefined)) {
      setError('Type the opening float as an amount, or count it note by note');
      return;
    }
    if (counted.length === 0 && typed === undefined) {
      setError('Count the opening float (or type 0 for an empty drawer)');
      return;
    }
    void run(async () => {
      const id = staffId();
      await openShift(db, session, { ...(counted.length > 0 ? { count: counted } : { openingFloatCents: typed! }), ...(id ? { staffId: id } : {}) });
      setFloatText('');
      setCounts({});
      setNote(undefined);
    });
  };

  const onMovement = (e: FormEvent, kind: 'paid_in' | 'paid_out') => {
    e.preventDefault();
    const amountCents = parseCashInput(amountText, currency);
    if (amountCents === undefined || amountCents < 1) {
      setError('Type an amount');
      return;
    }
    if (!reason.trim()) {
      setError('Give a reason');
      return;
    }
    void run(async () => {
      const id = staffId();
      await recordCashMovement(db, session.registerId, { kind, amountCents, reason, ...(id ? { staffId: id } : {}) });
      devices.openDrawer().catch(() => undefined);
      setNote(`${kind === 'paid_in' ? 'Paid in' : 'Paid out'} ${formatMoney(amountCents, currency)} recorded.`);
      cancel();
    });
  };

  const record = (kind: CashMovementKind) =>
    void run(async () => {
      const id = staffId();
      await recordCashMovement(db, session.registerId, { kind, ...(id ? { staffId: id } : {}) });
      setNote('No sale recorded: opening the drawer…');
      if (deviceUnavailable(devices.state$.value, 'printer')) setNote('No sale recorded. No cash drawer connected.');
      else
        devices.openDrawer().then(
          () => setNote('No sale recorded: the drawer opened.'),
          (err: unknown) => setNote(`No sale recorded; the cash drawer did not open: ${err instanceof Error ? err.message : String(err)}`),
        );
    });

  const counted = countsOf(currency, counts);
  const countedCents = counted === 'invalid' ? undefined : countedTotalCents(counted);

  const onClose = (e: FormEvent) => {
    e.preventDefault();
    if (counted === 'invalid') {
      setError('Each count is a whole number of notes or coins');
      return;
    }
    void run(async () => {
      const id = staffId();
      const closeout = await closeShift(db, session.registerId, { counted, ...(id ? { staffId: id } : {}) });
      cancel();
      print(closeout.report, closeout.id);
    });
  };

  if (!isLoaded) return <main className="shift-screen">Loading…</main>;
  const money = (cents: number) => formatMoney(cents, currency);

  return (
    <main className="shift-screen" data-testid="shift-screen">
      <h1>Shift</h1>
      <p className="shift-status" role="status" data-testid="shift-status" data-state={shift ? 'open' : 'closed'}>
        {shift
          ? `Shift open since ${new Date(shift.openedAt).toLocaleTimeString()} · float ${money(shift.openingFloatCents)}`
          : 'No shift open. A sale rung up without one opens a shift with an empty float.'}
      </p>
      {error ? (
        <p className="form-error" role="alert" data-testid="shift-error">
          {error}
        </p>
      ) : null}
      {note ? (
        <p className="muted" role="status" data-testid="shift-note">
          {note}
        </p>
      ) : null}

      {!shift ? (
        <form className="shift-form" onSubmit={onOpen} aria-label="Open a shift">
          <h2>Open a shift</h2>
          <p className="muted">Count the float in the drawer note by note, or type its total.</p>
          <DenominationCounter currency={currency} texts={counts} onTexts={setCounts} />
          <label className="field">
            Opening float (total)
            <input
              inputMode="decimal"
              data-testid="float-input"
              value={floatText}
              onChange={(e) => setFloatText(e.target.value)}
              placeholder="0.00"
            />
          </label>
          <button type="submit" className="button button-primary button-large" disabled={isBusy} data-testid="open-shift">
            Open shift
          </button>
        </form>
      ) : mode.kind === 'movement' ? (
        <form className="shift-form" onSubmit={(e) => onMovement(e, mode.movement)} aria-label={mode.movement === 'paid_in' ? 'Paid in' : 'Paid out'}>
          <h2>{mode.movement === 'paid_in' ? 'Cash paid in' : 'Cash paid out'}</h2>
          <label className="field">
            Amount
            <input inputMode="decimal" autoFocus data-testid="movement-amount" value={amountText} onChange={(e) => setAmountText(e.target.value)} />
          </label>
          <label className="field">
            Reason
            <input data-testid="movement-reason" maxLength={200} value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          <div className="shift-actions">
            <button type="button" className="button button-large" onClick={cancel}>
              Cancel (Esc)
            </button>
            <button type="submit" className="button button-primary button-large" disabled={isBusy} data-testid="movement-save">
              Record
            </button>
          </div>
        </form>
      ) : mode.kind === 'count' ? (
        <form className="shift-form" onSubmit={onClose} aria-label="Close the shift">
          <h2>Close the shift: count the drawer</h2>
          <DenominationCounter currency={currency} texts={counts} onTexts={setCounts} />
          {live ? (
            <dl className="close-figures">
              <div>
                <dt>Expected cash</dt>
                <dd data-testid="expected-cash">{money(live.report.expectedCashCents)}</dd>
              </div>
              <div>
                <dt>Counted cash</dt>
                <dd data-testid="counted-cash">{countedCents === undefined ? '—' : money(countedCents)}</dd>
              </div>
              <div>
                <dt>Over / short</dt>
                <dd data-testid="over-short">
                  {countedCents === undefined
                    ? '—'
                    : countedCents - live.report.expectedCashCents === 0
                      ? 'Even'
                      : `${countedCents > live.report.expectedCashCents ? 'Over' : 'Short'} ${money(Math.abs(countedCents - live.report.expectedCashCents))}`}
                </dd>
              </div>
            </dl>
          ) : null}
          {live && live.unsynced > 0 ? (
            <p className="muted" data-testid="close-unsynced">
              {live.unsynced} sale{live.unsynced === 1 ? '' : 's'} of this shift not yet on the server: counted here, and synced later.
            </p>
          ) : null}
          <div className="shift-actions">
            <button type="button" className="button button-large" onClick={cancel}>
              Cancel (Esc)
            </button>
            <button
              type="submit"
              className="button button-primary button-large"
              disabled={isBusy || countedCents === undefined}
              data-testid="confirm-close"
            >
              Confirm close
            </button>
          </div>
        </form>
      ) : (
        <section aria-label="Shift actions">
          <div className="shift-actions">
            <button
              type="button"
              className="button button-large"
              data-testid="paid-in"
              onClick={() => setMode({ kind: 'movement', movement: 'paid_in' })}
            >
              Paid in
            </button>
            <button
              type="button"
              className="button button-large"
              data-testid="paid-out"
              onClick={() => setMode({ kind: 'movement', movement: 'paid_out' })}
            >
              Paid out
            </button>
            <button type="button" className="button button-large" data-testid="no-sale" disabled={isBusy} onClick={() => record('no_sale')}>
              No sale
            </button>
            <button
              type="button"
              className="button button-large"
              data-testid="x-report"
              onClick={() => {
                if (!live) return;
                const at = new Date().toISOString();
                setMode({ kind: 'x', report: live.report, at });
                print(live.report, `${shift.id}-x-${Date.parse(at)}`);
              }}
            >
              X-report
            </button>
            <button type="button" className="button button-primary button-large" data-testid="close-shift" onClick={() => setMode({ kind: 'count' })}>
              Close shift
            </button>
          </div>
          {mode.kind === 'x' ? (
            <>
              <h2>X-report (shift still open)</h2>
              <ReportView report={mode.report} testId="x-report-view" />
            </>
          ) : live ? (
            <>
              <h2>So far this shift</h2>
              <ReportView report={live.report} testId="live-report" />
            </>
          ) : null}
        </section>
      )}

      {!shift && lastCloseout ? (
        <section aria-label="Last Z-report" className="last-closeout">
          <h2>Z-report of the last shift</h2>
          <p className="muted" data-testid="closeout-sync" data-state={lastCloseout.syncSeq === undefined ? 'pending' : 'synced'}>
            {lastCloseout.rejection
              ? `Refused by the server: ${lastCloseout.rejection.reason}`
              : lastCloseout.syncSeq === undefined
                ? 'Stored on this register; it syncs when the server is reachable.'
                : 'On the server.'}
          </p>
          {lastCloseout.syncSeq !== undefined ? <ServerCheck closeout={lastCloseout} /> : null}
          <ReportView report={lastCloseout.report} testId="z-report-view" />
          <button
            type="button"
            className="button button-large"
            data-testid="reprint-z"
            onClick={() => print(lastCloseout.report, `${lastCloseout.id}-r${Date.now()}`)}
          >
            Print again
          </button>
        </section>
      ) : null}

      <section aria-label="Keyboard shortcuts" className="muted shortcuts">
        <h2>Keyboard</h2>
        <ul>
          <li>F2 — scan or search (register screen); F9 — charge</li>
          <li>F6 — this shift screen</li>
          <li>Enter — confirm a form here; Esc — cancel it</li>
        </ul>
      </section>
    </main>
  );
}
