/**
 * Back office → Payments in the built register (Debian Chromium) against the real server, in the demo store: the
 * payout button is disabled with the reason before anyone tries (money movement is off in the demo store), the eight
 * rails are listed, a rail marked down in the table is down for the API's routing, and a rail's fee is checked in the
 * page before it is saved.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

describe('back office payments', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let page: Page;

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1400, height: 900 });
    ({ server, page } = suite);
  });

  afterAll(() => suite?.close());

  const api = async (path: string) => (await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${server.staffToken}` } })).json();

  it('says money movement is off in the demo store before anyone tries; rails are set here', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const payments = await backOffice.payments();
    await expect(payments.payoutButton.isDisabled()).resolves.toBe(true);
    await expect(payments.payoutDisabledReason.textContent()).resolves.toContain('Money movement is disabled in the demo store');
    await expect(payments.payoutButton.getAttribute('aria-describedby')).resolves.toBe('payout-disabled-reason');
    await expect.poll(() => payments.rails.count()).toBe(8);

    await payments.rail('ach').getByLabel('ACH bank transfer health').selectOption('down');
    await expect.poll(async () => (await api('/api/pos/rails')).data.find((r: { rail: string }) => r.rail === 'ach').status).toBe('down');
    await expect.poll(async () => (await api('/api/pos/rails/route?method=bank&amountCents=50000')).chosen).toBe('instant_bank');
    await page.screenshot({ path: '/tmp/backoffice-payments.png' });

    /* A fee percent that is not one is named on the row with the input marked, and no PATCH leaves the page; a good one is saved. */
    const ach = payments.rail('ach');
    const achFee = async () => (await api('/api/pos/rails')).data.find((r: { rail: string }) => r.rail === 'ach').fee;
    const before = await achFee();
    const percent = ach.getByLabel('ACH bank transfer fee percent');
    await percent.fill('lots');
    await ach.getByRole('button', { name: 'Save fee' }).click();
    await expect(ach.getByRole('alert').textContent()).resolves.toContain('must be a percentage');
    await expect(percent.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(achFee()).resolves.toEqual(before);
    await percent.fill('1.5');
    await ach.getByRole('button', { name: 'Save fee' }).click();
    await expect.poll(async () => (await achFee()).basisPoints).toBe(150);
    await expect.poll(() => percent.getAttribute('aria-invalid')).toBe('false');
    // Nothing left the store.
    await expect(api('/api/pos/payouts')).resolves.toEqual({ data: [], nextCursor: null });
  });
});
