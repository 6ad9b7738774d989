/**
 * A sync push that reuses another merchant's document id gets the same answer as any conflict, without
 * telling that the id exists elsewhere. Store A holds a sale; store B pushes an order under that id (B's own content,
 * B's register). B's answer is its own document refused with the one id-conflict reason — word for word the answer
 * to a conflict inside B's own store (a sale whose ledger entry is already stored with other content) — and carries
 * nothing of A's (no total, receipt number, register, time or stamp of A's order); A's order, its journal transaction
 * and its pulls are untouched; B's pull shows nothing of A's. Both databases, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleJournalTransactionId, type JournalTransaction } from '../../core/index.ts';
import { ensureChartOfAccounts, postJournalTransaction } from '../../sync-server/src/kernel/ledger.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { EnrolledRegister } from '../support/enroll.ts';
import { pairRegister, syncClient, type SyncDoc } from '../support/sync-client.ts';

type Answer = SyncDoc & { rejection?: { reason: string; at: string } };

describe.each(databaseTargets())('a pushed id another store holds, on $name', (target) => {
  let server: TestServer;
  let registerA: EnrolledRegister;
  const registerB: PairedRegister = { registerId: 'reg_01JSTOREB00000000000000001', registerNumber: 1 };
  const merchantB = 'mer_01JSTOREB0000000000000000B';
  let tokenB: string;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, listen: true });
    registerA = await pairRegister(server.baseUrl);
    // Store B: a second merchant with its chart of accounts, a register and an owner signed in.
    await server.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Store B', 'USD')`, [merchantB]);
      await tx.query(`INSERT INTO staff (id, merchant_id, name, role) VALUES ('stf_01JSTOREB00000000000000001', $1, 'Owner B', 'owner')`, [
        merchantB,
      ]);
      await tx.query(`INSERT INTO registers (id, merchant_id, number, name) VALUES ($1, $2, 1, 'Register 1')`, [registerB.registerId, merchantB]);
      await ensureChartOfAccounts(tx, merchantB);
    });
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    tokenB = await idp.issueStaffToken({ staffId: 'stf_01JSTOREB00000000000000001', merchantId: merchantB, role: 'owner' });
  });
  afterAll(async () => {
    await server?.close();
  });

  const orderRow = async (id: string) => (await server.db.query('SELECT * FROM orders WHERE id = $1', [id])).rows;
  const journalRows = async (id: string) =>
    (
      await server.db.query(
        'SELECT j.*, p.line_no, p.amount_cents FROM journal_transactions j JOIN postings p ON p.journal_transaction_id = j.id WHERE j.id = $1 ORDER BY p.line_no',
        [id],
      )
    ).rows;

  it("answers B like any id conflict, tells nothing of A's order, and leaves it untouched", async () => {
    const a = syncClient(server.baseUrl, registerA.registerToken);
    const b = syncClient(server.baseUrl, tokenB);
    const saleA = buildSale({ register: registerA, sequence: 1, catalog: server.catalog, createdAt: '2026-03-01T09:00:00.000Z' });
    expect(await a.push('orders', [saleA.order])).toMatchObject({ status: 200, body: [] });
    const before = {
      order: await orderRow(saleA.order.id),
      journal: await journalRows(saleA.journalTransaction.id),
      pull: await a.pullAll('orders'),
    };
    expect(before.order).toHaveLength(1);

    // B sells under A's order id: its own register, its own lines, amount and time.
    const built = buildSale({
      register: registerB,
      sequence: 7,
      catalog: server.catalog,
      method: 'card',
      createdAt: '2026-03-02T15:30:00.000Z',
      lines: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 3 }],
    });
    const reused = { ...built.order, id: saleA.order.id, journalTransactionId: saleA.journalTransaction.id };
    const foreign = await b.push('orders', [reused]);
    expect(foreign.status).toBe(200);
    const [answer] = foreign.body as Answer[];
    expect(foreign.body).toHaveLength(1);

    // An ordinary conflict inside B's own store: a sale whose ledger entry B already holds with other content.
    const own = buildSale({ register: registerB, sequence: 8, catalog: server.catalog, createdAt: '2026-03-02T15:31:00.000Z' });
    const other: JournalTransaction = { ...own.journalTransaction, memo: 'posted by an older register' };
    await server.db.transaction((tx) => postJournalTransaction(tx, merchantB, other));
    const ordinary = await b.push('orders', [own.order]);
    expect(ordinary.status).toBe(200);
    const [conflict] = ordinary.body as Answer[];

    // The same answer, word for word once each answer's own ids are put back: B's document, refused, same reason.
    const generic = (doc: Answer, orderId: string) => ({
      keys: Object.keys(doc).sort(),
      reason: doc.rejection?.reason.replaceAll(orderId, '<order>').replaceAll(saleJournalTransactionId(orderId), '<journal>'),
      syncSeq: doc.syncSeq,
      deleted: doc._deleted,
      rejectionKeys: Object.keys(doc.rejection ?? {}).sort(),
    });
    expect(generic(answer!, saleA.order.id)).toEqual(generic(conflict!, own.order.id));
    expect(answer!.rejection!.reason).not.toMatch(/merchant|store|elsewhere|another (store|merchant)/i);
    // Nothing of A's: the answer is B's document as pushed, plus the rejection stamps.
    const { rejection: _r, updatedAt: _u, syncSeq: _s, _deleted: _d, ...echoed } = answer!;
    expect(echoed).toEqual(reused);
    const text = JSON.stringify(foreign.body);
    for (const secret of [
      saleA.order.receiptNumber,
      saleA.order.createdAt,
      registerA.registerId,
      server.credentials.merchantId,
      before.pull[0]!.updatedAt,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(answer!.syncSeq).not.toBe(before.pull[0]!.syncSeq);
    // The push again: the same answer (quarantined once), still nothing of A's.
    expect((await b.push('orders', [reused])).body).toEqual(foreign.body);

    // A's order, ledger entry and pulls are untouched; B's pull shows none of A's documents.
    expect(await orderRow(saleA.order.id)).toEqual(before.order);
    expect(await journalRows(saleA.journalTransaction.id)).toEqual(before.journal);
    expect(await a.pullAll('orders')).toEqual(before.pull);
    expect((await b.pullAll('orders')).map((d) => d.id)).not.toContain(saleA.order.id);
    expect((await b.pullAll('journal-transactions')).map((d) => d.id)).not.toContain(saleA.journalTransaction.id);
  });
});
