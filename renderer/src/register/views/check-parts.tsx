/**
 * Parts of the check screen (check-view.tsx): its lines grouped by seat and course, each movable to another check,
 * seat or course; transferring the check to a free table; merging another open check into it.
 */
import { useMemo, useState } from 'react';
import { formatMoney, type CheckBook, type FloorPlan } from '../../../../core/index.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { useRegister } from '../register-context.ts';
import { mergeChecks, moveLine, transferCheck } from '../checks/check-actions.ts';
import { checksByTable, courseName, COURSE_NAMES, groupLines, openChecks } from '../checks/floor-state.ts';
import { useCheckActor } from '../checks/check-hooks.ts';

/** Runs a change and shows what it answers (or its error). */
type Run = (task: () => Promise<string | undefined>) => void;

/** The check's live lines by seat (the table's first), then course; each with its price, whether sent, and Move. */
export function CheckLines({ book, checkId, currency, onMove }: { book: CheckBook; checkId: string; currency: string; onMove: Run }) {
  const groups = useMemo(() => groupLines(book, checkId), [book, checkId]);
  const [moving, setMoving] = useState<string | undefined>();
  if (groups.length === 0)
    return <p className="muted check-lines-empty">Nothing ordered yet: choose a seat and a course, then items from the menu.</p>;
  return (
    <div className="check-lines" data-testid="check-lines">
      {groups.map((group) => (
        <section
          key={`${group.seat ?? 0}:${group.course}`}
          className="check-group"
          aria-label={`${seatName(group.seat)}, ${courseName(group.course)}`}
        >
          <h3>
            {seatName(group.seat)} · {courseName(group.course)}
          </h3>
          <ul>
            {group.lines.map((line) => (
              <li key={line.id} className="check-line" data-testid="check-line">
                <span className="check-line-name">
                  {line.line.quantity} × {line.line.name}
                </span>
                <span className={line.sent ? 'check-line-sent' : 'check-line-new'}>{line.sent ? 'Sent' : 'New'}</span>
                <span>{formatMoney(line.line.grossCents, currency)}</span>
                <button type="button" className="button check-line-move" onClick={() => setMoving(line.id)} aria-label={`Move ${line.line.name}`}>
                  Move
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {moving ? <MoveLineDialog book={book} lineId={moving} onMove={onMove} onClose={() => setMoving(undefined)} /> : null}
    </div>
  );
}

const seatName = (seat: number | null) => (seat === null ? 'Table' : `Seat ${seat}`);

/** Moves one line to another open check, seat or course. */
function MoveLineDialog({ book, lineId, onMove, onClose }: { book: CheckBook; lineId: string; onMove: Run; onClose: () => void }) {
  const { db } = useRegister();
  const actor = useCheckActor();
  const line = book.lines[lineId]!;
  const [checkId, setCheckId] = useState(line.place.checkId);
  const [seat, setSeat] = useState<string>(String(line.place.seat ?? 0));
  const [course, setCourse] = useState(String(line.place.course));
  const target = book.checks[checkId];
  const move = () => {
    onClose();
    onMove(async () => {
      if (!actor) return 'Sign in to move lines.';
      await moveLine(db, actor, lineId, { checkId, seat: seat === '0' ? null : Number(seat), course: Number(course) });
      return `${line.line.name} moved to ${target?.name ?? 'the check'}, ${seatName(seat === '0' ? null : Number(seat))}, ${courseName(Number(course))}.`;
    });
  };
  return (
    <Dialog title={`Move ${line.line.name}`} onClose={onClose}>
      <div className="seat-form">
        <label>
          Check
          <select className="input" value={checkId} onChange={(e) => setCheckId(e.target.value)}>
            {openChecks(book).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Seat
          <select className="input" value={seat} onChange={(e) => setSeat(e.target.value)}>
            {Array.from({ length: (target?.guests ?? 1) + 1 }, (_, i) => (
              <option key={i} value={String(i)}>
                {seatName(i === 0 ? null : i)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Course
          <select className="input" value={course} onChange={(e) => setCourse(e.target.value)}>
            {COURSE_NAMES.map((name, i) => (
              <option key={name} value={String(i + 1)}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button button-primary" onClick={move}>
          Move
        </button>
      </div>
    </Dialog>
  );
}

/** Transfer the check to a free table; merge another open check into this one. */
export function CheckMoves({ book, checkId, plan, onChange }: { book: CheckBook; checkId: string; plan: FloorPlan | undefined; onChange: Run }) {
  const { db } = useRegister();
  const actor = useCheckActor();
  const taken = checksByTable(book);
  const freeTables = (plan?.areas ?? []).flatMap((a) => a.tables).filter((t) => !taken.has(t.id));
  const others = openChecks(book).filter((c) => c.id !== checkId);
  const [tableId, setTableId] = useState('');
  const [fromId, setFromId] = useState('');
  const check = book.checks[checkId]!;
  return (
    <div className="check-moves">
      {check.kind === 'table' || freeTables.length > 0 ? (
        <label className="check-move">
          Transfer to table
          <select className="input" value={tableId} onChange={(e) => setTableId(e.target.value)}>
            <option value="">Choose a free table</option>
            {freeTables.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="button"
            disabled={!tableId}
            onClick={() => {
              const table = freeTables.find((t) => t.id === tableId);
              setTableId('');
              onChange(async () => {
                if (!actor || !table) return 'Sign in to transfer.';
                await transferCheck(db, actor, checkId, { id: table.id, name: `Table ${table.name}` });
                return `Moved to table ${table.name}.`;
              });
            }}
          >
            Transfer
          </button>
        </label>
      ) : null}
      <label className="check-move">
        Merge in
        <select className="input" value={fromId} onChange={(e) => setFromId(e.target.value)}>
          <option value="">Choose a check</option>
          {others.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button"
          disabled={!fromId}
          onClick={() => {
            const from = book.checks[fromId];
            setFromId('');
            onChange(async () => {
              if (!actor || !from) return 'Sign in to merge.';
              await mergeChecks(db, actor, from.id, checkId);
              return `${from.name} merged into this check.`;
            });
          }}
        >
          Merge
        </button>
      </label>
    </div>
  );
}
