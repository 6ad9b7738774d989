import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { formatMoney, type CatalogItem, type OrderTotals } from '../../../../core/index.ts';
import { MAX_LINE_QUANTITY, type CartLine } from '../sale/cart.ts';
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
  /** Focus target once the cart is empty (after Clear, or removing the last line): the scan box. */
  onEmptied?: () => void;
  /** Opens a line's tools (quantity, discount, price override, void — components/line-dialog.tsx). */
  onEditLine?: (key: string) => void;
  /** The sale discount's kind (percent or amount) and its change handler. */
  discountKind?: 'percentage' | 'fixed';
  onDiscountKind?: (kind: 'percentage' | 'fixed') => void;
  /** Extra controls under the header (hold / held sales). */
  tools?: ReactNode;
  /** The sale's customer control (components/customer-dialog.tsx), under the header. */
  customer?: ReactNode;
}

/**
 * The cart: lines with a typed quantity and −/+ (0 removes the line), line tools, Remove, Clear, the discount and the
 * totals, and Charge. Focus never falls to the page body: removing a line (✕ or a quantity of 0) moves it to the
 * quantity of the line now in that place (or the one before), an emptied cart hands it to `onEmptied`. Quantity and
 * total changes are announced once through a polite live region.
 */
export function CartPanel({
  lines,
  totals,
  invalidKeys,
  items,
  currency,
  onQuantity,
  onRemove,
  onClear,
  onCharge,
  discountText,
  discountInvalid,
  onDiscountText,
  onEmptied,
  onEditLine,
  discountKind = 'percentage',
  onDiscountKind,
  tools,
  customer,
}: CartPanelProps) {
  const priced = new Map(totals.lines.map((l) => [l.id, l]));
  const canCharge = lines.length > 0 && invalidKeys.length === 0 && !discountInvalid;
  const list = useRef<HTMLUListElement>(null);
  /** Index of a line just removed: after the render its neighbour's quantity takes focus. */
  const removedAt = useRef<number | undefined>(undefined);
  const nameOf = (line: CartLine) => priced.get(line.key)?.name ?? items.get(line.catalogItemId)?.name ?? 'Unknown item';
  /** Set when the cashier empties the cart here (Clear, the last line removed): only then is "Cart cleared" news. */
  const emptiedHere = useRef(false);
  const announcement = useCartAnnouncement(lines, nameOf, formatMoney(totals.totalCents, currency), emptiedHere);
  useChangedLineInView(list, lines);

  useEffect(() => {
    const at = removedAt.current;
    if (at === undefined) return;
    removedAt.current = undefined;
    const inputs = list.current?.querySelectorAll<HTMLInputElement>('[data-testid="line-quantity"]');
    const next = inputs?.[Math.min(at, inputs.length - 1)];
    if (next) next.focus();
    else onEmptied?.();
  }, [lines, onEmptied]);

  const removeAt = (index: number, key: string) => {
    removedAt.current = index;
    emptiedHere.current = true;
    onRemove(key);
  };
  const setQuantity = (index: number, key: string, quantity: number) => {
    if (quantity < 1) {
      removedAt.current = index;
      emptiedHere.current = true;
    }
    onQuantity(key, quantity);
  };

  return (
    <section className="cart" id="cart" tabIndex={-1} data-testid="cart" aria-label="Cart">
      <header className="cart-header">
        <h2>Current sale</h2>
        {lines.length > 0 ? (
          <button
            type="button"
            className="button button-ghost"
            onClick={() => {
              emptiedHere.current = true;
              onClear();
              onEmptied?.();
            }}
          >
            Clear
          </button>
        ) : null}
      </header>
      <p className="visually-hidden" role="status" data-testid="cart-announcement">
        {announcement}
      </p>
      {/* The customer and the hold tools share one row (two with a customer attached): the lines keep the height. */}
      <div className="cart-toolbar">
        {customer}
        {tools}
      </div>
      {lines.length === 0 ? (
        <p className="cart-empty">Cart is empty — tap an item or scan a barcode</p>
      ) : (
        <ul className="cart-lines" ref={list}>
          {lines.map((line, index) => {
            const pricedLine = priced.get(line.key);
            const name = nameOf(line);
            return (
              <li key={line.key} className="cart-line" data-testid="cart-line" data-line-key={line.key}>
                <div className="cart-line-main">
                  {onEditLine ? (
                    <button
                      type="button"
                      className="cart-line-name cart-line-edit"
                      data-testid="cart-line-edit"
                      aria-label={`Edit ${name}: quantity, discount, price, void`}
                      title={name}
                      onClick={() => onEditLine(line.key)}
                    >
                      <span className="cart-line-title">{name}</span>
                    </button>
                  ) : (
                    <span className="cart-line-name" title={name}>
                      <span className="cart-line-title">{name}</span>
                    </span>
                  )}
                  {pricedLine && pricedLine.modifiers.length > 0 ? (
                    <span className="cart-line-modifiers">{pricedLine.modifiers.map((m) => m.name).join(', ')}</span>
                  ) : null}
                  {pricedLine ? null : <span className="form-error">No longer in the catalog — remove it</span>}
                  <LineBadges line={line} currency={currency} />
                </div>
                <div className="cart-line-controls">
                  <button
                    type="button"
                    className="button button-round"
                    tabIndex={-1}
                    aria-label={`Decrease quantity of ${name}`}
                    onClick={() => setQuantity(index, line.key, line.quantity - 1)}
                  >
                    −
                  </button>
                  <QuantityInput name={name} quantity={line.quantity} onQuantity={(q) => setQuantity(index, line.key, q)} />
                  <button
                    type="button"
                    className="button button-round"
                    tabIndex={-1}
                    aria-label={`Increase quantity of ${name}`}
                    onClick={() => setQuantity(index, line.key, line.quantity + 1)}
                  >
                    +
                  </button>
                </div>
                <span className="cart-line-total">
                  {pricedLine ? formatMoney(pricedLine.grossCents, currency) : ''}
                  {pricedLine ? <span className="cart-line-unit">{formatMoney(pricedLine.unitPriceCents, currency)} each</span> : null}
                </span>
                <button type="button" className="button button-icon" aria-label={`Remove ${name}`} onClick={() => removeAt(index, line.key)}>
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
                aria-label={
                  discountKind === 'fixed' ? 'Sale discount as an amount: switch to percent' : 'Sale discount as a percent: switch to amount'
                }
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
      <button
        type="button"
        className="button button-primary button-charge"
        disabled={!canCharge}
        onClick={onCharge}
        data-testid="charge"
        title="Charge (F9)"
        aria-keyshortcuts="F9"
      >
        {lines.length > 0 && totals.totalCents === 0 ? 'Complete sale (nothing due)' : `Charge ${formatMoney(totals.totalCents, currency)}`}
      </button>
    </section>
  );
}

/**
 * A line's quantity, typed (1…MAX_LINE_QUANTITY; 0 removes the line) and committed on Enter or when focus leaves;
 * ↑/↓ step it like the −/+ buttons (which are left out of the Tab order: one Tab stop per line's quantity).
 */
function QuantityInput({ name, quantity, onQuantity }: { name: string; quantity: number; onQuantity: (quantity: number) => void }) {
  const [text, setText] = useState(String(quantity));
  useEffect(() => setText(String(quantity)), [quantity]);
  const commit = () => {
    const typed = /^\d+$/.test(text.trim()) ? Math.min(MAX_LINE_QUANTITY, Number(text.trim())) : undefined;
    if (typed === undefined || typed === quantity) setText(String(quantity));
    else onQuantity(typed);
  };
  return (
    <input
      className="cart-line-quantity"
      data-testid="line-quantity"
      aria-label={`Quantity of ${name}`}
      inputMode="numeric"
      autoComplete="off"
      size={3}
      value={text}
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          commit();
        } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
          e.preventDefault();
          onQuantity(quantity + (e.key === 'ArrowUp' ? 1 : -1));
        }
      }}
    />
  );
}

/**
 * Keeps the line just added, or whose quantity just changed, in view: the cart's list scrolls to it (the nearest edge),
 * so on a tablet the line a cashier just rang up is never below the fold.
 */
function useChangedLineInView(list: RefObject<HTMLUListElement | null>, lines: CartLine[]): void {
  const previous = useRef<CartLine[] | undefined>(undefined);
  useEffect(() => {
    const before = previous.current;
    previous.current = lines;
    if (!before || before === lines) return;
    const byKey = new Map(before.map((l) => [l.key, l.quantity]));
    const changed = lines.find((l) => byKey.get(l.key) !== l.quantity);
    if (!changed) return;
    const row = list.current?.querySelector<HTMLElement>(`[data-line-key="${CSS.escape(changed.key)}"]`);
    row?.scrollIntoView({ block: 'nearest' });
  }, [list, lines]);
}

/**
 * What the cart's live region says after a change, once: the line whose quantity changed ("Latte, quantity 2") or
 * that left ("Latte removed"), then the new total. Empty on the first render, so nothing is read on load. A cart
 * emptied by something else — a completed sale (its receipt speaks), a held sale — says nothing here.
 */
function useCartAnnouncement(lines: CartLine[], nameOf: (line: CartLine) => string, total: string, emptiedHere: { current: boolean }): string {
  const previous = useRef<CartLine[] | undefined>(undefined);
  const [text, setText] = useState('');
  useEffect(() => {
    const before = previous.current;
    previous.current = lines;
    if (!before || before === lines) return;
    const byCashier = emptiedHere.current;
    emptiedHere.current = false;
    if (lines.length === 0 && !byCashier) return;
    const byKey = new Map(before.map((l) => [l.key, l]));
    const changed = lines.find((l) => byKey.get(l.key)?.quantity !== l.quantity);
    const gone = before.find((l) => !lines.some((n) => n.key === l.key));
    const what =
      lines.length === 0 ? 'Cart cleared' : changed ? `${nameOf(changed)}, quantity ${changed.quantity}` : gone ? `${nameOf(gone)} removed` : '';
    // A new cart array with the same lines and quantities (a discount, a re-price, a held-sale save) is no news.
    if (!what) return;
    setText(`${what}. Total ${total}`);
    // Announce on cart changes only (a new name for the same line is no news).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [lines]);
  return text;
}
