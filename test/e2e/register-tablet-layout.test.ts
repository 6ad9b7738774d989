/**
 * The register fits the tablets shops use: at 1024×768, 1280×800 and 768×1024 (upright) the header is one row, at
 * least five cart lines are in view with a customer attached (the customer on screen too), the line just added — at
 * each size, after the cart was scrolled back to its first line — is always in view (the cart scrolls to it), upright the catalog's tiles are above the cart, and nothing overlaps or is clipped (the bounding-box checks
 * of the accessibility suite). The storage warning shows in full once, then as a small badge in the header.
 * Screenshots in test-results/tablet/. Real server (demo store) + the built register in Debian's Chromium.
 */
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { layoutProblems } from './support/a11y.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';

const SHOTS = 'test-results/tablet';
const VIEWPORTS = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 768, height: 1024 },
] as const;

/** The header's children whose top is more than 12 px below the first one's: empty when the header is one row. */
async function headerRows(page: Page): Promise<{ height: number; lowered: string[] }> {
  return page.evaluate(() => {
    const header = document.querySelector<HTMLElement>('.app-header')!;
    const children = [...header.children].filter((c): c is HTMLElement => c instanceof HTMLElement && c.getBoundingClientRect().height > 2);
    const tops = children.map((c) => c.getBoundingClientRect());
    const middle = (r: DOMRect) => r.top + r.height / 2;
    const first = middle(tops[0]!);
    const lowered = children.filter((_, i) => Math.abs(middle(tops[i]!) - first) > 12).map((c) => c.className);
    return { height: header.getBoundingClientRect().height, lowered };
  });
}

/** The cart lines wholly inside the cart list's visible box, and whether the line named `last` is one of them. */
async function linesInView(page: Page, last: string): Promise<{ count: number; lastInView: boolean; total: number }> {
  return page.evaluate((lastName) => {
    const list = document.querySelector<HTMLElement>('#cart .cart-lines')!;
    const box = list.getBoundingClientRect();
    const rows = [...list.querySelectorAll<HTMLElement>('[data-testid="cart-line"]')];
    const inView = rows.filter((r) => {
      const b = r.getBoundingClientRect();
      return b.top >= box.top - 1 && b.bottom <= Math.min(box.bottom, window.innerHeight) + 1;
    });
    return { count: inView.length, lastInView: inView.some((r) => r.textContent?.includes(lastName)), total: rows.length };
  }, last);
}

describe('the register on a tablet', () => {
  let suite: BrowserSuite | undefined;
  let page: Page;
  const api = staffApi(() => suite!.server);

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1024, height: 768 });
    page = suite.page;
    // This browser refuses persistent storage, as a plain tab under storage pressure may.
    await suite.context.addInitScript(() => {
      Object.defineProperty(navigator, 'storage', {
        configurable: true,
        value: { persisted: () => Promise.resolve(false), persist: () => Promise.resolve(false), estimate: () => Promise.resolve({}) },
      });
    });
  }, 120_000);
  afterAll(async () => {
    await suite?.close();
  });

  it('keeps one header row, five cart lines with a customer, the last line in view; the storage warning once', { timeout: 300_000 }, async () => {
    const server = suite!.server;
    await api('/api/pos/customers', {
      body: { givenName: 'Tabitha', familyName: 'Tablet-Customer', phone: '+14155550177', email: 'tabitha@example.com' },
    });
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.waitForCatalog();

    // The full warning on the first load; dismissed, it is a badge in the header, and a later load shows the badge only.
    const warning = page.getByTestId('storage-warning');
    await warning.waitFor();
    await warning.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByTestId('storage-badge').waitFor();
    await page.reload();
    await register.signInIfAsked(server.ownerPin);
    await register.waitForCatalog();
    await page.getByTestId('storage-badge').waitFor();
    expect(await warning.count()).toBe(0);
    await page.getByTestId('storage-badge').click();
    await warning.waitFor();
    await warning.getByRole('button', { name: 'Dismiss' }).click();

    // Attach the customer (F3, search, Enter), then ring up seven different items.
    await register.scanInput.focus();
    await page.keyboard.press('F3');
    const dialog = page.getByRole('dialog', { name: 'Customer' });
    await dialog.waitFor();
    await page.keyboard.type('555 0177');
    await dialog.getByTestId('customer-row').first().waitFor();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await register.cart.getByTestId('customer-attached').waitFor();

    const tiles = page.locator('.item-tile:not(.item-has-options)');
    const names: string[] = [];
    for (let i = 0; i < 7; i++) {
      const tile = tiles.nth(i);
      await tile.scrollIntoViewIfNeeded();
      names.push(((await tile.locator('.item-name').textContent()) ?? '').trim());
      await tile.click();
      await expect.poll(() => register.cart.getByTestId('cart-line').count()).toBe(i + 1);
      // The line just added is in view at once, whatever the screen.
      await expect.poll(async () => (await linesInView(page, names[i]!)).lastInView, { message: `line ${names[i]} in view` }).toBe(true);
    }

    for (const [index, viewport] of VIEWPORTS.entries()) {
      const label = `${viewport.width}x${viewport.height}`;
      mkdirSync(SHOTS, { recursive: true });
      await page.setViewportSize(viewport);
      // The first line again (the cart scrolls to a changed line too), then the last.
      await register.increaseQuantity(names[0]!);
      await expect
        .poll(async () => (await linesInView(page, names[0]!)).lastInView, { message: `${label}: the changed first line in view` })
        .toBe(true);
      await register.increaseQuantity(names.at(-1)!);
      await expect
        .poll(async () => (await linesInView(page, names.at(-1)!)).lastInView, { message: `${label}: the changed last line in view` })
        .toBe(true);
      // Scrolled back to the first line, a new item added at this size: its line (the last) is scrolled into view.
      await register.increaseQuantity(names[0]!);
      await expect.poll(async () => (await linesInView(page, names[0]!)).lastInView).toBe(true);
      const tile = tiles.nth(7 + index);
      await tile.scrollIntoViewIfNeeded();
      names.push(((await tile.locator('.item-name').textContent()) ?? '').trim());
      await tile.click();
      await expect.poll(() => register.cart.getByTestId('cart-line').count()).toBe(names.length);
      await expect
        .poll(async () => (await linesInView(page, names.at(-1)!)).lastInView, { message: `${label}: the line just added in view` })
        .toBe(true);
      await page.screenshot({ path: `${SHOTS}/${label}.png` });

      const header = await headerRows(page);
      expect(header.lowered, `${label}: header children below its first row`).toEqual([]);
      expect(header.height, `${label}: header height`).toBeLessThanOrEqual(64);
      // The customer is still attached and on screen, above the lines.
      const customer = await register.cart.getByTestId('customer-attached').boundingBox();
      expect(customer && customer.y >= 0 && customer.y + customer.height <= viewport.height, `${label}: the customer on screen`).toBe(true);
      const lines = await linesInView(page, names.at(-1)!);
      expect(lines.count, `${label}: cart lines in view (of ${lines.total})`).toBeGreaterThanOrEqual(5);
      if (viewport.width < viewport.height) {
        // Upright: the catalog's tiles are on screen above the cart.
        const tile = await tiles.first().boundingBox();
        const cart = await register.cart.boundingBox();
        expect(tile && cart && tile.y + tile.height <= cart.y, `${label}: a tile above the cart`).toBe(true);
      }
      expect(await layoutProblems(page), `${label}: layout problems`).toEqual([]);
    }
  });
});
