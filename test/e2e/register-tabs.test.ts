/**
 * Two tabs of one register share one offline queue: only the leader tab replicates, so sales rung up in
 * either tab reach the server once, and the two tabs never hand out the same receipt number.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

describe('web register in two tabs', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    server = await startServerUnderTest();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  /** Rings up the first plain item (no choices) for the exact amount; returns the order id and receipt number. */
  async function sellOne(register: RegisterPage): Promise<{ orderId: string; receiptNumber: string }> {
    const page = register.page;
    const tile = page.locator('.item-tile:not(.item-has-options)').first();
    await tile.click();
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const sold = { orderId: await receipt.orderId(), receiptNumber: await receipt.receiptNumber() };
    await receipt.newSale();
    return sold;
  }

  it('replicates from one tab only and keeps receipt numbers unique', { timeout: 180_000 }, async () => {
    const pushesByPage = new Map<Page, number>();
    const watch = (page: Page) =>
      page.on('request', (request) => {
        if (/\/api\/sync\/(orders|journal-transactions)\/push/.test(request.url())) pushesByPage.set(page, (pushesByPage.get(page) ?? 0) + 1);
      });

    const pageA = await context.newPage();
    watch(pageA);
    const tabA = await RegisterPage.open(pageA, server.baseUrl, server.ownerPin);
    await tabA.waitForBadge('synced', 60_000);
    // At 1280 px the header (store, eight tabs, sync status) is one row: no taller than a tab plus its padding.
    const header = await pageA.locator('header.app-header').boundingBox();
    const tab = await pageA.getByRole('navigation', { name: 'Main' }).getByRole('button').first().boundingBox();
    expect(header!.height).toBeLessThan(tab!.height * 2);
    const status = await pageA.getByTestId('last-sync').boundingBox();
    expect(status!.y).toBeLessThan(tab!.y + tab!.height);
    const pageB = await context.newPage();
    watch(pageB);
    const tabB = await RegisterPage.open(pageB, server.baseUrl, server.ownerPin);

    await context.setOffline(true);
    await tabA.waitForBadge('offline');
    const soldB = await sellOne(tabB);
    const soldA = await sellOne(tabA);
    const soldB2 = await sellOne(tabB);
    const receipts = [soldA, soldB, soldB2].map((s) => s.receiptNumber);
    expect(new Set(receipts).size).toBe(3);
    // The three sales and the one shift (shared database) opened for them offline: every record kind counts.
    await tabA.waitForUnsynced(4);

    await context.setOffline(false);
    await tabA.waitForUnsynced(0, 60_000);
    await tabB.waitForUnsynced(0, 60_000);
    await tabB.waitForBadge('synced', 60_000);

    // Exactly one tab pushed.
    expect([...pushesByPage.values()].filter((n) => n > 0)).toHaveLength(1);

    const response = await fetch(`${server.baseUrl}/api/pos/orders?limit=100`, { headers: { authorization: `Bearer ${server.staffToken}` } });
    expect(response.ok).toBe(true);
    const { data } = (await response.json()) as { data: { id: string }[] };
    for (const sold of [soldA, soldB, soldB2]) expect(data.filter((o) => o.id === sold.orderId)).toHaveLength(1);
  });
});
