/**
 * Back office → Messages in the built register (Debian Chromium) against the real server in demo mode's messaging: a
 * pay request texted from the back office shows its text's state on its row as the local SMS provider delivers it;
 * a receipt e-mailed through the local mail server; both listed in Messages with their state (a state filter with no
 * match shows its empty state), the tabs driven by the keyboard; the Demo outbox opens the e-mail (its HTML in a
 * frame sandboxed with no script) and the text.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage, PayRequestsSection } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, openPage, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 20_000;

describe('back office messages and the demo outbox', () => {
  let server: ServerUnderTest | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  const api = staffApi(() => server!);

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest({ demoOutbox: true });
    browser = await launchChromium();
    ({ context, page } = await openPage(browser, { width: 1400, height: 900 }));
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await BackOfficePage.open(page, server.ownerPin);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it(
    'shows a texted pay request delivered on its row, lists the messages by state, and opens them in the Demo outbox',
    { timeout: 120_000 },
    async () => {
      const bo = new BackOfficePage(page);
      await bo.payRequests();
      const section = new PayRequestsSection(page);
      await section.create({ amount: '8.40', phone: '+14155550142', memo: 'Cake deposit' });
      await page.getByTestId('pay-request-notice').waitFor({ timeout: TIMEOUT });
      const row = section.rows.first();
      // The state follows the text as the local provider takes and delivers it.
      await row.locator('[data-testid="latest-message-state"][data-state="delivered"]').waitFor({ timeout: TIMEOUT });
      await expect(row.getByTestId('latest-message').innerText()).resolves.toMatch(/Text to \+14155550142: Delivered/);

      // A receipt e-mailed (through the API): the local mail server receives it.
      const order = await api<{ id: string }>('/api/pos/orders', {
        body: { lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }] },
      });
      await api(`/api/pos/orders/${order.id}/receipts`, { body: { channel: 'email', to: 'ada@example.com' } });

      await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Messages' }).click();
      const view = page.getByTestId('messages-view');
      const emailRow = view.locator('[data-testid="message-row"][data-state="sent"]');
      // Sent in the background: Refresh until the worker has sent it.
      for (let i = 0; i < 40 && !(await emailRow.count()); i++) {
        await view.getByRole('button', { name: 'Refresh' }).click();
        await page.waitForTimeout(250);
      }
      await expect(emailRow.first().innerText()).resolves.toMatch(/ada@example\.com[\s\S]*Receipt[\s\S]*Sent/);
      await view.getByTestId('messages-state-filter').selectOption('bounced');
      await expect(view.getByTestId('messages-empty').innerText()).resolves.toBe('No e-mail bounced.');

      // Keyboard: the arrow key moves to the Texts tab.
      await view.getByTestId('messages-tab-email').focus();
      await page.keyboard.press('ArrowRight');
      await expect(view.getByTestId('messages-tab-sms').getAttribute('aria-selected')).resolves.toBe('true');
      await view.locator('[data-testid="message-row"][data-state="delivered"]').waitFor({ timeout: TIMEOUT });
      await expect(view.getByTestId('message-row').first().innerText()).resolves.toMatch(/\+14155550142[\s\S]*Pay request[\s\S]*Delivered/);

      await view.getByTestId('messages-tab-blocked').click();
      await view.getByTestId('suppressions-empty').waitFor({ timeout: TIMEOUT });

      // The Demo outbox: the e-mail and the text, as the local servers received them.
      await view.getByTestId('messages-tab-demo').click();
      const mailRow = view.locator('[data-testid="demo-outbox-row"][data-channel="email"]');
      await view.getByTestId('demo-outbox-row').first().waitFor({ timeout: TIMEOUT });
      for (let i = 0; i < 40 && !(await mailRow.count()); i++) {
        await view.getByRole('button', { name: 'Refresh' }).click();
        await page.waitForTimeout(250);
      }
      await mailRow.getByTestId('demo-outbox-open').click();
      const mail = view.getByTestId('demo-mail');
      await expect(mail.getByTestId('demo-mail-subject').innerText()).resolves.toMatch(/^Your receipt /);
      const frame = mail.getByTestId('demo-mail-html');
      await expect(frame.getAttribute('sandbox')).resolves.toBe('');
      await expect(page.frameLocator('[data-testid="demo-mail-html"]').locator('body').innerText()).resolves.toMatch(/Thank you/i);
      await mail.getByText('Headers').click();
      await expect(mail.getByTestId('demo-mail-headers').innerText()).resolves.toMatch(/Message-ID/i);

      await view.locator('[data-testid="demo-outbox-row"][data-channel="sms"]').getByTestId('demo-outbox-open').click();
      await expect(view.getByTestId('demo-text-body').innerText()).resolves.toMatch(/payment request for \$8\.40 \(Cake deposit\)/);
    },
  );

  it('shows on the register the receipt text as queued, then delivered — never sent before it was', { timeout: 120_000 }, async () => {
    const register = new RegisterPage(page);
    await register.goTo('Register');
    await register.waitForCatalog();
    const item = server!.catalog.items.find(
      (i) => i.modifierLists.length === 0 && i.variations.length === 1 && (i.variations[0]?.priceCents ?? 0) > 0,
    )!;
    await register.tapItem(item.id);
    await register.cartLine(item.name).waitFor();
    const tender = await register.charge();
    await tender.exact();
    await tender.complete();
    // Synced: the marker's own state ("Not yet synced" holds the word too).
    await page.locator('[data-testid="receipt-sync"].sync-marker-synced').waitFor({ timeout: 30_000 });
    await page.getByTestId('receipt-channel-sms').check();
    await page.getByTestId('receipt-to').fill('+1 415 555 0177');
    await page.getByTestId('receipt-send').click();
    const status = page.getByTestId('receipt-send-status');
    const seen: string[] = [];
    await expect
      .poll(
        async () => {
          const text = (await status.textContent()) ?? '';
          if (seen.at(-1) !== text) seen.push(text);
          return text;
        },
        { timeout: TIMEOUT, interval: 50 },
      )
      .toBe('Receipt to +14155550177: delivered');
    // Every state shown was one the outbox held, in order.
    const order = ['queued', 'sending', 'sent', 'delivered'];
    const states = seen.filter((t) => t.startsWith('Receipt to')).map((t) => t.replace('Receipt to +14155550177: ', ''));
    expect(states.every((st) => order.includes(st))).toBe(true);
    expect(states).toEqual([...states].sort((x, y) => order.indexOf(x) - order.indexOf(y)));
  });
});
