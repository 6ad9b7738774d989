/**
 * Customers at the register: the store's customers are pulled by registers (`/api/sync/customers/pull`,
 * incremental by sync sequence); a customer created at a register — offline too — is pushed; one whose phone (E.164)
 * or e-mail an existing customer has is merged into it (the existing one survives, the register's id becomes an
 * alias), and the orders pushed with the register's id — before or after the customer — are attached to the
 * survivor. Over HTTP (app.inject), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, type CustomerRecord, type Order, type RegisterCustomer } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Pulled = {
  id: string;
  mergedInto?: string;
  phone?: string | null;
  email?: string | null;
  givenName?: string | null;
  syncSeq: number;
  _deleted: boolean;
};

describe.each(databaseTargets())('customers at the register on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let register: EnrolledRegister;
  let sequence = 500;

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${token}`,
        'idempotency-key': `k-${Math.random()}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const registerCustomer = (fields: Partial<RegisterCustomer>): RegisterCustomer => ({
    id: newId('customer'),
    registerId: register.registerId,
    createdAt: new Date().toISOString(),
    ...fields,
  });
  const pushCustomers = (docs: unknown[]) =>
    call(
      'POST',
      '/api/sync/customers/push',
      register.registerToken,
      docs.map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
  const sellTo = async (customerId: string): Promise<Order> => {
    const { order } = buildSale({ register, sequence: sequence++, catalog: server.catalog });
    const withCustomer = { ...order, customerId };
    const res = await call('POST', '/api/sync/orders/push', register.registerToken, [{ newDocumentState: withCustomer }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    return withCustomer;
  };
  const pullAll = async (seq = 0): Promise<Pulled[]> => {
    const res = await call('GET', `/api/sync/customers/pull?seq=${seq}&limit=1000`, register.registerToken);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ documents: Pulled[] }>().documents;
  };
  const history = async (customerId: string) =>
    (await call('GET', `/api/pos/customers/${customerId}/orders`, owner)).json<{ data: { id: string; customerId?: string }[] }>().data;
  const createInBackOffice = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/api/pos/customers', owner, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<CustomerRecord>();
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("pulls the store's customers incrementally, with changes and deletions, and tells the register the phone country", async () => {
    const first = await createInBackOffice({ givenName: 'Pia', familyName: 'Pulled', phone: '+14155550101' });
    const all = await pullAll();
    const mine = all.find((d) => d.id === first.id);
    expect(mine).toMatchObject({ givenName: 'Pia', phone: '+14155550101', _deleted: false });
    const after = mine!.syncSeq;
    expect(await pullAll(after)).toEqual([]);
    await call('PATCH', `/api/pos/customers/${first.id}`, owner, { email: 'pia@example.com' });
    const changed = await pullAll(after);
    expect(changed.map((d) => [d.id, d.email])).toEqual([[first.id, 'pia@example.com']]);
    await call('DELETE', `/api/pos/customers/${first.id}`, owner);
    const deleted = await pullAll(changed[0]!.syncSeq);
    expect(deleted.map((d) => [d.id, d._deleted])).toEqual([[first.id, true]]);
    const country = await call('GET', '/api/register/phone-country', register.registerToken);
    expect(country.json()).toEqual({ defaultCountry: 'US' });
  });

  it('stores a new register customer under its own id, phone normalised, once however often it is pushed', async () => {
    const doc = registerCustomer({ givenName: 'Nora', familyName: 'New', phone: '(415) 555-0142', email: 'Nora.New@Example.com' });
    for (let i = 0; i < 2; i++) {
      const res = await pushCustomers([doc]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual([]);
    }
    const stored = (await call('GET', `/api/pos/customers/${doc.id}`, owner)).json<CustomerRecord>();
    expect(stored).toMatchObject({ id: doc.id, givenName: 'Nora', phone: '+14155550142', email: 'Nora.New@Example.com' });
    expect((await pullAll()).find((d) => d.id === doc.id)).toMatchObject({ registerId: register.registerId, phone: '+14155550142' });
  });

  it("merges a register customer with an existing one's phone: the existing survives, the orders sold before and after the push follow it", async () => {
    const existing = await createInBackOffice({ givenName: 'Esther', familyName: 'Existing', phone: '+14155550177' });
    const offline = registerCustomer({ givenName: 'Ester', phone: '415 555 0177', email: 'esther@example.com' });
    // Sold offline to the offline customer; the sale reaches the server before the customer does.
    const before = await sellTo(offline.id);
    const res = await pushCustomers([offline]);
    expect(res.statusCode, res.body).toBe(200);
    // Answered with the alias: the register re-points at once.
    expect(res.json()).toEqual([expect.objectContaining({ id: offline.id, mergedInto: existing.id, matchedOn: 'phone' })]);
    // A sale pushed after the merge, still with the offline id.
    const later = await sellTo(offline.id);

    const survivor = (await call('GET', `/api/pos/customers/${existing.id}`, owner)).json<CustomerRecord>();
    // Its own name kept; the e-mail it lacked taken from the register's customer.
    expect(survivor).toMatchObject({ givenName: 'Esther', familyName: 'Existing', phone: '+14155550177', email: 'esther@example.com' });
    expect((await call('GET', `/api/pos/customers/${offline.id}`, owner)).statusCode).toBe(404);
    expect((await history(existing.id)).map((o) => o.id).sort()).toEqual([before.id, later.id].sort());
    for (const id of [before.id, later.id]) {
      expect((await call('GET', `/api/pos/orders/${id}`, owner)).json<{ customerId: string }>().customerId).toBe(existing.id);
    }
    // One customer with this phone on the server.
    const found = (await call('GET', '/api/pos/customers?q=4155550177', owner)).json<{ data: CustomerRecord[] }>().data;
    expect(found.map((c) => c.id)).toEqual([existing.id]);

    // The register's pull: the alias, and the re-pointed orders.
    const pulled = await pullAll();
    expect(pulled.find((d) => d.id === offline.id)).toMatchObject({ mergedInto: existing.id, _deleted: false });
    const orders = (await call('GET', '/api/sync/orders/pull?seq=0&limit=1000', register.registerToken)).json<{ documents: Order[] }>().documents;
    expect(orders.filter((o) => o.id === before.id || o.id === later.id).map((o) => o.customerId)).toEqual([existing.id, existing.id]);

    // A second push of the same customer, or of the sale made after the merge, changes nothing.
    expect((await pushCustomers([offline])).json()).toEqual([expect.objectContaining({ id: offline.id, mergedInto: existing.id })]);
    const again = await call('POST', '/api/sync/orders/push', register.registerToken, [{ newDocumentState: later }]);
    expect(again.json()).toEqual([]);
    const audit = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE entity_id = $1 ORDER BY seq`, [existing.id]);
    expect(audit.rows.map((r) => r.action)).toEqual(['customer.created', 'customer.merged', 'customer.orders_reattached']);
  });

  it('merges by e-mail (case-insensitive) when the phone matches nobody, and keeps a phone another customer has off the survivor', async () => {
    const byEmail = await createInBackOffice({ givenName: 'Emil', email: 'emil@example.com' });
    const other = await createInBackOffice({ givenName: 'Otto', phone: '+14155550188' });
    const offline = registerCustomer({ givenName: 'Emil Offline', email: '  EMIL@example.com ', phone: '+14155550188' });
    // The phone matches Otto: phone first.
    const res = await pushCustomers([offline]);
    expect(res.json()).toEqual([expect.objectContaining({ id: offline.id, mergedInto: other.id, matchedOn: 'phone' })]);
    const offline2 = registerCustomer({ familyName: 'Mail', email: 'Emil@Example.com', phone: '+14155550199' });
    const sale = await sellTo(offline2.id);
    const res2 = await pushCustomers([offline2]);
    expect(res2.json()).toEqual([expect.objectContaining({ id: offline2.id, mergedInto: byEmail.id, matchedOn: 'email' })]);
    const survivor = (await call('GET', `/api/pos/customers/${byEmail.id}`, owner)).json<CustomerRecord>();
    expect(survivor).toMatchObject({ givenName: 'Emil', familyName: null, email: 'emil@example.com', phone: '+14155550199' });
    expect((await history(byEmail.id)).map((o) => o.id)).toEqual([sale.id]);
  });

  it('merges the second of two new customers with one e-mail in one push (two registers offline), and serves the history to the register', async () => {
    const first = registerCustomer({ givenName: 'Twin', email: 'twin@example.com' });
    const second = registerCustomer({ givenName: 'Twin Two', email: 'TWIN@example.com', phone: '+14155550166' });
    const res = await pushCustomers([first, second]);
    expect(res.json()).toEqual([expect.objectContaining({ id: second.id, mergedInto: first.id, matchedOn: 'email' })]);
    expect((await call('GET', `/api/pos/customers/${first.id}`, owner)).json<CustomerRecord>()).toMatchObject({
      givenName: 'Twin',
      phone: '+14155550166',
    });
    const sale = await sellTo(second.id);
    const history = await call('GET', `/api/pos/customers/${first.id}/orders`, register.registerToken);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json<{ data: { id: string }[] }>().data.map((o) => o.id)).toEqual([sale.id]);
  });

  it("quarantines a register customer it cannot store (no name, phone or e-mail; a phone of no country) and another store's id", async () => {
    const empty = registerCustomer({});
    const badPhone = registerCustomer({ givenName: 'Bad', phone: '12' });
    const res = await pushCustomers([empty, badPhone, { id: 'nonsense' }]);
    expect(res.statusCode, res.body).toBe(200);
    const answered = res.json<{ id: string; rejection: { reason: string } }[]>();
    expect(answered.map((d) => d.id)).toEqual([empty.id, badPhone.id, 'nonsense']);
    expect(answered[0]!.rejection.reason).toMatch(/needs a name, a phone or an e-mail/);
    expect(answered[1]!.rejection.reason).toMatch(/phone/);
    // Another register's documents: refused as a whole.
    const stranger = await enrollRegister(server, owner);
    const foreign = await pushCustomers([{ ...registerCustomer({ givenName: 'Foreign' }), registerId: stranger.registerId }]);
    expect(foreign.statusCode).toBe(403);
  });
});
