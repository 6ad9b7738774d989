/**
 * The register's catalog pull (renderer/src/register/sync/collection-pull.ts): the register's own database
 * and sync engine (Node, RxDB on fake-indexeddb) against a real sync server. The first download brings every item in
 * full pages (the progress counted, back to 0 once caught up) and keeps its checkpoint; an item the back office edits
 * arrives changed, one it deletes is removed locally; the catalog feed's index follows both.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { bulkGtin, seedLargeCatalog } from '../support/large-catalog.ts';
import { pairRegister } from '../support/sync-client.ts';
import { registerInNodeSuite } from './support/register-in-node.ts';
import { waitFor } from '../support/wait-for.ts';

const BULK = 2_500;

describe('register catalog pull', () => {
  const register = registerInNodeSuite();

  it('downloads every item in pages, then follows an edit and a deletion', { timeout: 180_000 }, async () => {
    const { server } = register;
    const { catalogFeed } = await import('../../renderer/src/register/sale/catalog-feed.ts');
    await seedLargeCatalog(server.db, server.credentials.merchantId, BULK);
    const total = BULK + server.catalog.items.length;
    const pairing = await pairRegister(server.baseUrl);
    const db = await register.openDatabase('catalogpull');
    const feed = catalogFeed(db);

    const engine = await register.startSync(db, pairing.registerToken);
    const progress: number[] = [];
    const sub = engine.status$.subscribe((s) => progress.push(s.catalogReceived));
    try {
      await waitFor('every item stored', async () => ((await db!.catalog_items.count().exec()) === total ? true : undefined), 120_000);
      await waitFor('the progress back to 0', () => (progress.at(-1) === 0 ? true : undefined), 30_000);
    } finally {
      sub.unsubscribe();
    }
    // Full pages of 1,000 counted while downloading, then 0 once caught up.
    expect(progress).toContain(1_000);
    expect(progress).toContain(2_000);
    const checkpoint = JSON.parse(localStorage.getItem(`register.catalogPull:${server.credentials.merchantId}`)!) as { seq: number };
    const { rows } = await server.db.query<{ seq: string }>('SELECT max(sync_seq)::text AS seq FROM catalog_items WHERE merchant_id = $1', [
      server.credentials.merchantId,
    ]);
    expect(checkpoint.seq).toBe(Number(rows[0]!.seq));
    await waitFor('the feed indexed every item', () => (feed.state$.value.count === total ? true : undefined), 30_000);
    expect(feed.index.findByCode(bulkGtin(1234))?.item.id).toBe('itm_bulk_1234');

    // The back office renames one item and deletes another: the change stream (or the next pull) brings both.
    const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
    const renamed = await server.app.inject({
      method: 'PATCH',
      url: '/api/pos/catalog/items/itm_bulk_1234',
      headers: staff,
      payload: { name: 'Renamed bulk item' },
    });
    expect(renamed.statusCode).toBe(200);
    const deleted = await server.app.inject({ method: 'DELETE', url: '/api/pos/catalog/items/itm_bulk_77', headers: staff });
    expect(deleted.statusCode).toBeLessThan(300);
    engine.resync();
    await waitFor(
      'the deletion applied locally',
      async () => ((await db!.catalog_items.findOne('itm_bulk_77').exec()) === null ? true : undefined),
      30_000,
    );
    await waitFor(
      'the rename applied locally',
      async () => ((await db!.catalog_items.findOne('itm_bulk_1234').exec())?.name === 'Renamed bulk item' ? true : undefined),
      30_000,
    );
    await waitFor(
      'the index following both',
      () =>
        feed.index.findByCode(bulkGtin(77)) === undefined && feed.index.findByCode(bulkGtin(1234))?.item.name === 'Renamed bulk item'
          ? true
          : undefined,
      30_000,
    );
    expect(feed.state$.value.count).toBe(total - 1);
    feed.stop();
  });
});
