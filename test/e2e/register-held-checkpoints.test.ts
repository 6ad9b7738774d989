/**
 * Audit checkpoints held by each register: while online the register fetches the store's signed audit checkpoints with its
 * register credential (`GET /api/pos/audit/checkpoints`) and keeps them in its localStorage
 * (renderer/src/register/sync/held-checkpoints.ts). An attacker with SQL access then rewrites an entry, re-hashes the
 * rest of the trail and deletes the server's checkpoints: the server alone sees nothing, the copy the register holds
 * catches it; told a head older than the one it holds, the register shows the manager and reports it. Real server + built
 * register in Chromium.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditHash, type StoredAuditRow } from '../../sync-server/src/kernel/audit.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from './support/browser.ts';

const TIMEOUT = 30_000;
const CART = [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }];

describe('signed checkpoints held by the register', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startTestServer({ listen: true, recurringInvoices: { enabled: false }, webhooks: { enabled: false } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  const api = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${server.credentials.staffToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const paidOrder = async () => {
    const order = (await api<{ id: string; totalCents: number }>('POST', '/api/pos/orders', { lineItems: CART })).body;
    const paid = await api('POST', `/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'cash', amountCents: order.totalCents, tenderedCents: order.totalCents }],
    });
    expect(paid.status).toBe(201);
  };
  const held = async () =>
    JSON.parse((await page.evaluate(() => localStorage.getItem('register.auditCheckpoints.v1'))) ?? 'null') as {
      publicKey: { kty?: string };
      data: { seq: number }[];
    } | null;

  it('keeps the checkpoints it fetched, and that copy catches a trail rewritten and re-hashed with the checkpoints deleted', async () => {
    await paidOrder();
    await paidOrder();
    const checkpoint = await api<{ seq: number }>('POST', '/api/pos/audit/checkpoints', {});
    expect(checkpoint.status).toBe(201);

    await page.goto(server.baseUrl);
    await new RegisterPage(page).signInIfAsked(server.credentials.ownerPin);
    await new RegisterPage(page).waitForCatalog();
    await expect.poll(async () => (await held())?.data.length ?? 0, { timeout: TIMEOUT }).toBe(1);
    const copy = (await held())!;
    expect(copy.data[0]).toEqual(checkpoint.body);
    expect(copy.publicKey.kty).toBe('OKP');

    // The attacker: rewrites a sale's entry before the checkpoint, re-hashes every later entry, deletes the checkpoints.
    const sql = (text: string, params: unknown[] = []) => server.db.query(text, params);
    await sql('DROP TRIGGER audit_log_immutable ON audit_log');
    await sql('DROP TRIGGER audit_checkpoints_immutable ON audit_checkpoints');
    await sql('DELETE FROM audit_checkpoints');
    const rows = (
      await server.db.query<StoredAuditRow>('SELECT * FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [server.credentials.merchantId])
    ).rows;
    const victim = rows.find((r) => r.action === 'order.paid')!;
    let prev: string | undefined;
    for (const row of rows) {
      if (Number(row.seq) < Number(victim.seq)) continue;
      const next = { ...row, data: row === victim ? { ...row.data, totalCents: 1 } : row.data, prev_hash: prev ?? row.prev_hash };
      const hash = auditHash(next);
      await sql('UPDATE audit_log SET data = $2::jsonb, prev_hash = $3, hash = $4 WHERE seq = $1', [
        row.seq,
        JSON.stringify(next.data),
        next.prev_hash,
        hash,
      ]);
      prev = hash;
    }

    // The server alone: no checkpoint left to compare with. The register's copy names the rewrite.
    const alone = await api<{ ok: boolean; checkpoints: { checked: number } }>('GET', '/api/pos/audit/verify');
    expect(alone.body).toMatchObject({ checkpoints: { checked: 0 } });
    const withCopy = await api<{ ok: boolean; brokenAtSeq?: number }>('POST', '/api/pos/audit/verify', { checkpoints: copy.data });
    expect(withCopy.status).toBe(200);
    expect(withCopy.body).toMatchObject({ ok: false, brokenAtSeq: checkpoint.body.seq });

    // Back on the register: the server now hands it no head at all, older than the one it holds. The register shows
    // the manager and reports it; the server records it.
    await page.reload();
    await new RegisterPage(page).signInIfAsked(server.credentials.ownerPin);
    const warning = page.getByTestId('audit-head-warning');
    await warning.waitFor({ timeout: TIMEOUT });
    expect(await page.getByTestId('audit-head-held').textContent()).toBe(String(checkpoint.body.seq));
    await expect.poll(async () => (await warning.textContent()) ?? '', { timeout: TIMEOUT }).toContain('The server has been told');
    const recorded = (await sql(`SELECT entity_id, data FROM audit_log WHERE action = 'audit.head_rolled_back'`)).rows as {
      entity_id: string;
      data: { held: unknown; told: unknown };
    }[];
    expect(recorded).toEqual([{ entity_id: String(checkpoint.body.seq), data: { held: checkpoint.body, told: null, storedHeadSeq: null } }]);
  });
});
