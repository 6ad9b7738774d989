import { useEffect, useState } from 'react';
import { Dialog } from '../../ui/dialog.tsx';
import { SHORTCUTS } from '../shortcuts.ts';

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
