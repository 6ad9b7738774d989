/**
 * Back office → catalog in the built register (Debian Chromium) against the real server (in-memory database, demo
 * store): generate a picture for an item (attached as a permanent copy, one credit spent), edit a price (dollars typed,
 * integer cents stored), a problem body's field error shown next to its field, stock received, the Shopify template
 * CSV imported with its per-line counts, the catalog exported, and the "needs a connection" state offline.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage, ItemEditorDialog } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

const TEMPLATE_CSV = fileURLToPath(new URL('../fixtures/catalog/shopify-product_template.csv', import.meta.url));

interface ApiVariation {
  id: string;
  name: string;
  priceCents: number;
  gtin?: string;
  trackStock: boolean;
  stockOnHand?: number;
}
interface ApiItem {
  id: string;
  name: string;
  imageUrl?: string;
  variations: ApiVariation[];
}

describe('back office catalog', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let context: BrowserContext;
  let page: Page;

  const api = staffApi(() => server);

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 900, acceptDownloads: true });
    ({ server, context, page } = suite);
  });

  afterAll(() => suite?.close());

  it('generates and attaches a picture, edits a price, shows field errors and receives stock', { timeout: 180_000 }, async () => {
    const item = server.catalog.items.find((i) => i.variations.length === 1 && !i.imageUrl && i.modifierLists.length === 0);
    expect(item, 'a single-variation item without a picture in the demo catalog').toBeDefined();
    if (!item) return;
    const before = await api<{ balance: number }>('/api/v1/credits');

    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const catalog = await backOffice.catalog();
    await catalog.search(item.name);
    await catalog.row(item.id).waitFor();
    const editor = await catalog.edit(item.name);
    await expect.poll(() => editor.creditBalance.textContent()).toBe(String(before.balance));

    /* Generate a picture from the item name, preview it, attach it. */
    await editor.generatePicture();
    const previewLoaded = await editor.root
      .getByTestId('picture-preview')
      .evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth));
    expect(previewLoaded).toBeGreaterThan(0);
    await editor.attachPicture();
    // The attached picture shows in the editor (a real PNG through the same-origin media path).
    const attachedWidth = await editor.root
      .getByTestId('item-picture')
      .evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth));
    expect(attachedWidth).toBeGreaterThan(0);
    await page.screenshot({ path: '/tmp/backoffice-item-editor.png' });
    const withPicture = await api<ApiItem>(`/api/pos/catalog/items/${item.id}`);
    expect(withPicture.imageUrl).toMatch(/\/api\/v1\/media\/med_[0-9A-Z]{26}\.png$/);
    const png = await fetch(new URL(new URL(withPicture.imageUrl!).pathname, server.baseUrl));
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const after = await api<{ balance: number }>('/api/v1/credits');
    expect(after.balance).toBe(before.balance - 1);
    await expect.poll(() => editor.creditBalance.textContent()).toBe(String(before.balance - 1));

    /* A GTIN with a bad check digit: the server's problem names variations.0.gtin, shown next to that field. */
    await editor.setGtin(0, '12345678');
    await editor.pressEnterInPrice();
    const gtinError = editor.variation(0).getByTestId('field-error');
    await gtinError.waitFor();
    await expect(gtinError.textContent()).resolves.toMatch(/GTIN/);
    expect((await api<ApiItem>(`/api/pos/catalog/items/${item.id}`)).variations[0]!.gtin).toBe(item.variations[0]!.gtin);

    /* Price typed in dollars, saved with Enter; the server holds integer cents. */
    await editor.setGtin(0, item.variations[0]!.gtin ?? '');
    await editor.setPrice(0, '12.29');
    await editor.pressEnterInPrice();
    await editor.waitForSaved();
    const repriced = await api<ApiItem>(`/api/pos/catalog/items/${item.id}`);
    expect(repriced.variations[0]!.priceCents).toBe(1229);
    expect(repriced.imageUrl).toBe(withPicture.imageUrl);
    await editor.close();
    await expect(catalog.row(item.id).textContent()).resolves.toContain('$12.29');
    await page.screenshot({ path: '/tmp/backoffice-catalog.png' });

    /* Stock: a tracked variation receives 7 units. */
    const tracked = server.catalog.items.find((i) => i.variations.some((v) => v.trackStock));
    expect(tracked, 'an item that tracks stock in the demo catalog').toBeDefined();
    if (!tracked) return;
    const variation = tracked.variations.find((v) => v.trackStock)!;
    const onHandBefore = (await api<ApiItem>(`/api/pos/catalog/items/${tracked.id}`)).variations.find((v) => v.id === variation.id)!.stockOnHand ?? 0;
    await catalog.search(tracked.name);
    await catalog.row(tracked.id).waitFor();
    const stockEditor = await catalog.edit(tracked.name);
    await stockEditor.stockRow(variation.id).waitFor();
    await stockEditor.moveStock(variation.id, 'receive', '7');
    await expect.poll(() => stockEditor.stockRow(variation.id).getByTestId('stock-on-hand').textContent()).toBe(String(onHandBefore + 7));
    const levels = await api<{ data: { variationId: string; onHand: number }[] }>(`/api/pos/catalog/inventory?variationId=${variation.id}`);
    expect(levels.data[0]?.onHand).toBe(onHandBefore + 7);

    /* A count sets the units on hand; an alert level above it raises the low-stock alert on the catalog list. */
    await stockEditor.moveStock(variation.id, 'count', '3');
    await expect.poll(() => stockEditor.stockRow(variation.id).getByTestId('stock-on-hand').textContent()).toBe('3');
    const threshold = stockEditor.stockRow(variation.id).getByTestId('stock-threshold');
    await threshold.fill('5');
    await threshold.press('Tab');
    await expect.poll(() => stockEditor.stockRow(variation.id).textContent()).toContain('low');
    const low = await api<{ data: { variationId: string; onHand: number; isLow: boolean }[] }>('/api/pos/catalog/inventory/low-stock');
    expect(low.data.find((l) => l.variationId === variation.id)).toMatchObject({ onHand: 3, isLow: true });
    await stockEditor.close();
    await expect.poll(() => page.getByTestId('low-stock-alerts').textContent()).toContain(tracked.name);
  });

  it('creates an item from the editor and finds it with the category filter', { timeout: 60_000 }, async () => {
    const backOffice = new BackOfficePage(page);
    const catalog = await backOffice.catalog();
    await catalog.search('');
    await page.getByTestId('catalog-new-item').click();
    const editor = new ItemEditorDialog(page);
    await editor.root.waitFor();
    await editor.root.getByTestId('item-name').fill('Test Kitchen Scone');
    await editor.root.getByTestId('item-category').fill('Test Kitchen');
    await editor.variation(0).getByTestId('variation-sku').fill('TK-SCONE');
    await editor.setPrice(0, '2.05');
    // Saved with a tap on the button this time; Escape still closes the dialog afterwards (editor.close below).
    await editor.root.getByTestId('item-save').click();
    await editor.waitForSaved();
    const found = await api<{ data: ApiItem[] }>('/api/pos/catalog?q=TK-SCONE');
    expect(found.data).toHaveLength(1);
    expect(found.data[0]!.variations[0]).toMatchObject({ priceCents: 205, name: 'Regular' });
    await editor.close();

    await page.getByTestId('catalog-category').selectOption('Test Kitchen');
    await expect.poll(() => catalog.rows.count()).toBe(1);
    await expect(catalog.row(found.data[0]!.id).textContent()).resolves.toContain('$2.05');

    /* Rename the category: an empty name is the server's field error in place; then every item moves. */
    await page.getByTestId('catalog-rename-category').click();
    const rename = page.getByTestId('category-rename');
    await rename.waitFor();
    await rename.getByTestId('category-rename-name').fill('   ');
    await page.getByTestId('category-rename-save').click();
    await expect(rename.getByTestId('field-error').textContent()).resolves.toMatch(/\S/);
    await expect(rename.getByTestId('category-rename-name').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await rename.getByTestId('category-rename-name').fill('Test Pastry');
    await rename.getByTestId('category-rename-name').press('Enter');
    await rename.waitFor({ state: 'detached' });
    await expect(page.getByTestId('catalog-notice').textContent()).resolves.toContain('1 item moved to “Test Pastry”');
    await expect.poll(() => page.getByTestId('catalog-category').inputValue()).toBe('Test Pastry');
    await expect.poll(() => catalog.row(found.data[0]!.id).textContent()).toContain('Test Pastry');
    await expect.poll(() => catalog.rows.count()).toBe(1);
    expect((await api<ApiItem & { category: string }>(`/api/pos/catalog/items/${found.data[0]!.id}`)).category).toBe('Test Pastry');
    const categories = await api<{ data: { name: string }[] }>('/api/pos/catalog/categories?limit=200');
    expect(categories.data.map((c) => c.name)).not.toContain('Test Kitchen');
    await page.getByTestId('catalog-category').selectOption('');
  });

  it(
    'edits the whole item: kind, description, tax rates and modifier lists, server field errors in place, then deletes it',
    { timeout: 120_000 },
    async () => {
      interface Rate {
        id: string;
        name: string;
        basisPoints: number;
        inclusive: boolean;
      }
      interface FullItem extends ApiItem {
        kind: string;
        description?: string;
        taxRateIds: string[];
        modifierLists: {
          id: string;
          name: string;
          minSelected: number;
          maxSelected: number;
          modifiers: { id: string; name: string; priceCents: number }[];
        }[];
      }
      const { taxRates } = await api<{ taxRates: Rate[] }>('/api/pos/catalog?limit=1');
      const rate = taxRates.find((r) => !r.inclusive);
      expect(rate, 'an exclusive tax rate in the demo store').toBeDefined();
      if (!rate) return;
      const name = 'Test Full Latte';
      const description = 'Double shot, steamed milk.\nAsk for oat milk.';

      const backOffice = new BackOfficePage(page);
      const catalog = await backOffice.catalog();
      // Listed by its name, so the row is on the first page however large the catalog is.
      await catalog.search(name);
      await page.getByTestId('catalog-empty').waitFor();
      const editor = await catalog.newItem();
      await editor.root.getByTestId('item-name').fill(name);
      await editor.root.getByTestId('item-category').fill('Test Coffee');
      await editor.root.getByTestId('item-kind').selectOption('service');
      await editor.root.getByTestId('item-description').fill(description);
      await editor.setPrice(0, '4.50');
      await expect(editor.taxRate(rate.id).locator('xpath=..').textContent()).resolves.toContain(`${rate.name} ${rate.basisPoints / 100} %`);
      // A new item starts with the store's default rate checked (the demo's one exclusive rate).
      await expect(editor.taxRate(rate.id).isChecked()).resolves.toBe(true);
      await editor.addModifierList({ name: 'Extras', min: '0', max: '2' });
      await editor.setModifier(0, 0, { name: 'Oat milk', price: '0.50' });
      await editor.setModifier(0, 1, { name: 'Extra shot', price: '1.25' });
      await editor.root.getByTestId('modifier-lists').scrollIntoViewIfNeeded();
      await page.screenshot({ path: '/tmp/item-editor-full.png' });
      // Saved with Enter in a modifier's price (keyboard path).
      await editor.modifier(0, 1).getByTestId('modifier-price').press('Enter');
      await editor.waitForSaved();

      const found = await api<{ data: FullItem[] }>(`/api/pos/catalog?q=${encodeURIComponent(name)}`);
      expect(found.data).toHaveLength(1);
      const id = found.data[0]!.id;
      const created = await api<FullItem>(`/api/pos/catalog/items/${id}`);
      expect(created).toMatchObject({ name, category: 'Test Coffee', kind: 'service', description, taxRateIds: [rate.id] });
      expect(created.variations[0]).toMatchObject({ priceCents: 450 });
      expect(created.modifierLists).toHaveLength(1);
      expect(created.modifierLists[0]).toMatchObject({
        name: 'Extras',
        minSelected: 0,
        maxSelected: 2,
        modifiers: [
          { name: 'Oat milk', priceCents: 50 },
          { name: 'Extra shot', priceCents: 125 },
        ],
      });
      const [oat, shot] = created.modifierLists[0]!.modifiers;
      // The editor now holds the server's ids (sent back on the next save so they are kept).
      await expect.poll(() => editor.modifier(0, 1).getAttribute('data-modifier-id')).toBe(shot!.id);

      /* min > max: the server's field error (modifierLists.0.minSelected) next to that input, focus moved there. */
      const min = editor.modifierList(0).getByTestId('modifier-list-min');
      await min.fill('3');
      await editor.root.getByTestId('item-save').click();
      await expect.poll(() => min.getAttribute('aria-invalid')).toBe('true');
      await expect(editor.errorOf(min)).resolves.toMatch(/minSelected|exceed/);
      await expect(min.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      expect((await api<FullItem>(`/api/pos/catalog/items/${id}`)).modifierLists[0]!.minSelected).toBe(0);
      await min.fill('0');

      /* An inclusive rate with an exclusive one: the 400 names taxRateIds, shown with the checkboxes. */
      const inclusive = await api<Rate>('/api/pos/catalog/tax-rates', { body: { name: 'Test VAT', basisPoints: 2000, inclusive: true } });
      // The editor learns of the new rate from the catalog list, refreshed after a save.
      await editor.root.getByTestId('item-save').click();
      await editor.waitForSaved();
      await editor.taxRate(inclusive.id).waitFor();
      await expect(editor.taxRate(inclusive.id).locator('xpath=..').textContent()).resolves.toMatch(/Test VAT 20 %\s*incl\./);
      await editor.taxRate(inclusive.id).check();
      await editor.root.getByTestId('item-save').click();
      await expect.poll(() => editor.taxRate(rate.id).getAttribute('aria-invalid')).toBe('true');
      await expect(editor.errorOf(editor.taxRate(inclusive.id))).resolves.toMatch(/inclusive/);
      expect((await api<FullItem>(`/api/pos/catalog/items/${id}`)).taxRateIds).toEqual([rate.id]);
      await editor.taxRate(inclusive.id).uncheck();
      const dropRate = await fetch(`${server.baseUrl}/api/pos/catalog/tax-rates/${inclusive.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${server.staffToken}` },
      });
      expect(dropRate.status).toBe(204);

      /* Remove "Oat milk": one modifier left, "Extra shot" keeps its id. */
      await editor.modifier(0, 0).getByTestId('remove-modifier').click();
      await expect(editor.modifierList(0).getByTestId('modifier-row').count()).resolves.toBe(1);
      await editor.root.getByTestId('item-save').click();
      await editor.waitForSaved();
      const trimmed = await api<FullItem>(`/api/pos/catalog/items/${id}`);
      expect(trimmed.modifierLists[0]!.modifiers).toEqual([{ id: shot!.id, name: 'Extra shot', priceCents: 125 }]);
      expect(trimmed.modifierLists[0]!.modifiers.some((m) => m.id === oat!.id)).toBe(false);
      expect(trimmed.modifierLists[0]!.id).toBe(created.modifierLists[0]!.id);
      expect(trimmed.taxRateIds).toEqual([rate.id]);

      /* Delete: the inline confirmation (Escape keeps the item and the dialog), then Delete; the row goes, the API says 404. */
      await editor.root.getByTestId('item-delete').click();
      await expect(editor.root.getByTestId('item-delete-keep').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      await expect(editor.root.locator('.bo-delete').textContent()).resolves.toContain(`Really delete ${name}?`);
      await page.keyboard.press('Escape');
      await editor.root.getByTestId('item-delete').waitFor();
      expect(await editor.root.isVisible()).toBe(true);
      await editor.deleteItem();
      await catalog.row(id).waitFor({ state: 'detached' });
      await page.getByTestId('catalog-empty').waitFor();
      await expect(api(`/api/pos/catalog/items/${id}`)).rejects.toThrow(/HTTP 404/);
      await catalog.search('');
    },
  );

  it('imports the Shopify template CSV with per-line counts and exports the catalog', { timeout: 180_000 }, async () => {
    const csv = readFileSync(TEMPLATE_CSV, 'utf8');
    const dataLines = csv.split(/\r?\n/).filter((l) => l.trim() !== '').length - 1;
    const lines = csv
      .split(/\r?\n/)
      .slice(1)
      .filter((l) => l.trim() !== '');
    const handles = new Set(lines.map((l) => l.split(',')[0]));
    // Shopify's Status is the last column (never quoted in this file); archived products are not imported.
    const archived = lines.flatMap((l, i) => (l.split(',').at(-1) === 'archived' ? [{ handle: l.split(',')[0], line: i + 2 }] : []));
    expect(archived.length).toBeGreaterThan(0);

    const backOffice = new BackOfficePage(page);
    const section = await backOffice.importExport();
    await section.importFile(TEMPLATE_CSV);
    const rows = await section.count('import-rows');
    const imported = await section.count('import-imported');
    const rejected = await section.count('import-rejected');
    expect(rows).toBe(dataLines);
    expect(imported + rejected).toBe(rows);
    expect(imported).toBeGreaterThan(0);
    await expect(section.result.getByTestId('import-rejected-line').count()).resolves.toBe(rejected);
    for (const a of archived) {
      const line = section.result.locator(`[data-testid="import-rejected-line"][data-line="${a.line}"]`);
      await expect(line.textContent()).resolves.toMatch(/archived/);
    }
    const created = await section.count('import-created');
    expect(created).toBe(handles.size - new Set(archived.map((a) => a.handle)).size);
    await expect(section.result.locator('[data-testid="import-item"][data-status="created"]').count()).resolves.toBe(created);

    // The imported items are in the catalog.
    const found = await api<{ data: ApiItem[] }>(`/api/pos/catalog?q=${encodeURIComponent('Example T-Shirt')}`);
    expect(found.data.length).toBe(1);

    /* Export: a CSV download holding the imported item. */
    const path = await section.exportCsv();
    const exported = readFileSync(path, 'utf8');
    expect(exported.split(/\r?\n/)[0]).toMatch(/^Handle,Title/);
    expect(exported).toContain('Example T-Shirt');
  });

  it('shows "needs a connection" offline while the register keeps its screen', { timeout: 60_000 }, async () => {
    const backOffice = new BackOfficePage(page);
    await context.setOffline(true);
    await backOffice.offlineState.waitFor();
    await expect(backOffice.offlineState.textContent()).resolves.toMatch(/needs a connection/);
    const register = new RegisterPage(page);
    await register.openRegister();
    await register.scanInput.waitFor();
    await context.setOffline(false);
  });
});
