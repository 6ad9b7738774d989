/**
 * No card number in any stored field, in any spelling, and no secret kept by an idempotent replay.
 *
 * 1. Every operation of the OpenAPI document (`/api/openapi.json`), enumerated at run time: each string its request
 *    body schema, query parameters and path parameters name gets a Luhn-valid PAN (fast-check) in one of the
 *    spellings of test/support/card-spellings.ts (dots, two spaces, NBSP, slashes, newlines, zero-width spaces,
 *    full-width digits, …). The answer is a 400 naming exactly that field — or an earlier refusal (401/403/415/429)
 *    of a caller the route does not admit — and never a success.
 * 2. The fields seen holding PANs (webhook URL, screening name and reference, image prompt, app redirect URIs and
 *    webhook URL, sign-up store name, staff name, a customer's e-mail local part) refuse them; free text masks them.
 * 3. Every route that answers a secret (webhook create and rotate-secret, the pairing code) is called with an
 *    `Idempotency-Key`; the replay answers the same secret, and the store holds it sealed.
 * 4. Then the whole database — `pg_dump` on PostgreSQL; on PGlite every row of every table read as text (values its
 *    files hold compressed) and every file of the data directory (WAL included) — and the server's log are searched
 *    for every PAN sent, in any spelling, for the CVC (labelled, or pasted after the card) and for the secrets.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_TEXT_FIELDS, PARSED_BY_ROUTE_FIELDS, luhnValid } from '../../core/index.ts';
import { openPgliteDb } from '../../sync-server/src/platform/db/db.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { spellings } from '../support/card-spellings.ts';
import { databaseTargets, type DatabaseTarget } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;
const execFileAsync = promisify(execFile);

/** A Luhn-valid PAN of 13–19 digits starting with a network's first digit (2–6). */
const panArb = fc
  .tuple(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 11, max: 17 }))
  .chain(([first, n]) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((ds) => `${first}${ds.join('')}`))
  .map((body) => {
    for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
    throw new Error('unreachable');
  });
const SPELLINGS = Object.keys(spellings('4242424242424242'));

/**
 * The digit sequences of `text`: every digit (ASCII, full-width, Arabic-Indic, mathematical bold) in order, a sequence
 * ending where more than 8 non-digits follow; those of 13 digits or more, joined by `|`. One linear pass, so a data
 * directory of many megabytes is searched in well under a second.
 */
function digitStreams(text: string): string {
  const ascii = text
    .replace(/[\uFF10-\uFF19]/g, (d) => String(d.charCodeAt(0) - 0xff10))
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/\uD835[\uDFCE-\uDFD7]/g, (d) => String(d.charCodeAt(1) - 0xdfce));
  const streams: string[] = [];
  let current = '';
  let gap = 0;
  for (let i = 0; i < ascii.length; i++) {
    const code = ascii.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      current += ascii[i];
      gap = 0;
    } else if (current && ++gap > 8) {
      if (current.length >= 13) streams.push(current);
      current = '';
      gap = 0;
    }
  }
  if (current.length >= 13) streams.push(current);
  return streams.join('|');
}

/** The PANs of `pans` found in `text`, each digit in any spelling, at most 8 non-digits between two digits. */
function leaks(text: string, pans: Iterable<string>): string[] {
  const streams = digitStreams(text);
  return [...pans].filter((pan) => streams.includes(pan));
}

/** Files under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** PGlite on disk (so its data directory, WAL included, can be read) and PostgreSQL when TEST_DATABASE_URL is set. */
const pgliteDir = await mkdtemp(join(tmpdir(), 'pan-pglite-'));
const targets: DatabaseTarget[] = [
  { name: 'pglite', open: () => openPgliteDb(pgliteDir) },
  ...databaseTargets().filter((t) => t.name === 'postgres'),
];

/** One string a request can carry: where it goes and the name the 400 must give. */
interface Slot {
  method: string;
  path: string;
  where: 'body' | 'query' | 'path';
  /** Dotted path in the body (`variations.0.sku`), or the parameter's name. */
  field: string;
}

/** The string leaves of a JSON schema (after `$ref`), as dotted paths (array items as `0`); free-text names skipped. */
function stringPaths(schema: Json | undefined, doc: Json, prefix = '', seen = new Set<Json>(), depth = 0): string[] {
  if (!schema || depth > 6) return [];
  if (schema.$ref) {
    const target = (schema.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: Json, k) => o?.[k], doc);
    if (!target || seen.has(target)) return [];
    return stringPaths(target, doc, prefix, new Set([...seen, target]), depth + 1);
  }
  const variants = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  if (variants.length > 0) return [...new Set(variants.flatMap((v: Json) => stringPaths(v, doc, prefix, seen, depth + 1)))];
  const types = ([] as string[]).concat(schema.type ?? []);
  if (types.includes('string') && prefix) return [prefix];
  if (types.includes('array')) return stringPaths(schema.items, doc, prefix ? `${prefix}.0` : '0', seen, depth + 1);
  if (schema.properties) {
    return Object.entries(schema.properties as Record<string, Json>).flatMap(([key, sub]) =>
      FREE_TEXT_FIELDS.has(key) || PARSED_BY_ROUTE_FIELDS.has(key) ? [] : stringPaths(sub, doc, prefix ? `${prefix}.${key}` : key, seen, depth + 1),
    );
  }
  return [];
}

