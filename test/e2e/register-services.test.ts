/**
 * Financial services at the register, in Chromium: the Services area. A cashier verifies a licence typed by a keyboard-wedge
 * scanner into the scan box (and one from a photo of its back, a PDF417 made with bwip-js), screens the holder's name
 * (clear), then screens a name close to a listed one: the hold is shown plainly and the cashier cannot decide it; a
 * manager clears it in Back office → Screenings with a reason, and the cashier's screen turns "Cleared"; the owner
 * uploads a newer SDN list there.
 *
 * Real server (in-memory database, demo store with the sample SDN list) + the built register in Debian's Chromium.
 */
import { readFileSync } from 'node:fs';
import bwipjs from 'bwip-js/node';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aamvaFixture } from '../support/aamva.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

/** What a keyboard-wedge scanner types into a text box: CR arrives as Enter (a new line), RS is lost. */
const asTypedByWedge = (payload: string) => payload.replace(/\r\n?/g, '\n').replace(/\u001e/g, '');

describe('register services: ID verification and sanctions screening', () => {
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

  it('a cashier verifies an ID and screens names; a potential match is held until a manager clears it', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await api('/api/pos/staff', { body: { name: 'Cara Cashier', role: 'cashier', pin: '2468' } });
    // The cashier signs in on the register (Services open for whoever signed in there).
    await page.goto(server.baseUrl);
    const register = new RegisterPage(page);
    await register.signIn('2468', 'Cara Cashier');
    await register.waitForCatalog();

    // Services open for the cashier signed in on the register (a PIN only if nobody is).
    await register.goTo('Services');
    const signIn = page.getByTestId('services-sign-in');
    const services = page.getByTestId('services');
    await services.or(signIn).first().waitFor({ timeout: TIMEOUT });
    if (await signIn.isVisible()) {
      await signIn.getByRole('option', { name: /Cara Cashier/ }).waitFor({ state: 'attached', timeout: TIMEOUT });
      await signIn.getByLabel('Staff member').selectOption({ label: 'Cara Cashier (cashier)' });
      await signIn.getByLabel('PIN').fill('2468');
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await services.waitFor({ timeout: TIMEOUT });

    // Verify ID: the scanner types the licence's payload into the scan box.
    await page.getByTestId('id-payload').pressSequentially(asTypedByWedge(aamvaFixture('VA-21.txt')));
    await page.getByTestId('id-verify').click();
    const result = page.getByTestId('id-result');
    await result.waitFor({ timeout: TIMEOUT });
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await page.getByTestId('id-name').textContent()).toBe('JAMES ALAN SARKO');
    const shown = (await result.textContent()) ?? '';
    expect(shown).toContain('*****0487');
    expect(shown).not.toContain('T16700487');

    // An expired licence from a photo of its back: the problem is said plainly.
    const photo = await bwipjs.toBuffer({
      bcid: 'pdf417',
      text: aamvaFixture('aamva-cds-example-VA.txt'),
      binarytext: true,
      scale: 2,
      padding: 24,
      backgroundcolor: 'E8E8E0',
    });
    await page.getByTestId('id-photo').setInputFiles({ name: 'back.png', mimeType: 'image/png', buffer: photo });
    await page.getByTestId('id-problems').waitFor({ timeout: TIMEOUT });
    expect(await page.getByTestId('id-problems').textContent()).toContain('expired');
    expect(await result.getAttribute('data-ok')).toBe('false');

    // A text that is not a licence barcode is a clear error.
    await page.getByTestId('id-payload').fill('https://example.com/not-a-licence');
    await page.getByTestId('id-verify').click();
    await page.getByTestId('id-error').waitFor({ timeout: TIMEOUT });
    expect(await page.getByTestId('id-error').textContent()).toContain('Not a driver licence');

    // Screen a common name: clear.
    await services.getByRole('tab', { name: 'Screen a name' }).click();
    await page.getByTestId('screen-name-input').fill('John Smith');
    await page.getByTestId('screen-submit').click();
    const screening = page.getByTestId('screening-result');
    await expect.poll(() => screening.getAttribute('data-status'), { timeout: TIMEOUT }).toBe('clear');

    // A name one letter off a listed person: held, shown plainly, and the cashier cannot decide it.
    await page.getByTestId('screen-name-input').fill('Elvis Angus Logan Morej');
    await page.getByTestId('screen-submit').click();
    const hold = page.getByTestId('screening-hold');
    await hold.waitFor({ timeout: TIMEOUT });
    expect(await hold.textContent()).toContain('LOGAN MOREY, Elvis Angus');
    expect(await hold.getByTestId('hold-clear').count()).toBe(0);

    // A manager (here the owner) clears it in the back office of another register, with a reason.
    const other = await context.browser()!.newContext({ viewport: { width: 1280, height: 860 } });
    const managerPage = await other.newPage();
    const staff = await api<{ data: { name: string; role: string }[] }>('/api/pos/staff');
    const ownerName = staff.data.find((s) => s.role === 'owner')!.name;
    await managerPage.goto(server.baseUrl);
    const managerRegister = new RegisterPage(managerPage);
    await managerRegister.scanInput.or(managerRegister.signInScreen).first().waitFor({ timeout: TIMEOUT });
    if (await managerRegister.signInScreen.isVisible()) await managerRegister.signIn(server.ownerPin, ownerName);
    await managerPage.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Back office' }).click();
    const boSignIn = managerPage.getByTestId('staff-sign-in');
    await managerPage.getByTestId('backoffice').or(boSignIn).first().waitFor({ timeout: TIMEOUT });
    if (await boSignIn.isVisible()) {
      await boSignIn.getByRole('option', { name: new RegExp(`^${ownerName} \\(`) }).waitFor({ state: 'attached', timeout: TIMEOUT });
      await boSignIn.getByLabel('Staff member').selectOption({ label: `${ownerName} (owner)` });
      await boSignIn.getByLabel('PIN').fill(server.ownerPin);
      await boSignIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await managerPage.getByTestId('backoffice').waitFor({ timeout: TIMEOUT });
    await managerPage.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Screenings' }).click();
    const row = managerPage.getByTestId('screening-row').filter({ hasText: 'Elvis Angus Logan Morej' });
    await row.waitFor({ timeout: TIMEOUT });
    await row.getByPlaceholder('Reason').fill('Customer born 1990 in Ohio; listed person born 1963 in Belize');
    await row.getByRole('button', { name: 'Clear' }).click();
    await row.waitFor({ state: 'detached', timeout: TIMEOUT });

    // The cashier's screen hears of it and lets the transaction go on.
    await expect.poll(() => screening.getAttribute('data-status'), { timeout: TIMEOUT }).toBe('cleared');
    expect(await screening.textContent()).toContain('Cleared by a manager');

    // The owner uploads a newer list in the back office: it becomes current, the sample version is kept.
    const fixture = (f: string) => ({
      name: f,
      mimeType: 'text/csv',
      buffer: readFileSync(new URL(`../fixtures/sanctions/ofac-small/${f}`, import.meta.url)),
    });
    await managerPage.getByLabel('sdn.csv').setInputFiles(fixture('sdn.csv'));
    await managerPage.getByLabel('alt.csv').setInputFiles(fixture('alt.csv'));
    await managerPage.getByLabel('add.csv').setInputFiles(fixture('add.csv'));
    await managerPage.getByRole('button', { name: 'Upload new version' }).click();
    await expect.poll(() => managerPage.getByTestId('sanctions-list-row').count(), { timeout: TIMEOUT }).toBe(2);
    expect(await managerPage.getByTestId('sanctions-list-row').first().textContent()).toContain('(current)');
    await other.close();
    await context.close();
  });
});
