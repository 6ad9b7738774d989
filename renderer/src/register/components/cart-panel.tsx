import type { ReactNode } from 'react';
import { formatMoney, type CatalogItem, type OrderTotals } from '../../../../core/index.ts';
import type { CartLine } from '../sale/cart.ts';
import { LineBadges } from './line-badges.tsx';

interface CartPanelProps {
  lines: CartLine[];
  totals: OrderTotals;
  invalidKeys: string[];
  items: ReadonlyMap<string, CatalogItem>;
  currency: string;
  onQuantity: (key: string, quantity: number) => void;
  onRemove: (key: string) => void;
  onClear: () => void;
  onCharge: () => void;
  /** The cart's discount as typed (a percentage), whether it is not one, and its change handler. */
  discountText: string;
  discountInvalid: boolean;
  onDiscountText: (text: string) => void;
  /** Opens a line's tools (quantity, discount, price override, void — components/line-dialog.tsx). */
  onEditLine?: (key: string) => void;
  /** The sale discount's kind (percent or amount) and its change handler. */
  discountKind?: 'percentage' | 'fixed';
  onDiscountKind?: (kind: 'percentage' | 'fixed') => void;
  /** Extra controls under the header (hold / held sales, customer). */
  tools?: ReactNode;
}

export function CartPanel({ lines, totals, invalidKeys, items, currency, onQuantity, onRemove, onClear, onCharge, discountText, discountInvalid, onDiscountText, onEditLine, discountKind = 'percentage', onDiscountKind, tools }: CartPanelProps) {
  const priced = new Map(totals.lines.map((l) => [l.id, l]));
  const canCharge = lines.length > 0 && invalidKeys.length === 0 && !discountInvalid;
  return (
    <section className="cart" data-testid="cart" aria-label="Cart">
      <header className="cart-header">
        <h2>Current sale</h2>
        {lines.length > 0 ? (
          <button type="button" className="button button-ghost" onClick={onClear}>
            Clear
          </button>
        ) : null}
      </header>
      {tools}
      {lines.length === 0 ? (
        <p className="cart-empty">Cart is empty — tap an item or scan a barcode</p>
      ) : (
        <ul className="cart-lines">
          {lines.map((line) => {
            const pricedLine = priced.get(line.key);
            const name = pricedLine?.name ?? items.get(line.catalogItemId)?.name ?? 'Unknown item';
            return (
              <li key={line.key} className="cart-line" data-testid="cart-line">
                <div className="cart-line-main">
                  {onEditLine ? (
                    <button type="button" className="cart-line-name cart-line-edit" data-testid="cart-line-edit" aria-label={`Edit ${name}: quantity, discount, price, void`} onClick={() => onEditLine(line.key)}>
                      {name}
                    </button>
                  ) : (
                    <span className="cart-line-name">{name}</span>
                  )}
                  {pricedLine && pricedLine.modifiers.length > 0 ? (
                    <span className="cart-line-modifiers">{pricedLine.modifiers.map((m) => m.name).join(', ')}</span>
                  ) : null}
                  {pricedLine ? (
                    <span className="cart-line-unit">{formatMoney(pricedLine.unitPriceCents, currency)} each</span>
                  ) : (
                    <span className="form-error">No longer in the catalog — remove it</span>
                  )}
                  <LineBadges line={line} currency={currency} />
                </div>
                <div className="cart-line-controls">
                  <button type="button" className="button button-round" aria-label={`Decrease quantity of ${name}`} onClick={() => onQuantity(line.key, line.quantity - 1)}>
                    −
                  </button>
                  <span className="cart-line-quantity" data-testid="line-quantity" aria-label={`Quantity of ${name}`}>
                    {line.quantity}
                  </span>
                  <button type="button" className="button button-round" aria-label={`Increase quantity of ${name}`} onClick={() => onQuantity(line.key, line.quantity + 1)}>
                    +
                  </button>
                </div>
                <span className="cart-line-total">{pricedLine ? formatMoney(pricedLine.grossCents, currency) : ''}</span>
                <button type="button" className="button button-icon" aria-label={`Remove ${name}`} onClick={() => onRemove(line.key)}>
                  ✕
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <dl className="totals">
        <div>
          <dt>Subtotal</dt>
          <dd data-testid="cart-subtotal">{formatMoney(totals.subtotalCents, currency)}</dd>
        </div>
        <div className="totals-discount">
          <dt>
            <label htmlFor="cart-discount-input">{discountKind === 'fixed' ? 'Discount $' : 'Discount %'}</label>
            {onDiscountKind ? (
              <button
                type="button"
                className="button button-ghost discount-kind"
                data-testid="cart-discount-kind"
                aria-label={discountKind === 'fixed' ? 'Sale discount as an amount: switch to percent' : 'Sale discount as a percent: switch to amount'}
                onClick={() => onDiscountKind(discountKind === 'fixed' ? 'percentage' : 'fixed')}
              >
                {discountKind === 'fixed' ? '$→%' : '%→$'}
              </button>
            ) : null}
          </dt>
          <dd>
            <input
              id="cart-discount-input"
              className="cart-discount-input"
              inputMode="decimal"
              size={5}
              value={discountText}
              aria-invalid={discountInvalid}
              aria-describedby={discountInvalid ? 'cart-discount-error' : undefined}
              onChange={(e) => onDiscountText(e.target.value)}
              data-testid="cart-discount"
            />{' '}
            <span data-testid="cart-discount-amount">{totals.discountCents > 0 ? `−${formatMoney(totals.discountCents, currency)}` : ''}</span>
            {discountInvalid ? (
              <span id="cart-discount-error" className="form-error" role="alert">
                {' '}
                {discountKind === 'fixed' ? 'an amount such as 2.50' : '0 to 100'}
              </span>
            ) : null}
          </dd>
        </div>
        {totals.taxLines.length > 1
          ? totals.taxLines.map((t) => (
              <div key={t.taxRateId} className="totals-tax">
                <dt>
                  {t.name}
                  {t.inclusive ? ' (included)' : ''}
                </dt>
                <dd>{formatMoney(t.taxCents, currency)}</dd>
              </div>
            ))
          : null}
        <div>
          <dt>
            {totals.taxLines.length === 1 && totals.taxLines[0]
              ? `${totals.taxLines[0].name}${totals.taxLines[0].inclusive ? ' (included)' : ''}`
              : 'Tax'}
          </dt>
          <dd data-testid="cart-tax">{formatMoney(totals.taxCents, currency)}</dd>
        </div>
        <div className="totals-grand">
          <dt>Total</dt>
          <dd data-testid="cart-total">{formatMoney(totals.totalCents, currency)}</dd>
        </div>
      </dl>
      <button type="button" className="button button-primary button-charge" disabled={!canCharge} onClick={onCharge} data-testid="charge" title="Charge (F9)">
        {lines.length > 0 && totals.totalCents === 0 ? 'Complete sale (nothing due)' : `Charge ${formatMoney(totals.totalCents, currency)}`}
      </button>
    </section>
  );
}
