/**
 * Stock levels as the inventory API answers them (`GET /api/pos/catalog/inventory`, `…/low-stock`, and the `levels`
 * of `POST …/inventory/{receive,adjust,count}` — sync-server/src/services/inventory.ts). Quantities are whole units.
 */
import { z } from 'zod';
import { STOCK_MOVEMENT_KINDS } from './catalog.ts';

/** One row of the stock list: a tracked variation at a location. */
export const stockLevelSchema = z.strictObject({
  itemId: z.string(),
  itemName: z.string(),
  variationId: z.string(),
  variationName: z.string(),
  sku: z.string().nullable(),
  locationId: z.string(),
  /** Units on hand; negative after overselling. */
  onHand: z.int(),
  /** At or below this many units the variation is low on stock (null: no alert). */
  lowStockThreshold: z.int().min(0).nullable(),
  isLow: z.boolean(),
});
export type StockLevel = z.infer<typeof stockLevelSchema>;

/** One stock movement (`GET /api/pos/catalog/inventory/movements`): a signed quantity of one variation at a location. */
export const stockMovementSchema = z.strictObject({
  id: z.string(),
  locationId: z.string(),
  itemId: z.string(),
  variationId: z.string(),
  kind: z.enum(STOCK_MOVEMENT_KINDS),
  /** Units: > 0 in, < 0 out. */
  quantity: z.int(),
  /** What was counted (`count` movements only). */
  counted: z.int().nullable(),
  sourceId: z.string(),
  note: z.string().nullable(),
  actor: z.string(),
  createdAt: z.string(),
});

/** The answer of `POST /api/pos/catalog/inventory/{receive,adjust,count}`: the movements, what went below zero, the new levels. */
export const stockMovementResultSchema = z.strictObject({
  movements: z.array(stockMovementSchema),
  oversold: z.array(z.strictObject({ variationId: z.string(), locationId: z.string(), onHand: z.int() })),
  levels: z.array(stockLevelSchema),
});
export type StockMovementResult = z.infer<typeof stockMovementResultSchema>;
