/**
 * The register's keyboard shortcuts: the one list the help overlay and the shortcut strip show, and the README's
 * shortcut table is checked against (test/repo/shortcuts-readme.test.ts). Handlers live in register-view.tsx,
 * counter-tools.tsx and app.tsx; every shortcut is a button too, carrying `aria-keyshortcuts`.
 */

/** One keyboard shortcut of the register: the key as `aria-keyshortcuts` spells it, how it is shown, what it does. */
export interface Shortcut {
  keys: string;
  label: string;
  action: string;
  /** Shown in the register's shortcut strip (the rest only in the help overlay). */
  inBar?: boolean;
}

/** Every register shortcut, in the order the overlay and the README list them. */
export const SHORTCUTS: readonly Shortcut[] = [
  { keys: 'F2', label: 'F2', action: 'Scan or search', inBar: true },
  { keys: 'F4', label: 'F4', action: 'Go to the cart (quantity of the last line)', inBar: true },
  { keys: 'Shift+F4', label: '⇧F4', action: 'Edit the last line: quantity, discount, price override, void' },
  { keys: 'F9', label: 'F9', action: 'Charge', inBar: true },
  { keys: 'F3', label: 'F3', action: 'Customer: search, attach, new customer' },
  { keys: 'F8', label: 'F8', action: 'Hold (park) the sale' },
  { keys: 'Shift+F8', label: '⇧F8', action: 'Held sales: resume one' },
  { keys: 'F7', label: 'F7', action: 'Returns' },
  { keys: 'F6', label: 'F6', action: 'Shift screen', inBar: true },
  { keys: 'Shift+?', label: '?', action: 'This list of shortcuts' },
  { keys: 'Enter', label: 'Enter', action: 'Add the scanned code, add the focused item, complete a cash sale' },
  { keys: 'ArrowUp ArrowDown', label: '↑ / ↓', action: 'In a quantity: one more / one less (0 removes the line)' },
  { keys: 'ArrowLeft ArrowRight', label: '← / →', action: 'In categories and payment methods: previous / next tab' },
  {
    keys: 'ArrowLeft ArrowRight ArrowUp ArrowDown',
    label: '← → ↑ ↓',
    action:
      "In the items (one Tab stop): the next tile, the row above or below; Home / End the row's ends, Ctrl+Home / Ctrl+End the first and last item",
  },
  { keys: 'Escape', label: 'Esc', action: 'Close a dialog' },
];
