/**
 * The register's in-memory catalog index: kept in step with the local
 * `catalog_items` collection, updated incrementally (only documents whose revision changed are re-indexed), so that
 * - a barcode (GTIN) or SKU resolves through a `Map` in O(1), never a scan of the catalog;
 * - a search keystroke asks an inverted prefix index (every word of the query must be the start of a word of the
 *   item's name, category, a variation name, a SKU or a GTIN): the words of the catalog are kept sorted, a query word
 *   finds its range by binary search, and the matching items are marked in a bitmap read in catalog order. MiniSearch
 *   was tried first and dropped: it scores every match, 0.3–1 s per keystroke for a one-letter prefix at 50,000
 *   items (docs/decisions/0032-register-search-and-sort-order.md);
 * - the tile grid gets its items already sorted with locale collation (`Intl.Collator`: "Butter croissant" before
 *   "Coca-Cola"), by category then name, and per category without re-filtering.
 */
import type { CatalogItem, Variation } from '../../../../core/index.ts';

import { collator as catalogCollator } from '../../ui/collation.ts';

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

/**
 * Words of a text: letters and digits, lower-cased, accents dropped ("Crème" → "creme"), the same for the index and
 * the query.
 */
export const tokenize = (text: string): string[] =>
  (/[^\u0000-\u007f]/.test(text) ? text.normalize('NFD').replace(/\p{M}+/gu, '') : text)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** The searchable words of an item (name, category, variation names, SKUs, GTINs), each once. */
const wordsOf = (item: CatalogItem): Set<string> =>
  new Set([item.name, item.category, ...item.variations.flatMap((v) => [v.name, v.sku ?? '', v.gtin ?? ''])].flatMap(tokenize));

/** How many query terms' bitmaps the index keeps (a few keystrokes' worth). */
const TERM_CACHE_SIZE = 16;

/** First index of `sorted` whose value is ≥ `value` (binary search). */
function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Entry {
  revision: string;
  item: CatalogItem;
  /** The item's slot in the search bitmaps (stable while the item exists; freed slots are reused). */
  slot: number;
  /** The words indexed for it; undefined while it waits in the word-index queue. */
  words?: Set<string>;
}
/**
 * The index itself. `update(docs)` takes the collection's current documents (RxDB documents: `id`, `revision`,
 * `toJSON()`) and returns whether anything changed; `items` (sorted), `byCategory`, `findByCode` and `search` read it.
 */
