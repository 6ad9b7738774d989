import { formatMoney } from '../../../../core/index.ts';
import type { CartLine } from '../sale/cart.ts';

/** Under a cart line's name: its line discount and price override, if any. */
export function LineBadges({ line, currency }: { line: CartLine; currency: string }) {
  const d = line.discount;
  const o = line.priceOverride;
  if (!d && !o) return null;
  return (
    <span className="cart-line-badges">
      {d ? (
        <span className="cart-line-badge" data-testid="line-discount-badge">
          {d.kind === 'percentage' ? `−${d.basisPoints / 100} %` : `−${formatMoney(d.amountCents, currency)}`}
        </span>
      ) : null}
      {o ? (
        <span className="cart-line-badge" data-testid="line-override-badge">
          Price {formatMoney(o.unitPriceCents, currency)}: {o.reason}
        </span>
      ) : null}
    </span>
  );
}
