/**
 * Back office → Payments in the built register (Debian Chromium) against the real server, in the demo store: the
 * payout button is disabled with the reason before anyone tries (money movement is off in the demo store), the eight
 * rails are listed, and a rail marked down in the table is down for the API's routing.
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
    // Nothing left the store.
    await expect(api('/api/pos/payouts')).resolves.toEqual({ data: [], nextCursor: null });
  });
});
