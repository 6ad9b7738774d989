/**
 * The register's catalog feed: one {@link CatalogIndex} per local database,
 * started at boot and kept in step with the `catalog_items` collection — without a live RxDB query over the whole
 * collection.
 *
 * - **Start (a reload)**: the stored items are read in pages of {@link READ_PAGE} by primary key (keyset: `id > last`).
 *   With RxDB's Dexie storage the page is read with Dexie's `where(':id').above(last).limit(n).toArray()`, which
 *   IndexedDB answers with one `getAll` (50,000 items: ~0.7 s, where RxDB's query walks a cursor, ~3 s); any other
 *   storage (tests) goes through an RxDB `find` per page. The items are indexed once, when every page is read.
 * - **Changes** (the catalog pull writing a batch, another tab): the collection's change-event bulks are applied to the
 *   index at most every {@link REFRESH_MS} ms, or 10× the last application's cost (`CatalogIndex.apply`, O(batch) +
 *   one merge of the order). An RxDB query observing
 *   the whole collection re-ran in full after every pulled batch (RxDB's change-event buffer holds 100 events, a batch
 *   brings 1,000), ~1.3 million documents read through a cursor over a first download of 50,000 items.
 * - **First tiles at once**: the first {@link FIRST_PAGE_ITEMS} tiles of the grid (and the category names) are kept in
 *   localStorage, tied to the database's storage token, so after a reload the grid shows them before the stored items
 *   are read; a barcode scanned meanwhile waits for {@link CatalogFeed.loaded}.
 * - The search word index is built in idle slices after each change (`CatalogIndex.indexPending`).
 */
import { BehaviorSubject, type Subscription } from 'rxjs';
import type { RxCollection } from 'rxdb';
import type { CatalogItem } from '../../../../core/index.ts';
import type { RegisterDatabase } from '../db/database.ts';
import { CatalogIndex, type IndexSource } from './catalog-index.ts';

/** Items read per page at start. */
export const READ_PAGE = 10_000;
/**
 * Changes are applied to the index at most this often, ms (a first download's burst of batches) — or less often, ten
 * times the last application's cost, when applying grows costly (a merge of 50,000 items: ~50 ms).
 */
export const REFRESH_MS = 250;
/** Tiles remembered for the next start: more than a 1920 × 1080 screen shows. */
export const FIRST_PAGE_ITEMS = 120;
/** Time budget of one idle slice of word indexing, ms. */
const INDEX_SLICE_MS = 8;
/** A change is remembered as the first tiles this long after it settles, ms. */
const FIRST_PAGE_SAVE_MS = 1_000;

export interface CatalogFeedState {
  /** `index.version` after the last change applied: a cheap dependency for memoised views. */
  version: number;
  /** True once every stored item was read and indexed (a reload: ~1 s at 50,000 items); until then, see `firstPage`. */
  isLoaded: boolean;
  /** Items in the index. */
  count: number;
}

/** The grid's first tiles as last shown, and the category names (what a reload shows before the index is loaded). */
export interface FirstPage {
  categories: string[];
  items: CatalogItem[];
}

export interface CatalogFeed {
  index: CatalogIndex;
  state$: BehaviorSubject<CatalogFeedState>;
  /** The first tiles remembered from the last session (undefined when none, or taken from another database). */
  firstPage$: BehaviorSubject<FirstPage | undefined>;
  /** Resolves once every stored item is indexed. */
  loaded: Promise<void>;
  stop(): void;
}

/** A stored document as RxDB's storage holds it: the item plus RxDB's fields. */
type StoredDoc = Record<string, unknown> & { id: string; _rev: string; _deleted?: unknown };

/** The item of a stored document, without RxDB's fields. */
function itemOf(doc: StoredDoc): CatalogItem {
  const { _rev: _r, _meta: _m, _attachments: _a, _deleted: _d, ...item } = doc;
  return item as unknown as CatalogItem;
}

const sourceOf = (doc: StoredDoc): IndexSource => ({ id: doc.id, revision: doc._rev, toJSON: () => itemOf(doc) });

