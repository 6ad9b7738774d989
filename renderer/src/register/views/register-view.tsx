import { startTransition, useCallback, useEffect, useId, useMemo, useReducer, useRef, useState } from 'react';
import { newId, type CatalogItem, type Order, type SalePayment } from '../../../../core/index.ts';
import { CartPanel } from '../components/cart-panel.tsx';
import { ItemDialog } from '../components/item-dialog.tsx';
import { ReceiptView } from '../components/receipt-view.tsx';
import { TenderDialog } from '../components/tender-dialog.tsx';
import { afterNextPaint, useObservable } from '../../ui/hooks.ts';
import { useRegister } from '../register-context.ts';
import { cartDiscount, cartReducer, priceCart } from '../sale/cart.ts';
import { useCounter } from '../components/counter-tools.tsx';
import { ringUpSale } from '../sale/ring-up.ts';
import { loadCart } from '../sale/cart-store.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { useCardPayment, useCheckPayment } from '../devices/device-payments.ts';
import { useOfflineCards } from '../devices/offline-cards.ts';
import { DeviceStatusBar, deviceUnavailable } from '../devices/device-status-bar.tsx';
import { receiptPrintJob } from '../devices/receipt-job.ts';
import { tabList } from '../../ui/tabs.ts';
import { focusCart } from '../components/shortcut-help.tsx';
import { CustomerControl, CustomerDialog, CustomerHistoryDialog, useCustomers } from '../components/customer-dialog.tsx';
import { phoneCountry, survivorId } from '../customers/customer-store.ts';
import { ALL, CatalogSection, saleAnnouncementOf, useRegisterCatalog, useRegisterKeys, type ScanMessage } from './register-parts.tsx';

/** The tender dialog shows "Saving…" once a sale's write has taken this long (ms); a quicker one shows nothing. */
const SAVING_SHOWN_AFTER_MS = 150;

/** The cart kept for this register (read once per mount; sale/cart-store.ts). */
const initialCart = (registerId: string) => loadCart(registerId);

