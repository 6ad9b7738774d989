/**
 * Returns: find the sale by customer. Two steps in a dialog: the register's customer search (the cart's
 * `CustomerSearch`: name, phone or e-mail; Enter picks the only match), then that customer's sales
 * (`useCustomerSales`: this register's — including those recorded under a merged alias id, offline too — and, online,
 * the store's), newest first with receipt number, date and total; picking one hands its order id to the Returns view,
 * which continues as after a receipt-number lookup. Keyboard and touch: rows are buttons of 56 px, virtualised.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { formatMoney } from '../../../../core/index.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { customerLabel, survivorId, type CustomerSale } from '../customers/customer-store.ts';
import { CustomerSearch, useCustomerSales, useCustomers } from './customer-dialog.tsx';
import './customers.css';

const ROW_HEIGHT = 56;

interface FindSaleByCustomerProps {
  /** A sale picked: the row (its order id, receipt number, and whether this register holds it). */
  onPick: (sale: CustomerSale) => void;
  onClose: () => void;
}

/** The "Find by customer" dialog of the Returns screen (see the file comment). */
export function FindSaleByCustomerDialog({ onPick, onClose }: FindSaleByCustomerProps) {
  const [query, setQuery] = useState('');
  const [customerId, setCustomerId] = useState<string | undefined>();
  if (!customerId) {
    return (
      <Dialog key="search" title="Find the sale by customer" onClose={onClose} wide>
        <CustomerSearch query={query} onQueryChange={setQuery} onChoose={setCustomerId} />
      </Dialog>
    );
  }
  return <CustomerSalesStep key={customerId} customerId={customerId} onPick={onPick} onBack={() => setCustomerId(undefined)} onClose={onClose} />;
}

function CustomerSalesStep({
  customerId,
  onPick,
  onBack,
  onClose,
}: {
  customerId: string;
  onPick: (sale: CustomerSale) => void;
  onBack: () => void;
  onClose: () => void;
}) {
  const { byId } = useCustomers();
  const id = survivorId(byId, customerId);
  const customer = byId.get(id);
  const { sales, note, loaded } = useCustomerSales(id);
  const list = useRef<HTMLDivElement>(null);
  const focused = useRef(false);
  // The first sale gets focus once its row is in the page (the sales are read, and the virtualised list measured,
  // after the dialog opened on its fallback control).
  useEffect(() => {
    if (focused.current) return;
    const first = list.current?.querySelector<HTMLButtonElement>('button');
    if (!first) return;
    focused.current = true;
    first.focus();
  });
  const virtualizer = useVirtualizer({ count: sales.length, getScrollElement: () => list.current, estimateSize: () => ROW_HEIGHT, overscan: 6 });
  return (
    <Dialog title={`Sales of ${customer ? customerLabel(customer) : 'the customer'}`} onClose={onClose} wide>
      <div className="customer-search" data-testid="return-customer-sales-step" data-customer-id={id}>
        <p className="muted" role="status" data-testid="return-customer-note">
          {!loaded
            ? 'Reading the sales…'
            : sales.length === 0
              ? `No sales of this customer. ${note}`
              : `${sales.length} ${sales.length === 1 ? 'sale' : 'sales'}, newest first. ${note}`}
        </p>
        {sales.length > 0 ? (
          <div
            ref={list}
            className="customer-list"
            style={{ height: `min(${sales.length * ROW_HEIGHT + 2}px, 336px, 45vh)` }}
            data-testid="return-customer-sales"
            data-count={sales.length}
          >
            <ul style={{ height: virtualizer.getTotalSize(), position: 'relative' }} aria-label="Sales">
              {virtualizer.getVirtualItems().map((row) => {
                const sale = sales[row.index]!;
                return (
                  <li
                    key={sale.id}
                    style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${row.start}px)` }}
                  >
                    <button
                      type="button"
                      className="button customer-row"
                      data-testid="return-customer-sale"
                      data-order-id={sale.id}
                      data-source={sale.source}
                      onClick={() => onPick(sale)}
                    >
                      <span className="customer-row-name">{sale.receiptNumber}</span>
                      <span className="customer-row-contact">
                        {new Date(sale.createdAt).toLocaleString()} · {sale.state.replace(/_/g, ' ')}
                        {sale.source === 'server' ? ' · other register' : ''}
                      </span>
                      <span className="customer-row-name">{formatMoney(sale.totalCents, sale.currency)}</span>
                    </button>
                  </li>
                );
              })}
            </ul>
          </div>
        ) : null}
        <div className="customer-form-actions">
          <button type="button" className="button" data-testid="return-customer-back" onClick={onBack}>
            Other customer
          </button>
        </div>
      </div>
    </Dialog>
  );
}
