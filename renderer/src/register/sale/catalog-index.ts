/**
 * The register's in-memory catalog index (issue 13, "Fast at any catalog size"): kept in step with the local
 * `catalog_items` collection, updated incrementally (only documents whose revision changed are re-indexed), so that
 * - a barcode (GTIN) or SKU resolves through a `Map` in O(1), never a scan of the catalog;
 * - a search keystroke asks a MiniSearch full-text index (prefix match on every word of the query, all words
 *   required) instead of testing every item;
 * - the tile grid gets its items already sorted with locale collation (`Intl.Collator`: "Butter croissant" before
 *   "Coca-Cola"), by category then name, and per category without re-filtering.
 */
import MiniSearch from 'minisearch';
import type { CatalogItem, Variation } from '../../../../core/index.ts';

/** One locale-aware, case- and accent-insensitive collator for every catalog list (numbers sort numerically). */
export const catalogCollator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** Orders catalog items by category, then name, with {@link catalogCollator}. */
export const compareCatalogItems = (a: CatalogItem, b: CatalogItem): number =>
  catalogCollator.compare(a.category, b.category) || catalogCollator.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A document as the index receives it: its id, a revision that changes when it changes, and its JSON. */
export interface IndexSource {
  id: string;
  revision: string;
  toJSON(): unknown;
}

/** A code's match: the item and the variation whose GTIN or SKU it is. */
export interface CodeMatch {
  item: CatalogItem;
  variation: Variation;
}

interface SearchDocument {
  id: string;
  name: string;
  category: string;
  variations: string;
  codes: string;
}

const toSearchDocument = (item: CatalogItem): SearchDocument => ({
  id: item.id,
  name: item.name,
  category: item.category,
  variations: item.variations.map((v) => v.name).join(' '),
  codes: item.variations.flatMap((v) => [v.sku ?? '', v.gtin ?? '']).join(' '),
});

/** Words of a text: letters and digits, lower-cased (the same for the index and the query). */
const tokenize = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/**
 * The index itself. `update(docs)` takes the collection's current documents (RxDB documents: `id`, `revision`,
 * `toJSON()`) and returns whether anything changed; `items` (sorted), `byCategory`, `findByCode` and `search` read it.
 */
export class CatalogIndex {
  private readonly entries = new Map<string, { revision: string; item: CatalogItem }>();
  private readonly codes = new Map<string, CodeMatch>();
  private readonly search$ = new MiniSearch<SearchDocument>({
    fields: ['name', 'category', 'variations', 'codes'],
    tokenize,
    processTerm: (term) => term.toLowerCase(),
    searchOptions: { prefix: true, combineWith: 'AND', boost: { name: 2 } },
  });
  private sorted: CatalogItem[] = [];
  private categories = new Map<string, CatalogItem[]>();
  private revision = 0;

  /** Bumped by every `update` that changed something (a cheap dependency for memoised views). */
  get version(): number {
    return this.revision;
  }

  /** Every item, sorted by category then name (locale collation). Same array until the next change. */
  get items(): readonly CatalogItem[] {
    return this.sorted;
  }

  /** Category names in collation order. */
  get categoryNames(): string[] {
    return [...this.categories.keys()];
  }

  /** The sorted items of one category (empty when unknown). */
  byCategory(category: string): readonly CatalogItem[] {
    return this.categories.get(category) ?? [];
  }

  /**
   * Brings the index in step with `docs` (the whole collection): adds new documents, re-indexes those whose
   * revision changed, drops those gone. Cost: O(changed) index work plus one O(n log n) re-sort when anything changed.
   * @returns true when anything changed
   */
  update(docs: readonly IndexSource[]): boolean {
    const seen = new Set<string>();
    let changed = false;
    for (const doc of docs) {
      seen.add(doc.id);
      const entry = this.entries.get(doc.id);
      if (entry && entry.revision === doc.revision) continue;
      const item = doc.toJSON() as CatalogItem;
      if (entry) this.remove(entry.item);
      this.add(item, doc.revision);
      changed = true;
    }
    if (seen.size !== this.entries.size) {
      for (const [id, entry] of this.entries) {
        if (seen.has(id)) continue;
        this.remove(entry.item);
        this.entries.delete(id);
        changed = true;
      }
    }
    if (changed) this.rebuildOrder();
    return changed;
  }

  /** The item and variation with GTIN `code` (exact) or SKU `code` (case-insensitive), or undefined. O(1). */
  findByCode(code: string): CodeMatch | undefined {
    const wanted = code.trim();
    return this.codes.get(`gtin:${wanted}`) ?? this.codes.get(`sku:${wanted.toLowerCase()}`);
  }

  /**
   * Items matching `query` (every word a prefix of a word of the name, category, a variation name, a SKU or a GTIN),
   * in catalog order, restricted to `within` when given (a category's items). An empty query returns `within`/all.
   */
  search(query: string, within?: readonly CatalogItem[]): readonly CatalogItem[] {
    const base = within ?? this.sorted;
    if (tokenize(query).length === 0) return base;
    const ids = new Set(this.search$.search(query).map((r) => r.id as string));
    if (ids.size === 0) return [];
    return base.filter((item) => ids.has(item.id));
  }

  private add(item: CatalogItem, revision: string): void {
    this.entries.set(item.id, { revision, item });
    this.search$.add(toSearchDocument(item));
    for (const variation of item.variations) {
      if (variation.gtin) this.codes.set(`gtin:${variation.gtin}`, { item, variation });
      if (variation.sku) this.codes.set(`sku:${variation.sku.toLowerCase()}`, { item, variation });
    }
  }

  private remove(item: CatalogItem): void {
    this.search$.discard(item.id);
    for (const variation of item.variations) {
      if (variation.gtin && this.codes.get(`gtin:${variation.gtin}`)?.item.id === item.id) this.codes.delete(`gtin:${variation.gtin}`);
      const sku = variation.sku?.toLowerCase();
      if (sku && this.codes.get(`sku:${sku}`)?.item.id === item.id) this.codes.delete(`sku:${sku}`);
    }
  }

  private rebuildOrder(): void {
    this.revision += 1;
    this.sorted = [...this.entries.values()].map((e) => e.item).sort(compareCatalogItems);
    const categories = new Map<string, CatalogItem[]>();
    for (const item of this.sorted) {
      const list = categories.get(item.category);
      if (list) list.push(item);
      else categories.set(item.category, [item]);
    }
    this.categories = categories;
  }
}