/** The part of Dexie's Table API the fast read uses. */
interface DexieDocsTable {
  orderBy(index: ':id'): DexieCollection;
  where(index: ':id'): { above(key: string): DexieCollection };
}
interface DexieCollection {
  limit(n: number): { toArray(): Promise<StoredDoc[]> };
}

/**
 * The Dexie table holding the collection's documents, when the collection is on RxDB's Dexie storage (its
 * `internals`: `{ dexieTable, booleanIndexes }`), else undefined. The only boolean index is `_deleted` (stored '0'/'1');
 * catalog fields never start with '|' (the key-compression marker Dexie's storage renames).
 */
async function dexieTableOf(collection: RxCollection<CatalogItem>): Promise<DexieDocsTable | undefined> {
  try {
    const internals = (await (collection.storageInstance as unknown as { internals?: Promise<unknown> }).internals) as
      { dexieTable?: Partial<DexieDocsTable>; booleanIndexes?: unknown } | undefined;
    const table = internals?.dexieTable;
    const booleans = internals?.booleanIndexes;
    if (
      table &&
      typeof table.where === 'function' &&
      typeof table.orderBy === 'function' &&
      Array.isArray(booleans) &&
      booleans.every((b) => b === '_deleted')
    )
      return table as DexieDocsTable;
  } catch {
    // Not Dexie: the RxDB query below.
  }
  return undefined;
}

/** One page of stored documents after `after` (primary-key order), deleted ones included (the keyset moves on). */
async function readPage(
  collection: RxCollection<CatalogItem>,
  table: DexieDocsTable | undefined,
  after: string | undefined,
  limit: number,
): Promise<StoredDoc[]> {
  if (table) return (after === undefined ? table.orderBy(':id') : table.where(':id').above(after)).limit(limit).toArray();
  const docs = await collection.find({ selector: after === undefined ? {} : { id: { $gt: after } }, sort: [{ id: 'asc' }], limit }).exec();
  return docs.map((d) => ({ ...(d.toJSON() as unknown as StoredDoc), _rev: d.revision }));
}

const isDeleted = (doc: StoredDoc) => doc._deleted === true || doc._deleted === '1';

/**
 * Every live stored item of `collection`, read in pages of `pageSize` (see the file's comment), yielding to the event
 * loop between pages.
 */
export async function readStoredCatalog(collection: RxCollection<CatalogItem>, pageSize = READ_PAGE): Promise<IndexSource[]> {
  const table = await dexieTableOf(collection);
  const out: IndexSource[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await readPage(collection, table, after, pageSize);
    for (const doc of page) if (!isDeleted(doc)) out.push(sourceOf(doc));
    if (page.length < pageSize) return out;
    after = page.at(-1)!.id;
  }
}

const feeds = new WeakMap<RegisterDatabase, CatalogFeed>();

/** The catalog feed of `db`, started on first use (one per database and page; see the file's comment). */
export function catalogFeed(db: RegisterDatabase): CatalogFeed {
  let feed = feeds.get(db);
  if (!feed) {
    feed = startCatalogFeed(db);
    feeds.set(db, feed);
  }
  return feed;
}

function firstPageKey(db: RegisterDatabase): string {
  return `register.catalogFirstPage:${db.name}`;
}

