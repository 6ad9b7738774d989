import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

/** The sync server's source root (`sync-server/src`), found from this file so tsx, tests and scripts agree. */
const SERVER_SRC = fileURLToPath(new URL('../..', import.meta.url));

const MIGRATION_NAME = /^\d{4}_[a-z0-9_]+\.sql$/;

/** One migration file: its name (what `schema_migrations` records) and where it lives. */
export interface MigrationFile {
  name: string;
  path: string;
}

/** The `.sql` migration files directly in `dir`; none when the folder does not exist. */
async function filesIn(dir: string): Promise<MigrationFile[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return names.filter((name) => MIGRATION_NAME.test(name)).map((name) => ({ name, path: join(dir, name) }));
}

/**
 * Every migration of the server in one order: the files of `platform/db/migrations` (the platform's tables and
 * migrations that touch several modules), `kernel/migrations` and each `modules/<name>/migrations`, sorted by name
 * (their four-digit number first) across all folders.
 * @throws Error when two files share a number, wherever they live.
 */
export async function migrationFiles(root = SERVER_SRC): Promise<MigrationFile[]> {
  const modules = await readdir(join(root, 'modules'), { withFileTypes: true });
  const dirs = [
    join(root, 'platform/db/migrations'),
    join(root, 'kernel/migrations'),
    ...modules.filter((entry) => entry.isDirectory()).map((entry) => join(root, 'modules', entry.name, 'migrations')),
  ];
  const files = (await Promise.all(dirs.map(filesIn))).flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.name.slice(0, 4) === files[i - 1]!.name.slice(0, 4)) {
      const [a, b] = [files[i - 1]!, files[i]!].map((f) => relative(root, f.path));
      throw new Error(`two migrations are numbered ${files[i]!.name.slice(0, 4)}: ${a} and ${b}`);
    }
  }
  return files;
}

/**
 * Applies the server's SQL migrations (`0001_init.sql`, …; gathered by `migrationFiles` from the platform, the kernel
 * and the modules) in name order, each in its own transaction, recording their names in `schema_migrations`. One set
 * serves PGlite and PostgreSQL. Several instances starting at once are serialised by an advisory lock, so each file
 * runs exactly once. Returns the names applied now.
 * @throws Error when two files share a number.
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = await migrationFiles();
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  // Files recorded already are skipped without a transaction each (a database that is up to date, or cloned from
  // one, is checked in one query); the rest are checked again under the lock.
  const done = new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.name)) continue;
    const sql = await readFile(file.path, 'utf8');
    // Not a mutation: a schema migration, under its own advisory lock, before any merchant's write.
    const didApply = await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('register:migrations')) AS locked`);
      const { rows } = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [file.name]);
      if (rows.length > 0) return false;
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file.name]);
      return true;
    });
    if (didApply) applied.push(file.name);
  }
  return applied;
}
