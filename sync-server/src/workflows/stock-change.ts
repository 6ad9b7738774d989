/**
 * Stock changes that the catalog must see: the inventory module records the movements, then the catalog
 * module re-stamps the items whose stock moved (their `stockOnHand` at the default location, a new replication
 * sequence, `catalog.updated`), all in one mutation — so registers and apps see the new stock exactly when it commits.
 */
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { actorOf, mutation, type Mutation } from '../kernel/mutation.ts';
import { refreshStockOnHand } from '../modules/catalog/index.ts';
import {
  connectSaleStockRestamp,
  recordStockMovements,
  recordStockRequest,
  type RecordStockMovementsInput,
  type RecordStockMovementsResult,
  type StockRequestResult,
} from '../modules/inventory/index.ts';

/**
 * Records stock movements inside `m` and re-stamps the catalog items whose stock moved: inventory
 * `recordStockMovements` (contract at the top of modules/inventory/service.ts: idempotent per source, variation and
 * kind; unknown or untracked variations skipped, never thrown) → catalog `refreshStockOnHand`.
 * Returns inventory's result (`recorded`, `duplicates`, `skipped`, `oversold`, `changedItemIds`, `locationIsDefault`).
 */
export async function recordStockChange(m: Mutation, input: RecordStockMovementsInput): Promise<RecordStockMovementsResult> {
  const result = await recordStockMovements(m, input);
  if (result.changedItemIds.length > 0) await refreshStockOnHand(m, result.changedItemIds, result.locationIsDefault);
  return result;
}

/** A staff receive, adjust or count request: the location, an optional note and the lines (`POST …/inventory/{kind}`, docs/api.md "Inventory"). */
export type StockRequest = Parameters<typeof recordStockRequest>[2];

/**
 * POST /api/pos/catalog/inventory/{receive,adjust,count}: inventory `recordStockRequest` (checks the location and the
 * lines, records one movement per line, reads the new levels) → catalog `refreshStockOnHand`, in one mutation of the
 * caller. Answers the movements, any oversell and the new levels.
 * @throws ProblemError 400 naming `locationId` or `lines.<i>.variationId` (nothing is written then).
 */
export async function changeStock(
  ctx: AppContext,
  principal: Principal,
  kind: 'receive' | 'adjust' | 'count',
  request: StockRequest,
): Promise<Pick<StockRequestResult, 'recorded' | 'oversold' | 'levels'>> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const result = await recordStockRequest(m, kind, request);
    if (result.changedItemIds.length > 0) await refreshStockOnHand(m, result.changedItemIds, result.locationIsDefault);
    return { recorded: result.recorded, oversold: result.oversold, levels: result.levels };
  });
}

/**
 * Wires the inventory module's sale stock (`recordSaleStock`, called from inside the orders, invoices and pay-links
 * modules) to the catalog re-stamp. Called once by app.ts; transitional until those sale paths are workflows that
 * call {@link recordStockChange}.
 */
export function connectSaleStockToCatalog(): void {
  connectSaleStockRestamp(refreshStockOnHand);
}
