import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale } from '../../core/index.ts';
import { transactionMemo, type Db } from '../../sync-server/src/platform/db/db.ts';
import { appendAudit, verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { ensureChartOfAccounts, postJournalTransaction } from '../../sync-server/src/kernel/ledger.ts';
import { databaseTargets } from '../support/databases.ts';

/**
 * The per-transaction memo (db.ts `transactionMemo`) lets a transaction skip queries whose answer it already knows:
 * the merchant lock, account ids, the audit chain's head. These tests check that what it skips stays true — the
 * audit chain stays valid across many appends and a savepoint rolled back, postings land on the right accounts —
 * and that nothing is remembered outside a transaction.
 */
describe.each(databaseTargets())('transaction memo on $name', (target) => {
  let db: Db;
  const merchantId = 'mer_01J0000000000000000000MEMO';

  beforeAll(async () => {
    db = await target.openMigrated();
    await db.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Memo shop', 'USD')`, [merchantId]);
  });
  afterAll(async () => {
    await db?.close();
  });

  const audit = (tx: Parameters<typeof appendAudit>[0], action: string) =>
    appendAudit(tx, { merchantId, actor: 'system', action, entityType: 'test', entityId: action, occurredAt: new Date('2026-01-01T00:00:00Z') });

  it('keeps the audit chain valid across appends in one transaction and a savepoint rolled back', async () => {
    await db.transaction(async (tx) => {
      await audit(tx, 'first');
      await audit(tx, 'second');
      await tx.query('SAVEPOINT inner_work');
      await audit(tx, 'undone');
      await tx.query('ROLLBACK TO SAVEPOINT inner_work');
      await audit(tx, 'third');
    });
    await db.transaction(async (tx) => audit(tx, 'next transaction'));
    const { rows } = await db.query<{ action: string }>('SELECT action FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [merchantId]);
    expect(rows.map((r) => r.action)).toEqual(['first', 'second', 'third', 'next transaction']);
    expect(await verifyAuditChain(db, merchantId)).toMatchObject({ ok: true, checked: 4 });
  });

  it('posts every journal transaction of a transaction on the right accounts, created ones included', async () => {
    const sales = [1, 2, 3].map(
      (i) =>
        buildRegisterSale({
          registerId: 'reg_01J0000000000000000000MEMO',
          registerNumber: 7,
          sequence: i,
          currency: 'USD',
          createdAt: `2026-01-01T10:0${i}:00.000Z`,
          lines: [{ catalogItemId: 'itm_x', variationId: 'var_x', quantity: i }],
          discounts: [],
          catalog: {
            items: new Map([
              [
                'itm_x',
                {
                  id: 'itm_x',
                  name: 'X',
                  kind: 'product',
                  taxRateIds: [],
                  variations: [{ id: 'var_x', name: 'Regular', priceCents: 250 }],
                  modifierLists: [],
                },
              ],
            ]),
            taxRates: new Map(),
          } as never,
          payment: { method: 'cash', tipCents: 0, tenderedCents: 250 * i },
        }).journalTransaction,
    );
    await db.transaction(async (tx) => {
      await ensureChartOfAccounts(tx, merchantId);
      // The first sale creates the register's cash drawer account; the others find it in the memo.
      for (const jt of sales) await postJournalTransaction(tx, merchantId, jt!);
    });
    const { rows } = await db.query<{ code: string; total: string | number }>(
      `SELECT a.code, SUM(p.amount_cents) AS total FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1 GROUP BY a.code ORDER BY a.code`,
      [merchantId],
    );
    expect(rows.filter((r) => Number(r.total) !== 0).map((r) => [r.code, Number(r.total)])).toEqual([
      ['cash_drawer:R7', 1500],
      ['sales_revenue', -1500],
    ]);
  });

  it('remembers nothing outside a transaction, and forgets when the transaction ends', async () => {
    expect(transactionMemo(db)).toBeUndefined();
    let seen: Map<string, unknown> | undefined;
    await db.transaction(async (tx) => {
      seen = transactionMemo(tx);
      await audit(tx, 'memo check');
      expect(seen?.size).toBeGreaterThan(0);
    });
    await db.transaction(async (tx) => {
      expect(transactionMemo(tx)).not.toBe(seen);
      expect(transactionMemo(tx)?.size).toBe(0);
    });
  });
});
