import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReceiptNumber, type OrderView } from '../../core/index.ts';
import { buildApp } from '../../sync-server/src/app.ts';
import { openMutation } from '../../sync-server/src/kernel/mutation.ts';
import { insertOrders } from '../../sync-server/src/modules/orders/service.ts';
import { buildSale } from '../support/sales.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

/**
 * Receipt numbers of API orders (back-office register) come from a per-register counter (migration 0081,
 * `receipt_sequences`): consecutive and unique however many orders there are, concurrent or not, across a restart,
 * and continuing from the existing orders when a register has no counter yet.
 */
describe.each(databaseTargets())('receipt numbers on $name', (target) => {
  let server: TestServer;
  let app: FastifyInstance;
  const LINE = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    app = server.app;
  });
  afterAll(async () => {
    if (app !== server?.app) await app?.close();
    await server?.close();
  });

  async function createOrders(n: number, concurrency: number): Promise<string[]> {
    const numbers: string[] = [];
    for (let done = 0; done < n; done += concurrency) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(concurrency, n - done) }, () =>
          app.inject({
            method: 'POST',
            url: '/api/pos/orders',
            headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
            payload: JSON.stringify({ lineItems: [LINE] }),
          }),
        ),
      );
      for (const res of batch) {
        expect(res.statusCode).toBe(201);
        numbers.push((res.json() as OrderView).receiptNumber);
      }
    }
    return numbers;
  }

  const sequences = (numbers: string[]) => numbers.map((n) => parseReceiptNumber(n)!.sequence).sort((a, b) => a - b);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('numbers consecutively and uniquely, concurrent orders included', async () => {
    const numbers = await createOrders(40, 8);
    expect(new Set(numbers).size).toBe(40);
    expect(sequences(numbers)).toEqual(range(1, 40));
    const prefixes = new Set(numbers.map((n) => n.split('-')[0]));
    expect(prefixes.size).toBe(1); // one back-office register
    const counter = await server.db.query<{ last_seq: number | string }>('SELECT last_seq FROM receipt_sequences');
    expect(counter.rows.map((r) => Number(r.last_seq))).toEqual([40]);
  });

  it('goes on where it was after a restart', async () => {
    app = await buildApp({
      db: server.db,
      config: { baseUrl: 'http://localhost', staticDir: null },
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
    });
    await server.app.close();
    const numbers = await createOrders(5, 1);
    expect(sequences(numbers)).toEqual(range(41, 45));
  });

  it('a register without a counter continues from its orders; the migration initialises the same way', async () => {
    await server.db.query('DELETE FROM receipt_sequences');
    expect(sequences(await createOrders(1, 1))).toEqual([46]);
    // The migration's initialisation, run again on this database: the counter it computes is the same.
    await server.db.query('DELETE FROM receipt_sequences');
    const sql = await readFile(new URL('../../sync-server/src/modules/orders/migrations/0081_receipt_sequences.sql', import.meta.url), 'utf8');
    await server.db.exec(sql.slice(sql.indexOf('INSERT INTO receipt_sequences')));
    const counter = await server.db.query<{ last_seq: number | string }>('SELECT last_seq FROM receipt_sequences');
    expect(counter.rows.map((r) => Number(r.last_seq))).toEqual([46]);
    expect(sequences(await createOrders(2, 2))).toEqual([47, 48]);
    const all = await server.db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE source = $1', ['api']);
    expect(sequences(all.rows.map((r) => r.receipt_number))).toEqual(range(1, 48));
  });

  it('insertOrders stores many orders in one statement, each with its own sync sequence, as the API shows them', async () => {
    const register = await enrollRegister({ app }, server.credentials.staffToken);
    const sales = [1, 2, 3].map((sequence) => buildSale({ register, sequence, catalog: server.catalog }).order);
    const seqs = await server.db.transaction(async (tx) => {
      const m = await openMutation(tx, { merchantId: server.credentials.merchantId, actor: `register:${register.registerId}` }, new Date());
      return insertOrders(
        m,
        sales.map((order) => ({ order, source: 'register' as const })),
      );
    });
    expect([...seqs.keys()].sort()).toEqual(sales.map((o) => o.id).sort());
    expect(new Set(seqs.values()).size).toBe(3);
    for (const sale of sales) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/pos/orders/${sale.id}`,
        headers: { authorization: `Bearer ${server.credentials.staffToken}` },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id: sale.id,
        receiptNumber: sale.receiptNumber,
        state: 'paid',
        source: 'register',
        totalCents: sale.totalCents,
        syncSeq: seqs.get(sale.id),
      });
    }
  });
});
