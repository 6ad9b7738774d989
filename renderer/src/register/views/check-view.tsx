/**
 * A check at the register: its header (table or tab, guests, server, time seated, state), the menu to add from (to
 * the seat and course chosen), its lines grouped by seat and course, and what a server does with it — send to the
 * kitchen (every line not sent yet) or fire one course, print the pre-bill (the check stays open) and re-open it, move
 * a line, transfer the check to a free table, merge another check into it. Every change is stamped with this register
 * and the signed-in staff member (checks/check-actions.ts).
 */
import { useMemo, useState } from 'react';
import { formatMoney, linesOfCheck, newId, type CatalogItem, type CheckBook, type FloorPlan } from '../../../../core/index.ts';
import { useRegister } from '../register-context.ts';
import { priceCartLine } from '../sale/cart.ts';
import { useRegisterCatalog } from './register-parts.tsx';
import { addLine, printPreBill, reopenCheck, sendToKitchen } from '../checks/check-actions.ts';
import { checkGrossCents, checkState, courseName, COURSE_NAMES, TABLE_STATE_NAMES } from '../checks/floor-state.ts';
import { useCheckActor, useStaffNames } from '../checks/check-hooks.ts';
import { CheckLines, CheckMoves } from './check-parts.tsx';
import { ItemDialog } from '../components/item-dialog.tsx';
import { hasChoices } from '../components/item-grid.tsx';

/** Items shown at once in the menu (a search narrows it). */
const MENU_SHOWN = 60;