export class CatalogIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly codes = new Map<string, CodeMatch>();
  /** word → slots of the items holding it. */
  private readonly postings = new Map<string, Set<number>>();
  /** Every word of `postings`, sorted by code unit (binary search of a prefix's range); emptied words are pruned lazily. */
  private words: string[] = [];
  private pendingWords: string[] = [];
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  /** Entries whose words are not indexed yet (see {@link CatalogIndex.indexPending}). */
  private unindexed = new Set<Entry>();
  private sorted: CatalogItem[] = [];
  /** Slot of each item of `sorted`, same order. */
  private sortedSlots = new Uint32Array(0);
  private categories = new Map<string, CatalogItem[]>();
  private revision = 0;
  /** The last answer of {@link CatalogIndex.search}: the index's version, the list searched, the hits' bitmap. */
  private lastAnswer: { version: number; base: readonly CatalogItem[]; hits: Uint8Array; items: readonly CatalogItem[] } | undefined;
  /** Term → bitmap of {@link CatalogIndex.termMarks}, least recently used first; emptied by any change. */
  private readonly termCache = new Map<string, Uint8Array | null>();

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
    const seen = new Set(docs.map((doc) => doc.id));
    const gone = [...this.entries.keys()].filter((id) => !seen.has(id));
    return this.apply(docs, gone);
  }

  /**
   * Applies a batch of changes without the whole collection: `upserts` added or re-indexed when their revision changed,
   * `removedIds` dropped (unknown ids ignored). What the register's catalog feed calls with each burst of the
   * collection's change events (sale/catalog-feed.ts), so a pulled batch costs O(batch) index work plus one merge.
   * @returns true when anything changed
   */
  apply(upserts: readonly IndexSource[], removedIds: readonly string[] = []): boolean {
    const touched = new Set<string>();
    for (const doc of upserts) {
      const entry = this.entries.get(doc.id);
      if (entry && entry.revision === doc.revision) continue;
      const item = doc.toJSON() as CatalogItem;
      if (entry) this.remove(entry);
      this.add(item, doc.revision);
      touched.add(item.id);
    }
    for (const id of removedIds) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      this.remove(entry);
      touched.add(id);
    }
    if (touched.size === 0) return false;
    this.rebuildOrder(touched);
    return true;
  }

  /** Number of items indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** The item and variation with GTIN `code` (exact) or SKU `code` (case-insensitive), or undefined. O(1). */
  findByCode(code: string): CodeMatch | undefined {
    const wanted = code.trim();
    return this.codes.get(`gtin:${wanted}`) ?? this.codes.get(`sku:${wanted.toLowerCase()}`);
  }

  /**
   * Items matching `query` (every word of it the start of a word of the name, category, a variation name, a SKU or a
   * GTIN), in catalog order, restricted to `within` when given (a category's items, in catalog order). An empty query
   * returns `within`/all. Cost: the words in each query word's range plus one pass over a bitmap, no scoring.
   */
  search(query: string, within?: readonly CatalogItem[]): readonly CatalogItem[] {
    const base = within ?? this.sorted;
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0) return base;
    this.indexPending(Number.POSITIVE_INFINITY);
    let hits: Uint8Array | undefined;
    for (const term of terms) {
      const marks = this.termMarks(term);
      if (!marks) return [];
      if (!hits) hits = marks;
      else {
        const both = new Uint8Array(hits.length);
        let any = false;
        for (let slot = 0; slot < both.length; slot += 1) {
          if (hits[slot] && marks[slot]) {
            both[slot] = 1;
            any = true;
          }
        }
        if (!any) return [];
        hits = both;
      }
    }
    const found = hits!;
    // The same items as the last answer (typing "bul" then "bulk" finds the same 50,000): the same array, so a
    // memoised grid renders nothing again — found by comparing the bitmaps, before any answer is built.
    const last = this.lastAnswer;
    if (last && last.version === this.revision && last.base === base && sameBits(last.hits, found)) return last.items;
    let items: readonly CatalogItem[];
    if (!within) {
      // Counted first, so the answer is allocated once at its size (50,000 items: no growing array to collect).
      let count = 0;
      for (let i = 0; i < this.sorted.length; i += 1) count += found[this.sortedSlots[i]!]!;
      if (count === this.sorted.length) items = this.sorted;
      else {
        const out = new Array<CatalogItem>(count);
        let n = 0;
        for (let i = 0; i < this.sorted.length; i += 1) if (found[this.sortedSlots[i]!]) out[n++] = this.sorted[i]!;
        items = out;
      }
    } else {
      items = within.filter((item) => {
        const entry = this.entries.get(item.id);
        return entry !== undefined && found[entry.slot] === 1;
      });
    }
    this.lastAnswer = { version: this.revision, base, hits: found, items };
    return items;
  }

  /**
   * The slots of the items holding a word that starts with `term` (a bitmap, never changed once made), or null when
   * none does. Kept for the last {@link TERM_CACHE_SIZE} terms until the index changes: typing "bulk 4321" reads the
   * postings of "bulk" once, not at every keystroke after it.
   */
  private termMarks(term: string): Uint8Array | null {
    const cached = this.termCache.get(term);
    if (cached !== undefined) {
      // Most recently used last.
      this.termCache.delete(term);
      this.termCache.set(term, cached);
      return cached;
    }
    const marks = new Uint8Array(this.nextSlot);
    let any = false;
    const mark = (slot: number) => {
      marks[slot] = 1;
    };
    for (let i = lowerBound(this.words, term); i < this.words.length && this.words[i]!.startsWith(term); i += 1) {
      const slots = this.postings.get(this.words[i]!);
      // forEach, not for…of: a set of 50,000 slots walked by an iterator left an object per slot to collect.
      if (slots && slots.size > 0) {
        slots.forEach(mark);
        any = true;
      }
    }
    const result = any ? marks : null;
    this.termCache.set(term, result);
    if (this.termCache.size > TERM_CACHE_SIZE) this.termCache.delete(this.termCache.keys().next().value!);
    return result;
  }

  /** Words still to index (items added or changed since): search indexes them first, idle time may do it earlier. */
  get pendingCount(): number {
    return this.unindexed.size;
  }

  /**
   * Indexes the words of pending items for about `budgetMs` (all of them with Infinity); the register calls it in
   * idle slices after an update, so the grid and barcodes are usable before the word index is complete.
   * @returns true when nothing is left pending
   */
  indexPending(budgetMs: number): boolean {
    const until = performance.now() + budgetMs;
    let n = 0;
    for (const entry of this.unindexed) {
      this.unindexed.delete(entry);
      const words = wordsOf(entry.item);
      entry.words = words;
      for (const word of words) {
        const slots = this.postings.get(word);
        if (slots) slots.add(entry.slot);
        else {
          this.postings.set(word, new Set([entry.slot]));
          this.pendingWords.push(word);
        }
      }
      n += 1;
      if (n % 256 === 0 && performance.now() > until) break;
    }
    if (n > 0) this.termCache.clear();
    const done = this.unindexed.size === 0;
    if (done) this.flushWords();
    return done;
  }

  private add(item: CatalogItem, revision: string): void {
    this.termCache.clear();
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    const entry: Entry = { revision, item, slot };
    this.entries.set(item.id, entry);
    this.unindexed.add(entry);
    for (const variation of item.variations) {
      if (variation.gtin) this.codes.set(`gtin:${variation.gtin}`, { item, variation });
      if (variation.sku) this.codes.set(`sku:${variation.sku.toLowerCase()}`, { item, variation });
    }
  }

  private remove(entry: Entry): void {
    this.termCache.clear();
    const { item, slot } = entry;
    this.entries.delete(item.id);
    this.unindexed.delete(entry);
    for (const word of entry.words ?? []) {
      const slots = this.postings.get(word);
      slots?.delete(slot);
      if (slots && slots.size === 0) this.postings.delete(word);
    }
    this.freeSlots.push(slot);
    for (const variation of item.variations) {
      if (variation.gtin && this.codes.get(`gtin:${variation.gtin}`)?.item.id === item.id) this.codes.delete(`gtin:${variation.gtin}`);
      const sku = variation.sku?.toLowerCase();
      if (sku && this.codes.get(`sku:${sku}`)?.item.id === item.id) this.codes.delete(`sku:${sku}`);
    }
  }

  /** Merges the words added since the last search into the sorted list and drops the words no item holds any more. */
  private flushWords(): void {
    if (this.pendingWords.length === 0 && this.words.length === this.postings.size) return;
    const merged = this.words.filter((w) => this.postings.has(w));
    if (this.pendingWords.length > 0) {
      const fresh = [...new Set(this.pendingWords)].filter((w) => this.postings.has(w)).sort();
      this.words = mergeSorted(merged, fresh);
      this.pendingWords = [];
    } else this.words = merged;
  }

  /**
   * Re-orders after an update: a full sort when most items changed (the first load), else the untouched items (still
   * in order) merged with the touched ones sorted — O(n + k log k) comparisons, so a download's batch of 1,000 items
   * into 49,000 costs one pass, not a sort of 50,000.
   */
  private rebuildOrder(touched: ReadonlySet<string>): void {
    this.revision += 1;
    // Categories are few: ranked once, so most comparisons are one integer and one collated name.
    const names = [...new Set(Array.from(this.entries.values(), (e) => e.item.category))].sort(catalogCollator.compare);
    const rank = new Map<string, number>();
    names.forEach((c, i) => rank.set(c, i > 0 && catalogCollator.compare(names[i - 1]!, c) === 0 ? rank.get(names[i - 1]!)! : i));
    const compare = (a: Entry, b: Entry) =>
      rank.get(a.item.category)! - rank.get(b.item.category)! ||
      catalogCollator.compare(a.item.name, b.item.name) ||
      (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0);
    let ordered: Entry[];
    if (touched.size * 4 > this.entries.size) ordered = [...this.entries.values()].sort(compare);
    else {
      const kept: Entry[] = [];
      for (const item of this.sorted) {
        if (touched.has(item.id)) continue;
        const entry = this.entries.get(item.id);
        if (entry) kept.push(entry);
      }
      const fresh = [...touched].flatMap((id) => this.entries.get(id) ?? []).sort(compare);
      ordered = [];
      let i = 0;
      let j = 0;
      while (i < kept.length || j < fresh.length) {
        if (j >= fresh.length || (i < kept.length && compare(kept[i]!, fresh[j]!) <= 0)) ordered.push(kept[i++]!);
        else ordered.push(fresh[j++]!);
      }
    }
    this.sorted = ordered.map((e) => e.item);
    this.sortedSlots = Uint32Array.from(ordered, (e) => e.slot);
    const categories = new Map<string, CatalogItem[]>();
    for (const item of this.sorted) {
      const list = categories.get(item.category);
      if (list) list.push(item);
      else categories.set(item.category, [item]);
    }
    this.categories = categories;
  }
}

/** Whether two bitmaps of the same index hold the same bits. */
function sameBits(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** Merges two sorted lists of distinct words (an existing word in `fresh` is kept once). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!);
    else if (i >= a.length || b[j]! < a[i]!) out.push(b[j++]!);
    else {
      out.push(a[i++]!);
      j += 1;
    }
  }
  return out;
}
