import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

/** Timestamps in query parameters: ISO 8601 with an offset in −14:00 … +14:00 (core utcDateTime), read as UTC. */
describe.each(databaseTargets())('timestamp query parameters on $name', (target) => {
  let server: TestServer;
  let orderId: string;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/orders',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }] }),
    });
    expect(res.statusCode, res.body).toBe(201);
    orderId = res.json().id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = (url: string) => server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${server.credentials.staffToken}` } });
  const ids = async (query: string) => {
    const res = await get(`/api/pos/orders?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: { id: string }[] }>().data.map((o) => o.id);
  };

  it('refuses an offset of +16:00 or more on every list timestamp with a 400 naming the parameter', async () => {
    for (const [url, name] of [
      ['/api/pos/orders?createdFrom=2026-03-01T12:00:00%2B16:00', 'createdFrom'],
      ['/api/pos/orders?createdTo=2026-03-01T12:00:00%2B16:00', 'createdTo'],
      ['/api/pos/orders?createdFrom=2026-03-01T12:00:00-18:00', 'createdFrom'],
      ['/api/pos/catalog?updatedSince=2026-03-01T12:00:00%2B16:00', 'updatedSince'],
      ['/api/pos/catalog?updatedSince=2026-02-30T12:00:00Z', 'updatedSince'],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, `${url} ${res.body}`).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([name]);
      expect(res.json().detail).toContain(name);
    }
  });

  it('accepts +02:00 and reads it as the same instant in UTC', async () => {
    // The order was created at 12:00Z = 14:00+02:00.
    expect(await ids(`createdFrom=${encodeURIComponent('2026-03-01T13:59:59+02:00')}`)).toContain(orderId);
    expect(await ids(`createdFrom=${encodeURIComponent('2026-03-01T14:00:01+02:00')}`)).not.toContain(orderId);
    expect(await ids(`createdTo=${encodeURIComponent('2026-03-01T14:00:01+02:00')}`)).toContain(orderId);
    expect(await ids(`createdTo=${encodeURIComponent('2026-03-01T14:00:00+02:00')}`)).not.toContain(orderId);
    // The same instants spelt in UTC select the same orders.
    expect(await ids('createdFrom=2026-03-01T11:59:59Z&createdTo=2026-03-01T12:00:01Z')).toEqual(
      await ids(`createdFrom=${encodeURIComponent('2026-03-01T13:59:59+02:00')}&createdTo=${encodeURIComponent('2026-03-01T14:00:01+02:00')}`),
    );
    const catalog = await get(`/api/pos/catalog?updatedSince=${encodeURIComponent('2000-01-01T02:00:00+02:00')}&limit=200`);
    expect(catalog.statusCode, catalog.body).toBe(200);
    expect(catalog.json().data).toHaveLength(server.catalog.items.length);
  });
});
