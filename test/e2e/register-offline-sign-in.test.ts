/**
 * Staff start selling during an outage: a cashier who signed in on this register online before can sign in on it while
 * the server cannot be reached (a shift change during an outage does not stop the till), the sale is theirs on the
 * server once it syncs, and a staff member disabled in the meantime is signed out — and no longer offered — as soon as
 * the register is online again. Also: right after the register's sign-in the back office opens without asking the PIN
 * again.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium; the outage is the browser
 * context going offline.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

describe('register staff sign-in during an outage', () => {
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

  it('the back office opens right after the register sign-in, without the PIN again', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await page.goto(server.baseUrl);
    const register = new RegisterPage(page);
    await register.signIn(server.ownerPin, 'Demo Owner');
    await register.goTo('Back office');
    const backOffice = new BackOfficePage(page);
    await backOffice.root.or(page.getByTestId('staff-sign-in')).first().waitFor({ timeout: TIMEOUT });
    expect(await page.getByTestId('staff-sign-in').count()).toBe(0);
    await backOffice.root.waitFor({ timeout: TIMEOUT });
    // After a reload (the staff token is memory only) it asks again, naming who is signed in and choosing them.
    await page.reload();
    await register.waitForCatalog();
    await register.goTo('Back office');
    const again = page.getByTestId('staff-sign-in');
    await again.waitFor({ timeout: TIMEOUT });
    await expect.poll(() => again.textContent(), { timeout: TIMEOUT }).toContain('Demo Owner is signed in on this register');
    const owner = (await api<{ data: { id: string; name: string }[] }>('/api/pos/staff')).data.find((s) => s.name === 'Demo Owner')!;
    await expect.poll(() => again.getByLabel('Staff member').inputValue(), { timeout: TIMEOUT }).toBe(owner.id);
    await context.close();
  });

  it(
    'outage: sign out, another cashier signs in offline and sells; disabled meanwhile, they are signed out once online',
    { timeout: 180_000 },
    async () => {
      const cara = await api<{ id: string }>('/api/pos/staff', { body: { name: 'Cara Cashier', role: 'cashier', pin: '2468' } });
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      page.on('pageerror', (err) => console.error('[page error]', err));
      await page.goto(server.baseUrl);
      const register = new RegisterPage(page);

      // Cara signs in online once on this register (earlier in the week), then the owner takes over.
      await register.signIn('2468', 'Cara Cashier');
      await register.signOut();
      await register.signIn(server.ownerPin, 'Demo Owner');
      await register.waitForCatalog();

      // The outage: the owner signs out; the sign-in screen offers who signed in here recently, checked on the register.
      await context.setOffline(true);
      await register.waitForBadge('offline');
      await register.signOut();
      const screen = register.signInScreen;
      await screen.getByTestId('offline-sign-in-note').waitFor({ timeout: TIMEOUT });
      await screen.getByRole('option', { name: /Cara Cashier/ }).waitFor({ state: 'attached', timeout: TIMEOUT });
      await screen.getByLabel('Staff member').selectOption({ label: 'Cara Cashier (cashier)' });
      await screen.getByLabel('PIN').fill('1111');
      await screen.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => screen.getByRole('alert').textContent(), { timeout: TIMEOUT }).toMatch(/Wrong PIN \(4 tries left/);
      expect(await register.scanInput.count()).toBe(0);
      await register.signIn('2468', 'Cara Cashier');
      await register.waitForCatalog();
      expect(await page.getByTestId('signed-in-staff').getAttribute('data-staff-id')).toBe(cara.id);
      // Nothing secret in the register's storage: no PIN, no staff token.
      const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
      expect(stored).not.toContain('2468');
      expect(stored).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);

      // Cara sells offline.
      await page.locator('.item-tile:not(.item-has-options)').first().click();
      const tender = await register.charge();
      await tender.exact();
      const receipt = await tender.complete();
      const orderId = await receipt.orderId();
      await receipt.newSale();
      expect(await register.unsynced()).toBeGreaterThan(0); // the sale (and the shift it opened) wait for the server

      // Meanwhile the owner disables Cara in the back office. Back online: the sale is Cara's, and she is signed out.
      const patched = await fetch(`${server.baseUrl}/api/pos/staff/${cara.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ disabled: true }),
      });
      expect(patched.status).toBe(200);
      await context.setOffline(false);
      await register.waitForUnsynced(0, 60_000);
      expect((await api<{ staffId?: string }>(`/api/pos/orders/${orderId}`)).staffId).toBe(cara.id);
      await screen.waitFor({ timeout: TIMEOUT });
      expect(await page.getByTestId('signed-in-staff').count()).toBe(0);
      await screen.getByRole('option', { name: /Demo Owner/ }).waitFor({ state: 'attached', timeout: TIMEOUT });
      expect(await screen.getByRole('option', { name: /Cara Cashier/ }).count()).toBe(0);

      // Offline again: Cara is not offered, and the owner (verified here) still is.
      await context.setOffline(true);
      await page.reload();
      await screen.getByTestId('offline-sign-in-note').waitFor({ timeout: TIMEOUT });
      await screen.getByRole('option', { name: /Demo Owner/ }).waitFor({ state: 'attached', timeout: TIMEOUT });
      expect(await screen.getByRole('option', { name: /Cara Cashier/ }).count()).toBe(0);
      await context.setOffline(false);
      await context.close();
    },
  );
});
