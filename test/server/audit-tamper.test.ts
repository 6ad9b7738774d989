import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { containsCardNumber } from '../../core/card-numbers.ts';
import { auditHash, verifyAuditChain, type StoredAuditRow } from '../../sync-server/src/kernel/audit.ts';
import { AuditSigner, type SignedCheckpoint } from '../../sync-server/src/kernel/checkpoints.ts';
import { generateAuditSigningKey, loadAuditSigningKey, AUDIT_SIGNING_KEY_FILE } from '../../sync-server/src/platform/auth/audit-signing-key.ts';
import { openPgliteDb } from '../../sync-server/src/platform/db/db.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * A ledger and audit trail that cannot be rewritten unseen. Every tampering here is done the way an
 * attacker with SQL access as the tables' owner would: plain statements, and DROP TRIGGER where the database refuses
 * them — which is exactly why the signed checkpoints, whose key the database does not hold, exist.
 */
const CART = [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }];

/**
 * The first Ed25519 key, from seeds SHA-256("audit-key-<n>"), whose key id (16 hex digits) holds a Luhn-valid run of
 * 13+ digits: what the card-number boundary once refused when a register handed its checkpoints back.
 */
function keyWithCardLikeId(): KeyObject {
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex'); // RFC 8410 PrivateKeyInfo for Ed25519
  for (let n = 0; ; n++) {
    const seed = createHash('sha256').update(`audit-key-${n}`).digest();
    const key = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' });
    if (containsCardNumber(new AuditSigner(key).keyId)) return key;
  }
}

interface Verdict {
  ok: boolean;
  checked: number;
  brokenAtSeq?: number;
  reason?: string;
  lastGoodCheckpoint: SignedCheckpoint | null;
  journalTransactions: number;
  checkpoints: { checked: number; invalidSignature: number };
  witness: { file: string | null; checkpoints: number };
  warnings: string[];
}

