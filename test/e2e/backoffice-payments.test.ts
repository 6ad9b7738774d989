/**
 * Back office → pay requests and invoices in the built register (Debian Chromium) against the real server: a
 * Text-to-Pay request created (dollars typed, integer cents stored), seen pending, canceled; an invoice drafted,
 * sent (its pay link in the SMS outbox), partly paid, its PDF downloaded; another draft voided; a recurring series
 * started (a field error from the server first), paused, resumed and ended.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

interface ApiPayRequest {
  id: string;
  status: string;
  amountCents: number;
  phone: string | null;
  memo: string | null;
  url: string;
}
interface ApiInvoice {
  id: string;
  number: string;
  status: string;
  totalCents: number;
  paidCents: number;
  balanceDueCents: number;
  customerId: string;
  payUrl: string | null;
}
interface ApiSeries {
  id: string;
  status: string;
  customerId: string;
  rrule: string;
  startDate: string;
  daysUntilDue: number;
  autoSend: boolean;
  customLines: { description: string; amountCents: number; quantity: number }[];
  nextOccurrenceDate: string | null;
  invoiceCount: number;
}

/** `YYYY-MM-DD` of the local date `days` from today (what a date input takes). */
function localDate(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

describe('back office payments', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let context: BrowserContext;
  let page: Page;

  const api = staffApi(() => server);

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1400, height: 900, acceptDownloads: true });
    ({ server, context, page } = suite);
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await BackOfficePage.open(page, server.ownerPin);
  });

  afterAll(() => suite?.close());

  it('creates a pay request, sees it pending, and cancels it', { timeout: 120_000 }, async () => {
    const section = await new BackOfficePage(page).payRequests();
    await page.getByText('No pay requests yet').waitFor();

    // A phone without country code: the server's problem is shown next to the phone field; nothing is created.
    await section.create({ amount: '12.50', phone: '4155550199', memo: 'Table 4 deposit' });
    await page.getByTestId('field-error').waitFor();
    await expect(page.getByLabel('Customer phone').getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await api<{ data: ApiPayRequest[] }>('/api/pos/pay-requests')).data).toHaveLength(0);

    await section.create({ amount: '12.50', phone: '+14155550199', memo: 'Table 4 deposit' });
    await page.getByTestId('pay-request-notice').waitFor();
    const listed = await api<{ data: ApiPayRequest[] }>('/api/pos/pay-requests');
    expect(listed.data).toHaveLength(1);
    const created = listed.data[0]!;
    expect(created).toMatchObject({ status: 'pending', amountCents: 1250, phone: '+14155550199', memo: 'Table 4 deposit' });
    const row = section.row(created.id);
    await expect(row.getAttribute('data-status')).resolves.toBe('pending');
    await expect(row.getByTestId('pay-request-status').textContent()).resolves.toBe('Pending');
    await expect(row.textContent()).resolves.toContain('$12.50');

    // Copy link puts the pay page url on the clipboard.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await row.getByRole('button', { name: /^Copy link/ }).click();
    await row.getByText('Link copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(created.url);

    await section.cancel(created.id);
    await expect(row.getByTestId('pay-request-status').textContent()).resolves.toBe('Canceled');
    expect((await api<ApiPayRequest>(`/api/pos/pay-requests/${created.id}`)).status).toBe('canceled');
    await expect(row.getByTestId('pay-request-cancel').count()).resolves.toBe(0);
  });

  it('drafts, sends, part-pays and voids invoices, and downloads a PDF', { timeout: 120_000 }, async () => {
    const customer = await api<{ id: string }>('/api/pos/customers', {
      body: { givenName: 'Lin', familyName: 'Invoice', phone: '+14155550177', email: 'lin@example.com' },
    });
    const section = await new BackOfficePage(page).invoices();

    /* A unit price that is not an amount is named at its field, with focus there, and nothing is sent. */
    await page.getByTestId('invoice-new').click();
    const form = page.getByTestId('invoice-form');
    await form.getByTestId('invoice-customer-search').fill('Lin');
    await form.locator('[data-testid="invoice-customer"] option:not([value=""])').first().waitFor({ state: 'attached' });
    await form.getByTestId('invoice-line-description').fill('Catering for 10');
    const unitPrice = form.getByTestId('invoice-line-amount');
    await unitPrice.fill('forty');
    await form.getByTestId('invoice-create').click();
    await expect.poll(() => unitPrice.getAttribute('aria-invalid')).toBe('true');
    await expect(form.getByTestId('field-error').textContent()).resolves.toBe('Enter an amount like 40.00');
    await expect.poll(() => unitPrice.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await api<{ data: ApiInvoice[] }>('/api/pos/invoices')).data).toHaveLength(0);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });

    await section.createDraft('Lin', { description: 'Catering for 10', amount: '40.00', quantity: '2' });
    const invoices = await api<{ data: ApiInvoice[] }>('/api/pos/invoices');
    expect(invoices.data).toHaveLength(1);
    const invoice = invoices.data[0]!;
    expect(invoice).toMatchObject({ status: 'draft', customerId: customer.id, totalCents: 8000 });
    await section.waitForStatus(invoice.id, 'draft');

    await section.row(invoice.id).getByTestId('invoice-send').click();
    await section.waitForStatus(invoice.id, 'sent');
    const sent = await api<ApiInvoice>(`/api/pos/invoices/${invoice.id}`);
    expect(sent.status).toBe('sent');
    // Sending texted the customer the invoice with its pay link (the SMS outbox holds it).
    expect(sent.payUrl).toBeTruthy();
    const outbox = await api<{ data: { to: string; body: string }[] }>('/api/pos/sms-outbox');
    const texted = outbox.data.filter((m) => m.to === '+14155550177');
    expect(texted).toHaveLength(1);
    expect(texted[0]!.body).toContain(sent.number);
    expect(texted[0]!.body).toContain(sent.payUrl!);

    await section.row(invoice.id).getByTestId('invoice-pay').click();
    await section.row(invoice.id).getByTestId('invoice-pay-amount').fill('30');
    await section.row(invoice.id).getByTestId('invoice-pay-amount').press('Enter');
    await section.waitForStatus(invoice.id, 'partially_paid');
    await expect(section.row(invoice.id).getByTestId('invoice-balance').textContent()).resolves.toBe('$50.00');
    expect(await api<ApiInvoice>(`/api/pos/invoices/${invoice.id}`)).toMatchObject({ paidCents: 3000, balanceDueCents: 5000 });
    await expect(section.row(invoice.id).getByTestId('invoice-void').count()).resolves.toBe(0);

    const [download] = await Promise.all([page.waitForEvent('download'), section.row(invoice.id).getByTestId('invoice-pdf').click()]);
    const pdf = readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    /* Paid in full, then part refunded with the Refund button: the ledger and the row say so. */
    await section.row(invoice.id).getByTestId('invoice-pay').click();
    await section.row(invoice.id).getByTestId('invoice-pay-amount').fill('50');
    await section.row(invoice.id).getByTestId('invoice-pay-amount').press('Enter');
    await section.waitForStatus(invoice.id, 'paid');
    await section.row(invoice.id).getByTestId('invoice-refund').click();
    await expect(section.row(invoice.id).getByTestId('invoice-refund-amount').inputValue()).resolves.toBe('80.00');
    await section.row(invoice.id).getByTestId('invoice-refund-amount').fill('20');
    await section.row(invoice.id).getByTestId('invoice-refund-submit').click();
    await section.row(invoice.id).getByTestId('invoice-refunded').waitFor();
    await expect(section.row(invoice.id).getByTestId('invoice-refunded').textContent()).resolves.toBe('$20.00 refunded');
    const refunded = await api<ApiInvoice & { refundedCents: number; refunds: { amountCents: number }[] }>(`/api/pos/invoices/${invoice.id}`);
    expect(refunded).toMatchObject({ status: 'paid', refundedCents: 2000, refunds: [{ amountCents: 2000 }] });

    await section.createDraft('Lin', { description: 'Deposit', amount: '15' });
    const second = (await api<{ data: ApiInvoice[] }>('/api/pos/invoices')).data.find((i) => i.id !== invoice.id)!;
    await section.waitForStatus(second.id, 'draft');
    await section.row(second.id).getByTestId('invoice-void').click();
    await section.row(second.id).getByTestId('invoice-confirm-void').click();
    await section.waitForStatus(second.id, 'void');
    expect((await api<ApiInvoice>(`/api/pos/invoices/${second.id}`)).status).toBe('void');

    /* The Messages view lists the text that carried the invoice. */
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Messages' }).click();
    const sms = page.getByTestId('sms-row').filter({ hasText: invoice.number });
    await sms.waitFor();
    await expect(sms.textContent()).resolves.toContain('+14155550177');
  });

  it('starts a recurring invoice series, pauses, resumes and ends it', { timeout: 120_000 }, async () => {
    const customer = await api<{ id: string }>('/api/pos/customers', { body: { givenName: 'Rae', familyName: 'Monthly', phone: '+14155550188' } });
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const invoices = await backOffice.invoices();
    const series = invoices.series;
    await series.root.getByText('No recurring series').waitFor();

    /* More than 365 days until due: the body's own rule (daysUntilDue ≤ 365) names that field in place; nothing is sent. */
    const start = localDate(3);
    await series.fillAndSubmit('Monthly', {
      every: '1',
      unit: 'MONTHLY',
      count: '12',
      start,
      daysDue: '400',
      line: { description: 'Monthly retainer', amount: '125.50' },
      memo: 'Retainer',
    });
    const dueField = series.form.getByTestId('series-days-due');
    await expect.poll(() => dueField.getAttribute('aria-invalid')).toBe('true');
    await expect(series.form.getByTestId('field-error').textContent()).resolves.toMatch(/365/);
    expect((await api<{ data: ApiSeries[] }>('/api/pos/invoice-series')).data).toHaveLength(0);

    await dueField.fill('15');
    await dueField.press('Enter');
    await series.form.waitFor({ state: 'detached' });
    const listed = await api<{ data: ApiSeries[] }>('/api/pos/invoice-series');
    expect(listed.data).toHaveLength(1);
    const created = listed.data[0]!;
    expect(created).toMatchObject({
      status: 'active',
      customerId: customer.id,
      rrule: 'FREQ=MONTHLY;INTERVAL=1;COUNT=12',
      startDate: start,
      daysUntilDue: 15,
      autoSend: true,
      nextOccurrenceDate: start,
      invoiceCount: 0,
    });
    expect(created.customLines).toEqual([expect.objectContaining({ description: 'Monthly retainer', amountCents: 12550, quantity: 1 })]);
    const row = series.row(created.id);
    await expect(row.getByTestId('series-schedule').textContent()).resolves.toContain('Every month, 12 times');
    await expect(row.textContent()).resolves.toContain('Rae Monthly');
    await expect(row.textContent()).resolves.toContain('$125.50');
    await page.screenshot({ path: '/tmp/backoffice-invoices.png' });

    await row.getByTestId('series-pause').click();
    await series.waitForStatus(created.id, 'paused');
    expect((await api<ApiSeries>(`/api/pos/invoice-series/${created.id}`)).status).toBe('paused');
    await row.getByTestId('series-resume').click();
    await series.waitForStatus(created.id, 'active');
    expect((await api<ApiSeries>(`/api/pos/invoice-series/${created.id}`)).status).toBe('active');

    // Ending asks first; Escape on the confirmation keeps the series.
    await row.getByTestId('series-end').click();
    await row.getByTestId('series-confirm-end').press('Escape');
    await expect(row.getByTestId('series-confirm-end').count()).resolves.toBe(0);
    await row.getByTestId('series-end').click();
    await row.getByTestId('series-confirm-end').click();
    await series.waitForStatus(created.id, 'ended');
    expect((await api<ApiSeries>(`/api/pos/invoice-series/${created.id}`)).status).toBe('ended');
    await expect(row.getByTestId('series-end').count()).resolves.toBe(0);
  });
});
