import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AMOUNT_CENTS, orderViewSchema } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** MAX_AMOUNT_CENTS bounds what an order is priced and paid (core pricing, the order schemas, the payments check). */
describe.each(databaseTargets())('order amount bounds on $name', (target) => {
  let server: TestServer;
  let big: { itemId: string; variationId: string };
  let top: { itemId: string; variationId: string };
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    const item = async (name: string, priceCents: number) => {
      const res = await call('POST', '/api/pos/catalog/items', {
        name,
        category: 'Large',
        kind: 'product',
        variations: [{ name: 'Only', priceCents }],
        taxRateIds: [],
      });
      expect(res.statusCode, res.body).toBe(201);
      return { itemId: res.json().id as string, variationId: res.json().variations[0].id as string };
    };
    big = await item('Tractor', 60_000_000);
    top = await item('Combine harvester', MAX_AMOUNT_CENTS);
  });
  afterAll(async () => {
    await server?.close();
  });
  const call = (method: 'POST', url: string, payload: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
  const line = (ref: { itemId: string; variationId: string }, quantity: number) => ({
    catalogItemId: ref.itemId,
    variationId: ref.variationId,
    quantity,
  });

  it('refuses an order priced above the bound with 400 amount_out_of_range naming the line or the list', async () => {
    const one = await call('POST', '/api/pos/orders', { lineItems: [line(big, 2)] });
    expect(one.statusCode, one.body).toBe(400);
    expect(one.json()).toMatchObject({ code: 'amount_out_of_range', errors: [{ path: 'lineItems.0.quantity' }] });
    const two = await call('POST', '/api/pos/orders', { lineItems: [line(big, 1), line(big, 1)] });
    expect(two.statusCode, two.body).toBe(400);
    expect(two.json()).toMatchObject({ code: 'amount_out_of_range', errors: [{ path: 'lineItems' }] });
    const link = await call('POST', '/api/pos/pay-requests', { lineItems: [line(big, 2)], phone: '+14155552671' });
    expect(link.statusCode, link.body).toBe(400);
    expect(link.json().errors[0].path).toBe('lineItems.0.quantity');
  });

  it('takes an order at the bound, and refuses tips that would take what it is paid above it', async () => {
    const created = await call('POST', '/api/pos/orders', { lineItems: [line(top, 1)] });
    expect(created.statusCode, created.body).toBe(201);
    const order = orderViewSchema.parse(created.json());
    expect(order.totalCents).toBe(MAX_AMOUNT_CENTS);
    const tipped = await call('POST', `/api/pos/orders/${order.id}/payments`, {
      tenders: [
        { method: 'cash', amountCents: MAX_AMOUNT_CENTS - 10 },
        { method: 'other', amountCents: 15, tipCents: 5 },
      ],
    });
    expect(tipped.statusCode, tipped.body).toBe(400);
    expect(tipped.json()).toMatchObject({ code: 'amount_out_of_range', errors: [{ path: 'tenders' }] });
    const paid = await call('POST', `/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: MAX_AMOUNT_CENTS }] });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(orderViewSchema.parse(paid.json().order ?? paid.json())).toMatchObject({ state: 'paid', paidCents: MAX_AMOUNT_CENTS });
  });
});
