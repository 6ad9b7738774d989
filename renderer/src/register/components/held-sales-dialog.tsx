/**
 * The held (parked) sales of this register: one button per sale, oldest first, to resume it. Resuming while
 * a cart is open parks that cart first (register-view.tsx), so nothing a cashier rang up is ever dropped.
 */
import { Dialog } from '../../ui/dialog.tsx';
import type { HeldSale } from '../sale/cart-store.ts';

interface HeldSalesDialogProps {
  held: HeldSale[];
  onResume: (id: string) => void;
  onClose: () => void;
}

const timeOf = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

export function HeldSalesDialog({ held, onResume, onClose }: HeldSalesDialogProps) {
  return (
    <Dialog title="Held sales" onClose={onClose}>
      {held.length === 0 ? (
        <p className="muted">No sale is on hold.</p>
      ) : (
        <ul className="held-sales" data-testid="held-sales">
          {held.map((h) => (
            <li key={h.id}>
              <button type="button" className="button held-sale" data-testid="held-sale" onClick={() => onResume(h.id)}>
                <span className="held-sale-label">{h.label}</span>
                <span className="held-sale-meta">
                  {h.itemCount} {h.itemCount === 1 ? 'item' : 'items'} · held {timeOf(h.heldAt)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
