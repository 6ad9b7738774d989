/**
 * The hosted pay page in Chromium: a customer opens a Text-to-Pay link, a declined sandbox card
 * shows the decline and charges nothing, the approved test card pays; the API then shows the request paid with a
 * balanced journal transaction. The card number never leaves the browser, and the strict CSP is never violated.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { launchChromium } from './support/browser.ts';

/** Page object of the hosted pay page. */
class PayPage {
  constructor(readonly page: Page) {}

  static async open(page: Page, url: string): Promise<PayPage> {
    await page.goto(url);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return new PayPage(page);
  }

  status() {
    return this.page.locator('#status').getAttribute('data-status');
  }

  async payByCard(number: string, expiry = '12/34', cvc = '123'): Promise<void> {
    await this.page.getByRole('tab', { name: 'Card' }).click();
    await this.page.getByLabel('Card number').fill(number);
    await this.page.getByLabel('Expiry (MM/YY)').fill(expiry);
    await this.page.getByLabel('CVC').fill(cvc);
    await this.page.locator('#panel-card button[type=submit]').click();
  }

  async payWithWallet(name: 'Apple Pay' | 'Google Pay'): Promise<void> {
    await this.page.getByRole('tab', { name }).click();
    await this.page.getByRole('button', { name: new RegExp(`with ${name}`) }).click();
  }

  async payByBankTransfer(routing: string, account: string): Promise<void> {
    await this.page.getByRole('tab', { name: 'Bank transfer' }).click();
    await this.page.getByLabel('Routing number').fill(routing);
    await this.page.getByLabel('Account number').fill(account);
    await this.page.locator('#panel-bank_transfer button[type=submit]').click();
  }

  async waitForStatus(status: string): Promise<void> {
    await this.page.locator(`#status[data-status="${status}"]`).waitFor({ timeout: 15_000 });
  }

  alert() {
    return this.page.getByRole('alert');
  }
}

