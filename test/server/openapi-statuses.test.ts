/**
 * The OpenAPI document says every status the server answers (what Schemathesis found missing), proven through the
 * API on the routes as registered — not from a list:
 * - 429 wherever a rate limit is applied: every route a guard or the image API's admission meters (app quota, staff
 *   quota on /api/v1), staff-only routes under an app's quota included, and nowhere else;
 * - 414 for an over-long path segment, on every operation with a path parameter;
 * - 405 with `Allow` and a problem body for a method a path does not take (RFC 9110 §15.5.6), never 404;
 * - `POST /api/pos/catalog/import` documents its `text/csv` body and `dryRun` query.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedRoutes, type RegisteredRoute } from '../../sync-server/src/platform/http/route-doc.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { FsImageStore } from '../../sync-server/src/modules/images/store.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

/** The route's URL with `value` for every path parameter (suffixes such as `.png` kept). */
function urlWith(route: RegisteredRoute, value: (name: string) => string): string {
  return route.url
    .split('/')
    .map((segment) => segment.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => value(name)))
    .join('/');
}

const API = /^\/api\/(pos|v1|sync|dev)\//;

describe('the OpenAPI document lists the statuses the server answers', () => {
  let server: TestServer;
  let conformance: OpenApiConformance;
  let imagesDir: string;
  let routes: RegisteredRoute[];

  beforeAll(async () => {
    imagesDir = await mkdtemp(join(tmpdir(), 'openapi-statuses-'));
    server = await startTestServer({
      staticDir: null,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      // One request per window: the first spends it, every later one meets the 429.
      appRateLimit: new RateLimit({ name: 'app', quota: 1, windowSeconds: 3600 }),
      images: {
        store: new FsImageStore(imagesDir),
        purgeIntervalMs: 0,
        rateLimits: { staff: new RateLimit({ name: 'staff', quota: 1, windowSeconds: 3600 }) },
      },
    });
    conformance = await OpenApiConformance.of(server.app);
    routes = recordedRoutes(server.app).filter((r) => API.test(r.url) || r.url.startsWith('/pay/'));
  });
  afterAll(async () => {
    await server?.close();
    if (imagesDir) await rm(imagesDir, { recursive: true, force: true });
  });

  const send = (route: RegisteredRoute, url: string, token?: string) =>
    server.app.inject({
      method: route.method as 'GET',
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT' ? { 'content-type': 'application/json' } : {}),
      },
      ...(route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT' ? { payload: '{}' } : {}),
    });

  it('429 on every route whose hooks take app quota (staff-only routes included), and only there', async () => {
    const appToken = server.credentials.appToken;
    // Spend the app's only request.
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/catalog', headers: { authorization: `Bearer ${appToken}` } })).statusCode).toBe(
      200,
    );
    const limited: string[] = [];
    const problems: string[] = [];
    for (const route of routes) {
      const res = await send(
        route,
        urlWith(route, () => 'x0'),
        appToken,
      );
      const documented = conformance.statuses(route.method, route.url).includes('429');
      const where = `${route.method} ${route.url}`;
      if (res.statusCode === 429) {
        limited.push(where);
        expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
        expect(res.headers['retry-after'], where).toBeDefined();
        expect(res.headers['ratelimit-policy'], where).toBe('"app";q=1;w=3600');
        problems.push(...conformance.check(route.method, route.url, res));
      }
      // Public routes (no token taken) never meter the app: they must not claim the app quota's 429.
      if (documented && res.statusCode !== 429 && !route.url.startsWith('/pay/'))
        problems.push(`${where}: documents 429 but answered ${res.statusCode}`);
      if (!documented && res.statusCode === 429) problems.push(`${where}: answered 429 but does not document it`);
    }
    expect(problems).toEqual([]);
    // The ones Schemathesis found missing, and staff-only routes under the app's quota.
    expect(limited).toEqual(
      expect.arrayContaining([
        'GET /api/v1/credits',
        'POST /api/v1/images/:id/keep',
        'POST /api/v1/images/generate',
        'GET /api/pos/customers',
        'GET /api/pos/ledger/trial-balance',
        'GET /api/pos/catalog',
      ]),
    );
    // The 429 names its policies and carries the rate-limit header fields on success.
    const credits = conformance.operation('GET', '/api/v1/credits')!;
    expect(credits.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    const tooMany = conformance.doc.components.responses.TooManyRequests.description as string;
    expect(tooMany).toContain('"app" 1 requests per 3600 s');
    expect(tooMany).toContain('"staff" 1 requests per 3600 s');
    expect(Object.keys(credits.responses['200'].headers ?? {})).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
  });

  it('429 on the image API for staff too, once the staff quota is used up', async () => {
    const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/v1/credits', headers: staff })).statusCode).toBe(200);
    for (const [method, url, route] of [
      ['GET', '/api/v1/credits', '/api/v1/credits'],
      ['POST', '/api/v1/images/img_x/keep', '/api/v1/images/:id/keep'],
    ] as const) {
      const res = await server.app.inject({
        method,
        url,
        headers: { ...staff, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { payload: '{}' } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(429);
      expect(res.headers['ratelimit-policy']).toBe('"staff";q=1;w=3600');
      expect(conformance.check(method, route, res)).toEqual([]);
    }
  });

  it('414 for a path segment over 100 characters on every operation with a path parameter, documented there only', async () => {
    const problems: string[] = [];
    let tried = 0;
    for (const route of routes) {
      const documented = conformance.statuses(route.method, route.url).includes('414');
      const hasParam = route.url.split('/').some((s) => s.startsWith(':'));
      if (!hasParam) {
        if (documented) problems.push(`${route.method} ${route.url}: documents 414 without a path parameter`);
        continue;
      }
      tried += 1;
      const res = await send(
        route,
        urlWith(route, () => 'a'.repeat(101)),
        server.credentials.staffToken,
      );
      if (res.statusCode !== 414) problems.push(`${route.method} ${route.url}: answered ${res.statusCode} to a 101-character segment`);
      problems.push(...conformance.check(route.method, route.url, res));
      // 100 characters is still a path parameter (whatever the route then says of it).
      const fits = await send(
        route,
        urlWith(route, () => 'a'.repeat(100)),
        server.credentials.staffToken,
      );
      if (fits.statusCode === 414) problems.push(`${route.method} ${route.url}: 414 for 100 characters`);
    }
    expect(tried).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('405 with Allow and a problem body for a method a path does not take, on every registered path', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of recordedRoutes(server.app)) {
      if (route.url === '/*') continue;
      const methods = byPath.get(route.url) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
      byPath.set(route.url, methods);
    }
    expect(byPath.size).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const [pattern, methods] of byPath) {
      const other = ['DELETE', 'PUT', 'PATCH', 'POST', 'GET'].find((m) => !methods.has(m));
      if (!other) continue;
      const url = urlWith({ method: other, url: pattern }, () => 'x0');
      const res = await server.app.inject({ method: other as 'PUT', url });
      const where = `${other} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`;
      if (res.statusCode !== 405) {
        problems.push(where);
        continue;
      }
      // Allow lists the route's own methods, and those of any other route the same URL reaches (e.g. GET
      // /api/v1/images/generate is the picture route's `:file`); each one listed is taken, never a 405.
      const allow = String(res.headers.allow).split(', ');
      expect(allow, where).toEqual(expect.arrayContaining([...methods]));
      expect([...allow].sort(), where).toEqual(allow);
      expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
      expect(res.json(), where).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Method Not Allowed', type: expect.any(String) });
      expect(res.json().detail, where).toContain(allow.join(', '));
      for (const method of allow) {
        const taken = await server.app.inject({ method: method as 'GET', url });
        if (taken.statusCode === 405 && taken.headers.allow !== undefined) problems.push(`${method} ${url}: listed in Allow but answered 405`);
      }
    }
    expect(problems).toEqual([]);
    // An unknown path stays a 404.
    const unknown = await server.app.inject({ method: 'DELETE', url: '/api/pos/no-such-thing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers.allow).toBeUndefined();
  });

  it('405 beside the built register: its catch-all serves GET pages, never API paths', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-statuses-register-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Register</title>');
    const withRegister = await startTestServer({ staticDir: dir, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
    try {
      const page = await withRegister.app.inject({ method: 'POST', url: '/orders/today' });
      expect(page.statusCode).toBe(405);
      expect(page.headers.allow).toBe('GET, HEAD');
      expect((await withRegister.app.inject({ method: 'GET', url: '/orders/today' })).statusCode).toBe(200);
      const api = await withRegister.app.inject({ method: 'POST', url: '/api/pos/no-such-thing' });
      expect(api.statusCode).toBe(404);
      const known = await withRegister.app.inject({ method: 'PUT', url: '/api/pos/orders' });
      expect(known.statusCode).toBe(405);
      expect(known.headers.allow).toBe('GET, HEAD, POST');
    } finally {
      await withRegister.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('every operation answers a plain call (real ids, no query, `{}` body) as its document says', async () => {
    const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
    const post = async (url: string, body: unknown) => {
      const res = await server.app.inject({
        method: 'POST',
        url,
        payload: JSON.stringify(body),
        headers: { ...staff, 'content-type': 'application/json' },
      });
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
      return res.json() as { id: string };
    };
    const line = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 };
    const customer = await post('/api/pos/customers', { givenName: 'Plain', phone: '+14155550178' });
    const order = await post('/api/pos/orders', { lineItems: [line] });
    const ids: Record<string, string> = {
      customers: customer.id,
      orders: order.id,
      invoices: (await post('/api/pos/invoices', { customerId: customer.id, lineItems: [line], dueDate: '2099-01-31' })).id,
      'invoice-series': (
        await post('/api/pos/invoice-series', {
          customerId: customer.id,
          lineItems: [line],
          rrule: 'FREQ=MONTHLY;COUNT=2',
          startDate: '2099-01-01',
          daysUntilDue: 7,
        })
      ).id,
      'pay-requests': (await post('/api/pos/pay-requests', { amountCents: 500, phone: '+14155550178' })).id,
      webhooks: (await post('/api/pos/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes: ['order.paid'] })).id,
      items: 'itm_croissant',
      'tax-rates': server.catalog.taxRates[0]!.id,
      categories: 'Bakery',
      sync: 'orders',
      assets: 'init.js',
    };
    ids.pay = ids['pay-requests']!;
    const problems: string[] = [];
    let checked = 0;
    // GETs first, so the DELETEs at the end do not turn them into 404s (which would still have to be documented).
    const order2 = (m: string) => ['GET', 'PATCH', 'POST', 'DELETE'].indexOf(m);
    const plain = recordedRoutes(server.app)
      .filter((r) => r.url !== '/*' && !r.doc?.produces?.includes('text/event-stream'))
      .sort((x, y) => order2(x.method) - order2(y.method));
    for (const route of plain) {
      const segments = route.url.split('/');
      const url = segments
        .map((segment, i) =>
          segment.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) =>
            name === 'collection' ? 'orders' : name === 'asset' ? 'init.js' : (ids[segments[i - 1] ?? ''] ?? 'x0'),
          ),
        )
        .join('/');
      const withBody = route.method === 'POST' || route.method === 'PATCH';
      const res = await server.app.inject({
        method: route.method as 'GET',
        url,
        headers: withBody ? { ...staff, 'content-type': 'application/json' } : staff,
        ...(withBody ? { payload: route.url.endsWith('/push') ? '[]' : '{}' } : {}),
      });
      checked += 1;
      if (res.statusCode >= 500) problems.push(`${route.method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (route.doc || API.test(route.url)) problems.push(...conformance.check(route.method, route.url, res).map((p) => `${p} (${url})`));
    }
    expect(checked).toBeGreaterThan(80);
    expect(problems).toEqual([]);
  });

  it('the conformance checker the fuzz tests use refuses undocumented statuses, media types and bodies', async () => {
    const orders = await server.app.inject({
      method: 'GET',
      url: '/api/pos/orders',
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
    });
    expect(orders.statusCode).toBe(200);
    expect(conformance.check('GET', '/api/pos/orders', orders)).toEqual([]);
    const forged = (statusCode: number, body: string, type = 'application/json') =>
      ({ ...orders, statusCode, body, headers: { ...orders.headers, 'content-type': type } }) as typeof orders;
    expect(conformance.check('GET', '/api/pos/orders', forged(418, '{}')).join()).toContain('status not documented');
    expect(conformance.check('GET', '/api/pos/orders', forged(200, 'a,b', 'text/csv')).join()).toContain('media type text/csv not documented');
    expect(conformance.check('GET', '/api/pos/orders', forged(200, JSON.stringify({ data: 'x', nextCursor: null }))).join()).toContain('body/data');
    expect(
      conformance.check('GET', '/api/pos/orders', forged(401, JSON.stringify({ title: 'no type' }), 'application/problem+json')).join(),
    ).toContain("must have required property 'type'");
    expect(conformance.check('GET', '/api/pos/nothing', orders).join()).toContain('not in the document');
  });

  it('POST /api/pos/catalog/import documents its text/csv body and dryRun query, and answers as documented', async () => {
    const op = conformance.operation('POST', '/api/pos/catalog/import')!;
    expect(Object.keys(op.requestBody.content)).toEqual(['application/json', 'text/csv']);
    expect(op.requestBody.content['text/csv'].schema).toMatchObject({ type: 'string' });
    const dryRun = (op.parameters as Json[]).find((p) => p.name === 'dryRun');
    expect(dryRun).toMatchObject({ in: 'query', required: false, schema: { enum: ['true', 'false'] } });
    expect(dryRun!.description).toContain('text/csv');
    expect(op.responses['413'].description).toBe('Body over 16 MiB');
    expect(op.responses['415'].description).toContain('text/csv');

    const csv = 'Handle,Title,Variant Price\nmug,Mug,9.50\n';
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import?dryRun=true',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ dryRun: true });
    expect(conformance.check('POST', '/api/pos/catalog/import', res)).toEqual([]);
    const xml = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(xml.statusCode).toBe(415);
    expect(conformance.check('POST', '/api/pos/catalog/import', xml)).toEqual([]);
  });
});
