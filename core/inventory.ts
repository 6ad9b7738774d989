/**
 * Stock levels as the inventory API answers them (`GET /api/pos/catalog/inventory`, `…/low-stock`, and the `levels`
 * of `POST …/inventory/{receive,adjust,count}` — sync-server/src/services/inventory.ts). Quantities are whole units.
 */
import { z } from 'zod';

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
