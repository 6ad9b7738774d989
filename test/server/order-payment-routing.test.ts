/**
 * Every card payment is routed, not only the hosted pay page's — a card tender taken through the
 * staff API (`POST /api/pos/orders/{id}/payments`) goes to the cheapest available rail, keeps the decision (candidates
 * with fees, reason) and its processing fee on the payment, and the fee posts to the ledger (Dr processing_fees, Cr
 * the rail's clearing account). A rail that is down refuses the card before any charge. On both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderViewSchema, type OrderView } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const NOW = new Date('2026-03-02T10:00:00.000Z');
const CART = [{ catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'], quantity: 2 }];

describe.each(databaseTargets())('routing of staff-API order card payments on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const create = async (): Promise<OrderView> => {
    const res = await call('POST', '/api/pos/orders', { lineItems: CART });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it('routes a card tender to the cheapest rail, keeps the decision and fee on the payment, and posts the fee', async () => {
    const order = await create();
    const res = await call('POST', `/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'card', cardToken: 'tok_visa', amountCents: order.totalCents }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const view = orderViewSchema.parse((await call('GET', `/api/pos/orders/${order.id}`)).json());
    const payment = view.payments![0]!;
    // card_not_present: 2.90 % + 30 (half-even on the percentage part).
    const fee = Math.round((order.totalCents * 290) / 10_000) + 30;
    expect(Math.abs(payment.feeCents - fee)).toBeLessThanOrEqual(1);
    expect(payment).toMatchObject({
      state: 'captured',
      rail: 'card_not_present',
      accountCode: 'card_clearing:card_not_present',
      routing: { chosen: 'card_not_present', feeCents: payment.feeCents },
    });
    expect(payment.routing!.candidates).toEqual([expect.objectContaining({ rail: 'card_not_present', reason: 'chosen' })]);
    expect(payment.routing!.reason).toContain('card_not_present');

    const journal = (await call('GET', `/api/pos/ledger/journal-transactions?sourceId=${order.id}`)).json().data as {
      kind: string;
      postings: { accountCode: string; amountCents: number }[];
    }[];
    const fees = journal.filter((j) => j.kind === 'fee');
    expect(fees.map((j) => j.postings)).toEqual([
      [
        { accountCode: 'processing_fees', amountCents: payment.feeCents },
        { accountCode: 'card_clearing:card_not_present', amountCents: -payment.feeCents },
      ],
    ]);
    expect((await call('GET', '/api/pos/ledger/trial-balance')).json().totalCents).toBe(0);
  });

  it('cash is not routed and pays no fee', async () => {
    const order = await create();
    const res = await call('POST', `/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: order.totalCents }] });
    expect(res.statusCode, res.body).toBe(201);
    const view = orderViewSchema.parse((await call('GET', `/api/pos/orders/${order.id}`)).json());
    expect(view.payments![0]).toMatchObject({ method: 'cash', routing: null, feeCents: 0 });
  });

  it('a card rail that is down refuses the card before any charge: 409 no_rail_available, nothing recorded, the order stays open', async () => {
    const order = await create();
    expect((await call('PATCH', '/api/pos/rails/card_not_present', { status: 'down' })).statusCode).toBe(200);
    try {
      const res = await call('POST', `/api/pos/orders/${order.id}/payments`, {
        tenders: [{ method: 'card', cardToken: 'tok_visa', amountCents: order.totalCents }],
      });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ code: 'no_rail_available' });
      const view = orderViewSchema.parse((await call('GET', `/api/pos/orders/${order.id}`)).json());
      expect(view).toMatchObject({ state: 'open', payments: [] });
    } finally {
      expect((await call('PATCH', '/api/pos/rails/card_not_present', { status: 'up' })).statusCode).toBe(200);
    }
  });
});
