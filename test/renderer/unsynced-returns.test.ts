/**
 * The register header's unsynced count counts returns (and exchanges' refunds) like sales: a return made offline is
 * counted until the server's stamped copy is pulled back, so the header never says synced while a refund is still on
 * its way. The register's own database and replication engine (Node, RxDB on fake-indexeddb) against a real sync
 * server. (Its own file: the open-source RxDB allows 16 collections open at once, one register database per suite.)
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { benchSales } from '../bench/sales.ts';
import { pairRegister } from '../support/sync-client.ts';
import { registerInNodeSuite } from './support/register-in-node.ts';
import { waitFor } from '../support/wait-for.ts';

describe('register unsynced count: returns', () => {
  const register = registerInNodeSuite();

  it(
    'counts a return until the server holds it, like a sale: the header never says synced while a refund is on its way',
    { timeout: 120_000 },
    async () => {
      const { server } = register;
      const { saveSale } = await import('../../renderer/src/register/db/database.ts');
      const { saveReturn } = await import('../../renderer/src/register/returns/return-store.ts');
      const { planReturn } = await import('../../core/index.ts');
      const { unsyncedCounts } = await import('../../renderer/src/register/sync/unsynced.ts');
      const pairing = await pairRegister(server.baseUrl);
      const db = await register.openDatabase('unsynced-return');
      const session = {
        ...pairing,
        merchantId: server.credentials.merchantId,
        merchantName: 'Test',
        currency: server.credentials.currency,
        lastReceiptSequence: 0,
        pairedAt: new Date().toISOString(),
      };

      // Sales, synced: nothing left to send.
      const sales = benchSales({ register: pairing, sales: 2, firstSaleAt: Date.now() - 60_000 });
      for (const s of sales) await saveSale(db, s);
      const sale = sales.find((s) => s.order.tenders.some((t) => t.method === 'cash'));
      const first = await register.startSync(db, pairing.registerToken);
      await waitFor('the sale synced', async () => ((await unsyncedCounts(db)).total === 0 ? true : undefined), 60_000);
      await first.stop();

      // Its return, made with the engine stopped (offline): counted, as a return.
      const order = sale!.order;
      const lines = [{ lineId: order.lines[0]!.id, quantity: 1 }];
      const refund = await saveReturn(db, session, {
        order,
        lines,
        restock: true,
        amountCents: planReturn(order, [], lines).amountCents,
        tender: { method: 'cash' },
      });
      const offline = await unsyncedCounts(db);
      expect(offline.byKind.returns).toBe(1);
      expect(offline.total).toBe(1 + offline.byKind.shifts);

      // Back online: the header shows it, then 0 only once the server holds the return.
      const engine = await register.startSync(db, pairing.registerToken);
      const shown: number[] = [];
      const sub = engine.status$.subscribe((s) => shown.push(s.unsyncedCount));
      try {
        await waitFor(
          'the header count at 0 after showing the return',
          () => (shown.some((n) => n >= 1) && shown.at(-1) === 0 ? true : undefined),
          60_000,
        );
      } finally {
        sub.unsubscribe();
      }
      const held = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM register_returns WHERE id = $1', [refund.id]);
      expect(held.rows[0]!.n).toBe(1);
      expect((await db.returns.findOne(refund.id).exec())?.toJSON()).toMatchObject({ id: refund.id });
      expect((await db.returns.findOne(refund.id).exec())?.toJSON().rejection).toBeUndefined();
    },
  );
});
