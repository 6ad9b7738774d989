/**
 * Keyboard and screen readers, driven the way a cashier does in Chromium: a cash sale of two items by
 * keyboard alone in at most 12 keys (counted here), the amount field focused when the tender dialog opens, a typed
 * quantity, focus on a sensible control after removing a line / a quantity of 0 / Clear / Escape / a declined card,
 * tabs that behave as tabs, the shortcut help (`?`) and `aria-keyshortcuts`, quantity and total announced once, the
 * sync live region announcing once per sale, and offline: two sales count 2 unsynced and "Synced just now" is gone.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';

/** The focused element's test id, or its tag and id. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el?.getAttribute('data-testid') ?? `${el?.tagName.toLowerCase()}${el?.id ? `#${el.id}` : ''}`;
  });

describe('the register by keyboard and screen reader', () => {
  let suite: BrowserSuite | undefined;
  let page: Page;
  let register: RegisterPage;
  const api = staffApi(() => suite!.server, { 'x-register-schema-version': '1' });

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 800 });
    page = suite.page;
    register = await RegisterPage.open(page, suite.server.baseUrl, suite.server.ownerPin);
    // Every text the live regions take, in order (what a screen reader would be handed).
    await page.evaluate(() => {
      const log: string[] = [];
      (window as unknown as { announced: string[] }).announced = log;
      const watch = () => {
        for (const region of document.querySelectorAll('[data-testid="cart-announcement"], [data-testid="sync-announcement"]')) {
          if ((region as HTMLElement & { watched?: boolean }).watched) continue;
          (region as HTMLElement & { watched?: boolean }).watched = true;
          new MutationObserver(() => {
            const text = (region.textContent ?? '').replace(/\u200b/g, '');
            if (text) log.push(`${region.getAttribute('data-testid')}: ${text}`);
          }).observe(region, { subtree: true, childList: true, characterData: true });
        }
      };
      watch();
      setInterval(watch, 200);
    });
  }, 120_000);
  afterAll(async () => {
    await suite?.close();
  });

  const announced = () => page.evaluate(() => (window as unknown as { announced: string[] }).announced.splice(0));

  /**
   * A cash sale of the first two items without options by keyboard alone, from the scan box: Tab to a tile, Enter,
   * Tab to the next, Enter, F9, the whole dollars of the total, Enter. Answers the number of keys pressed.
   */
  async function keyboardSale(): Promise<number> {
    let keys = 0;
    const press = async (key: string) => {
      keys++;
      await page.keyboard.press(key);
    };
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan-input');
    // Tab into the grid (one Tab stop), then the arrow keys move from tile to tile.
    for (let added = 0; added < 2;) {
      const tile = await page.evaluate(() => {
        const el = document.activeElement;
        return el?.classList.contains('item-tile') ? (el.classList.contains('item-has-options') ? 'options' : 'simple') : 'none';
      });
      if (tile === 'simple') {
        await press('Enter');
        added++;
        if (added < 2) await press('ArrowRight');
      } else {
        await press(tile === 'none' ? 'Tab' : 'ArrowRight');
      }
      if (keys > 12) break;
    }
    await register.cart.getByTestId('cart-line').nth(1).waitFor();
    const total = Number((await register.cartTotalText()).replace(/[^0-9.]/g, ''));
    await press('F9');
    await page.getByRole('dialog', { name: 'Cash payment' }).waitFor();
    expect(await focused(page)).toBe('cash-tendered');
    for (const digit of String(Math.ceil(total))) await press(digit);
    await press('Enter');
    await page.getByTestId('receipt').waitFor();
    return keys;
  }

  it('sells two items for cash in at most 12 keys, the amount field focused when the dialog opens', { timeout: 120_000 }, async () => {
    const keys = await keyboardSale();
    console.info(`keyboard-only cash sale of two items: ${keys} keys`);
    expect(keys).toBeLessThanOrEqual(12);
    expect(await page.getByTestId('receipt').getByTestId('receipt-number').count()).toBe(1);
    // The receipt's New sale has focus (given in the receipt's first frame): Enter starts the next sale with focus in
    // the scan box.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'new-sale');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan-input');
  });

  it('the item grid is one Tab stop; arrow keys move between tiles, by row too, scrolling one into view', { timeout: 120_000 }, async () => {
    await page.getByTestId('scan-input').focus();
    const grid = page.getByTestId('item-grid');
    expect(await grid.locator('.item-tile[tabindex="0"]').count()).toBe(1);
    // Tab until a tile has focus, then Tab once more: focus has left the grid (not the next tile).
    for (let i = 0; i < 8 && !(await page.evaluate(() => !!document.activeElement?.classList.contains('item-tile'))); i++)
      await page.keyboard.press('Tab');
    const at = () => page.evaluate(() => document.activeElement?.getAttribute('data-grid-index') ?? document.activeElement?.tagName ?? '');
    const first = Number(await at());
    await page.keyboard.press('ArrowRight');
    await expect.poll(at).toBe(String(first + 1));
    const columns = await grid.evaluate((el) => getComputedStyle(el.querySelector('.item-grid-row')!).gridTemplateColumns.split(' ').length);
    await page.keyboard.press('ArrowDown');
    await expect.poll(at).toBe(String(first + 1 + columns));
    await page.keyboard.press('ArrowLeft');
    await expect.poll(at).toBe(String(first + columns));
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.classList.contains('item-tile'))).toBe(false);
    // Shift+Tab comes back to the tile last moved to.
    await page.keyboard.press('Shift+Tab');
    await expect.poll(at).toBe(String(first + columns));
    // Ctrl+End: the last item, scrolled into view and focused.
    const count = Number(await grid.getAttribute('data-item-count'));
    await page.keyboard.press('Control+End');
    await expect.poll(at).toBe(String(count - 1));
    await page.keyboard.press('Control+Home');
    await expect.poll(at).toBe('0'); // F2 goes back to the scan box (where the next test starts).
    await page.keyboard.press('F2');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan-input');
  });

  it(
    'announces an added item once and a completed sale once (Exact, then Enter), over every live region of the page',
    { timeout: 120_000 },
    async () => {
      // Every live region (role status/alert, aria-live), including those added later: each text it takes.
      await page.evaluate(() => {
        const log: string[] = [];
        (window as unknown as { spoken: string[] }).spoken = log;
        const watch = () => {
          for (const region of document.querySelectorAll('[role="status"], [role="alert"], [aria-live]')) {
            if ((region as HTMLElement & { spoken?: boolean }).spoken || region.getAttribute('aria-live') === 'off') continue;
            (region as HTMLElement & { spoken?: boolean }).spoken = true;
            new MutationObserver(() => {
              const text = (region.textContent ?? '').replace(/\u200b/g, '').trim();
              if (text) log.push(`${region.getAttribute('data-testid') ?? region.className}: ${text}`);
            }).observe(region, { subtree: true, childList: true, characterData: true });
          }
        };
        watch();
        setInterval(watch, 100);
      });
      const spoken = () => page.evaluate(() => (window as unknown as { spoken: string[] }).spoken.splice(0));
      await register.waitForBadge('synced', 60_000);
      await page.waitForTimeout(300);
      await spoken();
      await page.locator('.item-tile:not(.item-has-options)').first().click();
      await register.cart.getByTestId('cart-line').first().waitFor();
      await page.waitForTimeout(600);
      const onAdd = await spoken();
      expect(onAdd, JSON.stringify(onAdd)).toHaveLength(1);
      const tender = await register.charge();
      // "Exact", then Enter completes (focus is back in the amount).
      await tender.exact();
      await spoken();
      await page.keyboard.press('Enter');
      await page.getByTestId('receipt').waitFor();
      const number = await page.getByTestId('receipt-number').textContent();
      await register.waitForBadge('synced', 60_000);
      await page.waitForTimeout(600);
      const onComplete = (await spoken()).filter((t) => !t.startsWith('sync-announcement'));
      expect(onComplete).toEqual([`sale-announcement: Paid. Receipt ${number}. No receipt printer connected: the receipt was not printed.`]);
      await page.getByTestId('new-sale').click();
    },
  );

  it('announces the sync once per sale', { timeout: 120_000 }, async () => {
    await register.waitForBadge('synced', 60_000);
    await announced();
    await keyboardSale();
    await register.waitForBadge('synced', 60_000);
    await page.waitForTimeout(500);
    const sync = (await announced()).filter((a) => a.startsWith('sync-announcement'));
    expect(sync).toEqual(['sync-announcement: All sales synced']);
    await page.getByTestId('new-sale').click();
  });

  it('types a quantity, announces it with the total once, and keeps focus on a control after remove, 0 and Clear', { timeout: 120_000 }, async () => {
    const tiles = page.locator('.item-tile:not(.item-has-options)');
    await tiles.nth(0).click();
    await tiles.nth(1).click();
    // Both adds announced (asynchronously) before the log is emptied: only what follows is counted.
    await expect.poll(() => register.cart.getByTestId('cart-line').count()).toBeGreaterThanOrEqual(2);
    const logged = () => page.evaluate(() => (window as unknown as { announced: string[] }).announced.length);
    for (let before = -1, now = await logged(); before !== now; before = now, now = await logged()) await page.waitForTimeout(500);
    await announced();
    // Skip to cart (F4): the last line's quantity; type 3.
    await page.keyboard.press('F4');
    expect(await focused(page)).toBe('line-quantity');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await expect(register.cart.getByTestId('line-quantity').nth(1).inputValue()).resolves.toBe('3');
    const total = await register.cartTotalText();
    await page.waitForTimeout(300);
    const all = await announced();
    const cart = all.filter((a) => a.startsWith('cart-announcement'));
    expect(cart, JSON.stringify(all)).toHaveLength(1);
    expect(cart[0]).toMatch(/quantity 3\. Total /);
    expect(cart[0]).toContain(total);

    // ↓ steps down; remove the first line with ✕: focus moves to the quantity of the line now first.
    await page.keyboard.press('ArrowDown');
    await expect(register.cart.getByTestId('line-quantity').nth(1).inputValue()).resolves.toBe('2');
    await register.cart
      .getByRole('button', { name: /^Remove / })
      .first()
      .click();
    await expect(register.cart.getByTestId('cart-line').count()).resolves.toBe(1);
    expect(await focused(page)).toBe('line-quantity');

    // A quantity of 0 removes the last line: focus goes to the scan box, not the body.
    await page.keyboard.type('0');
    await page.keyboard.press('Enter');
    await expect(register.cart.getByTestId('cart-line').count()).resolves.toBe(0);
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan-input');

    // − to 0 with the pointer, then Clear: focus still lands on the scan box.
    await tiles.nth(0).click();
    await register.cart.getByRole('button', { name: /^Decrease quantity/ }).click();
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan-input');
    await tiles.nth(0).click();
    await tiles.nth(1).click();
    await register.cart.getByRole('button', { name: 'Clear' }).click();
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan-input');
  });

  it('links cash errors to the field, and Escape returns focus', { timeout: 60_000 }, async () => {
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    await page.getByTestId('scan-input').focus();
    await page.keyboard.press('F9');
    await page.getByRole('dialog', { name: 'Cash payment' }).waitFor();
    await page.keyboard.type('abc');
    const field = page.getByTestId('cash-tendered');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const errorId = await field.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toBe('Enter an amount like 20 or 20.50');
    expect(await page.locator(`[id="${errorId}"]`).getAttribute('role')).toBe('alert');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('scan-input');
    await register.cart.getByRole('button', { name: 'Clear' }).click();
  });

  it('skips to the cart from the scan box; the storage banner is no alert', { timeout: 60_000 }, async () => {
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    await page.getByTestId('scan-input').focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to cart');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('line-quantity');
    await register.cart.getByRole('button', { name: 'Clear' }).click();
    const banner = page.getByTestId('storage-warning');
    if ((await banner.count()) > 0) expect(await banner.getAttribute('role')).not.toBe('alert');
  });

  it('back office: Escape on the inline invoice form puts focus back on New invoice', { timeout: 60_000 }, async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Back office' }).click();
    const signIn = page.getByTestId('staff-sign-in');
    await page.getByTestId('backoffice').or(signIn).first().waitFor();
    if (await signIn.isVisible()) {
      await signIn.getByLabel('PIN').fill(suite!.server.ownerPin);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Invoices', exact: true }).click();
    await page.getByTestId('invoice-new').click();
    const form = page.getByTestId('invoice-form');
    await form.waitFor();
    await form.locator('input').first().focus();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'invoice-new');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Register', exact: true }).click();
    await register.scanInput.waitFor();
  });

  it('has tabs that behave as tabs: one Tab stop, arrows move and select, aria-controls names the panel', { timeout: 60_000 }, async () => {
    const tabs = page.getByRole('tablist', { name: 'Categories' }).getByRole('tab');
    expect(await tabs.evaluateAll((all) => all.filter((t) => (t as HTMLElement).tabIndex === 0).length)).toBe(1);
    await tabs.first().focus();
    await page.keyboard.press('ArrowRight');
    const second = tabs.nth(1);
    expect(await second.getAttribute('aria-selected')).toBe('true');
    expect(await second.evaluate((t) => t === document.activeElement)).toBe(true);
    const panelId = await second.getAttribute('aria-controls');
    const panel = page.locator(`[id="${panelId}"]`);
    expect(await panel.getAttribute('role')).toBe('tabpanel');
    expect(await panel.getAttribute('aria-labelledby')).toBe(await second.getAttribute('id'));
    await page.keyboard.press('Home');
    expect(await tabs.first().getAttribute('aria-selected')).toBe('true');
    // The tender dialog's methods too.
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    await page.getByTestId('charge').click();
    await page.getByTestId('tender-method-cash').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('tender-method-card').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Escape');
    await register.cart.getByRole('button', { name: 'Clear' }).click();
  });

  it('shows the shortcuts on screen, in a ? overlay, and as aria-keyshortcuts', { timeout: 60_000 }, async () => {
    const bar = page.getByTestId('shortcut-bar');
    for (const key of ['F2', 'F4', 'F9', 'F6']) expect(await bar.textContent()).toContain(key);
    expect(await page.getByTestId('scan-input').getAttribute('aria-keyshortcuts')).toBe('F2');
    expect(await page.getByTestId('charge').getAttribute('aria-keyshortcuts')).toBe('F9');
    await page.getByTestId('scan-input').focus();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const key of ['F2', 'F4', 'F9', 'F6', 'Esc']) expect(await help.textContent()).toContain(key);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // "?" inside a typed search is text, not the overlay.
    await page.keyboard.type('a?');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByTestId('scan-input').fill('');
  });

  it('offline: two sales count 2 unsynced and the header never says "Synced just now"', { timeout: 180_000 }, async () => {
    await page.context().setOffline(true);
    await register.waitForBadge('offline');
    expect(await register.lastSync.textContent()).not.toContain('just now');
    for (let i = 0; i < 2; i++) {
      await keyboardSale();
      await page.getByTestId('new-sale').click();
    }
    await register.waitForUnsynced(2);
    expect(await register.lastSync.textContent()).not.toContain('just now');
    await page.context().setOffline(false);
    await register.waitForUnsynced(0, 60_000);
  });

  it(
    'pay page: a bad card number is linked to its field and focused; after a decline focus is on the card number',
    { timeout: 120_000 },
    async () => {
      const pr = await api<{ url: string }>('/api/pos/pay-requests', { body: { amountCents: 1250, phone: '+14155550123' } });
      const pay = await page.context().newPage();
      await pay.goto(pr.url);
      const number = pay.getByLabel('Card number');
      await number.fill('1234');
      await pay.getByLabel('Expiry (MM/YY)').fill('12/34');
      await pay.getByLabel('CVC').fill('123');
      await pay.locator('#panel-card button[type=submit]').click();
      expect(await number.getAttribute('aria-invalid')).toBe('true');
      expect(await number.getAttribute('aria-describedby')).toBe('pay-error');
      expect(await pay.getByRole('alert').textContent()).toBe('Check the card number.');
      expect(await number.evaluate((el) => el === document.activeElement)).toBe(true);

      await number.fill('4000 0000 0000 0002');
      await pay.locator('#panel-card button[type=submit]').click();
      await pay.getByRole('alert').filter({ hasText: 'declined' }).waitFor();
      await pay.waitForFunction(() => document.activeElement?.id === 'card-number');

      // Tabs: one Tab stop, arrows select.
      await pay.getByRole('tab', { name: 'Card' }).focus();
      await pay.keyboard.press('ArrowRight');
      expect(await pay.getByRole('tab', { name: 'Apple Pay' }).getAttribute('aria-selected')).toBe('true');
      expect(await pay.locator('[role=tab][tabindex="0"]').count()).toBe(1);
      await pay.close();
    },
  );
});
