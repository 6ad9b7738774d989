/**
 * A restaurant's floor plan: areas (dining room, patio, bar) holding tables, each with a name, a seat count, a shape and
 * a place. Open checks name their table by its id (core/checks.ts `CheckHeader.tableId`), so a table keeps its id for
 * as long as it exists: renaming or moving it does not change it.
 *
 * Places are in plan units on a fixed canvas of {@link FLOOR_WIDTH} × {@link FLOOR_HEIGHT} (the back office and the
 * register scale it to their screen), whole numbers, origin top left. Pure.
 */
import { z } from 'zod';
import { ID_PREFIXES } from './ids.ts';
import { nonBlankText } from './schemas.ts';

/** Width of the plan's canvas, in plan units. */
export const FLOOR_WIDTH = 1200;
/** Height of the plan's canvas, in plan units. */
export const FLOOR_HEIGHT = 800;
/** Smallest and largest side of a table, in plan units. */
export const TABLE_SIDE = { min: 40, max: 400 } as const;
/** Most areas in a plan, and tables in one area. */
export const FLOOR_LIMITS = { areas: 20, tablesPerArea: 150 } as const;
/** The shapes a table is drawn in. */
export const TABLE_SHAPES = ['square', 'round', 'rectangle'] as const;
export type TableShape = (typeof TABLE_SHAPES)[number];

const ulidTail = '[0-9A-HJKMNP-TV-Z]{26}';
const areaIdSchema = z.string().regex(new RegExp(`^${ID_PREFIXES.floorArea}_${ulidTail}$`), `must be an id starting with ${ID_PREFIXES.floorArea}_`);
const tableIdSchema = z
  .string()
  .regex(new RegExp(`^${ID_PREFIXES.floorTable}_${ulidTail}$`), `must be an id starting with ${ID_PREFIXES.floorTable}_`);

/** One table as stored and answered: its id is kept for life (open checks name it). */
export const floorTableSchema = z.strictObject({
  id: tableIdSchema,
  name: nonBlankText(20).describe('What staff call it: "12", "Bar 3", "Patio A". Unique in the store, case ignored.'),
  seats: z.int().min(1).max(40).describe('Guests it seats.'),
  shape: z.enum(TABLE_SHAPES),
  x: z.int().min(0).max(FLOOR_WIDTH).describe('Left edge, plan units.'),
  y: z.int().min(0).max(FLOOR_HEIGHT).describe('Top edge, plan units.'),
  width: z.int().min(TABLE_SIDE.min).max(TABLE_SIDE.max).describe('Plan units.'),
  height: z.int().min(TABLE_SIDE.min).max(TABLE_SIDE.max).describe('Plan units.'),
});
export type FloorTable = z.infer<typeof floorTableSchema>;

/** One area as stored and answered. */
export const floorAreaSchema = z.strictObject({
  id: areaIdSchema,
  name: nonBlankText(40).describe('"Dining room", "Patio", "Bar". Unique in the store, case ignored.'),
  tables: z.array(floorTableSchema).max(FLOOR_LIMITS.tablesPerArea),
});
export type FloorArea = z.infer<typeof floorAreaSchema>;

/** `GET /api/pos/floor-plan` and the answer of PUT: the plan and its version (0: never saved, no areas). */
export const floorPlanSchema = z.strictObject({
  version: z.int().min(0).describe('Goes up by one at each save; a save names the version it was edited from.'),
  areas: z.array(floorAreaSchema).max(FLOOR_LIMITS.areas),
  updatedAt: z.string().nullable().describe('When it was last saved (ISO 8601), null when never.'),
});
export type FloorPlan = z.infer<typeof floorPlanSchema>;

/** A table in a save: without an id it is a new table (the server gives it one). */
const floorTableInputSchema = floorTableSchema.extend({ id: tableIdSchema.optional() });
/** An area in a save: without an id it is a new area. */
const floorAreaInputSchema = floorAreaSchema.extend({
  id: areaIdSchema.optional(),
  tables: z.array(floorTableInputSchema).max(FLOOR_LIMITS.tablesPerArea),
});

/**
 * `PUT /api/pos/floor-plan`: the whole plan as edited, and the version it was edited from (optimistic concurrency: a
 * save over a newer version is refused, so two editors never silently undo each other).
 */
