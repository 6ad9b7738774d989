/**
 * Customers at the register, in the built register (Debian Chromium) against the real server:
 *   1. online: F3 opens the customer search, a customer of the store (made in the back office) is found by phone
 *      digits and attached; the cart and the receipt show them, the receipt offers their e-mail; the sale reaches the
 *      server for that customer (the back office's order names them);
 *   2. offline: a new customer whose phone an existing customer has (made in the back office while the register was
 *      offline) is created at the register and sold to; back online there is one customer on the server with both
 *      sales, and the register shows the surviving customer (its cart, receipt and local sale re-pointed).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

interface ApiCustomer {
  id: string;
  givenName: string | null;
  familyName: string | null;
  phone: string | null;
  email: string | null;
}
interface ApiOrder {
  id: string;
  customerId?: string;
  receiptNumber: string;
}

describe('customers at the register', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let context: BrowserContext;
  let page: Page;
  const api = staffApi(() => server);

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 860 });
    ({ server, context, page } = suite);
  });
  afterAll(() => suite?.close());

  const plainItem = () =>
    server.catalog.items.find((i) => i.modifierLists.length === 0 && i.variations.length === 1 && (i.variations[0]?.priceCents ?? 0) > 0)!;
  /** Sells the first plain item for exact cash and returns the receipt's order id (the receipt stays on screen). */
  const sellOne = async (register: RegisterPage): Promise<string> => {
    const item = plainItem();
    await register.tapItem(item.id);
    await register.cartLine(item.name).waitFor();
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    return receipt.orderId();
  };

  it('searches, attaches and sells to a customer online; the sale names them on the server', { timeout: 180_000 }, async () => {
    const ada = await api<ApiCustomer>('/api/pos/customers', {
      body: { givenName: 'Ada', familyName: 'Lovelace', phone: '+14155550142', email: 'ada@example.com' },
    });
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.waitForBadge('synced', 60_000);

    /* F3 from the scan box: the search opens with its field focused, the store's customer is there (pulled). */
    await register.scanInput.focus();
    await page.keyboard.press('F3');
    const dialog = page.getByRole('dialog', { name: 'Customer' });
    await dialog.waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).resolves.toBe('customer-search');
    await page.keyboard.type('555 0142');
    const row = dialog.locator(`[data-testid="customer-row"][data-customer-id="${ada.id}"]`);
    await row.waitFor();
    await expect(dialog.getByTestId('customer-row').count()).resolves.toBe(1);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    /* Shown in the cart, removable — and attached again by name. */
    const attached = register.cart.getByTestId('customer-attached');
    await expect(attached.textContent()).resolves.toContain('Ada Lovelace');
    await register.cart.getByTestId('customer-remove').click();
    await register.cart.getByTestId('customer-open').waitFor();
    await register.cart.getByTestId('customer-open').click();
    await dialog.getByTestId('customer-search').fill('lovelace');
    await row.click();
    await expect(attached.textContent()).resolves.toContain('+14155550142');

    /* The sale: the receipt names the customer and offers their e-mail for the receipt. */
    const orderId = await sellOne(register);
    await expect(page.getByTestId('receipt-customer').textContent()).resolves.toContain('Ada Lovelace');
    await expect(page.getByTestId('receipt-to').inputValue()).resolves.toBe('ada@example.com');
    await page.getByTestId('receipt-channel-sms').check();
    await expect(page.getByTestId('receipt-to').inputValue()).resolves.toBe('+14155550142');
    await expect.poll(async () => (await api<ApiOrder>(`/api/pos/orders/${orderId}`)).customerId, { timeout: 30_000 }).toBe(ada.id);
    // From the register, once synced: the receipt goes to the customer's phone.
    await page.locator('[data-testid="receipt-sync"].sync-marker-synced').waitFor({ timeout: 30_000 });
    await page.getByTestId('receipt-send').click();
    await expect.poll(() => page.getByTestId('receipt-send-status').textContent(), { timeout: 15_000 }).toContain('Receipt to +14155550142: queued');

    /* The back office's order names the customer (its receipt form offers their e-mail). */
    await page.getByTestId('new-sale').click();
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const orders = await backOffice.orders();
    const order = await orders.open(orderId);
    // The order's customer is read after the order itself: wait for it (a loaded machine draws the order first).
    await expect.poll(() => order.root.textContent(), { timeout: 15_000 }).toContain('ada@example.com');
    await page.keyboard.press('Escape');
  });

  it(
    'creates a customer offline that duplicates an existing one by phone; back online one customer has both sales',
    { timeout: 240_000 },
    async () => {
      const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
      await register.waitForBadge('synced', 60_000);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });

      /* Offline. Meanwhile the back office (another device) creates Grace with her phone. */
      await context.setOffline(true);
      await register.waitForBadge('offline');
      const grace = await api<ApiCustomer>('/api/pos/customers', { body: { givenName: 'Grace', familyName: 'Hopper', phone: '+14155550199' } });
      const earlier = await api<{ id: string; totalCents: number }>('/api/pos/orders', {
        body: { lineItems: [{ catalogItemId: plainItem().id, variationId: plainItem().variations[0]!.id, quantity: 1 }], customerId: grace.id },
      });

      /* The cashier creates "Amazing Grace" with the same number typed nationally, and an e-mail; sells to her. */
      await register.scanInput.focus();
      await page.keyboard.press('F3');
      const search = page.getByRole('dialog', { name: 'Customer' });
      await search.waitFor();
      await search.getByTestId('customer-search').fill('Amazing');
      await expect(search.getByTestId('customer-count').textContent()).resolves.toBe('No customer matches.');
      await search.getByTestId('customer-new').click();
      const form = page.getByRole('dialog', { name: 'New customer' });
      // Focus moves into the form (its first field), not to the page.
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'customer-givenName');
      await form.getByTestId('customer-phone').fill('415-555-01');
      await form.getByTestId('customer-email').fill('grace@example.com');
      await form.getByTestId('customer-save').click();
      // A phone that is no number of the store's country: named at the field, focus on it.
      await form.getByRole('alert').waitFor();
      await expect(form.getByTestId('customer-phone').getAttribute('aria-invalid')).resolves.toBe('true');
      await form.getByTestId('customer-phone').fill('(415) 555-0199');
      await expect(form.getByTestId('customer-givenName').inputValue()).resolves.toBe('Amazing');
      await form.getByTestId('customer-familyName').fill('Grace');
      await form.getByTestId('customer-save').click();
      await form.waitFor({ state: 'detached' });
      const attached = register.cart.getByTestId('customer-attached');
      await expect(attached.textContent()).resolves.toContain('Amazing Grace');
      const offlineId = await register.cart.getByTestId('cart-customer').getAttribute('data-customer-id');
      expect(offlineId).toMatch(/^cus_/);
      expect(offlineId).not.toBe(grace.id);
      // Escape closes the new-customer form straight away (focus was in it, not on the page).
      await register.scanInput.focus();
      await page.keyboard.press('F3');
      await page.getByRole('dialog', { name: 'Customer' }).getByTestId('customer-new').click();
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'customer-givenName');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });

      const orderId = await sellOne(register);
      await expect(page.getByTestId('receipt-customer').textContent()).resolves.toContain('Amazing Grace');
      // The new customer and the sale wait for the server.
      await register.waitForUnsynced(2);
      // The history works offline (this register's sale).
      await page.getByTestId('new-sale').click();
      await register.cart.getByTestId('customer-open').click();
      await page.getByRole('dialog', { name: 'Customer' }).getByTestId('customer-search').fill('grace@');
      await page.getByRole('dialog', { name: 'Customer' }).getByTestId('customer-row').first().click();
      await register.cart.getByTestId('customer-history-open').click();
      const history = page.getByRole('dialog', { name: /^History/ });
      await history.locator(`[data-testid="customer-history-row"][data-order-id="${orderId}"]`).waitFor();
      await expect(history.getByTestId('customer-history-note').textContent()).resolves.toMatch(/Offline|Not on the server/);
      await page.keyboard.press('Escape');

      /* Back online: one customer with this phone, both sales hers, and the register shows the survivor. */
      await context.setOffline(false);
      await register.waitForBadge('synced', 60_000);
      await expect
        .poll(async () => (await api<{ data: ApiCustomer[] }>('/api/pos/customers?q=4155550199')).data.map((c) => c.id), { timeout: 30_000 })
        .toEqual([grace.id]);
      await expect
        .poll(async () => (await api<{ data: ApiOrder[] }>(`/api/pos/customers/${grace.id}/orders`)).data.map((o) => o.id).sort(), {
          timeout: 30_000,
        })
        .toEqual([earlier.id, orderId].sort());
      const survivor = await api<ApiCustomer>(`/api/pos/customers/${grace.id}`);
      // Her own name kept; the e-mail she lacked taken from the register's customer.
      expect(survivor).toMatchObject({ givenName: 'Grace', familyName: 'Hopper', phone: '+14155550199', email: 'grace@example.com' });

      // The cart's customer is now shown as the survivor (it still holds the offline id until the sale).
      await expect.poll(() => attached.textContent(), { timeout: 30_000 }).toContain('Grace Hopper');
      await expect(register.cart.getByTestId('cart-customer').getAttribute('data-customer-id')).resolves.toBe(grace.id);
      // Her history on the register: the sale made offline and the back office's order; the search lists one Grace.
      await register.cart.getByTestId('customer-history-open').click();
      await history.locator(`[data-testid="customer-history-row"][data-order-id="${orderId}"]`).waitFor();
      await history.locator(`[data-testid="customer-history-row"][data-order-id="${earlier.id}"]`).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Escape');
      await register.cart.getByTestId('customer-open').or(register.cart.getByTestId('customer-attached')).first().click();
      const again = page.getByRole('dialog', { name: 'Customer' });
      await again.getByTestId('customer-search').fill('555-0199');
      await expect.poll(() => again.getByTestId('customer-row').count()).toBe(1);
      await expect(again.getByTestId('customer-row').first().getAttribute('data-customer-id')).resolves.toBe(grace.id);
      await page.keyboard.press('Escape');
      await register.waitForUnsynced(0);
    },
  );
});
