/**
 * The app platform at the register, in Chromium: the app directory and an in-platform app.
 * - The directory (Services → Apps, and Back office → Apps) lists the listed apps with price, category and what they
 *   may do in plain words; search and the category filter narrow it; a search that matches nothing shows the empty
 *   state. A cashier sees why they cannot install.
 * - The owner installs the demo's example in-platform app ("Shelf labels", catalog:read) approving its scopes, opens it:
 *   the sandboxed frame lists catalog items it read through the register's message bridge, made with the APP's token
 *   (never the staff token); a request outside the bridge's rules is never made; an order is refused 403 (outside the
 *   app's scopes); the frame cannot read the register's localStorage nor reach its document. Uninstalling stops the
 *   app's token at once (401).
 * - In the back office the owner installs an external integration approving one of its two scopes and is offered
 *   "Connect <app>" (its connect URL with the installation and a one-time ticket).
 * - A paid app's price rise: while it waits for review the directory and the installed app keep the listed price;
 *   approved, the back office shows the installed app's old and new price and what accepting means; until the owner
 *   accepts the store keeps the old price; accepting applies the new one from the next renewal.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPlatformAdmin } from '../../sync-server/src/modules/apps/service.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, openPage, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

interface DirectoryEntry {
  id: string;
  name: string;
  form: string;
  category: string;
  launchUrl?: string | null;
  scopes: { scope: string }[];
}

describe('app directory and in-platform apps in the register', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  const api = staffApi(() => server);

  let reviewer: string;
  /** A developer, platform admin or staff call (POST unless `method` says otherwise); throws on an HTTP error. */
  const call = async <T>(path: string, token: string, body?: unknown, method = 'POST'): Promise<T> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify(body ?? {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  /** A listed external app of another category and a monthly price, registered and reviewed over the API. */
  async function listExternalApp(): Promise<void> {
    const dev = await call<{ developerToken: string }>('/api/developers', '', { name: 'Promo Labs', email: 'dev@promolabs.example' });
    const app = await call<{ id: string }>('/api/developer/apps', dev.developerToken, {
      name: 'Promo Texts',
      description: 'Sends your customers a text when a promotion starts.',
      form: 'external',
      redirectUris: ['https://promotexts.example/oauth/callback'],
      launchUrl: 'https://promotexts.example/connect',
      scopes: ['catalog:read', 'orders:read'],
      pricing: { model: 'monthly', amountCents: 1500, currency: 'USD' },
      category: 'Marketing',
    });
    await call(`/api/developer/apps/${app.id}/submit`, dev.developerToken);
    for (const step of ['start-review', 'approve', 'list']) await call(`/api/platform/apps/${app.id}/${step}`, reviewer);
  }

  /** Opens the register (the owner sells), runs `beforeServices`, signs `who` in at Services and opens its Apps tab. */
  /**
   * Opens Services → Apps as `who` (default: the owner). The register's sign-in opens Services for the same person, so
   * `who` signs in on the register itself; Services asks for a PIN only when nobody is signed in.
   */
  async function openApps(page: Page, who?: { name: string; pin: string }, beforeServices?: () => Promise<unknown>): Promise<void> {
    await beforeServices?.();
    await page.goto(server.baseUrl);
    const register = new RegisterPage(page);
    await register.scanInput.or(register.signInScreen).first().waitFor({ timeout: TIMEOUT });
    if (await register.signInScreen.isVisible()) await register.signIn(who?.pin ?? server.ownerPin, who?.name);
    await register.waitForCatalog();
    await register.goTo('Services');
    const signIn = page.getByTestId('services-sign-in');
    await page.getByTestId('services').or(signIn).first().waitFor({ timeout: TIMEOUT });
    if (await signIn.isVisible()) {
      if (who) await signIn.getByLabel('Staff member').selectOption({ label: `${who.name} (cashier)` });
      await signIn.getByLabel('PIN').fill(who?.pin ?? server.ownerPin);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByTestId('services').getByRole('tab', { name: 'Apps' }).click();
    await page.getByTestId('app-directory').waitFor({ timeout: TIMEOUT });
  }

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    browser = await launchChromium();
    reviewer = (await addPlatformAdmin(server.db, { email: 'reviewer@platform.example', name: 'Rita Reviewer' })).token;
    await listExternalApp();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it(
    'lists apps with price, category and plain-word scopes; search and category narrow it; a cashier is told only the owner installs',
    { timeout: 180_000 },
    async () => {
      const { context, page } = await openPage(browser);
      try {
        await openApps(page, { name: 'Zoe Cashier', pin: '2468' }, () =>
          api('/api/pos/staff', { body: { name: 'Zoe Cashier', role: 'cashier', pin: '2468' } }),
        );
        const cards = page.getByTestId('app-card');
        const promo = cards.filter({ hasText: 'Promo Texts' });
        await promo.waitFor({ timeout: TIMEOUT });
        expect(await promo.getByTestId('app-price').textContent()).toBe('$15.00 a month');
        const promoText = (await promo.textContent()) ?? '';
        expect(promoText).toContain('Marketing');
        expect(promoText).toContain('See your items, prices, tax rates and stock levels.');
        expect(promoText).toContain('See your orders, their payments and refunds.');

        // Search: nothing matches → the empty state; a word of the description finds the app again.
        await page.getByTestId('app-search').fill('no such app anywhere');
        await page.getByTestId('app-directory-empty').waitFor({ timeout: TIMEOUT });
        await page.getByTestId('app-search').fill('promotion');
        await promo.waitFor({ timeout: TIMEOUT });
        await page.getByTestId('app-search').fill('');

        // The category filter lists the categories of listed apps and keeps only that category's apps.
        await page.getByTestId('app-category').selectOption('Marketing');
        await expect.poll(async () => (await cards.allTextContents()).map((t) => t.includes('Promo Texts')), { timeout: TIMEOUT }).toEqual([true]);
        await page.getByTestId('app-category').selectOption('');

        // A cashier sees what the app asks for and why they cannot install it.
        await promo.getByTestId('app-install').click();
        const dialog = page.getByRole('dialog');
        await dialog.getByTestId('app-install-owner-only').waitFor({ timeout: TIMEOUT });
        expect(await dialog.getByTestId('app-install-approve').count()).toBe(0);
        await dialog.getByTestId('app-install-cancel').click();
        await dialog.waitFor({ state: 'detached', timeout: TIMEOUT });
      } finally {
        await context.close();
      }
    },
  );

  it(
    'the owner installs the example in-platform app, opens it in the sandbox, it reads the catalog through the bridge with its own token; uninstall stops the token',
    { timeout: 180_000 },
    async () => {
      const directory = await api<{ data: DirectoryEntry[] }>('/api/pos/app-directory');
      const example = directory.data.find((a) => a.form === 'in_platform' && a.launchUrl === '/example-app/index.html');
      expect(example, 'the demo store lists the example in-platform app').toBeDefined();

      const { context, page } = await openPage(browser);
      try {
        await openApps(page);
        const card = page.locator(`[data-testid="app-card"][data-app-id="${example!.id}"]`);
        await card.waitFor({ timeout: TIMEOUT });
        await card.getByTestId('app-install').click();
        const dialog = page.getByRole('dialog');
        const boxes = dialog.getByTestId('app-scope');
        expect(await boxes.count()).toBe(example!.scopes.length);
        for (const box of await boxes.all()) expect(await box.isChecked()).toBe(true);
        await dialog.getByTestId('app-install-approve').click();
        await dialog.waitFor({ state: 'detached', timeout: TIMEOUT });
        const row = page.locator(`[data-testid="installed-app"][data-app-id="${example!.id}"]`);
        await row.waitFor({ timeout: TIMEOUT });
        expect(await row.textContent()).toContain('See your items, prices, tax rates and stock levels.');
        expect(await card.getByTestId('app-installed-badge').isVisible()).toBe(true);

        // Every API request the page makes, with its Authorization header.
        const apiCalls: { url: string; method: string; auth: string | undefined }[] = [];
        const record = (request: Request) => {
          if (new URL(request.url()).pathname.startsWith('/api/'))
            apiCalls.push({ url: request.url(), method: request.method(), auth: request.headers()['authorization'] });
        };
        page.on('request', record);

        await row.getByTestId('installed-app-open').click();
        const frameElement = page.getByTestId('app-frame');
        await frameElement.waitFor({ timeout: TIMEOUT });
        expect(await frameElement.getAttribute('sandbox')).toBe('allow-scripts allow-forms');
        const frame = page.frameLocator('[data-testid="app-frame"]');
        await frame.getByTestId('example-item').first().waitFor({ timeout: TIMEOUT });
        const names = await frame.getByTestId('example-item').locator('strong').allTextContents();
        const catalogNames = new Set(server.catalog.items.map((i) => i.name));
        expect(names.length).toBeGreaterThan(0);
        for (const name of names) expect(catalogNames.has(name), name).toBe(true);

        // The bridge called with the app's token (rpa_…), not the staff member's.
        const catalogCall = apiCalls.find((c) => c.url.includes('/api/pos/catalog?limit=6'));
        expect(catalogCall?.auth).toMatch(/^Bearer rpa_/);
        expect(catalogCall?.auth).not.toBe(`Bearer ${server.staffToken}`);
        const appToken = catalogCall!.auth!.slice('Bearer '.length);

        // Sandboxed: an opaque origin, so the register's localStorage and document are out of reach.
        expect(await frame.getByTestId('example-storage-result').getAttribute('data-sandboxed')).toBe('true');
        const appFrame = page.frames().find((f) => f.url().includes('/example-app/index.html'))!;
        expect(
          await appFrame.evaluate(() => {
            try {
              return String(window.localStorage.length);
            } catch (err) {
              return (err as Error).name;
            }
          }),
        ).toBe('SecurityError');
        expect(
          await appFrame.evaluate(() => {
            try {
              return String(window.parent.document.title);
            } catch (err) {
              return (err as Error).name;
            }
          }),
        ).toBe('SecurityError');
        expect(await appFrame.evaluate(() => window.origin)).toBe('null');

        // Outside the bridge's rules nothing is requested: answers come in order, so once the good request is answered
        // the bad ones have been dropped.
        const answered = await appFrame.evaluate(async () => {
          const post = (message: unknown) => window.parent.postMessage(message, '*');
          post({ type: 'register-api', id: 'bad-1', method: 'GET', path: '/api/staff/me' });
          post({ type: 'register-api', id: 'bad-2', method: 'GET', path: '/api/pos/../sync/orders/pull' });
          post({ type: 'register-api', id: 'bad-3', method: 'DELETE', path: '/api/pos/catalog/items/x' });
          post({ type: 'register-api', id: 'bad-4', method: 'GET', path: '/api/pos/catalog', token: 'x' });
          return new Promise<{ id: string; status: number }>((resolve) => {
            window.addEventListener('message', (event) => {
              const data = event.data as { type?: string; id: string; status: number };
              if (data?.type === 'register-api-result') resolve({ id: data.id, status: data.status });
            });
            post({ type: 'register-api', id: 'good', method: 'GET', path: '/api/pos/catalog?limit=1' });
          });
        });
        expect(answered).toEqual({ id: 'good', status: 200 });
        expect(apiCalls.filter((c) => !new URL(c.url).pathname.startsWith('/api/pos/'))).toEqual([]);
        expect(apiCalls.filter((c) => c.method === 'DELETE')).toEqual([]);

        // Outside the app's scopes: the server refuses the order.
        await frame.getByTestId('example-try-order').click();
        const orderResult = frame.getByTestId('example-order-result');
        await expect.poll(() => orderResult.getAttribute('data-status'), { timeout: TIMEOUT }).toBe('403');
        expect(await orderResult.textContent()).toContain('Refused (HTTP 403)');
        page.off('request', record);

        // The app's token works until the uninstall, and is refused on its next request after it.
        const asApp = () => fetch(`${server.baseUrl}/api/pos/catalog?limit=1`, { headers: { authorization: `Bearer ${appToken}` } });
        expect((await asApp()).status).toBe(200);
        await page.getByTestId('app-frame-close').click();
        await row.getByTestId('installed-app-uninstall').click();
        await row.getByTestId('installed-app-confirm-uninstall').click();
        await row.waitFor({ state: 'detached', timeout: TIMEOUT });
        await page.getByTestId('installed-apps-empty').waitFor({ timeout: TIMEOUT });
        // The button used is gone: focus is on the list's heading, not lost to the page.
        await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim()), { timeout: TIMEOUT }).toBe('Installed apps');
        expect((await asApp()).status).toBe(401);

        // The back office has the same directory. There the owner installs the external integration approving one of
        // its two scopes, and is offered "Connect Promo Texts" (its connect URL with a one-time ticket, new tab).
        await BackOfficePage.open(page, server.ownerPin);
        await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Apps', exact: true }).click();
        await page.locator(`[data-testid="app-card"][data-app-id="${example!.id}"]`).getByTestId('app-install').waitFor({ timeout: TIMEOUT });
        const promo = page.getByTestId('app-card').filter({ hasText: 'Promo Texts' });
        await promo.getByTestId('app-install').click();
        await dialog.locator('[data-testid="app-scope"][data-scope="orders:read"]').uncheck();
        await dialog.getByTestId('app-install-approve').click();
        const connect = dialog.getByTestId('app-connect-link');
        await connect.waitFor({ timeout: TIMEOUT });
        expect(await connect.textContent()).toBe('Connect Promo Texts');
        expect(await connect.getAttribute('target')).toBe('_blank');
        const href = new URL((await connect.getAttribute('href'))!);
        expect(href.origin + href.pathname).toBe('https://promotexts.example/connect');
        expect(href.searchParams.get('installation')).toMatch(/^ins_/);
        expect(href.searchParams.get('ticket')).toBeTruthy();
        await page.keyboard.press('Escape');
        const promoRow = page.locator(`[data-testid="installed-app"][data-installation-id="${href.searchParams.get('installation')}"]`);
        await promoRow.waitFor({ timeout: TIMEOUT });
        expect(await promoRow.locator('[data-scope]').evaluateAll((els) => els.map((e) => e.getAttribute('data-scope')))).toEqual(['catalog:read']);
        expect(await promoRow.getByTestId('installed-app-open').count()).toBe(0);
        const installs = await api<{ data: { id: string; grantedScopes: string[] }[] }>('/api/pos/app-installations');
        expect(installs.data.find((i) => i.id === href.searchParams.get('installation'))?.grantedScopes).toEqual(['catalog:read']);

        // Opened on its own, outside the register's frame, the example app's page is sandboxed all the same (the server's
        // `Content-Security-Policy: sandbox`): an opaque origin, the register's storage out of reach.
        await page.goto(`${server.baseUrl}/example-app/index.html`);
        const alone = page.getByTestId('example-storage-result');
        await expect.poll(() => alone.getAttribute('data-sandboxed'), { timeout: TIMEOUT }).toBe('true');
        expect(await page.evaluate(() => window.origin)).toBe('null');
      } finally {
        await context.close();
      }
    },
  );

  it(
    "shows a store a paid app's price rise only once approved, with the old and new price and what accepting means; the old price holds until the owner accepts",
    { timeout: 180_000 },
    async () => {
      // A paid in-platform app, listed at $15.00 a month, installed by the owner over the API.
      const dev = await call<{ developerToken: string }>('/api/developers', '', { name: 'Label Works', email: 'dev@labelworks.example' });
      const app = await call<{ id: string }>('/api/developer/apps', dev.developerToken, {
        name: 'Receipt Rewards',
        description: 'Prints a reward code on every receipt.',
        form: 'in_platform',
        launchUrl: 'https://receiptrewards.example/app',
        scopes: ['catalog:read'],
        pricing: { model: 'monthly', amountCents: 1500, currency: 'USD' },
        category: 'Loyalty',
      });
      await call(`/api/developer/apps/${app.id}/submit`, dev.developerToken);
      for (const step of ['start-review', 'approve', 'list']) await call(`/api/platform/apps/${app.id}/${step}`, reviewer);
      const { installation } = await api<{ installation: { id: string } }>('/api/pos/app-installations', {
        body: { appId: app.id, scopes: ['catalog:read'] },
      });
      // The developer raises it to $40.00: a revision waiting for review.
      await call(`/api/developer/apps/${app.id}`, dev.developerToken, { pricing: { model: 'monthly', amountCents: 4000, currency: 'USD' } }, 'PATCH');

      const { context, page } = await openPage(browser);
      try {
        await RegisterPage.open(page, server.baseUrl, server.ownerPin);
        await BackOfficePage.open(page, server.ownerPin);
        const openAppsSection = async () => {
          await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Apps', exact: true }).click();
          await page.locator(`[data-testid="app-card"][data-app-id="${app.id}"]`).waitFor({ timeout: TIMEOUT });
        };
        await openAppsSection();
        const card = page.locator(`[data-testid="app-card"][data-app-id="${app.id}"]`);
        const row = page.locator(`[data-testid="installed-app"][data-installation-id="${installation.id}"]`);
        // Under review: the directory and the installed app show the listed price, and nothing to accept.
        expect(await card.getByTestId('app-price').textContent()).toBe('$15.00 a month');
        await row.getByTestId('installed-app-price').waitFor({ timeout: TIMEOUT });
        expect(await row.getByTestId('installed-app-price').textContent()).toMatch(/^You pay \$15\.00 a month; next charge \$15\.00 on /);
        expect(await row.getByTestId('app-price-change').count()).toBe(0);

        // Approved: the directory has the new price; the installed app shows old → new and what accepting means.
        for (const step of ['start-review', 'approve']) await call(`/api/platform/apps/${app.id}/${step}`, reviewer);
        await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Catalog', exact: true }).click();
        await openAppsSection();
        await expect.poll(() => card.getByTestId('app-price').textContent(), { timeout: TIMEOUT }).toBe('$40.00 a month');
        const change = row.getByTestId('app-price-change');
        await change.waitFor({ timeout: TIMEOUT });
        expect(await change.getByTestId('app-price-old').textContent()).toBe('$15.00 a month');
        expect(await change.getByTestId('app-price-new').textContent()).toBe('$40.00 a month');
        const sub = (
          await api<{
            data: { id: string; installationId: string; priceCents: number; priceChange: { appliesFrom: string } | null; charges: unknown[] }[];
          }>('/api/pos/app-subscriptions')
        ).data.find((s) => s.installationId === installation.id)!;
        const renewal = new Date(sub.priceChange!.appliesFrom).toLocaleDateString('en-US', {
          timeZone: 'UTC',
          year: 'numeric',
          month: 'long',
          day: 'numeric',
        });
        const text = (await change.textContent())!;
        expect(text).toContain(`Accepting means this store is billed $40.00 a month from the renewal on ${renewal}.`);
        expect(text).toContain('Until you accept, you keep paying $15.00 a month every month');
        // Not accepted yet: the store's price is still $15.00.
        expect(await row.getByTestId('installed-app-price').textContent()).toContain('You pay $15.00 a month; next charge $15.00');
        expect(sub.priceCents).toBe(1500);

        // The owner accepts: the new price applies from the next renewal; nothing is charged now.
        await change.getByTestId('app-price-accept').click();
        await expect
          .poll(() => page.getByTestId('apps-notice').textContent(), { timeout: TIMEOUT })
          .toBe(`Receipt Rewards: the new price of $40.00 a month applies from ${renewal}.`);
        await expect
          .poll(() => row.getByTestId('installed-app-price').textContent(), { timeout: TIMEOUT })
          .toContain('You pay $40.00 a month; next charge $40.00');
        expect(await row.getByTestId('app-price-change').count()).toBe(0);
        const accepted = (
          await api<{ data: { installationId: string; priceCents: number; priceChange: unknown; charges: unknown[] }[] }>(
            '/api/pos/app-subscriptions',
          )
        ).data.find((s) => s.installationId === installation.id)!;
        expect(accepted).toMatchObject({ priceCents: 4000, priceChange: null });
        expect(accepted.charges).toHaveLength(1);
      } finally {
        await context.close();
      }
    },
  );
});
