import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale, catalogSnapshot, newId, priceLine, type Discount, type Order } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { DEMO_CART, type PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';

/**
 * The register's counter on the server. Register discounts through the replication push: a sale carrying a line discount (amount or percent on
 * one line) and a sale discount is price-checked by the server (core checkRegisterSale), stored, its discount posted
 * to the ledger's `discounts` account and counted by the sales report; a sale whose discount shares do not add up,
 * or whose line discount names no line of it, is quarantined with the field named. A register's own credential sends a
 * synced sale's receipt by e-mail or SMS (queued in the outboxes).
 */
type Doc = Record<string, unknown> & { id: string; rejection?: { reason: string } };

describe.each(databaseTargets())('register discounts on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister & EnrolledRegister;
  let sequence = 0;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    register = await enrollRegister(server, server.credentials.staffToken);
  });
  afterAll(async () => {
    await server?.close();
  });

  const auth = () => ({ authorization: `Bearer ${server.credentials.staffToken}` });
  const push = (docs: unknown[]) =>
    server.app.inject({
      method: 'POST',
      url: '/api/sync/orders/push',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
    });
  const sale = (discounts: (lineIds: string[]) => Discount[]): Order => {
    const catalog = catalogSnapshot(server.catalog.items, server.catalog.taxRates);
    const lines = DEMO_CART.map((l) => priceLine(l, catalog, 'line', newId('orderLine')));
    return buildRegisterSale({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      sequence: ++sequence,
      currency: 'USD',
      createdAt: new Date().toISOString(),
      lines,
      discounts: discounts(lines.map((l) => l.id)),
      payment: { method: 'cash', tenderedCents: 200_00 },
      catalog,
    }).order;
  };
  const discountsBalance = async () => {
    const tb = (await server.app.inject({ method: 'GET', url: '/api/pos/ledger/trial-balance', headers: auth() })).json<{
      accounts: { code: string; balanceCents: number }[];
    }>();
    return tb.accounts.find((a) => a.code === 'discounts')?.balanceCents ?? 0;
  };

  it('stores a sale with line (percent, amount) and sale discounts; the ledger and the sales report count the discount', async () => {
    const before = await discountsBalance();
    const order = sale((ids) => [
      { id: newId('discount'), name: 'Line 50 %', kind: 'percentage', basisPoints: 5000, lineId: ids[1]! },
      { id: newId('discount'), name: 'Line $1', kind: 'fixed', amountCents: 100, lineId: ids[0]! },
      { id: newId('discount'), name: 'Sale 10 %', kind: 'percentage', basisPoints: 1000 },
    ]);
    expect(order.discountCents).toBeGreaterThan(0);
    expect(order.lines[2]!.discountCents).toBeGreaterThan(0); // the sale discount reaches every line
    const res = await push([order]);
    expect(res.statusCode).toBe(200);
    expect(res.json<Doc[]>()).toEqual([]);
    const stored = await server.db.query<{ data: Order }>('SELECT data FROM orders WHERE id = $1', [order.id]);
    expect(stored.rows[0]?.data.discounts.filter((d) => d.lineId).length).toBe(2);
    expect((await discountsBalance()) - before).toBe(order.discountCents);
    const today = new Date().toISOString().slice(0, 10);
    const report = (
      await server.app.inject({ method: 'GET', url: `/api/pos/reports/sales?from=${today}&to=${today}&timeZone=UTC&groupBy=item`, headers: auth() })
    ).json<{
      totals: { discountCents: number };
      rows: { key: string; discountCents: number }[];
    }>();
    expect(report.totals.discountCents).toBeGreaterThanOrEqual(order.discountCents);
    const croissant = report.rows.find((r) => r.key === 'itm_croissant');
    expect(croissant?.discountCents).toBeGreaterThanOrEqual(order.lines[1]!.discountCents);
  });

  it('quarantines a sale whose line discount share was changed, and one whose line discount names no line of it', async () => {
    const good = sale((ids) => [{ id: newId('discount'), name: 'Line $2', kind: 'fixed', amountCents: 200, lineId: ids[2]! }]);
    const shifted: Order = {
      ...good,
      lines: good.lines.map((l, i) =>
        i === 2
          ? { ...l, discountCents: 0, netCents: l.grossCents }
          : i === 1
            ? { ...l, discountCents: l.discountCents + 200, netCents: l.netCents - 200 }
            : l,
      ),
    };
    const other = sale((ids) => [{ id: newId('discount'), name: 'Line $2', kind: 'fixed', amountCents: 200, lineId: ids[0]! }]);
    const orphan: Order = { ...other, discounts: other.discounts.map((d) => ({ ...d, lineId: newId('orderLine') })) };
    const res = await push([shifted, orphan]);
    expect(res.statusCode).toBe(200);
    const rejected = res.json<Doc[]>();
    expect(rejected.map((d) => d.id).sort()).toEqual([shifted.id, orphan.id].sort());
    expect(rejected.find((d) => d.id === shifted.id)?.rejection?.reason).toContain('lines.1.discountCents');
    expect(rejected.find((d) => d.id === orphan.id)?.rejection?.reason).toContain('discounts.0.lineId');
  });

  it("sends a synced sale's receipt with the register's credential (e-mail and SMS outboxes); a bad address is a 400 naming `to`", async () => {
    const order = sale(() => []);
    expect((await push([order])).json()).toEqual([]);
    const send = (body: unknown, key: string) =>
      server.app.inject({
        method: 'POST',
        url: `/api/pos/orders/${order.id}/receipts`,
        headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify(body),
      });
    const email = await send({ channel: 'email', to: 'mae@example.com' }, 'r-1');
    expect(email.statusCode, email.body).toBe(202);
    expect(email.json()).toMatchObject({ channel: 'email', to: 'mae@example.com', orderId: order.id });
    const sms = await send({ channel: 'sms', to: '+1 415 555 0123' }, 'r-2');
    expect(sms.statusCode, sms.body).toBe(202);
    expect(sms.json()).toMatchObject({ channel: 'sms', to: '+14155550123' });
    const bad = await send({ channel: 'email', to: 'not an address' }, 'r-3');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('to');
    const outbox = (await server.app.inject({ method: 'GET', url: '/api/pos/email-outbox', headers: auth() })).json<{
      data: { to: string; subject: string }[];
    }>();
    expect(outbox.data.find((m) => m.to === 'mae@example.com')?.subject).toContain(order.receiptNumber);
  });
});
