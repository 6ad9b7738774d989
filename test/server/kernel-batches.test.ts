import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, appendAuditBatch, auditReservationPart, verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { emitEvent, emitEvents } from '../../sync-server/src/kernel/outbox.ts';
import { lockMerchant, readTogether, type Db } from '../../sync-server/src/platform/db/db.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { databaseTargets } from '../support/databases.ts';

/**
 * The kernel's batch writers: kernel/outbox.ts emitEvents stores, per event, the very payload emitEvent stores for one
 * (the returned event), also when events share one object and the object is sent to the database once; kernel/audit.ts
 * appendAuditBatch with audit numbers reserved in a combined read keeps the chain sound, and never uses numbers drawn
 * before a row it appended since.
 */
describe.each(databaseTargets())('kernel batch writes on $name', (target) => {
  let db: Db;
  let merchantId: string;
  beforeAll(async () => {
    db = await target.openMigrated();
    merchantId = (await seedDemoStore(db)).merchantId;
  });
  afterAll(async () => {
    await db?.close();
  });

  const payloadsOf = async (ids: string[]) =>
    (
      await db.query<{ id: string; payload: unknown; created_at: Date }>(
        'SELECT id, payload, created_at FROM event_outbox WHERE id = ANY($1::text[])',
        [ids],
      )
    ).rows;

  it('stores each event as returned, whether its object is shared with another event or not', async () => {
    const occurredAt = new Date('2026-03-01T10:00:00.123Z');
    const shared = { id: 'ord_X', note: 'café "quoted" \\ back', lines: [{ n: 1, skip: undefined }], totalCents: 1250 };
    const events = [
      { merchantId, type: 'order.created' as const, object: shared, occurredAt },
      { merchantId, type: 'order.paid' as const, object: shared, occurredAt },
      { merchantId, type: 'catalog.updated' as const, object: { id: 'itm_latte', variations: [] }, occurredAt: new Date(occurredAt.getTime() + 1) },
    ];
    const stored = await db.transaction((tx) => emitEvents(tx, events));
    const single = await db.transaction((tx) => emitEvent(tx, events[0]!));
    expect(stored.map((e) => e.type)).toEqual(['order.created', 'order.paid', 'catalog.updated']);
    const rows = await payloadsOf([...stored, single].map((e) => e.id));
    for (const event of [...stored, single]) {
      const row = rows.find((r) => r.id === event.id)!;
      const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
      expect(payload).toEqual(JSON.parse(JSON.stringify(event)));
      expect(new Date(row.created_at).toISOString()).toBe(event.createdAt);
    }
    // The batch's payloads are the one-by-one payload, but for the event's own id.
    const created = rows.find((r) => r.id === stored[0]!.id)!.payload as Record<string, unknown>;
    const one = rows.find((r) => r.id === single.id)!.payload as Record<string, unknown>;
    expect({ ...created, id: null }).toEqual({ ...one, id: null });
  });

  const entry = (action: string) => ({ merchantId, actor: 'system', action, entityType: 'test', entityId: action, data: { n: 1 } });
  const seqsOf = async (actions: string[]) =>
    (
      await db.query<{ action: string; seq: number | string }>('SELECT action, seq FROM audit_log WHERE action = ANY($1::text[]) ORDER BY seq', [
        actions,
      ])
    ).rows.map((r) => [r.action, Number(r.seq)]);

  it('appends an audit batch with the lowest reserved numbers and the head read with them; the chain stays sound', async () => {
    const reservedSeqs = await db.transaction(async (tx) => {
      await lockMerchant(tx, merchantId);
      const [reservation] = await readTogether(tx, 'test_audit_reservation', [auditReservationPart(merchantId, 3)]);
      const seqs = await appendAuditBatch(tx, [entry('test.reserved.a'), entry('test.reserved.b')], { reserved: reservation });
      expect(seqs).toEqual([...reservation.seqs].sort((a, b) => a - b).slice(0, 2));
      return reservation.seqs;
    });
    expect(reservedSeqs).toHaveLength(3);
    expect(await verifyAuditChain(db, merchantId)).toMatchObject({ ok: true });
  });

  it('draws new numbers when a row was appended after the reservation (its numbers would come before that row)', async () => {
    await db.transaction(async (tx) => {
      await lockMerchant(tx, merchantId);
      const [reservation] = await readTogether(tx, 'test_audit_reservation', [auditReservationPart(merchantId, 2)]);
      await appendAudit(tx, entry('test.between'));
      const seqs = await appendAuditBatch(tx, [entry('test.after.a'), entry('test.after.b')], { reserved: reservation });
      expect(seqs.some((s) => reservation.seqs.includes(s))).toBe(false);
    });
    const order = await seqsOf(['test.between', 'test.after.a', 'test.after.b']);
    expect(order.map(([action]) => action)).toEqual(['test.between', 'test.after.a', 'test.after.b']);
    expect(await verifyAuditChain(db, merchantId)).toMatchObject({ ok: true });
  });
});
