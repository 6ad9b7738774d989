/**
 * Financial services at the register, end to end: the built register in Debian's Chromium, the real sync
 * server, the web hardware bridge and the check-scanner simulator on a socat pseudo-terminal.
 *
 * - in the demo store, the Services tabs say money movement is disabled before the cashier starts;
 * - the store made a sandbox store (not the demo): a check cashed end to end — MICR scan through the simulator, the
 *   licence typed by the keyboard-wedge scanner, screening, fee, cash out — and the ledger holds the payout;
 * - the same check presented again is refused (duplicate MICR line);
 * - a transfer whose receiver is a potential match is held, the register shows the hold, a manager clears it, the
 *   cashier sends it and the receipt — on screen and printed — names the provider and its contact, the recipient,
 *   the cancellation and error-resolution rights and the regulators' contacts (12 CFR 1005.31(b)(2));
 * - a bill payment, account validated before the money is taken, with its confirmation number; a bill whose payer is
 *   a potential sanctions match held until a manager clears it, then paid;
 * - the back office lists them, opens the cashed check's detail with the image the scanner delivered (stored by the
 *   server), and the owner changes the fees and limits, which the next service uses.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceHost, type DeviceHost } from '../support/device-host.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { buildAamvaPayload } from '../support/aamva.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { RegisterPage } from './pages/register-page.ts';
import { CHROMIUM, launchChromium } from './support/browser.ts';

const TIMEOUT = 30_000;
const MANAGER = 'stf_01JRA1FSE2EMANAGER00000000';
const licence = (first: string, last: string, number: string) =>
  buildAamvaPayload(3, '636014', 'DL', [
    ['DCS', last],
    ['DCT', first],
    ['DAQ', number],
    ['DBB', '07041980'],
    ['DBA', '07042029'],
    ['DBC', '1'],
  ]);

async function eventually(assertion: () => Promise<void>, timeoutMs = TIMEOUT): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe.skipIf(!existsSync(CHROMIUM) || !existsSync('/usr/bin/socat'))('financial services on the register', () => {
  let server: TestServer;
  let bridge: DeviceHost;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let managerToken: string;
  let baseUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'services-e2e-'));
    server = await startTestServer({ listen: true });
    baseUrl = server.baseUrl.replace(/\/$/, '');
    await server.db.query(`INSERT INTO staff (id, merchant_id, name, role) VALUES ($1, $2, 'Maria Manager', 'manager')`, [
      MANAGER,
      server.credentials.merchantId,
    ]);
    managerToken = await (
      await IdentityProvider.load(server.db, server.baseUrl)
    ).issueStaffToken({ staffId: MANAGER, merchantId: server.credentials.merchantId, role: 'manager' });
    bridge = await startDeviceHost({ dataDir: dir, port: 0, allowedOrigins: [baseUrl], simulatorProcessingMs: 20 });
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    await RegisterPage.open(page, baseUrl, server.credentials.ownerPin);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const api = async (method: 'GET' | 'POST', path: string, token: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  /** Opens a tab of the Services area (signing in with the PIN when the area asks for it). */
  async function openService(tab: string): Promise<void> {
    await nav('Services');
    const signIn = page.getByTestId('services-sign-in');
    await page.getByTestId('services').or(signIn).first().waitFor({ timeout: TIMEOUT });
    if (await signIn.isVisible()) {
      await signIn.getByLabel('PIN').fill(server.credentials.ownerPin);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('services').waitFor({ timeout: TIMEOUT });
    }
    await page.getByRole('tab', { name: tab, exact: true }).click();
  }

  it('the demo store: every money tab says money movement is disabled before the cashier starts', async () => {
    for (const [tab, form] of [
      ['Cash a check', 'cash-check-submit'],
      ['Send money', 'send-quote'],
      ['Pay a bill', 'bill-submit'],
    ] as const) {
      await openService(tab);
      await eventually(async () => expect(await page.getByTestId('money-movement-disabled').textContent()).toContain('demo store'));
      expect(await page.getByTestId(form).count()).toBe(0);
    }
  });

  it('pairs the hardware bridge (check scanner simulator)', async () => {
    // From here on the store is a sandbox store: every flow runs to the end.
    await server.db.query(`UPDATE merchants SET is_demo = false WHERE id = $1`, [server.credentials.merchantId]);
    await nav('Devices');
    await page.getByTestId('bridge-url').fill(bridge.url);
    await page.getByTestId('bridge-token').fill(bridge.token);
    await page.getByTestId('bridge-connect').click();
    await eventually(async () => expect(await page.locator('[data-testid="device-state"]:visible').getAttribute('data-connection')).toBe('ready'));
  });

  it('cashes a check end to end: MICR scan, ID, screening, fee, cash out, ledger', async () => {
    await openService('Cash a check');
    await page.getByTestId('cash-check-scan').click();
    await eventually(async () => expect(((await page.getByTestId('cash-check-routing').textContent()) ?? '').trim()).toBe('075901231'));
    expect(await page.getByTestId('cash-check-amount').inputValue()).toBe('392.75'); // the amount field of the MICR line
    await page.getByTestId('cash-check-id').fill(licence('JOHN Q', 'PUBLIC', 'Y1234567'));
    expect(await page.getByTestId('cash-check-fee').textContent()).toContain('Fee $4.93'); // 1 % of 392.75 + $1.00
    await page.getByTestId('cash-check-submit').click();
    await eventually(async () => expect(await page.getByTestId('cash-check-payout').textContent()).toBe('$387.82'));
    const receipt = (await page.getByTestId('cash-check-receipt').textContent()) ?? '';
    expect(receipt).toContain('Customer: JOHN Q PUBLIC');
    expect(receipt).toContain('Check 075901231 ••••6327 #0101');
    // Printed on the receipt printer, and the drawer opened for the cash.
    const printer = bridge.simulators!.printer;
    await eventually(async () =>
      expect(printer.receipts.some((r) => r.text.includes('CHECK CASHED') && r.text.includes('Cash paid: 387.82 USD'))).toBe(true),
    );
    expect(printer.drawerKicks).toBeGreaterThanOrEqual(1);
    expect(printer.receipts.at(-1)!.text).not.toContain('456327');

    const list = await api('GET', '/api/pos/check-cashings?status=paid', managerToken);
    expect(list.body.data).toHaveLength(1);
    const jt = await api('GET', `/api/pos/ledger/journal-transactions?limit=200`, managerToken);
    const payout = (jt.body.data as { id: string; postings: { accountCode: string; amountCents: number }[] }[]).find(
      (j) => j.id === list.body.data[0].journalTransactionId,
    )!;
    expect(Object.fromEntries(payout.postings.map((p) => [p.accountCode, p.amountCents]))).toEqual({
      'check_clearing:cashed': 39_275,
      fee_income: -493,
      'cash_drawer:R1': -38_782,
    });
  });

  it('refuses the same check presented again (duplicate MICR line)', async () => {
    await bridge.simulators!.checkScanner.load({ micr: 'c706001c d075901231d    456327c  0101   b0000039275b' });
    await page.getByRole('button', { name: 'Next check' }).click();
    // The feeder's next item is the other demo check; the cashier scans again and gets the first one back.
    await page.getByTestId('cash-check-scan').click();
    await eventually(async () => expect(((await page.getByTestId('cash-check-routing').textContent()) ?? '').trim()).toBe('123456780'));
    await page.getByTestId('cash-check-scan').click();
    await eventually(async () => expect(((await page.getByTestId('cash-check-routing').textContent()) ?? '').trim()).toBe('075901231'));
    await page.getByTestId('cash-check-id').fill(licence('MARY', 'MAJOR', 'Y7654321'));
    await page.getByTestId('cash-check-submit').click();
    await eventually(async () => expect(await page.getByTestId('cash-check-error').textContent()).toContain('already presented'));
    expect((await api('GET', '/api/pos/check-cashings', managerToken)).body.data).toHaveLength(1);
  });

  it('holds a transfer whose receiver is a potential match; a manager clears it; the cashier sends it', async () => {
    await openService('Send money');
    await page.getByTestId('send-amount').fill('150');
    await page.getByTestId('send-country').selectOption('GT');
    await page.getByTestId('send-receiver').fill('Elvis Angus Logan Morej');
    await page.getByTestId('send-quote').click();
    await eventually(async () => expect(await page.getByTestId('send-disclosure').textContent()).toContain('Exchange rate: 1 USD = 7.78 GTQ'));
    await page.getByTestId('send-id').fill(licence('JOHN Q', 'PUBLIC', 'Y1234567'));
    await page.getByTestId('send-submit').click();
    await eventually(async () => expect(await page.getByTestId('screening-hold').textContent()).toContain('potential sanctions match'));
    expect(await page.getByTestId('send-complete').count()).toBe(0);

    const held = (await api('GET', '/api/pos/transfers?status=held', managerToken)).body.data[0];
    expect(held.receiverName).toBe('Elvis Angus Logan Morej');
    const cleared = await api('POST', `/api/pos/screenings/${held.receiverScreeningId}/clear`, managerToken, {
      reason: 'receiver born 2001, not the listed person',
    });
    expect(cleared.status).toBe(200);

    await page.getByTestId('send-complete').click({ timeout: TIMEOUT });
    await eventually(async () => expect(await page.getByTestId('send-status').textContent()).toBe('sent'));
    // The receipt 12 CFR 1005.31(b)(2) asks for, on screen and on paper: the provider's name and contact, the
    // recipient, the cancellation and error-resolution rights, the State regulator's and the CFPB's contacts.
    const required = [
      'Provider: Sandbox Remittance (test partner)',
      '1-800-555-0199',
      'Recipient: Elvis Angus Logan Morej',
      'You can cancel for a full refund within 30 minutes of payment',
      'you have 180 days from the date available to contact Sandbox Remittance (test partner)',
      'Sandbox State Department of Banking (test)',
      'Consumer Financial Protection Bureau',
      '855-411-2372',
      'www.consumerfinance.gov/sending-money',
    ];
    const shown = (await page.getByTestId('send-receipt').textContent()) ?? '';
    for (const text of required) expect(shown, text).toContain(text);
    const printer = bridge.simulators!.printer;
    await eventually(async () => expect(printer.receipts.some((r) => r.text.includes('RECEIPT - money transfer'))).toBe(true));
    const printed = printer.receipts.findLast((r) => r.text.includes('RECEIPT - money transfer'))!.text;
    for (const text of required) expect(printed, text).toContain(text);
    expect(printed).toContain('Total to recipient: 1167.00 GTQ');
  });

  it('pays a bill: account validated first, confirmation number and receipt', async () => {
    await openService('Pay a bill');
    await page.getByTestId('bill-biller').selectOption('blr_metro_power');
    await page.getByTestId('bill-account').fill('1234567890');
    await page.getByTestId('bill-amount').click(); // leaving the field validates the account
    await eventually(async () => expect(await page.getByTestId('bill-error').textContent()).toContain('check digit'));
    await page.getByTestId('bill-account').fill('1234567897');
    await page.getByTestId('bill-amount').click();
    await eventually(async () => expect(await page.getByTestId('bill-account-valid').textContent()).toContain('••••7897'));
    await page.getByTestId('bill-amount').fill('80.00');
    await page.getByTestId('bill-customer').fill('John Public');
    await page.getByTestId('bill-submit').click();
    await eventually(async () => expect(await page.getByTestId('bill-confirmation').textContent()).toMatch(/^BP[0-9A-F]{10}A$/));
    expect(await page.getByTestId('bill-receipt').textContent()).toContain('Total paid: 81.50 USD');
  });

  it('holds a bill whose payer is a potential match; a manager clears it; the cashier pays it', async () => {
    await openService('Send money'); // leave the paid bill, then start a new one
    await openService('Pay a bill');
    await page.getByTestId('bill-biller').selectOption('blr_metro_power');
    await page.getByTestId('bill-account').fill('1234567897');
    await page.getByTestId('bill-amount').click();
    await eventually(async () => expect(await page.getByTestId('bill-account-valid').textContent()).toContain('••••7897'));
    await page.getByTestId('bill-amount').fill('20.00');
    await page.getByTestId('bill-customer').fill('Artem Lifshitz'); // LIFSHITS, Artem Mikhaylovich is listed
    await page.getByTestId('bill-submit').click();
    await eventually(async () => expect(await page.getByTestId('screening-hold').textContent()).toContain('potential sanctions match'));
    expect(await page.getByTestId('bill-complete').count()).toBe(0);
    expect(await page.getByTestId('bill-paid').count()).toBe(0);

    const held = (await api('GET', '/api/pos/bill-payments?status=held', managerToken)).body.data[0];
    expect(held).toMatchObject({ customerName: 'Artem Lifshitz', journalTransactionId: null, receipt: null });
    expect(
      (await api('POST', `/api/pos/screenings/${held.screeningId}/clear`, managerToken, { reason: 'payer born 1992, not the listed person' })).status,
    ).toBe(200);

    await page.getByTestId('bill-complete').click({ timeout: TIMEOUT });
    await eventually(async () => expect(await page.getByTestId('bill-confirmation').textContent()).toMatch(/^BP[0-9A-F]{10}A$/));
    expect(await page.getByTestId('bill-receipt').textContent()).toContain('Total paid: 21.50 USD');
    expect((await api('GET', `/api/pos/bill-payments/${held.id}`, managerToken)).body).toMatchObject({
      status: 'accepted',
      journalTransactionId: expect.stringMatching(/^jtx_/),
    });
  });

  it('the back office lists the services, filtered by service and status', async () => {
    await nav('Back office');
    const boSignIn = page.getByTestId('staff-sign-in');
    await page.getByTestId('backoffice').or(boSignIn).first().waitFor({ timeout: TIMEOUT });
    if (await boSignIn.isVisible()) {
      const owner = (await server.db.query<{ name: string }>('SELECT name FROM staff WHERE id = $1', [server.credentials.staffId])).rows[0]!.name;
      await boSignIn.getByRole('option', { name: new RegExp(`^${owner} \\(`) }).waitFor({ state: 'attached', timeout: TIMEOUT });
      await boSignIn.getByLabel('Staff member').selectOption({ label: `${owner} (owner)` });
      await boSignIn.getByLabel('PIN').fill(server.credentials.ownerPin);
      await boSignIn.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('backoffice').waitFor({ timeout: TIMEOUT });
    }
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Financial services' }).click();
    const rows = page.getByTestId('fs-row');
    const shown = () => page.getByTestId('financial-services-lists').innerText();
    await eventually(async () => expect(await rows.count(), await shown()).toBe(1));
    expect(await rows.first().getAttribute('data-status')).toBe('paid');
    // The record's detail shows the check image the scanner delivered, served by the server.
    await rows.first().getByTestId('fs-open').click();
    const image = page.getByTestId('fs-check-image');
    await image.waitFor({ timeout: TIMEOUT });
    await eventually(async () => expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true));
    expect(await page.getByTestId('fs-detail').textContent()).toContain('Cash paid: 387.82 USD');
    await rows.first().getByTestId('fs-open').click();
    await page.getByRole('tab', { name: 'Money transfers' }).click();
    await eventually(async () => expect(await rows.count(), await shown()).toBe(1));
    expect(await rows.first().textContent()).toContain('JOHN Q PUBLIC → Elvis Angus Logan Morej');
    await page.getByTestId('fs-status').selectOption('held');
    await eventually(async () => expect(await rows.count()).toBe(0));
    await page.getByRole('tab', { name: 'Bill payments' }).click();
    await eventually(async () => expect(await rows.count()).toBe(2)); // John Public's, and the one held then paid
    expect(await rows.first().textContent()).toContain('Metro Power & Light');
  });

  it('the owner changes the fees and limits in the back office; the next bill payment uses the new fee', async () => {
    const form = page.getByTestId('fs-settings');
    await form.waitFor({ timeout: TIMEOUT });
    expect(await page.getByTestId('fs-setting-bill-fee').inputValue()).toBe('1.50');
    expect(await page.getByTestId('fs-setting-check-fee-percent').inputValue()).toBe('1.00');
    await page.getByTestId('fs-setting-bill-fee').fill('2.25');
    await page.getByTestId('fs-setting-check-limit-each').fill('3000');
    await page.getByTestId('fs-settings-save').click();
    await eventually(async () => expect(await page.getByTestId('fs-settings-message').textContent()).toContain('Saved'));
    const overview = await api('GET', '/api/pos/financial-services', managerToken);
    expect(overview.body.settings).toMatchObject({ billPaymentFeeCents: 225, checkLimits: { perTransactionCents: 300_000 } });
    // A per-transaction limit above the daily one is refused, naming the field.
    await page.getByTestId('fs-setting-check-limit-each').fill('9000');
    await page.getByTestId('fs-settings-save').click();
    await eventually(async () => expect(await page.getByTestId('fs-settings-message').textContent()).toContain('checkLimits.perTransactionCents'));

    await openService('Pay a bill');
    await page.getByTestId('bill-biller').selectOption('blr_metro_power');
    await page.getByTestId('bill-account').fill('1234567897');
    await page.getByTestId('bill-amount').click();
    await eventually(async () => expect(await page.getByTestId('bill-account-valid').textContent()).toContain('••••7897'));
    await page.getByTestId('bill-amount').fill('10.00');
    await page.getByTestId('bill-customer').fill('Jane Public');
    await page.getByTestId('bill-submit').click();
    await eventually(async () => expect(await page.getByTestId('bill-receipt').textContent()).toContain('Fee: 2.25 USD'));
  });
});
