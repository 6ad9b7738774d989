/**
 * Sign-up in the browser: on a server without demo mode, a newcomer creates a store from the register's first screen
 * (Create a store → the form → the server's sign-up), the register pairs itself with the new store, the owner signs in
 * with the PIN just chosen, and the empty catalog says so. A bad field is shown under the field, nothing is created.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

describe('creating a store from an unpaired register', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest({ demoSelfPair: false });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('signs up, pairs this register with the new store and signs the owner in with the chosen PIN', async () => {
    await page.goto(server.baseUrl);
    await page.getByTestId('pairing-form').getByRole('button', { name: 'Create a store' }).click();
    const form = page.getByTestId('sign-up-form');
    await form.getByLabel('Store name').fill('Maple Hardware');
    await form.getByLabel('Country').selectOption('CA');
    expect(await form.getByLabel('Currency (ISO 4217)').inputValue()).toBe('CAD');
    await form.getByLabel('Time zone').selectOption('America/Toronto');
    await form.getByLabel('Your name').fill('Morgan Maple');
    await form.getByLabel('Your e-mail').fill('morgan@maple.example');
    // A PIN too short: the server's reason under the field, no store made.
    await form.getByLabel('Your PIN (4–8 digits)').fill('12');
    await form.getByRole('button', { name: 'Create the store' }).click();
    await expect.poll(() => form.locator('.field-error').first().textContent(), { timeout: TIMEOUT }).toContain('4 to 8 digits');
    expect(await form.getByLabel('Your PIN (4–8 digits)').getAttribute('aria-invalid')).toBe('true');
    const session = async () =>
      JSON.parse((await page.evaluate(() => localStorage.getItem('register.session.v1'))) ?? 'null') as { registerToken: string } | null;
    expect(await session()).toBeNull();

    await form.getByLabel('Your PIN (4–8 digits)').fill('246813');
    await form.getByRole('button', { name: 'Create the store' }).click();
    const register = new RegisterPage(page);
    await register.signInIfAsked('246813');
    await page.getByText('Morgan Maple').first().waitFor({ timeout: TIMEOUT });
    const paired = await session();
    expect(paired?.registerToken).toMatch(/^rrc_/);
    // The register belongs to the new store: its staff list is the new owner alone (not the demo store's).
    const staff = (await (
      await fetch(`${server.baseUrl}/api/register/staff`, { headers: { authorization: `Bearer ${paired!.registerToken}` } })
    ).json()) as { data: { name: string }[] };
    expect(staff.data.map((s) => s.name)).toEqual(['Morgan Maple']);
    // The owner's staff token is never kept by the register.
    const everything = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
  });
});
