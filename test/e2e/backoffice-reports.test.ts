/**
 * Back office → reports in the built register (Debian Chromium) against the real server: a sale rung up on the
 * register shows in today's sales summary (totals, by item with a bar, by tender), and the CSV downloads.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const CHROMIUM = '/usr/bin/chromium';

describe('back office reports', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    if (!existsSync(new URL('../../renderer/dist/index.html', import.meta.url))) throw new Error('build the register first: npm run build');
    server = await startServerUnderTest();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it("shows a register sale in today's sales by item and tender, with CSV downloads", { timeout: 120_000 }, async () => {
    const item = server.catalog.items.find((i) => i.modifierLists.length === 0 && i.variations.length === 1 && (i.variations[0]?.priceCents ?? 0) > 0);
    expect(item, 'a plain single-variation item in the demo catalog').toBeDefined();
    if (!item) return;

    /* A cash sale at the register, synced to the server. */
    const register = await RegisterPage.open(page, server.baseUrl);
    await register.tapItem(item.id);
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const totalText = ((await receipt.root.getByTestId('receipt-total').textContent()) ?? '').trim();
    await receipt.newSale();
    await register.waitForUnsynced(0, 60_000);

    const backOffice = await BackOfficePage.open(page);
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
  });
});
