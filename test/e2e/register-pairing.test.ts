/**
 * Pairing in the browser: a register on a server without demo mode cannot pair itself — it asks for a one-time code,
 * pairs with it, syncs and sells with a register credential (never a staff token in its storage or in a stream URL);
 * revoked in the back office, it is refused on its next request and asks for a new code, keeping its register id.
 * The back office asks for a staff PIN, lists the register and makes codes. Real server + built register in Chromium.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

describe('register pairing with a code (no demo mode)', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const streamUrls: string[] = [];
  const api = staffApi(() => server);

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest({ demoSelfPair: false });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/stream')) streamUrls.push(request.url());
    });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  const session = async () =>
    JSON.parse((await page.evaluate(() => localStorage.getItem('register.session.v1'))) ?? 'null') as {
      registerToken: string;
      registerId: string;
    } | null;
  const typeCode = async (form: ReturnType<Page['getByTestId']>, code: string) => {
    await form.getByLabel('Pairing code').fill(code.toLowerCase());
    await form.getByRole('button', { name: 'Pair this register' }).click();
  };

  it('asks for a code, pairs with it and syncs with a register credential only', async () => {
    await page.goto(server.baseUrl);
    const form = page.getByTestId('pairing-form');
    await form.waitFor({ timeout: TIMEOUT });
    // A wrong code is refused with the server's reason, and pairs nothing.
    await typeCode(form, 'ZZZZ-ZZZZ');
    await expect.poll(() => form.getByRole('alert').textContent(), { timeout: TIMEOUT }).toContain('unknown, expired or already used');

    const { code } = await api<{ code: string }>('/api/pos/registers/pairing-codes', { body: { name: 'Till by the door' } });
    await typeCode(form, code);
    const register = new RegisterPage(page);
    await register.signInIfAsked(server.ownerPin);
    await register.waitForCatalog();
    // The register shows which one it is: the name it was enrolled with, also after a reload.
    await expect(page.getByTestId('register-name').textContent()).resolves.toBe('Till by the door');
    await page.reload();
    await register.signInIfAsked(server.ownerPin);
    await register.waitForCatalog();
    await expect(page.getByTestId('register-name').textContent()).resolves.toBe('Till by the door');

    const stored = await session();
    expect(stored?.registerToken).toMatch(/^rrc_/);
    const everything = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/); // no JWT (staff token) anywhere in the register's storage
    // The change streams opened with single-use tickets, never a token.
    await expect.poll(() => streamUrls.length, { timeout: TIMEOUT }).toBeGreaterThan(0);
    expect(streamUrls.every((u) => /[?&]ticket=sst_/.test(u) && !u.includes('token='))).toBe(true);

    const listed = await api<{ data: { id: string; name: string; lastSeenAt: string | null; revokedAt: string | null }[] }>('/api/pos/registers');
    expect(listed.data.find((r) => r.id === stored!.registerId)).toMatchObject({
      name: 'Till by the door',
      lastSeenAt: expect.any(String),
      revokedAt: null,
    });
  });

  it('the back office asks for a PIN, lists the register and makes pairing codes', async () => {
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Registers' }).click();
    const section = page.getByTestId('registers');
    await section.getByText('Till by the door').waitFor({ timeout: TIMEOUT });
    await section.getByRole('button', { name: 'New pairing code' }).click();
    await expect.poll(() => section.getByTestId('pairing-code').textContent(), { timeout: TIMEOUT }).toMatch(/[0-9A-Z]{4}-[0-9A-Z]{4}/);
    expect(backOffice.root).toBeTruthy();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Register', exact: true }).click();

    // A sale rung up while the owner is signed in records who made it.
    const register = new RegisterPage(page);
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const orderId = await receipt.orderId();
    await receipt.newSale();
    const order = await expect
      .poll(
        async () =>
          (await fetch(`${server.baseUrl}/api/pos/orders/${orderId}`, { headers: { authorization: `Bearer ${server.staffToken}` } })).status,
        { timeout: TIMEOUT },
      )
      .toBe(200)
      .then(() => api<{ staffId?: string }>(`/api/pos/orders/${orderId}`));
    const [owner] = (
      await (await fetch(`${server.baseUrl}/api/register/staff`, { headers: { authorization: `Bearer ${(await session())!.registerToken}` } })).json()
    ).data as { id: string }[];
    expect(order.staffId).toBe(owner!.id);
  });

  it('revoked in the back office, it is refused on its next request and pairs again with a new code, same register', async () => {
    const before = await session();
    await api(`/api/pos/registers/${before!.registerId}/revoke`, { body: {} });
    // Its next request (coming back online) is refused: it asks for a code and keeps its sales.
    await context.setOffline(true);
    await context.setOffline(false);
    const banner = page.getByTestId('pairing-required');
    await banner.waitFor({ timeout: TIMEOUT });

    const { code } = await api<{ code: string }>('/api/pos/registers/pairing-codes', { body: {} });
    await typeCode(banner, code);
    await banner.waitFor({ state: 'detached', timeout: TIMEOUT });
    const after = await session();
    expect(after?.registerId).toBe(before!.registerId);
    expect(after?.registerToken).toMatch(/^rrc_/);
    expect(after?.registerToken).not.toBe(before!.registerToken);
    const listed = await api<{ data: { id: string; revokedAt: string | null }[] }>('/api/pos/registers');
    expect(listed.data.find((r) => r.id === before!.registerId)?.revokedAt).toBeNull();
  });
});
