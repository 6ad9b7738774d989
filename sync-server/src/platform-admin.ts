/**
 * `npm run platform-admin -- --email <e-mail> --name <name>`: adds a platform admin — an app reviewer of the developer
 * program, platform staff and never a merchant's — and prints their bearer token (`rpp_…`) once; only its
 * SHA-256 is stored (`platform_admins`). Exits 2 on a usage or set-up error (e.g. the e-mail is an admin already).
 *
 * The deployment's messaging credentials, kept sealed with the key-encryption key (platform/deployment-secrets.ts,
 * docs/decisions/0093-deployment-secrets-sealed.md):
 * - `npm run platform-admin -- secrets set <NAME>` reads the value from standard input — never from the command line,
 *   where shell history and `ps` would keep it — up to its end (one trailing line break dropped), seals it with the KEK
 *   (`REGISTER_KEK`, else `DATA_DIR/kek.key`: the server's key; none is created here) and stores it;
 *   e.g. `printf %s "$TOKEN" | npm run platform-admin -- secrets set SMS_AUTH_TOKEN` or `… secrets set DKIM_PRIVATE_KEY < dkim.pem`;
 * - `secrets list`: each name, its last change and whether it opens with this KEK — never a value;
 * - `secrets unset <NAME>`.
 * Names: SMTP_URL, DKIM_PRIVATE_KEY, SMS_…_SID / _TOKEN / _KEY / _SECRET. The server reads them at its next start.
 *
 * Database: `DATABASE_URL` (PostgreSQL), else PGlite in `DATA_DIR/pglite` (default ./data; stop the server first:
 * PGlite has one process at a time). Migrations are applied first.
 */
import { hostname, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { addPlatformAdmin } from './modules/apps/index.ts';
import { openDb, type Db } from './platform/db/db.ts';
import { migrate } from './platform/db/migrate.ts';
import { assertDeploymentSecretName, listDeploymentSecrets, setDeploymentSecret, unsetDeploymentSecret } from './platform/deployment-secrets.ts';
import { loadKek, SecretBox } from './platform/secrets.ts';

const SECRETS_USAGE = 'usage: npm run platform-admin -- secrets set <NAME> (the value on standard input) | secrets unset <NAME> | secrets list';

/** Who ran the command, for the secrets' trail: `operator:<user>@<host>`. */
function operator(): string {
  let user = process.env.USER ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (a container): keep $USER
  }
  return `operator:${user}@${hostname()}`;
}

/** Standard input to its end, one trailing line break dropped (`echo` adds one; a PEM file ends with one). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Type or paste the value, then press Ctrl-D on a new line:\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** `secrets set|unset|list`; returns the exit code. */
async function secrets(db: Db, args: string[], dataDir: string): Promise<number> {
  const [command, name, ...rest] = args;
  if (rest.length > 0 || (command === 'list' ? name !== undefined : !name) || !['set', 'unset', 'list'].includes(command ?? '')) {
    const hint = command === 'set' && rest.length > 0 ? ' — the value is read from standard input, never from the command line' : '';
    throw new Error(`${SECRETS_USAGE}${hint}`);
  }
  if (command === 'list') {
    const kek = await loadKek({ env: process.env, dataDir, create: false }).catch(() => undefined);
    const rows = await listDeploymentSecrets(db, kek ? new SecretBox(kek.key) : undefined);
    if (rows.length === 0) console.log('No sealed deployment secrets.');
    for (const row of rows) {
      const opens = row.opens === undefined ? 'no KEK here to check it' : row.opens ? 'opens with this KEK' : 'does NOT open with this KEK';
      console.log(`${row.name.padEnd(24)} ${row.updatedAt.toISOString()}  ${opens}`);
    }
    return 0;
  }
  assertDeploymentSecretName(name!);
  if (command === 'unset') {
    if (!(await unsetDeploymentSecret(db, { name: name!, actor: operator() }))) throw new Error(`no sealed secret named ${name}`);
    console.log(`${name} removed; the server uses it no more from its next start.`);
    return 0;
  }
  const kek = await loadKek({ env: process.env, dataDir, create: false });
  const value = await readStdin();
  await setDeploymentSecret(db, { name: name!, value, actor: operator() }, new SecretBox(kek.key));
  console.log(`${name} sealed with ${kek.source} and stored; the server uses it from its next start.`);
  return 0;
}

async function main(): Promise<number> {
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const args = process.argv.slice(2);
  if (args[0] === 'secrets') {
    const db = await openDb(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { pgliteDir: join(dataDir, 'pglite') });
    try {
      await migrate(db);
      return await secrets(db, args.slice(1), dataDir);
    } finally {
      await db.close();
    }
  }
  const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email) || !values.name?.trim())
    throw new Error('usage: npm run platform-admin -- --email <e-mail> --name <name>');
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
