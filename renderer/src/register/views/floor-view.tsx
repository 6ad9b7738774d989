/**
 * The floor: a restaurant register opens on the store's floor plan (Back office → Floor plan) — its areas as tabs,
 * each table drawn at its place on the plan's canvas (scaled to the screen) and coloured by its check's state (free,
 * seated, ordered, check printed, paying; the state is also written, never colour alone) with its guests, server and
 * the time it was seated — and the named tabs (bar tabs) listed beside. A free table seats guests (how many asked);
 * a table or tab with a check opens the check (check-view.tsx). Tables are buttons: Tab and Enter, or a touch.
 */
import { useId, useMemo, useState, type FormEvent } from 'react';
import { FLOOR_HEIGHT, FLOOR_WIDTH, formatMoney, type CheckBook, type CheckHeader, type FloorTable } from '../../../../core/index.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { tabList } from '../../ui/tabs.ts';
import { useRegister } from '../register-context.ts';
import { useCheckBook } from '../checks/check-store.ts';
import { seatCheck } from '../checks/check-actions.ts';
import { checkGrossCents, checksByTable, checkState, openTabs, TABLE_STATE_NAMES, type TableState } from '../checks/floor-state.ts';
import { useFloorPlan } from '../checks/floor-plan-store.ts';
import { useCheckActor, useStaffNames } from '../checks/check-hooks.ts';
import { CheckView } from './check-view.tsx';
import './floor.css';

const timeOf = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

