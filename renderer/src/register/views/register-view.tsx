import { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { catalogSnapshot, formatMoney, newId, type CatalogItem, type Order, type SalePayment, type TaxRate, type Variation } from '../../../../core/index.ts';
import { CartPanel } from '../components/cart-panel.tsx';
import { ItemDialog } from '../components/item-dialog.tsx';
import { ReceiptView } from '../components/receipt-view.tsx';
import { TenderDialog } from '../components/tender-dialog.tsx';
import { useObservable } from '../../ui/hooks.ts';
import { useRegister } from '../register-context.ts';
import { cartDiscount, cartReducer, priceCart } from '../sale/cart.ts';
import { useCounter } from '../components/counter-tools.tsx';
import { StockBadge } from '../components/stock-badge.tsx';
import { ringUpSale } from '../sale/ring-up.ts';
import { loadCart } from '../sale/cart-store.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { useCardPayment, useCheckPayment } from '../devices/device-payments.ts';
import { useOfflineCards } from '../devices/offline-cards.ts';
import { DeviceStatusBar, deviceUnavailable } from '../devices/device-status-bar.tsx';
import { receiptPrintJob } from '../devices/receipt-job.ts';

const ALL = 'All';

/** The cart kept for this register (read once per mount; sale/cart-store.ts). */
const initialCart = (registerId: string) => loadCart(registerId);

function priceLabel(item: CatalogItem, currency: string): string {
  const prices = item.variations.map((v) => v.priceCents);
  const min = Math.min(...prices);
  return prices.every((p) => p === min) ? formatMoney(min, currency) : `from ${formatMoney(min, currency)}`;
}

const hasChoices = (item: CatalogItem) => item.modifierLists.length > 0 || item.variations.length > 1;

function findByCode(items: readonly CatalogItem[], code: string): { item: CatalogItem; variation: Variation } | undefined {
  const wanted = code.trim();
  const lower = wanted.toLowerCase();
  for (const item of items) {
    for (const variation of item.variations) {
      if (variation.gtin === wanted || variation.sku?.toLowerCase() === lower) return { item, variation };
    }
  }
  return undefined;
}

function matchesSearch(item: CatalogItem, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return (
    item.name.toLowerCase().includes(q) ||
    item.category.toLowerCase().includes(q) ||
    item.variations.some((v) => v.name.toLowerCase().includes(q) || v.sku?.toLowerCase().includes(q) || v.gtin?.startsWith(q))
  );
}

/** The selling screen: catalog (tabs, grid, scan/search), cart, cash tender and the receipt. */
export function RegisterView() {
  const { db, session, sync } = useRegister();
  const offlineCards = useOfflineCards(db, session, sync);
  const currency = session.currency;
  const items$ = useMemo(() => db.catalog_items.find({ sort: [{ id: 'asc' }] }).$, [db]);
  const taxRates$ = useMemo(() => db.tax_rates.find().$, [db]);
  const itemDocs = useObservable(items$, []);
  const taxDocs = useObservable(taxRates$, []);
  const items = useMemo(
    () => itemDocs.map((d) => d.toJSON() as CatalogItem).sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name)),
    [itemDocs],
  );
  const catalog = useMemo(() => catalogSnapshot(items, taxDocs.map((d) => d.toJSON() as TaxRate)), [items, taxDocs]);
  const categories = useMemo(() => [ALL, ...new Set(items.map((i) => i.category))], [items]);

  const [category, setCategory] = useState(ALL);
  const [query, setQuery] = useState('');
  const [message, setMessage] = useState<{ text: string; isError: boolean } | undefined>();
  // The unfinished cart survives a reload, a crash or a closed window (sale/cart-store.ts, via useCounter below).
  const [lines, dispatch] = useReducer(cartReducer, session.registerId, (id) => initialCart(id).lines);
  const [dialogItem, setDialogItem] = useState<{ item: CatalogItem; variationId?: string } | undefined>();
  const [isTendering, setTendering] = useState(false);
  const [isSaving, setSaving] = useState(false);
  const [saleError, setSaleError] = useState<string | undefined>();
  const [receiptOrderId, setReceiptOrderId] = useState<string | undefined>();
  const [printNote, setPrintNote] = useState<string | undefined>();
  const scanInput = useRef<HTMLInputElement>(null);
  /** The latest charge action, for the F9 key handler. */
  const chargeRef = useRef<() => void>(() => undefined);
  const devices = getDeviceClient();
  const deviceState = useObservable(devices.state$, devices.state$.value);

  const [discountText, setDiscountText] = useState(() => initialCart(session.registerId).discountText);
  const [discountKind, setDiscountKind] = useState(() => initialCart(session.registerId).discountKind);
  const discount = useMemo(() => cartDiscount(discountText, discountKind), [discountText, discountKind]);
  const saleDiscounts = useMemo(() => (discount && discount !== 'invalid' ? [discount] : []), [discount]);
  const { totals, invalidKeys, discounts } = useMemo(() => priceCart(lines, catalog, saleDiscounts), [lines, catalog, saleDiscounts]);
  const counter = useCounter({
    registerId: session.registerId,
    registerToken: session.registerToken,
    currency,
    catalog,
    lines,
    totals,
    dispatch,
    discountText,
    discountKind,
    setDiscount: (text, kind) => {
      setDiscountText(text);
      setDiscountKind(kind);
    },
    isBusy: Boolean(dialogItem || isTendering || receiptOrderId),
  });
  const visible = items.filter((i) => (category === ALL || i.category === category) && matchesSearch(i, query));

  const focusScan = () => requestAnimationFrame(() => scanInput.current?.focus());
  const canCharge = lines.length > 0 && invalidKeys.length === 0 && discount !== 'invalid';

  // Keyboard: F2 jumps to the scan box, F9 charges (dialogs handle their own keys).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (dialogItem || isTendering || receiptOrderId || scanInput.current?.closest('[hidden]') || document.querySelector('[role="dialog"]')) return;
      if (event.key === 'F2') {
        event.preventDefault();
        scanInput.current?.focus();
        scanInput.current?.select();
      } else if (event.key === 'F9' && canCharge) {
        event.preventDefault();
        chargeRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [dialogItem, isTendering, receiptOrderId, canCharge]);
  useEffect(() => {
    if (!dialogItem && !isTendering && !receiptOrderId) focusScan();
  }, [dialogItem, isTendering, receiptOrderId]);

  const add = (item: CatalogItem, variationId: string, modifierIds: string[]) => {
    counter.dispatch({ type: 'add', key: newId('orderLine'), line: { catalogItemId: item.id, variationId, modifierIds } });
    const variation = item.variations.find((v) => v.id === variationId);
    setMessage({ text: `Added ${item.name}${item.variations.length > 1 && variation ? ` (${variation.name})` : ''}`, isError: false });
  };

  const choose = (item: CatalogItem, variationId?: string) => {
    const needsChoice = item.modifierLists.length > 0 || (item.variations.length > 1 && variationId === undefined);
    const first = variationId ?? item.variations[0]?.id;
    if (!needsChoice && first) add(item, first, []);
    else setDialogItem({ item, ...(variationId ? { variationId } : {}) });
  };

  const onScan = () => {
    const code = query.trim();
    if (!code) return;
    const found = findByCode(items, code);
    if (found) {
      setQuery('');
      choose(found.item, found.variation.id);
      return;
    }
    const matches = items.filter((i) => matchesSearch(i, code));
    if (matches.length === 1 && matches[0] && !/^\d{6,}$/.test(code)) {
      setQuery('');
      choose(matches[0]);
      return;
    }
    setMessage({ text: `No item with barcode or SKU “${code}”`, isError: true });
    scanInput.current?.select();
  };

  /**
   * After the sale is stored (never before: write before print, DESIGN §8): the receipt goes to the printer's
   * persistent queue and a cash sale opens the drawer. A device problem is shown on the receipt screen, never blocks.
   */
  const afterSale = (order: Order, payment: SalePayment) => {
    if (deviceUnavailable(devices.state$.value, 'printer')) {
      setPrintNote('No receipt printer connected: the receipt was not printed.');
      return;
    }
    setPrintNote('Sending the receipt to the printer…');
    if (payment.method === 'cash') {
      devices.openDrawer().catch((err: unknown) => setPrintNote(`The cash drawer did not open: ${err instanceof Error ? err.message : String(err)}`));
    }
    devices.print(receiptPrintJob(order, session.merchantName)).then(
      () => setPrintNote((note) => (note?.startsWith('The cash drawer') ? note : 'Receipt sent to the printer.')),
      (err: unknown) => setPrintNote(`The receipt was not printed: ${err instanceof Error ? err.message : String(err)}`),
    );
  };

  /** Stores the sale paid by `payment`; throws when it could not be stored (the cart is kept). */
  const storeSale = async (payment: SalePayment) => {
    setSaving(true);
    setSaleError(undefined);
    try {
      // The lines as priced in the cart (price overrides applied) and every discount: line discounts, then the sale's.
      const order = await ringUpSale({ db, session, catalog, lines: totals.lines, discounts, payment });
      dispatch({ type: 'clear' });
      setDiscountText('');
      setTendering(false);
      setMessage(undefined);
      setReceiptOrderId(order.id);
      afterSale(order, payment);
    } finally {
      setSaving(false);
    }
  };

  const completeSale = async (payment: SalePayment) => {
    try {
      await storeSale(payment);
    } catch (err) {
      setSaleError(`The sale was not saved: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  /**
   * Charge: the tender dialog — or, with nothing due (a cart discounted or priced to 0), the sale completes at once
   * with no tender (core payment `none`), as the server completes a zero-total API order without a payment.
   */
  const charge = () => {
    setSaleError(undefined);
    if (totals.totalCents > 0) {
      setTendering(true);
      return;
    }
    storeSale({ method: 'none' }).catch((err: unknown) => setMessage({ text: `The sale was not saved: ${err instanceof Error ? err.message : String(err)}`, isError: true }));
  };
  chargeRef.current = charge;

  const card = useCardPayment(devices, currency, storeSale, offlineCards);
  const check = useCheckPayment(devices);

  if (receiptOrderId) {
    return (
      <main className="receipt-screen">
        <DeviceStatusBar state={deviceState} />
        <ReceiptView
          orderId={receiptOrderId}
          printNote={printNote}
          onDone={() => {
            setReceiptOrderId(undefined);
            setPrintNote(undefined);
          }}
        />
      </main>
    );
  }

  return (
    <main className="register">
      <DeviceStatusBar state={deviceState} />
      <section className="catalog" aria-label="Catalog">
        <div className="scan-row">
          <label className="visually-hidden" htmlFor="scan-input">
            Scan or search
          </label>
          <input
            id="scan-input"
            ref={scanInput}
            className="scan-input"
            data-testid="scan-input"
            type="search"
            placeholder="Scan or search (F2)"
            autoComplete="off"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setMessage(undefined);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                onScan();
              }
            }}
          />
          <p className={message?.isError ? 'scan-message scan-message-error' : 'scan-message'} role="status" data-testid="scan-message">
            {message?.text ?? ''}
          </p>
        </div>
        <div className="category-tabs" role="tablist" aria-label="Categories">
          {categories.map((c) => (
            <button key={c} type="button" role="tab" aria-selected={c === category} className={c === category ? 'tab tab-active' : 'tab'} onClick={() => setCategory(c)}>
              {c}
            </button>
          ))}
        </div>
        {items.length === 0 ? (
          <p className="muted catalog-empty">The catalog has not arrived yet. It syncs as soon as the register is online.</p>
        ) : visible.length === 0 ? (
          <p className="muted catalog-empty">No items match “{query}”.</p>
        ) : (
          <div className="item-grid">
            {visible.map((item) => (
              <button
                key={item.id}
                type="button"
                className={`item-tile item-kind-${item.kind}${hasChoices(item) ? ' item-has-options' : ''}`}
                data-testid={`item-${item.id}`}
                onClick={() => choose(item)}
              >
                <span className="item-name">{item.name}</span>
                <StockBadge item={item} />
                <span className="item-meta">
                  <span className="item-price">{priceLabel(item, currency)}</span>
                  {hasChoices(item) ? <span className="item-options">options</span> : null}
                </span>
              </button>
            ))}
          </div>
        )}
      </section>
      <CartPanel
        lines={lines}
        totals={totals}
        invalidKeys={invalidKeys}
        items={catalog.items}
        currency={currency}
        onQuantity={(key, quantity) => counter.dispatch({ type: 'setQuantity', key, quantity })}
        onRemove={(key) => dispatch({ type: 'remove', key })}
        onClear={() => {
          dispatch({ type: 'clear' });
          setDiscountText('');
        }}
        discountText={discountText}
        discountInvalid={discount === 'invalid'}
        onDiscountText={setDiscountText}
        discountKind={discountKind}
        onDiscountKind={setDiscountKind}
        onEditLine={counter.editLine}
        tools={counter.tools}
        onCharge={charge}
      />
      {counter.dialogs}
      {dialogItem ? (
        <ItemDialog
          item={dialogItem.item}
          currency={currency}
          {...(dialogItem.variationId ? { initialVariationId: dialogItem.variationId } : {})}
          onClose={() => setDialogItem(undefined)}
          onAdd={({ variationId, modifierIds }) => {
            add(dialogItem.item, variationId, modifierIds);
            setDialogItem(undefined);
          }}
        />
      ) : null}
      {isTendering ? (
        <TenderDialog
          totalCents={totals.totalCents}
          currency={currency}
          isBusy={isSaving}
          error={saleError}
          onClose={() => setTendering(false)}
          onComplete={(tendered) => void completeSale({ method: 'cash', tenderedCents: tendered })}
          card={{ payment: card, unavailable: deviceUnavailable(deviceState, 'terminal') }}
          offlineCardLimitLeftCents={offlineCards.isOffline ? offlineCards.limitLeftCents : undefined}
          check={{
            payment: check,
            unavailable: deviceUnavailable(deviceState, 'checkScanner'),
            onComplete: () => {
              const payment = check.payment();
              if (payment) void completeSale(payment);
            },
          }}
        />
      ) : null}
    </main>
  );
}
