/**
 * Runs once before the test files (vitest.config.ts `globalSetup`): migrates the database every server suite starts
 * from once per run, instead of once for each database a test opens (a PGlite's start and migrations took about 3.5 s,
 * a PostgreSQL database's migrations about 2 s):
 * - PGlite: a migrated data directory, as the tarball PGlite's `dumpDataDir` writes, in a temporary folder;
 * - PostgreSQL (when TEST_DATABASE_URL is set): a migrated database (`createFreshPostgresDatabase`) used as the template
 *   of each new one, so nobody stays connected to it.
 * Their places reach the test files' processes in `REGISTER_TEST_PGLITE_SNAPSHOT` and `REGISTER_TEST_PG_TEMPLATE`
 * (read by test/support/databases.ts); both are removed when the run ends.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { openPostgresDb, pgliteDb } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import { createFreshPostgresDatabase } from './databases.ts';

/** Builds the migrated starting points; answers the teardown that removes them. */
export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'register-test-db-'));
  const pglite = new PGlite({ extensions: { btree_gist } });
  await pglite.waitReady;
  await migrate(pgliteDb(pglite));
  const snapshot = join(dir, 'pglite-migrated.tar');
  await writeFile(snapshot, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await pglite.close();
  process.env.REGISTER_TEST_PGLITE_SNAPSHOT = snapshot;

  const adminUrl = process.env.TEST_DATABASE_URL;
  const template = adminUrl ? await createFreshPostgresDatabase(adminUrl) : undefined;
  if (template) {
    const db = await openPostgresDb(template.url, { max: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    process.env.REGISTER_TEST_PG_TEMPLATE = template.name;
  }

  return async () => {
    await rm(dir, { recursive: true, force: true });
    await template?.drop();
  };
}
