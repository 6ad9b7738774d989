/**
 * The cashier's counter, driven in Chromium against the real server (in-memory database, demo store):
 * - an unfinished cart survives a reload; a sale is held (parked), another rung up, and the first resumed;
 * - keypad quantity, a line discount in percent and one in amount, a voided line, a price override with a reason and
 *   a manager's PIN, a sale discount as an amount — the keyboard alone for part of it (Shift+F4, digits, Enter, Delete) —
 *   sold for cash, synced, and the server stores it with the very totals the register showed (nothing quarantined),
 *   the line discounts naming their lines, the override its approver, the discount posted to the ledger; its receipt
 *   sent from the register by e-mail and SMS lands in the server's outboxes;
 * - a sale the register cannot store (the local database refuses the write) is not lost: its receipt goes again, the
 *   tender says why with the cart as it was, and completing again stores it once;
 * - tiles show low and out of stock; selling past zero asks once per item and sale, and not at all when the store's
 *   setting (`confirmSellPastZero`) says so.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../core/index.ts';
import { CounterTools, LineDialog } from './pages/counter-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

describe('register counter: held sales, cart tools', () => {
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
  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    return { context, page, register, counter: new CounterTools(page) };
  };

  it('keeps the cart through a reload, holds a sale and resumes it later', { timeout: 120_000 }, async () => {
    const { context, page, register, counter } = await open();
    await register.tapItem('itm_croissant');
    await register.tapItem('itm_chocolate_cookie');
    await register.increaseQuantity('Butter croissant');
    const total = await register.cartTotalText();
    await page.reload();
    await register.waitForCatalog();
    await expect.poll(() => register.cart.getByTestId('cart-line').count()).toBe(2);
    expect(await register.cartTotalText()).toBe(total);
    await expect.poll(() => register.cartLine('Butter croissant').getByTestId('line-quantity').inputValue()).toBe('2');

    // Hold (F8 from the keyboard): the cart empties and the sale is listed.
    await page.keyboard.press('F8');
    await expect.poll(() => counter.note.textContent()).toContain('held');
    await expect.poll(() => register.cart.getByTestId('cart-line').count()).toBe(0);
    await expect.poll(() => counter.heldButton.textContent()).toContain('Held (1)');
    // Another customer's sale meanwhile; resuming parks it rather than losing it.
    await register.tapItem('itm_snickers_bar');
    await counter.resume(/Butter croissant/);
    await expect.poll(() => register.cartTotalText()).toBe(total);
    expect(await register.cart.getByTestId('cart-line').count()).toBe(2);
    await expect.poll(() => counter.heldButton.textContent()).toContain('Held (1)');
    // The held list survives a reload too.
    await page.reload();
    await register.waitForCatalog();
    await expect.poll(() => counter.heldButton.textContent()).toContain('Held (1)');
    await counter.resume(/Snickers/);
    await expect.poll(() => register.cart.getByTestId('cart-line').filter({ hasText: 'Snickers' }).count()).toBe(1);
    await context.close();
  });

  it(
    'keeps the sale when the register cannot store it: no receipt is shown, the tender says why, the cart is intact; the retry stores it once',
    { timeout: 120_000 },
    async () => {
      const { context, page, register } = await open();
      await register.tapItem('itm_croissant');
      await register.tapItem('itm_chocolate_cookie');
      const total = await register.cartTotalText();
      // The local database refuses the next write of a sale, as a full disk would (IndexedDB, the orders' store).
      await page.evaluate(`(() => {
      window.__refuseOrderWrites = 1;
      for (const method of ['put', 'add']) {
        const original = IDBObjectStore.prototype[method];
        IDBObjectStore.prototype[method] = function (...args) {
          if (window.__refuseOrderWrites > 0 && this.transaction.db.name.endsWith('--orders')) {
            window.__refuseOrderWrites -= 1;
            throw new DOMException('The disk is full', 'QuotaExceededError');
          }
          return original.apply(this, args);
        };
      }
    })()`);
      const tender = await register.charge();
      await tender.tender('20');
      // Any receipt that reaches the DOM, even for a moment, is noted.
      await page.evaluate(`new MutationObserver(() => { if (document.querySelector('[data-testid="receipt"]')) window.__receiptSeen = true; })
      .observe(document.body, { subtree: true, childList: true })`);
      await tender.completeButton.click();
      // No receipt, not even for a frame: the tender says the sale was not saved.
      const error = page.getByRole('dialog', { name: 'Cash payment' }).getByText(/The sale was not saved/);
      await error.waitFor();
      expect(await page.getByTestId('receipt').count()).toBe(0);
      expect(await page.evaluate('window.__receiptSeen === true')).toBe(false);
      expect(await page.getByTestId('cash-tendered').inputValue()).toBe('20');
      expect(await register.cart.getByTestId('cart-line').count()).toBe(2);
      expect(await register.cartTotalText()).toBe(total);
      expect(await page.evaluate('window.__refuseOrderWrites')).toBe(0);

      const receipt = await tender.complete();
      const receiptNumber = await receipt.receiptNumber();
      const orderId = (await receipt.root.getAttribute('data-order-id'))!;
      await receipt.newSale();
      expect(await register.cart.getByTestId('cart-line').count()).toBe(0);
      await register.waitForUnsynced(0);
      const response = await api(`/api/pos/orders/${orderId}`);
      expect(response.status).toBe(200);
      const stored = (await response.json()) as Order;
      expect(stored.receiptNumber).toBe(receiptNumber);
      expect(stored.lines).toHaveLength(2);
      const list = (await (await api('/api/pos/orders?limit=100')).json()) as { data: Order[] };
      expect(list.data.filter((o) => o.receiptNumber === receiptNumber)).toHaveLength(1);
      await context.close();
    },
  );

  it(
    'sells with keypad quantity, line and sale discounts, a voided line and a price override; the server agrees on every figure',
    { timeout: 180_000 },
    async () => {
      const { context, page, register, counter } = await open();
      await register.tapItem('itm_croissant');
      await register.tapItem('itm_chocolate_cookie');
      await register.tapItem('itm_snickers_bar');
      await register.tapItem('itm_haircut');

      // Keypad quantity 3 and a 10 % line discount on the croissant, by touch.
      await (await (await counter.editLine('Butter croissant')).keypad('3')).discount('percent', '10');
      await new LineDialog(page).apply();
      await expect.poll(() => register.cartLine('Butter croissant').getByTestId('line-quantity').inputValue()).toBe('3');
      expect(await register.cartLine('Butter croissant').getByTestId('line-discount-badge').textContent()).toBe('−10 %');
      // An amount off the cookie, and the quantity typed, from the keyboard alone.
      await (await counter.editLine('Chocolate chip cookie')).discount('amount', '0.50');
      await page.getByTestId('line-quantity-input').fill('2');
      await page.keyboard.press('Enter');
      await new LineDialog(page).root.waitFor({ state: 'detached' });
      await expect.poll(() => register.cartLine('Chocolate chip cookie').getByTestId('line-quantity').inputValue()).toBe('2');
      // Void the Snickers line: its tools, then Delete outside a field.
      await counter.editLine('Snickers');
      await page.getByTestId('line-void').focus();
      await page.keyboard.press('Delete');
      await expect.poll(() => register.cartLine('Snickers').count()).toBe(0);
      // Shift+F4 opens the last line (the haircut): a price override needs a reason and a manager's PIN; a wrong PIN is refused.
      await page.keyboard.press('Shift+F4');
      const haircut = new LineDialog(page);
      await haircut.root.waitFor();
      await haircut.overridePrice('30.00', 'Regular customer', '0000');
      await haircut.root.getByTestId('line-apply').click();
      await expect.poll(() => haircut.root.getByTestId('line-dialog-error').textContent()).toMatch(/Not approved/);
      await haircut.root.getByTestId('line-approver-pin').fill(server.ownerPin);
      await haircut.apply();
      expect(await register.cartLine('Haircut').getByTestId('line-override-badge').textContent()).toContain('Regular customer');
      // A sale discount of $1.00 (amount).
      await page.getByTestId('cart-discount-kind').click();
      await page.getByTestId('cart-discount').fill('1.00');
      await expect.poll(() => page.getByTestId('cart-discount-amount').textContent()).not.toBe('');
      const shownTotal = await register.cartTotalText();
      const shownDiscount = (await page.getByTestId('cart-discount-amount').textContent()) ?? '';

      const receipt = await (await (await register.charge()).exact()).complete();
      const orderId = await receipt.orderId();
      await register.waitForBadge('synced', 60_000);
      await expect.poll(async () => (await api(`/api/pos/orders/${orderId}`)).status, { timeout: 30_000 }).toBe(200);
      const order = (await (await api(`/api/pos/orders/${orderId}`)).json()) as Order;
      const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
      expect(money(order.totalCents)).toBe(shownTotal);
      expect(`−${money(order.discountCents)}`).toBe(shownDiscount);
      expect(order.lines.map((l) => [l.catalogItemId, l.quantity])).toEqual([
        ['itm_croissant', 3],
        ['itm_chocolate_cookie', 2],
        ['itm_haircut', 1],
      ]);
      const lineIds = order.lines.map((l) => l.id);
      expect(order.discounts.map((d) => [d.kind, d.lineId === undefined ? 'sale' : lineIds.indexOf(d.lineId)])).toEqual([
        ['percentage', 0],
        ['fixed', 1],
        ['fixed', 'sale'],
      ]);
      const haircutLine = order.lines[2]!;
      expect(haircutLine.unitPriceCents).toBe(3000);
      expect(haircutLine.priceOverride).toMatchObject({ reason: 'Regular customer', approvedBy: expect.stringMatching(/^stf_/) });
      // 3 × 375 × 10 % + 50 + 100 (sale) = 262.5 → 262 or 263 by half-even rounding
      expect(order.discountCents).toBeGreaterThanOrEqual(262);
      const quarantine = (await (await api('/api/pos/quarantine')).json()) as { data: unknown[] };
      expect(JSON.stringify(quarantine.data)).not.toContain(orderId);
      const tb = (await (await api('/api/pos/ledger/trial-balance')).json()) as {
        totalCents: number;
        accounts: { code: string; balanceCents: number }[];
      };
      expect(tb.totalCents).toBe(0);
      expect(tb.accounts.find((a) => a.code === 'discounts')?.balanceCents).toBe(order.discountCents);
      // The receipt sent from the register by e-mail and by SMS lands in the server's outboxes.
      await page.getByTestId('receipt-to').fill('mae@example.com');
      await page.getByTestId('receipt-send').click();
      await expect.poll(() => page.getByTestId('receipt-send-status').textContent()).toBe('Receipt to mae@example.com: queued');
      await page.getByTestId('receipt-channel-sms').check();
      await page.getByTestId('receipt-to').fill('+1 415 555 0123');
      await page.getByTestId('receipt-to').press('Enter');
      await expect.poll(() => page.getByTestId('receipt-send-status').textContent()).toMatch(/^Receipt to \+14155550123.*: queued$/);
      const emails = (await (await api('/api/pos/email-outbox')).json()) as { data: { to: string; subject: string }[] };
      expect(emails.data.find((m) => m.to === 'mae@example.com')?.subject).toContain(order.receiptNumber);
      const sms = (await (await api('/api/pos/sms-outbox')).json()) as { data: { to: string; body: string }[] };
      expect(sms.data.some((m) => m.to === '+14155550123')).toBe(true);
      // The completed sale leaves no unfinished cart behind.
      await receipt.newSale();
      await page.reload();
      await register.waitForCatalog();
      expect(await register.cart.getByTestId('cart-line').count()).toBe(0);
      await context.close();
    },
  );

  it('shows low and out of stock on tiles; selling past zero asks once, or never when the store says so', { timeout: 180_000 }, async () => {
    // The store asks before selling past zero (off by default).
    expect((await api('/api/pos/settings', { method: 'PATCH', body: JSON.stringify({ confirmSellPastZero: true }) })).status).toBe(200);
    const counted = await api('/api/pos/catalog/inventory/count', {
      method: 'POST',
      body: JSON.stringify({
        lines: [
          { variationId: 'var_blueberry_muffin_regular', counted: 2 },
          { variationId: 'var_diet_coke_can_each', counted: 0 },
        ],
      }),
    });
    expect(counted.status).toBe(201);
    const { context, page, register } = await open();
    await expect
      .poll(() => page.evaluate(() => Object.entries(localStorage).find(([k]) => k.startsWith('register.confirmSellPastZero.'))?.[1]))
      .toBe('true');
    const badge = (itemId: string) => page.getByTestId(`item-${itemId}`).getByTestId('stock-badge');
    await expect.poll(() => badge('itm_diet_coke_can').getAttribute('data-state'), { timeout: 30_000 }).toBe('out');
    await expect.poll(() => badge('itm_blueberry_muffin').textContent()).toBe('Low: 2');
    expect(await badge('itm_croissant').count()).toBe(0);

    const prompt = page.getByRole('dialog', { name: 'Sell past zero?' });
    await register.tapItem('itm_diet_coke_can');
    await prompt.waitFor();
    expect(await prompt.getByTestId('sell-past-zero-text').textContent()).toContain('out of stock');
    await page.keyboard.press('Enter'); // "Sell anyway" has the focus
    await prompt.waitFor({ state: 'detached' });
    await register.tapItem('itm_diet_coke_can'); // asked once: not again in this sale
    await expect.poll(() => register.cartLine('Diet Coke').getByTestId('line-quantity').inputValue()).toBe('2');
    expect(await prompt.count()).toBe(0);

    await register.tapItem('itm_blueberry_muffin');
    await register.increaseQuantity('Blueberry muffin');
    expect(await prompt.count()).toBe(0);
    await register.increaseQuantity('Blueberry muffin'); // the third of two
    await prompt.waitFor();
    await prompt.getByTestId('sell-past-zero-cancel').click();
    await expect.poll(() => register.cartLine('Blueberry muffin').getByTestId('line-quantity').inputValue()).toBe('2');

    // The store stops asking: the register learns it from the server at start.
    const patched = await api('/api/pos/settings', { method: 'PATCH', body: JSON.stringify({ confirmSellPastZero: false }) });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { confirmSellPastZero: boolean }).confirmSellPastZero).toBe(false);
    await page.reload();
    await register.waitForCatalog();
    await expect
      .poll(() => page.evaluate(() => Object.entries(localStorage).find(([k]) => k.startsWith('register.confirmSellPastZero.'))?.[1]))
      .toBe('false');
    await register.increaseQuantity('Blueberry muffin');
    await expect.poll(() => register.cartLine('Blueberry muffin').getByTestId('line-quantity').inputValue()).toBe('3');
    expect(await prompt.count()).toBe(0);
    await context.close();
  });
});
