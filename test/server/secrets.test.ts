import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../sync-server/src/app.ts';
import { IdentityProvider, STAFF_AUDIENCE } from '../../sync-server/src/platform/auth/identity.ts';
import { KEK_BYTES, loadKek, SecretBox, SecretBoxError, secretBox } from '../../sync-server/src/platform/secrets.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The identity provider's private signing key and the webhook secrets are stored sealed with a
 * key-encryption key held outside the database (platform/secrets.ts); rows from before migration 0095 are sealed on
 * start; a dump alone signs nothing.
 */

describe('loadKek: REGISTER_KEK, else DATA_DIR/kek.key, generated on the first start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kek-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('generates kek.key (32 bytes, base64, mode 0600) once and reads the same key after', async () => {
    await expect(loadKek({ env: {}, dataDir: dir, create: false })).rejects.toThrow(/REGISTER_KEK/);
    const first = await loadKek({ env: {}, dataDir: dir, create: true });
    expect(first.key).toHaveLength(KEK_BYTES);
    expect(first.source).toMatch(/kek\.key \(generated\)$/);
    const file = join(dir, 'kek.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64').equals(first.key)).toBe(true);
    const again = await loadKek({ env: {}, dataDir: dir, create: true });
    expect(again.key.equals(first.key)).toBe(true);
  });

  it('prefers REGISTER_KEK and refuses a key that is not 32 bytes of base64', async () => {
    const key = randomBytes(32);
    const loaded = await loadKek({ env: { REGISTER_KEK: key.toString('base64') }, dataDir: dir, create: true });
    expect(loaded).toEqual({ key, source: 'REGISTER_KEK' });
    await expect(loadKek({ env: { REGISTER_KEK: randomBytes(16).toString('base64') }, dataDir: dir, create: true })).rejects.toThrow(RangeError);
    await expect(loadKek({ env: { REGISTER_KEK: 'not a key at all!' }, dataDir: dir, create: true })).rejects.toThrow(RangeError);
  });
});

describe('SecretBox (AES-256-GCM, the row as additional data)', () => {
  const box = new SecretBox(randomBytes(32));
  it('opens what it sealed, only with the same key, the same row and unedited bytes', () => {
    const sealed = box.seal('whsec_abc', 'webhook_subscriptions:whk_1');
    expect(sealed).toMatch(/^kek1\./);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc', 'webhook_subscriptions:whk_1')).not.toBe(sealed); // a fresh IV each time
    expect(box.open(sealed, 'webhook_subscriptions:whk_1')).toBe('whsec_abc');
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'webhook_subscriptions:whk_1')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'webhook_subscriptions:whk_2')).toThrow(SecretBoxError);
    const bytes = Buffer.from(sealed.slice(5), 'base64url');
    bytes[14]! ^= 1;
    expect(() => box.open(`kek1.${bytes.toString('base64url')}`, 'webhook_subscriptions:whk_1')).toThrow(SecretBoxError);
    expect(() => new SecretBox(randomBytes(16))).toThrow(RangeError);
  });
});

