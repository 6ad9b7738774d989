import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalTransactionSchema, orderSchema, saleJournalTransactionId, type JournalTransaction, type Order } from '../../core/index.ts';
import { buildApp } from '../../sync-server/src/app.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { postJournalTransaction } from '../../sync-server/src/kernel/ledger.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { syncClient } from '../support/sync-client.ts';
import { enrollRegister } from '../support/enroll.ts';

type Doc = Record<string, unknown> & { id: string; syncSeq: number; updatedAt: string; _deleted: boolean };

describe.each(databaseTargets())('replication on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister;
  let registerToken: string;
  let sequence = 0;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, listen: true, streamKeepAliveMs: 200 });
    const paired = await enrollRegister(server, server.credentials.staffToken);
    register = paired;
    registerToken = paired.registerToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  const auth = () => ({ authorization: `Bearer ${registerToken}` });
  const client = () => syncClient(server.baseUrl, registerToken);
  const pushRows = (collection: string, docs: unknown[]) => client().push(collection, docs);
  const pullDocs = (collection: string, seq?: number, limit = 100) => client().pull(collection, seq, limit);
  /** The back office's reads (ledger, quarantine, audit) need a staff member: a register credential syncs and sells only. */
  const staffAuth = () => ({ authorization: `Bearer ${server.credentials.staffToken}` });
  /** A single-use stream ticket for the register (POST /api/sync/stream-tickets). */
  const streamTicket = async (): Promise<string> => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/sync/stream-tickets',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ ticket: string }>().ticket;
  };
  const counts = async () => {
    const n = async (sql: string) => Number((await server.db.query<{ n: number }>(sql)).rows[0]!.n);
    return {
      orders: await n('SELECT count(*)::int AS n FROM orders'),
      journal: await n('SELECT count(*)::int AS n FROM journal_transactions'),
      postings: await n('SELECT count(*)::int AS n FROM postings'),
      quarantine: await n('SELECT count(*)::int AS n FROM quarantine'),
      audit: await n('SELECT count(*)::int AS n FROM audit_log'),
    };
  };
  const nextSale = (options: Partial<Parameters<typeof buildSale>[0]> = {}) =>
    buildSale({ register, sequence: ++sequence, catalog: server.catalog, ...options });

  it('pairs registers: the first is number 1, a known id is returned again, a new one gets the next number', async () => {
    expect(register.registerNumber).toBe(1);
    const again = await enrollRegister(server, server.credentials.staffToken, { registerId: register.registerId });
    expect(again).toMatchObject({
      registerId: register.registerId,
      registerNumber: 1,
      lastReceiptSequence: 0,
      currency: 'USD',
      merchantName: 'Register Demo Café & Market',
    });
    const second = await enrollRegister(server, server.credentials.staffToken);
    expect(second.registerNumber).toBe(2);
    const bad = await server.app.inject({ method: 'POST', url: '/api/register/pair', payload: { registerId: 'x', extra: 1 } });
    expect(bad.statusCode).toBe(400);
  });

  it('pulls the catalog and tax rates with checkpoints', async () => {
    const first = await pullDocs('catalog-items', undefined, 5);
    expect(first.documents).toHaveLength(5);
    expect(first.documents[0]).toMatchObject({ _deleted: false, syncSeq: expect.any(Number), updatedAt: expect.any(String) });
    const seqs = first.documents.map((d) => d.syncSeq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const rest = await pullDocs('catalog-items', first.checkpoint!.seq, 100);
    expect(first.documents.length + rest.documents.length).toBe(server.catalog.items.length);
    expect(rest.documents.every((d) => d.syncSeq > first.checkpoint!.seq)).toBe(true);
    const done = await pullDocs('catalog-items', rest.checkpoint!.seq);
    expect(done).toEqual({ documents: [], checkpoint: rest.checkpoint });
    expect((await pullDocs('orders')).checkpoint).toBeNull();
    const rates = await pullDocs('tax-rates');
    expect(rates.documents.map((d) => d.id)).toEqual(['tax_sales']);
    const readOnly = await pushRows('catalog-items', [server.catalog.items[0]]);
    expect(readOnly.status).toBe(405);
    expect((await server.app.inject({ method: 'GET', url: '/api/sync/unknown/pull', headers: auth() })).statusCode).toBe(404);
  });

  it('stores a valid sale once with its balanced journal transaction; a repeated push changes nothing', async () => {
    const { order, journalTransaction } = nextSale();
    const before = await counts();
    const res = await pushRows('orders', [order]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    const after = await counts();
    expect(after).toMatchObject({
      orders: before.orders + 1,
      journal: before.journal + 1,
      postings: before.postings + journalTransaction.postings.length,
      quarantine: before.quarantine,
    });
    expect(after.audit).toBe(before.audit + 1);

    const ledger = await server.app.inject({ method: 'GET', url: `/api/pos/ledger/journal-transactions?sourceId=${order.id}`, headers: staffAuth() });
    expect(ledger.statusCode).toBe(200);
    const [stored] = ledger.json<{ data: JournalTransaction[] }>().data;
    expect(stored).toMatchObject({ ...journalTransaction, updatedAt: expect.any(String), syncSeq: expect.any(Number) });
    expect(stored!.postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);

    // Pushed again — as RxDB does after a lost reply, with server stamps and RxDB fields on it.
    const again = await pushRows('orders', [
      order,
      { ...order, _deleted: false, updatedAt: new Date().toISOString(), syncSeq: 99, _meta: { lwt: 1 }, _rev: '1-a', _attachments: {} },
    ]);
    expect(again.body).toEqual([]);
    // Its journal transaction is the server's: the collection is pull-only, a register cannot push one.
    const jt = await pushRows('journal-transactions', [journalTransaction]);
    expect(jt.status).toBe(405);
    expect(jt.headers.allow).toBe('GET');
    expect(jt.body).toMatchObject({ status: 405, code: 'read_only_collection' });
    expect(await counts()).toEqual(after);
  });

  it('returns the master state when an existing order arrives with different content', async () => {
    const { order } = nextSale();
    expect((await pushRows('orders', [order])).body).toEqual([]);
    const before = await counts();
    const changed = { ...order, note: 'edited later' };
    const res = await pushRows('orders', [changed]);
    const conflicts = res.body as Doc[];
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ id: order.id, _deleted: false, syncSeq: expect.any(Number) });
    expect(conflicts[0]!.note).toBeUndefined();
    const { updatedAt: _u, syncSeq: _s, _deleted: _d, ...master } = conflicts[0]!;
    expect(orderSchema.parse(master)).toEqual(order);
    expect(await counts()).toEqual(before);
  });

  it('quarantines a tampered total once and returns it with its rejection; the rest of the push is stored', async () => {
    const good = nextSale();
    const bad = nextSale().order;
    const tampered: Order = { ...bad, totalCents: bad.totalCents - 100 };
    const before = await counts();
    const res = await pushRows('orders', [tampered, good.order]);
    expect(res.status).toBe(200);
    const conflicts = res.body as (Doc & Order)[];
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ id: tampered.id, totalCents: tampered.totalCents, _deleted: false });
    expect(conflicts[0]!.rejection!.reason).toContain('totalCents');
    expect(conflicts[0]!.rejection!.at).toEqual(expect.any(String));
    const after = await counts();
    expect(after).toMatchObject({ orders: before.orders + 1, journal: before.journal + 1, quarantine: before.quarantine + 1 });
    const q = await server.db.query<{ doc_id: string; reason: string; collection: string }>(
      'SELECT doc_id, reason, collection FROM quarantine WHERE doc_id = $1',
      [tampered.id],
    );
    expect(q.rows).toEqual([{ doc_id: tampered.id, collection: 'orders', reason: expect.stringContaining('totalCents') }]);

    const listed = await server.app.inject({ method: 'GET', url: '/api/pos/quarantine?collection=orders&limit=1', headers: staffAuth() });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data[0]).toMatchObject({
      collection: 'orders',
      documentId: tampered.id,
      reason: expect.stringContaining('totalCents'),
      document: { id: tampered.id },
    });

    // The register pushes it again (with our rejection on it): same answer, nothing new written.
    const again = await pushRows('orders', [conflicts[0]]);
    expect(again.body).toEqual(conflicts);
    expect(await counts()).toEqual(after);
    expect((await pullDocs('orders')).documents.some((d) => d.id === tampered.id)).toBe(false);
  });

  it('quarantines orders of unknown registers, wrong register numbers, bad shapes and tenders that do not balance the sale', async () => {
    const before = await counts();
    const foreign = buildSale({ register: { registerId: 'reg_unknown', registerNumber: 1 }, sequence: 1, catalog: server.catalog }).order;
    const wrongNumber = buildSale({ register: { registerId: register.registerId, registerNumber: 7 }, sequence: 1, catalog: server.catalog }).order;
    const shapeless = { id: 'ord_01J00000000000000000000000', lines: 'nope' };
    // Its ledger entry would not balance: the tenders pay a cent less than the sale they are for.
    const short = nextSale().order;
    const unbalanced: Order = { ...short, tenders: short.tenders.map((t, i) => (i === 0 ? { ...t, amountCents: t.amountCents - 1 } : t)) };
    const orders = await pushRows('orders', [foreign, wrongNumber, shapeless]);
    expect((orders.body as Doc[]).map((d) => (d.rejection as { reason: string }).reason)).toEqual([
      expect.stringContaining('not a register of this store'),
      expect.stringContaining('registerNumber'),
      expect.stringContaining('invalid order'),
    ]);
    const nul = { ...nextSale().order, note: 'bad\u0000byte' };
    const yearZero = { ...nextSale().order, createdAt: '0000-01-01T00:00:00Z' };
    const odd = await pushRows('orders', [nul, yearZero]);
    expect(odd.status).toBe(200);
    expect((odd.body as Doc[]).map((d) => (d.rejection as { reason: string }).reason)).toEqual([
      expect.stringContaining('NUL'),
      expect.stringContaining('createdAt'),
    ]);
    const jts = await pushRows('orders', [unbalanced]);
    expect((jts.body as Doc[])[0]!.rejection).toMatchObject({ reason: expect.stringContaining('inconsistent sale') });
    expect(await counts()).toMatchObject({ orders: before.orders, journal: before.journal, quarantine: before.quarantine + 6 });
    const envelope = await server.app.inject({
      method: 'POST',
      url: '/api/sync/orders/push',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify([{ doc: 1 }]),
    });
    expect(envelope.statusCode).toBe(400);
    const tooMany = await pushRows(
      'orders',
      Array.from({ length: 501 }, () => ({})),
    );
    expect(tooMany.status).toBe(400);
  });

  it("reuses a sale's journal transaction already stored, and quarantines an order whose ledger entry differs", async () => {
    // Registers used to push journal transactions beside their orders; those stored before the order are its own.
    const pushedByOldRegister = (jt: JournalTransaction) =>
      server.db.transaction((tx) => postJournalTransaction(tx, server.credentials.merchantId, jt));
    expect((await pushRows('journal-transactions', [nextSale().journalTransaction])).status).toBe(405);
    const early = nextSale();
    await pushedByOldRegister(early.journalTransaction);
    const mid = await counts();
    expect((await pushRows('orders', [early.order])).body).toEqual([]);
    expect(await counts()).toMatchObject({ orders: mid.orders + 1, journal: mid.journal });

    const sale = nextSale();
    const skewed: JournalTransaction = {
      ...sale.journalTransaction,
      postings: sale.journalTransaction.postings.map((p) =>
        p.accountCode === 'sales_tax_payable'
          ? { ...p, amountCents: p.amountCents - 1 }
          : p.accountCode.startsWith('cash_drawer')
            ? { ...p, amountCents: p.amountCents + 1 }
            : p,
      ),
    };
    expect(journalTransactionSchema.safeParse(skewed).success).toBe(true);
    await pushedByOldRegister(skewed);
    const res = await pushRows('orders', [sale.order]);
    expect((res.body as Doc[])[0]!.rejection).toMatchObject({ reason: expect.stringContaining(saleJournalTransactionId(sale.order.id)) });
  });

  it('pulls pushed orders and journal transactions after a checkpoint', async () => {
    const all = await pullDocs('orders', 0, 1000);
    expect(all.documents.length).toBeGreaterThanOrEqual(4);
    const middle = all.documents[1]!.syncSeq;
    const after = await pullDocs('orders', middle, 1000);
    expect(after.documents.map((d) => d.id)).toEqual(all.documents.slice(2).map((d) => d.id));
    for (const d of all.documents) {
      const { updatedAt: _u, syncSeq: _s, _deleted, ...data } = d;
      expect(_deleted).toBe(false);
      expect(orderSchema.safeParse(data).success).toBe(true);
    }
    const journal = await pullDocs('journal-transactions', 0, 1000);
    expect(journal.documents.length).toBeGreaterThanOrEqual(all.documents.length);
  });

  it('streams RESYNC on connect, then each committed batch', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.baseUrl}/api/sync/orders/stream?ticket=${await streamTicket()}`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const nextData = async (): Promise<string> => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) return data;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    expect(await nextData()).toBe('"RESYNC"');
    const { order } = nextSale();
    const pushed = await fetch(`${server.baseUrl}/api/sync/orders/push`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify([{ newDocumentState: order }]),
    });
    expect(await pushed.json()).toEqual([]);
    const batch = JSON.parse(await nextData()) as { documents: Doc[]; checkpoint: { seq: number } };
    expect(batch.documents.map((d) => d.id)).toEqual([order.id]);
    expect(batch.checkpoint.seq).toBe(batch.documents[0]!.syncSeq);
    controller.abort();
    await reader.cancel().catch(() => undefined);

    const noToken = await fetch(`${server.baseUrl}/api/sync/orders/stream`);
    expect(noToken.status).toBe(401);
    await noToken.body?.cancel();
  });

  it.runIf(target.name === 'postgres')('fans stream notifications out to other instances through LISTEN/NOTIFY', async () => {
    const other = await buildApp({ db: server.db, config: { baseUrl: server.baseUrl, staticDir: null } });
    await other.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = other.server.address();
      const otherUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const controller = new AbortController();
      const res = await fetch(`${otherUrl}/api/sync/journal-transactions/stream?ticket=${await streamTicket()}`, { signal: controller.signal });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('RESYNC')) text += decoder.decode((await reader.read()).value, { stream: true });
      const { order, journalTransaction } = nextSale();
      expect((await pushRows('orders', [order])).body).toEqual([]);
      while (!text.includes(journalTransaction.id)) text += decoder.decode((await reader.read()).value, { stream: true });
      controller.abort();
      await reader.cancel().catch(() => undefined);
    } finally {
      await other.close();
    }
  });

  it('reports the highest receipt sequence on re-pairing', async () => {
    const res = await enrollRegister(server, server.credentials.staffToken, { registerId: register.registerId });
    const stored = await server.db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1', [
      register.registerId,
    ]);
    const highest = Math.max(...stored.rows.map((r) => Number(r.receipt_number.split('-')[1])));
    expect(res.lastReceiptSequence).toBe(highest);
  });

  it('lists orders newest first with cursor pagination and a register filter', async () => {
    const h = { authorization: `Bearer ${server.credentials.appToken}` };
    const total = Number((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM orders')).rows[0]!.n);
    const seen: Order[] = [];
    let cursor: string | null = null;
    do {
      const res: LightMyRequestResponse = await server.app.inject({
        method: 'GET',
        url: `/api/pos/orders?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        headers: h,
      });
      expect(res.statusCode).toBe(200);
      const body: { data: Order[]; nextCursor: string | null } = res.json();
      expect(body.data.length).toBeLessThanOrEqual(2);
      seen.push(...body.data);
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((o) => o.id)).size).toBe(total);
    const times = seen.map((o) => Date.parse(o.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const cursor of [
      Buffer.from('["0000-01-01T00:00:00Z","x"]').toString('base64url'),
      Buffer.from('["yesterday","x"]').toString('base64url'),
      'garbage',
    ]) {
      const res = await server.app.inject({ method: 'GET', url: `/api/pos/orders?cursor=${cursor}`, headers: h });
      expect(res.statusCode, cursor).toBe(400);
    }
    const nulQuery = await server.app.inject({ method: 'GET', url: '/api/pos/catalog?q=%00', headers: h });
    expect(nulQuery.statusCode).toBe(400);
    const filtered = await server.app.inject({ method: 'GET', url: `/api/pos/orders?registerId=${register.registerId}&limit=200`, headers: h });
    expect(filtered.json().data.every((o: Order) => o.registerId === register.registerId)).toBe(true);
  });

  it('keeps the trial balance at zero', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/pos/ledger/trial-balance', headers: staffAuth() });
    expect(res.statusCode).toBe(200);
    const tb = res.json<{ accounts: { code: string; balanceCents: number }[]; totalCents: number }>();
    expect(tb.totalCents).toBe(0);
    expect(tb.accounts.reduce((a, r) => a + r.balanceCents, 0)).toBe(0);
    expect(tb.accounts.find((a) => a.code === 'cash_drawer:R1')!.balanceCents).toBeGreaterThan(0);
    expect(tb.accounts.find((a) => a.code === 'service_revenue')!.balanceCents).toBeLessThan(0);
  });

  it('verifies the audit chain and finds the row someone tampered with', async () => {
    const ok = await server.app.inject({ method: 'GET', url: '/api/pos/audit/verify', headers: staffAuth() });
    expect(ok.statusCode).toBe(200);
    const verdict = ok.json<{ ok: boolean; checked: number }>();
    expect(verdict.ok).toBe(true);
    expect(verdict.checked).toBeGreaterThan(5);
    const rows = await server.db.query<{ seq: number | string }>(
      `SELECT seq FROM audit_log WHERE merchant_id = $1 AND action = 'order.stored' ORDER BY seq LIMIT 1`,
      [server.credentials.merchantId],
    );
    const seq = Number(rows.rows[0]!.seq);
    // audit_log refuses UPDATE (migration 0100): the attacker, owner of the tables, drops the trigger first.
    await server.db.query('DROP TRIGGER audit_log_immutable ON audit_log');
    await server.db.query(`UPDATE audit_log SET data = jsonb_set(data, '{totalCents}', '1') WHERE seq = $1`, [seq]);
    const broken = await server.app.inject({ method: 'GET', url: '/api/pos/audit/verify', headers: staffAuth() });
    expect(broken.json()).toMatchObject({ ok: false, brokenAtSeq: seq, reason: expect.stringContaining('hash') });
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: false, brokenAtSeq: seq });
  });
});
