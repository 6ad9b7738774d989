/**
 * The register's catalog feed (renderer/src/register/sale/catalog-feed.ts): the stored items read in pages
 * (Dexie's getAll path, keyset by id) and indexed once; later writes (a pulled batch, a deletion) followed through the
 * collection's change events, without a live query; the first tiles remembered for the next start of the same
 * database only.
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogItem } from '../../core/index.ts';
import { openRegisterDatabase, type RegisterDatabase } from '../../renderer/src/register/db/database.ts';
import { catalogFeed, readStoredCatalog, type CatalogFeed } from '../../renderer/src/register/sale/catalog-feed.ts';
import { waitFor } from '../support/wait-for.ts';

const item = (n: number, category = `Aisle ${n % 3}`): CatalogItem => ({
  id: `itm_${String(n).padStart(4, '0')}`,
  name: `Item ${n}`,
  category,
  kind: 'product',
  variations: [{ id: `var_${n}`, name: 'Regular', priceCents: 100 + n, trackStock: false, gtin: `2${String(n).padStart(12, '0')}` }],
  modifierLists: [],
  taxRateIds: [],
});

// The feed reads localStorage (the remembered first tiles): a Map stands in for the browser's.
const store = new Map<string, string>();
(globalThis as Record<string, unknown>).localStorage = {
  getItem: (k: string) => store.get(k) ?? null,
  setItem: (k: string, v: string) => void store.set(k, String(v)),
  removeItem: (k: string) => void store.delete(k),
};

describe('catalog feed', () => {
  const opened: { db: RegisterDatabase; feed?: CatalogFeed }[] = [];
  const open = async (name: string) => {
    const db = await openRegisterDatabase({ name, storage: getRxStorageDexie(), multiInstance: false });
    opened.push({ db });
    return db;
  };
  afterEach(async () => {
    for (const { db } of opened.splice(0)) {
      catalogFeed(db).stop();
      await db.remove();
    }
  });

  it.each([
    ['Dexie (one getAll per page)', () => getRxStorageDexie()],
    ['another storage (an RxDB query per page)', () => getRxStorageMemory()],
  ])('reads every stored item in pages, deleted ones left out: %s', async (_label, storage) => {
    const db = await openRegisterDatabase({ name: `feed${Date.now()}a`, storage: storage(), multiInstance: false });
    opened.push({ db });
    await db.catalog_items.bulkInsert(Array.from({ length: 25 }, (_, n) => item(n + 1)));
    await (await db.catalog_items.findOne('itm_0007').exec())!.remove();
    const docs = await readStoredCatalog(db.catalog_items, 10);
    expect(docs.map((d) => d.id)).toEqual(Array.from({ length: 25 }, (_, n) => item(n + 1).id).filter((id) => id !== 'itm_0007'));
    const first = docs[0]!.toJSON() as Record<string, unknown>;
    expect(first).toEqual(item(1));
    expect(docs[0]!.revision).toMatch(/^1-/);
  });

  it('indexes the stored items, then follows pulled batches, changes and deletions', async () => {
    const db = await open(`feed${Date.now()}b`);
    await db.catalog_items.bulkInsert(Array.from({ length: 30 }, (_, n) => item(n + 1)));
    const feed = catalogFeed(db);
    await feed.loaded;
    expect(feed.state$.value).toMatchObject({ isLoaded: true, count: 30 });
    expect(feed.index.findByCode(item(12).variations[0]!.gtin!)?.item.id).toBe('itm_0012');

    // A pulled batch, a changed item and a deleted one: applied together, at most every REFRESH_MS.
    await db.catalog_items.bulkUpsert([...Array.from({ length: 20 }, (_, n) => item(n + 31)), { ...item(5), name: 'Renamed five' }]);
    await (await db.catalog_items.findOne('itm_0009').exec())!.remove();
    await waitFor('the changes in the index', () => (feed.state$.value.count === 49 && feed.index.search('renamed').length === 1 ? true : undefined));
    expect(feed.index.findByCode(item(50).variations[0]!.gtin!)?.item.id).toBe('itm_0050');
    expect(feed.index.findByCode(item(9).variations[0]!.gtin!)).toBeUndefined();
    expect(feed.index.search('item 9')).toEqual([]);
  });

  it('remembers the first tiles for the next start of the same database only', async () => {
    const name = `feed${Date.now()}c`;
    const db = await open(name);
    await db.catalog_items.bulkInsert(Array.from({ length: 200 }, (_, n) => item(n + 1)));
    const feed = catalogFeed(db);
    await feed.loaded;
    await waitFor('the first tiles stored', () => (store.has(`register.catalogFirstPage:${name}`) ? true : undefined));
    const saved = JSON.parse(store.get(`register.catalogFirstPage:${name}`)!) as { categories: string[]; items: CatalogItem[] };
    expect(saved.categories).toEqual(['Aisle 0', 'Aisle 1', 'Aisle 2']);
    expect(saved.items.map((i) => i.id)).toEqual(feed.index.items.slice(0, 120).map((i) => i.id));

    // The same database opened again (a reload): the first tiles are there before the stored items are read.
    feed.stop();
    await db.close();
    opened.splice(0);
    const again = await open(name);
    const reloaded = catalogFeed(again);
    await waitFor('the remembered first tiles', () => reloaded.firstPage$.value);
    expect(reloaded.firstPage$.value!.items.map((i) => i.id)).toEqual(saved.items.map((i) => i.id));
    await reloaded.loaded;

    // Another database under the same name (storage cleared): its storage token differs, nothing is shown from it.
    reloaded.stop();
    await again.remove();
    opened.splice(0);
    const fresh = await open(name);
    const next = catalogFeed(fresh);
    await next.loaded;
    expect(next.firstPage$.value).toBeUndefined();
  });
});
