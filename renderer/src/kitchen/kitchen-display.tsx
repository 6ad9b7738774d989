/**
 * The kitchen display of one station, at `/kitchen/<station>`: the tickets of the lines registers sent there (one per
 * send), oldest fired first, each with its table, server, guests, and its lines by course and seat with modifiers and
 * notes — a line voided after it was sent struck through with VOID — and an age timer coloured by the store's
 * thresholds (amber after warnAfterMinutes, red after lateAfterMinutes). Bump takes a ticket off (recorded on the
 * server with this display and the time), Recall brings the last bumped one back. The all-day count sums what the
 * open tickets still ask for.
 *
 * Keyboard: ← → (or Tab) move between tickets; Enter, Space or B bumps the ticket in focus; R recalls the last bumped.
 * Touch: the buttons are large. Ages count from the server's clock (its `now`), ticking each second.
 */
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { ticketAgeLevel, type StationTickets } from '../../../core/index.ts';
import { HttpError, type RegisterSession } from '../common/session.ts';
import {
  forgetKitchenSession,
  KITCHEN_POLL_MS,
  KitchenPairingRequired,
  kitchenSession,
  markTicket,
  onCheckLineChanges,
  pairKitchenDisplay,
  readStationTickets,
} from './kitchen-session.ts';
import './kitchen.css';

type Phase =
  { kind: 'starting' } | { kind: 'pairing'; message: string } | { kind: 'failed'; message: string } | { kind: 'ready'; session: RegisterSession };

/**
 * The display of `station`. `pairing` renders the pairing form (the register's, handed in by app.tsx) with the
 * message to show and the function that pairs with a code.
 */
