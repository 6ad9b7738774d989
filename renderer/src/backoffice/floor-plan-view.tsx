/**
 * Back office → Floor plan: a restaurant's areas (dining room, patio, bar) and their tables, placed by dragging on a
 * canvas scaled to the screen (plan units: 1200 × 800, snapped to 10). A table is picked by a tap or Tab and moved by
 * dragging or the arrow keys (Shift: by 1); its name, seats, shape and size are edited beside the canvas. The plan is
 * saved whole (`PUT /api/pos/floor-plan`) from the version it was opened at: when someone saved in between, the
 * server refuses (409) and the screen offers to reload. The plan's rules (names unique, no overlap) are checked as
 * you edit, with the same function the server uses (core `floorPlanIssues`).
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { FLOOR_HEIGHT, FLOOR_WIDTH, TABLE_SHAPES, floorPlanIssues, type FloorPlan, type TableShape } from '../../../core/index.ts';
import { ApiError, errorMessage } from '../common/back-office-api.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { addArea, addTable, changeTable, draftOf, removeTable, toUpdate, type DraftArea, type DraftTable } from './floor-plan-draft.ts';

const SNAP = 10;
const snap = (v: number) => Math.round(v / SNAP) * SNAP;

interface Drag {
  key: string;
  pointerX: number;
  pointerY: number;
  x: number;
  y: number;
  /** Screen pixels per plan unit. */
  scale: number;
}

