/**
 * Parts of the selling screen (register-view.tsx): its catalog (indexed items, priced snapshot, categories), its
 * keys, the catalog side of the screen, and what is announced once a sale completes.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { catalogSnapshot, formatMoney, type CatalogItem, type Order, type TaxRate } from '../../../../core/index.ts';
import type { RegisterDatabase } from '../db/database.ts';
import type { SyncEngine } from '../sync/replication.ts';
import { ItemGrid } from '../components/item-grid.tsx';
import { ShortcutBar, focusCart } from '../components/shortcut-help.tsx';
import { CUSTOMER_KEY } from '../components/customer-dialog.tsx';
import { catalogFeed } from '../sale/catalog-feed.ts';
import { loadCart } from '../sale/cart-store.ts';
import { useObservable } from '../../ui/hooks.ts';
import type { tabList } from '../../ui/tabs.ts';

/** The category that shows every item. */
export const ALL = 'All';
/** The catalog's download progress is shown once a pull round has brought this many items (a page of the pull). */
const CATALOG_PROGRESS_FROM = 1_000;

/** What the line under the scan box says: quiet ones are shown but not announced. */
export interface ScanMessage {
  text: string;
  isError: boolean;
  quiet?: boolean;
}

/**
 * The register's catalog: the stored items indexed once per page and kept in step with the local database's changes
 * (`feed`, sale/catalog-feed.ts), the priced snapshot the cart uses, the category names, and the download's progress.
 */
export function useRegisterCatalog(db: RegisterDatabase, sync: SyncEngine, registerId: string) {
  // The catalog, indexed once per page and kept in step with the local database's changes (sale/catalog-feed.ts):
  // codes through a Map, search through the word index. Until the stored items are read after a reload, the grid
  // shows the first tiles remembered from the last session.
  const feed = useMemo(() => catalogFeed(db), [db]);
  const feedState = useObservable(feed.state$, feed.state$.value);
  const firstPage = useObservable(feed.firstPage$, feed.firstPage$.value);
  const taxRates$ = useMemo(() => db.tax_rates.find().$, [db]);
  const taxDocs = useObservable(taxRates$, []);
  const index = feed.index;
  const catalogVersion = feedState.version;
  const isLoaded = feedState.isLoaded;
  const items = useMemo(
    () => (isLoaded && catalogVersion >= 0 ? index.items : (firstPage?.items ?? [])),
    [index, catalogVersion, isLoaded, firstPage],
  );
  // A download in progress (the first one, or a large change): the catalog's pull round has brought a page or more.
  const catalogReceived = useObservable(sync.status$, sync.status$.value).catalogReceived;
  const downloading = catalogReceived >= CATALOG_PROGRESS_FROM ? `${catalogReceived.toLocaleString()} items` : undefined;
  // A cart restored after a reload may hold items beyond the remembered first tiles: read by id (a few documents) so
  // it prices at once, until the stored items are indexed.
  const [restoredItems, setRestoredItems] = useState<readonly CatalogItem[]>([]);
  useEffect(() => {
    if (feed.state$.value.isLoaded) return undefined;
    const ids = [...new Set(loadCart(registerId).lines.map((line) => line.catalogItemId))];
    if (ids.length === 0) return undefined;
    let live = true;
    void db.catalog_items
      .findByIds(ids)
      .exec()
      .then((found) => live && setRestoredItems([...found.values()].map((doc) => doc.toJSON() as CatalogItem)));
    return () => {
      live = false;
    };
  }, [db, feed, registerId]);
  const priceable = useMemo(() => {
    if (isLoaded || restoredItems.length === 0) return items;
    const shown = new Set(items.map((item) => item.id));
    return [...items, ...restoredItems.filter((item) => !shown.has(item.id))];
  }, [items, isLoaded, restoredItems]);
  const catalog = useMemo(
    () =>
      catalogSnapshot(
        priceable,
        taxDocs.map((d) => d.toJSON() as TaxRate),
      ),
    [priceable, taxDocs],
  );
  const categories = useMemo(
    () => [ALL, ...(isLoaded && catalogVersion >= 0 ? index.categoryNames : (firstPage?.categories ?? []))],
    [index, catalogVersion, isLoaded, firstPage],
  );

  return { feed, index, catalogVersion, isLoaded, items, downloading, catalog, categories };
}

/**
 * The selling screen's keys, while no dialog or receipt is up (`isBusy`): F2 jumps to the scan box, F4 to the cart, F9
 * charges, the customer key opens the customer search (dialogs handle their own keys).
 */
