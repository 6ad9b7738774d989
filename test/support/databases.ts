import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { openPgliteDb, openPostgresDb, type Db } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';

/**
 * The databases server suites run against: always PGlite in memory; PostgreSQL too when
 * TEST_DATABASE_URL is set (e.g. postgres://postgres@127.0.0.1:5432/postgres). Each `open()` gives a fresh, empty
 * database: for PostgreSQL a new `reg_test_<random>` database, dropped when the returned Db is closed.
 *
 *     describe.each(databaseTargets())('… on $name', (target) => { … await target.open() … });
 */
export interface DatabaseTarget {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database. */
  open(): Promise<Db>;
  /**
   * A fresh database with every migration applied: a copy of the one the run's global setup migrated
   * (test/support/global-setup.ts) — PGlite loaded from its data directory's tarball, PostgreSQL created from its
   * template — or, outside a vitest run, an empty one migrated here. Targets a suite builds itself (a PGlite on disk)
   * may leave it out: `startTestServer` then opens and migrates.
   */
  openMigrated?(): Promise<Db>;
}

export function databaseTargets(): Required<DatabaseTarget>[] {
  const targets: Required<DatabaseTarget>[] = [{ name: 'pglite', open: () => openPgliteDb(), openMigrated: openMigratedPglite }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) targets.push({ name: 'postgres', open: () => openFreshPostgres(url), openMigrated: () => openMigratedPostgres(url) });
  return targets;
}

/** The global setup's PGlite tarball, read once per process. */
let pgliteSnapshot: Promise<Blob> | undefined;

async function openMigratedPglite(): Promise<Db> {
  const path = process.env.REGISTER_TEST_PGLITE_SNAPSHOT;
  if (!path) {
    const db = await openPgliteDb();
    await migrate(db);
    return db;
  }
  pgliteSnapshot ??= readFile(path).then((bytes) => new Blob([bytes]));
  return openPgliteDb(undefined, { loadDataDir: await pgliteSnapshot });
}

async function openMigratedPostgres(adminUrl: string): Promise<Db> {
  const template = process.env.REGISTER_TEST_PG_TEMPLATE;
  if (!template) {
    const db = await openFreshPostgres(adminUrl);
    await migrate(db);
    return db;
  }
  return openFreshPostgres(adminUrl, template);
}

/**
 * A new PostgreSQL database `reg_test_<random>` on the server of `adminUrl`, empty or a copy of the database
 * `template`: its `name`, `url`, and `drop()` (forces connections off). For suites that open several pools on one
 * database (several server instances), and the global setup's migrated template.
 */
export async function createFreshPostgresDatabase(
  adminUrl: string,
  template?: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `reg_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
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

async function openFreshPostgres(adminUrl: string, template?: string): Promise<Db> {
  const fresh = await createFreshPostgresDatabase(adminUrl, template);
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