/** The selling screen: catalog (tabs, grid, scan/search), cart, cash tender and the receipt. */
export function RegisterView() {
  const { db, session, sync } = useRegister();
  const offlineCards = useOfflineCards(db, session, sync);
  const currency = session.currency;
  const { feed, index, catalogVersion, isLoaded, items, downloading, catalog, categories } = useRegisterCatalog(db, sync, session.registerId);
  const [category, setCategory] = useState(ALL);
  const [query, setQuery] = useState('');
  // `quiet`: shown, not announced — an add is announced once, by the cart (with the new total).
  const [message, setMessage] = useState<ScanMessage | undefined>();
  // The unfinished cart survives a reload, a crash or a closed window (sale/cart-store.ts, via useCounter below).
  const [lines, dispatch] = useReducer(cartReducer, session.registerId, (id) => initialCart(id).lines);
  const [dialogItem, setDialogItem] = useState<{ item: CatalogItem; variationId?: string } | undefined>();
  const [isTendering, setTendering] = useState(false);
  const [isSaving, setSaving] = useState(false);
  /** A sale is being written (set at once, where `isSaving` is shown only after a moment). */
  const storing = useRef(false);
  const [saleError, setSaleError] = useState<string | undefined>();
  const [receiptOrderId, setReceiptOrderId] = useState<string | undefined>();
  /** The sale just stored, shown on the receipt without waiting for the local database's read-back. */
  const [receiptOrder, setReceiptOrder] = useState<Order | undefined>();
  const [printNote, setPrintNote] = useState<string | undefined>();
  const scanInput = useRef<HTMLInputElement>(null);
  /** The latest charge action, for the F9 key handler. */
  const chargeRef = useRef<() => void>(() => undefined);
  const devices = getDeviceClient();
  const deviceState = useObservable(devices.state$, devices.state$.value);

  const [discountText, setDiscountText] = useState(() => initialCart(session.registerId).discountText);
  const [discountKind, setDiscountKind] = useState(() => initialCart(session.registerId).discountKind);
  const discount = useMemo(() => cartDiscount(discountText, discountKind), [discountText, discountKind]);
  // The sale's customer: kept with the cart; shown, and sold to, as the surviving customer once merged.
  const [customerId, setCustomerId] = useState(() => initialCart(session.registerId).customerId);
  const [customerDialog, setCustomerDialog] = useState<'search' | 'history' | undefined>();
  const customers = useCustomers();
  // The store's phone country, kept for customers created offline (customers/customer-store.ts).
  useEffect(() => void phoneCountry(session), [session]);
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
    customerId,
    setCustomerId,
    isBusy: Boolean(dialogItem || isTendering || receiptOrderId || customerDialog),
  });
  // The counter's dispatch (sell-past-zero asks once) behind a ref: the callbacks the grid holds stay stable.
  const counterRef = useRef(counter);
  counterRef.current = counter;
  // The query the grid shows: the scan box's as typed (a keystroke's results paint with it), except after a scan,
  // whose emptied box goes back to every tile in a transition, after the cart's change is painted.
  const [gridQuery, setGridQuery] = useState('');
  const gridCategory = category;
  const visible = useMemo(() => {
    if (isLoaded && catalogVersion >= 0) return index.search(gridQuery, gridCategory === ALL ? undefined : index.byCategory(gridCategory));
    // Still reading the stored items (a reload): the remembered first tiles; a search waits for the index.
    return gridQuery.trim() === '' ? items.filter((item) => gridCategory === ALL || item.category === gridCategory) : [];
  }, [index, catalogVersion, isLoaded, items, gridCategory, gridQuery]);
  const catalogScroller = useRef<HTMLElement>(null);
  const getCatalogScroller = useCallback(() => catalogScroller.current, []);

  const focusScan = useCallback(() => requestAnimationFrame(() => scanInput.current?.focus()), []);
  const tabsId = useId();
  const categoryTabs = tabList(tabsId, categories, category, setCategory);
  const canCharge = lines.length > 0 && invalidKeys.length === 0 && discount !== 'invalid';

  useRegisterKeys({
    scanInput,
    isBusy: Boolean(dialogItem || isTendering || receiptOrderId),
    canCharge,
    chargeRef,
    onCustomer: () => setCustomerDialog('search'),
  });
  useEffect(() => {
    if (!dialogItem && !isTendering && !receiptOrderId && !customerDialog) focusScan();
  }, [dialogItem, isTendering, receiptOrderId, customerDialog, focusScan]);

  // Stable (state setters and dispatch only): the memoised grid never re-renders for a cart change.
  const add = useCallback((item: CatalogItem, variationId: string, modifierIds: string[]) => {
    counterRef.current.dispatch({ type: 'add', key: newId('orderLine'), line: { catalogItemId: item.id, variationId, modifierIds } });
    const variation = item.variations.find((v) => v.id === variationId);
    setMessage({ text: `Added ${item.name}${item.variations.length > 1 && variation ? ` (${variation.name})` : ''}`, isError: false, quiet: true });
  }, []);

  const choose = useCallback(
    (item: CatalogItem, variationId?: string) => {
      const needsChoice = item.modifierLists.length > 0 || (item.variations.length > 1 && variationId === undefined);
      const first = variationId ?? item.variations[0]?.id;
      if (!needsChoice && first) add(item, first, []);
      else setDialogItem({ item, ...(variationId ? { variationId } : {}) });
    },
    [add],
  );

  /**
   * Empties the scan box at once; the grid returns to every tile in a transition once the frame showing the cart's
   * change is painted (at 50,000 items that render would otherwise run before the frame and hold it back).
   */
  const clearScan = () => {
    setQuery('');
    afterNextPaint(() => {
      // Unless the cashier has typed again meanwhile (the box's change set the grid's query already).
      if (scanInput.current?.value === '') startTransition(() => setGridQuery(''));
    });
  };

  const onScan = async () => {
    const code = query.trim();
    if (!code) return;
    // Scanned while the stored items are still being read (just after a reload): look it up once they are.
    if (!feed.state$.value.isLoaded) await feed.loaded.catch(() => undefined);
    const found = index.findByCode(code);
    if (found) {
      clearScan();
      choose(found.item, found.variation.id);
      return;
    }
    const matches = index.search(code);
    if (matches.length === 1 && matches[0] && !/^\d{6,}$/.test(code)) {
      clearScan();
      choose(matches[0]);
      return;
    }
    setMessage({ text: `No item with barcode or SKU “${code}”`, isError: true });
    scanInput.current?.select();
  };

  /**
   * After the sale is stored (never before: write before print): the receipt goes to the printer's
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

  /**
   * Stores the sale paid by `payment`; throws when it could not be stored (the cart is kept). The tender dialog stays
   * up while the sale is written (a second Complete meanwhile does nothing; the dialog shows "Saving…" only if the
   * write outlasts {@link SAVING_SHOWN_AFTER_MS}, so a quick write re-renders nothing before it is done); the receipt —
   * its number — appears only once the local database holds the sale (sale/ring-up.ts ringUpSale;
   * docs/decisions/0015-receipt-after-stored.md), over the register, which stays mounted beneath it. Then the cart is
   * emptied, the dialog closed, the receipt printed and the drawer opened. A failed write leaves the tender (or the
   * cart) as it was, with the error.
   */
  const storeSale = async (payment: SalePayment) => {
    if (storing.current) return;
    storing.current = true;
    setSaleError(undefined);
    // The lines as priced in the cart (price overrides applied) and every discount: line discounts, then the sale's.
    const saleCustomer = customerId ? survivorId(customers.byId, customerId) : undefined;
    const busy = setTimeout(() => setSaving(true), SAVING_SHOWN_AFTER_MS);
    try {
      const order = await ringUpSale({
        db,
        session,
        catalog,
        lines: totals.lines,
        discounts,
        payment,
        ...(saleCustomer ? { customerId: saleCustomer } : {}),
      });
      dispatch({ type: 'clear' });
      setDiscountText('');
      setCustomerId(undefined);
      setTendering(false);
      setMessage(undefined);
      setPrintNote(undefined);
      setReceiptOrder(order);
      setReceiptOrderId(order.id);
      afterSale(order, payment);
    } finally {
      clearTimeout(busy);
      storing.current = false;
      setSaving(false);
    }
  };

  /** New sale from the receipt (shown only for a stored sale). */
  const newSale = () => {
    setReceiptOrderId(undefined);
    setReceiptOrder(undefined);
    setPrintNote(undefined);
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
    storeSale({ method: 'none' }).catch((err: unknown) =>
      setMessage({ text: `The sale was not saved: ${err instanceof Error ? err.message : String(err)}`, isError: true }),
    );
  };
  chargeRef.current = charge;

  const card = useCardPayment(devices, currency, storeSale, offlineCards);
  const check = useCheckPayment(devices);

  // The receipt covers the register, which stays mounted (and hidden, inert) beneath it: a new sale shows the grid as
  // it was instead of building it again.
  const receipt = receiptOrderId ? (
    <main className="receipt-screen receipt-layer">
      <DeviceStatusBar state={deviceState} />
      <ReceiptView orderId={receiptOrderId} printNote={printNote} stored={receiptOrder} onDone={newSale} />
    </main>
  ) : null;

  // The region stays in the page so a screen reader hears each new text.
  const saleAnnouncement = saleAnnouncementOf(receiptOrder, printNote, currency);

  return (
    <div className="register-stack">
      <p className="visually-hidden" role="status" data-testid="sale-announcement">
        {saleAnnouncement}
      </p>
      <main className={receiptOrderId ? 'register register-covered' : 'register'} inert={receiptOrderId ? true : undefined}>
        <a className="skip-link" href="#cart" onClick={(e) => (e.preventDefault(), focusCart())}>
          Skip to cart
        </a>
        <CatalogSection
          sectionRef={catalogScroller}
          scanInput={scanInput}
          query={query}
          onQuery={(text) => {
            setQuery(text);
            setGridQuery(text);
            setMessage(undefined);
          }}
          onScan={() => void onScan()}
          message={message}
          deviceStatus={<DeviceStatusBar state={deviceState} />}
          categories={categories}
          category={category}
          categoryTabs={categoryTabs}
          gridQuery={gridQuery}
          gridCategory={gridCategory}
          downloading={downloading}
          items={items}
          visible={visible}
          isLoaded={isLoaded}
          currency={currency}
          onChoose={choose}
          getScroller={getCatalogScroller}
        />
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
            setCustomerId(undefined);
          }}
          discountText={discountText}
          discountInvalid={discount === 'invalid'}
          onDiscountText={setDiscountText}
          onEmptied={focusScan}
          discountKind={discountKind}
          onDiscountKind={setDiscountKind}
          onEditLine={counter.editLine}
          tools={counter.tools}
          customer={
            <CustomerControl
              customerId={customerId}
              byId={customers.byId}
              onOpen={() => setCustomerDialog('search')}
              onHistory={() => setCustomerDialog('history')}
              onRemove={() => {
                setCustomerId(undefined);
                setMessage({ text: 'Customer removed from the sale', isError: false });
                focusScan();
              }}
            />
          }
          onCharge={charge}
        />
        {customerDialog === 'search' ? (
          <CustomerDialog
            onClose={() => setCustomerDialog(undefined)}
            onAttach={(id) => {
              setCustomerId(id);
              setCustomerDialog(undefined);
              const attached = customers.byId.get(id);
              setMessage({
                text: `Customer attached${attached ? `: ${[attached.givenName, attached.familyName].filter(Boolean).join(' ') || attached.phone || attached.email}` : ''}`,
                isError: false,
              });
            }}
          />
        ) : null}
        {customerDialog === 'history' && customerId ? (
          <CustomerHistoryDialog customerId={customerId} onClose={() => setCustomerDialog(undefined)} />
        ) : null}
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
      {receipt}
    </div>
  );
}