export function useRegisterKeys({
  scanInput,
  isBusy,
  canCharge,
  chargeRef,
  onCustomer,
}: {
  scanInput: RefObject<HTMLInputElement | null>;
  isBusy: boolean;
  canCharge: boolean;
  chargeRef: RefObject<() => void>;
  onCustomer: () => void;
}): void {
  // The latest callback, without listening again on each render.
  const onCustomerRef = useRef(onCustomer);
  onCustomerRef.current = onCustomer;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isBusy || scanInput.current?.closest('[hidden]') || document.querySelector('[role="dialog"]')) return;
      if (event.key === 'F2') {
        event.preventDefault();
        scanInput.current?.focus();
        scanInput.current?.select();
      } else if (event.key === 'F4' && !event.shiftKey) {
        event.preventDefault();
        focusCart();
      } else if (event.key === 'F9' && canCharge) {
        event.preventDefault();
        chargeRef.current();
      } else if (event.key === CUSTOMER_KEY) {
        event.preventDefault();
        onCustomerRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [isBusy, canCharge, scanInput, chargeRef]);
}

/** The catalog side of the selling screen: the scan box with its message, the category tabs, and the item grid or why it is empty. */
export function CatalogSection({
  sectionRef,
  scanInput,
  query,
  onQuery,
  onScan,
  message,
  deviceStatus,
  categories,
  category,
  categoryTabs,
  gridQuery,
  gridCategory,
  downloading,
  items,
  visible,
  isLoaded,
  currency,
  onChoose,
  getScroller,
}: {
  sectionRef: RefObject<HTMLElement | null>;
  scanInput: RefObject<HTMLInputElement | null>;
  /** The scan box's text. */
  query: string;
  onQuery: (text: string) => void;
  /** Enter in the scan box. */
  onScan: () => void;
  message: ScanMessage | undefined;
  deviceStatus: ReactNode;
  categories: readonly string[];
  category: string;
  categoryTabs: ReturnType<typeof tabList<string>>;
  /** The query and category the grid shows (the scan box's, except just after a scan). */
  gridQuery: string;
  gridCategory: string;
  /** The download's progress ("12,000 items"), while one runs. */
  downloading: string | undefined;
  items: readonly CatalogItem[];
  visible: readonly CatalogItem[];
  isLoaded: boolean;
  currency: string;
  onChoose: (item: CatalogItem, variationId?: string) => void;
  getScroller: () => HTMLElement | null;
}) {
  return (
    <section className="catalog" aria-label="Catalog" ref={sectionRef} data-item-count={items.length}>
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
          aria-keyshortcuts="F2"
          data-help-key
          autoComplete="off"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              onScan();
            }
          }}
        />
        <p className={message?.isError ? 'scan-message scan-message-error' : 'scan-message'} data-testid="scan-message">
          <span role="status">{message && !message.quiet ? message.text : ''}</span>
          {message?.quiet ? message.text : null}
        </p>
        {deviceStatus}
      </div>
      <div className="category-tabs" role="tablist" aria-label="Categories">
        {categories.map((c) => (
          <button key={c} type="button" {...categoryTabs.tab(c)} className={c === category ? 'tab tab-active' : 'tab'}>
            {c}
          </button>
        ))}
      </div>
      {/* The category tabs' panel (left unindented inside so the grid's lines merge cleanly with other branches). */}
      <div className="catalog-panel" {...categoryTabs.panel()} data-query={gridQuery} data-category={gridCategory}>
        {downloading ? (
          <p className="muted catalog-progress" role="status" data-testid="catalog-progress">
            Downloading the catalog… {downloading}
          </p>
        ) : null}
        {items.length === 0 && !isLoaded ? (
          <p className="muted catalog-empty">Reading the catalog…</p>
        ) : items.length === 0 ? (
          <p className="muted catalog-empty">The catalog has not arrived yet. It syncs as soon as the register is online.</p>
        ) : visible.length === 0 && !isLoaded ? (
          <p className="muted catalog-empty">Reading the catalog…</p>
        ) : visible.length === 0 ? (
          <p className="muted catalog-empty">No items match “{gridQuery}”.</p>
        ) : (
          <ItemGrid items={visible} currency={currency} onChoose={onChoose} scrollElement={getScroller} />
        )}
      </div>
      <ShortcutBar />
    </section>
  );
}

/**
 * What a screen reader hears once a sale completes, in one announcement: paid, the receipt number, the change, and a
 * printer or drawer problem if there is one (the print note's progress — sending, sent — is shown, not spoken). Empty
 * while no sale is completed.
 */
export function saleAnnouncementOf(order: Order | undefined, printNote: string | undefined, currency: string): string {
  if (!order) return '';
  const cashChange = order.tenders.find((t) => t.method === 'cash')?.changeCents ?? 0;
  const printProblem =
    printNote && !printNote.startsWith('Sending the receipt') && printNote !== 'Receipt sent to the printer.' ? ` ${printNote}` : '';
  return `Paid. Receipt ${order.receiptNumber}.${cashChange > 0 ? ` Change ${formatMoney(cashChange, currency)}.` : ''}${printProblem}`;
}
