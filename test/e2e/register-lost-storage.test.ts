/**
 * Sales lost with the browser's storage are named, not silently forgotten: the register's receipt counter (kept in
 * localStorage as a witness) runs ahead of what it holds and of the last receipt number the server received from it,
 * so after its IndexedDB is cleared with two unsynced sales the register shows the cashier those two receipt numbers,
 * reports them to the server, and the back office lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';

describe('web register after its storage was cleared', () => {
  let suite: BrowserSuite | undefined;
  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 860 });
  });
  afterAll(() => suite?.close());

  it('names the receipts whose sales were lost, to the cashier and the back office', { timeout: 240_000 }, async () => {
    const { server, page } = suite!;
    const api = staffApi(() => server);
    const sellOne = async (register: RegisterPage) => {
      await page.locator('.item-tile:not(.item-has-options)').first().click();
      const tender = await register.charge();
      await tender.exact();
      const receipt = await tender.complete();
      const receiptNumber = await receipt.receiptNumber();
      await receipt.newSale();
      return receiptNumber;
    };

    let register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.waitForBadge('synced', 60_000);
    const synced = await sellOne(register);
    await register.waitForUnsynced(0, 60_000);

    // Two more sales that never reach the server (its push is cut), then the site's IndexedDB is wiped.
    await page.route('**/api/sync/orders/push', (route) => route.abort());
    const lost = [await sellOne(register), await sellOne(register)];
    await register.waitForUnsynced(2);
    await page.goto(`${server.baseUrl}/api/openapi.json`); // same origin, without the register holding its database
    await page.evaluate(async () => {
      for (const db of await indexedDB.databases()) {
        if (!db.name) continue;
        await new Promise<void>((resolve, reject) => {
          const request = indexedDB.deleteDatabase(db.name!);
          request.onsuccess = () => resolve();
          request.onerror = () => reject(request.error);
          request.onblocked = () => reject(new Error(`deleting ${db.name} is blocked`));
        });
      }
    });
    await page.unroute('**/api/sync/orders/push');

    register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const warning = page.getByTestId('missing-receipts-warning');
    await warning.waitFor({ timeout: 60_000 });
    await expect(warning.getByTestId('missing-receipt').allTextContents()).resolves.toEqual(lost);
    await expect(warning.textContent()).resolves.not.toContain(synced);

    // The server was told (audited), and the back office lists them.
    const reported = await api<{ data: { receiptNumber: string }[] }>('/api/sync/missing-receipts');
    expect(reported.data.map((m) => m.receiptNumber)).toEqual(lost);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    await backOffice.orders();
    const rows = page.getByTestId('missing-receipts').getByTestId('missing-receipt-row');
    await rows.first().waitFor({ timeout: 30_000 });
    const listed = await rows.allTextContents();
    expect(lost.every((n) => listed.some((row) => row.includes(n)))).toBe(true);

    // New sales continue after the lost numbers, never reusing them.
    await register.openRegister();
    const next = await sellOne(register);
    const seq = (n: string) => Number(/-(\d+)$/.exec(n)?.[1]);
    expect(seq(next)).toBe(seq(lost[1]!) + 1);
  });
});
