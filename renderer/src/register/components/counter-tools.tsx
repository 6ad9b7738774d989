/**
 * The cashier's counter tools beside the cart, kept out of register-view.tsx: the cart persisted on every
 * change, hold / resume (held sales), and the line tools dialog.
 *
 * Keyboard shortcuts (README "Register keyboard shortcuts"), each also a button
 * with `aria-keyshortcuts`:
 *   Shift+F4  edit the last cart line (quantity by keypad or typed, line discount, price override, void)
 *   F8        hold (park) the current sale
 *   Shift+F8  held sales: resume one (the open cart, if any, is held first)
 * (F6 and F7 are taken by browsers — address bar, caret browsing — and never reach the page.)
 */
import { useEffect, useState, type Dispatch, type ReactNode } from 'react';
import type { CatalogSnapshot, OrderTotals } from '../../../../core/index.ts';
import { cartReducer, type CartAction, type CartLine } from '../sale/cart.ts';
import { confirmsSellPastZero, pastZero } from '../sale/stock.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { holdCart, listHeld, saveCart, takeHeld, type HeldSale, type StoredCart } from '../sale/cart-store.ts';
import { HeldSalesDialog } from './held-sales-dialog.tsx';
import { LineDialog } from './line-dialog.tsx';
import './counter.css';

interface CounterInput {
  registerId: string;
  registerToken: string;
  currency: string;
  catalog: CatalogSnapshot;
  lines: CartLine[];
  totals: OrderTotals;
  dispatch: Dispatch<CartAction>;
  discountText: string;
  discountKind: 'percentage' | 'fixed';
  setDiscount: (text: string, kind: 'percentage' | 'fixed') => void;
  /** The customer attached to the sale, kept with the cart and with a held sale. */
  customerId?: string | undefined;
  setCustomerId?: (id: string | undefined) => void;
  /** Another dialog or screen has the keyboard: the counter's shortcuts stay quiet. */
  isBusy: boolean;
}

/**
 * What the register view renders: `tools` (in the cart), `dialogs` (anywhere), `editLine` for a line's button, and
 * `dispatch`: the cart's dispatch that asks once per item and sale before taking a tracked item past zero stock
 * (when the store's setting asks; sale/stock.ts).
 */
export interface Counter {
  tools: ReactNode;
  dialogs: ReactNode;
  editLine: (key: string) => void;
  dispatch: Dispatch<CartAction>;
}

function labelOf(lines: readonly CartLine[], catalog: CatalogSnapshot): string {
  const names = lines.map((l) => catalog.items.get(l.catalogItemId)?.name ?? 'Item');
  return names.length <= 2 ? names.join(', ') : `${names.slice(0, 2).join(', ')} +${names.length - 2}`;
}

