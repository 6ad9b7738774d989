/**
 * Fuzzing every POST of the POS API (`/api/pos/*`) and the platform API (`/api/v1/*`), enumerated from the routes the
 * app registered (`recordedRoutes`), so routes added later are covered without touching this file. For each route,
 * at least 2,000 malformed bodies — shaped after the route's own body schema and then broken (wrong types, unknown
 * fields, out-of-bounds numbers, huge and odd Unicode strings, nulls, arrays, nested junk, prices on catalog
 * references, required fields removed), or plain junk — are sent with a staff token. Every answer must be a 4xx
 * RFC 9457 problem, never a 5xx, and the database must be unchanged (row count and checksum of every table). Every
 * answer must also be one the OpenAPI document (`/api/openapi.json`) states: a documented status, media type and
 * schema (test/support/openapi-conformance.ts), so the document cannot drift from the server.
 * Bodies the route's own zod schema accepts are not sent (they are not malformed). PGlite in memory only: it is fast.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../sync-server/src/app.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { openPgliteDb, type Db } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import { recordedRoutes, type RegisteredRoute } from '../../sync-server/src/platform/http/route-doc.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { FsImageStore } from '../../sync-server/src/modules/images/store.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';

/** Bodies per route (the brief: at least 2,000). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const BASE_URL = 'http://localhost';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, any>;

/* ───────────── the server under test (built at collection time, so its routes can be enumerated) ───────────── */

const imagesDir = await mkdtemp(join(tmpdir(), 'fuzz-images-'));
const db: Db = await openPgliteDb();
await migrate(db);
const seed = await seedDemoStore(db);
const app = await buildApp({
  db,
  config: { baseUrl: BASE_URL, staticDir: null, allowPrivateWebhookReceivers: true },
  // No background work may touch the database while it is compared.
  webhooks: { enabled: false },
  recurringInvoices: { enabled: false },
  images: {
    store: new FsImageStore(imagesDir),
    purgeIntervalMs: 0,
    rateLimits: { staff: new RateLimit({ name: 'staff', quota: 1e9, windowSeconds: 60 }) },
  },
});
await app.ready();
const idp = await IdentityProvider.load(db, BASE_URL);
const staffToken = await idp.issueStaffToken({ staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole }, { ttlSeconds: 24 * 3600 });
const headers = { authorization: `Bearer ${staffToken}`, 'content-type': 'application/json' };
const conformance = await OpenApiConformance.of(app);

/** Real objects for path parameters, so the fuzzer reaches the checks behind the 404. Failures here are ignored. */
async function setUp(url: string, payload: unknown): Promise<Record<string, any> | undefined> {
  const res = await app.inject({ method: 'POST', url, payload: JSON.stringify(payload), headers });
  return res.statusCode < 300 ? (res.json() as Record<string, any>) : undefined;
}
const line = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 };
const openOrder = await setUp('/api/pos/orders', { lineItems: [line] });
const paidOrder = await setUp('/api/pos/orders', { lineItems: [line] });
if (paidOrder) await setUp(`/api/pos/orders/${paidOrder.id}/payments`, { tenders: [{ method: 'cash', amountCents: paidOrder.totalCents }] });
const customer = await setUp('/api/pos/customers', { givenName: 'Ada', phone: '+14155550123', email: 'ada@example.com' });
if (customer) {
  const invoice = await setUp('/api/pos/invoices', { customerId: customer.id, lineItems: [line], dueDate: '2099-01-31' });
  if (invoice) await setUp(`/api/pos/invoices/${invoice.id}/send`, {});
  await setUp('/api/pos/invoices', { customerId: customer.id, customLines: [{ description: 'Draft', amountCents: 1000 }], dueDate: '2099-01-31' });
  await setUp('/api/pos/invoice-series', {
    customerId: customer.id,
    lineItems: [line],
    rrule: 'FREQ=MONTHLY;COUNT=3',
    startDate: '2099-01-01',
    daysUntilDue: 14,
  });
}
await setUp('/api/pos/pay-requests', { amountCents: 1234, phone: '+14155550123' });
await setUp('/api/pos/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes: ['order.paid'] });
void openOrder;

/** Ids of every business table, by their prefix (`ord`, `cus`, `inv`, …). */
async function realIds(): Promise<Map<string, string[]>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'id' AND data_type = 'text'`,
  );
  const byPrefix = new Map<string, string[]>();
  for (const { table_name } of tables) {
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM "${table_name}" LIMIT 50`);
    for (const { id } of rows) {
      const prefix = id.split('_')[0]!;
      byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), id]);
    }
  }
  return byPrefix;
}
const ids = await realIds();

/**
 * The POST routes fuzzed: every one under /api/pos and /api/v1 that the app registered, and the public pay page's
 * `POST /pay/{id}` (a customer's browser, no token). Left out: replication pushes (`/api/sync/…/push`), which keep a
 * malformed document in quarantine by design (tested in replication.test.ts), and the demo-only
 * `/api/dev/pair-register` (loopback only, covered by enrollment.test.ts).
 */