export function FloorPlanView() {
  const plan = useBackOfficeData('floor-plan', [], (api) => api.request<FloorPlan>('GET', '/api/pos/floor-plan'));
  const actions = useBackOfficeActions(['floor-plan']);
  const [areas, setAreas] = useState<DraftArea[]>([]);
  const [areaKey, setAreaKey] = useState<string | undefined>();
  const [selected, setSelected] = useState<string | undefined>();
  const [stale, setStale] = useState(false);
  const drag = useRef<Drag | null>(null);
  const canvas = useRef<HTMLDivElement>(null);
  const saved = plan.data;

  // The draft starts from each version read from the server (the first read, a save, a reload).
  useEffect(() => {
    if (!saved) return;
    const draft = draftOf(saved);
    setAreas(draft);
    setAreaKey((key) => (draft.some((a) => a.key === key) ? key : draft[0]?.key));
    setSelected(undefined);
    setStale(false);
  }, [saved]);

  const update = useMemo(() => (saved ? toUpdate(saved.version, areas) : undefined), [saved, areas]);
  const issues = useMemo(() => (update ? floorPlanIssues(update) : []), [update]);
  const changed = saved !== undefined && update !== undefined && JSON.stringify(update) !== JSON.stringify(toUpdate(saved.version, draftOf(saved)));

  if (plan.error) return <LoadError error={plan.error} what="The floor plan" />;
  if (!saved || !update) return <p className="muted">Loading the floor plan…</p>;

  const area = areas.find((a) => a.key === areaKey);
  const table = area?.tables.find((t) => t.key === selected);
  const describe = (path: string) => {
    const [, a, , t] = path.split('.');
    const where = areas[Number(a)];
    return t === undefined ? `Area "${where?.name ?? ''}"` : `Table "${where?.tables[Number(t)]?.name ?? ''}"`;
  };

  const save = async () => {
    setStale(false);
    await actions.run(
      (api) => api.request<FloorPlan>('PUT', '/api/pos/floor-plan', update),
      (err) => {
        if (err instanceof ApiError && err.status === 409) setStale(true);
        return errorMessage(err);
      },
    );
  };
  const onAddArea = () => {
    const name = window.prompt('Name of the new area (e.g. Patio, Bar)')?.trim();
    if (!name) return;
    const next = addArea(areas, name);
    setAreas(next);
    setAreaKey(next.at(-1)!.key);
  };
  const onAddTable = () => {
    if (!area) return;
    const added = addTable(areas, area.key);
    if (!added) return window.alert('This area is full: move or remove a table first.');
    setAreas(added.areas);
    setSelected(added.table.key);
  };
  const onRemoveArea = () => {
    if (!area) return;
    if (area.tables.length > 0 && !window.confirm(`Remove ${area.name} and its ${area.tables.length} tables?`)) return;
    const next = areas.filter((a) => a.key !== area.key);
    setAreas(next);
    setAreaKey(next[0]?.key);
  };
  const change = (key: string, patch: Partial<Omit<DraftTable, 'key' | 'id'>>) => setAreas((current) => changeTable(current, key, patch));

  const onPointerDown = (event: PointerEvent<HTMLButtonElement>, t: DraftTable) => {
    const rect = canvas.current?.getBoundingClientRect();
    if (!rect) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { key: t.key, pointerX: event.clientX, pointerY: event.clientY, x: t.x, y: t.y, scale: rect.width / FLOOR_WIDTH };
    setSelected(t.key);
  };
  const onPointerMove = (event: PointerEvent<HTMLButtonElement>) => {
    const d = drag.current;
    if (!d) return;
    change(d.key, { x: snap(d.x + (event.clientX - d.pointerX) / d.scale), y: snap(d.y + (event.clientY - d.pointerY) / d.scale) });
  };
  const onPointerUp = () => {
    drag.current = null;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, t: DraftTable) => {
    const step = event.shiftKey ? 1 : SNAP;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      change(t.key, { x: t.x + move[0], y: t.y + move[1] });
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      setAreas((current) => removeTable(current, t.key));
      setSelected(undefined);
    }
  };

  return (
    <section className="bo-section" data-testid="floor-plan">
      <div className="bo-toolbar">
        <h2>Floor plan</h2>
        {changed ? (
          <span className="bo-tag">Unsaved changes</span>
        ) : saved.updatedAt ? (
          <span className="muted">Saved (version {saved.version})</span>
        ) : null}
        <button type="button" className="button button-ghost" disabled={!changed || actions.pending} onClick={() => setAreas(draftOf(saved))}>
          Discard changes
        </button>
        <button
          type="button"
          className="button button-primary"
          disabled={!changed || issues.length > 0 || actions.pending}
          onClick={() => void save()}
        >
          {actions.pending ? 'Saving…' : 'Save floor plan'}
        </button>
      </div>
      {actions.error ? (
        <div className="form-error" role="alert">
          <p>{actions.error}</p>
          {stale ? (
            <button type="button" className="button" onClick={() => void plan.refresh()}>
              Reload the saved plan (your changes are dropped)
            </button>
          ) : null}
        </div>
      ) : null}
      {issues.length > 0 ? (
        <ul className="form-error" role="alert" aria-label="Problems to fix before saving">
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {describe(issue.path)}: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}

      <div className="bo-toolbar">
        <div className="bo-filters" role="tablist" aria-label="Areas">
          {areas.map((a) => (
            <button
              key={a.key}
              type="button"
              role="tab"
              aria-selected={a.key === areaKey}
              className={a.key === areaKey ? 'button button-primary' : 'button'}
              onClick={() => {
                setAreaKey(a.key);
                setSelected(undefined);
              }}
            >
              {a.name} <span className="muted">({a.tables.length})</span>
            </button>
          ))}
        </div>
        <button type="button" className="button button-ghost" onClick={onAddArea}>
          + Add area
        </button>
      </div>

      {!area ? (
        <div className="bo-empty">
          <p>No areas yet. A restaurant's floor plan has areas — a dining room, a patio, a bar — holding its tables.</p>
          <button type="button" className="button button-primary" onClick={onAddArea}>
            Add the first area
          </button>
        </div>
      ) : (
        <div className="fp-editor">
          <div
            className="fp-canvas"
            ref={canvas}
            aria-label={`${area.name}: ${area.tables.length} tables`}
            role="group"
            onClick={() => setSelected(undefined)}
          >
            {area.tables.length === 0 ? (
              <p className="fp-canvas-empty muted">No tables in {area.name} yet: add one, then drag it into place.</p>
            ) : null}
            {area.tables.map((t) => (
              <button
                key={t.key}
                type="button"
                className={`fp-table fp-${t.shape}${t.key === selected ? ' fp-table-selected' : ''}`}
                style={{
                  left: `${(t.x / FLOOR_WIDTH) * 100}%`,
                  top: `${(t.y / FLOOR_HEIGHT) * 100}%`,
                  width: `${(t.width / FLOOR_WIDTH) * 100}%`,
                  height: `${(t.height / FLOOR_HEIGHT) * 100}%`,
                }}
                aria-label={`Table ${t.name}, ${t.seats} seats, at ${t.x}, ${t.y}`}
                aria-pressed={t.key === selected}
                data-testid={`fp-table-${t.name}`}
                onClick={(event) => {
                  event.stopPropagation();
                  setSelected(t.key);
                }}
                onPointerDown={(event) => onPointerDown(event, t)}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerUp}
                onPointerCancel={onPointerUp}
                onKeyDown={(event) => onKeyDown(event, t)}
              >
                <span className="fp-table-name">{t.name}</span>
                <span className="fp-table-seats">{t.seats}</span>
              </button>
            ))}
          </div>
          <aside className="bo-panel fp-side" aria-label="Area and table">
            <label className="bo-field">
              Area name
              <input
                className="bo-input"
                value={area.name}
                onChange={(e) => setAreas(areas.map((a) => (a.key === area.key ? { ...a, name: e.target.value } : a)))}
              />
            </label>
            <div className="bo-panel-actions">
              <button type="button" className="button button-primary" onClick={onAddTable}>
                + Add table
              </button>
              <button type="button" className="button bo-danger" onClick={onRemoveArea}>
                Remove area
              </button>
            </div>
            {table ? (
              <TableFields table={table} onChange={(patch) => change(table.key, patch)} onRemove={() => setAreas(removeTable(areas, table.key))} />
            ) : (
              <p className="muted">Tap a table to edit it; drag it, or use the arrow keys, to move it.</p>
            )}
          </aside>
        </div>
      )}
    </section>
  );
}

