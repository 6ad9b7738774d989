import { Validator } from '@seriousme/openapi-schema-validator';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../sync-server/src/platform/http/openapi.ts';
import { recordedRoutes } from '../../sync-server/src/platform/http/route-doc.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: Record<string, Record<string, any>>;
};

/** Every `$ref` in `value`, with where it was found. */
function refsOf(value: unknown, at = '#', out: { ref: string; at: string }[] = []): { ref: string; at: string }[] {
  if (Array.isArray(value)) value.forEach((v, i) => refsOf(v, `${at}/${i}`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push({ ref: v, at });
      else refsOf(v, `${at}/${k}`, out);
    }
  }
  return out;
}

function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
}

describe('OpenAPI document and interactive reference', () => {
  let server: TestServer;
  let doc: Doc;

  beforeAll(async () => {
    server = await startTestServer({ listen: true, staticDir: null });
    const res = await server.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode, res.body).toBe(200);
    doc = res.json() as Doc;
  });
  afterAll(async () => {
    await server.close();
  });

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 4000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const broken = refsOf(doc).filter(({ ref }) => resolvePointer(doc, ref) === undefined);
    expect(broken).toEqual([]);
  });

  it('lists every registered route, and every /api/pos and /api/v1 route has a RouteDoc summary', () => {
    const routes = recordedRoutes(server.app);
    expect(routes.length).toBeGreaterThan(20);
    const missing: string[] = [];
    const undocumented: string[] = [];
    for (const route of routes) {
      const { path } = openApiPath(route.url);
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      if (!op) missing.push(`${route.method} ${route.url}`);
      if (/^\/api\/(pos|v1)\//.test(route.url) && !route.doc?.summary) undocumented.push(`${route.method} ${route.url}`);
    }
    expect(missing).toEqual([]);
    expect(undocumented).toEqual([]);
    // The document holds nothing that is not registered.
    const registered = new Set(routes.map((r) => `${r.method.toLowerCase()} ${openApiPath(r.url).path}`));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) expect(registered.has(`${method} ${path}`), `${method} ${path}`).toBe(true);
    }
    const operationIds = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('states the conventions: security schemes, problems, Idempotency-Key on POSTs, rate-limit headers, cursors', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      staffToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      appToken: { type: 'http', scheme: 'bearer' },
    });
    expect(doc.components.schemas!.Problem).toMatchObject({ required: ['type', 'title', 'status', 'detail', 'code'] });

    for (const [path, item] of Object.entries(doc.paths)) {
      if (!/^\/api\/(pos|v1)\//.test(path)) continue;
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const params = (op.parameters ?? []) as Array<{ $ref?: string; name?: string; in?: string }>;
        if (method === 'post') {
          expect(
            params.some((p) => p.$ref === '#/components/parameters/IdempotencyKey'),
            where,
          ).toBe(true);
          expect(op.responses['422'], where).toBeDefined();
        }
        if (op.security?.length) {
          expect(op.responses['401'], where).toEqual({ $ref: '#/components/responses/Unauthorized' });
          expect(op.responses['403'], where).toBeDefined();
        }
        // Every error response is a problem.
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (Number(status) < 400) continue;
          const resolved = response.$ref ? (resolvePointer(doc, response.$ref) as any) : response;
          expect(resolved.content['application/problem+json'].schema, `${where} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' });
        }
        // A list with a cursor documents the shared Cursor parameter.
        if (params.some((p) => p.name === 'cursor')) throw new Error(`${where}: cursor not via #/components/parameters/Cursor`);
      }
    }

    const orders = doc.paths['/api/pos/orders']!.get;
    expect(orders.security).toEqual([{ staffToken: [] }, { appToken: ['orders:read'] }]);
    expect(orders.parameters).toContainEqual({ $ref: '#/components/parameters/Cursor' });
    expect(orders.responses['200'].headers.RateLimit).toEqual({ $ref: '#/components/headers/RateLimit' });
    expect(orders.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });

    const sales = doc.paths['/api/pos/reports/sales']!.get;
    expect(sales.security).toEqual([{ staffToken: [] }]);
    expect(Object.keys(sales.responses['200'].content)).toEqual(['application/json', 'text/csv']);
    expect(sales.parameters).toContainEqual(expect.objectContaining({ name: 'from', in: 'query', required: true }));
    expect(sales.parameters).toContainEqual(
      expect.objectContaining({ name: 'groupBy', schema: expect.objectContaining({ enum: ['day', 'hour', 'item', 'category', 'tender', 'staff'] }) }),
    );

    const payRequest = doc.paths['/api/pos/pay-requests']?.post;
    expect(payRequest?.security).toEqual([{ staffToken: [] }, { appToken: ['pay:create'] }]);
    expect(payRequest?.requestBody.content['application/json'].schema).toMatchObject({ type: 'object' });

    expect(doc.paths['/api/sync/{collection}/push']!.post.requestBody).toBeDefined();
    expect(doc.paths['/api/openapi.json']!.get.security).toEqual([]);
  });

  it('documents the domain errors a client must handle: state conflicts (409), declines (402), duplicates', () => {
    const expected: [string, string, string, string][] = [
      ['post', '/api/pos/orders/{id}/payments', '402', 'card_declined'],
      ['post', '/api/pos/orders/{id}/cancel', '409', 'illegal_state_transition'],
      ['post', '/api/pos/orders/{id}/refunds', '409', 'illegal_state_transition'],
      ['patch', '/api/pos/invoices/{id}', '409', 'illegal_state_transition'],
      ['post', '/api/pos/invoices/{id}/send', '409', 'illegal_state_transition'],
      ['post', '/api/pos/invoices/{id}/payments', '402', 'card_declined'],
      ['post', '/api/pos/invoices/{id}/void', '409', 'illegal_state_transition'],
      ['post', '/api/pos/invoice-series/{id}/pause', '409', 'illegal_state_transition'],
      ['post', '/api/pos/pay-requests', '409', 'order_changed'],
      ['post', '/api/pos/pay-requests/{id}/cancel', '409', 'illegal_state_transition'],
      ['post', '/pay/{id}', '402', 'account_closed'],
      ['post', '/api/pos/customers', '409', 'customer_exists'],
      ['patch', '/api/pos/customers/{id}', '409', 'customer_exists'],
      ['delete', '/api/pos/catalog/tax-rates/{id}', '409', 'tax_rate_in_use'],
      ['patch', '/api/pos/catalog/tax-rates/{id}', '409', 'tax_configuration'],
      ['post', '/api/pos/catalog/locations', '409', 'location_exists'],
      ['post', '/api/pos/webhooks/{id}/deliveries/{deliveryId}/redeliver', '409', 'delivery_pending'],
    ];
    for (const [method, path, status, code] of expected) {
      const response = doc.paths[path]?.[method]?.responses?.[status] as { description?: string } | undefined;
      expect(response?.description, `${method.toUpperCase()} ${path} ${status}`).toContain(code);
    }
  });

  it('states the formats the server enforces: e-mail, URI, E.164, date-time, minProperties on PATCH, uniqueItems on id lists, non-blank names', async () => {
    const body = (method: string, path: string) => doc.paths[path]![method]!.requestBody.content['application/json'].schema;
    const query = (path: string, name: string) => (doc.paths[path]!.get.parameters as any[]).find((p) => p.name === name)?.schema;

    // E-mails, URLs, phones.
    expect(body('post', '/api/pos/customers').properties.email).toMatchObject({ type: 'string', format: 'idn-email' });
    expect(body('patch', '/api/pos/customers/{id}').properties.email.anyOf).toContainEqual(expect.objectContaining({ format: 'idn-email' }));
    expect(body('post', '/api/pos/webhooks').properties.url).toMatchObject({ type: 'string', format: 'uri' });
    expect(body('patch', '/api/pos/webhooks/{id}').properties.url).toMatchObject({ format: 'uri' });
    expect(body('post', '/api/pos/catalog/items').properties.imageUrl).toMatchObject({ type: 'string', format: 'uri' });
    expect(body('patch', '/api/pos/catalog/items/{id}').properties.imageUrl.anyOf).toContainEqual(expect.objectContaining({ format: 'uri' }));
    expect(body('post', '/api/pos/pay-requests').properties.phone).toMatchObject({ type: 'string', pattern: '^\\+[1-9]\\d{1,14}$' });

    // Timestamps: date-time whose pattern allows offsets up to ±14:00 only.
    for (const [path, name] of [
      ['/api/pos/orders', 'createdFrom'],
      ['/api/pos/orders', 'createdTo'],
      ['/api/pos/catalog', 'updatedSince'],
    ] as const) {
      const schema = query(path, name);
      expect(schema, `${path} ${name}`).toMatchObject({ type: 'string', format: 'date-time' });
      const pattern = new RegExp(schema.pattern);
      expect(pattern.test('2026-03-01T12:00:00+14:00')).toBe(true);
      expect(pattern.test('2026-03-01T12:00:00+16:00')).toBe(false);
    }

    // Every PATCH body needs at least one field.
    const patches = Object.entries(doc.paths).flatMap(([path, item]) => (item.patch?.requestBody ? [[path, body('patch', path)] as const] : []));
    expect(patches.length).toBeGreaterThanOrEqual(6);
    for (const [path, schema] of patches) {
      expect(schema.minProperties ?? (schema.required?.length > 0 ? 1 : 0), path).toBeGreaterThanOrEqual(1);
    }
    for (const path of [
      '/api/pos/customers/{id}',
      '/api/pos/catalog/items/{id}',
      '/api/pos/catalog/tax-rates/{id}',
      '/api/pos/invoices/{id}',
      '/api/pos/webhooks/{id}',
      '/api/pos/settings',
    ]) {
      expect(body('patch', path).minProperties, path).toBe(1);
    }
    // A PATCH sends only what changes: no defaults that would overwrite what the caller left out.
    expect(JSON.stringify(body('patch', '/api/pos/catalog/tax-rates/{id}'))).not.toContain('"default"');

    // Lists of ids (and of event types, channels) are sets.
    expect(body('post', '/api/pos/catalog/items').properties.taxRateIds).toMatchObject({ type: 'array', uniqueItems: true });
    expect(body('patch', '/api/pos/catalog/items/{id}').properties.taxRateIds).toMatchObject({ uniqueItems: true });
    expect(body('post', '/api/pos/orders').properties.lineItems.items.properties.modifierIds).toMatchObject({ uniqueItems: true });
    expect(body('post', '/api/pos/invoices').properties.customLines.items.properties.taxRateIds).toMatchObject({ uniqueItems: true });
    expect(body('post', '/api/pos/webhooks').properties.eventTypes).toMatchObject({ uniqueItems: true });
    expect(body('post', '/api/pos/invoices/{id}/send').properties.channels).toMatchObject({ uniqueItems: true });

    // Names blank after trimming are refused by the schema: the document says a non-space character is needed.
    const nonBlank = expect.objectContaining({ type: 'string', minLength: 1, pattern: '\\S' });
    const item = body('post', '/api/pos/catalog/items');
    expect(item.properties.name).toEqual(nonBlank);
    expect(item.properties.category).toEqual(nonBlank);
    expect(item.properties.variations.items.properties.name).toEqual(nonBlank);
    expect(body('post', '/api/pos/catalog/tax-rates').properties.name).toEqual(nonBlank);
    expect(body('post', '/api/pos/catalog/locations').properties.name).toEqual(nonBlank);
    expect(body('patch', '/api/pos/catalog/categories/{name}').properties.name).toEqual(nonBlank);
    expect(body('post', '/api/pos/customers').properties.givenName).toEqual(nonBlank);
    expect(body('post', '/api/pos/orders').properties.discounts.items.oneOf[0].properties.name).toEqual(nonBlank);
    expect(new RegExp(item.properties.name.pattern).test('   ')).toBe(false);

    // And the server refuses what the document refuses, naming the field.
    const send = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
      server.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
    const refused: [method: 'POST' | 'PATCH', url: string, payload: unknown, path: string][] = [
      ['POST', '/api/pos/customers', { givenName: 'Ana', email: 'not-an-email' }, 'email'],
      ['POST', '/api/pos/customers', { givenName: '   ' }, 'givenName'],
      ['PATCH', '/api/pos/customers/cus_01J00000000000000000000000', {}, '(body)'],
      ['PATCH', '/api/pos/settings', {}, '(body)'],
      ['POST', '/api/pos/webhooks', { url: 'ftp://example.com/hook', eventTypes: ['order.paid'] }, 'url'],
      ['POST', '/api/pos/webhooks', { url: 'https://example.com/hook', eventTypes: ['order.paid', 'order.paid'] }, 'eventTypes'],
      ['POST', '/api/pos/catalog/tax-rates', { name: ' \t ', basisPoints: 500 }, 'name'],
      ['POST', '/api/pos/pay-requests', { amountCents: 100, phone: '4155552671' }, 'phone'],
      [
        'POST',
        '/api/pos/orders',
        {
          lineItems: [
            { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_size_large'], quantity: 1 },
          ],
        },
        'lineItems.0.modifierIds',
      ],
    ];
    for (const [method, url, payload, path] of refused) {
      const res = await send(method, url, payload);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      expect(
        res.json().errors.map((e: { path: string }) => e.path),
        `${method} ${url}`,
      ).toContain(path);
    }
  });

  it('keeps /api/v1/openapi.json as the /api/v1 slice of the same builder', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const v1 = res.json() as Doc;
    expect(Object.keys(v1.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
    expect(v1.paths['/api/v1/images/generate']!.post).toEqual(doc.paths['/api/v1/images/generate']!.post);
    const result = await new Validator().validate(structuredClone(v1));
    expect(result.valid, JSON.stringify(result.errors)).toBe(true);
  });

  it('serves the interactive reference from local files only, and it renders the operations offline', async () => {
    const page = await server.app.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js', 'favicon-32x32.png']) {
      const res = await server.app.inject({ method: 'GET', url: `/api/docs/assets/${asset}` });
      expect(res.statusCode, asset).toBe(200);
      expect(res.rawPayload.length, asset).toBeGreaterThan(100);
    }
    const unknown = await server.app.inject({ method: 'GET', url: '/api/docs/assets/..%2Fpackage.json' });
    expect(unknown.statusCode).toBe(404);

    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
      const context = await browser.newContext();
      const outside: string[] = [];
      // Anything not served by this server is refused and remembered: the page must not need it.
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(server.baseUrl) || url.startsWith('data:')) return route.continue();
        outside.push(url);
        return route.abort();
      });
      const tab = await context.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (err) => errors.push(err.message));
      // Opened on the reports tag (deepLinking is on): a large document is drawn lazily as it comes into view (Swagger
      // UI past ~126 operations), and the deep link takes the reader far down the page, where it must draw too.
      await tab.goto(`${server.baseUrl}/api/docs#/reports`);
      await tab.getByText('Register API', { exact: false }).first().waitFor({ timeout: 20_000 });
      const target = tab.locator('.opblock-summary-path', { hasText: '/api/pos/reports/sales' }).first();
      await target.waitFor({ timeout: 30_000 });
      const seen = new Set(await tab.locator('.opblock-summary-path').allTextContents());
      expect(seen.size).toBeGreaterThan(10);
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 90_000);
});
