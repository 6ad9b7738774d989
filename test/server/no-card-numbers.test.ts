import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../core/index.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * No card number, CVC or secret in the database, the logs or the audit trail: card numbers and CVCs are
 * sent through every free-text field, token and query string the API and the replication push take; then the whole
 * database (pg_dump on PostgreSQL, every table as JSON on PGlite) and the server's request log are searched for them.
 */

const PAN = '4242424242424242';
const PAN_GROUPED = '4111 1111 1111 1111';
const PAN_DASHED = '5555-5555-5555-4444';
const AMEX = '378282246310005';
const CVC = '987';
const TYPED = `card ${PAN} cvc ${CVC}`;
const TYPED_GROUPED = `visa ${PAN_GROUPED} exp 12/30 cvv ${CVC}`;
const TYPED_DASHED = `mc ${PAN_DASHED} CVC: ${CVC}`;

/** What must appear nowhere: every PAN in any of its spellings, and a CVC phrase with its digits. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const pan of [PAN, PAN_GROUPED, PAN_DASHED, AMEX]) {
    const digits = pan.replace(/\D/g, '');
    // The digits with any single space, dash or nothing between them (JSON may escape nothing here: digits only).
    const spelled = new RegExp(digits.split('').join('[ -]?'));
    if (spelled.test(text)) found.push(pan);
  }
  if (/\b(cvc|cvv)\b\s*[:#]?\s*987\b/i.test(text)) found.push('cvc 987');
  return found;
}

const execFileAsync = promisify(execFile);

describe.each(databaseTargets())('no card number in the database or the log, on $name', (target) => {
  let server: TestServer;
  const logLines: string[] = [];
  let register: PairedRegister;
  let staff: Record<string, string>;
  let app: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({
      target,
      staticDir: null,
      logger: { write: (line: string) => void logLines.push(line) },
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
    });
    staff = { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' };
    app = { authorization: `Bearer ${server.credentials.appToken}`, 'content-type': 'application/json' };
    register = (await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {} })).json();
  });
  afterAll(async () => {
    await server?.close();
  });

  const send = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown, headers: Record<string, string> = staff) =>
    server.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });

  const line = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 1 };

  it('masks card numbers and CVCs in free text (first six, last four) and answers the masked text', async () => {
    const order = await send('POST', '/api/pos/orders', {
      lineItems: [line],
      note: TYPED,
      discounts: [{ name: 'staff', kind: 'percentage', basisPoints: 100 }],
    });
    expect(order.statusCode).toBe(201);
    expect(order.json().note).toBe('card 424242******4242 cvc ***');
    const paid = await send('POST', `/api/pos/orders/${order.json().id}/payments`, {
      tenders: [{ method: 'other', amountCents: order.json().totalCents, reference: 'voucher 12' }],
    });
    expect(paid.statusCode).toBe(201);
    const refund = await send(
      'POST',
      `/api/pos/orders/${order.json().id}/refunds`,
      { amountCents: 1, reason: TYPED_DASHED },
      { ...staff, 'idempotency-key': 'refund-1' },
    );
    expect(refund.statusCode).toBe(201);

    const open = await send('POST', '/api/pos/orders', { lineItems: [line], note: `amex ${AMEX}` });
    expect(open.json().note).toBe('amex 378282*****0005');
    expect((await send('POST', `/api/pos/orders/${open.json().id}/cancel`, { reason: TYPED })).statusCode).toBe(200);

    const customer = await send('POST', '/api/pos/customers', {
      givenName: 'Ana',
      note: TYPED_GROUPED,
      email: 'ana@example.com',
      phone: '+14155550123',
    });
    expect(customer.statusCode).toBe(201);
    expect(customer.json().note).toBe('visa 4111 11** **** 1111 exp 12/30 cvv ***');
    const customerId = customer.json().id as string;
    expect((await send('PATCH', `/api/pos/customers/${customerId}`, { note: TYPED_DASHED })).statusCode).toBe(200);

    const item = await send('POST', '/api/pos/catalog/items', {
      name: 'Gift card',
      description: TYPED,
      category: 'Cards',
      variations: [{ name: 'v', priceCents: 500, sku: 'SKU-1' }],
    });
    expect(item.statusCode).toBe(201);
    expect(item.json().description).toBe('card 424242******4242 cvc ***');

    const invoice = await send('POST', '/api/pos/invoices', {
      customerId,
      dueDate: '2030-01-01',
      memo: TYPED,
      customLines: [{ description: `Deposit ${PAN_DASHED}`, amountCents: 1000 }],
    });
    expect(invoice.statusCode).toBe(201);
    const invoiceId = invoice.json().id as string;
    expect((await send('POST', `/api/pos/invoices/${invoiceId}/send`, { channels: ['email'] })).statusCode).toBe(200);
    const other = await send(
      'POST',
      `/api/pos/invoices/${invoiceId}/payments`,
      { amountCents: 100, method: 'other', reference: 'transfer 7' },
      { ...staff, 'idempotency-key': 'inv-pay-1' },
    );
    expect(other.statusCode).toBe(201);

    const payRequest = await send(
      'POST',
      '/api/pos/pay-requests',
      { amountCents: 1250, phone: '+14155552671', memo: TYPED_GROUPED },
      { ...app, 'idempotency-key': 'pr-1' },
    );
    expect(payRequest.statusCode).toBe(201);
    expect(payRequest.json().memo).toBe('visa 4111 11** **** 1111 exp 12/30 cvv ***');
    const cancel = await send('POST', `/api/pos/pay-requests/${payRequest.json().id}/cancel`, { reason: TYPED }, app);
    expect(cancel.statusCode).toBe(200);

    // Stock, tax rates, locations, invoice drafts and voids.
    const stock = await send('POST', '/api/pos/catalog/inventory/receive', {
      note: TYPED,
      lines: [{ variationId: 'var_croissant_regular', quantity: 3 }],
    });
    expect(stock.statusCode).toBeLessThan(300);
    expect((await send('POST', '/api/pos/catalog/tax-rates', { name: 'Tax', basisPoints: 100, inclusive: false })).statusCode).toBe(201);
    const draft = await send('POST', '/api/pos/invoices', {
      customerId,
      dueDate: '2030-01-01',
      customLines: [{ description: 'Work', amountCents: 500 }],
    });
    expect((await send('PATCH', `/api/pos/invoices/${draft.json().id}`, { memo: TYPED_DASHED })).statusCode).toBe(200);
    expect((await send('POST', `/api/pos/invoices/${draft.json().id}/send`, { channels: ['email'] })).statusCode).toBe(200);
    expect((await send('POST', `/api/pos/invoices/${draft.json().id}/void`, { reason: TYPED })).statusCode).toBe(200);

    const hook = await send('POST', '/api/pos/webhooks', { url: 'https://example.com/hook', eventTypes: ['order.created'], description: TYPED }, app);
    expect(hook.statusCode).toBe(201);
    expect(hook.json().description).toBe('card 424242******4242 cvc ***');
  });

  it('refuses a name, reference, code, e-mail, URL or search term holding a card number (400 naming the field)', async () => {
    const refused = async (method: 'POST' | 'PATCH' | 'GET', url: string, payload: unknown, path: string, headers = staff) => {
      const res = await send(method, url, payload, headers);
      expect(res.statusCode, `${method} ${url} ${path}`).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([path]);
    };
    await refused(
      'POST',
      '/api/pos/orders',
      { lineItems: [line], discounts: [{ name: `staff ${PAN_DASHED}`, kind: 'percentage', basisPoints: 100 }] },
      'discounts.0.name',
    );
    await refused('POST', '/api/pos/customers', { givenName: `Ana ${PAN}`, email: 'ana2@example.com' }, 'givenName');
    await refused('POST', '/api/pos/customers', { givenName: 'Ana', email: `${PAN}@example.com` }, 'email');
    await refused(
      'POST',
      '/api/pos/catalog/items',
      { name: 'Gift', category: `Cards ${AMEX}`, variations: [{ name: 'v', priceCents: 500 }] },
      'category',
    );
    await refused(
      'POST',
      '/api/pos/catalog/items',
      { name: 'Gift', category: 'C', variations: [{ name: 'v', priceCents: 500, sku: `SKU ${PAN}` }] },
      'variations.0.sku',
    );
    await refused('POST', '/api/pos/catalog/locations', { name: `Back room ${PAN_GROUPED}` }, 'name');
    await refused('POST', '/api/pos/webhooks', { url: `https://example.com/hook/${PAN}`, eventTypes: ['order.created'] }, 'url', app);
    await refused('GET', `/api/pos/orders?q=${encodeURIComponent(PAN_GROUPED)}`, undefined, 'q');
  });

  it('refuses a token holding a card number (400 naming the field); the declined attempt is not recorded', async () => {
    const customer = await send('POST', '/api/pos/customers', { givenName: 'Bo', email: 'bo@example.com' });
    const invoice = await send('POST', '/api/pos/invoices', {
      customerId: customer.json().id,
      dueDate: '2030-01-01',
      customLines: [{ description: 'Work', amountCents: 1000 }],
    });
    await send('POST', `/api/pos/invoices/${invoice.json().id}/send`, { channels: ['email'] });
    const card = await send('POST', `/api/pos/invoices/${invoice.json().id}/payments`, { amountCents: 100, method: 'card', cardToken: `tok_${PAN}` });
    expect(card.statusCode).toBe(400);
    expect(card.json().errors.map((e: { path: string }) => e.path)).toEqual(['cardToken']);
    const check = await send('POST', `/api/pos/invoices/${invoice.json().id}/payments`, { amountCents: 100, method: 'check', checkNumber: AMEX });
    expect(check.statusCode).toBe(400);
    expect(check.json().errors.map((e: { path: string }) => e.path)).toEqual(['checkNumber']);

    // A key is kept as its SHA-256 only: one that holds a card number works (and replays) without the number being stored.
    const keyed = await send('POST', '/api/pos/orders', { lineItems: [line] }, { ...staff, 'idempotency-key': `key-${PAN}` });
    expect(keyed.statusCode).toBe(201);
    const replayed = await send('POST', '/api/pos/orders', { lineItems: [line] }, { ...staff, 'idempotency-key': `key-${PAN}` });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().id).toBe(keyed.json().id);
    const item = await send('POST', '/api/pos/catalog/items', {
      name: 'X',
      category: 'Y',
      variations: [{ id: `var_${PAN}`, name: 'v', priceCents: 1 }],
    });
    expect(item.statusCode).toBe(400);
    expect(item.json().errors.map((e: { path: string }) => e.path)).toEqual(['variations.0.id']);
  });

  it('masks synced free text and quarantines a synced document whose token holds a card number, masked', async () => {
    const push = (docs: unknown[]) =>
      server.app.inject({
        method: 'POST',
        url: '/api/sync/orders/push',
        headers: staff,
        payload: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
      });
    const noted: Order = { ...buildSale({ register, sequence: 1, catalog: server.catalog }).order, note: 'card 4242.4242.4242.4242 cvc 987' };
    const card = buildSale({ register, sequence: 2, catalog: server.catalog, method: 'card' }).order;
    const tokened: Order = {
      ...card,
      tenders: card.tenders.map((t) => ({ ...t, authCode: 'A1B2C3' })),
      staffId: `staff_${[...AMEX].join('\u200b')}`,
    };
    const res = await push([noted, tokened]);
    expect(res.statusCode).toBe(200);
    const conflicts = res.json<{ id: string; rejection?: { reason: string } }[]>();
    expect(conflicts.map((d) => d.id)).toEqual([tokened.id]);
    expect(conflicts[0]!.rejection!.reason).toMatch(/staffId.*card number/);
    const pulled = await server.app.inject({ method: 'GET', url: '/api/sync/orders/pull?limit=200', headers: staff });
    const stored = pulled.json<{ documents: Order[] }>().documents.find((d) => d.id === noted.id);
    expect(stored?.note).toBe('card 4242.42**.****.4242 cvc ***');
  });

  it('logs no query value, credential or card number', async () => {
    const payLink = (await send('GET', '/api/pos/pay-requests?limit=1', undefined, app)).json().data[0]?.id ?? 'pr_x';
    await server.app.inject({ method: 'GET', url: `/pay/${payLink}?card=${PAN}&cvc=${CVC}&token=${server.credentials.staffToken}` });
    await server.app.inject({ method: 'GET', url: `/api/pos/orders?card=${encodeURIComponent(PAN_GROUPED)}&cvc=${CVC}`, headers: staff });
    await server.app.inject({ method: 'GET', url: `/api/pos/orders/ord_${PAN}`, headers: staff });
    // A staff token in the stream's query string (streams take single-use tickets now): refused (so the request ends),
    // and not logged either.
    const expired = await server.issueStaffToken({ ttlSeconds: -60 });
    expect((await server.app.inject({ method: 'GET', url: `/api/sync/orders/stream?token=${expired}` })).statusCode).toBe(400);
    const log = logLines.join('');
    expect(log).toContain('"url":"/pay/'); // the requests were logged…
    expect(log).toContain('card=[redacted]&cvc=[redacted]'); // …with their query values redacted
    expect(leaks(log)).toEqual([]);
    expect(log).not.toContain(server.credentials.staffToken);
    expect(log).not.toContain(server.credentials.appToken);
    expect(log).not.toContain(expired);
  });

  it('the database dump holds no card number, CVC or clear secret, and the audit trail none either', async () => {
    let dump: string;
    if (target.name === 'postgres') {
      const name = (await server.db.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${name}`;
      dump = (await execFileAsync('/usr/bin/pg_dump', ['--no-owner', url.toString()], { maxBuffer: 256 * 1024 * 1024 })).stdout;
      expect(dump).toContain('COPY public.orders');
    } else {
      const tables = (
        await server.db.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
        )
      ).rows;
      const parts: string[] = [];
      for (const { name } of tables) {
        const rows = (await server.db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${name}" t`)).rows;
        parts.push(`-- ${name}\n${rows.map((r) => r.row).join('\n')}`);
      }
      dump = parts.join('\n');
      expect(dump).toContain('-- orders');
    }
    expect(dump).toContain('424242******4242'); // the masked text is there…
    expect(leaks(dump)).toEqual([]); // …the card numbers and CVCs are not
    // Secrets: the demo app's webhook secret and the signing key are sealed (kek1.…), never in clear.
    expect(dump).not.toContain(server.credentials.webhookSecret);
    expect(dump).toContain('kek1.');
    const keys = await server.db.query<{ private_jwk: unknown; private_jwk_sealed: string }>(
      'SELECT private_jwk, private_jwk_sealed FROM signing_keys',
    );
    expect(keys.rows.length).toBeGreaterThan(0);
    for (const k of keys.rows) {
      expect(k.private_jwk).toBeNull();
      expect(k.private_jwk_sealed).toMatch(/^kek1\./);
    }
    const audit = (await server.db.query<{ data: unknown }>('SELECT data FROM audit_log')).rows.map((r) => JSON.stringify(r.data)).join('\n');
    expect(leaks(audit)).toEqual([]);
  });
});
