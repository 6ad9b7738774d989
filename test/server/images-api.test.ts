import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../sync-server/src/app.ts';
import { IdentityProvider, issueAppToken } from '../../sync-server/src/platform/auth/identity.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import {
  LocalImageGenerator,
  ProviderError,
  type GenerateInput,
  type GeneratedImage,
  type ImageGenerator,
} from '../../sync-server/src/modules/images/generator.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import type { ImageOptions } from '../../sync-server/src/modules/images/routes.ts';
import { IMAGE_RETENTION_MS, purgeExpiredImages, setCreditBalance } from '../../sync-server/src/modules/images/service.ts';
import { FsImageStore, type ImageStore } from '../../sync-server/src/modules/images/store.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets, type DatabaseTarget } from '../support/databases.ts';

const BASE_URL = 'http://localhost';
const START = new Date('2026-03-02T09:00:00.000Z');

/** The local generator, or a provider that fails like a remote API answering 500. */
class SwitchableGenerator implements ImageGenerator {
  readonly name = 'test';
  mode: 'local' | 'fail' = 'local';
  calls = 0;
  private readonly local = new LocalImageGenerator();
  async generate(input: GenerateInput): Promise<GeneratedImage> {
    this.calls += 1;
    if (this.mode === 'fail') throw new ProviderError('image provider answered 500: upstream error', 500);
    return this.local.generate(input);
  }
}

interface Harness {
  app: FastifyInstance;
  db: Db;
  store: ImageStore;
  dir: string;
  merchantId: string;
  staffToken: string;
  /** The demo app's token: catalog:read orders:read pay:create webhooks — no images:generate. */
  demoAppToken: string;
  /** An app token holding images:generate only. */
  imageAppToken: string;
  generator: SwitchableGenerator;
  clock: { now: Date };
  close(): Promise<void>;
}

