/**
 * Stock at the register: the tile badges (low / out of stock) and the store's "sell past zero" setting.
 * Stock figures are the catalog's `stockOnHand` of each tracked variation as last pulled (units at the default
 * location, server-computed); the register does not subtract its own unsynced sales.
 */
import type { CatalogItem } from '../../../../core/index.ts';
import type { CartLine } from './cart.ts';

/** A tracked item at or below this many units (and above zero) shows "Low stock". */
export const LOW_STOCK_UNITS = 5;

/** The tile badge of an item: `out` when every tracked variation is at or below 0, `low` when one is at or below {@link LOW_STOCK_UNITS}. */
export function stockState(item: CatalogItem): { state: 'out' | 'low'; units: number } | undefined {
  const tracked = item.variations.filter((v) => v.trackStock && v.stockOnHand !== undefined);
  if (tracked.length === 0) return undefined;
  const units = tracked.reduce((a, v) => a + Math.max(0, v.stockOnHand ?? 0), 0);
  if (tracked.every((v) => (v.stockOnHand ?? 0) <= 0)) return { state: 'out', units: 0 };
  if (tracked.some((v) => (v.stockOnHand ?? 0) <= LOW_STOCK_UNITS)) return { state: 'low', units };
  return undefined;
}

const settingKey = (registerId: string) => `register.confirmSellPastZero.${registerId}`;

/** Keeps the store's setting (from `GET /api/sync/registers/{id}`, boot.ts) for offline use. */
export function rememberSellPastZero(registerId: string, confirm: boolean): void {
  localStorage.setItem(settingKey(registerId), confirm ? 'true' : 'false');
}

/** Whether the register asks before selling past zero (the store's setting as last known; false until known). */
export function confirmsSellPastZero(registerId: string): boolean {
  return localStorage.getItem(settingKey(registerId)) === 'true';
}

/**
 * The variation a cart would take past zero: when `lines` hold more units of a tracked variation than its
 * `stockOnHand`, that variation with its name and the units in stock; else undefined.
 */
export function pastZero(
  lines: readonly CartLine[],
  items: ReadonlyMap<string, CatalogItem>,
  variationId: string,
): { name: string; inStock: number; wanted: number } | undefined {
  const wanted = lines.filter((l) => l.variationId === variationId).reduce((a, l) => a + l.quantity, 0);
  for (const line of lines) {
    if (line.variationId !== variationId) continue;
    const item = items.get(line.catalogItemId);
    const variation = item?.variations.find((v) => v.id === variationId);
    if (!item || !variation?.trackStock || variation.stockOnHand === undefined) return undefined;
    if (wanted > variation.stockOnHand)
      return {
        name: item.variations.length > 1 ? `${item.name} (${variation.name})` : item.name,
        inStock: Math.max(0, variation.stockOnHand),
        wanted,
      };
    return undefined;
  }
  return undefined;
}