/** `{ a: { b: [value] } }` for `a.b.0`. */
function bodyWith(path: string, value: string): unknown {
  const keys = path.split('.');
  const build = (i: number): unknown => {
    if (i === keys.length) return value;
    return /^\d+$/.test(keys[i]!) ? [build(i + 1)] : { [keys[i]!]: build(i + 1) };
  };
  return build(0);
}

describe.each(targets)('no card number stored in any spelling, no secret kept by a replay, on $name', (target) => {
  let server: TestServer;
  const logLines: string[] = [];
  const sent = new Set<string>();
  const secrets: string[] = [];
  let closed = false;
  let staff: Record<string, string>;
  let slots: Slot[] = [];
  let walked = { refused: 0, notAdmitted: 0 };

  beforeAll(async () => {
    const roomy = (name: string) => ({
      perClient: new RateLimit({ name: `${name}-client`, quota: 1e9, windowSeconds: 60 }),
      global: new RateLimit({ name, quota: 1e9, windowSeconds: 60 }),
    });
    server = await startTestServer({
      target,
      staticDir: null,
      logger: { write: (line: string) => void logLines.push(line) },
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      signUpRateLimits: roomy('signup'),
      developerSignUpRateLimits: roomy('developer-signup'),
      pairingRateLimits: roomy('pairing'),
    });
    staff = { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' };
    const doc = (await server.app.inject({ method: 'GET', url: '/api/openapi.json' })).json<Json>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const m = method.toUpperCase();
        for (const p of (op.parameters ?? []) as Json[]) {
          if (p.in === 'query' || p.in === 'path') slots.push({ method: m, path, where: p.in, field: p.name });
        }
        const body = op.requestBody?.content?.['application/json']?.schema;
        for (const field of stringPaths(body, doc)) slots.push({ method: m, path, where: 'body', field });
      }
    }
  });
  afterAll(async () => {
    if (!closed) await server?.close();
    if (target.name === 'pglite') await rm(pgliteDir, { recursive: true, force: true });
  });

  /** Sends `slot` holding `text`: the answer's status and the fields its problem names. */
  async function send(slot: Slot, text: string): Promise<{ status: number; paths: string[] }> {
    let url = slot.path.replace(/\{([^}]+)\}/g, (_all, name: string) =>
      slot.where === 'path' && name === slot.field ? encodeURIComponent(text) : 'x_1',
    );
    if (slot.where === 'query') url += `?${slot.field}=${encodeURIComponent(text)}`;
    const withBody = slot.method !== 'GET' && slot.method !== 'DELETE';
    const payload = slot.where === 'body' ? bodyWith(slot.field, text) : withBody ? {} : undefined;
    const res = await server.app.inject({
      method: slot.method as 'POST',
      url,
      headers: payload === undefined ? { authorization: staff.authorization! } : staff,
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    const paths = res.statusCode === 400 ? ((res.json().errors ?? []) as { path: string }[]).map((e) => e.path) : [];
    return { status: res.statusCode, paths };
  }

  /** The check of one slot: refused naming the field, or not admitted before the body is read; never a success. */
  async function refusedOrNotAdmitted(slot: Slot, pan: string, how: string): Promise<void> {
    const text = spellings(pan)[how]!;
    sent.add(pan);
    const { status, paths } = await send(slot, `ref ${text}`);
    const where = `${slot.method} ${slot.path} ${slot.where}:${slot.field} (${how})`;
    const pathParams = [...slot.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    if (status === 400 && slot.where !== 'path' && paths.length > 0 && paths.every((p) => pathParams.includes(p))) {
      walked.notAdmitted++; // the route refused its placeholder id first
    } else if (status === 400) {
      expect(paths, where).toEqual([slot.field]);
      walked.refused++;
    } else {
      expect([401, 403, 415, 429], `${where} answered ${status}`).toContain(status);
      walked.notAdmitted++;
    }
  }

  it('every string of every route of the OpenAPI document refuses a card number in any spelling (400 naming the field)', async () => {
    expect(slots.length).toBeGreaterThan(300);
    // Each slot once, the spellings in turn…
    const sample = fc.sample(panArb, { numRuns: slots.length, seed: 7 });
    for (const [i, slot] of slots.entries()) await refusedOrNotAdmitted(slot, sample[i]!, SPELLINGS[i % SPELLINGS.length]!);
    // …then random slots, PANs and spellings.
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...slots), panArb, fc.constantFrom(...SPELLINGS), async (slot, pan, how) =>
        refusedOrNotAdmitted(slot, pan, how),
      ),
      { numRuns: 200, seed: 11 },
    );
    // Most slots reach the boundary with the staff token (the rest are developer, platform-admin or register routes).
    expect(walked.refused).toBeGreaterThan(slots.length / 2);
    console.info(
      `${target.name}: ${slots.length} strings of the OpenAPI document; ${walked.refused} refused naming the field, ${walked.notAdmitted} not admitted`,
    );
  });

  it('the fields seen holding card numbers refuse them; free text masks them (the CVC beside it too)', async () => {
    const [p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11] = fc.sample(panArb, { numRuns: 11, seed: 3 });
    for (const p of [p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11]) sent.add(p!);
    const call = (method: 'POST' | 'GET', url: string, payload?: unknown, headers: Record<string, string> = staff) =>
      server.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });
    const refused = async (url: string, payload: unknown, field: string, headers?: Record<string, string>) => {
      const res = await call('POST', url, payload, headers);
      expect(res.statusCode, `${url} ${field}`).toBe(400);
      expect(
        res.json().errors.map((e: { path: string }) => e.path),
        url,
      ).toEqual([field]);
    };
    const s = (pan: string, how: string) => spellings(pan)[how]!;
    await refused('/api/pos/webhooks', { url: `https://example.com/h/${s(p1!, 'dot')}`, eventTypes: ['order.paid'] }, 'url');
    await refused('/api/pos/screenings', { name: `Ana ${s(p2!, 'nbsp')}` }, 'name');
    await refused('/api/pos/screenings', { name: 'Ana Lima', subjectRef: s(p3!, 'zeroWidth') }, 'subjectRef');
    await refused('/api/pos/staff', { name: `Cass ${s(p4!, 'fullWidth')}`, role: 'cashier', pin: '1357' }, 'name');
    await refused('/api/pos/customers', { givenName: 'Ana', email: `${s(p5!, 'plain')}@example.com` }, 'email');
    await refused('/api/pos/customers', { givenName: 'Ana', email: `${s(p5!, 'fullWidth')}@example.com` }, 'email');
    await refused(
      '/api/signup',
      {
        storeName: `Shop ${s(p6!, 'twoSpaces')}`,
        country: 'US',
        currency: 'USD',
        timeZone: 'America/New_York',
        ownerName: 'Own Er',
        ownerEmail: 'own@pan-shop.example',
        ownerPin: '482915',
      },
      'storeName',
      { 'content-type': 'application/json' },
    );
    const developer = await call(
      'POST',
      '/api/developers',
      { name: 'Pan Labs', email: 'dev@pan-labs.example' },
      { 'content-type': 'application/json' },
    );
    expect(developer.statusCode).toBe(201);
    const dev = { authorization: `Bearer ${developer.json().developerToken}`, 'content-type': 'application/json' };
    const app = {
      name: 'Pan App',
      description: 'x',
      scopes: ['catalog:read'],
      redirectUris: [`https://app.example/cb/${s(p7!, 'slash')}`],
      webhookUrl: 'https://app.example/hook',
    };
    const refusedApp = await call('POST', '/api/developer/apps', app, dev);
    expect(refusedApp.statusCode).toBe(400);
    expect(refusedApp.json().errors.map((e: { path: string }) => e.path)).toContain('redirectUris.0');
    const hookApp = await call(
      'POST',
      '/api/developer/apps',
      { ...app, redirectUris: ['https://app.example/cb'], webhookUrl: `https://app.example/hook?c=${s(p8!, 'newline')}` },
      dev,
    );
    expect(hookApp.statusCode).toBe(400);
    expect(hookApp.json().errors.map((e: { path: string }) => e.path)).toContain('webhookUrl');

    // Free text: masked, first six and last four, in the spelling it came in; the CVC beside it masked too.
    const hook = await call('POST', '/api/pos/webhooks', {
      url: 'https://example.com/hook-pan',
      eventTypes: ['order.paid'],
      description: `card ${s(p9!, 'dot')} cvc 987`,
    });
    expect(hook.statusCode).toBe(201);
    expect(hook.json().description).toMatch(/^card [\d.*]+ cvc \*\*\*$/);
    expect(hook.json().description.replace(/\D/g, '')).toHaveLength(10);
    // A code pasted right after the card, without a label, is not kept either (the expiry is).
    const pasted = await call('POST', '/api/pos/webhooks', {
      url: 'https://example.com/hook-pasted',
      eventTypes: ['order.paid'],
      description: `paid with ${s(p11!, 'nbsp')} 12/29 4321`,
    });
    expect(pasted.statusCode).toBe(201);
    expect(pasted.json().description).toMatch(/ 12\/29 \*\*\*\*$/);
    const image = await call('POST', '/api/v1/images/generate', {
      prompt: `a gift card ${s(p10!, 'fullWidthSpaced')} cvv 123`,
      style: 'photo',
      aspect: '1:1',
    });
    expect([200, 201, 202, 400, 402, 503]).toContain(image.statusCode);
    if (image.statusCode === 400) expect(JSON.stringify(image.json().errors)).not.toContain('prompt');
  });

  it('a route that answers a secret, called with an Idempotency-Key, replays it; the store holds it sealed only', async () => {
    const keyed = (url: string, key: string, payload: unknown = {}) =>
      server.app.inject({ method: 'POST', url, headers: { ...staff, 'idempotency-key': key }, payload: JSON.stringify(payload) });
    const created = await keyed('/api/pos/webhooks', 'hook-secret-1', { url: 'https://example.com/hook-secret', eventTypes: ['order.paid'] });
    expect(created.statusCode).toBe(201);
    const again = await keyed('/api/pos/webhooks', 'hook-secret-1', { url: 'https://example.com/hook-secret', eventTypes: ['order.paid'] });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().secret).toBe(created.json().secret);
    secrets.push(created.json().secret);

    const rotated = await keyed(`/api/pos/webhooks/${created.json().id}/rotate-secret`, 'rotate-1');
    expect(rotated.statusCode).toBe(200);
    expect((await keyed(`/api/pos/webhooks/${created.json().id}/rotate-secret`, 'rotate-1')).json().secret).toBe(rotated.json().secret);
    secrets.push(rotated.json().secret);

    const code = await keyed('/api/pos/registers/pairing-codes', 'pair-1');
    expect(code.statusCode).toBe(201);
    expect((await keyed('/api/pos/registers/pairing-codes', 'pair-1')).json().code).toBe(code.json().code);
    secrets.push(code.json().code, code.json().code.replace('-', ''));

    const stored = (await server.db.query<{ body: string }>('SELECT response_body::text AS body FROM idempotency_keys')).rows.map((r) => r.body);
    expect(stored.length).toBeGreaterThanOrEqual(3);
    for (const body of stored) expect(body).toMatch(/^"kek1\.[A-Za-z0-9_-]+"$/);
  });

  it('the database (dump, or every file of the data directory with its WAL) and the log hold none of them', async () => {
    expect(sent.size).toBeGreaterThan(300);
    let stored: string;
    if (target.name === 'postgres') {
      const name = (await server.db.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${name}`;
      stored = (await execFileAsync('/usr/bin/pg_dump', ['--no-owner', url.toString()], { maxBuffer: 256 * 1024 * 1024 })).stdout;
      expect(stored).toContain('COPY public.audit_log');
      await server.close();
    } else {
      // Every row of every table as text (PGlite has no pg_dump): a value the files hold compressed (TOAST) is read
      // here in full; then the files themselves, WAL included.
      const tables = await server.db.query<{ name: string }>(
        `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
         WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      expect(tables.rows.map((t) => t.name)).toContain('public.audit_log');
      const rows: string[] = [];
      for (const { name } of tables.rows) {
        rows.push(...(await server.db.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`)).rows.map((r) => r.row));
      }
      await server.close(); // flushes and closes PGlite: its files are complete
      const files = await filesUnder(pgliteDir);
      expect(files.some((f) => f.includes('pg_wal'))).toBe(true);
      stored = [...rows, ...(await Promise.all(files.map((f) => readFile(f)))).map((b) => b.toString('utf8'))].join('\n');
    }
    closed = true;
    expect(stored).toContain('hook-secret'); // the rows are there…
    const found = leaks(stored, sent);
    const where = found.map((pan) => {
      const at = stored.indexOf(pan.slice(0, 6));
      return `${pan} near ${JSON.stringify(stored.slice(Math.max(0, at - 300), at + 100))}`;
    });
    expect(found, where.join('\n')).toEqual([]); // …no PAN sent, in any spelling, is
    expect(stored).not.toMatch(/\b(cvc|cvv)\b\s*[:#]?\s*(987|123)\b/i);
    expect(stored).toContain('hook-pasted');
    expect(stored).not.toContain('12/29 4321');
    for (const secret of secrets) expect(stored, 'a secret answered by an idempotent route').not.toContain(secret);
    const log = logLines.join('');
    expect(log).toContain('/api/pos/webhooks');
    expect(leaks(log, sent)).toEqual([]);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