function startCatalogFeed(db: RegisterDatabase): CatalogFeed {
  const index = new CatalogIndex();
  const state$ = new BehaviorSubject<CatalogFeedState>({ version: index.version, isLoaded: false, count: 0 });
  const firstPage$ = new BehaviorSubject<FirstPage | undefined>(undefined);
  /** Changes seen and not applied yet: id → stored document, or null when deleted. */
  const pending = new Map<string, StoredDoc | null>();
  let isLoaded = false;
  let stopped = false;
  let lastFlush = 0;
  let interval = REFRESH_MS;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let sliceTimer: ReturnType<typeof setTimeout> | undefined;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  let token: string | undefined;
  let savedJson: string | undefined;

  const publish = () => state$.next({ version: index.version, isLoaded, count: index.size });

  // The word index in idle slices, so the grid and barcodes are ready before search is.
  const indexWords = () => {
    if (sliceTimer !== undefined || index.pendingCount === 0) return;
    const slice = () => {
      sliceTimer = undefined;
      if (!stopped && !index.indexPending(INDEX_SLICE_MS)) sliceTimer = setTimeout(slice, 0);
    };
    sliceTimer = setTimeout(slice, 0);
  };

  /** Remembers the grid's first tiles for the next start (after changes settle). */
  const saveFirstPage = () => {
    if (saveTimer !== undefined) clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      if (stopped || token === undefined) return;
      const json = JSON.stringify({ token, categories: index.categoryNames, items: index.items.slice(0, FIRST_PAGE_ITEMS) });
      if (json === savedJson) return;
      try {
        localStorage.setItem(firstPageKey(db), json);
        savedJson = json;
      } catch {
        // Storage full or refused: a reload shows the tiles once the items are read.
      }
    }, FIRST_PAGE_SAVE_MS);
  };

  const flush = () => {
    flushTimer = undefined;
    if (stopped || !isLoaded || pending.size === 0) return;
    const started = performance.now();
    const upserts: IndexSource[] = [];
    const removed: string[] = [];
    for (const [id, doc] of pending) {
      if (doc && !isDeleted(doc)) upserts.push(sourceOf(doc));
      else removed.push(id);
    }
    pending.clear();
    const changed = index.apply(upserts, removed);
    lastFlush = performance.now();
    // A large index costs more per change (one merge of the whole order): at most a tenth of the main thread.
    interval = Math.max(REFRESH_MS, (lastFlush - started) * 10);
    if (changed) {
      publish();
      indexWords();
      saveFirstPage();
    }
  };
  const scheduleFlush = () => {
    if (flushTimer !== undefined || !isLoaded) return;
    flushTimer = setTimeout(flush, Math.max(0, lastFlush + interval - performance.now()));
  };

  // Subscribed before the read, so no change is lost between a page read and the end of the read: the buffered
  // events are applied in order after it (the last one of a document is its latest state).
  const subscription: Subscription = db.catalog_items.eventBulks$.subscribe((bulk) => {
    for (const event of bulk.events) {
      pending.set(event.documentId, event.operation === 'DELETE' ? null : (event.documentData as unknown as StoredDoc));
    }
    scheduleFlush();
  });

  const loaded = (async () => {
    try {
      token = await db.storageToken;
      const saved = JSON.parse(localStorage.getItem(firstPageKey(db)) ?? 'null') as ({ token?: unknown } & Partial<FirstPage>) | null;
      if (saved && saved.token === token && Array.isArray(saved.items) && Array.isArray(saved.categories)) {
        firstPage$.next({ categories: saved.categories, items: saved.items });
        performance.mark('register:catalog-first-page');
      }
    } catch {
      // No usable first page: the grid waits for the read.
    }
    // A turn for the grid to render the first tiles before the pages' results arrive.
    if (firstPage$.value) await new Promise((resolve) => setTimeout(resolve, 0));
    try {
      const docs = await readStoredCatalog(db.catalog_items);
      // Marks for the register bench (test/bench/register.ts): when the local documents were read, when indexed.
      performance.mark('register:catalog-docs');
      if (stopped) return;
      index.update(docs);
    } finally {
      // Even when the read failed, the changes that follow are applied (a pull writes the catalog again).
      isLoaded = true;
    }
    performance.mark('register:catalog-indexed');
    flush();
    publish();
    indexWords();
    saveFirstPage();
  })();
  loaded.catch((err: unknown) => console.error('the catalog could not be read', err));

  return {
    index,
    state$,
    firstPage$,
    loaded,
    stop: () => {
      stopped = true;
      subscription.unsubscribe();
      for (const timer of [flushTimer, sliceTimer, saveTimer]) if (timer !== undefined) clearTimeout(timer);
    },
  };
}
