import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPgliteDb, openPostgresDb, type Db } from '../../sync-server/src/platform/db/db.ts';

/**
 * The databases server suites run against: always PGlite in memory; PostgreSQL too when
 * TEST_DATABASE_URL is set (e.g. postgres://postgres@127.0.0.1:5432/postgres). Each `open()` gives a fresh, empty
 * database: for PostgreSQL a new `reg_test_<random>` database, dropped when the returned Db is closed.
 *
 *     describe.each(databaseTargets())('… on $name', (target) => { … await target.open() … });
 */
export interface DatabaseTarget {
  name: 'pglite' | 'postgres';
  open(): Promise<Db>;
}

export function databaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [{ name: 'pglite', open: () => openPgliteDb() }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) targets.push({ name: 'postgres', open: () => openFreshPostgres(url) });
  return targets;
}

/**
 * A new empty PostgreSQL database `reg_test_<random>` on the server of `adminUrl`: its `url`, and `drop()` (forces
 * connections off). For suites that open several pools on one database (several server instances).
 */
export async function createFreshPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `reg_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

async function openFreshPostgres(adminUrl: string): Promise<Db> {
  const fresh = await createFreshPostgresDatabase(adminUrl);
  const db = await openPostgresDb(fresh.url, { max: 5 });
  const close = db.close.bind(db);
  return {
    ...db,
    engine: db.engine,
    query: db.query,
    exec: db.exec,
    transaction: db.transaction,
    async close() {
      await close();
      await fresh.drop();
    },
  };
}