/** A migrated, seeded server built with image options injected (generator, store in a temp DATA_DIR, clock). */
async function startHarness(target: DatabaseTarget, images: Partial<ImageOptions> = {}): Promise<Harness> {
  const db = await target.open();
  const dir = await mkdtemp(join(tmpdir(), 'register-images-api-'));
  const clock = { now: START };
  const generator = new SwitchableGenerator();
  const store = new FsImageStore(join(dir, 'images'));
  await migrate(db);
  const seed = await seedDemoStore(db);
  const app = await buildApp({
    db,
    config: { baseUrl: BASE_URL, staticDir: null },
    clock: () => clock.now,
    images: { generator, store, purgeIntervalMs: 0, ...images },
  });
  await app.ready();
  const idp = await IdentityProvider.load(db, BASE_URL);
  const staffToken = await idp.issueStaffToken(
    { staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole },
    { now: START, ttlSeconds: 30 * 24 * 3600 },
  );
  const imageApp = await issueAppToken(db, { merchantId: seed.merchantId, appName: 'Menu pictures', scopes: ['images:generate'] });
  return {
    app,
    db,
    store,
    dir,
    merchantId: seed.merchantId,
    staffToken,
    demoAppToken: seed.appToken!,
    imageAppToken: imageApp.token,
    generator,
    clock,
    async close() {
      await app.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function post(h: Harness, body: unknown, headers: Record<string, string> = {}, token: string | null = h.staffToken) {
  return h.app.inject({
    method: 'POST',
    url: '/api/v1/images/generate',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function balanceOf(h: Harness): Promise<number> {
  const res = await h.app.inject({ method: 'GET', url: '/api/v1/credits', headers: { authorization: `Bearer ${h.staffToken}` } });
  expect(res.statusCode).toBe(200);
  return (res.json() as { balance: number }).balance;
}

async function imageRows(h: Harness): Promise<number> {
  const { rows } = await h.db.query<{ n: number | string }>('SELECT count(*) AS n FROM generated_images WHERE merchant_id = $1', [h.merchantId]);
  return Number(rows[0]!.n);
}

async function storedFiles(h: Harness): Promise<string[]> {
  return existsSync(join(h.dir, 'images')) ? (await readdir(join(h.dir, 'images'))).sort() : [];
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as {
    status: number;
    code: string;
    type: string;
    title: string;
    detail: string;
    errors?: Array<{ path: string; message: string }>;
  };
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  return body;
}

describe.each(databaseTargets())('POST /api/v1/images/generate on $name', (target) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(target);
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    h.generator.mode = 'local';
    h.clock.now = START;
    await h.db.query('DELETE FROM kept_images');
    await h.db.query('DELETE FROM generated_images');
    for (const file of await storedFiles(h)) await h.store.delete(file);
    await setCreditBalance(h.db, h.merchantId, 50);
  });

  it('starts the demo store with 50 credits, visible to the back office', async () => {
    await h.db.query('DELETE FROM merchant_credits');
    expect(await balanceOf(h)).toBe(50);
  });

  it('generates n = 2 real PNGs of the aspect size, served at their urls, and charges 2 credits', async () => {
    const res = await post(h, { prompt: 'Iced oat milk latte with caramel', style: 'cinematic', aspect: '16:9', n: 2 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { images: Array<{ url: string; width: number; height: number }>; credits_used: number };
    expect(Object.keys(body).sort()).toEqual(['credits_used', 'images']);
    expect(body.credits_used).toBe(2);
    expect(body.images).toHaveLength(2);
    expect(new Set(body.images.map((i) => i.url)).size).toBe(2);
    for (const image of body.images) {
      expect(image.url).toMatch(/^http:\/\/localhost\/api\/v1\/images\/img_[0-9A-HJKMNP-TV-Z]{26}\.png$/);
      expect([image.width, image.height]).toEqual([1792, 1008]);
      const png = await h.app.inject({ method: 'GET', url: pathOf(image.url) });
      expect(png.statusCode).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      expect(png.headers['cache-control']).toMatch(/max-age=\d+/);
      const meta = await sharp(png.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 1792, 1008]);
    }
    // The two images differ (index is part of the seed).
    const [a, b] = await Promise.all(body.images.map((i) => h.app.inject({ method: 'GET', url: pathOf(i.url) })));
    expect(a!.rawPayload.equals(b!.rawPayload)).toBe(false);
    expect(await balanceOf(h)).toBe(48);
    expect(await imageRows(h)).toBe(2);
    expect(await storedFiles(h)).toHaveLength(2);
    // Retention is recorded: expires 7 days after creation.
    const { rows } = await h.db.query<{ created_at: Date; expires_at: Date }>('SELECT created_at, expires_at FROM generated_images');
    for (const row of rows) {
      expect(new Date(row.created_at).toISOString()).toBe(START.toISOString());
      expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(IMAGE_RETENTION_MS);
    }
    // The charge is audited, and the chain still verifies.
    const audit = await h.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE merchant_id = $1 AND action = 'images.generated'`, [
      h.merchantId,
    ]);
    expect(audit.rows.length).toBeGreaterThanOrEqual(1);
    expect((await verifyAuditChain(h.db, h.merchantId)).ok).toBe(true);
  });

  it('defaults n to 1 and sizes every aspect', async () => {
    for (const [aspect, size] of [
      ['1:1', [1024, 1024]],
      ['9:16', [1008, 1792]],
    ] as const) {
      const res = await post(h, { prompt: 'Croissant', style: 'illustration', aspect });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { images: Array<{ url: string; width: number; height: number }>; credits_used: number };
      expect(body.credits_used).toBe(1);
      expect(body.images.map((i) => [i.width, i.height])).toEqual([size]);
      const meta = await sharp((await h.app.inject({ method: 'GET', url: pathOf(body.images[0]!.url) })).rawPayload).metadata();
      expect([meta.width, meta.height]).toEqual(size);
    }
    expect(await balanceOf(h)).toBe(48);
  });

  it('accepts a prompt of exactly 1000 characters (code points)', async () => {
    const res = await post(h, { prompt: '☕'.repeat(1000), style: '3d', aspect: '1:1', n: 1 });
    expect(res.statusCode, res.body).toBe(200);
  });

  const valid = { prompt: 'Blueberry muffin', style: 'photorealistic', aspect: '1:1', n: 1 };
  const badInputs: Array<[string, unknown, string]> = [
    ['empty prompt', { ...valid, prompt: '' }, 'prompt'],
    ['blank prompt', { ...valid, prompt: '   ' }, 'prompt'],
    ['prompt of 1001 characters', { ...valid, prompt: 'a'.repeat(1001) }, 'prompt'],
    ['prompt missing', { style: 'photorealistic', aspect: '1:1' }, 'prompt'],
    ['prompt not a string', { ...valid, prompt: 42 }, 'prompt'],
    ['unknown style', { ...valid, style: 'anime' }, 'style'],
    ['style missing', { prompt: 'x', aspect: '1:1' }, 'style'],
    ['unknown aspect', { ...valid, aspect: '4:3' }, 'aspect'],
    ['n = 0', { ...valid, n: 0 }, 'n'],
    ['n = 5', { ...valid, n: 5 }, 'n'],
    ['n = 1.5', { ...valid, n: 1.5 }, 'n'],
    ['n as a string', { ...valid, n: '2' }, 'n'],
    ['unknown field', { ...valid, seed: 7 }, 'seed'],
    ['a body that is not an object', [valid], '(body)'],
  ];
  it.each(badInputs)('refuses %s with a 400 naming the field and charges nothing', async (_label, body, field) => {
    const res = await post(h, body);
    const problem = expectProblem(res, 400, 'validation_error');
    expect(problem.errors?.map((e) => e.path)).toContain(field);
    expect(problem.detail).toContain(field);
    expect(await balanceOf(h)).toBe(50);
    expect(await imageRows(h)).toBe(0);
  });

  it('refuses malformed JSON with a 400 problem', async () => {
    expectProblem(await post(h, '{"prompt": "x",'), 400, 'invalid_json');
    expect(await balanceOf(h)).toBe(50);
  });

  it('needs a bearer token (401) and, for apps, the images:generate scope (403)', async () => {
    expectProblem(await post(h, valid, {}, null), 401, 'unauthorized');
    expectProblem(await post(h, valid, {}, 'not-a-token'), 401, 'invalid_token');
    expectProblem(await post(h, valid, {}, 'rpa_unknown'), 401, 'invalid_token');
    const forbidden = await post(h, valid, {}, h.demoAppToken);
    expectProblem(forbidden, 403, 'insufficient_scope');
    expect(forbidden.headers['www-authenticate']).toContain('scope="images:generate"');
    expect(await balanceOf(h)).toBe(50);

    const allowed = await post(h, valid, {}, h.imageAppToken);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(await balanceOf(h)).toBe(49);
    // The balance is staff-only.
    const credits = await h.app.inject({ method: 'GET', url: '/api/v1/credits', headers: { authorization: `Bearer ${h.imageAppToken}` } });
    expectProblem(credits, 403, 'staff_only');
  });

  it('carries the rate-limit header fields (IETF draft and the older ones)', async () => {
    const app = await post(h, valid, {}, h.imageAppToken);
    expect(app.headers['ratelimit-policy']).toBe('"app";q=120;w=60');
    expect(app.headers.ratelimit).toMatch(/^"app";r=\d+;t=\d+$/);
    expect(app.headers['ratelimit-limit']).toBe('120');
    expect(Number(app.headers['ratelimit-remaining'])).toBeLessThan(120);
    expect(Number(app.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
    const staff = await post(h, { ...valid, style: 'unknown' });
    expect(staff.statusCode).toBe(400);
    expect(staff.headers['ratelimit-policy']).toBe('"staff";q=120;w=60');
    expect(staff.headers.ratelimit).toMatch(/^"staff";r=\d+;t=\d+$/);
  });

  it('answers 402 when the balance is short, generating and charging nothing', async () => {
    await setCreditBalance(h.db, h.merchantId, 1);
    const calls = h.generator.calls;
    const res = await post(h, { ...valid, n: 2 });
    const problem = expectProblem(res, 402, 'insufficient_credits');
    expect(problem.detail).toMatch(/balance is 1/);
    expect(problem).toMatchObject({ balance: 1, required: 2, title: 'Payment Required' });
    expect(h.generator.calls).toBe(calls);
    expect(await balanceOf(h)).toBe(1);
    expect(await imageRows(h)).toBe(0);
    expect(await storedFiles(h)).toEqual([]);
    // One image still fits.
    expect((await post(h, { ...valid, n: 1 })).statusCode).toBe(200);
    expect(await balanceOf(h)).toBe(0);
    expectProblem(await post(h, valid), 402, 'insufficient_credits');
  });

  it('answers 502 when the provider fails, charging nothing and keeping no file', async () => {
    h.generator.mode = 'fail';
    const res = await post(h, { ...valid, n: 3 }, { 'idempotency-key': 'provider-down-1' });
    expectProblem(res, 502, 'image_provider_failed');
    expect(await balanceOf(h)).toBe(50);
    expect(await imageRows(h)).toBe(0);
    expect(await storedFiles(h)).toEqual([]);
    // A 5xx is not stored under the idempotency key: the retry runs once the provider is back.
    h.generator.mode = 'local';
    const retry = await post(h, { ...valid, n: 3 }, { 'idempotency-key': 'provider-down-1' });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await balanceOf(h)).toBe(47);
  });

  it('replays an Idempotency-Key without charging again; another body under the same key is 422', async () => {
    const first = await post(h, { ...valid, n: 2 }, { 'idempotency-key': 'menu-shot-1' });
    expect(first.statusCode, first.body).toBe(200);
    const replay = await post(h, { ...valid, n: 2 }, { 'idempotency-key': 'menu-shot-1' });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    expect(await balanceOf(h)).toBe(48);
    expect(await imageRows(h)).toBe(2);
    expectProblem(await post(h, { ...valid, n: 1 }, { 'idempotency-key': 'menu-shot-1' }), 422, 'idempotency_key_reused');
    expect(await balanceOf(h)).toBe(48);
  });

  it('never lets concurrent requests overdraw the balance', async () => {
    await setCreditBalance(h.db, h.merchantId, 3);
    const results = await Promise.all([1, 2, 3].map(() => post(h, { ...valid, n: 2 })));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 402, 402]);
    expect(await balanceOf(h)).toBe(1);
    expect(await imageRows(h)).toBe(2);
    expect(await storedFiles(h)).toHaveLength(2);
  });

  it('serves an image for 7 days, then answers 410; the purge deletes the file and keeps the 410', async () => {
    const res = await post(h, { ...valid, n: 1 });
    const url = pathOf((res.json() as { images: Array<{ url: string }> }).images[0]!.url);
    expect(await storedFiles(h)).toHaveLength(1);

    h.clock.now = new Date(START.getTime() + IMAGE_RETENTION_MS - 1000);
    expect((await h.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    expect(await purgeExpiredImages(h.db, h.store, h.clock.now)).toBe(0);

    h.clock.now = new Date(START.getTime() + IMAGE_RETENTION_MS);
    expectProblem(await h.app.inject({ method: 'GET', url }), 410, 'image_expired');
    expect(await storedFiles(h)).toHaveLength(1); // not purged yet, but no longer served

    expect(await purgeExpiredImages(h.db, h.store, h.clock.now)).toBe(1);
    expect(await storedFiles(h)).toEqual([]);
    expectProblem(await h.app.inject({ method: 'GET', url }), 410, 'image_expired');
    const { rows } = await h.db.query<{ purged_at: Date | null }>('SELECT purged_at FROM generated_images');
    expect(rows.map((r) => r.purged_at !== null)).toEqual([true]);
    expect(await purgeExpiredImages(h.db, h.store, h.clock.now)).toBe(0);
  });

  it('is described in the OpenAPI document of the /api/v1 platform API', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, any>> };
    expect(doc.openapi).toBe('3.1.0');
    const generate = doc.paths['/api/v1/images/generate']!.post;
    expect(generate.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['prompt', 'style', 'aspect'],
      properties: {
        prompt: { type: 'string', minLength: 1, maxLength: 1000 },
        style: { enum: ['photorealistic', 'illustration', 'cinematic', '3d'] },
        aspect: { enum: ['1:1', '16:9', '9:16'] },
        n: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
      },
    });
    expect(generate.responses['200'].content['application/json'].schema.required).toEqual(['images', 'credits_used']);
    expect(Object.keys(generate.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '429', '502']));
    expect(generate.security).toContainEqual({ appToken: ['images:generate'] });
    expect(doc.paths['/api/v1/images/{file}']!.get.responses['410']).toBeDefined();
    expect(doc.paths['/api/v1/credits']!.get).toBeDefined();
  });

  it('keeps a permanent copy for the catalog that outlives the 7 days, free of charge', async () => {
    const res = await post(h, { prompt: 'Cinnamon roll, product photo', style: 'photorealistic', aspect: '1:1' });
    const generated = (res.json() as { images: Array<{ url: string }> }).images[0]!.url;
    const id = /img_[0-9A-Z]{26}/.exec(generated)![0];
    const keep = () => h.app.inject({ method: 'POST', url: `/api/v1/images/${id}/keep`, headers: { authorization: `Bearer ${h.staffToken}` } });
    const kept = await keep();
    expect(kept.statusCode, kept.body).toBe(200);
    const copy = kept.json() as { url: string; width: number; height: number };
    expect(copy).toMatchObject({ width: 1024, height: 1024 });
    expect(copy.url).toMatch(/^http:\/\/localhost\/api\/v1\/media\/med_[0-9A-HJKMNP-TV-Z]{26}\.png$/);
    expect((await keep()).json()).toEqual(copy); // keeping twice gives the same copy
    expect(await balanceOf(h)).toBe(49);
    // App tokens cannot keep; unknown ids are 404.
    const byApp = await h.app.inject({ method: 'POST', url: `/api/v1/images/${id}/keep`, headers: { authorization: `Bearer ${h.imageAppToken}` } });
    expectProblem(byApp, 403, 'staff_only');
    const unknown = await h.app.inject({
      method: 'POST',
      url: '/api/v1/images/img_01ARZ3NDEKTSV4RRFFQ69G5FAV/keep',
      headers: { authorization: `Bearer ${h.staffToken}` },
    });
    expectProblem(unknown, 404, 'not_found');

    h.clock.now = new Date(START.getTime() + IMAGE_RETENTION_MS + 1);
    await purgeExpiredImages(h.db, h.store, h.clock.now);
    expectProblem(await h.app.inject({ method: 'GET', url: pathOf(generated) }), 410, 'image_expired');
    const media = await h.app.inject({ method: 'GET', url: pathOf(copy.url) });
    expect(media.statusCode).toBe(200);
    expect(media.headers['content-type']).toBe('image/png');
    expect((await sharp(media.rawPayload).metadata()).width).toBe(1024);
    // Too late to keep the generated image itself now.
    const { rows } = await h.db.query<{ id: string }>('DELETE FROM kept_images RETURNING id');
    expect(rows).toHaveLength(1);
    expectProblem(await keep(), 410, 'image_expired');
  });

  it('answers 404 for unknown image ids', async () => {
    expectProblem(await h.app.inject({ method: 'GET', url: '/api/v1/images/img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png' }), 404, 'not_found');
    expectProblem(await h.app.inject({ method: 'GET', url: '/api/v1/images/..%2Fpglite.png' }), 404, 'not_found');
  });
});

describe.each(databaseTargets())('image server jobs and limits on $name', (target) => {
  it('runs the purge on an interval with the injected clock', async () => {
    const h = await startHarness(target, { purgeIntervalMs: 25 });
    try {
      const res = await post(h, { prompt: 'Scone', style: '3d', aspect: '1:1' });
      expect(res.statusCode, res.body).toBe(200);
      expect(await storedFiles(h)).toHaveLength(1);
      h.clock.now = new Date(START.getTime() + IMAGE_RETENTION_MS + 1);
      await vi.waitFor(async () => expect(await storedFiles(h)).toEqual([]), { timeout: 5_000, interval: 25 });
    } finally {
      await h.close();
    }
  });

  it('answers 429 with Retry-After and a quota-exceeded problem once the quota is used', async () => {
    const h = await startHarness(target, {
      rateLimits: {
        app: new RateLimit({ name: 'app', quota: 2, windowSeconds: 60 }),
        staff: new RateLimit({ name: 'staff', quota: 2, windowSeconds: 60 }),
      },
    });
    try {
      const body = { prompt: 'x', style: 'nope', aspect: '1:1' }; // cheap: fails validation after the limiter
      expect((await post(h, body, {}, h.imageAppToken)).headers['ratelimit-remaining']).toBe('1');
      expect((await post(h, body, {}, h.imageAppToken)).headers['ratelimit-remaining']).toBe('0');
      const limited = await post(h, body, {}, h.imageAppToken);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.headers.ratelimit).toMatch(/^"app";r=0;t=\d+$/);
      expect(limited.json()).toMatchObject({
        type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
        status: 429,
        'violated-policies': ['app'],
      });
      // Another caller (staff) has its own quota.
      expect((await post(h, body)).statusCode).toBe(400);
    } finally {
      await h.close();
    }
  });
});