/** The counter tools' state and elements for the register view. */
export function useCounter(input: CounterInput): Counter {
  const { registerId, lines, dispatch, discountText, discountKind, catalog, totals, isBusy, customerId } = input;
  const [held, setHeld] = useState<HeldSale[]>(() => listHeld(registerId));
  const [showHeld, setShowHeld] = useState(false);
  const [editingKey, setEditingKey] = useState<string | undefined>();
  const [note, setNote] = useState('');
  /** Variations the cashier agreed to sell past zero in this sale (asked once each). */
  const [pastZeroOk, setPastZeroOk] = useState<ReadonlySet<string>>(new Set());
  const [pendingPastZero, setPendingPastZero] = useState<
    { action: CartAction; variationId: string; name: string; inStock: number; wanted: number } | undefined
  >();
  useEffect(() => {
    if (lines.length === 0 && pastZeroOk.size > 0) setPastZeroOk(new Set());
  }, [lines.length, pastZeroOk]);

  /** The cart's dispatch, asking once per variation and sale before selling past zero. */
  const guarded: Dispatch<CartAction> = (action) => {
    const variationId =
      action.type === 'add'
        ? action.line.variationId
        : action.type === 'setQuantity'
          ? lines.find((l) => l.key === action.key)?.variationId
          : undefined;
    if (variationId && !pastZeroOk.has(variationId) && confirmsSellPastZero(registerId)) {
      const before = pastZero(lines, catalog.items, variationId);
      const after = pastZero(cartReducer(lines, action), catalog.items, variationId);
      if (after && (!before || after.wanted > before.wanted)) {
        setPendingPastZero({ action, variationId, ...after });
        return;
      }
    }
    dispatch(action);
  };

  // Every change of the cart is on disk before the next paint: a reload, a crash or a closed window keeps it.
  useEffect(() => {
    saveCart(registerId, { lines, discountText, discountKind, ...(customerId ? { customerId } : {}) });
  }, [registerId, lines, discountText, discountKind, customerId]);

  // Another tab of this register holding or resuming a sale.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === null || e.key.startsWith('register.heldSales.')) setHeld(listHeld(registerId));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [registerId]);

  const current = (): StoredCart => ({ lines, discountText, discountKind, ...(customerId ? { customerId } : {}) });

  const hold = () => {
    if (lines.length === 0) return;
    try {
      const sale = holdCart(registerId, current(), labelOf(lines, catalog));
      dispatch({ type: 'clear' });
      input.setDiscount('', 'percentage');
      input.setCustomerId?.(undefined);
      setHeld(listHeld(registerId));
      setNote(`Sale held: ${sale.label}`);
    } catch (err) {
      setNote(err instanceof Error ? err.message : String(err));
    }
  };

  const resume = (id: string) => {
    // The open cart is parked first: resuming never drops what is rung up.
    if (lines.length > 0) holdCart(registerId, current(), labelOf(lines, catalog));
    const sale = takeHeld(registerId, id);
    setHeld(listHeld(registerId));
    setShowHeld(false);
    if (!sale) {
      setNote('That sale was already resumed elsewhere.');
      return;
    }
    dispatch({ type: 'replace', lines: sale.cart.lines });
    input.setDiscount(sale.cart.discountText, sale.cart.discountKind);
    input.setCustomerId?.(sale.cart.customerId);
    setNote(`Resumed: ${sale.label}`);
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isBusy || editingKey || showHeld || pendingPastZero) return;
      if (event.key === 'F4' && event.shiftKey && lines.length > 0) {
        event.preventDefault();
        setEditingKey(lines[lines.length - 1]?.key);
      } else if (event.key === 'F8' && !event.shiftKey) {
        event.preventDefault();
        hold();
      } else if (event.key === 'F8' && event.shiftKey) {
        event.preventDefault();
        setHeld(listHeld(registerId));
        setShowHeld(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const editing = editingKey ? lines.find((l) => l.key === editingKey) : undefined;
  const priced = editing ? totals.lines.find((l) => l.id === editing.key) : undefined;
  const catalogUnit = editing
    ? (() => {
        const item = catalog.items.get(editing.catalogItemId);
        const variation = item?.variations.find((v) => v.id === editing.variationId);
        if (!item || !variation) return undefined;
        const mods = item.modifierLists.flatMap((l) => l.modifiers).filter((m) => editing.modifierIds.includes(m.id));
        return variation.priceCents + mods.reduce((a, m) => a + m.priceCents, 0);
      })()
    : undefined;

  const tools = (
    <div className="counter-tools" role="group" aria-label="Sale tools">
      <button
        type="button"
        className="button"
        data-testid="hold-sale"
        disabled={lines.length === 0}
        onClick={hold}
        aria-keyshortcuts="F8"
        title="Hold sale (F8)"
      >
        Hold <kbd>F8</kbd>
      </button>
      <button
        type="button"
        className="button"
        data-testid="held-sales-open"
        onClick={() => {
          setHeld(listHeld(registerId));
          setShowHeld(true);
        }}
        aria-keyshortcuts="Shift+F8"
        title="Held sales (Shift+F8)"
      >
        Held ({held.length}) <kbd>⇧F8</kbd>
      </button>
      <span className="counter-note" role="status" data-testid="counter-note">
        {note}
      </span>
    </div>
  );

  const dialogs = (
    <>
      {pendingPastZero ? (
        <Dialog
          title="Sell past zero?"
          onClose={() => setPendingPastZero(undefined)}
          footer={
            <>
              <button
                type="button"
                className="button button-primary button-large"
                data-autofocus
                data-testid="sell-past-zero-confirm"
                onClick={() => {
                  setPastZeroOk((ok) => new Set([...ok, pendingPastZero.variationId]));
                  dispatch(pendingPastZero.action);
                  setPendingPastZero(undefined);
                }}
              >
                Sell anyway
              </button>
              <button type="button" className="button" onClick={() => setPendingPastZero(undefined)} data-testid="sell-past-zero-cancel">
                Cancel
              </button>
            </>
          }
        >
          <p data-testid="sell-past-zero-text">
            {pendingPastZero.inStock === 0
              ? `${pendingPastZero.name} is out of stock`
              : `Only ${pendingPastZero.inStock} ${pendingPastZero.name} in stock`}
            ; this sale would take {pendingPastZero.wanted}. Sell anyway? (Asked once per item and sale.)
          </p>
        </Dialog>
      ) : null}
      {showHeld ? <HeldSalesDialog held={held} onResume={resume} onClose={() => setShowHeld(false)} /> : null}
      {editing ? (
        <LineDialog
          key={editing.key}
          line={editing}
          priced={priced}
          catalogUnitCents={catalogUnit}
          currency={input.currency}
          registerToken={input.registerToken}
          onClose={() => setEditingKey(undefined)}
          onVoid={() => {
            dispatch({ type: 'remove', key: editing.key });
            setNote(`Voided ${priced?.name ?? 'line'}`);
            setEditingKey(undefined);
          }}
          onApply={(change) => {
            dispatch({ type: 'setDiscount', key: editing.key, discount: change.discount });
            dispatch({ type: 'overridePrice', key: editing.key, priceOverride: change.priceOverride });
            setEditingKey(undefined);
            guarded({ type: 'setQuantity', key: editing.key, quantity: change.quantity });
          }}
        />
      ) : null}
    </>
  );

  return { tools, dialogs, editLine: setEditingKey, dispatch: guarded };
}