describe.each(databaseTargets())('secrets sealed in the database, on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const staffHeaders = () => ({ authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' });

  it('a dump alone signs nothing: the private key is sealed, and opens only with the KEK', async () => {
    const { rows } = await server.db.query<{ kid: string; private_jwk: unknown; private_jwk_sealed: string }>(
      'SELECT kid, private_jwk, private_jwk_sealed FROM signing_keys',
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.private_jwk).toBeNull();
    expect(row.private_jwk_sealed).not.toMatch(/"d"/);
    // Without the KEK: nothing opens, and the server does not start with another key (no silent new key either).
    const stranger = new SecretBox(randomBytes(32));
    expect(() => stranger.open(row.private_jwk_sealed, `signing_keys:${row.kid}`)).toThrow(SecretBoxError);
    await expect(IdentityProvider.load(server.db, server.baseUrl, stranger)).rejects.toThrow(SecretBoxError);
    // With it: the key that signs the staff tokens the server accepts.
    const jwk = JSON.parse(secretBox().open(row.private_jwk_sealed, `signing_keys:${row.kid}`)) as JWK;
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ merchant_id: server.credentials.merchantId, role: 'owner' })
      .setProtectedHeader({ alg: 'ES256', kid: row.kid })
      .setIssuer(server.baseUrl)
      .setAudience(STAFF_AUDIENCE)
      .setSubject(server.credentials.staffId)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(await importJWK(jwk, 'ES256'));
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/orders', headers: { authorization: `Bearer ${forged}` } })).statusCode).toBe(200);
  });

  it('webhook secrets are stored sealed, shown once, and used for signing', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/pos/webhooks',
      headers: staffHeaders(),
      payload: JSON.stringify({ url: 'https://example.com/h', eventTypes: ['order.created'] }),
    });
    expect(created.statusCode).toBe(201);
    const { id, secret } = created.json<{ id: string; secret: string }>();
    const row = (
      await server.db.query<{ secret: string | null; secret_sealed: string }>(
        'SELECT secret, secret_sealed FROM webhook_subscriptions WHERE id = $1',
        [id],
      )
    ).rows[0]!;
    expect(row.secret).toBeNull();
    expect(row.secret_sealed).not.toContain(secret);
    expect(secretBox().open(row.secret_sealed, `webhook_subscriptions:${id}`)).toBe(secret);
    const apps = (
      await server.db.query<{ webhook_secret: string | null; webhook_secret_sealed: string | null }>(
        'SELECT webhook_secret, webhook_secret_sealed FROM app_tokens WHERE id = $1',
        [server.credentials.appId],
      )
    ).rows[0]!;
    expect(apps.webhook_secret).toBeNull();
    expect(apps.webhook_secret_sealed).toMatch(/^kek1\./);
  });

  it('seals secrets stored in clear before migration 0095 on start, and they keep working', async () => {
    // Put every secret back in clear, as a server before 0095 stored them.
    const key = (await server.db.query<{ kid: string; private_jwk_sealed: string }>('SELECT kid, private_jwk_sealed FROM signing_keys')).rows[0]!;
    const jwk = secretBox().open(key.private_jwk_sealed, `signing_keys:${key.kid}`);
    await server.db.query('UPDATE signing_keys SET private_jwk = $2::jsonb, private_jwk_sealed = NULL WHERE kid = $1', [key.kid, jwk]);
    const legacy = `whsec_${randomBytes(24).toString('base64url')}`;
    await server.db.query('UPDATE app_tokens SET webhook_secret = $2, webhook_secret_sealed = NULL WHERE id = $1', [
      server.credentials.appId,
      server.credentials.webhookSecret,
    ]);
    const sub = (await server.db.query<{ id: string }>('SELECT id FROM webhook_subscriptions LIMIT 1')).rows[0]!;
    await server.db.query('UPDATE webhook_subscriptions SET secret = $2, secret_sealed = NULL WHERE id = $1', [sub.id, legacy]);

    const restarted = await buildApp({
      db: server.db,
      config: { baseUrl: server.baseUrl, staticDir: null },
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
    });
    try {
      const clear = await server.db.query<{ n: number }>(
        `SELECT ((SELECT count(*) FROM signing_keys WHERE private_jwk IS NOT NULL OR private_jwk_sealed IS NULL)
              + (SELECT count(*) FROM app_tokens WHERE webhook_secret IS NOT NULL)
              + (SELECT count(*) FROM webhook_subscriptions WHERE secret IS NOT NULL OR secret_sealed IS NULL))::int AS n`,
      );
      expect(clear.rows[0]!.n).toBe(0);
      // The same key still signs (the staff token from before verifies), the same secrets still open.
      expect((await restarted.inject({ method: 'GET', url: '/api/pos/orders', headers: staffHeaders() })).statusCode).toBe(200);
      const sealed = (await server.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhook_subscriptions WHERE id = $1', [sub.id]))
        .rows[0]!;
      expect(secretBox().open(sealed.secret_sealed, `webhook_subscriptions:${sub.id}`)).toBe(legacy);
      const byApp = await restarted.inject({
        method: 'POST',
        url: '/api/pos/webhooks',
        headers: { authorization: `Bearer ${server.credentials.appToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ url: 'https://example.com/app', eventTypes: ['order.created'] }),
      });
      expect(byApp.json().secret).toBe(server.credentials.webhookSecret);
    } finally {
      await restarted.close();
    }
  });
});
