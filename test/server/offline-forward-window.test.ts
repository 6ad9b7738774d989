/**
 * Offline card payments, forward window and retries, on both databases: the store's forward window (default 24 h, stored per
 * merchant) is enforced — a payment pushed after its window expires instead of being sent (balance due, code
 * `forward_window_expired`) — and a forward released because the processor could not be reached is retried by the
 * housekeeping tick with exponential backoff, succeeding exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale, catalogSnapshot, type Order } from '../../core/index.ts';
import { openMutation } from '../../sync-server/src/kernel/mutation.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import type { PaymentProcessor } from '../../sync-server/src/modules/payments/processors.ts';
import { forwardOfflineCardPayments, runOfflineForwardRetries } from '../../sync-server/src/workflows/offline-card-forward.ts';
import { databaseTargets } from '../support/databases.ts';
import type { PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

const T0 = new Date('2026-04-02T15:00:00.000Z');
const HOUR = 3_600_000;
const LATTE = { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_small'], quantity: 1 };
const down: PaymentProcessor = { name: 'down', charge: () => Promise.reject(new Error('connect ECONNREFUSED')) };

describe.each(databaseTargets())('offline forward window and retries on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister;
  let now = T0;
  let sequence = 0;
  let tokenSeq = 0;
  beforeAll(async () => {
    server = await startTestServer({
      target,
      staticDir: null,
      clock: () => now,
      recurringInvoices: { enabled: false },
      webhooks: { enabled: false },
    });
    register = (await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {} })).json();
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
  const push = (docs: Order[]) =>
    call(
      'POST',
      '/api/sync/orders/push',
      docs.map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
  const tick = () =>
    (
      server.app as unknown as { recurringInvoices: { runOnce(): Promise<{ offlineForwards: { forwarded: number; expired: number } }> } }
    ).recurringInvoices.runOnce();
  /** A register sale paid by a card the terminal approved offline at `approvedAt` (a fresh store-and-forward token). */
  const offlineSale = (approvedAt: Date, payment: 'card' | 'cash' = 'card'): Order => {
    const token = `saf_visa_4242_${(++tokenSeq)
      .toString(26)
      .replace(/[0-9a-p]/g, (c) => String.fromCharCode(97 + parseInt(c, 26)))
      .padStart(24, 'z')}`;
    return buildRegisterSale({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      sequence: ++sequence,
      currency: 'USD',
      createdAt: approvedAt.toISOString(),
      lines: [LATTE],
      payment:
        payment === 'card'
          ? { method: 'card', cardBrand: 'VISA', last4: '4242', offline: { token, approvedAt: approvedAt.toISOString() } }
          : { method: 'cash', tenderedCents: 1000 },
      catalog: catalogSnapshot(server.catalog.items, server.catalog.taxRates),
    }).order;
  };
  const listed = async (id: string): Promise<Json> => {
    const res = await call('GET', '/api/pos/offline-cards/payments?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.find((p: Json) => p.id === id);
  };
  const count = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  const events = (type: string, id: string) =>
    count(`SELECT count(*)::int AS n FROM event_outbox WHERE type = $1 AND payload->'data'->'object'->>'id' = $2`, [type, id]);
  const receivable = (orderId: string) =>
    count(
      `SELECT coalesce(sum(p.amount_cents), 0)::int AS n FROM postings p JOIN journal_transactions j ON j.id = p.journal_transaction_id
        JOIN accounts a ON a.id = p.account_id WHERE a.code = 'customer_receivables:offline_card_declined' AND j.source_id = $1`,
      [orderId],
    );
  /** Stores a sale whose offline card forward failed (the processor unreachable), as a push while it was down would. */
  async function releasedForward(approvedAt = now): Promise<{ order: Order; tenderId: string }> {
    const cash = offlineSale(now, 'cash');
    const pushed = await push([cash]);
    expect(pushed.json(), pushed.body).toEqual([]);
    const order: Order = { ...cash, tenders: [offlineSale(approvedAt).tenders[0]!] };
    const forwarded = await server.db.transaction(async (tx) =>
      forwardOfflineCardPayments(await openMutation(tx, { merchantId: server.credentials.merchantId, actor: 'system' }, now), [order], down),
    );
    expect(forwarded).toBe(0);
    return { order, tenderId: order.tenders[0]!.id };
  }

  it('retries a released forward on the tick with backoff (1 min, then 2 min), and records its success exactly once', async () => {
    now = T0;
    const { order, tenderId } = await releasedForward();
    expect(await listed(tenderId)).toMatchObject({
      state: 'pending_forward',
      forwardAttempts: 0,
      forwardFailures: 1,
      nextForwardAt: new Date(T0.getTime() + 60_000).toISOString(),
    });

    // Not due yet: nothing is sent.
    expect((await tick()).offlineForwards).toEqual({ forwarded: 0, expired: 0 });
    // Due, processor still down: released again, the delay doubled.
    now = new Date(T0.getTime() + 61_000);
    expect(await runOfflineForwardRetries({ db: server.db, feed: new ChangeFeed() }, now, down)).toEqual({ forwarded: 0, expired: 0 });
    expect(await listed(tenderId)).toMatchObject({
      state: 'pending_forward',
      forwardFailures: 2,
      nextForwardAt: new Date(now.getTime() + 120_000).toISOString(),
    });
    now = new Date(now.getTime() + 60_000);
    expect((await tick()).offlineForwards).toEqual({ forwarded: 0, expired: 0 });
    // Due, processor back (the app's sandbox): forwarded once.
    now = new Date(now.getTime() + 61_000);
    expect((await tick()).offlineForwards).toEqual({ forwarded: 1, expired: 0 });
    expect(await listed(tenderId)).toMatchObject({ state: 'captured', forwardAttempts: 1, forwardFailures: 2, nextForwardAt: null });
    expect((await tick()).offlineForwards).toEqual({ forwarded: 0, expired: 0 });
    expect(await events('payment.forwarded', tenderId)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'payment.forward_released' AND entity_id = $1`, [tenderId])).toBe(2);
    expect(await receivable(order.id)).toBe(0);
  });

  it('a sale pushed after its forward window expires instead of being sent: balance due, code forward_window_expired', async () => {
    now = new Date(T0.getTime() + 1 * HOUR);
    const late = offlineSale(new Date(now.getTime() - 25 * HOUR));
    const res = await push([late]);
    expect(res.statusCode, res.body).toBe(200);
    const tender = late.tenders[0]!;
    const payment = await listed(tender.id);
    expect(payment).toMatchObject({
      state: 'expired',
      declineCode: 'forward_window_expired',
      forwardAttempts: 0,
      balanceDueCents: tender.amountCents,
      forwardDeadline: new Date(now.getTime() - 1 * HOUR).toISOString(),
    });
    expect(await receivable(late.id)).toBe(tender.amountCents);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM event_outbox WHERE type = 'payment.forward_declined' AND payload->'data'->'object'->>'id' = $1 AND payload->'data'->'object'->>'state' = 'expired'`,
        [tender.id],
      ),
    ).toBe(1);
    expect((await call('GET', '/api/pos/offline-cards/payments?state=expired')).json().data.map((p: Json) => p.id)).toContain(tender.id);

    // Within a longer window (the store's own setting), the same age is forwarded.
    expect((await call('PATCH', '/api/pos/offline-cards/limits', { forwardWithinHours: 48 })).statusCode).toBe(200);
    try {
      const inWindow = offlineSale(new Date(now.getTime() - 25 * HOUR));
      expect((await push([inWindow])).statusCode).toBe(200);
      expect(await listed(inWindow.tenders[0]!.id)).toMatchObject({ state: 'captured', forwardAttempts: 1 });
    } finally {
      await call('PATCH', '/api/pos/offline-cards/limits', { forwardWithinHours: 24 });
    }
  });

  it('the tick expires a released forward whose window passes before the processor comes back', async () => {
    // (The clock stays within the staff token's 12 h: the approval is dated back instead.)
    now = new Date(T0.getTime() + 2 * HOUR);
    const { order, tenderId } = await releasedForward(new Date(now.getTime() - 24 * HOUR + 30_000));
    now = new Date(now.getTime() + 60_000);
    expect((await tick()).offlineForwards).toEqual({ forwarded: 0, expired: 1 });
    expect(await listed(tenderId)).toMatchObject({
      state: 'expired',
      forwardAttempts: 0,
      forwardFailures: 1,
      nextForwardAt: null,
      declineCode: 'forward_window_expired',
    });
    expect(await receivable(order.id)).toBe(order.tenders[0]!.amountCents);
    expect((await tick()).offlineForwards).toEqual({ forwarded: 0, expired: 0 });
  });
});