/** The selected table's name, seats, shape and size. */
function TableFields({
  table,
  onChange,
  onRemove,
}: {
  table: DraftTable;
  onChange: (patch: Partial<Omit<DraftTable, 'key' | 'id'>>) => void;
  onRemove: () => void;
}) {
  const number = (text: string, fallback: number) => (Number.isFinite(Number(text)) && text.trim() !== '' ? Number(text) : fallback);
  return (
    <fieldset className="bo-fieldset" aria-label={`Table ${table.name}`}>
      <legend>Table {table.name}</legend>
      <label className="bo-field">
        Name
        <input className="bo-input" value={table.name} maxLength={20} onChange={(e) => onChange({ name: e.target.value })} />
      </label>
      <label className="bo-field">
        Seats
        <input
          className="bo-input bo-units"
          type="number"
          min={1}
          max={40}
          value={table.seats}
          onChange={(e) => onChange({ seats: Math.max(1, Math.min(40, number(e.target.value, table.seats))) })}
        />
      </label>
      <label className="bo-field">
        Shape
        <select className="bo-input" value={table.shape} onChange={(e) => onChange({ shape: e.target.value as TableShape })}>
          {TABLE_SHAPES.map((shape) => (
            <option key={shape} value={shape}>
              {shape}
            </option>
          ))}
        </select>
      </label>
      <div className="bo-row">
        <label className="bo-field bo-field-narrow">
          Width
          <input
            className="bo-input bo-units"
            type="number"
            step={SNAP}
            value={table.width}
            onChange={(e) => onChange({ width: number(e.target.value, table.width) })}
          />
        </label>
        {table.shape === 'rectangle' ? (
          <label className="bo-field bo-field-narrow">
            Depth
            <input
              className="bo-input bo-units"
              type="number"
              step={SNAP}
              value={table.height}
              onChange={(e) => onChange({ height: number(e.target.value, table.height) })}
            />
          </label>
        ) : null}
      </div>
      <button type="button" className="button bo-danger" onClick={onRemove}>
        Remove table
      </button>
    </fieldset>
  );
}
