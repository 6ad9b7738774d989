/**
 * A register cart discounted to 0 completes without a tender (a zero-total order completes without a
 * payment): with a 100 % cart discount, Charge becomes "Complete sale (nothing due)", the sale is stored paid with no
 * tender, the receipt shows, and the server stores the synced order paid with an empty tender list, its discount
 * posted on `discounts` and the ledger balanced.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage, ReceiptPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

describe('register zero-total sale', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  it(
    'completes a cart discounted to 0 without a tender; the server stores it paid with no tender, the discount posted',
    { timeout: 120_000 },
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      page.on('pageerror', (err) => console.error('[page error]', err));
      const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
      await register.waitForCatalog();
      await register.tapItem('itm_croissant');
      await register.increaseQuantity('Butter croissant');
      // A discount that is not a percentage keeps the sale from being charged, and says why.
      await page.getByTestId('cart-discount').fill('150');
      await expect.poll(() => page.getByTestId('charge').isDisabled()).toBe(true);
      await page.getByTestId('cart-discount').fill('100');
      await expect.poll(() => register.cartTotalText()).toBe('$0.00');
      expect(await page.getByTestId('cart-discount-amount').textContent()).toBe('−$7.50');
      const charge = page.getByTestId('charge');
      await expect.poll(() => charge.textContent()).toBe('Complete sale (nothing due)');
      await charge.click();
      // No tender dialog: the receipt at once.
      const receipt = new ReceiptPage(page);
      await receipt.root.waitFor();
      expect(await page.getByRole('dialog', { name: 'Cash payment' }).count()).toBe(0);
      const orderId = await receipt.orderId();
      expect(orderId).toMatch(/^ord_/);

      await register.waitForBadge('synced', 60_000);
      await expect.poll(async () => (await api(`/api/pos/orders/${orderId}`)).status, { timeout: 30_000 }).toBe(200);
      const order = (await (await api(`/api/pos/orders/${orderId}`)).json()) as Record<string, unknown>;
      expect(order).toMatchObject({ state: 'paid', totalCents: 0, paidCents: 0, tenders: [], source: 'register' });
      const quarantine = (await (await api('/api/pos/quarantine')).json()) as { data: unknown[] };
      expect(JSON.stringify(quarantine.data)).not.toContain(orderId);
      const tb = (await (await api('/api/pos/ledger/trial-balance')).json()) as {
        totalCents: number;
        accounts: { code: string; balanceCents: number }[];
      };
      expect(tb.totalCents).toBe(0);
      expect(tb.accounts.find((a) => a.code === 'discounts')?.balanceCents).toBe(750);
      expect(order).toMatchObject({ discountCents: 750, discounts: [{ kind: 'percentage', basisPoints: 10_000 }] });
      await context.close();
    },
  );
});
