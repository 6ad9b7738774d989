/**
 * The register's tile grid: virtualised by rows with `@tanstack/react-virtual`, so only the tiles in (and just around)
 * the visible window are in the DOM whatever the catalog's size, and memoised, so a cart change (which gives the grid
 * the same `items` array and the same `onChoose`) renders no tile.
 *
 * Keyboard: the grid is one Tab stop (roving tabindex, WAI-ARIA APG "grid" keyboard model): ←/→ move one tile, ↑/↓ one
 * row, Home/End to the row's ends, Ctrl+Home/Ctrl+End to the first and last item; a move to a tile out of view scrolls
 * its row in first. Enter or Space adds the focused item (the tiles are buttons).
 */
import { StockBadge } from './stock-badge.tsx';
import { memo, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { formatMoney, type CatalogItem } from '../../../../core/index.ts';

/** Tile geometry in CSS px, as styles.css lays it out (min column width, estimated row height incl. the gap; rows are measured). */
const MIN_TILE_WIDTH = 150;
const GAP = 12;
const ROW_HEIGHT = 96 + GAP;
/** Rows rendered above and below the visible window. */
const OVERSCAN_ROWS = 3;

function priceLabel(item: CatalogItem, currency: string): string {
  const prices = item.variations.map((v) => v.priceCents);
  const min = Math.min(...prices);
  return prices.every((p) => p === min) ? formatMoney(min, currency) : `from ${formatMoney(min, currency)}`;
}

/** Whether tapping the item asks for a choice (variations or modifiers) before it goes into the cart. */
export const hasChoices = (item: CatalogItem): boolean => item.modifierLists.length > 0 || item.variations.length > 1;

interface ItemTileProps {
  item: CatalogItem;
  currency: string;
  onChoose: (item: CatalogItem) => void;
  /** The tile's position in `items` (keyboard moves find tiles by it). */
  index: number;
  /** Whether this tile is the grid's one Tab stop. */
  tabbable: boolean;
}

/** One tile; re-renders only when its item (a new revision), the currency or the handler changes. */
const ItemTile = memo(function ItemTile({ item, currency, onChoose, index, tabbable }: ItemTileProps) {
  const choices = hasChoices(item);
  return (
    <button
      type="button"
      className={`item-tile item-kind-${item.kind}${choices ? ' item-has-options' : ''}`}
      data-testid={`item-${item.id}`}
      data-grid-index={index}
      tabIndex={tabbable ? 0 : -1}
      onClick={() => onChoose(item)}
    >
      <span className="item-name">{item.name}</span>
      <StockBadge item={item} />
      <span className="item-meta">
        <span className="item-price">{priceLabel(item, currency)}</span>
        {choices ? <span className="item-options">options</span> : null}
      </span>
    </button>
  );
});

export interface ItemGridProps {
  /** The items to show, in order (a stable array: a new one re-lays the grid out). */
  items: readonly CatalogItem[];
  currency: string;
  /** A tap on a tile; must be stable (useCallback) for the memoisation to hold. */
  onChoose: (item: CatalogItem) => void;
  /** The element that scrolls the grid (the catalog section). */
  scrollElement: () => HTMLElement | null;
}

/**
 * The tiles of `items` in as many columns of at least 150 px as fit, one virtual row per line of tiles
 * (`data-testid="item-grid"`, `data-item-count` = all items, not only the rendered ones).
 */
export const ItemGrid = memo(function ItemGrid({ items, currency, onChoose, scrollElement }: ItemGridProps) {
  const gridRef = useRef<HTMLDivElement>(null);
  const [columns, setColumns] = useState(4);
  const [scrollMargin, setScrollMargin] = useState(0);

  useLayoutEffect(() => {
    const grid = gridRef.current;
    if (!grid) return undefined;
    const measure = () => {
      const width = grid.clientWidth;
      // Hidden (the receipt over the register, another view): keep the columns for the way back.
      if (width === 0) return;
      setColumns(Math.max(1, Math.floor((width + GAP) / (MIN_TILE_WIDTH + GAP))));
      const scroller = scrollElement();
      if (scroller) setScrollMargin(grid.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(grid);
    return () => observer.disconnect();
  }, [scrollElement]);

  const rowCount = Math.ceil(items.length / columns);
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: scrollElement,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN_ROWS,
    scrollMargin,
  });

  // The roving Tab stop: the tile last moved to (or the first), kept within the list; when its row is not drawn (scrolled
  // far away), the first drawn tile stands in, so Tab always finds the grid.
  const [active, setActive] = useState(0);
  const focusPending = useRef(false);
  // The Tab stop follows its item when the list is built again (a stock change or a sync re-reads the catalog: the
  // same items in a new array) and goes back to the first tile only when that item is no longer in the list.
  const activeRef = useRef(active);
  activeRef.current = active;
  const listed = useRef(items);
  useEffect(() => {
    const previous = listed.current;
    if (previous === items) return;
    listed.current = items;
    const id = previous[Math.min(activeRef.current, previous.length - 1)]?.id;
    const at = id === undefined ? -1 : items.findIndex((item) => item.id === id);
    setActive(at >= 0 ? at : 0);
  }, [items]);
  const rows = virtualizer.getVirtualItems();
  const firstDrawn = rows.length > 0 ? rows[0]!.index * columns : 0;
  const lastDrawn = rows.length > 0 ? Math.min(items.length, (rows[rows.length - 1]!.index + 1) * columns) - 1 : -1;
  const clamped = Math.min(active, Math.max(0, items.length - 1));
  const tabStop = clamped >= firstDrawn && clamped <= lastDrawn ? clamped : firstDrawn;

  // After a keyboard move the tile is focused once its row is drawn.
  useEffect(() => {
    if (!focusPending.current) return;
    const tile = gridRef.current?.querySelector<HTMLElement>(`[data-grid-index="${clamped}"]`);
    if (tile) {
      focusPending.current = false;
      tile.focus();
    }
  });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const from = Number((event.target as HTMLElement).dataset.gridIndex);
    if (!Number.isInteger(from) || event.altKey || event.metaKey || event.shiftKey) return;
    const rowStart = from - (from % columns);
    const last = items.length - 1;
    const to =
      event.key === 'ArrowRight'
        ? Math.min(last, from + 1)
        : event.key === 'ArrowLeft'
          ? Math.max(0, from - 1)
          : event.key === 'ArrowDown'
            ? from + columns <= last
              ? from + columns
              : from
            : event.key === 'ArrowUp'
              ? from - columns >= 0
                ? from - columns
                : from
              : event.key === 'Home'
                ? event.ctrlKey
                  ? 0
                  : rowStart
                : event.key === 'End'
                  ? event.ctrlKey
                    ? last
                    : Math.min(last, rowStart + columns - 1)
                  : undefined;
    if (to === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    if (to === from) return;
    setActive(to);
    // A drawn tile takes focus now; one whose row is not drawn yet, once it is (the effect above).
    const tile = gridRef.current?.querySelector<HTMLElement>(`[data-grid-index="${to}"]`);
    if (tile) tile.focus();
    else focusPending.current = true;
    virtualizer.scrollToIndex(Math.floor(to / columns), { align: 'auto' });
  };

  // A new list (search, category) starts at its top. The offset is the virtualizer's (kept from scroll events):
  // reading the element's scrollTop here would force a layout of the fresh tiles before the frame's own.
  useEffect(() => {
    const scroller = scrollElement();
    if (scroller && (virtualizer.scrollOffset ?? 0) > scrollMargin) scroller.scrollTop = 0;
  }, [items, scrollElement, scrollMargin, virtualizer]);

  return (
    <div
      ref={gridRef}
      className="item-grid-virtual"
      role="group"
      aria-label="Items (arrow keys move between them)"
      onKeyDown={onKeyDown}
      data-testid="item-grid"
      data-item-count={items.length}
      style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
    >
      {rows.map((row) => (
        <div
          key={row.key}
          ref={virtualizer.measureElement}
          data-index={row.index}
          className="item-grid item-grid-row"
          style={{
            position: 'absolute',
            top: 0,
            left: 0,
            right: 0,
            paddingBottom: GAP,
            transform: `translateY(${row.start - scrollMargin}px)`,
            gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
          }}
        >
          {/* Keyed by column: a new list (a search keystroke, a category) gives the tiles already on screen new items
              to show instead of removing them and creating others (React updates their text and attributes). */}
          {items.slice(row.index * columns, row.index * columns + columns).map((item, column) => (
            <ItemTile
              key={column}
              item={item}
              currency={currency}
              onChoose={onChoose}
              index={row.index * columns + column}
              tabbable={row.index * columns + column === tabStop}
            />
          ))}
        </div>
      ))}
    </div>
  );
});
