import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import { catalogItemSchema, taxRateSchema } from '../../core/index.ts';
import { migrate, migrationFiles } from '../../sync-server/src/platform/db/migrate.ts';
import { issueAppToken } from '../../sync-server/src/platform/auth/identity.ts';
import { LedgerConflictError, postJournalTransaction } from '../../sync-server/src/kernel/ledger.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** GTIN check digit (GS1 mod-10). */
function hasValidCheckDigit(gtin: string): boolean {
  const digits = [...gtin].map(Number);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

describe('demo catalog', () => {
  it('is valid in the core shapes, with real GTIN check digits and every category', () => {
    for (const item of DEMO_CATALOG_ITEMS) expect(catalogItemSchema.safeParse(item).success, item.id).toBe(true);
    for (const rate of DEMO_TAX_RATES) expect(taxRateSchema.safeParse(rate).success).toBe(true);
    const gtins = DEMO_CATALOG_ITEMS.flatMap((i) => i.variations.flatMap((v) => (v.gtin ? [v.gtin] : [])));
    expect(gtins.length).toBeGreaterThanOrEqual(4);
    for (const g of gtins) expect(hasValidCheckDigit(g), g).toBe(true);
    expect(new Set(DEMO_CATALOG_ITEMS.map((i) => i.category))).toEqual(new Set(['Coffee', 'Bakery', 'Retail', 'Salon']));
    const latte = DEMO_CATALOG_ITEMS.find((i) => i.id === 'itm_latte')!;
    expect(latte.modifierLists.map((l) => [l.name, l.minSelected, l.maxSelected])).toEqual([
      ['Size', 1, 1],
      ['Extras', 0, 3],
    ]);
  });
});

describe.each(databaseTargets())('platform on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  describe('migrations and seed', () => {
    it('applied every migration once; a second run applies nothing', async () => {
      const { rows } = await server.db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(rows.map((r) => r.name)).toContain('0001_init.sql');
      // The names recorded are those gathered from the platform's, the kernel's and the modules' folders, each once.
      expect(rows.map((r) => r.name)).toEqual((await migrationFiles()).map((f) => f.name));
      expect(await migrate(server.db)).toEqual([]);
    });

    it('seeds the demo store idempotently', async () => {
      const count = async (table: string) => Number((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n);
      const before = {
        merchants: await count('merchants'),
        items: await count('catalog_items'),
        tokens: await count('app_tokens'),
        accounts: await count('accounts'),
      };
      const again = await seedDemoStore(server.db);
      expect(again.merchantId).toBe(server.credentials.merchantId);
      expect(again.created).toBe(false);
      expect(again.appToken).toBeUndefined();
      expect({
        merchants: await count('merchants'),
        items: await count('catalog_items'),
        tokens: await count('app_tokens'),
        accounts: await count('accounts'),
      }).toEqual(before);
      expect(before.items).toBe(DEMO_CATALOG_ITEMS.length);
    });

    it('refuses to change or delete ledger rows and unbalanced journal transactions', async () => {
      await expect(
        server.db.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO journal_transactions (id, merchant_id, kind, source_type, source_id, register_id, occurred_at, memo, currency, sync_seq)
             VALUES ('jtx_UNBALANCED', $1, 'adjustment', 'manual', 'x', NULL, now(), 'bad', 'USD', nextval('sync_seq'))`,
            [server.credentials.merchantId],
          );
          const acc = (
            await tx.query<{ id: string }>(`SELECT id FROM accounts WHERE merchant_id = $1 AND code = 'bank'`, [server.credentials.merchantId])
          ).rows[0]!;
          await tx.query(
            `INSERT INTO postings (id, journal_transaction_id, line_no, account_id, amount_cents) VALUES ('pst_x', 'jtx_UNBALANCED', 0, $1, 100)`,
            [acc.id],
          );
        }),
      ).rejects.toThrow(/not balanced/);
      expect((await server.db.query(`SELECT 1 FROM journal_transactions WHERE id = 'jtx_UNBALANCED'`)).rows).toHaveLength(0);
      const jt = {
        id: 'jtx_01J0000000000000000000TEST',
        kind: 'adjustment' as const,
        sourceType: 'manual' as const,
        sourceId: 'test',
        registerId: null,
        currency: 'USD',
        occurredAt: '2026-01-02T03:04:05.000Z',
        memo: 'opening float',
        postings: [
          { accountCode: 'cash_drawer:R9', amountCents: 10_000 },
          { accountCode: 'bank', amountCents: -10_000 },
        ],
      };
      expect(await server.db.transaction((tx) => postJournalTransaction(tx, server.credentials.merchantId, jt))).toMatchObject({ created: true });
      expect(await server.db.transaction((tx) => postJournalTransaction(tx, server.credentials.merchantId, jt))).toMatchObject({ created: false });
      await expect(
        server.db.transaction((tx) =>
          postJournalTransaction(tx, server.credentials.merchantId, {
            ...jt,
            postings: [
              { accountCode: 'bank', amountCents: 5 },
              { accountCode: 'cash_drawer:R9', amountCents: -5 },
            ],
          }),
        ),
      ).rejects.toThrow(LedgerConflictError);
      await expect(server.db.query(`DELETE FROM journal_transactions WHERE id = $1`, [jt.id])).rejects.toThrow(/append-only/);
      await expect(server.db.query(`UPDATE postings SET amount_cents = 1 WHERE journal_transaction_id = $1`, [jt.id])).rejects.toThrow(/append-only/);
      await expect(server.db.query(`DELETE FROM postings WHERE journal_transaction_id = $1`, [jt.id])).rejects.toThrow(/append-only/);
      const accounts = await server.db.query<{ code: string; type: string }>(
        `SELECT code, type FROM accounts WHERE merchant_id = $1 AND code = 'cash_drawer:R9'`,
        [server.credentials.merchantId],
      );
      expect(accounts.rows).toEqual([{ code: 'cash_drawer:R9', type: 'asset' }]);
    });
  });

  describe('authentication', () => {
    it('serves the JWKS with the signing key', async () => {
      const res = await get('/.well-known/jwks.json');
      expect(res.statusCode).toBe(200);
      const jwks = res.json<{ keys: { kty: string; crv: string; alg: string; d?: string }[] }>();
      expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
      expect(jwks.keys[0]!.d).toBeUndefined();
    });

    it('401 without a token, with garbage, expired or foreign-signed tokens', async () => {
      const foreignKey = await generateKeyPair('ES256');
      const foreign = await new SignJWT({ merchant_id: server.credentials.merchantId, role: 'owner' })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(server.baseUrl)
        .setAudience('register-pos')
        .setSubject(server.credentials.staffId)
        .setExpirationTime('1h')
        .sign(foreignKey.privateKey);
      const expired = await server.issueStaffToken({ ttlSeconds: -60 });
      const cases: [string, string | undefined][] = [
        ['none', undefined],
        ['garbage', 'not-a-token'],
        ['unknown app token', 'rpa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        ['expired', expired],
        ['wrong signature', foreign],
      ];
      for (const [label, token] of cases) {
        for (const url of ['/api/pos/catalog', '/api/pos/orders', '/api/sync/orders/pull', '/api/pos/audit/verify']) {
          const res = await get(url, token);
          expect(res.statusCode, `${label} ${url}`).toBe(401);
          expect(res.headers['content-type']).toContain('application/problem+json');
          expect(res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
        }
      }
      const scheme = await server.app.inject({ method: 'GET', url: '/api/pos/catalog', headers: { authorization: 'Basic abc' } });
      expect(scheme.statusCode).toBe(401);
    });

    it('403 for an app token without the scope, and for apps on staff-only routes', async () => {
      const limited = await server.db.transaction((tx) =>
        issueAppToken(tx, { merchantId: server.credentials.merchantId, appName: 'Catalog viewer', scopes: ['catalog:read'] }),
      );
      expect((await get('/api/pos/catalog', limited.token)).statusCode).toBe(200);
      const orders = await get('/api/pos/orders', limited.token);
      expect(orders.statusCode).toBe(403);
      expect(orders.json()).toMatchObject({ code: 'insufficient_scope', status: 403 });
      const pay = await server.app.inject({
        method: 'POST',
        url: '/api/pos/pay-requests',
        headers: { authorization: `Bearer ${limited.token}` },
        payload: { amountCents: 100, phone: '+14155550123' },
      });
      expect(pay.statusCode).toBe(403);
      expect(pay.json().detail).toContain('pay:create');
      for (const url of ['/api/pos/ledger/trial-balance', '/api/pos/audit/verify', '/api/pos/sms-outbox', '/api/sync/orders/pull']) {
        const res = await get(url, server.credentials.appToken);
        expect(res.statusCode, url).toBe(403);
        expect(res.json().code).toBe('staff_only');
      }
      expect((await get('/api/pos/orders', server.credentials.appToken)).statusCode).toBe(200);
    });

    it('a revoked app token is refused', async () => {
      const t = await server.db.transaction((tx) =>
        issueAppToken(tx, { merchantId: server.credentials.merchantId, appName: 'Gone', scopes: ['catalog:read'] }),
      );
      await server.db.query('UPDATE app_tokens SET revoked_at = now() WHERE id = $1', [t.id]);
      expect((await get('/api/pos/catalog', t.token)).statusCode).toBe(401);
    });
  });

  describe('problem responses', () => {
    const post = (url: string, payload: string | undefined, headers: Record<string, string>) =>
      server.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${server.credentials.staffToken}`, ...headers } });

    it('bad JSON → 400, wrong content type → 415, body over 1 MiB → 413, unknown route → 404', async () => {
      const bad = await post('/api/pos/pay-requests', '{"amountCents": ', { 'content-type': 'application/json' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'invalid_json', status: 400 });
      const text = await post('/api/pos/pay-requests', 'amountCents=5', { 'content-type': 'text/plain' });
      expect(text.statusCode).toBe(415);
      expect(text.headers['content-type']).toContain('application/problem+json');
      const huge = await post('/api/pos/pay-requests', JSON.stringify({ memo: 'x'.repeat(1024 * 1024 + 10) }), {
        'content-type': 'application/json',
      });
      expect(huge.statusCode).toBe(413);
      expect(huge.json().code).toBe('body_too_large');
      const missing = await get('/api/pos/nope', server.credentials.staffToken);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ type: expect.stringContaining('not_found'), title: 'Not Found', status: 404 });
    });

    it('query strings are validated, unknown parameters refused', async () => {
      for (const url of [
        '/api/pos/catalog?limit=0',
        '/api/pos/catalog?limit=201',
        '/api/pos/catalog?limit=abc',
        '/api/pos/catalog?bogus=1',
        '/api/pos/catalog?cursor=%%%',
        '/api/pos/orders?registerId=nope',
      ]) {
        const res = await get(url, server.credentials.staffToken);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().errors.length, url).toBeGreaterThan(0);
      }
    });

    it('426 for a register older than the server schema, 400 for a malformed version', async () => {
      const old = await get('/api/sync/orders/pull', server.credentials.staffToken, { 'x-register-schema-version': '0' });
      expect(old.statusCode).toBe(426);
      expect(old.json().code).toBe('register_too_old');
      expect((await get('/api/sync/orders/pull', server.credentials.staffToken, { 'x-register-schema-version': 'one' })).statusCode).toBe(400);
      expect((await get('/api/sync/orders/pull', server.credentials.staffToken, { 'x-register-schema-version': '1' })).statusCode).toBe(200);
    });
  });
});

describe('app rate limit', () => {
  it('meters app tokens per merchant and app with RateLimit headers and a 429 quota-exceeded problem; staff are not metered', async () => {
    const { RateLimit } = await import('../../sync-server/src/platform/rate-limit.ts');
    const server = await startTestServer({ staticDir: null, appRateLimit: new RateLimit({ name: 'app', quota: 3, windowSeconds: 60 }) });
    try {
      const get = (token: string) =>
        server.app.inject({ method: 'GET', url: '/api/pos/catalog?limit=1', headers: { authorization: `Bearer ${token}` } });
      const first = await get(server.credentials.appToken);
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-policy']).toBe('"app";q=3;w=60');
      expect(first.headers['ratelimit']).toMatch(/^"app";r=2;t=\d+$/);
      expect(first.headers['ratelimit-remaining']).toBe('2');
      await get(server.credentials.appToken);
      await get(server.credentials.appToken);
      const limited = await get(server.credentials.appToken);
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.headers['content-type']).toContain('application/problem+json');
      expect(limited.json()).toMatchObject({ status: 429, type: expect.stringContaining('quota-exceeded') });
      const staff = await get(server.credentials.staffToken);
      expect(staff.statusCode).toBe(200);
      expect(staff.headers['ratelimit']).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
