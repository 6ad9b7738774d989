/**
 * Query strings of every route of the POS API (`/api/pos/*`) and the platform API (`/api/v1/*`), enumerated from the
 * routes the app registered (`recordedRoutes`), on each database:
 * - an unknown query parameter is a 400 problem naming it, on routes that take no query as on lists, and
 *   writes nothing (PATCH and DELETE routes included);
 * - random query strings — the route's own parameters with junk values, and forged `cursor`s (base64url JSON of odd
 *   sort keys: impossible dates like 2024-02-31, year 0, huge numbers, nested arrays) — are answered with a 2xx or a
 *   4xx problem, never a 5xx.
 * Every answer must be one the OpenAPI document (`/api/openapi.json`) states: a documented status, media type and
 * schema (test/support/openapi-conformance.ts), so the document cannot drift from the server.
 * Generated images (`image/png` routes) are left out: browsers may add a cache-busting query to a picture's URL.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedRoutes, type RegisteredRoute } from '../../sync-server/src/platform/http/route-doc.ts';
import { databaseTargets } from '../support/databases.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const RUNS = Number(process.env.QUERY_FUZZ_RUNS ?? 200);
const PREFIX_OF: Record<string, string> = {
  orders: 'ord',
  customers: 'cus',
  invoices: 'inv',
  'invoice-series': 'isr',
  'pay-requests': 'pr',
  webhooks: 'whs',
  items: 'itm',
  'tax-rates': 'tax',
};

describe.each(databaseTargets())('query strings of every route on $name', (target) => {
  let server: TestServer;
  let headers: Record<string, string>;
  let routes: RegisteredRoute[];
  let conformance: OpenApiConformance;
  const ids = new Map<string, string>();

  const post = async (url: string, body: unknown) => {
    const res = await server.app.inject({
      method: 'POST',
      url,
      payload: JSON.stringify(body),
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
    return res.json() as { id: string };
  };

  /** The route's URL with a real object's id for each path parameter (a category's name for categories). */
  const urlOf = (route: RegisteredRoute) =>
    route.url
      .split('/')
      .map((segment, i, all) =>
        segment === ':name' ? 'Bakery' : segment.startsWith(':') ? (ids.get(PREFIX_OF[all[i - 1] ?? ''] ?? '') ?? 'x_unknown') : segment,
      )
      .join('/');

  // Rate-limit counters (`rate_limits`, PostgreSQL only) are metering, not a write of the route: a refused request
  // still spends quota (the image API meters staff).
  const rowCounts = async () =>
    (
      await server.db.query<{ n: string }>(
        `SELECT sum((xpath('/row/n/text()', query_to_xml('SELECT count(*) AS n FROM "' || table_name || '"', false, true, '')))[1]::text::bigint) AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'rate_limits'`,
      )
    ).rows[0]!.n;

  beforeAll(async () => {
    server = await startTestServer({ target });
    headers = { authorization: `Bearer ${server.credentials.staffToken}` };
    conformance = await OpenApiConformance.of(server.app);
    routes = recordedRoutes(server.app).filter((r) => /^\/api\/(pos|v1)\//.test(r.url) && !r.doc?.produces?.every((t) => t.startsWith('image/')));
    const line = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 };
    const customer = await post('/api/pos/customers', { givenName: 'Query', phone: '+14155550177' });
    ids.set('cus', customer.id);
    ids.set('ord', (await post('/api/pos/orders', { lineItems: [line] })).id);
    ids.set('inv', (await post('/api/pos/invoices', { customerId: customer.id, lineItems: [line], dueDate: '2099-01-31' })).id);
    ids.set(
      'isr',
      (
        await post('/api/pos/invoice-series', {
          customerId: customer.id,
          lineItems: [line],
          rrule: 'FREQ=MONTHLY;COUNT=2',
          startDate: '2099-01-01',
          daysUntilDue: 7,
        })
      ).id,
    );
    ids.set('pr', (await post('/api/pos/pay-requests', { amountCents: 500, phone: '+14155550177' })).id);
    ids.set('whs', (await post('/api/pos/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes: ['order.paid'] })).id);
    ids.set('itm', 'itm_croissant');
    ids.set('tax', server.catalog.taxRates[0]!.id);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('covers the routes the app registered, lists and single objects alike', () => {
    const urls = routes.map((r) => `${r.method} ${r.url}`);
    expect(urls).toEqual(
      expect.arrayContaining([
        'GET /api/pos/catalog',
        'GET /api/pos/orders/:id',
        'PATCH /api/pos/customers/:id',
        'DELETE /api/pos/webhooks/:id',
        'GET /api/pos/catalog/categories',
      ]),
    );
  });

  it('answers an unknown query parameter with a 400 problem naming it, and writes nothing', async () => {
    const before = await rowCounts();
    for (const route of routes) {
      const url = `${urlOf(route)}?bogusParam=1`;
      const withBody = route.method === 'POST' || route.method === 'PATCH';
      const res = await server.app.inject({
        method: route.method as 'GET',
        url,
        headers: withBody ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(withBody ? { payload: '{}' } : {}),
      });
      const where = `${route.method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`;
      expect(res.statusCode, where).toBe(400);
      expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
      expect(
        (res.json() as { errors?: { path: string }[] }).errors?.map((e) => e.path),
        where,
      ).toContain('bogusParam');
      expect(conformance.check(route.method, route.url, res), where).toEqual([]);
    }
    expect(await rowCounts()).toBe(before);
  }, 120_000);

  const oddValue = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom(
      '',
      '-1',
      '0',
      '1e9',
      'NaN',
      'true',
      '2024-02-31',
      '2024-02-31T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2024-01-01T00:00:00+16:00',
      '2024-01-01T00:00:00-23:59',
      '0001-01-01T00:00:00+14:00',
      '%00',
      '🧾',
      'a'.repeat(600),
    ),
    fc.integer().map(String),
  );
  const cursorMember = fc.oneof(
    fc.constantFrom(
      '2024-02-31T00:00:00.000Z',
      '2024-02-31T00:00:00Z',
      '0000-01-01T00:00:00.000Z',
      '2024-13-01T00:00:00.000Z',
      '2024-01-01T24:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      'ord_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '',
    ),
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.constantFrom(2 ** 60, -1, 1.5, 1e308),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 2 }),
  );
  const oddTime = fc.constantFrom(
    '2024-02-31T00:00:00.000Z',
    '2023-02-29T12:00:00.000Z',
    '2024-04-31T00:00:00Z',
    '2024-06-31T23:59:59.999Z',
    '0000-01-01T00:00:00.000Z',
    '1970-01-01T00:00:00.000Z',
  );
  // The shapes real cursors have ([time, id], [id], [sequence]) with odd members, and any other array.
  const forgedCursor = fc
    .oneof(
      fc.tuple(oddTime, fc.oneof(fc.constant('ord_01ARZ3NDEKTSV4RRFFQ69G5FAV'), fc.string({ maxLength: 20 }))),
      fc.tuple(cursorMember),
      fc.array(cursorMember, { maxLength: 3 }),
    )
    .map((key) => Buffer.from(JSON.stringify(key)).toString('base64url'));

  /** Random query strings over the parameters the route declares (from its zod schema). */
  function queryArb(route: RegisteredRoute): fc.Arbitrary<string> {
    const schema = z.toJSONSchema(route.doc!.query!, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    const names = Object.keys(schema.properties ?? {});
    const pair = fc
      .tuple(fc.constantFrom(...names), fc.oneof(oddValue, ...(names.includes('cursor') ? [forgedCursor] : [])))
      .map(([k, v]) => (k === 'cursor' ? ['cursor', v] : [k, v]));
    return fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => new URLSearchParams(pairs).toString());
  }

  it('never answers a 5xx to random values of the declared parameters, forged cursors included', async () => {
    const lists = routes.filter(
      (r) =>
        r.method === 'GET' &&
        r.doc?.query &&
        Object.keys((z.toJSONSchema(r.doc.query, { io: 'input', unrepresentable: 'any' }) as { properties?: object }).properties ?? {}).length > 0,
    );
    expect(lists.length).toBeGreaterThan(10);
    let sent = 0;
    for (const route of lists) {
      await fc.assert(
        fc.asyncProperty(queryArb(route), async (query) => {
          sent += 1;
          const url = `${urlOf(route)}?${query}`;
          const res = await server.app.inject({ method: 'GET', url, headers });
          const where = `GET ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`;
          expect(res.statusCode < 500, where).toBe(true);
          if (res.statusCode >= 400) expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
          expect(conformance.check('GET', route.url, res), where).toEqual([]);
        }),
        { numRuns: RUNS, seed: 20_261_123 + route.url.length, endOnFailure: true },
      );
    }
    expect(sent).toBeGreaterThanOrEqual(RUNS * lists.length);
  }, 300_000);
});