export const floorPlanUpdateSchema = z.strictObject({
  version: z.int().min(0).describe('The version the plan was edited from (`version` of the GET).'),
  areas: z.array(floorAreaInputSchema).max(FLOOR_LIMITS.areas),
});
export type FloorPlanUpdate = z.infer<typeof floorPlanUpdateSchema>;

/** A rule of the plan that a save breaks: the field's path (`areas.0.tables.3.name`) and what is wrong. */
export interface FloorPlanIssue {
  path: string;
  message: string;
}

/** True when the two tables' rectangles overlap (touching edges do not). */
function overlaps(a: Pick<FloorTable, 'x' | 'y' | 'width' | 'height'>, b: Pick<FloorTable, 'x' | 'y' | 'width' | 'height'>): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * The rules a plan must keep beyond each field's own bounds, checked on a parsed {@link FloorPlanUpdate}:
 * - area names are unique, and table names are unique in the whole store (a server says "table 12", not "12 on the
 *   patio"), case and surrounding spaces ignored;
 * - an id appears once (a table is in one area);
 * - a table lies inside the canvas and does not overlap another table of its area.
 * @returns every broken rule, in plan order; empty when the plan is valid. Pure.
 */
export function floorPlanIssues(plan: FloorPlanUpdate): FloorPlanIssue[] {
  const issues: FloorPlanIssue[] = [];
  const areaNames = new Map<string, number>();
  const tableNames = new Map<string, string>();
  const ids = new Set<string>();
  plan.areas.forEach((area, a) => {
    const areaKey = area.name.trim().toLowerCase();
    if (areaNames.has(areaKey)) issues.push({ path: `areas.${a}.name`, message: `another area is named "${area.name}"` });
    areaNames.set(areaKey, a);
    if (area.id !== undefined) {
      if (ids.has(area.id)) issues.push({ path: `areas.${a}.id`, message: 'appears twice in the plan' });
      ids.add(area.id);
    }
    area.tables.forEach((table, t) => {
      const at = `areas.${a}.tables.${t}`;
      const key = table.name.trim().toLowerCase();
      const clash = tableNames.get(key);
      if (clash !== undefined) issues.push({ path: `${at}.name`, message: `table "${table.name}" exists already (${clash})` });
      else tableNames.set(key, `in ${area.name}`);
      if (table.id !== undefined) {
        if (ids.has(table.id)) issues.push({ path: `${at}.id`, message: 'appears twice in the plan' });
        ids.add(table.id);
      }
      if (table.x + table.width > FLOOR_WIDTH)
        issues.push({ path: `${at}.x`, message: `the table's right edge passes the plan's width (${FLOOR_WIDTH})` });
      if (table.y + table.height > FLOOR_HEIGHT)
        issues.push({ path: `${at}.y`, message: `the table's bottom edge passes the plan's height (${FLOOR_HEIGHT})` });
      if (table.shape === 'round' || table.shape === 'square') {
        if (table.width !== table.height) issues.push({ path: `${at}.height`, message: `a ${table.shape} table is as high as it is wide` });
      }
      const other = area.tables.findIndex((o, i) => i < t && overlaps(o, table));
      if (other >= 0) issues.push({ path: `${at}.x`, message: `overlaps table "${area.tables[other]!.name}"` });
    });
  });
  return issues;
}

/** Every table of `plan` with its area, in plan order. Pure. */
export function tablesOfPlan(plan: Pick<FloorPlan, 'areas'>): { area: FloorArea; table: FloorTable }[] {
  return plan.areas.flatMap((area) => area.tables.map((table) => ({ area, table })));
}

/**
 * The first place, scanning rows top to bottom in steps of `step` plan units, where a `width` × `height` table fits on
 * the canvas without overlapping `tables` (with a `step` gap around it); null when the area is full. Pure.
 */
export function firstFreeSpot(
  tables: readonly Pick<FloorTable, 'x' | 'y' | 'width' | 'height'>[],
  width: number,
  height: number,
  step = 20,
): { x: number; y: number } | null {
  for (let y = step; y + height <= FLOOR_HEIGHT; y += step) {
    for (let x = step; x + width <= FLOOR_WIDTH; x += step) {
      const padded = { x: x - step, y: y - step, width: width + 2 * step, height: height + 2 * step };
      if (!tables.some((t) => overlaps(t, padded))) return { x, y };
    }
  }
  return null;
}
