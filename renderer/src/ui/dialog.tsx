import { useEffect, useId, useRef, type ReactNode } from 'react';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
}

/**
 * A modal dialog: `role="dialog"` labelled by its title, Escape closes, focus moves into it on open and returns to
 * where it was on close (unless the view moved it meanwhile), Tab stays inside. The first
 * `[data-autofocus]` element gets focus on open, else the first input or button.
 */
export function Dialog({ title, onClose, children, footer, wide }: DialogProps) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // `[data-autofocus]` wins wherever it is (the tender dialog's amount field sits after its method tabs).
    const first =
      panel.current?.querySelector<HTMLElement>('[data-autofocus]') ?? panel.current?.querySelector<HTMLElement>('input, button:not(.dialog-close)');
    (first ?? panel.current)?.focus();
    const node = panel.current;
    return () => {
      // Back to where focus was — unless the view has already moved it elsewhere (a receipt's button, say), or that
      // place is now inert or gone: focusing there would do nothing but force a layout in the middle of a frame.
      const active = document.activeElement;
      const lost = !active || active === document.body || (node?.contains(active) ?? false);
      if (lost && previous?.isConnected && !previous.closest('[inert]')) previous.focus?.();
    };
  }, []);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !panel.current) return;
    const focusable = [...panel.current.querySelectorAll<HTMLElement>('button, input, select, textarea, [tabindex]:not([tabindex="-1"])')].filter(
      (el) => !el.hasAttribute('disabled') && !el.hidden,
    );
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={panel}
        className={wide ? 'dialog dialog-wide' : 'dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <header className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="dialog-close" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        <div className="dialog-body">{children}</div>
        {footer ? <footer className="dialog-footer">{footer}</footer> : null}
      </div>
    </div>
  );
}
