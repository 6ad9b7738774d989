import { useEffect, useMemo, useRef } from 'react';
import { formatMoney } from '../../../../core/index.ts';
import type { StoredOrder } from '../db/database.ts';
import { useObservable } from '../../ui/hooks.ts';
import { useRegister } from '../register-context.ts';
import { ReceiptQr } from './receipt-qr.tsx';
import { SendReceipt } from './send-receipt.tsx';
import { useCustomers } from './customer-dialog.tsx';
import { customerLabel, survivorId } from '../customers/customer-store.ts';

export function syncMarker(order: StoredOrder): { label: string; kind: 'synced' | 'unsynced' | 'rejected' } {
  if (order.rejection?.by === 'register') return { label: 'Not sent: too large', kind: 'rejected' };
  if (order.rejection) return { label: 'Rejected by server', kind: 'rejected' };
  if (order.syncSeq !== undefined) return { label: 'Synced', kind: 'synced' };
  return { label: 'Not yet synced', kind: 'unsynced' };
}

interface ReceiptViewProps {
  orderId: string;
  onDone?: () => void;
  doneLabel?: string;
  /** What happened to the printed receipt (sent, printer offline…), shown under the receipt. */
  printNote?: string | undefined;
  /**
   * The order just stored (the sale the register completed, as its write resolved): shown at once instead of waiting
   * for the local database's read-back; the live document replaces it when it arrives. Never a sale not yet stored.
   */
  stored?: StoredOrder | undefined;
}

/** The receipt of a stored sale; live, so its sync marker flips when the server's copy arrives. */
export function ReceiptView({ orderId, onDone, doneLabel = 'New sale', printNote, stored }: ReceiptViewProps) {
  const { db, session } = useRegister();
  const order$ = useMemo(() => db.orders.findOne(orderId).$, [db, orderId]);
  const doc = useObservable(order$, null);
  const customers = useCustomers();
  const doneButton = useRef<HTMLButtonElement>(null);
  // Focus on the done button in the next frame's callback (not `autoFocus`, which forces a layout of the whole page in
  // the middle of React's commit: the frame lays it out once anyway).
  useEffect(() => {
    const frame = requestAnimationFrame(() => doneButton.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, [orderId]);
  const known = doc ? (doc.toJSON() as StoredOrder) : stored?.id === orderId ? stored : undefined;
  if (!known) return <p className="muted">Loading receipt…</p>;
  const order = known;
  const customer = order.customerId ? customers.byId.get(survivorId(customers.byId, order.customerId)) : undefined;
  const marker = syncMarker(order);
  const cash = order.tenders.find((t) => t.method === 'cash');
  const card = order.tenders.find((t) => t.method === 'card');
  const check = order.tenders.find((t) => t.method === 'check');
  const currency = order.currency;
  return (
    <div className="receipt-wrap">
      <article className="receipt" data-testid="receipt" data-order-id={order.id} aria-label={`Receipt ${order.receiptNumber}`}>
        <header className="receipt-header">
          <h2 className="receipt-merchant">{session.merchantName}</h2>
          <p>
            Receipt <strong data-testid="receipt-number">{order.receiptNumber}</strong>
          </p>
          <p className="muted">{new Date(order.createdAt).toLocaleString()}</p>
          {customer ? (
            <p data-testid="receipt-customer" data-customer-id={customer.id}>
              Customer: {customerLabel(customer)}
            </p>
          ) : null}
        </header>
        <ul className="receipt-lines">
          {order.lines.map((line) => (
            <li key={line.id}>
              <div className="receipt-line">
                <span>
                  {line.quantity} × {line.name}
                </span>
                <span>{formatMoney(line.grossCents, currency)}</span>
              </div>
              {line.modifiers.length > 0 ? <div className="receipt-modifiers">{line.modifiers.map((m) => m.name).join(', ')}</div> : null}
            </li>
          ))}
        </ul>
        <dl className="receipt-totals">
          <div>
            <dt>Subtotal</dt>
            <dd>{formatMoney(order.subtotalCents, currency)}</dd>
          </div>
          {order.discountCents > 0 ? (
            <div>
              <dt>Discounts</dt>
              <dd>−{formatMoney(order.discountCents, currency)}</dd>
            </div>
          ) : null}
          {order.taxLines.map((t) => (
            <div key={t.taxRateId}>
              <dt>
                {t.name}
                {t.inclusive ? ' (incl.)' : ''}
              </dt>
              <dd>{formatMoney(t.taxCents, currency)}</dd>
            </div>
          ))}
          <div className="receipt-total">
            <dt>Total</dt>
            <dd data-testid="receipt-total">{formatMoney(order.totalCents, currency)}</dd>
          </div>
          {cash ? (
            <>
              <div>
                <dt>Cash tendered</dt>
                <dd data-testid="receipt-tendered">{formatMoney(cash.tenderedCents ?? cash.amountCents, currency)}</dd>
              </div>
              <div>
                <dt>Change</dt>
                <dd data-testid="receipt-change">{formatMoney(cash.changeCents ?? 0, currency)}</dd>
              </div>
            </>
          ) : null}
          {card ? (
            <div>
              <dt>Card</dt>
              <dd data-testid="receipt-card">
                {card.cardBrand ?? 'Card'} •••• {card.last4 ?? '????'}
                {card.authCode ? ` · auth ${card.authCode}` : ''}
              </dd>
            </div>
          ) : null}
          {check ? (
            <div>
              <dt>Check</dt>
              <dd data-testid="receipt-check">
                {check.checkNumber ? `#${check.checkNumber}` : 'no number'} · routing {check.routingNumber ?? '—'} · account ••••{' '}
                {check.last4 ?? '????'}
              </dd>
            </div>
          ) : null}
        </dl>
        <p className={`sync-marker sync-marker-${marker.kind}`} data-testid="receipt-sync">
          {marker.label}
        </p>
        {order.rejection ? (
          <p className="form-error" data-testid="receipt-rejection">
            {order.rejection.by === 'register' ? 'Register' : 'Server'}: {order.rejection.reason}
          </p>
        ) : null}
        <ReceiptQr order={order} />
      </article>
      {printNote ? (
        <p className="muted print-note" data-testid="print-note">
          {printNote}
        </p>
      ) : null}
      <SendReceipt orderId={order.id} registerToken={session.registerToken} isSynced={marker.kind === 'synced'} customer={customer} />
      {onDone ? (
        <button ref={doneButton} type="button" className="button button-primary button-large" onClick={onDone} data-testid="new-sale">
          {doneLabel}
        </button>
      ) : null}
    </div>
  );
}
