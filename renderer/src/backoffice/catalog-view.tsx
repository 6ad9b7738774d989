/** Back office → Catalog: items with search and category filter, low-stock alerts, and the item editor. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { defaultTaxRateId, formatMoney } from '../../../core/index.ts';
import { compareNames } from '../ui/collation.ts';
import { DataTable } from '../ui/data-table.tsx';
import { localPath, type ApiCatalogItem, type CatalogPage, type StockLevel } from '../common/back-office-api.ts';
import { CategoryRename } from './category-rename.tsx';
import { ItemEditor } from './item-editor.tsx';
import { useApi, useCurrency } from '../common/back-office-kit.tsx';
import { CursorListBody, useCursorList, useDebounced } from '../common/cursor-list.tsx';

/** Units on hand over the item's tracked variations, or a dash when none is tracked. */
function onHandText(item: ApiCatalogItem) {
  const tracked = item.variations.filter((v) => v.trackStock);
  return tracked.length > 0 ? tracked.reduce((a, v) => a + (v.stockOnHand ?? 0), 0) : <span className="muted">—</span>;
}

function priceText(item: ApiCatalogItem, currency: string): string {
  const prices = item.variations.map((v) => v.priceCents);
  const low = Math.min(...prices);
  const high = Math.max(...prices);
  return low === high ? formatMoney(low, currency) : `${formatMoney(low, currency)} – ${formatMoney(high, currency)}`;
}

