/**
 * The floor plan as the back office edits it before saving: the saved plan's areas and tables, each with a key for the
 * screen (a table's id once saved, a temporary key before), changed by the pure steps below and sent whole by
 * {@link toUpdate}. Places are plan units (core/floor-plan.ts: a 1200 × 800 canvas).
 */
import { FLOOR_HEIGHT, FLOOR_WIDTH, TABLE_SIDE, firstFreeSpot, type FloorPlan, type FloorPlanUpdate, type TableShape } from '../../../core/index.ts';

export interface DraftTable {
  key: string;
  id?: string;
  name: string;
  seats: number;
  shape: TableShape;
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface DraftArea {
  key: string;
  id?: string;
  name: string;
  tables: DraftTable[];
}

let nextKey = 0;
const newKey = () => `new-${++nextKey}`;

/** The saved plan as a draft. */
export function draftOf(plan: FloorPlan): DraftArea[] {
  return plan.areas.map((a) => ({ key: a.id, id: a.id, name: a.name, tables: a.tables.map((t) => ({ ...t, key: t.id })) }));
}

/** The body of `PUT /api/pos/floor-plan` for `areas`, edited from `version`. */
export function toUpdate(version: number, areas: readonly DraftArea[]): FloorPlanUpdate {
  return {
    version,
    areas: areas.map((a) => ({
      ...(a.id ? { id: a.id } : {}),
      name: a.name,
      tables: a.tables.map(({ key: _key, ...t }) => t),
    })),
  };
}

/** A new, empty area named `name`, added last. */
export function addArea(areas: readonly DraftArea[], name: string): DraftArea[] {
  return [...areas, { key: newKey(), name, tables: [] }];
}

/** The next free table name of the store: one more than the largest number used, "1" when none. */
export function nextTableName(areas: readonly DraftArea[]): string {
  const numbers = areas.flatMap((a) => a.tables.map((t) => Number(t.name))).filter((n) => Number.isInteger(n) && n > 0);
  return String(numbers.length === 0 ? 1 : Math.max(...numbers) + 1);
}

/** `areas` with a new four-seat square table in the first free place of the area keyed `areaKey`; null when it is full. */
export function addTable(areas: readonly DraftArea[], areaKey: string): { areas: DraftArea[]; table: DraftTable } | null {
  const area = areas.find((a) => a.key === areaKey);
  if (!area) return null;
  const spot = firstFreeSpot(area.tables, 80, 80);
  if (!spot) return null;
  const table: DraftTable = { key: newKey(), name: nextTableName(areas), seats: 4, shape: 'square', ...spot, width: 80, height: 80 };
  return { areas: areas.map((a) => (a.key === areaKey ? { ...a, tables: [...a.tables, table] } : a)), table };
}

/** `areas` with the table keyed `tableKey` changed by `change`; a place is kept on the canvas, a round or square table square. */
export function changeTable(areas: readonly DraftArea[], tableKey: string, change: Partial<Omit<DraftTable, 'key' | 'id'>>): DraftArea[] {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(v)));
  return areas.map((a) => ({
    ...a,
    tables: a.tables.map((t) => {
      if (t.key !== tableKey) return t;
      const next = { ...t, ...change };
      next.width = clamp(next.width, TABLE_SIDE.min, TABLE_SIDE.max);
      next.height = next.shape === 'rectangle' ? clamp(next.height, TABLE_SIDE.min, TABLE_SIDE.max) : next.width;
      next.x = clamp(next.x, 0, FLOOR_WIDTH - next.width);
      next.y = clamp(next.y, 0, FLOOR_HEIGHT - next.height);
      return next;
    }),
  }));
}

/** `areas` without the table keyed `tableKey`. */
export function removeTable(areas: readonly DraftArea[], tableKey: string): DraftArea[] {
  return areas.map((a) => ({ ...a, tables: a.tables.filter((t) => t.key !== tableKey) }));
}
