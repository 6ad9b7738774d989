/**
 * Back office → reports in the built register (Debian Chromium) against the real server: a sale rung up on the
 * register shows in today's sales summary (totals, by item with a bar, by tender), and the CSV downloads; a refund of
 * it shows in the refunds report; the trial balance of the day balances (debits = credits, as the API says).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../../core/index.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

describe('back office reports', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let page: Page;

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1400, height: 900, acceptDownloads: true });
    ({ server, page } = suite);
  });

  afterAll(() => suite?.close());

  it("shows a register sale in today's sales by item and tender, with CSV downloads", { timeout: 120_000 }, async () => {
    const item = server.catalog.items.find(
      (i) => i.modifierLists.length === 0 && i.variations.length === 1 && (i.variations[0]?.priceCents ?? 0) > 0,
    );
    expect(item, 'a plain single-variation item in the demo catalog').toBeDefined();
    if (!item) return;

    /* A cash sale at the register, synced to the server. */
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.tapItem(item.id);
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const totalText = ((await receipt.root.getByTestId('receipt-total').textContent()) ?? '').trim();
    const orderId = await receipt.root.getAttribute('data-order-id');
    expect(orderId).toMatch(/^ord_/);
    await receipt.newSale();
    await register.waitForUnsynced(0, 60_000);

    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const reports = await backOffice.reports();
    await expect.poll(() => reports.sales.getByTestId('sales-orders').textContent()).toBe('1');
    await expect(reports.sales.getByTestId('sales-total').textContent()).resolves.toBe(totalText);

    await reports.groupBy('item');
    const row = reports.row(item.id);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain(item.name);
    // The only item sold has the longest bar.
    await expect(row.locator('.bo-bar-fill').getAttribute('style')).resolves.toContain('width: 100');
    await page.screenshot({ path: '/tmp/backoffice-reports.png' });

    await reports.groupBy('tender');
    await expect(reports.row('cash').getByTestId('sales-row-net').textContent()).resolves.toBe(totalText);

    const csv = await reports.downloadCsv('sales-csv');
    const [header, ...lines] = csv.trim().split(/\r\n/);
    expect(header).toMatch(/key|tender/i);
    expect(lines.some((l) => l.startsWith('cash'))).toBe(true);
    const taxCsv = await reports.downloadCsv('tax-csv');
    expect(taxCsv.split(/\r\n/)[0]).toMatch(/tax/i);

    /* Nothing refunded yet; then $1.00 of the sale is refunded through the API and the reports reload. */
    await reports.refunds.getByText('No refunds in this period.').waitFor();
    const refund = await fetch(`${server.baseUrl}/api/pos/orders/${orderId}/refunds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ amountCents: 100, reason: 'Spilled coffee' }),
    });
    expect(refund.status, await refund.clone().text()).toBe(201);
    await reports.groupBy('day');
    const refundRow = reports.refunds.locator(`[data-testid="refund-row"][data-order-id="${orderId}"]`);
    await refundRow.waitFor();
    await expect(refundRow.textContent()).resolves.toContain('Spilled coffee');
    await expect(refundRow.getByTestId('refund-amount').textContent()).resolves.toBe('$1.00');
    // Charts beside the figures: the one refund is the whole bar; the tax collected by rate is drawn too.
    await expect(refundRow.locator('.bo-bar-fill').getAttribute('style')).resolves.toMatch(/width: 100(\.0)?%/);
    const taxBar = reports.page.getByTestId('tax-row').first().locator('.bo-bar-fill');
    await expect(taxBar.getAttribute('style')).resolves.toMatch(/width: 100(\.0)?%/);
    await reports.page.getByTestId('tax-report').screenshot({ path: '/tmp/backoffice-tax-refunds.png' });
    const refundsCsv = await reports.downloadCsv('refunds-csv');
    expect(refundsCsv.split(/\r\n/)[0]).toMatch(/^refundId,orderId,receiptNumber/);
    expect(refundsCsv).toContain(orderId!);

    /* Trial balance: the day's debits equal its credits, the same figures as the API. */
    const today = await reports.page.getByTestId('report-from').inputValue();
    const tbResponse = await fetch(`${server.baseUrl}/api/pos/reports/trial-balance?from=${today}`, {
      headers: { authorization: `Bearer ${server.staffToken}` },
    });
    const tb = (await tbResponse.json()) as {
      totals: { debitCents: number; creditCents: number };
      rows: { code: string; debitCents: number; creditCents: number }[];
    };
    expect(tb.totals.debitCents).toBeGreaterThan(0);
    expect(tb.totals.debitCents).toBe(tb.totals.creditCents);
    const debits = (await reports.trialBalance.getByTestId('tb-debits').textContent())?.trim();
    expect(debits).toBe(formatMoney(tb.totals.debitCents, 'USD'));
    await expect(reports.trialBalance.getByTestId('tb-credits').textContent()).resolves.toBe(debits);
    const moved = tb.rows.filter((r) => r.debitCents !== 0 || r.creditCents !== 0);
    await expect(reports.trialBalance.getByTestId('tb-row').count()).resolves.toBeGreaterThanOrEqual(moved.length);
    for (const r of moved) await reports.trialBalance.locator(`[data-testid="tb-row"][data-code="${r.code}"]`).waitFor();
    const tbCsv = await reports.downloadCsv('trial-balance-csv');
    expect(tbCsv.split(/\r\n/)[0]).toBe('code,name,type,openingCents,debitCents,creditCents,closingCents');
    await page.screenshot({ path: '/tmp/backoffice-reports-ledger.png', fullPage: true });
  });

  it('shows an order paid with Google Pay through its pay link as Google Pay, not card, in sales by tender', { timeout: 120_000 }, async () => {
    const staff = (path: string, body: unknown) =>
      fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const order = (await (
      await staff('/api/pos/orders', { lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }] })
    ).json()) as { id: string };
    const link = (await (await staff('/api/pos/pay-requests', { orderId: order.id, phone: '+14155550188' })).json()) as { id: string };
    const paid = await fetch(`${server.baseUrl}/pay/${link.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'google_pay', token: 'tok_sbx_visa_4242' }),
    });
    expect(paid.status).toBe(200);

    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const reports = await backOffice.reports();
    await reports.groupBy('tender');
    const wallet = reports.row('google_pay');
    await wallet.waitFor();
    await expect(wallet.textContent()).resolves.toContain('Google Pay');
    await expect(reports.row('card').count()).resolves.toBe(0);
  });
});