describe.each(databaseTargets())('audit trail tamper evidence on $name', (target) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const auth = () => ({ authorization: `Bearer ${server!.credentials.staffToken}` });
  const post = (url: string, payload: unknown, key = `k-${Math.random()}`) =>
    server!.app.inject({
      method: 'POST',
      url,
      headers: { ...auth(), 'content-type': 'application/json', 'idempotency-key': key },
      payload: JSON.stringify(payload),
    });
  const get = (url: string) => server!.app.inject({ method: 'GET', url, headers: auth() });
  const sql = (text: string, params: unknown[] = []) => server!.db.query(text, params);
  const merchant = () => server!.credentials.merchantId;

  /** A paid order through the API; returns its id. */
  const paidOrder = async (): Promise<string> => {
    const created = await post('/api/pos/orders', { lineItems: CART });
    expect(created.statusCode, created.body).toBe(201);
    const order = created.json<{ id: string; totalCents: number }>();
    const paid = await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'cash', amountCents: order.totalCents, tenderedCents: order.totalCents }],
    });
    expect(paid.statusCode, paid.body).toBe(201);
    return order.id;
  };
  const checkpoint = async (): Promise<SignedCheckpoint> => {
    const res = await post('/api/pos/audit/checkpoints', {});
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const exported = async (): Promise<SignedCheckpoint[]> => (await get('/api/pos/audit/checkpoints')).json<{ data: SignedCheckpoint[] }>().data;
  const verify = async (held?: SignedCheckpoint[]): Promise<Verdict> => {
    const res = held ? await post('/api/pos/audit/verify', { checkpoints: held }) : await get('/api/pos/audit/verify');
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const rows = async (): Promise<StoredAuditRow[]> =>
    (await server!.db.query<StoredAuditRow>('SELECT * FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [merchant()])).rows;

  /** Rewrites entry `seq` with `change` and recomputes its hash and every later one, as an attacker would. */
  const rewriteAndRehash = async (seq: number, change: (data: Record<string, unknown>) => Record<string, unknown>) => {
    await sql('DROP TRIGGER audit_log_immutable ON audit_log');
    let prev: string | undefined;
    for (const row of await rows()) {
      if (Number(row.seq) < seq) continue;
      const next = { ...row, data: Number(row.seq) === seq ? change(row.data) : row.data, prev_hash: prev ?? row.prev_hash };
      const hash = auditHash(next);
      await sql('UPDATE audit_log SET data = $2::jsonb, prev_hash = $3, hash = $4 WHERE seq = $1', [
        row.seq,
        JSON.stringify(next.data),
        next.prev_hash,
        hash,
      ]);
      prev = hash;
    }
  };

  /** A store with some history and two checkpoints: after two sales, and after two more. */
  const store = async (options: { auditWitnessFile?: string; auditSigningKey?: KeyObject } = {}) => {
    server = await startTestServer({ target, staticDir: null, recurringInvoices: { enabled: false }, webhooks: { enabled: false }, ...options });
    await paidOrder();
    await paidOrder();
    const first = await checkpoint();
    await paidOrder();
    await paidOrder();
    const second = await checkpoint();
    const verdict = await verify();
    expect(verdict).toMatchObject({ ok: true, lastGoodCheckpoint: second, checkpoints: { checked: 2, invalidSignature: 0 } });
    expect(verdict.journalTransactions).toBeGreaterThanOrEqual(8);
    return { first, second };
  };

  it('refuses UPDATE, DELETE and TRUNCATE of the audit log, and edits of captured amounts, in the database itself', async () => {
    server = await startTestServer({ target, staticDir: null, recurringInvoices: { enabled: false }, webhooks: { enabled: false } });
    const orderId = await paidOrder();
    const [last] = (await sql('SELECT seq FROM audit_log WHERE merchant_id = $1 ORDER BY seq DESC LIMIT 1', [merchant()])).rows as { seq: number }[];
    await expect(sql(`UPDATE audit_log SET data = '{}'::jsonb WHERE seq = $1`, [last!.seq])).rejects.toThrow(/append-only/);
    await expect(sql('DELETE FROM audit_log WHERE seq = $1', [last!.seq])).rejects.toThrow(/append-only/);
    await expect(sql('TRUNCATE audit_log')).rejects.toThrow(/append-only/);
    await expect(sql('UPDATE orders SET total_cents = total_cents + 50 WHERE id = $1', [orderId])).rejects.toThrow(/paid: its amounts cannot change/);
    await expect(sql(`UPDATE orders SET data = jsonb_set(data, '{totalCents}', '1') WHERE id = $1`, [orderId])).rejects.toThrow(
      /paid: its amounts cannot change/,
    );
    await expect(sql(`UPDATE orders SET state = 'open' WHERE id = $1`, [orderId])).rejects.toThrow(/paid: it cannot become open/);
    await expect(sql('DELETE FROM orders WHERE id = $1', [orderId])).rejects.toThrow(/cannot be deleted/);
    await expect(sql('UPDATE order_payments SET amount_cents = amount_cents + 50 WHERE order_id = $1', [orderId])).rejects.toThrow(
      /captured: its amounts cannot change/,
    );
    await expect(sql('UPDATE order_payments SET tip_cents = 1 WHERE order_id = $1', [orderId])).rejects.toThrow(
      /captured: its amounts cannot change/,
    );
    await expect(sql(`UPDATE order_payments SET state = 'voided' WHERE order_id = $1`, [orderId])).rejects.toThrow(
      /captured: it cannot become voided/,
    );
    await expect(sql('DELETE FROM order_payments WHERE order_id = $1', [orderId])).rejects.toThrow(/cannot be deleted/);
    await expect(sql('UPDATE audit_checkpoints SET head_hash = $1', ['0'.repeat(64)])).resolves.toBeDefined(); // no checkpoint yet: nothing to refuse
    await checkpoint();
    await expect(sql('UPDATE audit_checkpoints SET head_hash = $1', ['0'.repeat(64)])).rejects.toThrow(/append-only/);

    // An invoice payment is immutable: it is given back by a new record, never edited.
    const customer = await post('/api/pos/customers', { givenName: 'Ada', email: 'ada@example.com' });
    expect(customer.statusCode, customer.body).toBe(201);
    const invoice = await post('/api/pos/invoices', {
      customerId: customer.json<{ id: string }>().id,
      customLines: [{ description: 'Setup', amountCents: 5000 }],
      dueDate: '2026-12-31',
    });
    expect(invoice.statusCode, invoice.body).toBe(201);
    const invoiceId = invoice.json<{ id: string }>().id;
    expect((await post(`/api/pos/invoices/${invoiceId}/send`, {})).statusCode).toBe(200);
    const paid = await post(`/api/pos/invoices/${invoiceId}/payments`, { amountCents: 2000, method: 'other', reference: 'voucher 12' });
    expect(paid.statusCode, paid.body).toBeLessThan(300);
    await expect(sql('UPDATE invoice_payments SET amount_cents = 1 WHERE invoice_id = $1', [invoiceId])).rejects.toThrow(/append-only/);
    await expect(sql('DELETE FROM invoice_payments WHERE invoice_id = $1', [invoiceId])).rejects.toThrow(/append-only/);

    // Legal transitions still go through: a refund of the paid order.
    const refund = await post(`/api/pos/orders/${orderId}/refunds`, { amountCents: 100 });
    expect(refund.statusCode, refund.body).toBe(201);
    // An open order with part of it collected, canceled: what it collected is given back (a journal transaction).
    const open = (await post('/api/pos/orders', { lineItems: CART })).json<{ id: string }>();
    expect(
      (await post(`/api/pos/orders/${open.id}/payments`, { tenders: [{ method: 'cash', amountCents: 100, tenderedCents: 100 }] })).statusCode,
    ).toBe(201);
    const canceled = await post(`/api/pos/orders/${open.id}/cancel`, { reason: 'wrong table' });
    expect(canceled.statusCode, canceled.body).toBe(200);
    // Every journal transaction of these changes (sales, payments, the refund, the cancellation, the invoice's issue
    // and payment) rides on the audit row that names it: none needed a row of its own, and the trail verifies.
    const own = await sql(`SELECT count(*)::int AS n FROM audit_log WHERE merchant_id = $1 AND action = 'journal_transaction.posted'`, [merchant()]);
    expect(own.rows).toEqual([{ n: 0 }]);
    const verdict = await verify();
    expect(verdict).toMatchObject({ ok: true });
    expect(verdict.journalTransactions).toBe(
      Number((await sql('SELECT count(*)::int AS n FROM journal_transactions WHERE merchant_id = $1', [merchant()])).rows[0]!.n),
    );
  });

  it('catches 50¢ moved between two postings of one journal transaction, kept balanced, naming the entry that recorded it', async () => {
    const { second } = await store();
    const [jt] = (
      await sql(
        `SELECT j.id FROM journal_transactions j WHERE j.merchant_id = $1 AND (SELECT count(*) FROM postings p WHERE p.journal_transaction_id = j.id AND p.amount_cents < 0) >= 2 ORDER BY j.sync_seq LIMIT 1`,
        [merchant()],
      )
    ).rows as { id: string }[];
    const [recorder] = (await sql('SELECT seq FROM audit_log WHERE journal_hashes ? $1', [jt!.id])).rows as { seq: number | string }[];
    expect(recorder).toBeDefined();
    // postings refuse UPDATE: the attacker drops the trigger, then moves 50¢ from one credit to another.
    await sql('DROP TRIGGER postings_immutable ON postings');
    const credits = (await sql('SELECT id FROM postings WHERE journal_transaction_id = $1 AND amount_cents < 0 ORDER BY line_no', [jt!.id])).rows as {
      id: string;
    }[];
    await sql('UPDATE postings SET amount_cents = amount_cents + 50 WHERE id = $1', [credits[0]!.id]);
    await sql('UPDATE postings SET amount_cents = amount_cents - 50 WHERE id = $1', [credits[1]!.id]);

    expect((await get('/api/pos/ledger/trial-balance')).json<{ totalCents: number }>().totalCents).toBe(0);
    expect(await verifyAuditChain(server!.db, merchant())).toMatchObject({ ok: true }); // the chain alone cannot see it
    const verdict = await verify();
    expect(verdict).toMatchObject({ ok: false, brokenAtSeq: Number(recorder!.seq), reason: expect.stringContaining(jt!.id) });
    expect(verdict.lastGoodCheckpoint === null || verdict.lastGoodCheckpoint.seq < Number(recorder!.seq)).toBe(true);
    expect(second.seq).toBeGreaterThan(Number(recorder!.seq));
  });

  it('flags a sales and a tax report that disagree with the ledger after an unbalanced posting edit, and raises an alert', async () => {
    server = await startTestServer({ target, staticDir: null, recurringInvoices: { enabled: false }, webhooks: { enabled: false } });
    await paidOrder();
    await paidOrder();
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const period = `from=${day(-1)}&to=${day(1)}&timeZone=UTC`;
    const sales = async () =>
      (await get(`/api/pos/reports/sales?${period}`)).json<{
        totals: { netSalesCents: number; taxCents: number };
        reconciliation: Record<string, unknown>;
      }>();
    const before = await sales();
    expect(before.totals.netSalesCents).toBeGreaterThan(0);
    expect(before.reconciliation).toEqual({
      reconciled: true,
      ledgerNetSalesCents: before.totals.netSalesCents,
      ledgerTaxCents: before.totals.taxCents,
      netSalesDifferenceCents: 0,
      taxDifferenceCents: 0,
    });
    expect((await get(`/api/pos/reports/tax?${period}`)).json()).toMatchObject({ reconciliation: { reconciled: true, taxDifferenceCents: 0 } });

    // The attacker takes 50¢ of revenue off one posting (unbalanced): the trial balance moves, the sales records do not.
    await sql('DROP TRIGGER postings_immutable ON postings');
    await sql(
      `UPDATE postings SET amount_cents = amount_cents + 50 WHERE id = (SELECT p.id FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1 AND a.code = 'sales_revenue' LIMIT 1)`,
      [merchant()],
    );
    expect((await get('/api/pos/ledger/trial-balance')).json<{ totalCents: number }>().totalCents).toBe(50);
    const after = await sales();
    expect(after.totals).toEqual(before.totals);
    expect(after.reconciliation).toEqual({
      reconciled: false,
      ledgerNetSalesCents: before.totals.netSalesCents - 50,
      ledgerTaxCents: before.totals.taxCents,
      netSalesDifferenceCents: 50,
      taxDifferenceCents: 0,
    });
    const alerts = await server!.db.query<{ actor: string; data: Record<string, unknown> }>(
      `SELECT actor, data FROM audit_log WHERE action = 'report.unreconciled' AND merchant_id = $1`,
      [merchant()],
    );
    expect(alerts.rows).toEqual([
      {
        actor: `staff:${server!.credentials.staffId}`,
        data: expect.objectContaining({ report: 'sales', netSalesDifferenceCents: 50, reconciled: false }),
      },
    ]);

    // Tax moved off its account: the tax report says so too.
    await sql(
      `UPDATE postings SET amount_cents = amount_cents + 7 WHERE id = (SELECT p.id FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1 AND a.code = 'sales_tax_payable' LIMIT 1)`,
      [merchant()],
    );
    expect((await get(`/api/pos/reports/tax?${period}`)).json()).toMatchObject({ reconciliation: { reconciled: false, taxDifferenceCents: 7 } });
    expect(await verify()).toMatchObject({ ok: false });
  });

  it('catches an entry deleted in the middle, naming the entry after it and the last good checkpoint', async () => {
    const { first, second } = await store();
    const all = await rows();
    const victim =
      all.find((r) => Number(r.seq) > first.seq && Number(r.seq) < second.seq && r.journal_hashes === null) ??
      all.find((r) => Number(r.seq) > first.seq)!;
    const next = all[all.indexOf(victim) + 1]!;
    await sql('DROP TRIGGER audit_log_immutable ON audit_log');
    await sql('DELETE FROM audit_log WHERE seq = $1', [victim.seq]);
    const verdict = await verify();
    expect(verdict).toMatchObject({ ok: false, brokenAtSeq: Number(next.seq), lastGoodCheckpoint: first });
  });

  it('catches a deleted tail with the checkpoints in the database, and with a copy held outside when those are deleted too', async () => {
    const { first, second } = await store();
    const held = await exported();
    expect(held).toEqual([first, second]);
    await sql('DROP TRIGGER audit_log_immutable ON audit_log');
    await sql('DELETE FROM audit_log WHERE merchant_id = $1 AND seq > $2', [merchant(), first.seq + 1]);
    expect(await verifyAuditChain(server!.db, merchant())).toMatchObject({ ok: true }); // what is left chains fine
    expect(await verify()).toMatchObject({
      ok: false,
      brokenAtSeq: second.seq,
      reason: expect.stringContaining('deleted'),
      lastGoodCheckpoint: first,
    });

    // The attacker removes the checkpoints as well: the database alone can only tell that journal transactions lost the
    // entries recording them, not which entries are gone; the register's copy names them.
    await sql('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');
    await sql('DELETE FROM audit_checkpoints');
    const alone = await verify();
    expect(alone).toMatchObject({ ok: false, reason: expect.stringContaining('has no audit entry'), lastGoodCheckpoint: null });
    expect(alone.brokenAtSeq).toBeUndefined();
    expect(await verify(held)).toMatchObject({
      ok: false,
      brokenAtSeq: second.seq,
      reason: expect.stringContaining('deleted'),
      lastGoodCheckpoint: first,
    });
  });

  it('catches an entry rewritten with every later hash recomputed, after the trigger is dropped, by the signed checkpoints', async () => {
    const { first, second } = await store();
    const target = (await rows()).find((r) => Number(r.seq) > first.seq && r.action === 'order.paid')!;
    expect(Number(target.seq)).toBeLessThan(second.seq);
    await rewriteAndRehash(Number(target.seq), (data) => ({ ...data, totalCents: 1 }));
    expect(await verifyAuditChain(server!.db, merchant())).toMatchObject({ ok: true }); // the chain alone is fooled
    const verdict = await verify();
    expect(verdict).toMatchObject({
      ok: false,
      brokenAtSeq: second.seq,
      lastGoodCheckpoint: first,
      reason: expect.stringContaining(`after ${first.seq}`),
    });

    // Forging a checkpoint over the new head does not help: the key is not in the database.
    const [head] = (await rows()).slice(-1);
    await sql('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');
    await sql('UPDATE audit_checkpoints SET head_hash = $1 WHERE seq = $2', [head!.hash, second.seq]);
    const forged = await verify();
    expect(forged).toMatchObject({ ok: false, checkpoints: { invalidSignature: 1 }, reason: expect.stringContaining('invalid signature') });
    expect(await verify([second])).toMatchObject({ ok: false, brokenAtSeq: second.seq, lastGoodCheckpoint: first });
  });

  it('takes back checkpoints signed by a key whose id holds a Luhn-valid run of digits (about one server key in 2,000)', async () => {
    const { first, second } = await store({ auditSigningKey: keyWithCardLikeId() });
    expect(containsCardNumber(first.keyId)).toBe(true);
    expect(await verify([first, second])).toMatchObject({ ok: true, checkpoints: { checked: 2, invalidSignature: 0 } });
    const register = await enrollRegister(server!, server!.credentials.staffToken);
    const reported = await server!.app.inject({
      method: 'POST',
      url: '/api/sync/audit/head-reports',
      headers: { authorization: `Bearer ${register.registerToken}`, 'x-register-schema-version': '1' },
      payload: { held: second, told: second },
    });
    expect(reported.statusCode, reported.body).toBe(200);
  });

  it('catches two entries swapped (reordered), naming the first one out of place', async () => {
    const { first } = await store();
    const after = (await rows()).filter((r) => Number(r.seq) > first.seq);
    const [a, b] = [after[0]!, after[1]!];
    await sql('DROP TRIGGER audit_log_immutable ON audit_log');
    await sql('UPDATE audit_log SET seq = -1 WHERE seq = $1', [a.seq]);
    await sql('UPDATE audit_log SET seq = $1 WHERE seq = $2', [a.seq, b.seq]);
    await sql('UPDATE audit_log SET seq = $1 WHERE seq = -1', [b.seq]);
    expect(await verify()).toMatchObject({ ok: false, brokenAtSeq: Number(a.seq), lastGoodCheckpoint: first });
  });

  it('flags a checkpoint whose signature does not verify, sets aside one of another key, and answers 400 naming a malformed one', async () => {
    const { first, second } = await store();
    const tampered = { ...second, headHash: 'f'.repeat(64) };
    const otherKey = new AuditSigner(generateAuditSigningKey()).sign({
      merchantId: merchant(),
      seq: second.seq,
      headHash: 'e'.repeat(64),
      signedAt: second.signedAt,
      reason: 'periodic',
    });
    expect(await verify([first, otherKey])).toMatchObject({ ok: true, checkpoints: { checked: 3, invalidSignature: 1 }, lastGoodCheckpoint: second });
    expect(await verify([first, tampered])).toMatchObject({
      ok: false,
      checkpoints: { checked: 3, invalidSignature: 1 },
      reason: expect.stringContaining(`checkpoint of entry ${second.seq}`),
    });
    const bad = await post('/api/pos/audit/verify', { checkpoints: [{ ...first, headHash: 'not hex' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'checkpoints.0.headHash' })] });
  });

  describe('with the checkpoints witnessed outside the database', () => {
    let dir: string | undefined;
    afterEach(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
      dir = undefined;
    });
    const witnessed = async () => {
      dir = await mkdtemp(join(tmpdir(), 'audit-witness-'));
      const file = join(dir, 'audit-checkpoints.jsonl');
      const cps = await store({ auditWitnessFile: file });
      return { ...cps, file };
    };
    const dropCheckpointTrigger = () => sql('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');

    it('appends every new checkpoint to the witness file once, one JSON line each, and verifies clean with no warning', async () => {
      const { first, second, file } = await witnessed();
      expect(await checkpoint()).toEqual(second); // the head did not move: nothing new to witness
      const lines = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as SignedCheckpoint);
      expect(lines).toEqual([first, second]);
      expect(await verify()).toMatchObject({ ok: true, witness: { file, checkpoints: 2 }, warnings: [] });
    });

    it("catches entries rewritten from a point on with the project's hash code and the checkpoints from there on deleted", async () => {
      const { first, second } = await witnessed();
      const target = (await rows()).find((r) => Number(r.seq) > first.seq && r.action === 'order.paid')!;
      await rewriteAndRehash(Number(target.seq), (data) => ({ ...data, totalCents: 1 }));
      await dropCheckpointTrigger();
      await sql('DELETE FROM audit_checkpoints WHERE merchant_id = $1 AND seq >= $2', [merchant(), target.seq]);
      expect(await verifyAuditChain(server!.db, merchant())).toMatchObject({ ok: true }); // the database alone is consistent
      const verdict = await verify();
      expect(verdict).toMatchObject({ ok: false, brokenAtSeq: second.seq, lastGoodCheckpoint: first });
      expect(verdict.reason).toMatch(/missing from the database|rewritten/);
    });

    it('catches every checkpoint deleted, and a deleted tail with them', async () => {
      const { first } = await witnessed();
      await dropCheckpointTrigger();
      await sql('DELETE FROM audit_checkpoints');
      expect(await verify()).toMatchObject({
        ok: false,
        brokenAtSeq: first.seq,
        reason: expect.stringContaining('missing from the database'),
        lastGoodCheckpoint: null,
      });

      await sql('DROP TRIGGER audit_log_immutable ON audit_log');
      await sql('DELETE FROM audit_log WHERE merchant_id = $1 AND seq > $2', [merchant(), first.seq]);
      const verdict = await verify();
      expect(verdict).toMatchObject({ ok: false, brokenAtSeq: first.seq });
      expect(verdict.reason).toContain('missing from the database');
    });

    it('reports a head that went backwards: a checkpoint witnessed after another names an earlier entry', async () => {
      const { first, second, file } = await witnessed();
      await writeFile(file, `${JSON.stringify(first)}\n${JSON.stringify(second)}\n${JSON.stringify(first)}\n`);
      expect(await verify()).toMatchObject({ ok: false, brokenAtSeq: first.seq, reason: expect.stringContaining('went backwards') });
      await writeFile(file, `${JSON.stringify(first)}\n${JSON.stringify(second)}\n{"torn`);
      expect(await verify()).toMatchObject({ ok: true, warnings: [expect.stringContaining('1 line(s) that are no checkpoint')] });
    });

    it('checkpoints and witnesses a moved head when a server running the tick closes', async () => {
      dir = await mkdtemp(join(tmpdir(), 'audit-witness-'));
      const file = join(dir, 'audit-checkpoints.jsonl');
      server = await startTestServer({
        target,
        staticDir: null,
        recurringInvoices: { intervalMs: 3_600_000 },
        webhooks: { enabled: false },
        auditWitnessFile: file,
      });
      await paidOrder();
      const [head] = (await rows()).slice(-1);
      await server.close();
      server = undefined;
      const last = JSON.parse((await readFile(file, 'utf8')).trim().split('\n').at(-1)!) as SignedCheckpoint;
      expect(last).toMatchObject({ seq: Number(head!.seq), headHash: head!.hash, reason: 'periodic' });
    });

    it('without a witness file, the same deletion verifies but the verdict warns', async () => {
      await store();
      await dropCheckpointTrigger();
      await sql('DELETE FROM audit_checkpoints');
      const verdict = await verify();
      expect(verdict).toMatchObject({ ok: true, witness: { file: null, checkpoints: 0 } });
      expect(verdict.warnings).toEqual([expect.stringContaining('no checkpoint witness file')]);
    });
  });

  it('hands registers the signed head, and records once a register holding a newer checkpoint than the database', async () => {
    const { first, second } = await store();
    const register = await enrollRegister(server!, server!.credentials.staffToken);
    const asRegister = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      server!.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${register.registerToken}`, 'x-register-schema-version': '1' },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const listed = await asRegister('GET', `/api/pos/audit/checkpoints?afterSeq=${second.seq}`);
    expect(listed.json()).toMatchObject({ data: [], head: second });

    // Nothing went back: the report is no finding and records nothing.
    expect((await asRegister('POST', '/api/sync/audit/head-reports', { held: second, told: second })).json()).toEqual({
      rolledBack: false,
      head: second,
    });
    // A checkpoint the server's key did not sign is refused, naming the field.
    const forged = await asRegister('POST', '/api/sync/audit/head-reports', { held: { ...second, headHash: 'f'.repeat(64) }, told: first });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'held.signature' })] });

    // The newest checkpoint deleted: the register is told the older head, and reports the one it holds.
    await sql('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');
    await sql('DELETE FROM audit_checkpoints WHERE seq = $1', [second.seq]);
    expect((await asRegister('GET', `/api/pos/audit/checkpoints?afterSeq=${second.seq}`)).json()).toMatchObject({ head: first });
    for (let i = 0; i < 2; i += 1) {
      const reported = await asRegister('POST', '/api/sync/audit/head-reports', { held: second, told: first });
      expect(reported.statusCode, reported.body).toBe(200);
      expect(reported.json()).toEqual({ rolledBack: true, head: first });
    }
    const recorded = (await sql(`SELECT register_id, entity_id, data FROM audit_log WHERE action = 'audit.head_rolled_back'`)).rows as {
      register_id: string;
      entity_id: string;
      data: { held: SignedCheckpoint; told: SignedCheckpoint };
    }[];
    expect(recorded).toEqual([
      { register_id: register.registerId, entity_id: String(second.seq), data: { held: second, told: first, storedHeadSeq: first.seq } },
    ]);
  });

  it('flags entries past the newest checkpoint older than the housekeeping tick leaves them (the newest checkpoint deleted)', async () => {
    let now = new Date('2026-03-02T10:00:00.000Z');
    server = await startTestServer({
      target,
      staticDir: null,
      clock: () => now,
      recurringInvoices: { intervalMs: 3_600_000 },
      webhooks: { enabled: false },
    });
    const tick = () =>
      (server!.app as unknown as { recurringInvoices: { runOnce(): Promise<{ auditCheckpoints: number }> } }).recurringInvoices.runOnce();
    await paidOrder();
    await tick();
    const before = await exported();
    const kept = before.at(-1);
    await paidOrder();
    await tick();
    expect(await exported()).toHaveLength(before.length + 1);
    await paidOrder();
    await sql('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');
    await sql('DELETE FROM audit_checkpoints WHERE merchant_id = $1 AND seq > $2', [merchant(), kept!.seq]);
    // Within the interval (and the minute a tick may take), the next tick may still come.
    now = new Date(now.getTime() + 3_600_000);
    expect(await verify()).toMatchObject({ ok: true });
    // Past it, the head is stale: the checkpoint the tick must have written is gone.
    now = new Date(now.getTime() + 2 * 60_000);
    const stale = await verify();
    expect(stale).toMatchObject({ ok: false, lastGoodCheckpoint: kept, reason: expect.stringContaining('past the newest checkpoint') });
    expect(stale.brokenAtSeq).toBeGreaterThan(kept!.seq);
  });

  it('writes a periodic checkpoint on the housekeeping tick when the head moved, and none when it did not', async () => {
    server = await startTestServer({ target, staticDir: null, recurringInvoices: { intervalMs: 3_600_000 }, webhooks: { enabled: false } });
    const tick = () =>
      (server!.app as unknown as { recurringInvoices: { runOnce(): Promise<{ auditCheckpoints: number }> } }).recurringInvoices.runOnce();
    await paidOrder();
    expect((await tick()).auditCheckpoints).toBe(1);
    expect((await tick()).auditCheckpoints).toBe(0);
    const listed = (await get('/api/pos/audit/checkpoints')).json<{
      publicKey: { kty: string; crv: string; kid: string };
      data: SignedCheckpoint[];
    }>();
    expect(listed.publicKey).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(listed.data.at(-1)).toMatchObject({ reason: 'periodic', keyId: listed.publicKey.kid });
    const [head] = (await rows()).slice(-1);
    expect(listed.data.at(-1)).toMatchObject({ seq: Number(head!.seq), headHash: head!.hash });
    await paidOrder();
    expect((await tick()).auditCheckpoints).toBe(1);
  });
});

describe('npm run audit:verify', () => {
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'sync-server/src/audit-verify.ts', ...args],
        { env: { ...process.env, DATABASE_URL: '', ...env } },
        (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it(
    "verifies with the API's code from the command line, and a held copy of the checkpoints catches a rewritten, re-hashed trail",
    { timeout: 240_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'audit-cli-'));
      const key = generateAuditSigningKey();
      const env = { DATA_DIR: dir, AUDIT_SIGNING_KEY: key.export({ format: 'pem', type: 'pkcs8' }) as string };
      try {
        const server = await startTestServer({
          target: { name: 'pglite', open: () => openPgliteDb(join(dir, 'pglite')) },
          staticDir: null,
          recurringInvoices: { enabled: false },
          webhooks: { enabled: false },
          auditSigningKey: key,
          auditWitnessFile: join(dir, 'audit-checkpoints.jsonl'),
        });
        const headers = { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' };
        const order = (
          await server.app.inject({
            method: 'POST',
            url: '/api/pos/orders',
            headers: { ...headers, 'idempotency-key': 'o1' },
            payload: JSON.stringify({ lineItems: CART }),
          })
        ).json<{ id: string; totalCents: number }>();
        await server.app.inject({
          method: 'POST',
          url: `/api/pos/orders/${order.id}/payments`,
          headers: { ...headers, 'idempotency-key': 'p1' },
          payload: JSON.stringify({ tenders: [{ method: 'cash', amountCents: order.totalCents }] }),
        });
        const cp = (
          await server.app.inject({
            method: 'POST',
            url: '/api/pos/audit/checkpoints',
            headers: { ...headers, 'idempotency-key': 'c1' },
            payload: '{}',
          })
        ).json<SignedCheckpoint>();
        const exportedBody = (await server.app.inject({ method: 'GET', url: '/api/pos/audit/checkpoints', headers })).body;
        const merchantId = server.credentials.merchantId;
        await server.close();
        await writeFile(join(dir, 'held.json'), exportedBody);
        await writeFile(join(dir, 'public-key.json'), exportedBody);

        const sound = await run(['--merchant', merchantId], env);
        expect(sound.code, sound.stderr).toBe(0);
        expect(JSON.parse(sound.stdout)).toMatchObject({ merchantId, ok: true, lastGoodCheckpoint: cp });

        // The attacker rewrites the order's first entry, re-hashes the chain and removes the stored checkpoints.
        const db = await openPgliteDb(join(dir, 'pglite'));
        await db.query('DROP TRIGGER audit_log_immutable ON audit_log');
        await db.query('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');
        await db.query('DELETE FROM audit_checkpoints');
        const all = (await db.query<StoredAuditRow>('SELECT * FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [merchantId])).rows;
        const victim = all.findIndex((r) => r.entity_id === order.id);
        let prev = all[victim]!.prev_hash;
        for (const row of all.slice(victim)) {
          const next = { ...row, prev_hash: prev, data: row === all[victim] ? { ...row.data, totalCents: 1 } : row.data };
          prev = auditHash(next);
          await db.query('UPDATE audit_log SET data = $2::jsonb, prev_hash = $3, hash = $4 WHERE seq = $1', [
            row.seq,
            JSON.stringify(next.data),
            next.prev_hash,
            prev,
          ]);
        }
        await db.close();

        // By default the CLI reads DATA_DIR/audit-checkpoints.jsonl, the witness the server appended the checkpoint to.
        const witnessed = await run(['--merchant', merchantId], env);
        expect(witnessed.code, witnessed.stderr).toBe(1);
        expect(JSON.parse(witnessed.stdout)).toMatchObject({
          merchantId,
          ok: false,
          brokenAtSeq: cp.seq,
          witness: { file: join(dir, 'audit-checkpoints.jsonl'), checkpoints: 1 },
          warnings: [],
        });
        const alone = await run(['--merchant', merchantId, '--witness', join(dir, 'none.jsonl')], env);
        expect(alone.code).toBe(0); // the database alone is consistent again, and the verdict says what it lacks
        expect(JSON.parse(alone.stdout)).toMatchObject({ ok: true, warnings: [expect.stringContaining('does not exist')] });
        const caught = await run(['--merchant', merchantId, '--checkpoints', join(dir, 'held.json'), '--public-key', join(dir, 'public-key.json')], {
          DATA_DIR: dir,
        });
        expect(caught.code, caught.stderr).toBe(1);
        expect(JSON.parse(caught.stdout)).toMatchObject({ merchantId, ok: false, brokenAtSeq: cp.seq, lastGoodCheckpoint: null });
        const noKey = await run(['--merchant', merchantId], { DATA_DIR: dir });
        expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining('no audit signing key') });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('audit signing key', () => {
  it('is generated on first start as DATA_DIR/audit-signing.key, mode 0600, and read back the same; the environment wins', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-key-'));
    try {
      const key = await loadAuditSigningKey(dir, {});
      const file = join(dir, AUDIT_SIGNING_KEY_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await readFile(file, 'utf8')).startsWith('-----BEGIN PRIVATE KEY-----')).toBe(true);
      const again = await loadAuditSigningKey(dir, {});
      expect(again.export({ format: 'jwk' })).toEqual(key.export({ format: 'jwk' }));
      const other = generateAuditSigningKey();
      const fromEnv = await loadAuditSigningKey(dir, { AUDIT_SIGNING_KEY: other.export({ format: 'pem', type: 'pkcs8' }) as string });
      expect(fromEnv.export({ format: 'jwk' })).toEqual(other.export({ format: 'jwk' }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
