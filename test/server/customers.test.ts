import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerRecordSchema, type CustomerRecord } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const START = new Date('2026-03-01T12:00:00.000Z');

describe.each(databaseTargets())('customers on $name', (target) => {
  let server: TestServer;
  let now = START;
  let token: string;
  beforeAll(async () => {
    now = START;
    server = await startTestServer({ target, staticDir: null, clock: () => now });
    // The test moves the clock forward by days: a staff token that outlives it.
    token = await server.issueStaffToken({ ttlSeconds: 30 * 24 * 3600 });
  });
  afterAll(async () => {
    await server?.close();
  });

  const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}, bearer = token) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const get = (url: string, bearer = token) => server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${bearer}` } });
  const rows = async () => Number((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM customers')).rows[0]!.n);

  let ada: CustomerRecord;

  it('creates a customer with a normalised phone and e-mail and the time consent was given', async () => {
    const res = await send('POST', '/api/pos/customers', {
      givenName: 'Ada',
      familyName: 'Lovelace',
      phone: '+1 (415) 555-0123',
      email: '  Ada@Example.COM ',
      marketingConsent: true,
      note: 'regular',
    });
    expect(res.statusCode, res.body).toBe(201);
    ada = res.json();
    expect(customerRecordSchema.parse(ada)).toEqual(ada);
    expect(ada).toMatchObject({
      givenName: 'Ada',
      familyName: 'Lovelace',
      phone: '+14155550123',
      email: 'Ada@Example.COM',
      marketingConsent: true,
      marketingConsentAt: now.toISOString(),
      note: 'regular',
    });
    expect((await get(`/api/pos/customers/${ada.id}`)).json()).toEqual(ada);
    const noConsent = await send('POST', '/api/pos/customers', { givenName: 'Grace' });
    expect(noConsent.json()).toMatchObject({ marketingConsent: false, marketingConsentAt: null, phone: null, email: null });
  });

  it('refuses duplicates by E.164 phone or normalised e-mail with a 409 naming the existing customer', async () => {
    const before = await rows();
    for (const payload of [
      { givenName: 'Other', phone: '+14155550123' },
      { givenName: 'Other', phone: '+1 415 555 0123' },
      { familyName: 'X', email: 'ada@example.com' },
    ]) {
      const res = await send('POST', '/api/pos/customers', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(409);
      expect(res.json()).toMatchObject({ code: 'customer_exists', existingCustomerId: ada.id });
      expect(res.json().detail).toContain(ada.id);
    }
    expect(await rows()).toBe(before);
    const other = await send('POST', '/api/pos/customers', { givenName: 'Linus', phone: '+442079460958' });
    const clash = await send('PATCH', `/api/pos/customers/${other.json().id}`, { email: 'ADA@example.com' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().existingCustomerId).toBe(ada.id);
  });

  it('validates input: 400 naming the field, nothing written; staff only', async () => {
    const before = await rows();
    const cases: [unknown, string][] = [
      // National numbers are read in the store's country (US here): this one has too few digits to be one.
      [{ givenName: 'A', phone: '555 0123' }, 'phone'],
      [{ givenName: 'A', phone: 'ext. 12' }, 'phone'],
      [{ givenName: 'A', phone: '+1 555' }, 'phone'],
      [{ givenName: 'A', email: 'not-an-email' }, 'email'],
      [{}, 'givenName'],
      [{ givenName: 'A', loyaltyPoints: 5 }, 'loyaltyPoints'],
      [{ givenName: 'A', marketingConsent: 'yes' }, 'marketingConsent'],
    ];
    for (const [payload, path] of cases) {
      const res = await send('POST', '/api/pos/customers', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await rows()).toBe(before);
    expect((await send('POST', '/api/pos/customers', { givenName: 'App' }, {}, server.credentials.appToken)).statusCode).toBe(403);
    expect((await get('/api/pos/customers', server.credentials.appToken)).statusCode).toBe(403);
    expect((await get('/api/pos/customers/cus_01HZZZZZZZZZZZZZZZZZZZZZZZ')).statusCode).toBe(404);
    expect((await get('/api/pos/customers/nope')).statusCode).toBe(400);
  });

  it('updates fields, stamps consent when given and clears it when withdrawn', async () => {
    now = new Date('2026-03-02T09:00:00.000Z');
    const withdrawn = await send('PATCH', `/api/pos/customers/${ada.id}`, { marketingConsent: false, note: null });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json()).toMatchObject({ marketingConsent: false, marketingConsentAt: null, note: null, updatedAt: now.toISOString() });
    now = new Date('2026-03-03T09:00:00.000Z');
    const given = await send('PATCH', `/api/pos/customers/${ada.id}`, { marketingConsent: true, phone: '+14155550124' });
    expect(given.json()).toMatchObject({ marketingConsent: true, marketingConsentAt: now.toISOString(), phone: '+14155550124' });
    const empty = await send('PATCH', `/api/pos/customers/${ada.id}`, {});
    expect(empty.statusCode).toBe(400);
    ada = given.json();
  });

  it('searches by name, e-mail and phone digits with cursor pagination', async () => {
    for (let i = 0; i < 5; i += 1) await send('POST', '/api/pos/customers', { givenName: `Page${i}`, email: `page${i}@example.com` });
    const seen: CustomerRecord[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/pos/customers?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      seen.push(...res.json().data);
      cursor = res.json().nextCursor;
    } while (cursor);
    expect(seen.length).toBe(await rows());
    expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
    const ids = async (q: string) => (await get(`/api/pos/customers?q=${encodeURIComponent(q)}`)).json().data.map((c: CustomerRecord) => c.id);
    expect(await ids('lovelace')).toEqual([ada.id]);
    expect(await ids('Ada Love')).toEqual([ada.id]);
    expect(await ids('ADA@EXAMPLE')).toEqual([ada.id]);
    expect(await ids('(415) 555-0124')).toEqual([ada.id]);
    expect(await ids('page')).toHaveLength(5);
    expect(await ids('%')).toEqual([]);
    const consenting = await get('/api/pos/customers?marketingConsent=true');
    expect(consenting.json().data.map((c: CustomerRecord) => c.id)).toEqual([ada.id]);
    expect((await get('/api/pos/customers?bogus=1')).statusCode).toBe(400);
  });

  it('replays an Idempotency-Key; deletes softly, freeing the phone; keeps the audit chain', async () => {
    const key = { 'idempotency-key': 'customer-1' };
    const a = await send('POST', '/api/pos/customers', { givenName: 'Once', phone: '+14155550188' }, key);
    const b = await send('POST', '/api/pos/customers', { givenName: 'Once', phone: '+14155550188' }, key);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json()).toEqual(a.json());
    const del = await send('DELETE', `/api/pos/customers/${a.json().id}`);
    expect(del.statusCode).toBe(204);
    expect((await get(`/api/pos/customers/${a.json().id}`)).statusCode).toBe(404);
    expect((await send('DELETE', `/api/pos/customers/${a.json().id}`)).statusCode).toBe(404);
    const again = await send('POST', '/api/pos/customers', { givenName: 'Twice', phone: '+14155550188' });
    expect(again.statusCode).toBe(201);
    const history = await get(`/api/pos/customers/${ada.id}/orders`);
    expect(history.json()).toEqual({ data: [], nextCursor: null });
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  });

  it("reads a national phone number in the store's default country (US) and de-duplicates it against the E.164 spelling", async () => {
    const first = await send('POST', '/api/pos/customers', { givenName: 'Intl', phone: '+14155550134' });
    expect(first.statusCode, first.body).toBe(201);
    const before = await rows();
    const national = await send('POST', '/api/pos/customers', { givenName: 'Nat', phone: '(415) 555-0134' });
    expect(national.statusCode, national.body).toBe(409);
    expect(national.json()).toMatchObject({ code: 'customer_exists', existingCustomerId: first.json().id });
    expect(national.json().detail).toContain(first.json().id);
    expect(await rows()).toBe(before);

    const created = await send('POST', '/api/pos/customers', { givenName: 'Nat', phone: '415.555.0135' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().phone).toBe('+14155550135');
    const edited = await send('PATCH', `/api/pos/customers/${created.json().id}`, { phone: '(415) 555-0136' });
    expect(edited.json().phone).toBe('+14155550136');
    const clash = await send('PATCH', `/api/pos/customers/${created.json().id}`, { phone: '415 555 0134' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().existingCustomerId).toBe(first.json().id);
    // Digits that are no US number (a 555 exchange without an area code, a bad area code) stay a 400 naming phone.
    for (const phone of ['555-0134', '(015) 555-0134']) {
      const bad = await send('POST', '/api/pos/customers', { givenName: 'Bad', phone });
      expect(bad.statusCode, phone).toBe(400);
      expect(
        bad.json().errors.map((e: { path: string }) => e.path),
        phone,
      ).toEqual(['phone']);
    }
    expect(await rows()).toBe(before + 1);
  });
});
