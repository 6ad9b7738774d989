/**
 * The register with a large catalog, not timed: with 5,000 items on the server
 * the register downloads them all, renders only a window of tiles (counted in the DOM), scrolls the window, finds an
 * item by barcode and by search (the in-memory index), sorts with locale collation, and sells it; a cart change touches
 * no tile (a MutationObserver over the grid sees nothing).
 *
 * Real server (in-memory database, demo store + 5,000 generated items) + the built register in Debian's Chromium.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkGtin, bulkName, bulkPriceCents, seedLargeCatalog } from '../support/large-catalog.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const COUNT = 5_000;

describe('register with a large catalog', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    await seedLargeCatalog(server.db, server.merchantId, COUNT);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders a window of tiles, finds items by barcode and search, and sells one', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const total = COUNT + server.catalog.items.length;
    await page.waitForFunction((n) => document.querySelector('[data-testid="item-grid"]')?.getAttribute('data-item-count') === String(n), total, {
      timeout: 120_000,
    });

    // Only a window of the 5,014 tiles is in the DOM.
    const tiles = page.locator('.item-tile');
    const rendered = await tiles.count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(200);

    // Locale collation with numbers compared as numbers: "Aisle 00" first, its items 20, 40, 60, 80, 100 (not 100 before 20).
    const names = await tiles.locator('.item-name').allTextContents();
    expect(names.slice(0, 5)).toEqual([20, 40, 60, 80, 100].map(bulkName));
    // Scrolling to the end brings the last tiles in, and the window stays small.
    await page.locator('section.catalog').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect.poll(() => page.locator('.item-tile').count()).toBeLessThan(200);
    await page.locator('section.catalog').evaluate((el) => el.scrollTo(0, 0));

    // Within a category, by name: the Bakery tab.
    await page.getByRole('tab', { name: 'Bakery' }).click();
    await expect
      .poll(() => page.locator('.item-tile .item-name').allTextContents())
      .toEqual(['Blueberry muffin', 'Butter croissant', 'Chocolate chip cookie']);

    // A cart change re-renders the cart, not the grid: no tile is touched.
    await page.evaluate(() => {
      const grid = document.querySelector('[data-testid="item-grid"]')!;
      const w = window as unknown as { gridMutations: number };
      w.gridMutations = 0;
      new MutationObserver((records) => (w.gridMutations += records.length)).observe(grid, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
    });
    await register.tapItem('itm_croissant');
    await expect.poll(() => register.cartLine('Butter croissant').count()).toBe(1);
    await register.increaseQuantity('Butter croissant');
    await expect.poll(() => register.cart.getByTestId('line-quantity').first().inputValue()).toBe('2');
    expect(await page.evaluate(() => (window as unknown as { gridMutations: number }).gridMutations)).toBe(0);
    await page.getByRole('tab', { name: 'All' }).click();

    // Barcode: item 4,321 by its GTIN.
    await register.scan(bulkGtin(4321));
    await expect.poll(() => register.cartLine(bulkName(4321)).count()).toBe(1);

    // Search: the grid shows the matching items only; item 3,999 by its number and word.
    await register.scanInput.fill(`3999 ${bulkName(3999).split(' ').at(-1)}`);
    await expect.poll(() => page.locator('.item-tile').count()).toBe(1);
    await page.getByTestId('item-itm_bulk_3999').click();
    await expect.poll(() => register.cartLine(bulkName(3999)).count()).toBe(1);
    await register.scanInput.fill('');
    await expect.poll(() => page.locator('.item-tile').count()).toBeGreaterThan(10);

    // Sell it: croissant ×2 ($3.75 each) + the two bulk items, tax on top (demo sales tax).
    const receipt = await (await (await register.charge()).exact()).complete();
    const orderId = await receipt.orderId();
    expect(orderId).toMatch(/^ord_/);
    await register.waitForBadge('synced', 60_000);
    await expect
      .poll(
        async () =>
          (await fetch(`${server.baseUrl}/api/pos/orders/${orderId}`, { headers: { authorization: `Bearer ${server.staffToken}` } })).status,
        { timeout: 30_000 },
      )
      .toBe(200);
    const order = (await (
      await fetch(`${server.baseUrl}/api/pos/orders/${orderId}`, { headers: { authorization: `Bearer ${server.staffToken}` } })
    ).json()) as {
      state: string;
      subtotalCents: number;
    };
    expect(order.state).toBe('paid');
    expect(order.subtotalCents).toBe(2 * 375 + bulkPriceCents(4321) + bulkPriceCents(3999));
    await context.close();
  });

  it('lists the back office catalog by name with locale collation, long tables virtualised', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const catalog = await (await BackOfficePage.open(page, server.ownerPin)).catalog();
    // "an": Butter croissant, Coca-Cola … can, Dasani …, Diet Coke … can (ids would put Coca-Cola first).
    await catalog.search('an');
    await expect.poll(async () => (await catalog.rows.allTextContents()).some((t) => t.includes('Butter croissant')), { timeout: 30_000 }).toBe(true);
    const names = (await catalog.rows.allTextContents()).map((t) => t.trim());
    const croissant = names.findIndex((t) => t.includes('Butter croissant'));
    const coke = names.findIndex((t) => t.includes('Coca-Cola'));
    expect(coke).toBeGreaterThan(croissant);

    // A long table renders a window of its rows: three pages of 100 loaded, fewer rows drawn.
    await catalog.search('');
    const table = page.locator('table:has([data-testid="catalog-row"])');
    // Each page is a read of a 50,000-item catalog: on a loaded machine it takes more than vitest's default 1 s poll.
    await expect.poll(() => table.getAttribute('data-row-count'), { timeout: 30_000 }).toBe('100');
    for (const rows of ['200', '300']) {
      await page.getByTestId('catalog-more').click();
      await expect.poll(() => table.getAttribute('data-row-count'), { timeout: 30_000 }).toBe(rows);
    }
    const drawn = await catalog.rows.count();
    expect(drawn).toBeGreaterThan(5);
    expect(drawn).toBeLessThan(150);
    // Scrolled to the end, other rows are drawn, still a window.
    const firstDrawn = await catalog.rows.first().getAttribute('data-item-id');
    await page.locator('.bo-content').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect.poll(() => catalog.rows.first().getAttribute('data-item-id')).not.toBe(firstDrawn);
    await expect.poll(() => catalog.rows.count()).toBeLessThan(150);
    await context.close();
  });
});
