/**
 * Manager approval in the back office: a cashier signed in on the register refunds an order above the store's
 * cashier refund limit; the refund dialog asks for a manager's PIN, the manager types it, the refund goes through and
 * records who approved (checked through the API). Real server + built register in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderView } from '../../core/index.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';

const TIMEOUT = 30_000;

describe('back office refund approval', () => {
  let suite: BrowserSuite;
  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await suite?.close();
  });

  it("a cashier's refund above the limit asks for a manager's PIN, then goes through with the approver recorded", { timeout: 180_000 }, async () => {
    const { page, server } = suite;
    const api = staffApi(() => server);
    await api('/api/pos/staff', { body: { name: 'Cara Cashier', role: 'cashier', pin: '1357' } });
    const manager = await api<{ id: string }>('/api/pos/staff', { body: { name: 'Mona Manager', role: 'manager', pin: '8642' } });
    const created = await api<OrderView>('/api/pos/orders', {
      body: { lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 30 }] },
    });
    const paid = await api<OrderView>(`/api/pos/orders/${created.id}/payments`, {
      body: { tenders: [{ method: 'cash', amountCents: created.totalCents }] },
    });
    expect(paid.totalCents).toBeGreaterThan(60_00);

    await page.goto(server.baseUrl);
    // The cashier signs in on the register; the back office opens for her (the register's sign-in is its sign-in too).
    const register = new RegisterPage(page);
    await register.signInScreen.or(register.scanInput).first().waitFor({ timeout: TIMEOUT });
    if (await register.signInScreen.isVisible()) await register.signIn('1357', 'Cara Cashier');
    await register.waitForCatalog();
    await register.goTo('Back office');
    const signIn = page.getByTestId('staff-sign-in');
    await page.getByTestId('backoffice').or(signIn).first().waitFor({ timeout: TIMEOUT });
    if (await signIn.isVisible()) {
      await expect.poll(() => signIn.getByRole('option', { name: 'Cara Cashier (cashier)' }).count(), { timeout: TIMEOUT }).toBe(1);
      await signIn.getByLabel('Staff member').selectOption({ label: 'Cara Cashier (cashier)' });
      await signIn.getByLabel('PIN').fill('1357');
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    const orders = await new BackOfficePage(page).orders();
    const dialog = await orders.open(paid.id);

    await dialog.refundAmount('60.00');
    const prompt = dialog.root.getByTestId('refund-approval');
    await prompt.waitFor({ timeout: TIMEOUT });
    expect((await api<OrderView>(`/api/pos/orders/${paid.id}`)).refunds).toEqual([]);
    await expect
      .poll(() => prompt.getByTestId('refund-approval-manager').locator('option').allTextContents(), { timeout: TIMEOUT })
      .toContain('Mona Manager');
    await prompt.getByTestId('refund-approval-manager').selectOption({ label: 'Mona Manager' });
    await prompt.getByTestId('refund-approval-pin').fill('0000');
    await prompt.getByTestId('refund-approval-submit').click();
    await expect.poll(() => prompt.getByTestId('refund-approval-error').textContent(), { timeout: TIMEOUT }).toBe('Wrong PIN.');
    await prompt.getByTestId('refund-approval-pin').fill('8642');
    await prompt.getByTestId('refund-approval-submit').click();
    await dialog.waitForState('partially_refunded');
    await expect.poll(() => dialog.refundRows.count(), { timeout: TIMEOUT }).toBe(1);
    await expect(dialog.refundRows.first().textContent()).resolves.toContain(manager.id);
    await expect(prompt.count()).resolves.toBe(0);
    const after = await api<OrderView>(`/api/pos/orders/${paid.id}`);
    expect(after.refunds).toHaveLength(1);
    expect(after.refunds![0]).toMatchObject({ amountCents: 60_00, approvedBy: manager.id });
  });
});