export function CheckView({ checkId, book, plan, onBack }: { checkId: string; book: CheckBook; plan: FloorPlan | undefined; onBack: () => void }) {
  const { db, sync, session } = useRegister();
  const actor = useCheckActor();
  const staffNames = useStaffNames();
  const { index, catalogVersion, isLoaded, items, catalog } = useRegisterCatalog(db, sync, session.registerId);
  const check = book.checks[checkId]!;
  const [seat, setSeat] = useState<number | null>(1);
  const [course, setCourse] = useState(1);
  const [query, setQuery] = useState('');
  const [choosing, setChoosing] = useState<CatalogItem | undefined>();
  const [note, setNote] = useState<{ text: string; isError?: boolean } | undefined>();
  const money = (cents: number) => formatMoney(cents, session.currency);
  const lines = useMemo(() => linesOfCheck(book, checkId), [book, checkId]);
  const unsent = lines.filter((l) => !l.sent);
  const unsentCourses = [...new Set(unsent.map((l) => l.place.course))].sort((a, b) => a - b);
  const state = checkState(book, check);
  const menu = useMemo(
    () => (isLoaded && catalogVersion >= 0 ? index.search(query) : items).slice(0, MENU_SHOWN),
    [index, catalogVersion, isLoaded, items, query],
  );

  /** Runs a change; its error (a closed check, a voided line…) is shown, never thrown. */
  const run = (task: () => Promise<string | undefined>) => {
    task().then(
      (text) => setNote(text ? { text } : undefined),
      (err: unknown) => setNote({ text: err instanceof Error ? err.message : String(err), isError: true }),
    );
  };
  /** An item with variations or modifiers asks which (the counter's item dialog); others are added at once. */
  const choose = (item: CatalogItem) => (hasChoices(item) ? setChoosing(item) : add(item, { variationId: item.variations[0]!.id, modifierIds: [] }));
  const add = (item: CatalogItem, choice: { variationId: string; modifierIds: string[] }) =>
    run(async () => {
      if (!actor) return 'Sign in to take orders.';
      const line = priceCartLine({ key: newId('orderLine'), catalogItemId: item.id, ...choice, quantity: 1 }, catalog);
      await addLine(db, actor, checkId, line, seat, course);
      return `${item.name} added to ${seat === null ? 'the table' : `seat ${seat}`}, ${courseName(course)}.`;
    });
  const send = (fire?: number) =>
    run(async () => {
      if (!actor) return 'Sign in to send.';
      const sent = await sendToKitchen(db, actor, checkId, {
        ...(fire === undefined ? {} : { course: fire }),
        serverName: staffNames.get(check.serverStaffId) ?? actor.staffName,
      });
      if (sent.printError) return `${sent.sent} sent; the kitchen ticket was not printed: ${sent.printError}`;
      return sent.sent === 0 ? 'Nothing new to send.' : `${sent.sent} ${sent.sent === 1 ? 'line' : 'lines'} sent to the kitchen.`;
    });
  const preBill = () =>
    run(async () => {
      if (!actor) return 'Sign in to print.';
      const printed = await printPreBill(db, actor, checkId, { name: session.merchantName, currency: session.currency });
      return printed.printError ? `Marked printed; the pre-bill was not printed: ${printed.printError}` : 'Pre-bill sent to the printer.';
    });
  const reopen = () =>
    run(async () => {
      if (!actor) return 'Sign in to re-open.';
      await reopenCheck(db, actor, checkId);
      return 'Check re-opened for more orders.';
    });

  return (
    <section className="check" aria-label={`Check ${check.name}`} data-testid="check">
      <header className="check-header">
        <button type="button" className="button" onClick={onBack} data-testid="check-back">
          ← Floor
        </button>
        <h2 className="check-title">{check.name}</h2>
        <span className={`check-state floor-state-${state}`} data-testid="check-state">
          {TABLE_STATE_NAMES[state]}
        </span>
        <span className="muted">
          {check.guests} guests · {staffNames.get(check.serverStaffId) ?? 'Staff'} · seated{' '}
          {new Date(check.opened.at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}
        </span>
        <span className="check-total" data-testid="check-total">
          {money(checkGrossCents(book, checkId))}
        </span>
      </header>
      <div className="check-body">
        <div className="check-menu">
          <fieldset className="check-choice">
            <legend>Seat</legend>
            {[null, ...Array.from({ length: check.guests }, (_, i) => i + 1)].map((s) => (
              <label key={s ?? 0} className="check-chip">
                <input type="radio" name="check-seat" checked={seat === s} onChange={() => setSeat(s)} />
                {s === null ? 'Table' : s}
              </label>
            ))}
          </fieldset>
          <fieldset className="check-choice">
            <legend>Course</legend>
            {COURSE_NAMES.map((name, i) => (
              <label key={name} className="check-chip">
                <input type="radio" name="check-course" checked={course === i + 1} onChange={() => setCourse(i + 1)} />
                {name}
              </label>
            ))}
          </fieldset>
          <input
            className="input check-search"
            type="search"
            aria-label="Search the menu"
            placeholder="Search the menu"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
          <ul className="check-items" aria-label="Menu">
            {menu.map((item) => (
              <li key={item.id}>
                <button type="button" className="button check-item" data-testid={`menu-${item.id}`} onClick={() => choose(item)} disabled={!actor}>
                  <span>{item.name}</span>
                  <span className="muted">{money(item.variations[0]?.priceCents ?? 0)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
        <div className="check-side">
          <CheckLines book={book} checkId={checkId} currency={session.currency} onMove={run} />
          <div className="check-actions" role="group" aria-label="Check actions">
            <button type="button" className="button button-primary" disabled={unsent.length === 0} onClick={() => send()} data-testid="check-send">
              Send{unsent.length > 0 ? ` (${unsent.length})` : ''}
            </button>
            {unsentCourses.map((c) => (
              <button key={c} type="button" className="button" onClick={() => send(c)}>
                Fire {courseName(c)}
              </button>
            ))}
            {check.preBill ? (
              <button type="button" className="button" onClick={reopen} data-testid="check-reopen">
                Re-open
              </button>
            ) : (
              <button type="button" className="button" disabled={lines.length === 0} onClick={preBill} data-testid="check-pre-bill">
                Print pre-bill
              </button>
            )}
          </div>
          <CheckMoves book={book} checkId={checkId} plan={plan} onChange={run} />
          <p className={note?.isError ? 'form-error' : 'check-note'} role="status" data-testid="check-note">
            {note?.text ?? ''}
          </p>
        </div>
      </div>
      {choosing ? (
        <ItemDialog
          item={choosing}
          currency={session.currency}
          onClose={() => setChoosing(undefined)}
          onAdd={(choice) => {
            add(choosing, choice);
            setChoosing(undefined);
          }}
        />
      ) : null}
    </section>
  );
}
