/**
 * `POST /api/signup`: a store owner signs up; the new store is ready to sell with an empty catalog, its owner
 * signs in with the PIN given, it is not the demo store (money movement runs to the end), bad input is a 400 naming
 * the field and writes nothing, and the route is metered per address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const store = {
  storeName: 'Corner Hardware',
  country: 'ca',
  currency: 'cad',
  timeZone: 'America/Toronto',
  ownerName: 'Camille Owner',
  ownerEmail: 'camille@corner.example',
  ownerPin: '864209',
};

describe.each(databaseTargets())('sign-up on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    const roomy = () => new RateLimit({ name: 'signup', quota: 1_000, windowSeconds: 3600 });
    server = await startTestServer({ target, staticDir: null, signUpRateLimits: { perClient: roomy(), global: roomy() } });
  });
  afterAll(async () => {
    await server?.close();
  });
  const post = (body: unknown) =>
    server.app.inject({ method: 'POST', url: '/api/signup', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const merchants = async () => Number((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM merchants')).rows[0]!.n);

  it('creates a store ready to sell: settings as given, owner signed in with a token and, on a register, with the PIN', async () => {
    const res = await post(store);
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<{ merchantId: string; staffId: string; staffToken: string; expiresAt: string }>();
    expect(made.merchantId).toMatch(/^mer_/);
    const auth = { authorization: `Bearer ${made.staffToken}` };
    const settings = (await server.app.inject({ method: 'GET', url: '/api/pos/settings', headers: auth })).json();
    expect(settings).toMatchObject({ timeZone: 'America/Toronto', defaultCountry: 'CA' });
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/catalog', headers: auth })).json().data).toEqual([]);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/catalog/locations', headers: auth })).json().data).toHaveLength(1);
    const tb = (await server.app.inject({ method: 'GET', url: '/api/pos/ledger/trial-balance', headers: auth })).json();
    expect(tb.accounts.length).toBeGreaterThan(5);
    // Sell: a custom-priced item, paid in cash, in the store's currency.
    const item = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/items',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Hammer', category: 'Tools', variations: [{ name: 'Each', priceCents: 1999 }] }),
    });
    expect(item.statusCode, item.body).toBe(201);
    const order = await server.app.inject({
      method: 'POST',
      url: '/api/pos/orders',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ lineItems: [{ catalogItemId: item.json().id, variationId: item.json().variations[0].id, quantity: 1 }] }),
    });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json().currency).toBe('CAD');
    // The owner's PIN signs in on a register paired with the new store.
    const register = await enrollRegister(server, made.staffToken);
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/register/sign-in',
      headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ staffId: made.staffId, pin: store.ownerPin }),
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    // Not the demo: a payout is not refused as money movement (it may find nothing to pay out).
    const payout = await server.app.inject({
      method: 'POST',
      url: '/api/pos/payouts',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'p1' },
      payload: '{}',
    });
    expect(payout.json().code).not.toBe('money_movement_disabled');
    // Audited in the new store's own chain.
    const { rows } = await server.db.query<{ action: string }>('SELECT action FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [made.merchantId]);
    expect(rows.map((r) => r.action).slice(0, 2)).toEqual(['merchant.created', 'staff.created']);
    expect(JSON.stringify(rows)).not.toContain(store.ownerPin);
  });

  it('refuses bad input with a problem naming each field, and stores nothing', async () => {
    const before = await merchants();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...store, currency: 'XYZ' }, 'currency'],
      [{ ...store, country: 'ZZ' }, 'country'],
      [{ ...store, timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ ...store, ownerPin: '12' }, 'ownerPin'],
      [{ ...store, ownerEmail: 'not-an-email' }, 'ownerEmail'],
      [{ ...store, storeName: '  ' }, 'storeName'],
      [{ ...store, isDemo: true }, 'isDemo'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    expect(await merchants()).toBe(before);
  });
});

describe('sign-up quota', () => {
  it('answers 429 with Retry-After beyond the per-address quota', async () => {
    const server = await startTestServer({ staticDir: null });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await server.app.inject({
          method: 'POST',
          url: '/api/signup',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ ...store, ownerEmail: `o${i}@corner.example` }),
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(statuses.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
      expect(statuses.slice(5)).toEqual([429, 429]);
    } finally {
      await server.close();
    }
  });
});
