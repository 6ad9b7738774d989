/**
 * Returns and exchanges at the register, online and offline: find the sale (receipt number typed, the
 * receipt's QR scanned, or by customer: components/find-sale-by-customer.tsx), choose the lines and quantities given back and whether they go back on stock, and refund to
 * the original tender — cash from the drawer, or the card through the terminal (by the sale's token). A cashier's
 * return above the store's limit needs a manager's PIN (online). An exchange returns lines and sells new ones in one
 * go: the new sale is paid in cash with the return's credit, and the cashier settles only the difference.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import {
  catalogSnapshot,
  exchangeBalance,
  formatMoney,
  newId,
  originalTender,
  planReturn,
  priceLine,
  type Order,
  type OrderLine,
  type ReturnTender,
  type TaxRate,
} from '../../../../core/index.ts';
import { computeOrderTotals } from '../../../../core/index.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { useObservable } from '../../ui/hooks.ts';
import type { StoredOrder } from '../db/database.ts';
import { FindSaleByCustomerDialog } from '../components/find-sale-by-customer.tsx';
import type { CustomerSale } from '../customers/customer-store.ts';
import { useRegister } from '../register-context.ts';
import { cardTokenOf } from '../returns/card-tokens.ts';
import { cashierRefundLimit, findSale, newReturnId, priorReturnsOf, saveReturn } from '../returns/return-store.ts';
import { catalogFeed } from '../sale/catalog-feed.ts';
import { ringUpSale } from '../sale/ring-up.ts';
import { currentRegisterStaff } from '../../common/staff-session.ts';
import { type Done, ExchangeItems, ManagerApproval, RecentReturns, ReturnDone, ReturnLinesTable } from './returns-parts.tsx';
import './returns-view.css';

/** The Returns screen (see the file comment). */
export function ReturnsView() {
  const { db, session, sync } = useRegister();
  const currency = session.currency;
  const [byCustomer, setByCustomer] = useState(false);
  const money = (c: number) => formatMoney(c, currency);
  const [query, setQuery] = useState('');
  const [findError, setFindError] = useState<string | undefined>();
  const [order, setOrder] = useState<StoredOrder | undefined>();
  const [returned, setReturned] = useState<Map<string, number>>(new Map());
  const [prior, setPrior] = useState<Awaited<ReturnType<typeof priorReturnsOf>>['prior']>([]);
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [restock, setRestock] = useState(true);
  const [limitCents, setLimitCents] = useState<number | undefined>();
  const [approval, setApproval] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<Done | undefined>();
  const [exchange, setExchange] = useState(false);
  const [newLines, setNewLines] = useState<OrderLine[]>([]);
  const [newItemQuery, setNewItemQuery] = useState('');
  const staff = currentRegisterStaff();

  // The register's catalog index (sale/catalog-feed.ts): no second live query over the whole catalog.
  const feed = useMemo(() => catalogFeed(db), [db]);
  const catalogVersion = useObservable(feed.state$, feed.state$.value).version;
  const taxRates$ = useMemo(() => db.tax_rates.find().$, [db]);
  const taxDocs = useObservable(taxRates$, []);
  const catalog = useMemo(
    () =>
      catalogSnapshot(
        catalogVersion >= 0 ? feed.index.items : [],
        taxDocs.map((d) => d.toJSON() as TaxRate),
      ),
    [feed, catalogVersion, taxDocs],
  );

  useEffect(() => {
    let live = true;
    void cashierRefundLimit(session).then((limit) => live && setLimitCents(limit));
    return () => {
      live = false;
    };
  }, [session]);

  const lines = useMemo(
    () =>
      Object.entries(quantities)
        .filter(([, q]) => q > 0)
        .map(([lineId, quantity]) => ({ lineId, quantity })),
    [quantities],
  );
  const plan = useMemo(() => {
    if (!order || lines.length === 0) return undefined;
    try {
      return { amountCents: planReturn(order, prior, lines).amountCents };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }, [order, prior, lines]);
  const amountCents: number = plan && 'amountCents' in plan ? (plan.amountCents ?? 0) : 0;
  const tender = order ? originalTender(order) : undefined;
  const cardToken = tender?.method === 'card' ? cardTokenOf(tender) : undefined;
  const needsApproval = staff?.staff.role === 'cashier' && limitCents !== undefined && amountCents > limitCents && !approval;
  const newTotals = useMemo(() => (newLines.length > 0 ? computeOrderTotals(newLines, []) : undefined), [newLines]);
  const netCents = exchangeBalance(newTotals?.totalCents ?? 0, amountCents);

  const reset = () => {
    setOrder(undefined);
    setQuantities({});
    setApproval(undefined);
    setError(undefined);
    setExchange(false);
    setNewLines([]);
    setRestock(true);
  };

  const onFind = async (event: FormEvent) => {
    event.preventDefault();
    setFindError(undefined);
    setDone(undefined);
    reset();
    const sale = await findSale(db, query);
    if (!sale) {
      setFindError(`No sale with receipt “${query.trim()}” on this register. Type the receipt number (R1-000123) or scan the receipt's QR code.`);
      return;
    }
    await openSale(sale);
    setQuery('');
  };

  /** The sale found (by receipt, QR or customer) opened for its return: what earlier returns of it left. */
  const openSale = async (sale: StoredOrder) => {
    if (!originalTender(sale)) {
      setFindError(`Sale ${sale.receiptNumber} has no payment to refund (${(sale.state ?? 'open').replace(/_/g, ' ')}).`);
      return;
    }
    const { prior: p, returned: r } = await priorReturnsOf(db, sale);
    setOrder(sale);
    setPrior(p);
    setReturned(r);
  };

  /** A sale picked in "Find by customer": read from this register's database (a sale only the server holds yet is
   * asked for by the orders' pull and named). */
  const onPickByCustomer = async (picked: CustomerSale) => {
    setByCustomer(false);
    setFindError(undefined);
    setDone(undefined);
    reset();
    const doc = await db.orders.findOne(picked.id).exec();
    if (!doc) {
      sync.pullNow?.('orders');
      setFindError(
        `Sale ${picked.receiptNumber} is not on this register yet: try again in a moment once it has synced, or refund it in the back office.`,
      );
      return;
    }
    focusFirstLine.current = true;
    await openSale(doc.toJSON() as StoredOrder);
  };
  // After a pick in the dialog, focus goes to the sale's first quantity to return (not back to the dialog's opener).
  const focusFirstLine = useRef(false);
  useEffect(() => {
    if (!order || !focusFirstLine.current) return;
    focusFirstLine.current = false;
    document.querySelector<HTMLInputElement>('[data-testid="return-qty"]:not([disabled])')?.focus();
  }, [order]);

  const addNewItem = (event: FormEvent) => {
    event.preventDefault();
    const q = newItemQuery.trim().toLowerCase();
    if (!q) return;
    const all = [...catalog.items.values()];
    const item =
      all.find((i) => i.variations.some((v) => v.gtin === q || v.sku?.toLowerCase() === q)) ?? all.find((i) => i.name.toLowerCase().includes(q));
    if (!item) {
      setError(`No item “${newItemQuery.trim()}”.`);
      return;
    }
    const variation = item.variations.find((v) => v.gtin === q || v.sku?.toLowerCase() === q) ?? item.variations[0]!;
    setError(undefined);
    setNewLines((ls) => [
      ...ls,
      priceLine({ catalogItemId: item.id, variationId: variation.id, modifierIds: [], quantity: 1 }, catalog, 'line', newId('orderLine')),
    ]);
    setNewItemQuery('');
  };

  const complete = async () => {
    if (!order || !tender || amountCents <= 0 || busy) return;
    setBusy(true);
    setError(undefined);
    const id = newReturnId();
    const devices = getDeviceClient();
    try {
      let exchangeSale: Order | undefined;
      let returnTender: ReturnTender;
      if (exchange && newLines.length > 0) {
        // The new sale is paid in cash with the return's credit; the drawer takes or gives only the difference.
        exchangeSale = await ringUpSale({ db, session, catalog, lines: newLines, payment: { method: 'cash', tenderedCents: newTotals!.totalCents } });
        returnTender = { method: 'cash' };
      } else if (tender.method === 'card') {
        if (!cardToken)
          throw new Error(
            'This card sale cannot be refunded on the terminal from this register (its token is not here): refund it in the back office.',
          );
        const result = await devices.refund({ idempotencyKey: id, amountCents, currency, token: cardToken });
        if (result.outcome !== 'approved') throw new Error(`The card terminal did not refund: ${result.message ?? result.outcome}.`);
        returnTender = {
          method: 'card',
          ...((result.brand ?? tender.cardBrand) ? { cardBrand: (result.brand ?? tender.cardBrand)! } : {}),
          ...(tender.last4 ? { last4: tender.last4 } : {}),
          ...(result.authCode ? { authCode: result.authCode } : {}),
        };
      } else {
        returnTender = { method: tender.method === 'cash' ? 'cash' : 'other' };
      }
      await saveReturn(db, session, {
        id,
        order,
        lines,
        restock,
        amountCents,
        tender: returnTender,
        staffId: staff?.staff.id,
        approval,
        ...(exchangeSale ? { exchangeOrderId: exchangeSale.id } : {}),
      });
      if (returnTender.method === 'cash') devices.openDrawer().catch(() => undefined);
      setDone({
        amountCents,
        tender: returnTender,
        receiptNumber: order.receiptNumber,
        ...(exchangeSale
          ? {
              exchange: {
                receiptNumber: exchangeSale.receiptNumber,
                totalCents: exchangeSale.totalCents,
                netCents: exchangeBalance(exchangeSale.totalCents, amountCents),
              },
            }
          : {}),
      });
      reset();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="returns" data-testid="returns-view">
      <header className="page-header">
        <h1>Returns</h1>
        <p className="muted">Find the sale by its receipt number, scan the receipt's QR code, or find it by customer.</p>
      </header>
      <form className="returns-find" onSubmit={(e) => void onFind(e)}>
        <label htmlFor="return-find">Receipt number or QR</label>
        <input
          id="return-find"
          className="scan-input"
          data-testid="return-find"
          autoComplete="off"
          autoFocus
          value={query}
          placeholder="R1-000123"
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" className="button button-primary" data-testid="return-find-submit">
          Find sale
        </button>
        <button type="button" className="button" data-testid="return-by-customer" onClick={() => setByCustomer(true)}>
          Find by customer
        </button>
      </form>
      {byCustomer ? <FindSaleByCustomerDialog onPick={(sale) => void onPickByCustomer(sale)} onClose={() => setByCustomer(false)} /> : null}
      {findError ? (
        <p className="form-error" role="alert" data-testid="return-find-error">
          {findError}
        </p>
      ) : null}
      {done ? <ReturnDone done={done} money={money} onNext={() => setDone(undefined)} /> : null}
      {order && tender ? (
        <section className="returns-sale" aria-label={`Sale ${order.receiptNumber}`} data-testid="return-sale" data-order-id={order.id}>
          <h2>
            Sale <span data-testid="return-receipt-number">{order.receiptNumber}</span> · {money(order.totalCents)} ·{' '}
            {new Date(order.createdAt).toLocaleString()}
          </h2>
          <ReturnLinesTable
            order={order}
            returned={returned}
            quantities={quantities}
            onQuantity={(lineId, quantity) => setQuantities((q) => ({ ...q, [lineId]: quantity }))}
          />
          <label className="returns-restock">
            <input type="checkbox" checked={restock} onChange={(e) => setRestock(e.target.checked)} data-testid="return-restock" /> Put the returned
            items back on stock
          </label>
          {plan && 'error' in plan ? (
            <p className="form-error" role="alert" data-testid="return-error">
              {plan.error}
            </p>
          ) : null}
          <p className="returns-amount" aria-live="polite">
            Refund <strong data-testid="return-amount">{money(amountCents)}</strong>{' '}
            {tender.method === 'card' && !exchange
              ? `to ${tender.cardBrand ?? 'the card'} •••• ${tender.last4 ?? ''} on the card terminal`
              : tender.method === 'cash' || exchange
                ? 'in cash from the drawer'
                : `as ${tender.method}`}
          </p>
          {tender.method === 'cash' ? (
            <label className="returns-exchange">
              <input type="checkbox" checked={exchange} onChange={(e) => setExchange(e.target.checked)} data-testid="return-exchange" /> Exchange:
              sell new items in the same go
            </label>
          ) : null}
          {exchange ? (
            <ExchangeItems
              query={newItemQuery}
              onQuery={setNewItemQuery}
              onAdd={addNewItem}
              lines={newLines}
              onRemove={(id) => setNewLines((ls) => ls.filter((x) => x.id !== id))}
              newTotalCents={newTotals?.totalCents}
              returnedCents={amountCents}
              netCents={netCents}
              money={money}
            />
          ) : null}
          {tender.method === 'card' && !exchange && !cardToken ? (
            <p className="muted" data-testid="return-no-token">
              This card sale was not taken on this register: its card cannot be refunded on the terminal here.
            </p>
          ) : null}
          {needsApproval ? <ManagerApproval orderId={order.id} amountCents={amountCents} onApproved={setApproval} /> : null}
          {approval ? (
            <p className="muted" data-testid="return-approved">
              Approved by a manager.
            </p>
          ) : null}
          {error ? (
            <p className="form-error" role="alert" data-testid="return-complete-error">
              {error}
            </p>
          ) : null}
          <div className="returns-actions">
            <button
              type="button"
              className="button button-primary button-large"
              data-testid="return-complete"
              disabled={busy || amountCents <= 0 || needsApproval || (exchange && newLines.length === 0)}
              onClick={() => void complete()}
            >
              {exchange ? 'Complete exchange' : `Refund ${money(amountCents)}`}
            </button>
            <button type="button" className="button button-large" onClick={reset}>
              Cancel
            </button>
          </div>
        </section>
      ) : null}
      <RecentReturns />
    </main>
  );
}
