/** Parts of the Returns screen: the sale's lines, an exchange's new items, this register's recent returns, the done panel, a manager's approval. */
import { useCallback, useMemo, type FormEvent } from 'react';
import { formatMoney, type Order, type OrderLine, type RegisterReturn, type ReturnTender } from '../../../../core/index.ts';
import { ManagerPinApproval } from '../../common/manager-pin-approval.tsx';
import { useObservable } from '../../ui/hooks.ts';
import { useRegister } from '../register-context.ts';
import { listApprovers, requestApproval } from '../returns/return-store.ts';

export type Done = {
  amountCents: number;
  tender: ReturnTender;
  receiptNumber: string;
  exchange?: { receiptNumber: string; totalCents: number; netCents: number };
};
/**
 * This register's latest returns and where each stands: on the server (with its refund), waiting to sync, or refused
 * by the server (quarantined: e.g. returned at another register meanwhile) with its reason — for a manager to settle.
 */
export function RecentReturns() {
  const { db, session } = useRegister();
  const returns$ = useMemo(
    () => db.returns.find({ selector: { registerId: session.registerId }, sort: [{ createdAt: 'desc' }], limit: 20 }).$,
    [db, session.registerId],
  );
  const docs = useObservable(returns$, []);
  if (docs.length === 0) return null;
  return (
    <section className="returns-recent" aria-label="Recent returns">
      <h2>Recent returns on this register</h2>
      <ul>
        {docs.map((d) => {
          const r = d.toJSON() as RegisterReturn & { rejection?: { reason: string } };
          const state = r.rejection ? 'rejected' : r.syncSeq !== undefined ? 'synced' : 'unsynced';
          return (
            <li key={r.id} data-testid="recent-return" data-return-id={r.id} data-sync={state}>
              {r.receiptNumber} · {formatMoney(r.amountCents, session.currency)} · {r.tender.method}
              {r.exchangeOrderId ? ' · exchange' : ''} ·{' '}
              {state === 'synced' ? (
                'Synced'
              ) : state === 'unsynced' ? (
                'Not yet synced'
              ) : (
                <span className="form-error">Refused by the server: {r.rejection!.reason}</span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function ReturnDone({ done, money, onNext }: { done: Done; money: (c: number) => string; onNext: () => void }) {
  return (
    <section className="returns-done" role="status" data-testid="return-done" data-amount-cents={done.amountCents} data-tender={done.tender.method}>
      <h2>Return of {done.receiptNumber} recorded</h2>
      {done.exchange ? (
        <p>
          Exchange: new sale <strong data-testid="exchange-receipt">{done.exchange.receiptNumber}</strong> ({money(done.exchange.totalCents)}) less{' '}
          {money(done.amountCents)} returned:{' '}
          <strong data-testid="exchange-settle">
            {done.exchange.netCents >= 0 ? `take ${money(done.exchange.netCents)}` : `give back ${money(-done.exchange.netCents)}`}
          </strong>{' '}
          in cash.
        </p>
      ) : (
        <p>
          <strong>
            {done.tender.method === 'cash'
              ? `Give back ${money(done.amountCents)} in cash from the drawer.`
              : done.tender.method === 'card'
                ? `${money(done.amountCents)} refunded to the card.`
                : `Refund ${money(done.amountCents)}.`}
          </strong>
        </p>
      )}
      <button type="button" className="button" onClick={onNext}>
        Next return
      </button>
    </section>
  );
}

/** A manager's or owner's PIN for a return above the store's limit for cashiers (online: the server checks the PIN). */
export function ManagerApproval({
  orderId,
  amountCents,
  onApproved,
}: {
  orderId: string;
  amountCents: number;
  onApproved: (approval: string) => void;
}) {
  const { session } = useRegister();
  const loadApprovers = useCallback(
    () =>
      listApprovers(session).catch(() => {
        throw new Error("A manager's approval needs the register online: try again once it is back.");
      }),
    [session],
  );
  const approve = async (staffId: string, pin: string) => {
    try {
      onApproved(await requestApproval(session, { staffId, pin, orderId, amountCents }));
    } catch (err) {
      throw err instanceof TypeError ? new Error("A manager's approval needs the register online.") : err;
    }
  };
  return (
    <ManagerPinApproval
      loadApprovers={loadApprovers}
      onApprove={approve}
      testId="return-approval"
      prompt="This return is above the store's limit for cashiers: a manager approves it with their PIN."
      submitLabel="Approve"
      classNames={{ form: 'returns-approval', input: 'input' }}
    />
  );
}

/** The sale's lines with what was sold, what was returned before, and the quantity to return now (at most what is left). */
export function ReturnLinesTable({
  order,
  returned,
  quantities,
  onQuantity,
}: {
  order: Order;
  /** Quantities already returned, by line id. */
  returned: ReadonlyMap<string, number>;
  /** Quantities to return now, by line id. */
  quantities: Readonly<Record<string, number>>;
  onQuantity: (lineId: string, quantity: number) => void;
}) {
  return (
    <table className="returns-lines">
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Sold</th>
          <th scope="col">Returned</th>
          <th scope="col">Return now</th>
        </tr>
      </thead>
      <tbody>
        {order.lines.map((line) => {
          const left = line.quantity - (returned.get(line.id) ?? 0);
          return (
            <tr key={line.id} data-testid="return-line" data-line-id={line.id}>
              <td>{line.name}</td>
              <td>{line.quantity}</td>
              <td>{returned.get(line.id) ?? 0}</td>
              <td>
                <label className="visually-hidden" htmlFor={`return-qty-${line.id}`}>
                  Quantity of {line.name} to return
                </label>
                <input
                  id={`return-qty-${line.id}`}
                  className="input returns-qty"
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={left}
                  value={quantities[line.id] ?? 0}
                  disabled={left <= 0}
                  data-testid="return-qty"
                  onChange={(e) => onQuantity(line.id, Math.max(0, Math.min(left, Math.trunc(Number(e.target.value) || 0))))}
                />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** An exchange's new items: add by barcode, SKU or name, remove, and what the customer pays or gets back. */
export function ExchangeItems({
  query,
  onQuery,
  onAdd,
  lines,
  onRemove,
  newTotalCents,
  returnedCents,
  netCents,
  money,
}: {
  query: string;
  onQuery: (query: string) => void;
  onAdd: (event: FormEvent) => void;
  lines: readonly OrderLine[];
  onRemove: (lineId: string) => void;
  /** The new items' total (cents), once there are any. */
  newTotalCents: number | undefined;
  /** The refund of the returned lines (cents). */
  returnedCents: number;
  /** New items minus the refund (cents): positive, the customer pays; negative, they get it back. */
  netCents: number;
  money: (cents: number) => string;
}) {
  return (
    <div className="returns-exchange-items" data-testid="exchange-items">
      <form onSubmit={onAdd} className="returns-find">
        <label htmlFor="exchange-add">New item (barcode, SKU or name)</label>
        <input
          id="exchange-add"
          className="scan-input"
          data-testid="exchange-add"
          autoComplete="off"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
        />
        <button type="submit" className="button">
          Add
        </button>
      </form>
      <ul>
        {lines.map((l) => (
          <li key={l.id} data-testid="exchange-line">
            {l.quantity} × {l.name} · {money(l.grossCents)}{' '}
            <button type="button" className="button" onClick={() => onRemove(l.id)} aria-label={`Remove ${l.name}`}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {newTotalCents !== undefined ? (
        <p data-testid="exchange-net" data-net-cents={netCents}>
          New items {money(newTotalCents)} − returned {money(returnedCents)} ={' '}
          <strong>{netCents >= 0 ? `customer pays ${money(netCents)}` : `give back ${money(-netCents)}`}</strong>
        </p>
      ) : null}
    </div>
  );
}