const postRoutes: RegisteredRoute[] = recordedRoutes(app).filter(
  (r) => r.method === 'POST' && (/^\/api\/(pos|v1)\//.test(r.url) || r.url === '/pay/:id'),
);

/* ───────────── the database fingerprint ───────────── */

async function fingerprint(): Promise<Record<string, string>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const out: Record<string, string> = {};
  for (const { table_name } of tables) {
    const { rows } = await db.query<{ n: string | number; sum: string | null }>(
      `SELECT count(*) AS n, md5(COALESCE(string_agg(md5(t::text), '' ORDER BY md5(t::text)), '')) AS sum FROM "${table_name}" t`,
    );
    out[table_name] = `${rows[0]!.n}:${rows[0]!.sum}`;
  }
  return out;
}

/* ───────────── arbitraries ───────────── */

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ulidArb = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
const hugeString = fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'é'.repeat(n));
const oddString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'null',
    'NaN',
    '-1',
    '1e309',
    '🧾💳',
    'a\u202Eb',
    '\uD800',
    "'; DROP TABLE orders; --",
    '../../etc/passwd',
    '%00',
    '<script>',
    '9'.repeat(40),
    '2024-13-45T25:61:00Z',
    '+1',
    '+999999999999999999',
  ),
);
const oddNumber = fc.oneof(
  fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 0.5, 1.5, 99_999_999, 100_000_000, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e300, -1e300, 5e-324),
);
const junk: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 4, arbitrary: oddNumber },
  { weight: 4, arbitrary: oddString },
  { weight: 1, arbitrary: hugeString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) as unknown as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }) as unknown as fc.Arbitrary<Json>, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 70 }).reduce<Json>((inner) => ({ a: [inner] }), 1)) },
);

/** A value of the JSON schema's shape (not necessarily valid: bounds and patterns are ignored on purpose). */
function shaped(schema: Schema | undefined, root: Schema, depth = 0): fc.Arbitrary<Json> {
  if (!schema || depth > 6) return junk;
  if (schema.$ref) return shaped(resolveRef(root, schema.$ref), root, depth + 1);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...(alternatives.map((s: Schema) => shaped(s, root, depth + 1)) as fc.Arbitrary<Json>[]));
  if (schema.allOf) return shaped(Object.assign({}, ...schema.allOf), root, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'object': {
      const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      if (props.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), junk, { maxKeys: 3 }) as fc.Arbitrary<Json>;
      const required: string[] = schema.required ?? [];
      return fc.record(Object.fromEntries(props.map(([k, v]) => [k, shaped(v, root, depth + 1)])), {
        requiredKeys: required.filter((k) => props.some(([p]) => p === k)),
      }) as fc.Arbitrary<Json>;
    }
    case 'array':
      return fc.array(shaped(schema.items, root, depth + 1), { minLength: Math.min(schema.minItems ?? 0, 3), maxLength: 3 });
    case 'string':
      if (schema.pattern && /_\[0-9A-HJKMNP-TV-Z\]\{26\}/.test(schema.pattern)) {
        const prefix = /\^?([a-z]+)_/.exec(schema.pattern)?.[1] ?? 'x';
        return ulidArb.map((u) => `${prefix}_${u}`);
      }
      return fc.oneof(
        fc.constantFrom(
          'x',
          'Latte',
          '+14155550123',
          'a@example.com',
          'https://example.com/h',
          'itm_latte',
          'var_latte_regular',
          'mod_size_large',
          'tax_sales',
          'cash',
        ),
        oddString,
      );
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -(2 ** 40)), max: Math.min(schema.maximum ?? 100_000, 2 ** 40) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return junk;
  }
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  return ref
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .reduce<any>((node, key) => node?.[key], root);
}

/** One breakage applied at a random object inside the value. */
const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('set-existing', 'set-unknown', 'delete', 'price', 'wrap-array', 'null-everything'),
  key: fc.oneof(
    fc.constantFrom('priceCents', 'amountCents', 'unitPriceCents', 'totalCents', 'id', 'merchantId', '__proto__', 'constructor', 'stockOnHand'),
    fc.string({ maxLength: 12 }),
  ),
  value: junk,
  choice: fc.nat(),
});

