/**
 * The cart kept through a reload, a crash or a closed window, and the held (parked) sales. Both live in the
 * browser's localStorage, per register, written synchronously on every change — so the last change is on disk
 * before the tab can die, with no asynchronous write to lose. Nothing here holds a card number or a secret: catalog
 * references, quantities, discounts and price overrides (reason + approver id) only.
 *
 *     loadCart(registerId) / saveCart(registerId, cart)    the unfinished cart
 *     listHeld(registerId) / holdCart(...) / takeHeld(...)  parked sales, oldest first
 */
import type { CartLine } from './cart.ts';

/** The cart as the register keeps it: its lines and the sale discount as typed. */
export interface StoredCart {
  lines: CartLine[];
  /** The sale discount as typed, and whether it is a percentage or an amount. */
  discountText: string;
  discountKind: 'percentage' | 'fixed';
  /** The customer attached to the sale (`cus_…`), if any. */
  customerId?: string;
}

/** A parked sale: the cart, when it was held (ISO 8601) and a label for the list (first item names). */
export interface HeldSale {
  id: string;
  heldAt: string;
  label: string;
  /** Items in the held cart (sum of quantities). */
  itemCount: number;
  cart: StoredCart;
}

/** At most this many held sales per register (the oldest are kept; holding more is refused). */
export const MAX_HELD_SALES = 50;

const cartKey = (registerId: string) => `register.cart.${registerId}`;
const heldKey = (registerId: string) => `register.heldSales.${registerId}`;

export const EMPTY_CART: StoredCart = { lines: [], discountText: '', discountKind: 'percentage' };

function isCartLine(v: unknown): v is CartLine {
  const l = v as Partial<CartLine> | null;
  return (
    typeof l === 'object' &&
    l !== null &&
    typeof l.key === 'string' &&
    typeof l.catalogItemId === 'string' &&
    typeof l.variationId === 'string' &&
    Array.isArray(l.modifierIds) &&
    Number.isInteger(l.quantity)
  );
}

function asCart(v: unknown): StoredCart | undefined {
  const c = v as Partial<StoredCart> | null;
  if (typeof c !== 'object' || c === null || !Array.isArray(c.lines)) return undefined;
  return {
    lines: c.lines.filter(isCartLine),
    discountText: typeof c.discountText === 'string' ? c.discountText : '',
    discountKind: c.discountKind === 'fixed' ? 'fixed' : 'percentage',
    ...(typeof c.customerId === 'string' && c.customerId.startsWith('cus_') ? { customerId: c.customerId } : {}),
  };
}

function read(key: string): unknown {
  try {
    const text = localStorage.getItem(key);
    return text === null ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** The unfinished cart of `registerId` (the empty cart when none, or when what is stored cannot be read). */
export function loadCart(registerId: string): StoredCart {
  return asCart(read(cartKey(registerId))) ?? EMPTY_CART;
}

/** Keeps `cart` as the unfinished cart of `registerId` (an empty cart removes the entry). */
export function saveCart(registerId: string, cart: StoredCart): void {
  if (cart.lines.length === 0 && cart.discountText === '' && !cart.customerId) localStorage.removeItem(cartKey(registerId));
  else localStorage.setItem(cartKey(registerId), JSON.stringify(cart));
}

/** The held sales of `registerId`, oldest first. */
export function listHeld(registerId: string): HeldSale[] {
  const v = read(heldKey(registerId));
  if (!Array.isArray(v)) return [];
  return v.flatMap((h: Partial<HeldSale>) => {
    const cart = asCart(h?.cart);
    return cart && typeof h.id === 'string' && typeof h.heldAt === 'string'
      ? [{ id: h.id, heldAt: h.heldAt, label: typeof h.label === 'string' ? h.label : 'Sale', itemCount: Number(h.itemCount) || 0, cart }]
      : [];
  });
}

/**
 * Parks `cart` (not empty) with `label`; the caller then clears its cart.
 * @throws RangeError when the cart is empty or MAX_HELD_SALES are already held.
 */
export function holdCart(registerId: string, cart: StoredCart, label: string, now = new Date()): HeldSale {
  if (cart.lines.length === 0) throw new RangeError('an empty cart cannot be held');
  const held = listHeld(registerId);
  if (held.length >= MAX_HELD_SALES) throw new RangeError(`at most ${MAX_HELD_SALES} sales can be held`);
  const sale: HeldSale = {
    id: `held_${crypto.randomUUID()}`,
    heldAt: now.toISOString(),
    label,
    itemCount: cart.lines.reduce((a, l) => a + l.quantity, 0),
    cart,
  };
  localStorage.setItem(heldKey(registerId), JSON.stringify([...held, sale]));
  return sale;
}

/** Takes the held sale `id` off the list and answers it (undefined when another tab resumed it first). */
export function takeHeld(registerId: string, id: string): HeldSale | undefined {
  const held = listHeld(registerId);
  const found = held.find((h) => h.id === id);
  if (found) localStorage.setItem(heldKey(registerId), JSON.stringify(held.filter((h) => h.id !== id)));
  return found;
}
