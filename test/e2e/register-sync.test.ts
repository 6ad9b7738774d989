/**
 * The register's sync tells the cashier the truth and never jams:
 * - a backlog of sales made offline shows as synced as soon as the server has it (the stamped copies are pulled
 *   after each push, never one per back-off step), also after a tab handover;
 * - only orders are pushed (the server derives their journal transactions);
 * - the badge shows the server's reachability (the change streams' state), so a server outage shows at once.
 *
 * Real server (in-memory database, demo store) behind a TCP proxy the test can cut, + the built register in
 * Debian's Chromium.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

/** Rings up the first plain item (no choices) for the exact amount; returns the order id. */
async function sellOne(register: RegisterPage): Promise<string> {
  await register.page.locator('.item-tile:not(.item-has-options)').first().click();
  const tender = await register.charge();
  await tender.exact();
  const receipt = await tender.complete();
  const orderId = await receipt.orderId();
  await receipt.newSale();
  return orderId;
}

describe('web register sync', () => {
  let server: ServerUnderTest;
  let proxy: TcpProxy;
  let browser: Browser;
  let context: BrowserContext;
  const pushPaths: string[] = [];
  /** When the last push answer reached the browser (ms since the epoch): the figure below is measured from it. */
  let lastPushAnsweredAt = 0;
  const watch = (page: Page) => {
    page.on('pageerror', (err) => console.error('[page error]', err));
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.endsWith('/push')) pushPaths.push(path);
    });
    page.on('requestfinished', (request) => {
      if (new URL(request.url()).pathname.endsWith('/push')) lastPushAnsweredAt = Date.now();
    });
  };

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    proxy = await startTcpProxy(server.baseUrl);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await proxy?.close();
    await server?.close();
  });

  const serverOrderIds = async (): Promise<Set<string>> => {
    const ids = new Set<string>();
    let cursor: string | null | undefined;
    do {
      const response = await fetch(`${server.baseUrl}/api/pos/orders?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers: { authorization: `Bearer ${server.staffToken}` },
      });
      const body = (await response.json()) as { data: { id: string }[]; nextCursor?: string | null };
      for (const o of body.data) ids.add(o.id);
      cursor = body.nextCursor;
    } while (cursor);
    return ids;
  };

  it('shows 30 offline sales synced soon after reconnecting, pushing orders only', { timeout: 240_000 }, async () => {
    const page = await context.newPage();
    watch(page);
    const register = await RegisterPage.open(page, proxy.baseUrl, server.ownerPin);
    await register.waitForBadge('synced', 60_000);

    await context.setOffline(true);
    await register.waitForBadge('offline');
    const sold: string[] = [];
    for (let i = 0; i < 30; i += 1) sold.push(await sellOne(register));
    // The 30 sales and the shift the register opened for them offline (the header counts every record kind).
    await register.waitForUnsynced(31);

    const reconnectedAt = Date.now();
    await context.setOffline(false);
    // The old register took 237 s here (one catch-up pull per sale, backing off to 10 s): wait far less.
    await register.waitForUnsynced(0, 30_000);
    console.log(
      `30 offline sales shown synced ${Date.now() - reconnectedAt} ms after reconnecting, ${Date.now() - lastPushAnsweredAt} ms after the server answered their push`,
    );
    await register.waitForBadge('synced', 30_000);
    const onServer = await serverOrderIds();
    expect(sold.filter((id) => !onServer.has(id))).toEqual([]);
    // The register pushed orders only: the server derives each sale's journal transaction. (And the shift the first
    // sale opened: a sale with no shift open opens one.)
    expect(pushPaths.length).toBeGreaterThan(0);
    expect(new Set(pushPaths)).toEqual(new Set(['/api/sync/orders/push', '/api/sync/shifts/push']));
    await page.close();
  });

  it('catches up just as fast after a tab handover', { timeout: 240_000 }, async () => {
    const pageA = await context.newPage();
    watch(pageA);
    const tabA = await RegisterPage.open(pageA, proxy.baseUrl, server.ownerPin);
    await tabA.waitForBadge('synced', 60_000);
    const pageB = await context.newPage();
    watch(pageB);
    const tabB = await RegisterPage.open(pageB, proxy.baseUrl, server.ownerPin);

    await context.setOffline(true);
    await tabB.waitForBadge('offline');
    const sold: string[] = [];
    for (let i = 0; i < 10; i += 1) sold.push(await sellOne(tabB));
    await tabB.waitForUnsynced(10);
    // The leader tab goes away while offline; the other tab takes over the replication.
    await pageA.close();
    const reconnectedAt = Date.now();
    await context.setOffline(false);
    await tabB.waitForUnsynced(0, 30_000);
    console.log(
      `10 offline sales shown synced ${Date.now() - reconnectedAt} ms after reconnecting (${Date.now() - lastPushAnsweredAt} ms after the push answer), after a tab handover`,
    );
    const onServer = await serverOrderIds();
    expect(sold.filter((id) => !onServer.has(id))).toEqual([]);
    await pageB.close();
  });

  it('says the server is unreachable as soon as it goes away, and online when it is back', { timeout: 180_000 }, async () => {
    const page = await context.newPage();
    watch(page);
    const register = await RegisterPage.open(page, proxy.baseUrl, server.ownerPin);
    await register.waitForBadge('synced', 60_000);

    // Nothing is being pushed or pulled: only the change streams notice that the server is gone.
    await proxy.stop();
    await register.waitForBadge('offline', 10_000);
    await expect(register.syncBadge.textContent()).resolves.toContain('Server unreachable');

    await proxy.start();
    await register.waitForBadge('synced', 30_000);
    await expect(register.syncBadge.textContent()).resolves.toContain('Online');
    await page.close();
  });
});
