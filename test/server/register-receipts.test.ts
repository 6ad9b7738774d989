/**
 * Registers' receipt numbers: what the server holds from a register (its last receipt number), and the receipt numbers
 * a register reports lost — validated (400 problems naming the field), audited once per number, listed for the back
 * office.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

describe.each(databaseTargets())('register receipts on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister & { registerToken: string };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    register = await enrollRegister(server, server.credentials.staffToken);
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${register.registerToken}`, 'x-register-schema-version': '1' },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('answers the last receipt number held, reports lost numbers once, and lists them', async () => {
    const empty = await call('GET', `/api/sync/registers/${register.registerId}`);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      lastReceiptNumber: null,
      lastReceiptSequence: 0,
      missingReceiptNumbers: [],
      confirmSellPastZero: false,
      serviceStyle: 'retail',
    });

    const sales = [1, 2].map((sequence) => buildSale({ register, sequence, catalog: server.catalog }));
    const pushed = await call(
      'POST',
      '/api/sync/orders/push',
      sales.map((s) => ({ newDocumentState: s.order })),
    );
    expect(pushed.statusCode).toBe(200);
    const r = (n: number) => `R${register.registerNumber}-${String(n).padStart(6, '0')}`;
    expect((await call('GET', `/api/sync/registers/${register.registerId}`)).json()).toMatchObject({
      lastReceiptNumber: r(2),
      lastReceiptSequence: 2,
    });

    // R-2 is held by the server: not lost. are reported (twice: recorded once).
    const reported = await call('POST', `/api/sync/registers/${register.registerId}/missing-receipts`, { receiptNumbers: [r(2), r(3), r(4)] });
    expect(reported.statusCode).toBe(200);
    expect(reported.json().missingReceiptNumbers).toEqual([r(3), r(4)]);
    const again = await call('POST', `/api/sync/registers/${register.registerId}/missing-receipts`, { receiptNumbers: [r(4), r(3)] });
    expect(again.json().missingReceiptNumbers).toEqual([r(3), r(4)]);
    const audited = await server.db.query<{ data: { receiptNumbers: string[] } }>(
      `SELECT data FROM audit_log WHERE action = 'register.receipts_missing'`,
    );
    expect(audited.rows.map((row) => row.data.receiptNumbers)).toEqual([[r(3), r(4)]]);
    expect((await verifyAuditChain(server.db, server.credentials.merchantId)).ok).toBe(true);

    // The store-wide list is the back office's: a staff member reads it.
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/sync/missing-receipts',
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((m: { receiptNumber: string; registerNumber: number }) => [m.registerNumber, m.receiptNumber])).toEqual([
      [register.registerNumber, r(3)],
      [register.registerNumber, r(4)],
    ]);
  });

  it('refuses bad input with problems naming the field, and unknown registers with 404', async () => {
    const other = `R${register.registerNumber + 1}-000001`;
    const cases: [string, unknown, string][] = [
      [`/api/sync/registers/${register.registerId}/missing-receipts`, { receiptNumbers: [] }, 'receiptNumbers'],
      [`/api/sync/registers/${register.registerId}/missing-receipts`, { receiptNumbers: ['nope'] }, 'receiptNumbers.0'],
      [`/api/sync/registers/${register.registerId}/missing-receipts`, { receiptNumbers: [other] }, 'receiptNumbers.0'],
      [`/api/sync/registers/${register.registerId}/missing-receipts`, { receiptNumbers: ['R1-000001'], extra: true }, 'extra'],
    ];
    for (const [url, payload, path] of cases) {
      const res = await call('POST', url, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await call('GET', '/api/sync/registers/not-a-register')).statusCode).toBe(400);
    expect((await call('GET', '/api/sync/registers/reg_unknown')).statusCode).toBe(404);
    expect((await call('POST', '/api/sync/registers/reg_unknown/missing-receipts', { receiptNumbers: ['R1-000001'] })).statusCode).toBe(404);
  });
});
