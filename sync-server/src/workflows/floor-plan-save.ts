/**
 * Saving a restaurant's floor plan without stranding a check (docs/decisions/0101-floor-plan.md): a save that removes
 * a table an open check stands on is refused, naming the table, so the check is closed or moved first.
 */
import type { FloorPlan, FloorPlanUpdate } from '../../../core/index.ts';
import type { Mutation } from '../kernel/mutation.ts';
import { openChecksOnTables } from '../modules/checks/index.ts';
import { saveFloorPlan } from '../modules/floor-plans/index.ts';
import { ProblemError } from '../platform/http/problem.ts';

/**
 * Saves the floor plan (modules/floor-plans `saveFloorPlan`) in `m`, unless it removes a table with an open check.
 * @throws ProblemError 409 `table_has_open_check` naming each such table and its check (`errors[].path` is the table's
 *   id), besides whatever `saveFloorPlan` throws
 */
export async function saveFloorPlanKeepingOpenChecks(m: Mutation, update: FloorPlanUpdate): Promise<FloorPlan> {
  return saveFloorPlan(m, update, async (removed) => {
    const open = await openChecksOnTables(
      m.tx,
      m.merchantId,
      removed.map((t) => t.id),
    );
    if (open.length === 0) return;
    const name = new Map(removed.map((t) => [t.id, t.name]));
    const tables = [...new Set(open.map((c) => c.tableId))].map((id) => `table ${name.get(id)}`);
    throw new ProblemError(
      409,
      'table_has_open_check',
      `The floor plan removes ${tables.join(', ')}, which ${tables.length === 1 ? 'has' : 'have'} an open check: close the check or move it to another table first.`,
      open.map((c) => ({ path: c.tableId, message: `table ${name.get(c.tableId)} has open check ${c.checkId} (${c.name})` })),
    );
  });
}