describe('hosted pay page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const cspViolations: string[] = [];
  const payBodies: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ listen: true, staticDir: null, webhooks: { enabled: false } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function api(method: 'GET' | 'POST', path: string, body?: unknown, token = server.credentials.appToken) {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async function newPage(): Promise<Page> {
    const page = await browser.newPage();
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) cspViolations.push(msg.text());
    });
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/pay\/pr_/.test(request.url())) payBodies.push(request.postData() ?? '');
    });
    return page;
  }

  it('a declined test card shows the decline and charges nothing; the approved card pays', { timeout: 120_000 }, async () => {
    const created = await api('POST', '/api/pos/pay-requests', { amountCents: 2599, phone: '+14155550123', memo: 'Table 4' });
    expect(created.status).toBe(201);
    const pr = created.body;
    const page = await newPage();
    const pay = await PayPage.open(page, pr.url);
    expect(await pay.status()).toBe('pending');
    await expect(page.locator('#amount').textContent()).resolves.toBe('$25.99');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(server.credentials.merchantName);
    expect(await page.getByText('Table 4').count()).toBe(1);
    // One payment method's form at a time: the hidden panels stay hidden whatever the forms' own display.
    const shownPanels = () =>
      page.locator('[role=tabpanel]').evaluateAll((panels) => panels.filter((p) => getComputedStyle(p).display !== 'none').map((p) => p.id));
    expect(await shownPanels()).toEqual(['panel-card']);
    await page.getByRole('tab', { name: 'Bank transfer' }).click();
    expect(await shownPanels()).toEqual(['panel-bank_transfer']);

    await pay.payByCard('4000 0000 0000 0002');
    await pay.alert().waitFor();
    expect(await pay.alert().textContent()).toContain('declined');
    expect(await pay.alert().textContent()).toContain('card_declined');
    const afterDecline = await api('GET', `/api/pos/pay-requests/${pr.id}`);
    expect(afterDecline.body.status).toBe('pending');
    const noJournal = await api('GET', `/api/pos/ledger/journal-transactions?sourceId=${pr.id}`, undefined, server.credentials.staffToken);
    expect(noJournal.body.data).toEqual([]);

    await pay.payByCard('4242 4242 4242 4242');
    await pay.waitForStatus('paid');
    expect(await page.getByText('visa •••• 4242').count()).toBe(1);
    await page.close();

    const paid = await api('GET', `/api/pos/pay-requests/${pr.id}`);
    expect(paid.body).toMatchObject({ status: 'paid', payment: { method: 'card', brand: 'visa', last4: '4242', rail: 'card_not_present' } });
    const journal = await api('GET', `/api/pos/ledger/journal-transactions?sourceId=${pr.id}`, undefined, server.credentials.staffToken);
    // The sale, and the routed rail's processing fee, posted because the sandbox reports none at capture.
    expect(journal.body.data.map((j: { kind: string }) => j.kind).sort()).toEqual(['fee', 'sale']);
    const postings = journal.body.data.find((j: { kind: string }) => j.kind === 'sale').postings as { accountCode: string; amountCents: number }[];
    expect(postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);
    expect(postings).toContainEqual({ accountCode: 'card_clearing:card_not_present', amountCents: 2599 });
    // Card not present: 2.9 % + 0.30 of 25.99 = 0.75 + 0.30.
    expect(journal.body.data.find((j: { kind: string }) => j.kind === 'fee').postings).toEqual([
      { accountCode: 'processing_fees', amountCents: 105 },
      { accountCode: 'card_clearing:card_not_present', amountCents: -105 },
    ]);

    expect(payBodies.length).toBeGreaterThanOrEqual(2);
    for (const body of payBodies) expect(body).not.toMatch(/4242424242424242|4000000000000002|4242 4242/);
    expect(cspViolations).toEqual([]);
  });

  it('pays an invoice link with the sandbox Apple Pay wallet; the invoice becomes paid', { timeout: 120_000 }, async () => {
    const staff = server.credentials.staffToken;
    const customer = await api('POST', '/api/pos/customers', { givenName: 'Lin', phone: '+14155550177' }, staff);
    expect(customer.status).toBe(201);
    const draft = await api(
      'POST',
      '/api/pos/invoices',
      { customerId: customer.body.id, customLines: [{ description: 'Hair colour', amountCents: 8500 }], dueDate: '2099-01-31' },
      staff,
    );
    const sent = await api('POST', `/api/pos/invoices/${draft.body.id}/send`, {}, staff);
    expect(sent.status).toBe(200);
    const page = await newPage();
    const pay = await PayPage.open(page, sent.body.payUrl);
    expect(await page.getByText(`Invoice ${sent.body.number}`).count()).toBe(1);
    expect(await page.getByText('Hair colour').count()).toBe(1);
    await pay.payWithWallet('Apple Pay');
    await pay.waitForStatus('paid');
    await page.close();
    const invoice = await api('GET', `/api/pos/invoices/${draft.body.id}`, undefined, staff);
    expect(invoice.body).toMatchObject({ status: 'paid', balanceDueCents: 0 });
    expect(invoice.body.payments[0]).toMatchObject({ method: 'apple_pay', rail: 'apple_pay', channel: 'pay_page', amountCents: 8500 });
    expect(cspViolations).toEqual([]);
  });
  it(
    'pays a line-item link with the sandbox Google Pay wallet: a sale with tax in the ledger, the goods off stock',
    { timeout: 120_000 },
    async () => {
      const staff = server.credentials.staffToken;
      const stock = async () =>
        (await api('GET', '/api/pos/catalog/inventory?variationId=var_croissant_regular', undefined, staff)).body.data[0].onHand as number;
      const before = await stock();
      const created = await api('POST', '/api/pos/pay-requests', {
        lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }],
        phone: '+14155550123',
        memo: 'Pickup 5pm',
      });
      expect(created.status).toBe(201);
      const page = await newPage();
      const pay = await PayPage.open(page, created.body.url);
      expect(await page.getByText('Croissant').count()).toBeGreaterThan(0);
      await pay.payWithWallet('Google Pay');
      await pay.waitForStatus('paid');
      expect(await page.getByText(/by Google Pay/).count()).toBe(1);
      await page.close();
      const paid = await api('GET', `/api/pos/pay-requests/${created.body.id}`);
      expect(paid.body).toMatchObject({ status: 'paid', payment: { method: 'google_pay', rail: 'google_pay' } });
      const journal = await api('GET', `/api/pos/ledger/journal-transactions?sourceId=${created.body.id}`, undefined, staff);
      // The sale (beside it, the routed rail's processing fee).
      const postings = journal.body.data.find((j: { kind: string }) => j.kind === 'sale').postings as { accountCode: string; amountCents: number }[];
      expect(postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);
      expect(postings).toContainEqual({ accountCode: 'card_clearing:google_pay', amountCents: created.body.amountCents });
      expect(postings.some((p) => p.accountCode === 'sales_tax_payable')).toBe(true);
      expect(await stock()).toBe(before - 2);
      expect(cspViolations).toEqual([]);
    },
  );

  it(
    'pays an open order by bank transfer: a closed account is refused with the reason, a good one pays the order',
    { timeout: 120_000 },
    async () => {
      const staff = server.credentials.staffToken;
      const order = await api(
        'POST',
        '/api/pos/orders',
        { lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }] },
        staff,
      );
      expect(order.status).toBe(201);
      const created = await api('POST', '/api/pos/pay-requests', { orderId: order.body.id, phone: '+14155550123' });
      expect(created.status).toBe(201);
      const page = await newPage();
      const pay = await PayPage.open(page, created.body.url);
      // A routing number that fails the ABA checksum never leaves the page.
      await pay.payByBankTransfer('110000001', '000123456789');
      await pay.alert().waitFor();
      expect(await pay.alert().textContent()).toContain('routing number');
      await pay.payByBankTransfer('110000000', '000111111116');
      await expect.poll(() => pay.alert().textContent()).toContain('account_closed');
      expect((await api('GET', `/api/pos/pay-requests/${created.body.id}`)).body.status).toBe('pending');
      await pay.payByBankTransfer('110000000', '000123456789');
      await pay.waitForStatus('paid');
      expect(await page.getByText(/by Bank transfer \(account •••• 6789\)/).count()).toBe(1);
      await page.close();
      const paidOrder = await api('GET', `/api/pos/orders/${order.body.id}`, undefined, staff);
      expect(paidOrder.body).toMatchObject({ state: 'paid', balanceDueCents: 0 });
      expect(paidOrder.body.payments).toEqual([
        expect.objectContaining({ rail: 'ach', reference: created.body.id, amountCents: order.body.totalCents }),
      ]);
      for (const body of payBodies) expect(body).not.toMatch(/000123456789|000111111116/);
      expect(cspViolations).toEqual([]);
    },
  );
});
