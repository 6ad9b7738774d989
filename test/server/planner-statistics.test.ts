/**
 * platform/db/statistics.ts `refreshPlannerStatistics` (the catalog import): a table a job grows is analyzed
 * once enough of it changed — first after 500 changed rows, then each time it changed by more than its size when
 * last analyzed — and not in between; names that are not plain table names are refused. The housekeeping tick does the
 * same for every table of the embedded database (PGlite never analyzes on its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { refreshEmbeddedStatistics, refreshPlannerStatistics } from '../../sync-server/src/platform/db/statistics.ts';
import { seedLargeCatalog } from '../support/large-catalog.ts';
import { startTestServer } from '../support/server.ts';
import { databaseTargets } from '../support/databases.ts';

describe.each(databaseTargets())('planner statistics on $name', (target) => {
  let db: Db;
  let inserted = 0;
  beforeAll(async () => {
    db = await target.openMigrated();
    // The test decides when the table is analyzed, not PostgreSQL's autovacuum.
    await db.exec(
      `ALTER TABLE catalog_items SET (autovacuum_enabled = false); INSERT INTO merchants (id, name, currency) VALUES ('mer_stats', 'Stats', 'USD')`,
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  /** Inserts `n` items; the database's change counts are flushed with the commit. */
  const insertItems = (n: number) =>
    db.transaction(async (tx) => {
      const ids = Array.from({ length: n }, (_, i) => `itm_stats_${inserted + i}`);
      inserted += n;
      await tx.query(
        `INSERT INTO catalog_items (merchant_id, id, data, sync_seq) SELECT 'mer_stats', id, jsonb_build_object('id', id), nextval('sync_seq') FROM unnest($1::text[]) AS t(id)`,
        [ids],
      );
      await tx.query('SELECT pg_stat_force_next_flush()');
    });
  const analyzedRows = async () =>
    Number((await db.query<{ n: number }>(`SELECT reltuples AS n FROM pg_class WHERE oid = 'catalog_items'::regclass`)).rows[0]!.n);

  it('analyzes a growing table after 500 changed rows, then each time it has more than doubled, and not in between', async () => {
    await insertItems(300);
    expect(await refreshPlannerStatistics(db, ['catalog_items'])).toEqual([]);
    await insertItems(300);
    expect(await refreshPlannerStatistics(db, ['catalog_items'])).toEqual(['catalog_items']);
    expect(await analyzedRows()).toBe(600);
    expect(await refreshPlannerStatistics(db, ['catalog_items'])).toEqual([]);
    await insertItems(550); // 550 changed rows: fewer than the 600 analyzed
    expect(await refreshPlannerStatistics(db, ['catalog_items'])).toEqual([]);
    await insertItems(100);
    expect(await refreshPlannerStatistics(db, ['catalog_items', 'catalog_handles'])).toEqual(['catalog_items']);
    expect(await analyzedRows()).toBe(1250);
  });

  it('refreshes every grown table of the embedded database from the housekeeping tick (PostgreSQL analyzes on its own)', async () => {
    await insertItems(1300); // more than the 1,250 rows analyzed last
    const analyzed = await refreshEmbeddedStatistics(db);
    if (target.name === 'pglite') {
      expect(analyzed).toContain('catalog_items');
      expect(await analyzedRows()).toBe(2550);
      expect(await refreshEmbeddedStatistics(db)).toEqual([]);
    } else expect(analyzed).toEqual([]);

    const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
    try {
      await seedLargeCatalog(server.db, server.credentials.merchantId, 600);
      // The database's change counts reach pg_stat_all_tables when the backend flushes them: now.
      await server.db.transaction((tx) => tx.query('SELECT pg_stat_force_next_flush()'));
      const report = await server.app.recurringInvoices.runOnce();
      if (target.name === 'pglite') expect(report.analyzedTables).toContain('catalog_items');
      else expect(report.analyzedTables).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('refuses a name that is not a plain table name', async () => {
    await expect(refreshPlannerStatistics(db, ['catalog_items; DROP TABLE merchants'])).rejects.toThrow(/not a table name/);
  });
});