function objectsIn(value: Json, out: { [k: string]: Json }[] = []): { [k: string]: Json }[] {
  if (Array.isArray(value)) for (const v of value) objectsIn(v, out);
  else if (value && typeof value === 'object') {
    out.push(value);
    for (const v of Object.values(value)) objectsIn(v, out);
  }
  return out;
}

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(body: Json, mutations: Mutation[]): Json {
  let value: Json = structuredClone(body);
  for (const original of mutations) {
    // Junk values may be shared between samples: a copy, so no mutation ever makes a cycle.
    const m = { ...original, value: structuredClone(original.value) };
    const objects = objectsIn(value);
    if (m.kind === 'wrap-array') {
      value = [value];
      continue;
    }
    if (m.kind === 'null-everything' || objects.length === 0) {
      value = m.value;
      continue;
    }
    const target = objects[m.at % objects.length]!;
    const keys = Object.keys(target);
    if (m.kind === 'set-existing' && keys.length) target[keys[m.choice % keys.length]!] = m.value;
    else if (m.kind === 'delete' && keys.length) delete target[keys[m.choice % keys.length]!];
    else if (m.kind === 'price')
      Object.defineProperty(target, m.key === '__proto__' ? 'priceCents' : m.key, {
        value: typeof m.value === 'number' ? m.value : 100,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
  }
  return value;
}

/** What is sent: JSON text (usually of a broken body), or now and then text that is not JSON at all. */
function bodyArb(route: RegisteredRoute): fc.Arbitrary<string> {
  const schema = route.doc?.body ? (z.toJSONSchema(route.doc.body, { io: 'input', unrepresentable: 'any' }) as Schema) : undefined;
  const broken = fc.tuple(schema ? shaped(schema, schema) : junk, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([b, ms]) => mutate(b, ms));
  const json = fc
    .oneof({ weight: 8, arbitrary: broken }, { weight: 2, arbitrary: junk })
    // Only malformed bodies: whatever the route's own schema accepts is not sent.
    .filter((b) => !route.doc?.body || !route.doc.body.safeParse(b).success)
    .map((b) => JSON.stringify(b) ?? 'null');
  const notJson = fc.oneof(
    fc.constantFrom('{', '{"a":}', '[1,]', 'undefined', "{'a':1}", '\u0000', '{"a":1}{"b":2}'),
    fc.string({ maxLength: 30 }).filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
  );
  return fc.oneof({ weight: 19, arbitrary: json }, { weight: 1, arbitrary: notJson });
}

/** Path parameters: a real id of the right kind, a well-formed unknown one, or junk. Body-less routes get no real ids. */
function urlArb(route: RegisteredRoute): fc.Arbitrary<string> {
  const segments = route.url.split('/');
  const parts = segments.map((segment, i) => {
    if (!segment.startsWith(':')) return fc.constant(segment);
    const resource = segments[i - 1] ?? '';
    const prefix = (
      {
        pay: 'pr',
        orders: 'ord',
        customers: 'cus',
        invoices: 'inv',
        'invoice-series': 'isr',
        'pay-requests': 'pr',
        webhooks: 'whs',
        deliveries: 'whd',
        items: 'itm',
        'tax-rates': 'tax',
        locations: 'loc',
        images: 'img',
      } as Record<string, string>
    )[resource];
    const real = route.doc?.body && prefix ? (ids.get(prefix) ?? []) : [];
    const options: fc.Arbitrary<string>[] = [
      ulidArb.map((u) => `${prefix ?? 'x'}_${u}`),
      fc
        .oneof(oddString, fc.constantFrom('..', '%2e%2e', 'a'.repeat(300)))
        .filter((s) => s.length > 0 && s.isWellFormed())
        .map((s) => encodeURIComponent(s)),
    ];
    if (real.length) options.push(fc.constantFrom(...real), fc.constantFrom(...real));
    return fc.oneof(...options);
  });
  return fc.tuple(...parts).map((p) => p.join('/'));
}

/* ───────────── the test ───────────── */

describe('fuzzing every POST of /api/pos and /api/v1 with malformed bodies (PGlite)', () => {
  afterAll(async () => {
    await app.close();
    await db.close();
    await rm(imagesDir, { recursive: true, force: true });
  });

  it('enumerates the routes from the app, not from a list', () => {
    expect(postRoutes.length).toBeGreaterThan(10);
    expect(postRoutes.map((r) => r.url)).toEqual(expect.arrayContaining(['/api/pos/pay-requests', '/api/v1/images/generate', '/pay/:id']));
    expect(ULID.test('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(true);
    // The set-up made real objects for the path parameters of every action (a failed set-up would hide routes' checks).
    for (const prefix of ['ord', 'cus', 'inv', 'isr', 'pr', 'whs', 'itm']) expect(ids.get(prefix)?.length ?? 0, prefix).toBeGreaterThan(0);
  });

  it.each(postRoutes.map((r) => [r.url, r] as const))(
    'POST %s: every malformed body is a 4xx problem and writes nothing',
    async (_url, route) => {
      const before = await fingerprint();
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(urlArb(route), bodyArb(route), async (url, payload) => {
          sent += 1;
          const res = await app.inject({ method: 'POST', url, payload, headers });
          const where = `${res.statusCode} for POST ${url} ${payload.slice(0, 300)}: ${res.body.slice(0, 300)}`;
          expect(res.statusCode >= 400 && res.statusCode < 500, where).toBe(true);
          expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
          const problem = res.json() as Record<string, unknown>;
          expect(problem, where).toMatchObject({
            type: expect.any(String),
            title: expect.any(String),
            status: res.statusCode,
            detail: expect.any(String),
            code: expect.any(String),
          });
          expect(conformance.check('POST', route.url, res), where).toEqual([]);
        }),
        { numRuns: RUNS, seed: 20_240_301 + route.url.length, endOnFailure: true },
      );
      expect(sent).toBeGreaterThanOrEqual(RUNS);
      expect(await fingerprint()).toEqual(before);
    },
    300_000,
  );
});
