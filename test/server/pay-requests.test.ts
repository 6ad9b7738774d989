import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payRequestSchema } from '../../core/index.ts';
import { idempotencyRequestHash, keyDigest } from '../../sync-server/src/platform/http/idempotency.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

describe.each(databaseTargets())('pay requests on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
  });
  afterAll(async () => {
    await server?.close();
  });

  const create = (payload: unknown, headers: Record<string, string> = {}, token = server.credentials.appToken) =>
    server.app.inject({
      method: 'POST',
      url: '/api/pos/pay-requests',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
    });

  const counts = async () => {
    const n = async (table: string) => Number((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n);
    return { payRequests: await n('pay_requests'), sms: await n('sms_outbox'), audit: await n('audit_log') };
  };

  it('creates a free-amount pay request, queues its SMS and audits it', async () => {
    const before = await counts();
    const res = await create({ amountCents: 2599, phone: '+14155550123', memo: 'Table 4' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(payRequestSchema.parse(body)).toEqual(body);
    expect(body).toEqual({
      id: expect.stringMatching(/^pr_[0-9A-HJKMNP-TV-Z]{26}$/),
      status: 'pending',
      amountCents: 2599,
      currency: 'USD',
      phone: '+14155550123',
      memo: 'Table 4',
      url: `${server.baseUrl}/pay/${body.id}`,
      expiresAt: '2026-03-08T12:00:00.000Z',
      createdAt: NOW.toISOString(),
      paidAt: null,
    });
    expect(await counts()).toEqual({ payRequests: before.payRequests + 1, sms: before.sms + 1, audit: before.audit + 1 });
    const sms = await server.db.query<{ to_phone: string; body: string; status: string }>(
      'SELECT to_phone, body, status FROM sms_outbox ORDER BY created_at DESC, id DESC LIMIT 1',
    );
    expect(sms.rows[0]).toMatchObject({ to_phone: '+14155550123', status: 'queued' });
    expect(sms.rows[0]!.body).toContain('$25.99');
    expect(sms.rows[0]!.body).toContain(body.url);

    const fetched = await server.app.inject({
      method: 'GET',
      url: `/api/pos/pay-requests/${body.id}`,
      headers: { authorization: `Bearer ${server.credentials.appToken}` },
    });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(body);

    const pagePath = new URL(body.url).pathname;
    const page = await server.app.inject({ method: 'GET', url: pagePath });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Register Demo Café &amp; Market');
    expect(page.body).toContain('$25.99');
    expect(page.body).toContain('Table 4');
    expect(page.body).toContain('Sandbox');
    expect(page.body).toContain('pending');

    const outbox = await server.app.inject({
      method: 'GET',
      url: '/api/pos/sms-outbox?limit=1',
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
    });
    expect(outbox.statusCode).toBe(200);
    expect(outbox.json().data[0]).toMatchObject({ to: '+14155550123', status: 'queued' });
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  });

  it('memo is null when absent; staff tokens may create too', async () => {
    const res = await create({ amountCents: 1, phone: '+442079460958' }, {}, server.credentials.staffToken);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ memo: null, amountCents: 1, phone: '+442079460958' });
  });

  it('prices lineItems on the server from the catalog', async () => {
    const res = await create({
      phone: '+14155550123',
      lineItems: [
        { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_shot'], quantity: 2 },
        { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', quantity: 1 },
      ],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    // 2 × (450 + 100 + 90) = 1280, tax 8.75 % = 112; haircut 3500 untaxed.
    expect(body.amountCents).toBe(1280 + 112 + 3500);
    expect(body.lineItems).toHaveLength(2);
    expect(body.lineItems[0]).toMatchObject({ unitPriceCents: 640, quantity: 2, grossCents: 1280, taxCents: 112 });
    expect(payRequestSchema.safeParse(body).success).toBe(true);
  });

  const badInputs: [string, unknown, string][] = [
    ['amountCents 0', { amountCents: 0, phone: '+14155550123' }, 'amountCents'],
    ['amountCents 100000000', { amountCents: 100_000_000, phone: '+14155550123' }, 'amountCents'],
    ['amountCents 1.5', { amountCents: 1.5, phone: '+14155550123' }, 'amountCents'],
    ['amountCents "100"', { amountCents: '100', phone: '+14155550123' }, 'amountCents'],
    ['missing phone', { amountCents: 100 }, 'phone'],
    ['phone 555-1234', { amountCents: 100, phone: '555-1234' }, 'phone'],
    ['phone without +', { amountCents: 100, phone: '14155550123' }, 'phone'],
    ['memo of 501 chars', { amountCents: 100, phone: '+14155550123', memo: 'x'.repeat(501) }, 'memo'],
    ['unknown field foo', { amountCents: 100, phone: '+14155550123', foo: 1 }, 'foo'],
    ['neither amount nor lines', { phone: '+14155550123' }, 'amountCents'],
    [
      'amountCents and lineItems',
      {
        amountCents: 100,
        phone: '+14155550123',
        lineItems: [{ catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_small'], quantity: 1 }],
      },
      'lineItems',
    ],
    [
      'a price in lineItems',
      { phone: '+14155550123', lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1, priceCents: 1 }] },
      'lineItems.0.priceCents',
    ],
    [
      'quantity 0',
      { phone: '+14155550123', lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 0 }] },
      'lineItems.0.quantity',
    ],
    [
      'unknown catalog item',
      { phone: '+14155550123', lineItems: [{ catalogItemId: 'itm_nope', variationId: 'var_croissant_regular', quantity: 1 }] },
      'lineItems.0.catalogItemId',
    ],
    [
      'required modifier missing',
      { phone: '+14155550123', lineItems: [{ catalogItemId: 'itm_latte', variationId: 'var_latte_regular', quantity: 1 }] },
      'lineItems.0.modifierIds',
    ],
    ['a NUL character in memo', { amountCents: 100, phone: '+14155550123', memo: 'a\u0000b' }, 'memo'],
    ['a body nested 100 levels deep', { amountCents: 100, phone: '+14155550123', memo: JSON.parse('['.repeat(100) + ']'.repeat(100)) }, 'memo'],
    ['body is an array', [], '(body)'],
    ['body is null', null, '(body)'],
  ];

  it.each(badInputs)('400 for %s, naming the field, with nothing written', async (_label, payload, field) => {
    const before = await counts();
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status: 400, title: 'Bad Request', type: expect.any(String), code: expect.any(String) });
    const paths: string[] = body.errors.map((e: { path: string }) => e.path);
    expect(
      paths.some((p) => p === field || p.startsWith(`${field}.`)),
      paths.join(),
    ).toBe(true);
    expect(body.detail).toContain(field);
    expect(await counts()).toEqual(before);
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body', async () => {
      const before = await counts();
      const first = await create({ amountCents: 4200, phone: '+14155550123' }, { 'idempotency-key': 'key-replay-1' });
      expect(first.statusCode).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const second = await create({ amountCents: 4200, phone: '+14155550123' }, { 'idempotency-key': 'key-replay-1' });
      expect(second.statusCode).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.json()).toEqual(first.json());
      expect(await counts()).toEqual({ payRequests: before.payRequests + 1, sms: before.sms + 1, audit: before.audit + 1 });
      // Another caller (staff) with the same key is a different key space.
      const staff = await create({ amountCents: 4200, phone: '+14155550123' }, { 'idempotency-key': 'key-replay-1' }, server.credentials.staffToken);
      expect(staff.statusCode).toBe(201);
      expect(staff.json().id).not.toBe(first.json().id);
    });

    it('422 when the key is reused with another body, nothing written', async () => {
      const first = await create({ amountCents: 500, phone: '+14155550123' }, { 'idempotency-key': 'key-reuse-1' });
      expect(first.statusCode).toBe(201);
      const before = await counts();
      const other = await create({ amountCents: 501, phone: '+14155550123' }, { 'idempotency-key': 'key-reuse-1' });
      expect(other.statusCode).toBe(422);
      expect(other.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
      expect(await counts()).toEqual(before);
    });

    it('409 while the first request with the key is still in flight', async () => {
      const payload = { amountCents: 777, phone: '+14155550123' };
      // A request that has claimed the key and not finished yet (as a concurrent request on another instance would).
      await server.db.query(
        `INSERT INTO idempotency_keys (merchant_id, caller, key, request_hash, state, created_at) VALUES ($1, $2, $5, $3, 'in_flight', $4)`,
        [
          server.credentials.merchantId,
          `app:${server.credentials.appId}`,
          idempotencyRequestHash('POST', '/api/pos/pay-requests', payload),
          NOW.toISOString(),
          keyDigest('key-inflight-1'),
        ],
      );
      const before = await counts();
      const res = await create(payload, { 'idempotency-key': 'key-inflight-1' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ status: 409, code: 'idempotency_in_flight' });
      expect(await counts()).toEqual(before);
    });

    it('keys are purged by the housekeeping tick once their 24 h are over; younger keys stay', async () => {
      const insert = (key: string, createdAt: Date) =>
        server.db.query(
          `INSERT INTO idempotency_keys (merchant_id, caller, key, request_hash, state, created_at) VALUES ($1, 'app:x', $2, 'h', 'completed', $3)`,
          [server.credentials.merchantId, key, createdAt.toISOString()],
        );
      const now = NOW;
      await insert('key-old-1', new Date(now.getTime() - 25 * 3600_000));
      await insert('key-young-1', new Date(now.getTime() - 23 * 3600_000));
      const report = await server.app.recurringInvoices.runOnce();
      expect(report.purgedIdempotencyKeys).toBeGreaterThanOrEqual(1);
      const left = await server.db.query<{ key: string }>(`SELECT key FROM idempotency_keys WHERE key IN ('key-old-1', 'key-young-1')`);
      expect(left.rows.map((r) => r.key)).toEqual(['key-young-1']);
    });

    it('a validation failure is remembered too (same answer on replay)', async () => {
      const first = await create({ amountCents: 0, phone: '+14155550123' }, { 'idempotency-key': 'key-bad-1' });
      expect(first.statusCode).toBe(400);
      const again = await create({ amountCents: 0, phone: '+14155550123' }, { 'idempotency-key': 'key-bad-1' });
      expect(again.statusCode).toBe(400);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
    });
  });

  it('404 for an unknown pay request; 400 for a malformed id', async () => {
    const h = { authorization: `Bearer ${server.credentials.appToken}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/pay-requests/pr_01J00000000000000000000000', headers: h })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/pay-requests/nope', headers: h })).statusCode).toBe(400);
    expect((await server.app.inject({ method: 'GET', url: '/pay/pr_01J00000000000000000000000' })).statusCode).toBe(404);
  });
});