export function KitchenDisplay({
  station,
  pairing,
}: {
  station: string;
  pairing: (message: string, onPair: (code: string) => Promise<void>) => ReactNode;
}) {
  const [phase, setPhase] = useState<Phase>({ kind: 'starting' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let isCurrent = true;
    kitchenSession().then(
      (session) => isCurrent && setPhase({ kind: 'ready', session }),
      (err: unknown) => {
        if (!isCurrent) return;
        if (err instanceof KitchenPairingRequired) setPhase({ kind: 'pairing', message: err.message });
        else setPhase({ kind: 'failed', message: 'The kitchen display cannot reach the server. It tries again in a moment.' });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [attempt]);
  useEffect(() => {
    if (phase.kind !== 'failed') return undefined;
    const timer = setTimeout(() => setAttempt((a) => a + 1), KITCHEN_POLL_MS);
    return () => clearTimeout(timer);
  }, [phase]);

  if (phase.kind === 'starting')
    return (
      <div className="splash" role="status">
        Opening the kitchen display…
      </div>
    );
  if (phase.kind === 'pairing')
    return (
      <div className="splash">
        {pairing(phase.message, async (code) => {
          const session = await pairKitchenDisplay(code);
          setPhase({ kind: 'ready', session });
        })}
      </div>
    );
  if (phase.kind === 'failed')
    return (
      <div className="splash">
        <p role="alert">{phase.message}</p>
      </div>
    );
  return (
    <StationBoard
      station={station}
      session={phase.session}
      onRevoked={() => {
        forgetKitchenSession();
        setAttempt((a) => a + 1);
      }}
    />
  );
}

const minutesSeconds = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

function StationBoard({ station, session, onRevoked }: { station: string; session: RegisterSession; onRevoked: () => void }) {
  const [board, setBoard] = useState<StationTickets | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [notFound, setNotFound] = useState(false);
  const [busy, setBusy] = useState(false);
  const [clockOffset, setClockOffset] = useState(0);
  const [, setTick] = useState(0);
  const reading = useRef(0);
  const ticketRefs = useRef<(HTMLElement | null)[]>([]);

  const refresh = useCallback(async () => {
    const mine = ++reading.current;
    try {
      const next = await readStationTickets(session, station);
      if (mine !== reading.current) return;
      setBoard(next);
      setClockOffset(Date.parse(next.now) - Date.now());
      setError(undefined);
      setNotFound(false);
    } catch (err) {
      if (mine !== reading.current) return;
      if (err instanceof HttpError && err.status === 401) return onRevoked();
      if (err instanceof HttpError && err.status === 404) setNotFound(true);
      else setError('Not connected: showing the tickets last read. Bump and recall need the server.');
    }
  }, [session, station, onRevoked]);

  useEffect(() => {
    void refresh();
    const stop = onCheckLineChanges(session, () => void refresh());
    const poll = setInterval(() => void refresh(), KITCHEN_POLL_MS);
    const ticker = setInterval(() => setTick((t) => t + 1), 1000);
    return () => {
      stop();
      clearInterval(poll);
      clearInterval(ticker);
    };
  }, [session, refresh]);

  const act = async (sendId: string, action: 'bump' | 'recall') => {
    setBusy(true);
    try {
      await markTicket(session, station, sendId, action);
    } catch (err) {
      // 409: another screen did it first — the board read below shows how things stand.
      if (!(err instanceof HttpError && err.status === 409)) setError(`Could not ${action} the ticket: ${(err as Error).message}`);
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  if (notFound)
    return (
      <main className="kds" data-testid="kitchen-display">
        <div className="kds-empty" role="alert">
          <h1>No station “{station}”</h1>
          <p>Set up the kitchen's stations in Back office → Kitchen, then open /kitchen/&lt;station id&gt; here.</p>
        </div>
      </main>
    );
  if (!board)
    return (
      <div className="splash" role="status">
        {error ?? 'Reading the tickets…'}
      </div>
    );

  const now = Date.now() + clockOffset;
  const lastBumped = board.recentlyBumped[0];
  const onBoardKey = (event: KeyboardEvent<HTMLElement>, index: number) => {
    const ticket = board.tickets[index];
    if (!ticket) return;
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      const next = Math.min(board.tickets.length - 1, Math.max(0, index + (event.key === 'ArrowRight' ? 1 : -1)));
      ticketRefs.current[next]?.focus();
    } else if ((event.key === 'Enter' || event.key === ' ' || event.key.toLowerCase() === 'b') && event.target === event.currentTarget) {
      event.preventDefault();
      if (!busy) void act(ticket.sendId, 'bump');
    }
  };

  return (
    <main
      className="kds"
      data-testid="kitchen-display"
      onKeyDown={(event) => {
        if (event.key.toLowerCase() === 'r' && lastBumped && !busy && !(event.target instanceof HTMLInputElement)) {
          event.preventDefault();
          void act(lastBumped.sendId, 'recall');
        }
      }}
    >
      <header className="kds-header">
        <h1>{board.station.name}</h1>
        <span className="kds-count" aria-live="polite">
          {board.tickets.length === 1 ? '1 ticket' : `${board.tickets.length} tickets`}
        </span>
        <button
          type="button"
          className="button button-large"
          disabled={!lastBumped || busy}
          onClick={() => lastBumped && void act(lastBumped.sendId, 'recall')}
          aria-keyshortcuts="R"
        >
          {lastBumped ? `Recall ${lastBumped.checkName}` : 'Recall'}
        </button>
      </header>
      {error ? (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="kds-body">
        {board.tickets.length === 0 ? (
          <div className="kds-empty" data-testid="kds-empty">
            <h2>No tickets</h2>
            <p>New orders for {board.station.name} appear here as soon as a register sends them.</p>
          </div>
        ) : (
          <ol className="kds-tickets" aria-label={`Tickets for ${board.station.name}, oldest first`}>
            {board.tickets.map((t, index) => {
              const age = now - Date.parse(t.firedAt);
              const level = ticketAgeLevel(age, board);
              return (
                <li key={t.sendId}>
                  <article
                    ref={(el) => {
                      ticketRefs.current[index] = el;
                    }}
                    className={`kds-ticket kds-${level}`}
                    data-testid="kds-ticket"
                    data-age={level}
                    tabIndex={0}
                    aria-label={`${t.checkName}, ${minutesSeconds(age)} since fired${level === 'fresh' ? '' : `, ${level}`}`}
                    aria-keyshortcuts="Enter B"
                    onKeyDown={(event) => onBoardKey(event, index)}
                  >
                    <header className="kds-ticket-head">
                      <strong className="kds-table">{t.checkName}</strong>
                      <time className="kds-age" dateTime={t.firedAt}>
                        {minutesSeconds(age)}
                      </time>
                      <span className="kds-meta">
                        {t.serverName ?? 'Server unknown'}
                        {t.guests !== null ? ` · ${t.guests} guest${t.guests === 1 ? '' : 's'}` : ''}
                      </span>
                    </header>
                    <ul className="kds-lines">
                      {t.lines.map((l, i) => {
                        const newCourse = i === 0 || t.lines[i - 1]!.course !== l.course;
                        return (
                          <li key={l.lineId} className="kds-line-group">
                            {newCourse ? <div className="kds-course">Course {l.course}</div> : null}
                            <div className={l.voided ? 'kds-line kds-void' : 'kds-line'}>
                              {l.voided ? <s>{`${l.quantity} × ${l.name}`}</s> : <span>{`${l.quantity} × ${l.name}`}</span>}
                              {l.voided ? <span className="kds-void-tag">VOID</span> : null}
                              <span className="kds-seat">{l.seat === null ? 'Table' : `Seat ${l.seat}`}</span>
                            </div>
                            {l.variationName && l.variationName !== 'Regular' ? <div className="kds-mod">{l.variationName}</div> : null}
                            {l.modifiers.map((m) => (
                              <div key={m} className="kds-mod">
                                + {m}
                              </div>
                            ))}
                            {l.note ? <div className="kds-note">** {l.note} **</div> : null}
                          </li>
                        );
                      })}
                    </ul>
                    <button
                      type="button"
                      className="button button-primary button-large kds-bump"
                      disabled={busy}
                      onClick={() => void act(t.sendId, 'bump')}
                    >
                      Bump {t.checkName}
                    </button>
                  </article>
                </li>
              );
            })}
          </ol>
        )}
        <aside className="kds-all-day" aria-label="All day">
          <h2>All day</h2>
          {board.allDay.length === 0 ? (
            <p className="muted">Nothing open.</p>
          ) : (
            <ul data-testid="kds-all-day">
              {board.allDay.map((item) => (
                <li key={item.name}>
                  <span className="kds-all-day-count">{item.quantity}</span> {item.name}
                </li>
              ))}
            </ul>
          )}
        </aside>
      </div>
    </main>
  );
}
