/**
 * A document the register pushes and pulls back (a shift, a cash movement, a closeout, a return, a customer) gets the
 * server's stamp even when a pull of its collection answers with it stamped before the register has read its own
 * push's answer — the order of answers as a register comes back online and asks for everything at once. The register's
 * own replication engine (Node, RxDB on fake-indexeddb) against a real sync server, with those answers held back in
 * that order.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { pairRegister } from '../support/sync-client.ts';
import { registerInNodeSuite } from './support/register-in-node.ts';
import { waitFor } from '../support/wait-for.ts';

describe('register pull of pushed documents', () => {
  const register = registerInNodeSuite();
  // CI caught it in the offline e2e test: as the register came back online, a pull of shifts sent with the push
  // answered with the shift already stamped while the push's own answer was still on its way. RxDB's downstream skipped
  // that document (a local write not yet upstream-replicated) and moved its checkpoint past it, so the shift never got
  // its stamp and the header showed "1 unsynced" for ever. Here the server's answers are ordered that way on purpose.
  it('stamps a shift whose pull answered before its own push did', { timeout: 60_000 }, async () => {
    const { server, shims } = register;
    const { openShift } = await import('../../renderer/src/register/shifts/shift-store.ts');
    const { unsyncedCounts } = await import('../../renderer/src/register/sync/unsynced.ts');
    const pairing = await pairRegister(server.baseUrl);
    const db = await register.openDatabase('stamp-race');
    const shift = await openShift(
      db,
      { registerId: pairing.registerId, registerNumber: pairing.registerNumber, currency: server.credentials.currency },
      { openingFloatCents: 2_500 },
    );

    let onServer!: () => void;
    const pushCommitted = new Promise<void>((resolve) => (onServer = resolve));
    let pullRead!: () => void;
    const pullAnswered = new Promise<void>((resolve) => (pullRead = resolve));
    let heldPull: { stamped: boolean } | undefined;
    shims.around = async (url, send) => {
      if (url.includes('/api/sync/shifts/pull') && !heldPull) {
        // The first pull of shifts goes to the server only once the shift's push is committed there…
        heldPull = { stamped: false };
        await pushCommitted;
        const response = await send();
        const body = (await response.clone().json()) as { documents: { id: string; syncSeq?: number }[] };
        heldPull.stamped = body.documents.some((d) => d.id === shift.id && typeof d.syncSeq === 'number');
        pullRead();
        return response;
      }
      if (url.includes('/api/sync/shifts/push')) {
        // …and the push's answer reaches the register only after that pull's answer was read.
        const response = await send();
        onServer();
        await pullAnswered;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return response;
      }
      return send();
    };
    try {
      await register.startSync(db, pairing.registerToken);
      await waitFor(
        async () =>
          `the shift's stamp (the held pull answered it stamped: ${heldPull?.stamped}; unsynced: ${JSON.stringify((await unsyncedCounts(db)).byKind)})`,
        async () => ((await db.shifts.findOne(shift.id).exec())?.toJSON() as { syncSeq?: number } | undefined)?.syncSeq,
        20_000,
      );
    } finally {
      shims.around = undefined;
    }
    expect(heldPull?.stamped).toBe(true);
    expect((await unsyncedCounts(db)).byKind.shifts).toBe(0);
  });
});
