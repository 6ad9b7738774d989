/**
 * Customers at the register — the register's customer store (renderer/src/register/customers/customer-store.ts)
 * and its replication: search by name / phone digits / e-mail in name order, aliases hidden and followed, the
 * new-customer form read in E.164 with the store's country (fields named when invalid), a local duplicate returned
 * instead of a second customer; and the register's own engine in Node against a real server: a customer created
 * offline that another customer's phone already has comes back as an alias, and the sale made for it is re-pointed
 * at the survivor.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { StoredCustomer } from '../../renderer/src/register/db/schemas.ts';
import {
  customerFromForm,
  CustomerFormError,
  customerSales,
  searchCustomers,
  survivorId,
} from '../../renderer/src/register/customers/customer-store.ts';
import { benchSales } from '../bench/sales.ts';
import { pairRegister } from '../support/sync-client.ts';
import { waitFor } from '../support/wait-for.ts';
import { registerInNodeSuite } from './support/register-in-node.ts';

const c = (id: string, fields: Partial<StoredCustomer>): StoredCustomer => ({ id, ...fields });

describe("the register's customer store", () => {
  const customers = [
    c('cus_1', { givenName: 'Zoë', familyName: 'Zimmer', phone: '+14155550101', email: 'zoe@example.com' }),
    c('cus_2', { givenName: 'Ádám', familyName: 'Árpád', phone: '+36201234567' }),
    c('cus_3', { email: 'nobody@example.com' }),
    c('cus_4', { givenName: 'Zoe', familyName: 'Offline', mergedInto: 'cus_1' }),
    c('cus_5', { givenName: 'Refused', rejection: { reason: 'x', at: '2026-01-01T00:00:00Z' } }),
  ];

  it('searches name words (accents and case folded), phone digits and e-mail, in name order; aliases and refused ones left out', () => {
    expect(searchCustomers(customers, '').map((x) => x.id)).toEqual(['cus_2', 'cus_3', 'cus_1']);
    expect(searchCustomers(customers, 'zoe').map((x) => x.id)).toEqual(['cus_1']);
    expect(searchCustomers(customers, 'adam arp').map((x) => x.id)).toEqual(['cus_2']);
    expect(searchCustomers(customers, '(415) 555-0101').map((x) => x.id)).toEqual(['cus_1']);
    expect(searchCustomers(customers, '1234').map((x) => x.id)).toEqual(['cus_2']);
    expect(searchCustomers(customers, 'nobody@').map((x) => x.id)).toEqual(['cus_3']);
  });

  it('follows a merged customer to its survivor', () => {
    const byId = new Map(customers.map((x) => [x.id, x]));
    expect(survivorId(byId, 'cus_4')).toBe('cus_1');
    expect(survivorId(byId, 'cus_1')).toBe('cus_1');
    expect(survivorId(byId, 'cus_unknown')).toBe('cus_unknown');
  });

  it("merges a customer's sales of this register and of the server by order id, newest first, the server's state winning", () => {
    const local = [
      { id: 'ord_b', receiptNumber: 'R1-000002', createdAt: '2026-03-02T10:00:00.000Z', totalCents: 450, state: 'paid' },
      { id: 'ord_a', receiptNumber: 'R1-000001', createdAt: '2026-03-01T10:00:00.000Z', totalCents: 300 },
      { id: 'ord_c', receiptNumber: 'R1-000003', createdAt: '2026-03-02T10:00:00.000Z', totalCents: 100, currency: 'EUR' },
    ] as unknown as Parameters<typeof customerSales>[0];
    const server = [
      {
        id: 'ord_b',
        receiptNumber: 'R1-000002',
        createdAt: '2026-03-02T10:00:00.000Z',
        totalCents: 450,
        currency: 'USD',
        state: 'partially_refunded',
      },
      { id: 'ord_z', receiptNumber: 'R2-000009', createdAt: '2026-03-05T09:00:00.000Z', totalCents: 990, currency: 'USD', state: 'paid' },
    ] as unknown as NonNullable<Parameters<typeof customerSales>[1]>;
    const merged = customerSales(local, server, 'USD');
    expect(merged.map((r) => [r.id, r.source, r.state, r.currency])).toEqual([
      ['ord_z', 'server', 'paid', 'USD'],
      ['ord_c', 'register', 'paid', 'EUR'],
      ['ord_b', 'both', 'partially_refunded', 'USD'],
      ['ord_a', 'register', 'paid', 'USD'],
    ]);
    // Offline (no server answer): this register's sales alone, newest first.
    expect(customerSales(local, undefined, 'USD').map((r) => r.id)).toEqual(['ord_c', 'ord_b', 'ord_a']);
    expect(customerSales([], undefined, 'USD')).toEqual([]);
  });

  it("reads the form: a national phone in the store's country to E.164, blanks left out; invalid fields named", () => {
    const made = customerFromForm({ givenName: ' Ada ', familyName: '', phone: '(415) 555-0142', email: '' }, { registerId: 'reg_1' }, 'US');
    expect(made).toMatchObject({ givenName: 'Ada', phone: '+14155550142', registerId: 'reg_1' });
    expect(made).not.toHaveProperty('familyName');
    expect(made.id).toMatch(/^cus_/);
    expect(customerFromForm({ givenName: '', familyName: '', phone: '+44 20 7946 0958', email: '' }, { registerId: 'reg_1' }, undefined).phone).toBe(
      '+442079460958',
    );
    const errorsOf = (form: Parameters<typeof customerFromForm>[0], country?: string) => {
      try {
        customerFromForm(form, { registerId: 'reg_1' }, country);
        return {};
      } catch (err) {
        expect(err).toBeInstanceOf(CustomerFormError);
        return (err as CustomerFormError).errors;
      }
    };
    expect(Object.keys(errorsOf({ givenName: '', familyName: '', phone: '', email: '' }))).toEqual(['givenName']);
    expect(Object.keys(errorsOf({ givenName: 'A', familyName: '', phone: '415-555-01', email: 'not-mail' }, 'US')).sort()).toEqual([
      'email',
      'phone',
    ]);
    // Without the store's country only an international number is read.
    expect(errorsOf({ givenName: 'A', familyName: '', phone: '(415) 555-0142', email: '' }).phone).toMatch(/\+ and the country code/);
  });
});

describe('customers created offline on the register, through its replication engine', () => {
  const register = registerInNodeSuite();

  it(
    'pushes the offline customer and its sale; the server merges it into the customer with its phone; the register learns the survivor',
    { timeout: 120_000 },
    async () => {
      const { server } = register;
      const { saveSale } = await import('../../renderer/src/register/db/database.ts');
      const { createRegisterCustomer, localCustomerOrders } = await import('../../renderer/src/register/customers/customer-store.ts');
      const pairing = await pairRegister(server.baseUrl);
      const db = await register.openDatabase('customers');
      const staff = server.credentials.staffToken;
      const existing = (await (
        await fetch(`${server.baseUrl}/api/pos/customers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${staff}`, 'content-type': 'application/json', 'idempotency-key': 'cs-1' },
          body: JSON.stringify({ givenName: 'Kept', familyName: 'Customer', phone: '+14155550123' }),
        })
      ).json()) as { id: string };

      // Offline (the engine not started yet): a customer with the same number typed nationally, and a sale for them.
      const offline = await createRegisterCustomer(
        db,
        { registerId: pairing.registerId },
        { givenName: 'Typed', familyName: 'Offline', phone: '415 555 0123', email: 'typed@example.com' },
        'US',
      );
      expect(offline.phone).toBe('+14155550123');
      // A second one with the same phone on this register is the same customer.
      expect(
        (
          await createRegisterCustomer(
            db,
            { registerId: pairing.registerId },
            { givenName: 'Again', familyName: '', phone: '+1 415 555 0123', email: '' },
            'US',
          )
        ).id,
      ).toBe(offline.id);
      const [sale] = benchSales({ register: pairing, sales: 1, firstSaleAt: Date.now() - 5_000 });
      const order = { ...sale!.order, customerId: offline.id };
      await saveSale(db, { order, journalTransaction: sale!.journalTransaction });

      await register.startSync(db, pairing.registerToken);
      const alias = await waitFor(
        'the alias pulled',
        async () => {
          const doc = await db!.customers.findOne(offline.id).exec();
          return doc?.mergedInto ? doc.toJSON() : undefined;
        },
        60_000,
      );
      expect(alias.mergedInto).toBe(existing.id);
      const local = await waitFor(
        'the sale re-pointed',
        async () => {
          const doc = await db!.orders.findOne(order.id).exec();
          return doc?.customerId === existing.id ? doc.toJSON() : undefined;
        },
        60_000,
      );
      expect(local.syncSeq).toBeGreaterThan(0);
      // The survivor, with the e-mail it lacked, pulled back.
      const survivor = await waitFor(
        'the survivor pulled with its e-mail',
        async () => {
          const doc = await db!.customers.findOne(existing.id).exec();
          return doc?.email ? doc.toJSON() : undefined;
        },
        60_000,
      );
      expect(survivor).toMatchObject({ givenName: 'Kept', email: 'typed@example.com' });
      expect((await localCustomerOrders(db, existing.id)).map((o) => o.id)).toEqual([order.id]);
      const onServer = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM customers WHERE phone = '+14155550123'`);
      expect(onServer.rows[0]!.n).toBe(1);
    },
  );
});
