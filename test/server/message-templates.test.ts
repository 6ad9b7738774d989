/**
 * Message templates per store and language (docs/decisions/0094-message-templates-per-store-and-language.md) through
 * the API, on both databases: the store language setting, saving and resetting a template, the 400s naming the field,
 * the preview, and the texts and e-mails actually queued in the outboxes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGE_TEMPLATES, MESSAGE_KINDS } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

const NOW = new Date('2026-03-01T12:00:00.000Z');
const CART = [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }];

describe.each(databaseTargets())('message templates on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, bearer = server.credentials.staffToken) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const fieldsOf = (res: { json(): Json }) => (res.json().errors as { path: string }[]).map((e) => e.path);
  const template = async (kind: string, language?: string) =>
    ((await call('GET', `/api/pos/message-templates${language ? `?language=${language}` : ''}`)).json().items as Json[]).find(
      (t) => t.kind === kind,
    )!;
  const lastSms = async () =>
    (await server.db.query<{ body: string; to_phone: string }>('SELECT body, to_phone FROM sms_outbox ORDER BY created_at DESC, id DESC LIMIT 1'))
      .rows[0]!;
  const payRequest = async () => {
    const res = await call('POST', '/api/pos/pay-requests', { amountCents: 2599, phone: '+14155550123', memo: 'Mesa 4' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Json;
  };
  const paidOrder = async () => {
    const order = await call('POST', '/api/pos/orders', { lineItems: CART });
    expect(order.statusCode, order.body).toBe(201);
    const o = order.json() as Json;
    const paid = await call('POST', `/api/pos/orders/${o.id}/payments`, {
      tenders: [{ method: 'cash', amountCents: o.totalCents, tenderedCents: o.totalCents }],
    });
    expect(paid.statusCode, paid.body).toBe(201);
    return o;
  };

  it('lists every kind in the store language, the built-in English defaults until changed', async () => {
    const res = await call('GET', '/api/pos/message-templates');
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().items as Json[];
    expect(items.map((t) => t.kind)).toEqual([...MESSAGE_KINDS]);
    expect(items.every((t) => t.language === 'en' && t.overridden === false)).toBe(true);
    expect(items.find((t) => t.kind === 'pay_request_sms')).toMatchObject({
      channel: 'sms',
      subject: null,
      body: DEFAULT_MESSAGE_TEMPLATES.en.pay_request_sms.body,
      placeholders: expect.arrayContaining([{ name: 'payLink', description: expect.any(String), required: true }]),
    });
    expect((await template('receipt_email', 'fr')).subject).toBe('Votre ticket {{receiptNumber}} de {{store}}');
    expect((await call('GET', '/api/pos/message-templates?language=de')).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/message-templates', undefined, server.credentials.appToken)).statusCode).toBe(403);
  });

  it('refuses a bad template with a problem naming the field, and saves nothing', async () => {
    const cases: [string, unknown, string, RegExp][] = [
      ['pay_request_sms', { body: 'Pay {{total}} at {{payLink}}' }, 'body', /unknown placeholder \{\{total\}\}/],
      ['pay_request_sms', { body: '{{store}} asks {{amount}}' }, 'body', /must contain \{\{payLink\}\}/],
      ['pay_request_sms', { body: '{{#memo}}{{payLink}}{{/memo}}' }, 'body', /must contain \{\{payLink\}\}/],
      ['pay_request_sms', { body: '{{payLink}} {{#memo}}' }, 'body', /never closes/],
      ['pay_request_sms', { subject: 'Hi', body: '{{payLink}}' }, 'subject', /no subject/],
      ['invoice_email', { subject: 'Invoice for {{customer}}', body: '{{payLink}}' }, 'subject', /unknown placeholder \{\{customer\}\}/],
      ['receipt_email', { body: '{{receipt}}' }, 'subject', /blank/],
      ['receipt_sms', { body: 7 }, 'body', /./],
      ['receipt_sms', { body: '{{receiptNumber}}', language: 'de' }, 'language', /./],
    ];
    for (const [kind, body, field, message] of cases) {
      const res = await call('PUT', `/api/pos/message-templates/${kind}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
      expect(JSON.stringify(res.json().errors), JSON.stringify(body)).toMatch(message);
    }
    expect((await call('PUT', '/api/pos/message-templates/fax_cover', { body: 'x' })).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/message-templates')).json().items.some((t: Json) => t.overridden)).toBe(false);
    expect(Number((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM message_templates')).rows[0]!.n)).toBe(0);
  });

  it('previews a template with sample data: SMS parts, the escaped HTML of an e-mail, the same 400s', async () => {
    const short = await call('POST', '/api/pos/message-template-previews', {
      kind: 'pay_request_sms',
      body: '{{store}}: {{amount}}{{#memo}} ({{memo}}){{/memo}} {{payLink}}',
    });
    expect(short.statusCode, short.body).toBe(200);
    expect(short.json()).toMatchObject({
      kind: 'pay_request_sms',
      language: 'en',
      subject: null,
      html: null,
      body: `${server.credentials.merchantName}: $12.50 (Table 4) ${server.baseUrl}/pay/pr_01SAMPLE`,
      sms: { encoding: 'GSM-7', segments: 1 },
    });
    const long = await call('POST', '/api/pos/message-template-previews', { kind: 'pay_request_sms', body: `${'x'.repeat(170)} {{payLink}}` });
    expect(long.json().sms).toMatchObject({ encoding: 'GSM-7', segments: 2 });
    const unicode = await call('POST', '/api/pos/message-template-previews', {
      kind: 'pay_request_sms',
      body: 'Paga aquí ☕ {{payLink}}',
      language: 'es',
    });
    expect(unicode.json()).toMatchObject({ language: 'es', sms: { encoding: 'UCS-2', segments: 1 } });
    const email = await call('POST', '/api/pos/message-template-previews', {
      kind: 'invoice_email',
      subject: 'Factura {{invoiceNumber}}',
      body: '<b>{{store}}</b> {{balanceDue}}\n\n{{payLink}}',
      language: 'fr',
    });
    expect(email.statusCode, email.body).toBe(200);
    expect(email.json()).toMatchObject({ subject: 'Factura INV-0007', sms: null, language: 'fr' });
    expect(email.json().body).toMatch(/^<b>.*<\/b> 26,75\s\$US/);
    expect(email.json().html).toContain('&lt;b&gt;');
    expect(email.json().html).not.toContain('<b>');
    const bad = await call('POST', '/api/pos/message-template-previews', { kind: 'pay_request_sms', body: '{{amount}} {{tip}} {{payLink}}' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['body']);
  });

  it("writes the store's texts and e-mails in Spanish once it switches, and with its own template once it saves one", async () => {
    // English first: the same text as before templates.
    const en = await payRequest();
    expect((await lastSms()).body).toBe(`${server.credentials.merchantName}: payment request for $25.99 (Mesa 4). Pay here: ${en.url}`);

    const switched = await call('PATCH', '/api/pos/settings', { language: 'es' });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json().language).toBe('es');
    expect((await call('PATCH', '/api/pos/settings', { language: 'de' })).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/message-templates')).json().items[0].language).toBe('es');

    // The Spanish default: amounts formatted in Spanish, the link as made (signed and expiring as always).
    const es = await payRequest();
    expect(es.expiresAt).toBe('2026-03-08T12:00:00.000Z');
    expect((await lastSms()).body).toBe(`${server.credentials.merchantName}: solicitud de pago por 25,99 US$ (Mesa 4). Pague en: ${es.url}`);
    const order = await paidOrder();
    const receiptSms = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'sms', to: '+14155550142' });
    expect(receiptSms.statusCode, receiptSms.body).toBe(202);
    expect((await lastSms()).body).toMatch(new RegExp(`: recibo ${order.receiptNumber}, total .* US\\$, pagado .* US\\$\\. ¡Gracias!$`));

    // The store's own Spanish template, then its own receipt e-mail.
    const saved = await call('PUT', '/api/pos/message-templates/pay_request_sms', { body: 'Hola de {{store}}: {{amount}}. Pague aquí {{payLink}}' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      kind: 'pay_request_sms',
      language: 'es',
      overridden: true,
      body: 'Hola de {{store}}: {{amount}}. Pague aquí {{payLink}}',
    });
    const own = await payRequest();
    expect((await lastSms()).body).toBe(`Hola de ${server.credentials.merchantName}: 25,99 US$. Pague aquí ${own.url}`);
    const receiptTemplate = await call('PUT', '/api/pos/message-templates/receipt_email', {
      subject: 'Recibo {{receiptNumber}} — {{total}}',
      body: '¡Hola! Gracias por venir.\n\n{{receipt}}',
    });
    expect(receiptTemplate.statusCode, receiptTemplate.body).toBe(200);
    const receiptEmail = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'email', to: 'ana@example.com' });
    expect(receiptEmail.statusCode, receiptEmail.body).toBe(202);
    const email = (
      await server.db.query<{ subject: string; body: string; kind: string }>('SELECT subject, body, kind FROM email_outbox WHERE id = $1', [
        receiptEmail.json().id,
      ])
    ).rows[0]!;
    expect(email.kind).toBe('receipt');
    expect(email.subject).toMatch(new RegExp(`^Recibo ${order.receiptNumber} — \\d+,\\d\\d\\sUS\\$$`));
    expect(email.body).toMatch(
      new RegExp(`^¡Hola! Gracias por venir\\.\\n\\n${server.credentials.merchantName}\\nReceipt ${order.receiptNumber}\\n`),
    );

    // The override is Spanish only: in English the store sends the English default again.
    expect((await template('pay_request_sms', 'en')).overridden).toBe(false);
    // Reset: the Spanish default again.
    const reset = await call('DELETE', '/api/pos/message-templates/pay_request_sms');
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json()).toMatchObject({ overridden: false, body: DEFAULT_MESSAGE_TEMPLATES.es.pay_request_sms.body });
    await payRequest();
    expect((await lastSms()).body).toMatch(/: solicitud de pago por 25,99 US\$ \(Mesa 4\)\. Pague en: /);

    const audits = await server.db.query<{ action: string; data: Json }>(
      "SELECT action, data FROM audit_log WHERE action LIKE 'message_template.%' OR action = 'settings.updated' ORDER BY seq",
    );
    expect(audits.rows.map((r) => r.action)).toEqual([
      'settings.updated',
      'message_template.saved',
      'message_template.saved',
      'message_template.reset',
    ]);
    expect(audits.rows[0]!.data).toEqual({ language: { from: 'en', to: 'es' } });
    expect(audits.rows[1]!.data).toMatchObject({ kind: 'pay_request_sms', language: 'es' });
    expect((await verifyAuditChain(server.db, server.credentials.merchantId)).ok).toBe(true);
  });
});
