/**
 * The register's replication engine against a real sync server (Node, fake-indexeddb): pushes are cut by bytes as
 * well as rows so a backlog of long sales never meets the server's 1 MiB body limit (413), an order too large for any
 * push is refused locally — kept, marked for the cashier — without holding up the sales behind it, and only orders are
 * pushed: the server derives each sale's journal transaction, whose stamped copy the register then pulls.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { LineItemInput } from '../../core/index.ts';
import type { StoredJournalTransaction, StoredOrder } from '../../renderer/src/register/db/database.ts';
import type { SyncStatus } from '../../renderer/src/common/sync-status.ts';
import { enrollRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { registerInNodeSuite, type RecordedPush } from './support/register-in-node.ts';
import { waitFor } from '../support/wait-for.ts';

const SERVER_BODY_LIMIT = 1024 * 1024;

/** 70 lines over the demo catalog (the same few items again and again, each its own line). */
const LONG_CART: LineItemInput[] = Array.from({ length: 70 }, (_, i) =>
  i % 3 === 0
    ? { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_oat_milk'], quantity: 1 + (i % 4) }
    : i % 3 === 1
      ? { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 1 + (i % 5) }
      : { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', modifierIds: [], quantity: 1 },
);

describe('register replication: pushes by size, orders only', () => {
  const register = registerInNodeSuite();

  it(
    'syncs 50 long sales (1.4 MiB) without a 413, keeps an oversized order locally and lets the next sale through',
    { timeout: 180_000 },
    async () => {
      const { server, shims } = register;
      const { saveSale } = await import('../../renderer/src/register/db/database.ts');
      const pairing = await enrollRegister({ baseUrl: server.baseUrl }, server.credentials.staffToken);
      const db = await register.openDatabase('push');

      const long = Array.from({ length: 50 }, (_, i) =>
        buildSale({ register: pairing, sequence: i + 1, catalog: server.catalog, lines: LONG_CART, tenderedCents: 10_000_00 }),
      );
      const rowsBytes = Buffer.byteLength(JSON.stringify(long.map((s) => ({ newDocumentState: s.order }))));
      expect(rowsBytes).toBeGreaterThan(SERVER_BODY_LIMIT); // one push of them all would be refused with 413
      for (const sale of long) await saveSale(db, sale);
      // One sale far larger than the body limit on its own (a note of 1.1 MB), then an ordinary sale behind it.
      const huge = buildSale({ register: pairing, sequence: 51, catalog: server.catalog });
      await saveSale(db, { ...huge, order: { ...huge.order, note: 'x'.repeat(1_100_000) } });
      const after = buildSale({ register: pairing, sequence: 52, catalog: server.catalog });
      await saveSale(db, after);

      const engine = await register.startSync(db, pairing.registerToken);
      const status = await waitFor('every order synced or refused', () => {
        const s: SyncStatus = engine!.status$.value;
        return s.unsyncedCount === 0 && s.refusedCount === 1 ? s : undefined;
      });
      expect(status.rejectedCount).toBe(0);

      // The server holds the 51 sendable sales, each with its derived journal transaction, and not the oversized one.
      const stored = await server.db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1', [
        pairing.registerId,
      ]);
      expect(stored.rows.map((r) => r.receipt_number).sort()).toEqual([...long, after].map((s) => s.order.receiptNumber).sort());
      const journals = await server.db.query<{ id: string }>('SELECT id FROM journal_transactions WHERE source_id = ANY($1)', [
        [...long, after].map((s) => s.order.id),
      ]);
      expect(journals.rows).toHaveLength(51);

      // Every push stayed well under the body limit: none was refused, none carried a journal transaction.
      const pushes: RecordedPush[] = shims.pushes;
      expect(pushes.length).toBeGreaterThan(1);
      expect(pushes.filter((p) => p.status === 413)).toEqual([]);
      expect(Math.max(...pushes.map((p) => p.bytes))).toBeLessThan(SERVER_BODY_LIMIT / 2);
      expect(new Set(pushes.map((p) => p.path))).toEqual(new Set(['/api/sync/orders/push']));

      // The oversized order is kept, marked as refused by this register with a reason; the sale behind it is stamped.
      const kept = (await db.orders.findOne(huge.order.id).exec())?.toJSON() as StoredOrder | undefined;
      expect(kept?.rejection?.by).toBe('register');
      expect(kept?.rejection?.reason).toMatch(/too large/i);
      expect(kept?.syncSeq).toBeUndefined();
      const next = (await db.orders.findOne(after.order.id).exec())?.toJSON() as StoredOrder | undefined;
      expect(next?.syncSeq).toBeGreaterThan(0);

      // The local journal transactions are replaced by the server's stamped copies (pulled, never pushed).
      const localJournal = await waitFor('the stamped journal transaction', async () => {
        const doc = (await db!.journal_transactions.findOne(after.journalTransaction.id).exec())?.toJSON() as StoredJournalTransaction | undefined;
        return doc?.syncSeq !== undefined ? doc : undefined;
      });
      expect(localJournal.postings).toEqual(after.journalTransaction.postings);

      // Settled: the refused order is not offered again.
      const pushCount = pushes.length;
      engine.resync();
      await new Promise((r) => setTimeout(r, 1_000));
      expect(shims.pushes.slice(pushCount).filter((p) => p.rows > 0)).toEqual([]);
    },
  );
});
