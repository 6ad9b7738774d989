import type { CatalogItem } from '../../../../core/index.ts';
import { stockState } from '../sale/stock.ts';

/** The tile's stock badge: "Out of stock" or "Low: N"; nothing for untracked or well-stocked items. */
export function StockBadge({ item }: { item: CatalogItem }) {
  const s = stockState(item);
  if (!s) return null;
  return (
    <span className={`stock-badge stock-badge-${s.state}`} data-testid="stock-badge" data-state={s.state}>
      {s.state === 'out' ? 'Out of stock' : `Low: ${s.units}`}
    </span>
  );
}
