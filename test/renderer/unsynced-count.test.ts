/**
 * The register header's unsynced count counts every record kind the register authors — sales (with their
 * offline card payments), shifts, cash movements and closeouts — not sales only. The register's own database and
 * replication engine (Node, RxDB on fake-indexeddb) against a real sync server: records made before the engine runs
 * are counted per kind, then the engine pushes them and pulls back the server's stamps, and the count the header shows
 * (the engine's `status$.unsyncedCount`) drops to 0 only once the server holds each of them.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { benchSales } from '../bench/sales.ts';
import { pairRegister } from '../support/sync-client.ts';
import { registerInNodeSuite } from './support/register-in-node.ts';
import { waitFor } from '../support/wait-for.ts';

describe('register unsynced count over every record kind', () => {
  const register = registerInNodeSuite();

  it('counts sales, shifts and cash movements made offline, and reaches 0 once the server stamped each', { timeout: 120_000 }, async () => {
    const { server } = register;
    const { saveSale } = await import('../../renderer/src/register/db/database.ts');
    const { openShift, recordCashMovement } = await import('../../renderer/src/register/shifts/shift-store.ts');
    const { unsyncedCounts } = await import('../../renderer/src/register/sync/unsynced.ts');
    const pairing = await pairRegister(server.baseUrl);
    const db = await register.openDatabase('unsynced');

    const openedAt = new Date(Date.now() - 60_000);
    const shift = await openShift(
      db,
      { registerId: pairing.registerId, registerNumber: pairing.registerNumber, currency: server.credentials.currency },
      { openingFloatCents: 10_000, at: openedAt.toISOString() },
    );
    await recordCashMovement(db, pairing.registerId, {
      kind: 'paid_in',
      amountCents: 500,
      reason: 'Change float top-up',
      at: new Date(openedAt.getTime() + 1_000).toISOString(),
    });
    await recordCashMovement(db, pairing.registerId, { kind: 'no_sale', at: new Date(openedAt.getTime() + 2_000).toISOString() });
    const sales = benchSales({ register: pairing, sales: 2, firstSaleAt: openedAt.getTime() + 3_000 });
    for (const sale of sales) await saveSale(db, sale);

    expect(await unsyncedCounts(db)).toEqual({
      total: 5,
      byKind: { orders: 2, returns: 0, shifts: 1, cash_movements: 2, closeouts: 0, customers: 0 },
    });

    const engine = await register.startSync(db, pairing.registerToken);
    const shown: number[] = [];
    const sub = engine.status$.subscribe((s) => shown.push(s.unsyncedCount));
    try {
      await waitFor('the header count at 5', () => (shown.includes(5) ? true : undefined), 30_000);
      await waitFor('the header count at 0', () => (shown.at(-1) === 0 ? true : undefined), 60_000);
    } finally {
      sub.unsubscribe();
    }
    // 0 only once the server holds every record.
    const onServer = async (table: string, ids: string[]) =>
      Number((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = ANY($1)`, [ids])).rows[0]!.n);
    expect(await onServer('shifts', [shift.id])).toBe(1);
    const movements = (await db.cash_movements.find().exec()).map((d) => d.id);
    expect(await onServer('cash_movements', movements)).toBe(2);
    expect(
      await onServer(
        'orders',
        sales.map((s) => s.order.id),
      ),
    ).toBe(2);
    expect(await unsyncedCounts(db)).toEqual({
      total: 0,
      byKind: { orders: 0, returns: 0, shifts: 0, cash_movements: 0, closeouts: 0, customers: 0 },
    });
  });
});
