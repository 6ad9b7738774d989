/**
 * The receipt of a pay link's payment by e-mail: the customer gives an address on the pay page (`receiptEmail` in
 * `POST /pay/{id}`), and the receipt is queued in the e-mail outbox in the payment's own transaction — once per payment,
 * none for a decline or without an address, a malformed address refused before anything is charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

interface EmailRow {
  to_address: string;
  subject: string;
  body: string;
  kind: string;
  status: string;
}

describe.each(databaseTargets())('pay link receipts by e-mail on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
  });
  afterAll(async () => {
    await server?.close();
  });

  const createPayRequest = async (body: Record<string, unknown>) => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/pay-requests',
      headers: { authorization: `Bearer ${server.credentials.appToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ phone: '+14155550123', ...body }),
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string; amountCents: number }>();
  };
  const pay = (id: string, body: unknown, key = crypto.randomUUID()) =>
    server.app.inject({
      method: 'POST',
      url: `/pay/${id}`,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      payload: JSON.stringify(body),
    });
  const emailsTo = async (to: string) =>
    (
      await server.db.query<EmailRow>(
        'SELECT to_address, subject, body, kind, status FROM email_outbox WHERE merchant_id = $1 AND to_address = $2 ORDER BY created_at, id',
        [server.credentials.merchantId, to],
      )
    ).rows;
  const auditOf = async (id: string, action: string) =>
    (
      await server.db.query<{ data: Record<string, unknown> }>(
        'SELECT data FROM audit_log WHERE merchant_id = $1 AND entity_id = $2 AND action = $3',
        [server.credentials.merchantId, id, action],
      )
    ).rows;

  it('queues one receipt with the total paid and the card’s last four, in the payment’s transaction', async () => {
    const pr = await createPayRequest({ amountCents: 1875, memo: 'Cake for pickup' });
    const key = crypto.randomUUID();
    // As typed, surrounding spaces included: the address is kept trimmed.
    const attempt = { method: 'card', token: 'tok_sbx_visa_4242', receiptEmail: ' ana@example.com ' };
    const paid = await pay(pr.id, attempt, key);
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'paid', amountCents: 1875 });

    const emails = await emailsTo('ana@example.com');
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ kind: 'receipt', status: 'queued' });
    expect(emails[0]!.subject).toContain('$18.75');
    expect(emails[0]!.body).toContain(server.credentials.merchantName);
    expect(emails[0]!.body).toContain(pr.id);
    expect(emails[0]!.body).toContain('Cake for pickup');
    expect(emails[0]!.body).toMatch(/Total\s+\$18\.75/);
    expect(emails[0]!.body).toMatch(/Paid by Card \(visa •••• 4242\)\s+\$18\.75/);
    const audit = await auditOf(pr.id, 'pay_request.receipt_sent');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.data).toMatchObject({ channel: 'email', to: 'ana@example.com' });

    // The same attempt replayed, and another attempt on the paid link: no second receipt.
    expect((await pay(pr.id, attempt, key)).statusCode).toBe(200);
    expect((await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242', receiptEmail: 'ana@example.com' })).statusCode).toBe(409);
    expect(await emailsTo('ana@example.com')).toHaveLength(1);
  });

  it('lists the lines and tax of a catalog link on its receipt', async () => {
    const pr = await createPayRequest({ lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }] });
    expect((await pay(pr.id, { method: 'google_pay', token: 'tok_sbx_visa_4242', receiptEmail: 'lines@example.com' })).statusCode).toBe(200);
    const [email] = await emailsTo('lines@example.com');
    expect(email!.body).toMatch(/2 × Butter croissant\s+\$/);
    expect(email!.body).toMatch(/\nTax\s+\$/);
    expect(email!.body).toContain('Paid by Google Pay');
  });

  it('sends none for a declined card, nor without an address', async () => {
    const pr = await createPayRequest({ amountCents: 500 });
    const declined = await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_0002', receiptEmail: 'declined@example.com' });
    expect(declined.statusCode).toBe(402);
    expect(await emailsTo('declined@example.com')).toEqual([]);
    expect(await auditOf(pr.id, 'pay_request.receipt_sent')).toEqual([]);

    expect((await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' })).statusCode).toBe(200);
    expect(await auditOf(pr.id, 'pay_request.receipt_sent')).toEqual([]);
  });

  it('refuses a malformed address with a 400 naming receiptEmail, before anything is charged', async () => {
    const pr = await createPayRequest({ amountCents: 700 });
    const res = await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242', receiptEmail: 'not-an-address' });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toEqual(['receiptEmail']);
    const after = await server.app.inject({
      method: 'GET',
      url: `/api/pos/pay-requests/${pr.id}`,
      headers: { authorization: `Bearer ${server.credentials.appToken}` },
    });
    expect(after.json<{ status: string }>().status).toBe('pending');
  });

  it("writes the receipt in the store's language through its template: Spanish for a store in es", async () => {
    const settings = (language: string) =>
      server.app.inject({
        method: 'PATCH',
        url: '/api/pos/settings',
        headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ language }),
      });
    expect((await settings('es')).statusCode).toBe(200);
    try {
      const pr = await createPayRequest({ lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }] });
      expect((await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242', receiptEmail: 'lucia@example.com' })).statusCode).toBe(200);
      const [email] = await emailsTo('lucia@example.com');
      const amount = new Intl.NumberFormat('es', { style: 'currency', currency: 'USD' }).format(pr.amountCents / 100);
      expect(email!.subject).toBe(`Su recibo de ${server.credentials.merchantName}: ${amount} pagado`);
      expect(
        email!.body.startsWith(`Gracias por su pago a ${server.credentials.merchantName}.\n\n${server.credentials.merchantName}\nPago ${pr.id}\n`),
      ).toBe(true);
      expect(email!.body).toMatch(/2 × Butter croissant\s+\d+,\d\d\sUS\$/);
      expect(email!.body).toMatch(/\nImpuesto\s+/);
      expect(email!.body).toMatch(/Pagado con Tarjeta \(visa •••• 4242\)\s+/);
      expect(email!.body).toContain('¡Gracias!');
      expect(email!.body).not.toMatch(/Paid by|Thank you/);
    } finally {
      expect((await settings('en')).statusCode).toBe(200);
    }
  });
});
