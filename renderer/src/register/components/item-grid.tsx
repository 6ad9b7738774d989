/**
 * The register's tile grid (issue 13): virtualised by rows with `@tanstack/react-virtual`, so only the tiles in (and
 * just around) the visible window are in the DOM whatever the catalog's size, and memoised, so a cart change (which
 * gives the grid the same `items` array and the same `onChoose`) renders no tile.
 */
import { StockBadge } from './stock-badge.tsx';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
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
}

/** One tile; re-renders only when its item (a new revision), the currency or the handler changes. */
const ItemTile = memo(function ItemTile({ item, currency, onChoose }: ItemTileProps) {
  const choices = hasChoices(item);
  return (
    <button
      type="button"
      className={`item-tile item-kind-${item.kind}${choices ? ' item-has-options' : ''}`}
      data-testid={`item-${item.id}`}
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

  // A new list (search, category) starts at its top. The offset is the virtualizer's (kept from scroll events):
  // reading the element's scrollTop here would force a layout of the fresh tiles before the frame's own.
  useEffect(() => {
    const scroller = scrollElement();
    if (scroller && (virtualizer.scrollOffset ?? 0) > scrollMargin) scroller.scrollTop = 0;
  }, [items, scrollElement, scrollMargin, virtualizer]);

  return (
    <div ref={gridRef} className="item-grid-virtual" data-testid="item-grid" data-item-count={items.length} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
      {virtualizer.getVirtualItems().map((row) => (
        <div
          key={row.key}
          ref={virtualizer.measureElement}
          data-index={row.index}
          className="item-grid item-grid-row"
          style={{ position: 'absolute', top: 0, left: 0, right: 0, paddingBottom: GAP, transform: `translateY(${row.start - scrollMargin}px)`, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}
        >
          {/* Keyed by column: a new list (a search keystroke, a category) gives the tiles already on screen new items
              to show instead of removing them and creating others (React updates their text and attributes). */}
          {items.slice(row.index * columns, row.index * columns + columns).map((item, column) => (
            <ItemTile key={column} item={item} currency={currency} onChoose={onChoose} />
          ))}
        </div>
      ))}
    </div>
  );
});
