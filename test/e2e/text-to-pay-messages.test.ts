/**
 * Text-to-Pay with real messages, end to end in Chromium: the server's SMS and e-mail workers send through demo mode's
 * local SMS provider and local mail server (dev/demo-outbox.ts, as `npm start` wires them). A cashier texts a pay link
 * from the back office; the text arrives at the provider; the customer opens its link, gives an e-mail address for the
 * receipt and pays with the sandbox test card; the receipt arrives at the mail server with the right total. The
 * customer then replies STOP through the provider (signed, as the carrier posts it): the store's confirmation goes out
 * once, and the next pay link to that phone never reaches the provider — it shows `opted_out` on the Messages screen.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { DEMO_SMS_FROM, startDemoOutbox, type DemoOutbox } from '../../sync-server/src/dev/demo-outbox.ts';
import type { LocalMail } from '../../sync-server/src/dev/local-smtp-server.ts';
import type { LocalSmsMessage } from '../../sync-server/src/dev/local-sms-provider.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, openPage, requireBuiltRegister, staffApi } from './support/browser.ts';

/** The customer's phone (the range reserved for fiction) and e-mail address. */
const CUSTOMER_PHONE = '+14155550142';
const CUSTOMER_EMAIL = 'ana.customer@example.com';
/** Longest wait for a message to arrive: a failure is reported then, a pass comes as soon as it arrives. */
const ARRIVAL_TIMEOUT_MS = 30_000;

/**
 * What arrives at a local server, as events: `next(match)` resolves with the first item, already arrived or still to
 * come, that `match` accepts and no earlier `next` took; it rejects naming `what` if none arrives in time.
 */
class Arrivals<T> {
  private readonly arrived: T[] = [];
  private readonly taken = new Set<T>();
  private readonly waiters: { match: (item: T) => boolean; resolve: (item: T) => void }[] = [];

  push(item: T): void {
    this.arrived.push(item);
    const waiter = this.waiters.find((w) => w.match(item));
    if (!waiter) return;
    this.waiters.splice(this.waiters.indexOf(waiter), 1);
    this.taken.add(item);
    waiter.resolve(item);
  }

  next(what: string, match: (item: T) => boolean): Promise<T> {
    const found = this.arrived.find((item) => !this.taken.has(item) && match(item));
    if (found) {
      this.taken.add(found);
      return Promise.resolve(found);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (item: T) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`${what} did not arrive within ${ARRIVAL_TIMEOUT_MS / 1000} s`));
      }, ARRIVAL_TIMEOUT_MS);
      this.waiters.push(waiter);
    });
  }
}

interface OutboxSms {
  id: string;
  to: string;
  body: string;
  status: string;
}

