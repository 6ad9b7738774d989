/**
 * Offline card payments, store and forward, end to end: the built register in Chromium, the real sync
 * server behind a TCP proxy (cut to take the register offline), the web hardware bridge and the card-terminal
 * simulator on a socat pseudo-terminal. Offline, the cashier sees the offline card limit left; two card sales are
 * approved offline by the terminal (the second with the sandbox card that declines on forward); on reconnect the
 * sales sync, each approval is forwarded exactly once, and the declined one shows in Back office → Orders as
 * "Balance due — offline card declined" and on the order itself (state Balance due), where the manager collects it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceHost, type DeviceHost, type RemoteDeviceSimulators } from '../support/device-host.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { CHROMIUM, launchChromium, requireBuiltRegister } from './support/browser.ts';
import { E2E_TERMINAL_TIMEOUTS, untilCardReceipt } from './support/card.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const TIMEOUT = 30_000;

/** Retries an assertion until it passes (the page updates asynchronously). */
async function eventually(assertion: () => Promise<void>, timeoutMs = TIMEOUT): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
const cents = (text: string) => Math.round(Number(text.replace(/[^0-9.]/g, '')) * 100);

describe.skipIf(!existsSync(CHROMIUM) || !existsSync('/usr/bin/socat'))('offline card sales through the terminal', () => {
  let server: ServerUnderTest;
  let proxy: TcpProxy;
  let bridge: DeviceHost;
  let sim: RemoteDeviceSimulators;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let register: RegisterPage;

  beforeAll(async () => {
    requireBuiltRegister();
    dir = await mkdtemp(join(tmpdir(), 'offline-card-e2e-'));
    server = await startServerUnderTest();
    proxy = await startTcpProxy(server.baseUrl);
    // The store's offline limits, pulled by the register while online: $50 per payment, $68 outstanding.
    const patched = await fetch(`${server.baseUrl}/api/pos/offline-cards/limits`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ maxPaymentCents: 5000, maxOutstandingCents: 6800 }),
    });
    expect(patched.status).toBe(200);
    bridge = await startDeviceHost({ dataDir: dir, port: 0, allowedOrigins: [proxy.baseUrl], ...E2E_TERMINAL_TIMEOUTS, simulatorProcessingMs: 20 });
    sim = bridge.simulators!;
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    register = await RegisterPage.open(page, proxy.baseUrl, server.ownerPin);
  });

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
    await proxy?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const shown = (testId: string) => page.locator(`[data-testid="${testId}"]:visible`);
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const offlinePayments = async (): Promise<Record<string, any>[]> => {
    const response = await fetch(`${server.baseUrl}/api/pos/offline-cards/payments`, { headers: { authorization: `Bearer ${server.staffToken}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Record<string, any>[] }).data;
  };

  /** Rings up `itemId`, pays by card offline; answers the receipt number and the total in cents. */
  async function sellOffline(itemId: string, limitLeftCents: number): Promise<{ receiptNumber: string; totalCents: number }> {
    await register.tapItem(itemId);
    await page.getByTestId('charge').click();
    const totalCents = cents((await page.getByTestId('tender-total').textContent()) ?? '');
    await page.getByTestId('tender-method-card').click();
    await eventually(async () => expect(await page.getByTestId('offline-card-limit').textContent()).toContain(dollars(limitLeftCents)));
    await page.getByTestId('charge-card').click();
    await untilCardReceipt(page);
    const receiptNumber = (await page.getByTestId('receipt-number').textContent({ timeout: TIMEOUT }))!;
    await page.getByTestId('new-sale').click();
    return { receiptNumber, totalCents };
  }

  it('offline card sale → reconnect → forwarded once → one declined on forward → balance due shown', { timeout: 240_000 }, async () => {
    await register.waitForBadge('synced', 60_000);
    // Pair the hardware bridge (Devices view), as a store does once.
    await nav('Devices');
    await page.getByTestId('bridge-url').fill(bridge.url);
    await page.getByTestId('bridge-token').fill(bridge.token);
    await page.getByTestId('bridge-connect').click();
    await eventually(async () => expect(await shown('device-state').getAttribute('data-connection')).toBe('ready'));
    await nav('Register');
    await eventually(async () => expect(await shown('device-terminal').textContent()).toContain('Simulated card terminal'));

    // The server goes away: the register is offline (the bridge on this machine stays).
    await proxy.stop();
    await eventually(async () => expect(await page.getByTestId('sync-badge').getAttribute('data-state')).not.toBe('synced'), 60_000);

    const first = await sellOffline('itm_haircut', 5000);
    await sim.terminal.presentCardOffline({ brand: 'VISA', last4: '0002' }); // the sandbox card the issuer declines on forward
    const second = await sellOffline('itm_blow_dry', Math.min(5000, 6800 - first.totalCents));
    // What is left of the outstanding limit is too little for another haircut: refused before the terminal is asked.
    const left = 6800 - first.totalCents - second.totalCents;
    await register.tapItem('itm_haircut');
    await page.getByTestId('charge').click();
    await page.getByTestId('tender-method-card').click();
    await eventually(async () => expect(await page.getByTestId('offline-card-limit').textContent()).toContain(dollars(left)));
    await page.getByTestId('charge-card').click();
    await eventually(async () => expect(await page.getByTestId('card-message').textContent()).toContain('Over the offline card limit'));
    await page.getByRole('dialog', { name: 'Card payment' }).getByRole('button', { name: /close/i }).click();
    const offlineSales = sim.terminal.requests.filter((r) => r.type === 'sale' && r.offline === true);
    expect(offlineSales).toHaveLength(2);
    expect(sim.terminal.charges()).toHaveLength(0); // nothing moved at the terminal: the server forwards
    // The two sales and the shift the register opened for them offline (the header counts every record kind).
    await register.waitForUnsynced(3);
    expect(await offlinePayments()).toEqual([]);

    // Back online: the sales sync and each approval is forwarded exactly once.
    await proxy.start();
    await register.waitForUnsynced(0, 60_000);
    await eventually(async () => {
      const payments = await offlinePayments();
      expect(payments.map((p) => [p.receiptNumber, p.state, p.forwardAttempts]).sort()).toEqual(
        [
          [first.receiptNumber, 'captured', 1],
          [second.receiptNumber, 'declined', 1],
        ].sort(),
      );
    });
    const declined = (await offlinePayments()).find((p) => p.state === 'declined')!;
    expect(declined).toMatchObject({ last4: '0002', balanceDueCents: second.totalCents, declineCode: 'card_declined' });

    // The manager sees the balance due in Back office → Orders.
    const bo = await BackOfficePage.open(page, server.ownerPin);
    await bo.orders();
    const row = page.locator('[data-testid="offline-card-balance"]');
    await eventually(async () => expect(await row.count()).toBe(1));
    const text = (await row.textContent()) ?? '';
    expect(text).toContain(second.receiptNumber);
    expect(text).toContain(dollars(second.totalCents));
    expect(text).toContain('0002');
    expect(await page.getByTestId('offline-card-balances').textContent()).toContain('Balance due — offline card declined');

    // The order itself shows the balance due, and the manager collects it (part in cash, the rest by card): paid again.
    const orders = await bo.orders();
    await orders.waitForState(declined.orderId, 'balance_due');
    const dialog = await orders.open(declined.orderId);
    await dialog.waitForState('balance_due');
    expect(await dialog.root.getByTestId('order-balance').textContent()).toBe(dollars(second.totalCents));
    const due = (await dialog.root.getByTestId('order-balance-due-text').textContent()) ?? '';
    expect(due).toContain(`${dollars(second.totalCents)} due — offline card declined on forward`);
    expect(due).toContain('0002: card_declined');
    expect(await dialog.root.getByTestId('order-balance-due-customer').textContent()).toContain('no customer on the receipt');
    await dialog.collectBalance('cash', '1.00');
    await eventually(async () => expect(await dialog.root.getByTestId('order-balance').textContent()).toBe(dollars(second.totalCents - 100)));
    expect(await dialog.notice.textContent()).toContain('still due');
    await dialog.collectBalance('card');
    await dialog.waitForState('paid');
    expect(await dialog.root.getByTestId('order-balance').textContent()).toBe(dollars(0));
    expect(await dialog.notice.textContent()).toContain('the order is paid');
    // The card that collected it is pending settlement on the card rail's schedule, shown on the payment.
    expect(
      await dialog.root.locator('[data-testid="order-payment"][data-state="captured"]').last().getByTestId('order-payment-settlement').textContent(),
    ).toContain('Pending until');
    const paid = (await (
      await fetch(`${server.baseUrl}/api/pos/orders/${declined.orderId}`, { headers: { authorization: `Bearer ${server.staffToken}` } })
    ).json()) as Record<string, any>;
    expect(paid).toMatchObject({ state: 'paid', balanceDueCents: 0 });
    expect(paid.payments.map((p: Record<string, any>) => [p.method, p.state])).toEqual([
      ['card', 'declined'],
      ['cash', 'captured'],
      ['card', 'captured'],
    ]);
  });
});