export function FloorView() {
  const { db, session } = useRegister();
  const { plan, offline } = useFloorPlan(session);
  const book = useCheckBook(db);
  const actor = useCheckActor();
  const staffNames = useStaffNames();
  const [openCheckId, setOpenCheckId] = useState<string | undefined>();
  const [seating, setSeating] = useState<FloorTable | 'tab' | undefined>();
  const areas = plan?.areas ?? [];
  const [areaId, setAreaId] = useState<string | undefined>();
  const area = areas.find((a) => a.id === areaId) ?? areas[0];
  const tabsId = useId();
  const areaTabs = tabList(
    tabsId,
    areas.map((a) => a.id),
    area?.id ?? '',
    setAreaId,
  );
  const byTable = useMemo(() => checksByTable(book), [book]);
  const tabs = useMemo(() => openTabs(book), [book]);

  if (openCheckId && book.checks[openCheckId] && !book.checks[openCheckId].closed) {
    return <CheckView checkId={openCheckId} book={book} plan={plan} onBack={() => setOpenCheckId(undefined)} />;
  }

  const seat = async (guests: number, name: string) => {
    if (!actor || !seating) return;
    const tableId = seating === 'tab' ? null : seating.id;
    const checkId = await seatCheck(db, actor, { tableId, name: seating === 'tab' ? name : `Table ${seating.name}`, guests });
    setSeating(undefined);
    setOpenCheckId(checkId);
  };

  return (
    <section className="floor" aria-label="Floor" data-testid="floor">
      <div className="floor-main">
        {offline ? (
          <p className="floor-note muted" role="status">
            The server cannot be reached: the floor plan last known is shown.
          </p>
        ) : null}
        {areas.length === 0 ? (
          <div className="floor-empty" data-testid="floor-empty">
            <h2>{plan ? 'No floor plan yet' : 'Loading the floor plan…'}</h2>
            {plan ? <p>A manager draws the store&rsquo;s areas and tables in Back office → Floor plan. Named tabs work meanwhile.</p> : null}
          </div>
        ) : (
          <>
            <div role="tablist" aria-label="Areas" className="floor-areas">
              {areas.map((a) => (
                <button key={a.id} type="button" className="floor-area-tab" {...areaTabs.tab(a.id)}>
                  {a.name}
                </button>
              ))}
            </div>
            <div {...areaTabs.panel()} className="floor-canvas" data-testid="floor-canvas">
              {area?.tables.map((table) => (
                <TableButton
                  key={table.id}
                  table={table}
                  book={book}
                  checks={byTable.get(table.id) ?? []}
                  serverName={(id) => staffNames.get(id) ?? 'Staff'}
                  onOpen={(check) => (check ? setOpenCheckId(check.id) : setSeating(table))}
                />
              ))}
            </div>
            <ul className="floor-legend" aria-label="Table colours">
              {(Object.keys(TABLE_STATE_NAMES) as TableState[]).map((state) => (
                <li key={state} className={`floor-state-${state}`}>
                  {TABLE_STATE_NAMES[state]}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <aside className="floor-tabs" aria-label="Tabs">
        <h2>Tabs</h2>
        {tabs.length === 0 ? <p className="muted">No open tab.</p> : null}
        <ul>
          {tabs.map((tab) => (
            <li key={tab.id}>
              <button type="button" className="button floor-tab" data-testid="floor-tab" onClick={() => setOpenCheckId(tab.id)}>
                <span className="floor-tab-name">{tab.name}</span>
                <span className="muted">
                  {TABLE_STATE_NAMES[checkState(book, tab)]} · {formatMoney(checkGrossCents(book, tab.id), session.currency)}
                </span>
              </button>
            </li>
          ))}
        </ul>
        <button type="button" className="button" onClick={() => setSeating('tab')} disabled={!actor}>
          + New tab
        </button>
      </aside>
      {seating ? <SeatDialog seating={seating} onSeat={seat} onClose={() => setSeating(undefined)} /> : null}
    </section>
  );
}

/** One table at its place: its name, state, guests, server and time seated (a second check, if any, is counted). */
function TableButton({
  table,
  book,
  checks,
  serverName,
  onOpen,
}: {
  table: FloorTable;
  book: CheckBook;
  checks: CheckHeader[];
  serverName: (staffId: string) => string;
  onOpen: (check: CheckHeader | undefined) => void;
}) {
  const check = checks[0];
  const state: TableState = check ? checkState(book, check) : 'free';
  const detail = check ? `${check.guests} guests · ${serverName(check.serverStaffId)} · ${timeOf(check.opened.at)}` : `${table.seats} seats`;
  const style = {
    left: `${(table.x / FLOOR_WIDTH) * 100}%`,
    top: `${(table.y / FLOOR_HEIGHT) * 100}%`,
    width: `${(table.width / FLOOR_WIDTH) * 100}%`,
    height: `${(table.height / FLOOR_HEIGHT) * 100}%`,
  };
  return (
    <button
      type="button"
      className={`floor-table floor-table-${table.shape} floor-state-${state}`}
      style={style}
      data-testid={`floor-table-${table.name}`}
      data-state={state}
      aria-label={`Table ${table.name}, ${TABLE_STATE_NAMES[state]}, ${detail}${checks.length > 1 ? `, ${checks.length} checks` : ''}`}
      onClick={() => onOpen(check)}
    >
      <span className="floor-table-name">{table.name}</span>
      <span className="floor-table-state">{TABLE_STATE_NAMES[state]}</span>
      {check ? <span className="floor-table-detail">{detail}</span> : null}
    </button>
  );
}

/** Seats a free table (how many guests; the table's seats by default) or opens a named tab. */
function SeatDialog({
  seating,
  onSeat,
  onClose,
}: {
  seating: FloorTable | 'tab';
  onSeat: (guests: number, name: string) => Promise<void>;
  onClose: () => void;
}) {
  const [guests, setGuests] = useState(String(seating === 'tab' ? 1 : seating.seats));
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const count = /^\d{1,2}$/.test(guests.trim()) ? Number(guests) : NaN;
  const valid = count >= 1 && count <= 99 && (seating !== 'tab' || name.trim() !== '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    onSeat(count, name.trim().slice(0, 60)).catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  };
  return (
    <Dialog title={seating === 'tab' ? 'New tab' : `Seat table ${seating.name}`} onClose={onClose}>
      <form className="seat-form" onSubmit={submit} data-testid="seat-form">
        {seating === 'tab' ? (
          <label>
            Name on the tab
            <input className="input" value={name} maxLength={60} onChange={(e) => setName(e.target.value)} data-autofocus />
          </label>
        ) : null}
        <label>
          Guests
          <input
            className="input"
            inputMode="numeric"
            value={guests}
            onChange={(e) => setGuests(e.target.value)}
            aria-invalid={!valid}
            {...(seating === 'tab' ? {} : { 'data-autofocus': true })}
          />
        </label>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={!valid}>
          {seating === 'tab' ? 'Open tab' : 'Seat'}
        </button>
      </form>
    </Dialog>
  );
}
