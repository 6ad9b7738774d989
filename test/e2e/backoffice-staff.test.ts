/**
 * Roles in the back office: the owner adds a cashier with a PIN in Back office → Staff; the cashier signs in
 * with that PIN and the server refuses them the staff list and the settings (403 `role_not_allowed`, shown as the
 * error). Real server + built register in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';

const TIMEOUT = 30_000;

describe('back office staff and roles', () => {
  let suite: BrowserSuite;
  beforeAll(async () => {
    suite = await startBrowserSuite();
  });
  afterAll(async () => {
    await suite?.close();
  });

  it('the owner adds a cashier with a PIN; the cashier signs in and is refused what a cashier may not do', async () => {
    const { page, server } = suite;
    await page.goto(server.baseUrl);
    await new RegisterPage(page).signInIfAsked(server.ownerPin);
    await new RegisterPage(page).waitForCatalog();
    await BackOfficePage.open(page, server.ownerPin);
    const nav = page.getByRole('navigation', { name: 'Back office' });
    await nav.getByRole('button', { name: 'Staff' }).click();
    const staff = page.getByTestId('staff');
    await staff.getByTestId('staff-row').first().waitFor({ timeout: TIMEOUT });
    const form = staff.getByRole('form', { name: 'Add a staff member' });
    await form.getByLabel('Name', { exact: true }).fill('Cara Cashier');
    await form.getByLabel('PIN', { exact: true }).fill('1357');
    await form.getByRole('button', { name: 'Add staff member' }).click();
    const row = staff.getByTestId('staff-row').filter({ hasText: 'Cara Cashier' });
    await row.waitFor({ timeout: TIMEOUT });
    await expect.poll(() => row.textContent(), { timeout: TIMEOUT }).toContain('Set');
    expect(await row.getByRole('combobox').inputValue()).toBe('cashier');

    // The cashier signs in with the new PIN: the staff list and the settings are a manager's and an owner's.
    await nav.getByRole('button', { name: 'Sign out' }).click();
    const signIn = page.getByTestId('staff-sign-in');
    await signIn.waitFor({ timeout: TIMEOUT });
    await expect.poll(() => signIn.getByRole('option', { name: 'Cara Cashier (cashier)' }).count(), { timeout: TIMEOUT }).toBe(1);
    await signIn.getByLabel('Staff member').selectOption({ label: 'Cara Cashier (cashier)' });
    await signIn.getByLabel('PIN').fill('1357');
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await nav.getByRole('button', { name: 'Staff' }).click();
    await expect
      .poll(() => page.getByTestId('backoffice').getByRole('alert').first().textContent(), { timeout: TIMEOUT })
      .toContain('manager or owner');
    await nav.getByRole('button', { name: 'Settings' }).click();
    await expect
      .poll(() => page.getByTestId('backoffice').getByRole('alert').first().textContent(), { timeout: TIMEOUT })
      .toContain('signed in as cashier');
  });
});
