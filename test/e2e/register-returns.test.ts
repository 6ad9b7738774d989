/**
 * Returns and exchanges at the register, end to end: the built register in Debian's Chromium, the real sync
 * server (demo store) and the web hardware bridge with the device simulators (socat ptys).
 *
 * - a cash sale returned by receipt number online: restocked on the server, cash out of the drawer (kick, expected cash);
 * - a sale found by its customer (phone digits typed, keyboard only): the customer's sales newest first, one picked
 *   and a line returned; offline, found by the customer's name among this register's sales;
 * - a return made offline (the receipt's QR scanned) reaches the server once back online, stored once;
 * - an exchange: a line returned and a new item sold in one go, the difference settled in cash;
 * - a card sale refunded to the card through the terminal simulator;
 * - a cashier's return above the store's limit needs a manager's PIN, recorded as the refund's approver.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceHost, type DeviceHost, type RemoteDeviceSimulators } from '../support/device-host.ts';
import { RegisterPage } from './pages/register-page.ts';
import { nativeLookingFields } from './support/a11y.ts';
import { CHROMIUM, launchChromium, requireBuiltRegister, staffApi } from './support/browser.ts';
import { E2E_TERMINAL_TIMEOUTS, untilCardReceipt } from './support/card.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

async function eventually(assertion: () => Promise<void>, timeoutMs = TIMEOUT): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
}

interface ApiOrder {
  id: string;
  state: string;
  receiptNumber: string;
  totalCents: number;
  refunds: { id: string; amountCents: number; approvedBy: string | null; allocations: { accountCode: string; amountCents: number }[] }[];
}
interface ApiReturn {
  id: string;
  orderId: string;
  refundId?: string;
  exchangeOrderId?: string;
  amountCents: number;
  tender: { method: string };
}

describe.skipIf(!existsSync(CHROMIUM) || !existsSync('/usr/bin/socat'))('returns and exchanges at the register', () => {
  let server: ServerUnderTest;
  let bridge: DeviceHost;
  let sim: RemoteDeviceSimulators;
  let dir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let register: RegisterPage;
  const api = staffApi(() => server);

  beforeAll(async () => {
    requireBuiltRegister();
    dir = await mkdtemp(join(tmpdir(), 'returns-e2e-'));
    server = await startServerUnderTest();
    bridge = await startDeviceHost({
      dataDir: dir,
      port: 0,
      allowedOrigins: [server.baseUrl],
      ...E2E_TERMINAL_TIMEOUTS,
      printerRetryIntervalMs: 100,
      simulatorProcessingMs: 20,
    });
    sim = bridge.simulators!;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    // Pair the hardware bridge (Devices view).
    await nav('Devices');
    await page.getByTestId('bridge-url').fill(bridge.url);
    await page.getByTestId('bridge-token').fill(bridge.token);
    await page.getByTestId('bridge-connect').click();
    await eventually(async () => expect(await page.locator('[data-testid="device-state"]:visible').getAttribute('data-connection')).toBe('ready'));
    await nav('Register');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const stockOf = async (itemId: string) =>
    (await api<{ variations: { stockOnHand?: number }[] }>(`/api/pos/catalog/items/${itemId}`)).variations[0]!.stockOnHand ?? 0;
  const serverReturns = async () => (await api<{ documents: ApiReturn[] }>('/api/sync/returns/pull?seq=0&limit=500')).documents;

  /** Taps the items and pays in cash (exact); answers the stored sale's receipt number and order id. */
  async function cashSale(itemIds: string[]): Promise<{ receiptNumber: string; orderId: string; qr: string }> {
    await register.openRegister();
    for (const id of itemIds) await register.tapItem(id);
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    // The on-screen receipt carries the QR code of the order (the printed one too), what a scan at Returns reads.
    const qr = (await page.getByTestId('receipt-qr').getAttribute('data-qr')) ?? '';
    expect(await page.getByTestId('receipt-qr').getAttribute('alt')).toContain('QR code of receipt');
    const sold = { receiptNumber: await receipt.receiptNumber(), orderId: await receipt.orderId(), qr };
    await receipt.newSale();
    return sold;
  }

  /** The shift's expected cash in the drawer, as the shift screen shows it before a count (minor units). */
  async function expectedCash(): Promise<number> {
    await nav('Shift');
    await page.getByTestId('close-shift').click();
    const text = (await page.getByTestId('expected-cash').textContent()) ?? '';
    await nav('Register');
    return Math.round(Number(text.replace(/[^0-9.-]/g, '')) * 100);
  }

  /** Opens Returns (F7) and finds the sale by what is typed or scanned. */
  async function findSale(text: string): Promise<void> {
    await page.keyboard.press('F7');
    await page.getByTestId('return-find').fill(text);
    await page.getByTestId('return-find').press('Enter');
    await page.getByTestId('return-sale').waitFor({ timeout: TIMEOUT });
  }
  const returnQuantity = (row: number, quantity: number) => page.getByTestId('return-qty').nth(row).fill(String(quantity));

  it('returns a cash sale by its receipt number: restocked, cash out of the drawer', { timeout: 180_000 }, async () => {
    const sale = await cashSale(['itm_croissant', 'itm_croissant', 'itm_croissant']);
    await register.waitForBadge('synced', 60_000);
    await eventually(async () => expect((await api<ApiOrder>(`/api/pos/orders/${sale.orderId}`)).state).toBe('paid'));
    const stockBefore = await stockOf('itm_croissant');
    const cashBefore = await expectedCash();
    const kicks = sim.printer.drawerKicks;

    await findSale(sale.receiptNumber.toLowerCase());
    expect(await page.getByTestId('return-receipt-number').textContent()).toBe(sale.receiptNumber);
    await returnQuantity(0, 2);
    expect(await page.getByTestId('return-restock').isChecked()).toBe(true);
    const amountText = (await page.getByTestId('return-amount').textContent()) ?? '';
    const amountCents = Math.round(Number(amountText.replace(/[^0-9.]/g, '')) * 100);
    expect(amountCents).toBeGreaterThan(0);
    await page.getByTestId('return-complete').click();
    const done = page.getByTestId('return-done');
    await done.waitFor();
    expect(await done.getAttribute('data-tender')).toBe('cash');
    expect(await done.textContent()).toContain(`Give back ${amountText}`);
    await eventually(async () => expect(sim.printer.drawerKicks).toBe(kicks + 1));

    await eventually(async () => {
      const order = await api<ApiOrder>(`/api/pos/orders/${sale.orderId}`);
      expect(order.state).toBe('partially_refunded');
      expect(order.refunds).toEqual([
        expect.objectContaining({ amountCents, allocations: [expect.objectContaining({ accountCode: 'cash_drawer:R1', amountCents })] }),
      ]);
    });
    expect(await stockOf('itm_croissant')).toBe(stockBefore + 2);
    expect(await expectedCash()).toBe(cashBefore - amountCents);

    // What is left to return: one croissant; asking for more is capped by the field.
    await findSale(sale.receiptNumber);
    expect(await page.getByTestId('return-line').first().locator('td').nth(2).textContent()).toBe('2');
    expect(await page.getByTestId('return-qty').first().getAttribute('max')).toBe('1');
  });

  it('finds a sale by its customer (online and offline) and returns a line of it', { timeout: 180_000 }, async () => {
    const rita = await api<{ id: string }>('/api/pos/customers', { body: { givenName: 'Rita', familyName: 'Returner', phone: '+14155550177' } });
    /** Attaches Rita to the cart by the cart's customer search (F3). */
    const attachRita = async () => {
      await register.openRegister();
      await register.scanInput.focus();
      await page.keyboard.press('F3');
      const dialog = page.getByRole('dialog', { name: 'Customer' });
      await dialog.getByTestId('customer-search').fill('Rita');
      await dialog.locator(`[data-testid="customer-row"][data-customer-id="${rita.id}"]`).click();
      await dialog.waitFor({ state: 'detached' });
    };
    await attachRita();
    const older = await cashSale(['itm_croissant', 'itm_croissant']);
    await attachRita();
    const newer = await cashSale(['itm_chocolate_cookie']);
    await register.waitForBadge('synced', 60_000);
    await eventually(async () =>
      expect((await api<ApiOrder & { customerId?: string }>(`/api/pos/orders/${newer.orderId}`)).customerId).toBe(rita.id),
    );

    /* Keyboard only: F7, Find by customer, phone digits, Enter picks the only match; focus on the newest sale. */
    await page.keyboard.press('F7');
    await page.getByTestId('return-by-customer').focus();
    await page.keyboard.press('Enter');
    const search = page.getByRole('dialog', { name: 'Find the sale by customer' });
    await search.waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).resolves.toBe('customer-search');
    await page.keyboard.type('555 0177');
    await search.locator(`[data-testid="customer-row"][data-customer-id="${rita.id}"]`).waitFor();
    await page.keyboard.press('Enter');
    const sales = page.getByRole('dialog', { name: 'Sales of Rita Returner' });
    await sales.waitFor();
    // Online: this register's sales and the server's, merged (both hold them), newest first.
    await eventually(async () => {
      const rows = sales.getByTestId('return-customer-sale');
      expect(await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-order-id'), e.getAttribute('data-source')]))).toEqual([
        [newer.orderId, 'both'],
        [older.orderId, 'both'],
      ]);
    });
    await expect(sales.getByTestId('return-customer-sale').first().textContent()).resolves.toContain(newer.receiptNumber);
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.getAttribute('data-order-id'))).toBe(newer.orderId));
    // Tab to the older sale and pick it: the return flow continues as after a receipt-number lookup.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await sales.waitFor({ state: 'detached' });
    await expect(page.getByTestId('return-sale').getAttribute('data-order-id')).resolves.toBe(older.orderId);
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('return-qty'));
    await page.keyboard.press('Control+A');
    await page.keyboard.type('1');
    const amountText = (await page.getByTestId('return-amount').textContent()) ?? '';
    const amountCents = Math.round(Number(amountText.replace(/[^0-9.]/g, '')) * 100);
    expect(amountCents).toBeGreaterThan(0);
    await page.getByTestId('return-complete').click();
    await page.getByTestId('return-done').waitFor();
    await eventually(async () => {
      const order = await api<ApiOrder>(`/api/pos/orders/${older.orderId}`);
      expect(order.state).toBe('partially_refunded');
      expect(order.refunds).toEqual([expect.objectContaining({ amountCents })]);
    }, 60_000);

    /* Offline: found by name among this register's sales (the server's list is not asked). */
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await context.setOffline(true);
    await register.waitForBadge('offline');
    await page.getByTestId('return-by-customer').click();
    await page.getByRole('dialog', { name: 'Find the sale by customer' }).getByTestId('customer-search').fill('rita ret');
    await page.getByRole('dialog', { name: 'Find the sale by customer' }).getByTestId('customer-row').first().click();
    await eventually(async () => expect(await sales.getByTestId('return-customer-note').textContent()).toContain('Offline'));
    await expect(sales.getByTestId('return-customer-sale').count()).resolves.toBe(2);
    await sales.locator(`[data-testid="return-customer-sale"][data-order-id="${newer.orderId}"]`).click();
    await expect(page.getByTestId('return-sale').getAttribute('data-order-id')).resolves.toBe(newer.orderId);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await context.setOffline(false);
    await register.waitForBadge('synced', 60_000);
    await nav('Register');
  });

  it('takes a return offline (receipt QR scanned) and syncs it once back online', { timeout: 180_000 }, async () => {
    const sale = await cashSale(['itm_chocolate_cookie', 'itm_chocolate_cookie']);
    await register.waitForBadge('synced', 60_000);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await context.setOffline(true);
    await register.waitForBadge('offline');
    expect(sale.qr).toBe(`urn:register:order:${sale.orderId}:${sale.receiptNumber}`);
    await findSale(sale.qr);
    await returnQuantity(0, 1);
    await page.getByTestId('return-complete').click();
    await page.getByTestId('return-done').waitFor();
    expect((await serverReturns()).some((r) => r.orderId === sale.orderId)).toBe(false);

    await context.setOffline(false);
    await eventually(async () => {
      const mine = (await serverReturns()).filter((r) => r.orderId === sale.orderId);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.refundId).toMatch(/^rfd_/);
    }, 60_000);
    const order = await api<ApiOrder>(`/api/pos/orders/${sale.orderId}`);
    expect(order.refunds).toHaveLength(1);
    // The register shows it synced once the server's stamped copy is back.
    const id = (await serverReturns()).find((r) => r.orderId === sale.orderId)!.id;
    await page.locator(`[data-testid="recent-return"][data-return-id="${id}"][data-sync="synced"]`).waitFor({ timeout: 60_000 });
  });

  it('exchanges a croissant for a cookie and two waters in one go, settling the difference in cash', { timeout: 180_000 }, async () => {
    const sale = await cashSale(['itm_croissant']);
    await findSale(sale.receiptNumber);
    await returnQuantity(0, 1);
    await page.getByTestId('return-exchange').check();
    for (const name of ['cookie', 'water', 'water']) {
      await page.getByTestId('exchange-add').fill(name);
      await page.getByTestId('exchange-add').press('Enter');
    }
    await eventually(async () => expect(await page.getByTestId('exchange-line').count()).toBe(3));
    const net = Number(await page.getByTestId('exchange-net').getAttribute('data-net-cents'));
    await page.getByTestId('return-complete').click();
    await page.getByTestId('return-done').waitFor();
    const settle = (await page.getByTestId('exchange-settle').textContent()) ?? '';
    expect(settle).toContain(`${net >= 0 ? 'take' : 'give back'} $${(Math.abs(net) / 100).toFixed(2)}`);
    const newReceipt = (await page.getByTestId('exchange-receipt').textContent())!;
    expect(newReceipt).not.toBe(sale.receiptNumber);

    await eventually(async () => {
      const ret = (await serverReturns()).find((r) => r.orderId === sale.orderId);
      expect(ret?.exchangeOrderId).toBeDefined();
      expect(ret?.refundId).toMatch(/^rfd_/);
      const sold = await api<ApiOrder>(`/api/pos/orders/${ret!.exchangeOrderId}`);
      expect(sold.receiptNumber).toBe(newReceipt);
      expect(sold.totalCents - ret!.amountCents).toBe(net);
    }, 60_000);
  });

  it('refunds a card sale to the card through the terminal', { timeout: 180_000 }, async () => {
    await register.openRegister();
    await register.tapItem('itm_haircut');
    await page.getByTestId('charge').click();
    await page.getByTestId('tender-method-card').click();
    await page.getByTestId('charge-card').click();
    await untilCardReceipt(page);
    expect(await page.getByTestId('receipt-card').textContent()).toContain('VISA •••• 4242');
    const receiptNumber = (await page.getByTestId('receipt-number').textContent())!;
    const orderId = (await page.getByTestId('receipt').getAttribute('data-order-id'))!;
    await page.getByTestId('new-sale').click();

    await findSale(receiptNumber);
    expect(await page.getByTestId('return-amount').locator('..').textContent()).toContain('on the card terminal');
    await returnQuantity(0, 1);
    await page.getByTestId('return-complete').click();
    const done = page.getByTestId('return-done');
    await done.waitFor({ timeout: 60_000 });
    expect(await done.getAttribute('data-tender')).toBe('card');
    const refunds = sim.terminal.charges().filter((t) => t.request.type === 'refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.result.amountCents).toBe(3500);
    await eventually(async () => {
      const order = await api<ApiOrder>(`/api/pos/orders/${orderId}`);
      expect(order.state).toBe('refunded');
      expect(order.refunds[0]!.amountCents).toBe(3500);
    }, 60_000);
  });

  it("needs a manager's PIN for a cashier's return above the store's limit", { timeout: 180_000 }, async () => {
    await api('/api/pos/staff', { body: { name: 'Cass Cashier', role: 'cashier', pin: '1357' } });
    const manager = await api<{ id: string }>('/api/pos/staff', { body: { name: 'Max Manager', role: 'manager', pin: '8642' } });
    await register.openRegister();
    await register.signOut();
    await register.signIn('1357', 'Cass Cashier');
    const sale = await cashSale(['itm_haircut', 'itm_haircut']);

    await findSale(sale.receiptNumber);
    await returnQuantity(0, 2);
    await page.getByTestId('return-approval').waitFor();
    expect(await page.getByTestId('return-complete').isDisabled()).toBe(true);
    // The quantity, manager and PIN fields have the register's look, not the browser's.
    expect(await nativeLookingFields(page, '[data-testid="returns-view"]')).toEqual([]);
    await page.getByTestId('return-approval-manager').selectOption({ label: 'Max Manager' });
    await page.getByTestId('return-approval-pin').fill('0000');
    await page.getByTestId('return-approval-submit').click();
    await eventually(async () => expect(await page.getByTestId('return-approval-error').textContent()).toContain('Wrong PIN'));
    await page.getByTestId('return-approval-pin').fill('8642');
    await page.getByTestId('return-approval-submit').click();
    await page.getByTestId('return-approved').waitFor();
    await page.getByTestId('return-complete').click();
    await page.getByTestId('return-done').waitFor();
    await eventually(async () => {
      const order = await api<ApiOrder>(`/api/pos/orders/${sale.orderId}`);
      expect(order.refunds).toEqual([expect.objectContaining({ amountCents: 7000, approvedBy: manager.id })]);
    }, 60_000);
  });
});
