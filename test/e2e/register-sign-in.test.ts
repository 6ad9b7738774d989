/**
 * Staff sign in on the register before selling (a PIN per shift; a sale
 * records which staff member made it): the register shows a sign-in screen instead of the catalog until someone signs
 * in, refuses a wrong PIN, takes the PIN on the keypad (44×44 px keys), shows who is signed in in the header, keeps
 * them across a reload, records them as the sale's `staffId` on the server, and asks again after Sign out.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

describe('register staff sign-in', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  const api = staffApi(() => server);
  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('refuses to sell until a staff member signs in; the sale names them; Sign out asks again', { timeout: 120_000 }, async () => {
    const cashier = await api<{ id: string }>('/api/pos/staff', { body: { name: 'Cara Cashier', role: 'cashier', pin: '2468' } });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await page.goto(server.baseUrl);
    const register = new RegisterPage(page);

    // Nobody signed in: the sign-in screen stands where the register sells; no item, no scan input, no Charge.
    await register.signInScreen.waitFor({ timeout: TIMEOUT });
    expect(await register.scanInput.count()).toBe(0);
    expect(await page.locator('.item-tile').count()).toBe(0);
    expect(await page.getByTestId('charge').count()).toBe(0);
    expect(await page.getByTestId('signed-in-staff').count()).toBe(0);

    // The cashier is chosen from the store's staff list; a wrong PIN is refused and signs nobody in.
    const screen = register.signInScreen;
    await screen.getByRole('option', { name: /Cara Cashier/ }).waitFor({ state: 'attached', timeout: TIMEOUT });
    await screen.getByLabel('Staff member').selectOption({ label: 'Cara Cashier (cashier)' });
    await screen.getByLabel('PIN').fill('1111');
    await screen.getByRole('button', { name: 'Sign in' }).click();
    await screen.getByRole('alert').waitFor({ timeout: TIMEOUT });
    expect(await register.scanInput.count()).toBe(0);

    // The right PIN typed on the touch keypad, whose keys are at least 44×44 px.
    const keypad = screen.getByRole('group', { name: 'Keypad' });
    for (const key of await keypad.getByRole('button').all()) {
      const box = (await key.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(44);
      expect(box.height).toBeGreaterThanOrEqual(44);
    }
    for (const digit of '2468') await keypad.getByRole('button', { name: `Digit ${digit}` }).click();
    await screen.getByRole('button', { name: 'Sign in' }).click();
    await register.waitForCatalog();
    const header = page.getByTestId('signed-in-staff');
    expect(await header.textContent()).toContain('Cara Cashier');
    expect(await header.getAttribute('data-staff-id')).toBe(cashier.id);

    // A reload keeps the cashier signed in (nothing secret kept: no PIN, no staff token in the register's storage).
    await page.reload();
    await register.waitForCatalog();
    expect(await page.getByTestId('signed-in-staff').getAttribute('data-staff-id')).toBe(cashier.id);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(stored).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    expect(stored).not.toContain('2468');

    // A sale made now reaches the server naming the cashier.
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const orderId = await receipt.orderId();
    await receipt.newSale();
    await expect
      .poll(
        async () =>
          (await fetch(`${server.baseUrl}/api/pos/orders/${orderId}`, { headers: { authorization: `Bearer ${server.staffToken}` } })).status,
        { timeout: TIMEOUT },
      )
      .toBe(200);
    expect((await api<{ staffId?: string }>(`/api/pos/orders/${orderId}`)).staffId).toBe(cashier.id);

    const signOutBox = (await page.getByTestId('sign-out').boundingBox())!;
    expect(Math.min(signOutBox.width, signOutBox.height)).toBeGreaterThanOrEqual(44);
    // Sign out: the register asks for a PIN again, and a reload does not bring the cashier back.
    await register.signOut();
    expect(await register.scanInput.count()).toBe(0);
    expect(await page.getByTestId('signed-in-staff').count()).toBe(0);
    await page.reload();
    await register.signInScreen.waitFor({ timeout: TIMEOUT });
    expect(await register.scanInput.count()).toBe(0);
    await context.close();
  });
});