describe('Text-to-Pay with real messages (local SMS provider and mail server)', () => {
  let dir: string;
  let outbox: DemoOutbox;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const texts = new Arrivals<LocalSmsMessage>();
  const mails = new Arrivals<{ mail: LocalMail; path: string }>();
  const api = staffApi(() => ({ baseUrl: server.baseUrl, staffToken: server.credentials.staffToken }));

  beforeAll(async () => {
    requireBuiltRegister();
    dir = await mkdtemp(join(tmpdir(), 'text-to-pay-'));
    outbox = await startDemoOutbox(dir, {
      log: () => undefined,
      onSms: (m) => texts.push(m),
      onMail: (mail, path) => mails.push({ mail, path }),
    });
    server = await startTestServer({
      listen: true,
      // The back office asks for the owner's PIN on each page (test/e2e/support/server-under-test.ts).
      pairingRateLimits: { pin: new RateLimit({ name: 'pin-sign-in', quota: 1_000, windowSeconds: 60 }) },
      smsDelivery: { twilio: outbox.twilio, pollIntervalMs: 100 },
      emailDelivery: { smtp: outbox.smtp, pollIntervalMs: 100 },
    });
    browser = await launchChromium();
    ({ context, page } = await openPage(browser));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await outbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('texts the link, e-mails the receipt of its payment, and honours a STOP reply', { timeout: 180_000 }, async () => {
    const register = await RegisterPage.open(page, server.baseUrl, server.credentials.ownerPin);
    await register.waitForCatalog();
    const payRequests = await (await BackOfficePage.open(page, server.credentials.ownerPin)).payRequests();

    /* The cashier texts a pay link for the sale; the text arrives at the provider, from the store's number. */
    // Before sending, the form shows the text as it will go and in how many parts.
    await page.getByTestId('pay-request-amount').fill('18.75');
    await page.getByTestId('pay-request-memo').fill('Cake for pickup');
    const preview = page.getByTestId('pay-request-text-preview');
    await expect.poll(() => preview.getByTestId('pay-request-text-body').textContent(), { timeout: 20_000 }).toContain('$18.75');
    await expect(preview.getByTestId('pay-request-text-segments').textContent()).resolves.toMatch(/GSM-7: one part$/);
    const previewed = (await preview.getByTestId('pay-request-text-body').textContent())!;
    await payRequests.create({ amount: '18.75', phone: CUSTOMER_PHONE, memo: 'Cake for pickup' });
    await page.getByTestId('pay-request-notice').waitFor();
    const text = await texts.next('the pay link text', (m) => m.to === CUSTOMER_PHONE);
    // The text sent is the one previewed, but for its link (the request's own, of the same length).
    const linkPattern = /https?:\/\/\S+\/pay\/pr_[0-9A-Z]{26}/;
    expect(text.body.replace(linkPattern, '<link>')).toBe(previewed.replace(linkPattern, '<link>'));
    expect(text.from).toBe(DEMO_SMS_FROM);
    expect(text.body).toContain('$18.75');
    const link = /https?:\/\/\S+\/pay\/pr_[0-9A-Z]{26}/.exec(text.body)?.[0];
    expect(link, `a pay link in "${text.body}"`).toBeDefined();
    expect(link!.startsWith(`${server.baseUrl}/pay/`)).toBe(true);

    /* The customer opens the link on their phone, asks for the receipt by e-mail and pays with the sandbox test card. */
    const phone = await openPage(browser, { width: 390, height: 844 });
    await phone.page.goto(link!);
    await expect(phone.page.locator('#amount').textContent()).resolves.toBe('$18.75');
    await phone.page.getByLabel('E-mail me the receipt (optional)').fill(CUSTOMER_EMAIL);
    await phone.page.getByRole('tab', { name: 'Card' }).click();
    await phone.page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await phone.page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await phone.page.getByLabel('CVC').fill('123');
    await phone.page.locator('#panel-card button[type=submit]').click();
    await phone.page.locator('#status[data-status="paid"]').waitFor({ timeout: 15_000 });
    await phone.context.close();

    /* The receipt arrives at the mail server: to the customer, with the total paid and how. */
    const { mail, path } = await mails.next('the receipt e-mail', (m) => m.mail.envelopeTo.includes(CUSTOMER_EMAIL));
    const receipt = await simpleParser(await readFile(path));
    const to = Array.isArray(receipt.to) ? receipt.to : receipt.to ? [receipt.to] : [];
    expect(to.flatMap((a) => a.value.map((v) => v.address))).toEqual([CUSTOMER_EMAIL]);
    expect(receipt.subject).toContain('$18.75');
    expect(receipt.text).toMatch(/Total\s+\$18\.75/);
    expect(receipt.text).toContain('•••• 4242');
    expect(receipt.text).not.toMatch(/4242 ?4242 ?4242 ?4242/);
    expect(mail.hasHtml).toBe(true);

    /* The customer replies STOP; the provider posts it signed to the server, which confirms once. */
    const stop = await outbox.sms!.reply({
      inboundUrl: `${server.baseUrl}/api/sms/inbound/twilio`,
      from: CUSTOMER_PHONE,
      to: DEMO_SMS_FROM,
      body: 'STOP',
    });
    expect(stop.status).toBe(200);
    const replies = outbox.sms!.messages().filter((m) => m.direction === 'reply' && m.to === CUSTOMER_PHONE);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toMatch(/STOP|unsubscribed/i);

    /* The next pay link to that phone is kept from the provider: opted_out, on the Messages screen too. */
    await payRequests.create({ amount: '7.50', phone: CUSTOMER_PHONE, memo: 'Second cake' });
    await page.getByTestId('pay-request-notice').filter({ hasText: '$7.50' }).waitFor();
    const second = await api<{ data: { url: string; amountCents: number }[] }>('/api/pos/pay-requests');
    const secondLink = second.data.find((pr) => pr.amountCents === 750)!.url;
    const secondText = async () => (await api<{ data: OutboxSms[] }>('/api/pos/sms-outbox')).data.find((m) => m.body.includes(secondLink))?.status;
    await expect.poll(secondText).toBe('opted_out');
    await register.goTo('Messages');
    const row = page.getByTestId('sms-row').filter({ hasText: secondLink });
    await expect.poll(() => row.textContent()).toContain('opted_out');
    const outbound = outbox.sms!.messages().filter((m) => m.direction === 'outbound' && m.to === CUSTOMER_PHONE);
    expect(outbound.map((m) => m.sid)).toEqual([text.sid]);
    // One receipt for the one payment.
    const emails = await api<{ data: { to: string }[] }>('/api/pos/email-outbox');
    expect(emails.data.filter((e) => e.to === CUSTOMER_EMAIL)).toHaveLength(1);
  });
});
