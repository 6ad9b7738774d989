/**
 * Back office → customers in the built register (Debian Chromium) against the real server: create a customer with
 * marketing consent, find them by phone, edit them, and see the server's refusal of a duplicate phone in the form;
 * an order paid for them shows in their purchase history.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../../core/index.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

interface ApiCustomer {
  id: string;
  givenName: string | null;
  familyName: string | null;
  phone: string | null;
  email: string | null;
  marketingConsent: boolean;
}

describe('back office customers', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let page: Page;

  const api = staffApi(() => server);

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 900 });
    ({ server, page } = suite);
  });

  afterAll(() => suite?.close());

  it('creates a customer with consent, finds them by phone, edits them, and refuses a duplicate phone', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const customers = await backOffice.customers();

    /* A phone that is no number of the store's country (US): the server's problem (errors[].path = phone) is shown
       next to the field. The same number with its area code, typed as dialled in the store, is stored in E.164. */
    const dialog = await customers.create({ givenName: 'Ada', familyName: 'Lovelace', phone: '555-0142', email: 'ada@example.com', consent: true });
    const phoneError = dialog.getByTestId('field-error');
    await phoneError.waitFor();
    await expect(phoneError.textContent()).resolves.toMatch(/store's country \(US\)/);
    await expect(page.getByLabel('Phone').getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await api<{ data: ApiCustomer[] }>('/api/pos/customers?q=5550142')).data).toHaveLength(0);
    await dialog.getByTestId('customer-phone').fill('(415) 555-0142');
    await dialog.getByTestId('customer-phone').press('Enter');
    await dialog.getByTestId('customer-saved').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    /* Found by phone digits, in the list and through the API. */
    await customers.search('5550142');
    await expect.poll(() => customers.rows.count()).toBe(1);
    await expect(customers.rows.first().textContent()).resolves.toContain('Ada Lovelace');
    const found = await api<{ data: ApiCustomer[] }>('/api/pos/customers?q=5550142');
    expect(found.data).toHaveLength(1);
    expect(found.data[0]).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com', marketingConsent: true });
    expect(found.data[0]!.phone).toBe('+14155550142');
    const id = found.data[0]!.id;

    /* Edit: a new e-mail, consent withdrawn; the purchase history is shown (empty). */
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click();
    const edit = page.getByRole('dialog');
    await edit.getByText('No purchases yet.').waitFor();
    await edit.getByTestId('customer-email').fill('ada.l@example.com');
    await edit.getByTestId('customer-consent').uncheck();
    await edit.getByTestId('customer-email').press('Enter');
    await edit.getByTestId('customer-saved').waitFor();
    const edited = await api<ApiCustomer>(`/api/pos/customers/${id}`);
    expect(edited).toMatchObject({ email: 'ada.l@example.com', marketingConsent: false });
    await page.keyboard.press('Escape');
    await edit.waitFor({ state: 'detached' });

    /* A second customer with the same phone: the server's 409 problem is shown, nothing is created. */
    const duplicate = await customers.create({ givenName: 'Grace', phone: '+14155550142' });
    const duplicateError = duplicate.getByTestId('field-error');
    await duplicateError.waitFor();
    await expect(duplicateError.textContent()).resolves.toContain(id);
    await expect(duplicate.getByTestId('customer-phone').getAttribute('aria-invalid')).resolves.toBe('true');
    const all = await api<{ data: ApiCustomer[] }>('/api/pos/customers?q=5550142');
    expect(all.data).toHaveLength(1);
    await page.keyboard.press('Escape');
    await duplicate.waitFor({ state: 'detached' });
  });

  it('shows an order paid for the customer in their purchase history', { timeout: 60_000 }, async () => {
    const [ada] = (await api<{ data: ApiCustomer[] }>('/api/pos/customers?q=5550142')).data;
    expect(ada).toBeDefined();
    const item = server.catalog.items.find(
      (i) => i.modifierLists.length === 0 && i.variations.length === 1 && (i.variations[0]?.priceCents ?? 0) > 0,
    );
    expect(item, 'a plain single-variation item in the demo catalog').toBeDefined();
    if (!ada || !item) return;
    const order = await api<{ id: string; totalCents: number }>('/api/pos/orders', {
      body: { customerId: ada.id, lineItems: [{ catalogItemId: item.id, variationId: item.variations[0]!.id, quantity: 2 }] },
    });
    await api(`/api/pos/orders/${order.id}/payments`, { body: { tenders: [{ method: 'cash', amountCents: order.totalCents }] } });

    const customers = await new BackOfficePage(page).customers();
    await customers.search('Ada');
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click();
    const dialog = page.getByRole('dialog');
    const row = dialog.getByTestId('customer-order');
    await row.waitFor();
    await expect(row.count()).resolves.toBe(1);
    await expect(row.textContent()).resolves.toContain(formatMoney(order.totalCents, 'USD'));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });
  it('sets the store time zone and phone country in Settings; a national number is then read in that country', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const settings = await backOffice.settings();
    await expect(settings.timeZone.inputValue()).resolves.toBe('UTC');
    await expect(settings.country.inputValue()).resolves.toBe('US');

    /* A country without a numbering plan: the problem's field error shows next to the field, nothing changes. */
    await settings.save({ country: 'ZZ' });
    const error = settings.root.getByTestId('field-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toMatch(/country code/);
    await expect(settings.country.getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await api<{ defaultCountry: string }>('/api/pos/settings')).toMatchObject({ defaultCountry: 'US' });

    await settings.save({ timeZone: 'Europe/London', country: 'gb' });
    await settings.root.getByTestId('settings-saved').waitFor();
    await expect(settings.country.inputValue()).resolves.toBe('GB');
    expect(await api<{ timeZone: string; defaultCountry: string }>('/api/pos/settings')).toMatchObject({
      timeZone: 'Europe/London',
      defaultCountry: 'GB',
    });

    /* A London number typed as dialled there is stored in E.164. */
    const customers = await backOffice.customers();
    const dialog = await customers.create({ givenName: 'Lon', phone: '020 7946 0958' });
    await dialog.getByTestId('customer-saved').waitFor();
    await page.keyboard.press('Escape');
    const found = await api<{ data: ApiCustomer[] }>('/api/pos/customers?q=79460958');
    expect(found.data.map((c) => c.phone)).toEqual(['+442079460958']);
  });
  it('sets the business day cut-off hour and the time zone in Settings (days of shifts and closeouts)', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const settings = await backOffice.settings();
    const before = await api<{ dayCutoffHour: number }>('/api/pos/settings');
    await expect(settings.dayCutoff.inputValue()).resolves.toBe(String(before.dayCutoffHour));
    await settings.save({ dayCutoffHour: 6, timeZone: 'America/New_York' });
    await settings.root.getByTestId('settings-saved').waitFor();
    expect(await api<{ dayCutoffHour: number; timeZone: string }>('/api/pos/settings')).toMatchObject({
      dayCutoffHour: 6,
      timeZone: 'America/New_York',
    });
    await expect(settings.dayCutoff.inputValue()).resolves.toBe('6');
    await settings.save({ dayCutoffHour: before.dayCutoffHour, timeZone: 'Europe/London' });
    await settings.root.getByTestId('settings-saved').waitFor();
  });
  it('sets the quiet hours for texts in Settings: over midnight, one end alone refused in place, both cleared', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const settings = await backOffice.settings();
    await expect(settings.quietStart.inputValue()).resolves.toBe('');
    await settings.save({ quietStart: '21:00', quietEnd: '08:00' });
    await settings.root.getByTestId('settings-saved').waitFor();
    expect(await api('/api/pos/settings')).toMatchObject({ smsQuietHoursStart: '21:00', smsQuietHoursEnd: '08:00' });

    // An end without a start: the server's problem names the start, shown next to it; nothing changes.
    await settings.save({ quietStart: '' });
    const error = settings.root.getByTestId('field-error');
    await error.waitFor();
    await expect(settings.quietStart.getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await api('/api/pos/settings')).toMatchObject({ smsQuietHoursStart: '21:00', smsQuietHoursEnd: '08:00' });

    await settings.save({ quietStart: '', quietEnd: '' });
    await settings.root.getByTestId('settings-saved').waitFor();
    expect(await api('/api/pos/settings')).toMatchObject({ smsQuietHoursStart: null, smsQuietHoursEnd: null });
  });
  it('keeps an internationalised e-mail address exactly as typed (RFC 6531), not turned into punycode', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const customers = await backOffice.customers();
    const dialog = await customers.create({ givenName: 'José', email: 'josé@exämple.de' });
    await dialog.getByTestId('customer-saved').waitFor();
    await page.keyboard.press('Escape');
    const found = await api<{ data: ApiCustomer[] }>(`/api/pos/customers?q=${encodeURIComponent('José')}`);
    expect(found.data.map((c) => c.email)).toEqual(['josé@exämple.de']);
  });
  it('sets the tip bound in Settings: a percentage and a fixed amount, a bad percentage refused in place', { timeout: 120_000 }, async () => {
    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const settings = await backOffice.settings();
    await expect(settings.tipPercent.inputValue()).resolves.toBe('50');
    await expect(settings.tipFixed.inputValue()).resolves.toBe('100.00');

    // Checked in the form by the request body's own rule, before anything is sent: no request leaves the page.
    const patches: string[] = [];
    const onRequest = (req: { method(): string; url(): string }) => {
      if (req.method() === 'PATCH' && req.url().includes('/api/pos/settings')) patches.push(req.url());
    };
    page.on('request', onRequest);
    await settings.save({ tipPercent: 'lots' });
    const error = settings.root.getByTestId('field-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toBe('must be a percentage with up to two decimals, e.g. 12.5');
    await expect(settings.tipPercent.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).resolves.toBe('settings-tip-percent');
    await settings.save({ tipPercent: '50', tipFixed: '1000000000' });
    await expect(settings.tipFixed.getAttribute('aria-invalid')).resolves.toBe('true');
    page.off('request', onRequest);
    expect(patches).toEqual([]);
    expect(await api<{ tipLimitBasisPoints: number }>('/api/pos/settings')).toMatchObject({ tipLimitBasisPoints: 5000 });

    await settings.save({ tipPercent: '20', tipFixed: '5' });
    await settings.root.getByTestId('settings-saved').waitFor();
    await expect(settings.tipFixed.inputValue()).resolves.toBe('5.00');
    expect(await api<{ tipLimitBasisPoints: number; tipLimitCents: number }>('/api/pos/settings')).toMatchObject({
      tipLimitBasisPoints: 2000,
      tipLimitCents: 500,
    });
  });
});
