/**
 * `npm run platform-admin -- --email <e-mail> --name <name>`: adds a platform admin — an app reviewer of the developer
 * program, platform staff and never a merchant's — and prints their bearer token (`rpp_…`) once; only its
 * SHA-256 is stored (`platform_admins`). Exits 2 on a usage or set-up error (e.g. the e-mail is an admin already).
 *
 * Database: `DATABASE_URL` (PostgreSQL), else PGlite in `DATA_DIR/pglite` (default ./data; stop the server first:
 * PGlite has one process at a time). Migrations are applied first.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { addPlatformAdmin } from './modules/apps/index.ts';
import { openDb } from './platform/db/db.ts';
import { migrate } from './platform/db/migrate.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email) || !values.name?.trim())
    throw new Error('usage: npm run platform-admin -- --email <e-mail> --name <name>');
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const db = await openDb(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { pgliteDir: join(dataDir, 'pglite') });
  try {
    await migrate(db);
    const { adminId, token } = await addPlatformAdmin(db, { email: values.email, name: values.name.trim() });
    console.log(JSON.stringify({ adminId, email: values.email.toLowerCase(), token }));
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`platform-admin: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
