/**
 * The store's floor plan (core/floor-plan.ts): read it, save it whole. This module is the one writer of `floor_plans`.
 */
import { floorPlanIssues, newId, tablesOfPlan, type FloorArea, type FloorPlan, type FloorPlanUpdate } from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { jsonValue, type Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

interface FloorPlanRow {
  version: number;
  areas: FloorArea[];
  updated_at: Date;
}

const EMPTY: FloorPlan = { version: 0, areas: [], updatedAt: null };

/** The store's floor plan; version 0 with no areas when it was never saved. */
export async function readFloorPlan(db: Queryable, merchantId: string): Promise<FloorPlan> {
  const { rows } = await db.query<FloorPlanRow>('SELECT version, areas, updated_at FROM floor_plans WHERE merchant_id = $1', [merchantId]);
  const row = rows[0];
  if (!row) return EMPTY;
  return { version: Number(row.version), areas: jsonValue<FloorArea[]>(row.areas), updatedAt: new Date(row.updated_at).toISOString() };
}

/**
 * Saves the plan as edited from `update.version`: new areas and tables get ids, the version goes up by one, and one
 * audit entry `floor_plan.saved` names the tables added, removed and renamed (by name, with ids).
 * @throws ProblemError 409 `floor_plan_changed` when the stored version is not `update.version` (someone saved in
 *   between: reload and edit again); 400 `validation_error` naming each field that breaks a rule of
 *   `floorPlanIssues` (names unique, inside the canvas, no overlap) or an id that is not one of this plan's; and
 *   whatever `beforeRemoving` throws, which is handed the tables the save removes (id and name) before anything is
 *   written (workflows/floor-plan-save.ts refuses a table with an open check).
 */
export async function saveFloorPlan(
  m: Mutation,
  update: FloorPlanUpdate,
  beforeRemoving: (tables: { id: string; name: string }[]) => Promise<void> = async () => {},
): Promise<FloorPlan> {
  const issues = floorPlanIssues(update);
  if (issues.length > 0)
    throw new ProblemError(
      400,
      'validation_error',
      `Invalid ${issues.map((i) => i.path).join(', ')}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
    );
  // Locks the row (or, for a first save, relies on the primary key): two saves from one version cannot both pass.
  const { rows } = await m.tx.query<FloorPlanRow>('SELECT version, areas, updated_at FROM floor_plans WHERE merchant_id = $1 FOR UPDATE', [
    m.merchantId,
  ]);
  const before: FloorPlan = rows[0] ? { version: Number(rows[0].version), areas: jsonValue<FloorArea[]>(rows[0].areas), updatedAt: null } : EMPTY;
  if (before.version !== update.version)
    throw new ProblemError(
      409,
      'floor_plan_changed',
      `The floor plan was saved by someone else since you opened it (version ${before.version}, yours ${update.version}): reload it and make your changes again.`,
    );
  const known = new Set([...before.areas.map((a) => a.id), ...tablesOfPlan(before).map((t) => t.table.id)]);
  const unknown: { path: string; message: string }[] = [];
  update.areas.forEach((area, a) => {
    if (area.id !== undefined && !known.has(area.id))
      unknown.push({ path: `areas.${a}.id`, message: 'is not an area of this floor plan (leave it out for a new area)' });
    area.tables.forEach((table, t) => {
      if (table.id !== undefined && !known.has(table.id))
        unknown.push({ path: `areas.${a}.tables.${t}.id`, message: 'is not a table of this floor plan (leave it out for a new table)' });
    });
  });
  if (unknown.length > 0)
    throw new ProblemError(
      400,
      'validation_error',
      `Invalid ${unknown.map((i) => i.path).join(', ')}: ${unknown.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      unknown,
    );

  const kept = new Set(update.areas.flatMap((a) => a.tables.flatMap((t) => (t.id === undefined ? [] : [t.id]))));
  const removed = tablesOfPlan(before)
    .map(({ table }) => ({ id: table.id, name: table.name }))
    .filter((t) => !kept.has(t.id));
  if (removed.length > 0) await beforeRemoving(removed);

  const areas: FloorArea[] = update.areas.map((area) => ({
    id: area.id ?? newId('floorArea'),
    name: area.name,
    tables: area.tables.map((table) => ({ ...table, id: table.id ?? newId('floorTable') })),
  }));
  const version = before.version + 1;
  const now = m.now.toISOString();
  await m.tx.query(
    `INSERT INTO floor_plans (merchant_id, version, areas, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id) DO UPDATE SET version = EXCLUDED.version, areas = EXCLUDED.areas, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, version, JSON.stringify(areas), now],
  );
  const after: FloorPlan = { version, areas, updatedAt: now };
  const beforeTables = new Map(tablesOfPlan(before).map(({ table }) => [table.id, table.name]));
  const afterTables = new Map(tablesOfPlan(after).map(({ table }) => [table.id, table.name]));
  await m.audit({
    action: 'floor_plan.saved',
    entityType: 'floor_plan',
    entityId: m.merchantId,
    data: {
      version,
      areas: areas.map((a) => a.name),
      tablesAdded: [...afterTables].filter(([id]) => !beforeTables.has(id)).map(([id, name]) => ({ id, name })),
      tablesRemoved: [...beforeTables].filter(([id]) => !afterTables.has(id)).map(([id, name]) => ({ id, name })),
      tablesRenamed: [...afterTables]
        .filter(([id, name]) => beforeTables.has(id) && beforeTables.get(id) !== name)
        .map(([id, name]) => ({ id, from: beforeTables.get(id)!, to: name })),
    },
  });
  return after;
}