export function CatalogView() {
  const api = useApi();
  const currency = useCurrency();
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const [categories, setCategories] = useState<{ name: string; itemCount: number }[]>([]);
  const [lowStock, setLowStock] = useState<StockLevel[]>([]);
  const [editing, setEditing] = useState<ApiCatalogItem | 'new' | undefined>();
  const [reload, setReload] = useState(0);
  const [renaming, setRenaming] = useState(false);
  const [notice, setNotice] = useState('');
  // The search asked once typing pauses; "Show more" pages that search only (the list starts over on a new one).
  const search = useDebounced(q.trim());
  const list = useCursorList<ApiCatalogItem, CatalogPage>('catalog', [search, category], (cursor) =>
    api.listItems({ ...(cursor ? { cursor } : {}), ...(search ? { q: search } : {}), ...(category ? { category } : {}) }),
  );
  const items = list.rows;
  // The store's tax rates come with every catalog page; the item editor offers them.
  const taxRates = useMemo(() => list.lastPage?.taxRates ?? [], [list.lastPage]);

  // The loaded items by name with locale collation ("Butter croissant" before "Coca-Cola"; the server pages by id).
  // A new item starts with the store's default tax rate checked: the one the loaded items carry most.
  const defaultRate = useMemo(() => {
    const usage = new Map<string, number>();
    for (const item of items ?? []) for (const id of item.taxRateIds) usage.set(id, (usage.get(id) ?? 0) + 1);
    return defaultTaxRateId(taxRates, usage);
  }, [items, taxRates]);
  const sortedItems = useMemo(
    () => items && [...items].sort((a, b) => compareNames(a.name, b.name) || compareNames(a.category, b.category)),
    [items],
  );

  useEffect(() => {
    let current = true;
    api.categories().then(
      (c) => current && setCategories(c.data),
      () => undefined,
    );
    api.lowStock().then(
      (l) => current && setLowStock(l.data),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, reload]);

  const { replace, refresh } = list;
  const onSaved = useCallback(
    (item: ApiCatalogItem) => {
      replace(item);
      setEditing((e) => (e === 'new' ? item : e));
      setReload((r) => r + 1);
      void refresh();
    },
    [replace, refresh],
  );

  const onDeleted = useCallback(() => {
    setReload((r) => r + 1);
    void refresh();
  }, [refresh]);

  return (
    <section className="bo-section" aria-labelledby="bo-catalog-title">
      <div className="bo-toolbar">
        <h2 id="bo-catalog-title">Catalog</h2>
        <form className="bo-filters" role="search" onSubmit={(e) => e.preventDefault()}>
          <label className="visually-hidden" htmlFor="bo-catalog-search">
            Search items
          </label>
          <input
            id="bo-catalog-search"
            type="search"
            className="bo-input"
            placeholder="Search name, SKU or barcode"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            data-testid="catalog-search"
          />
          <label className="visually-hidden" htmlFor="bo-catalog-category">
            Category
          </label>
          <select
            id="bo-catalog-category"
            className="bo-input"
            value={category}
            onChange={(e) => (setCategory(e.target.value), setNotice(''))}
            data-testid="catalog-category"
          >
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name} ({c.itemCount})
              </option>
            ))}
          </select>
          {category ? (
            <button type="button" className="button" onClick={() => setRenaming(true)} data-testid="catalog-rename-category">
              Rename category
            </button>
          ) : null}
        </form>
        <button type="button" className="button button-primary" onClick={() => setEditing('new')} data-testid="catalog-new-item">
          New item
        </button>
      </div>

      {lowStock.length > 0 ? (
        <div className="banner banner-warning bo-low-stock" role="status" data-testid="low-stock-alerts">
          <strong>Low stock:</strong>{' '}
          {lowStock.map((l, i) => (
            <span key={l.variationId} data-testid="low-stock-alert">
              {i > 0 ? ', ' : ''}
              {l.itemName}
              {l.variationName && l.variationName !== l.itemName ? ` (${l.variationName})` : ''}: {l.onHand} left
            </span>
          ))}
        </div>
      ) : null}

      {notice ? (
        <p className="bo-saved" role="status" data-testid="catalog-notice">
          {notice}
        </p>
      ) : null}
      <CursorListBody list={list} what="The catalog" loadingText="Loading the catalog…" moreLabel="Show more items" moreTestId="catalog-more">
        {(rows) => (
          <DataTable
            caption="Catalog items"
            captionHidden
            columns={[
              {
                key: 'picture',
                header: 'Picture',
                hideHeader: true,
                className: 'bo-thumb-cell',
                cell: (item) => (item.imageUrl ? <img className="bo-thumb" src={localPath(item.imageUrl)} alt="" loading="lazy" /> : null),
              },
              {
                key: 'item',
                header: 'Item',
                cell: (item) => (
                  <>
                    <button type="button" className="link-button" onClick={() => setEditing(item)} aria-label={`Edit ${item.name}`}>
                      {item.name}
                    </button>
                    {item.variations.length > 1 ? <span className="muted"> · {item.variations.length} variations</span> : null}
                  </>
                ),
              },
              { key: 'category', header: 'Category', cell: (item) => item.category },
              { key: 'price', header: 'Price', numeric: true, cell: (item) => priceText(item, currency) },
              { key: 'onHand', header: 'On hand', numeric: true, cell: onHandText },
            ]}
            rows={sortedItems ?? rows}
            rowKey={(item) => item.id}
            rowAttributes={(item) => ({ 'data-testid': 'catalog-row', 'data-item-id': item.id })}
            emptyText={q || category ? 'No item matches this search.' : 'The catalog is empty: add an item or import a CSV.'}
            emptyTestId="catalog-empty"
          />
        )}
      </CursorListBody>

      {renaming && category ? (
        <CategoryRename
          name={category}
          others={categories.map((c) => c.name)}
          onClose={() => setRenaming(false)}
          onRenamed={(name, moved) => {
            setRenaming(false);
            setNotice(`${moved} item${moved === 1 ? '' : 's'} moved to “${name}”.`);
            setCategory(name);
            setReload((r) => r + 1);
            void refresh();
          }}
        />
      ) : null}

      {editing ? (
        <ItemEditor
          key="editor"
          item={editing === 'new' ? undefined : editing}
          categories={categories.map((c) => c.name)}
          taxRates={taxRates}
          defaultTaxRateIds={defaultRate ? [defaultRate] : []}
          onSaved={onSaved}
          onDeleted={onDeleted}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
    </section>
  );
}
