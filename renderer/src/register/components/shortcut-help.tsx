import { useEffect, useState } from 'react';
import { Dialog } from '../../ui/dialog.tsx';

/** One keyboard shortcut of the register: the key as `aria-keyshortcuts` spells it, how it is shown, what it does. */
export interface Shortcut {
  keys: string;
  label: string;
  action: string;
  /** Shown in the register's shortcut strip (the rest only in the help overlay). */
  inBar?: boolean;
}

/** Every register shortcut (the help overlay lists them all; handlers live in register-view.tsx and app.tsx). */
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
  { keys: 'Escape', label: 'Esc', action: 'Close a dialog' },
];

/** Moves focus to the cart: the quantity of its last line, else the cart itself (the "Skip to cart" target). */
export function focusCart(): void {
  const quantities = document.querySelectorAll<HTMLInputElement>('#cart [data-testid="line-quantity"]');
  const last = quantities[quantities.length - 1];
  if (last) last.focus();
  else document.getElementById('cart')?.focus();
}

const OPEN_EVENT = 'register:shortcut-help';

/**
 * `?` typed into a text field is text — except in an empty field marked `data-help-key` (the scan box, focused
 * whenever the register waits: no barcode or search starts with "?").
 */
const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) &&
  !(target instanceof HTMLInputElement && target.hasAttribute('data-help-key') && target.value === '');

/** The shortcut strip under the catalog: the main keys, always on screen, and a button for the full list. */
export function ShortcutBar() {
  return (
    <p className="shortcut-bar" data-testid="shortcut-bar">
      {SHORTCUTS.filter((s) => s.inBar).map((s) => (
        <span key={s.keys} className="shortcut">
          <kbd>{s.label}</kbd> {s.action}
        </span>
      ))}
      <button type="button" className="link-button" aria-keyshortcuts="Shift+?" onClick={() => window.dispatchEvent(new Event(OPEN_EVENT))}>
        All shortcuts (?)
      </button>
    </p>
  );
}

/**
 * The shortcut help overlay: `?` (typed outside a text field) opens it from any screen, Escape or Close shuts it.
 * Mounted once by the app.
 */
export function ShortcutHelp() {
  const [isOpen, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '?' || isTyping(event.target) || document.querySelector('[role="dialog"]')) return;
      event.preventDefault();
      setOpen(true);
    };
    const onOpen = () => setOpen(true);
    window.addEventListener('keydown', onKey);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, []);
  if (!isOpen) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <dl className="shortcut-list" data-testid="shortcut-help">
        {SHORTCUTS.map((s) => (
          <div key={s.keys}>
            <dt>
              <kbd>{s.label}</kbd>
            </dt>
            <dd>{s.action}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
