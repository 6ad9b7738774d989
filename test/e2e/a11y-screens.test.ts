/**
 * Keyboard, touch and screen readers, and what a newcomer sees: every screen of the web register, at
 * 1024×768 and 1280×800, is screenshot (test-results/a11y/), checked by axe-core for WCAG 2.1 A/AA violations (zero
 * allowed) and by bounding boxes for overlapping or clipped controls, cut placeholders, touch targets under 44×44
 * CSS px and one h1 (the customer dialogs of the cart and Returns' find by customer included); on some screens also
 * text sticking out of its box (the item dialog's options, a device's long port path) and fields with the browser's
 * own look (Returns' sale, the receipt's e-mail field). Then a whole cash sale of two items by keyboard alone, counting the keys (≤ 12), and focus that
 * never falls to the page body after removing a line, a quantity of 0, Clear, or a declined card on the pay page.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDeviceHost } from '../support/device-host.ts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { axeViolations, layoutProblems, nativeLookingFields, overflowingBoxes } from './support/a11y.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';

const VIEWPORTS = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
] as const;
const SHOTS = 'test-results/a11y';

describe('every screen: axe-core WCAG 2.1 AA, layout and touch targets', () => {
  let suite: BrowserSuite | undefined;
  let page: Page;
  const found: Record<string, string[]> = {};
  const api = staffApi(() => suite!.server, { 'x-register-schema-version': '1' });

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1024, height: 768 });
    page = suite.page;
  }, 120_000);
  afterAll(async () => {
    await suite?.close();
  });

  /**
   * Screenshots the screen and records its axe violations and layout problems under `name`, with what `more` finds
   * on it (a screen's own checks: text sticking out of its box, fields with the browser's look).
   */
  async function check(name: string, viewport: { width: number; height: number }, more?: () => Promise<string[]>): Promise<void> {
    await page.evaluate(() => document.fonts.ready);
    const key = `${viewport.width}x${viewport.height} ${name}`;
    await page.screenshot({ path: `${SHOTS}/${viewport.width}x${viewport.height}/${name}.png` });
    const problems = [...(await axeViolations(page)), ...(await layoutProblems(page)), ...((await more?.()) ?? [])];
    if (problems.length > 0) found[key] = problems;
  }

  const goTo = (view: string) => new RegisterPage(page).goTo(view);

  it('has no violation on any screen at 1024×768 and 1280×800', { timeout: 600_000 }, async () => {
    const server = suite!.server;
    const customer = await api<{ id: string }>('/api/pos/customers', {
      body: { givenName: 'Accessible', familyName: 'Customer', phone: '+14155550111', email: 'a11y@example.com' },
    });
    // A sale of theirs (through the API), listed when Returns finds the sale by customer.
    const item = server.catalog.items.find((i) => i.modifierLists.length === 0 && i.variations.length === 1)!;
    await api('/api/pos/orders', {
      body: { lineItems: [{ catalogItemId: item.id, variationId: item.variations[0]!.id, quantity: 1 }], customerId: customer.id },
    });
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const simple = page.locator('.item-tile:not(.item-has-options)');
    for (const viewport of VIEWPORTS) {
      mkdirSync(`${SHOTS}/${viewport.width}x${viewport.height}`, { recursive: true });
      await page.setViewportSize(viewport);
      await register.openRegister();
      await register.waitForCatalog();
      await check('register-empty', viewport);

      await simple.nth(0).click();
      await simple.nth(1).click();
      await check('register-cart', viewport);

      const withOptions = page.locator('.item-tile.item-has-options').first();
      if ((await withOptions.count()) > 0) {
        await withOptions.click();
        await page.getByRole('dialog').waitFor();
        // Each option's name and price inside its box ("Medium +$0.50" stuck out by 6 px).
        await check('item-dialog', viewport, () => overflowingBoxes(page, '.choice'));
        await page.keyboard.press('Escape');
      }

      const tender = await register.charge();
      await check('tender-cash', viewport);
      await tender.tender('abc');
      await check('tender-cash-error', viewport);
      await page.getByTestId('tender-method-card').click();
      await check('tender-card', viewport);
      await page.getByTestId('tender-method-cash').click();
      await tender.exact();
      await tender.complete();
      // The e-mail / phone field of "Send the receipt" has the register's look, not the browser's.
      await check('receipt', viewport, () => nativeLookingFields(page, '.send-receipt'));
      const receiptNumber = (await page.getByTestId('receipt-number').textContent()) ?? '';
      await page.getByRole('button', { name: /new sale/i }).click();
      await register.scanInput.waitFor();

      await register.scanInput.press('?');
      await page.getByTestId('shortcut-help').waitFor();
      await check('shortcut-help', viewport);
      await page.keyboard.press('Escape');

      // The customer at the counter: the search with a result, the new-customer form with a field error,
      // the cart with a customer attached and their history.
      await register.scanInput.focus();
      await page.keyboard.press('F3');
      await page.getByTestId('customer-search').fill('Accessible');
      await page.getByTestId('customer-row').first().waitFor();
      await check('customer-search', viewport);
      await page.getByTestId('customer-new').click();
      await page.getByTestId('customer-phone').fill('12');
      await page.getByTestId('customer-save').click();
      await page.getByTestId('customer-form').getByRole('alert').waitFor();
      await check('customer-form-error', viewport);
      await page.keyboard.press('Escape');
      await page.getByTestId('customer-open').click();
      await page.getByTestId('customer-search').fill('Accessible');
      await page.getByTestId('customer-row').first().click();
      await page.getByTestId('customer-attached').waitFor();
      await check('register-customer', viewport);
      await page.getByTestId('customer-history-open').click();
      await page.getByRole('dialog', { name: /^History/ }).waitFor();
      await page.getByTestId('customer-history-empty').or(page.getByTestId('customer-history')).first().waitFor();
      await check('customer-history', viewport);
      await page.keyboard.press('Escape');
      await page.getByTestId('customer-remove').click();

      await register.goTo('Sales');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await check('sales', viewport);
      // Returns: the screen, and finding the sale by customer (the search, then the customer's sales).
      await register.goTo('Returns');
      await page.getByTestId('returns-view').waitFor();
      await check('returns', viewport);
      await page.getByTestId('return-by-customer').click();
      await page.getByTestId('customer-search').fill('Accessible');
      await page.getByTestId('customer-row').first().waitFor();
      await check('returns-customer-search', viewport);
      await page.getByTestId('customer-row').first().click();
      await page.getByTestId('return-customer-sales-step').waitFor();
      await page.getByTestId('return-customer-sale').first().waitFor();
      await check('returns-customer-sales', viewport);
      await page.keyboard.press('Escape');
      // This register's cash sale found by its receipt number: its lines with their quantity fields, in the register's look.
      await page.getByTestId('return-find').fill(receiptNumber);
      await page.getByTestId('return-find').press('Enter');
      await page.getByTestId('return-sale').getByTestId('return-qty').first().waitFor();
      await check('returns-sale', viewport, () => nativeLookingFields(page, '[data-testid="returns-view"]'));
      await register.goTo('Shift');
      await page.getByRole('heading', { level: 1, name: 'Shift' }).waitFor();
      await check('shift', viewport);
      await register.goTo('Messages');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await check('messages', viewport);
      await register.goTo('Devices');
      await page.getByTestId('devices-view').waitFor();
      await check('devices', viewport);

      if (viewport === VIEWPORTS[0]) {
        // The register's sign-in opens the back office for the same person; the PIN screen shows after a sign-out.
        await register.goTo('Back office');
        await page.getByTestId('backoffice').waitFor();
        await check('backoffice-signed-in', viewport);
      }
      const bo = await BackOfficePage.open(page, server.ownerPin);
      const sections = [
        'Catalog',
        'Import & export',
        'Orders',
        'Customers',
        'Pay requests',
        'Invoices',
        'Reports',
        'Closeout',
        'Floor plan',
        'Registers',
        'Staff',
        'Payments',
        'Apps',
        'Settings',
      ];
      for (const section of sections) {
        await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: section, exact: true }).click();
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await page.waitForTimeout(300);
        await check(`backoffice-${section.toLowerCase().replace(/[^a-z]+/g, '-')}`, viewport);
        if (section === 'Apps') {
          // The app directory (the demo lists an example app) and the install dialog with its scope checkboxes.
          const install = page.getByTestId('app-install').first();
          if ((await install.count()) > 0) {
            await install.click();
            await page.getByTestId('app-install-dialog').waitFor();
            await check('app-install-dialog', viewport);
            await page.keyboard.press('Escape');
          }
        }
      }
      const catalog = await bo.catalog();
      const editor = await catalog.newItem();
      await editor.addModifierList({ name: 'Milk', min: '0', max: '1' });
      await check('item-editor', viewport);
      await editor.close();

      const pr = await api<{ url: string }>('/api/pos/pay-requests', { body: { amountCents: 1250, phone: '+14155550123' } });
      const payPage = await page.context().newPage();
      await payPage.setViewportSize(viewport);
      const previous = page;
      page = payPage;
      await page.goto(pr.url);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await check('pay-page', viewport);
      await page.getByLabel('Card number').fill('1234');
      await page.locator('#panel-card button[type=submit]').click();
      await check('pay-page-error', viewport);
      await payPage.close();
      page = previous;
    }
    expect(found).toEqual({});
  });

  it('has no violation in Services → Apps with an app installed, nor with the app open in its frame', { timeout: 180_000 }, async () => {
    await goTo('Services');
    const signIn = page.getByTestId('services-sign-in');
    await page.getByTestId('services').or(signIn).first().waitFor();
    if (await signIn.isVisible()) {
      await signIn.getByLabel('PIN').fill(suite!.server.ownerPin);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByTestId('services').getByRole('tab', { name: 'Apps' }).click();
    await page.getByTestId('app-install').first().click();
    await page.getByTestId('app-install-approve').click();
    const open = page.getByTestId('installed-app-open').first();
    await open.waitFor();
    for (const viewport of VIEWPORTS) {
      mkdirSync(`${SHOTS}/${viewport.width}x${viewport.height}`, { recursive: true });
      await page.setViewportSize(viewport);
      await check('services-apps-installed', viewport);
      await open.click();
      await page.frameLocator('[data-testid="app-frame"]').getByTestId('example-item').first().waitFor();
      await check('app-frame', viewport);
      await page.getByTestId('app-frame-close').click();
    }
    expect(found).toEqual({});
  });

  it('has no violation in the Devices settings form (bridge connected, a serial device with its drop-downs)', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a11y-bridge-'));
    const bridge = await startDeviceHost({ dataDir: dir, port: 0, allowedOrigins: [suite!.server.baseUrl], simulators: 'never' });
    try {
      await goTo('Devices');
      await page.getByTestId('bridge-url').fill(bridge.url);
      await page.getByTestId('bridge-token').fill(bridge.token);
      await page.getByTestId('bridge-connect').click();
      await page.getByTestId('device-settings-printer').waitFor({ timeout: 30_000 });
      await page.getByTestId('device-mode-printer').selectOption('serial');
      await page.getByTestId('device-mode-terminal').selectOption('serial');
      await page.getByTestId('device-baud-printer').waitFor();
      // A printer on a long /dev/serial/by-id/… path (no spaces): saved, the card names it, and the path wraps inside it.
      const longPath = '/dev/serial/by-id/usb-Seiko_Epson_Corporation_TM-T88VI_Receipt_Printer_5A4E3F2D1C0B-if00-port0';
      await page.getByTestId('device-port-printer').fill(longPath);
      await page.getByTestId('save-devices').click();
      await page.getByTestId('device-settings-printer').locator('p', { hasText: longPath }).waitFor({ timeout: 30_000 });
      for (const viewport of VIEWPORTS) {
        mkdirSync(`${SHOTS}/${viewport.width}x${viewport.height}`, { recursive: true });
        await page.setViewportSize(viewport);
        // Scrolled to the device cards: the overlap checks look at what is on screen.
        await page.getByTestId('device-settings-printer').evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await check('devices-settings', viewport, () => overflowingBoxes(page, '.device-card, .device-card p'));
      }
      // The drop-downs are styled like the other fields (not the browser's default look).
      expect(await page.getByTestId('device-baud-printer').evaluate((el) => getComputedStyle(el).appearance)).toBe('none');
      expect(found).toEqual({});
    } finally {
      await bridge.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
