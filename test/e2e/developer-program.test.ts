/**
 * The whole developer program in one run, in Chromium.
 * 1. A developer signs up and registers an EXTERNAL integration over the API (paid monthly, scopes catalog:read,
 *    orders:read and webhooks; its redirect URI, connect page and webhook URL on the test's own app server on
 *    loopback); a platform admin starts the review, approves and lists it.
 * 2. In the register (Services → Apps) the owner installs it approving two of its three scopes (orders:read and
 *    webhooks; catalog:read unchecked) and follows "Connect <app>".
 * 3. The app server, a plain node:http server, runs the authorization code + PKCE flow (RFC 6749 §4.1, RFC 7636 S256):
 *    its connect page sends the browser to /oauth/authorize, its redirect URI receives the code and exchanges it at
 *    /oauth/token over real HTTP, then subscribes to `order.paid` with its access token.
 * 4. The app's token reads orders (200) and is refused the catalog (403 insufficient_scope).
 * 5. The owner sells at the register; the app server receives the signed `order.paid` delivery and verifies its
 *    `x-service-signature` (hex HMAC-SHA256 of the raw body with the subscription's secret).
 * 6. The install started the subscription: its prorated initial charge is visible to the store
 *    (GET /api/pos/app-subscriptions) and the developer's statement (GET /api/developer/statement) shows 85 % of it
 *    (floored) as the developer's share — the demo store's, never paid out (charges of other stores are held 31 days
 *    before they can be: test/server/app-billing.test.ts).
 * 7. The owner uninstalls in the register; the app's token answers 401 on its next request.
 *
 * Store: the demo store (real server on an in-memory database, built register). Everything in this story works there;
 * only paying the developer out is money movement, which the demo refuses (403 money_movement_disabled) — asserted too.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPlatformAdmin } from '../../sync-server/src/modules/apps/service.ts';
import { RegisterPage } from './pages/register-page.ts';
import { launchChromium, openPage, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;
const APP_NAME = 'Ledger Bridge';
const PRICE_CENTS = 2400;

type Json = Record<string, any>;

interface WebhookReceived {
  raw: string;
  signature: string;
  verified: boolean;
  event: Json;
}

/**
 * The developer's external integration, hosted on 127.0.0.1: its connect page (starts code + PKCE), its redirect
 * URI (exchanges the code, subscribes to webhooks) and its webhook receiver (verifies signatures; 401 on a mismatch,
 * as docs/api.md asks receivers to answer).
 */
class ExternalApp {
  private server: Server | undefined;
  url = '';
  appId = '';
  /** The Register's base URL (authorization server and API). */
  registerUrl = '';
  private readonly pending = new Map<string, { verifier: string }>();
  tokens: { access_token: string; refresh_token?: string; scope: string } | undefined;
  tokenStatus: number | undefined;
  webhookSecret: string | undefined;
  subscriptionId: string | undefined;
  readonly webhooks: WebhookReceived[] = [];

  get redirectUri(): string {
    return `${this.url}/callback`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req.method ?? 'GET', new URL(req.url ?? '/', this.url), req.headers, Buffer.concat(chunks)).then(
          ({ status, headers, body }) => res.writeHead(status, headers).end(body),
          (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`app error: ${err.message}`),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(
    method: string,
    url: URL,
    headers: Record<string, string | string[] | undefined>,
    raw: Buffer,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const html = (status: number, text: string, testId: string) => ({
      status,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><title>${APP_NAME}</title><p data-testid="${testId}">${text}</p>`,
    });
    if (method === 'GET' && url.pathname === '/connect') {
      // The connect URL the register opened: installation + one-time ticket. Start code + PKCE (S256).
      const verifier = randomBytes(32).toString('base64url');
      const state = randomBytes(16).toString('base64url');
      this.pending.set(state, { verifier });
      const auth = new URL('/oauth/authorize', this.registerUrl);
      for (const [k, v] of Object.entries({
        client_id: this.appId,
        redirect_uri: this.redirectUri,
        response_type: 'code',
        scope: 'orders:read webhooks',
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        installation: url.searchParams.get('installation') ?? '',
        ticket: url.searchParams.get('ticket') ?? '',
      }))
        auth.searchParams.set(k, v);
      return { status: 302, headers: { location: auth.href }, body: '' };
    }
    if (method === 'GET' && url.pathname === '/callback') {
      const state = url.searchParams.get('state') ?? '';
      const flow = this.pending.get(state);
      this.pending.delete(state);
      const code = url.searchParams.get('code');
      if (!flow || !code) return html(400, `Not connected: ${url.searchParams.get('error') ?? 'unknown state'}`, 'app-error');
      const res = await fetch(new URL('/oauth/token', this.registerUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: this.appId,
          code,
          redirect_uri: this.redirectUri,
          code_verifier: flow.verifier,
        }).toString(),
      });
      this.tokenStatus = res.status;
      if (!res.ok) return html(502, `Token exchange failed: HTTP ${res.status} ${await res.text()}`, 'app-error');
      this.tokens = (await res.json()) as ExternalApp['tokens'];
      // Connected: subscribe to paid orders with the app's own token (the secret is answered once).
      const sub = await this.api('POST', '/api/pos/webhooks', { url: `${this.url}/webhooks`, eventTypes: ['order.paid'], description: APP_NAME });
      if (sub.status !== 201) return html(502, `Webhook subscription failed: HTTP ${sub.status}`, 'app-error');
      const made = (await sub.json()) as { id: string; secret: string };
      this.subscriptionId = made.id;
      this.webhookSecret = made.secret;
      return html(200, `${APP_NAME} is connected to your store.`, 'app-connected');
    }
    if (method === 'POST' && url.pathname === '/webhooks') {
      const signature = String(headers['x-service-signature'] ?? '');
      const expected = createHmac('sha256', this.webhookSecret ?? '')
        .update(raw)
        .digest();
      const sent = Buffer.from(signature, 'hex');
      const verified = this.webhookSecret !== undefined && sent.length === expected.length && timingSafeEqual(sent, expected);
      this.webhooks.push({ raw: raw.toString('utf8'), signature, verified, event: verified ? (JSON.parse(raw.toString('utf8')) as Json) : {} });
      return verified ? { status: 204, headers: {}, body: '' } : { status: 401, headers: {}, body: 'bad signature' };
    }
    return { status: 404, headers: {}, body: '' };
  }

  /** A call to the Register's API with the app's access token. */
  api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    return fetch(new URL(path, this.registerUrl), {
      method,
      headers: { authorization: `Bearer ${this.tokens?.access_token ?? ''}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }
}

describe('the developer program, end to end', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  const app = new ExternalApp();
  const api = staffApi(() => server);

  /** JSON over real HTTP with a developer or platform-admin token; throws on a non-2xx answer. */
  const call = async <T = Json>(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(method === 'POST' ? { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() } : {}),
      },
      ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  /** Services → (staff sign-in when asked) → Apps. */
  async function openApps(page: Page): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Services' }).click();
    const signIn = page.getByTestId('services-sign-in');
    const services = page.getByTestId('services');
    await signIn.or(services).first().waitFor({ timeout: TIMEOUT });
    if (await signIn.isVisible()) {
      await signIn.getByRole('option').first().waitFor({ state: 'attached', timeout: TIMEOUT });
      await signIn.getByLabel('PIN').fill(server.ownerPin);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await services.getByRole('tab', { name: 'Apps' }).click();
    await page.getByTestId('app-directory').waitFor({ timeout: TIMEOUT });
  }

  beforeAll(async () => {
    requireBuiltRegister();
    await app.start();
    server = await startServerUnderTest();
    app.registerUrl = server.baseUrl;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await app.stop();
  });

  it(
    'registers, reviews and lists an external app; the owner installs it with two scopes; code + PKCE; scoped calls; a signed webhook; billed 85/15; uninstall revokes',
    { timeout: 240_000 },
    async () => {
      // 1. The developer registers the external integration; a platform admin reviews, approves and lists it.
      const developer = await call<{ developerId: string; developerToken: string }>('POST', '/api/developers', '', {
        name: 'Bridge Works',
        email: 'dev@bridgeworks.example',
      });
      const reviewer = (await addPlatformAdmin(server.db, { email: 'reviewer@platform.example', name: 'Rita Reviewer' })).token;
      const registered = await call<{ id: string; status: string }>('POST', '/api/developer/apps', developer.developerToken, {
        name: APP_NAME,
        description: 'Sends your paid orders to your accounting, as they happen.',
        form: 'external',
        redirectUris: [app.redirectUri],
        webhookUrl: `${app.url}/webhooks`,
        launchUrl: `${app.url}/connect`,
        scopes: ['catalog:read', 'orders:read', 'webhooks'],
        pricing: { model: 'monthly', amountCents: PRICE_CENTS, currency: 'USD' },
        category: 'Accounting',
      });
      app.appId = registered.id;
      const statuses = [registered.status];
      statuses.push((await call<{ status: string }>('POST', `/api/developer/apps/${app.appId}/submit`, developer.developerToken)).status);
      for (const step of ['start-review', 'approve', 'list'])
        statuses.push((await call<{ status: string }>('POST', `/api/platform/apps/${app.appId}/${step}`, reviewer)).status);
      expect(statuses).toEqual(['draft', 'submitted', 'in_review', 'approved', 'listed']);

      const { context, page } = await openPage(browser);
      try {
        // 2. The owner opens the register's directory, installs it approving orders:read and webhooks only.
        const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
        await openApps(page);
        const card = page.locator(`[data-testid="app-card"][data-app-id="${app.appId}"]`);
        await card.waitFor({ timeout: TIMEOUT });
        expect(await card.getByTestId('app-price').textContent()).toBe('$24.00 a month');
        await card.getByTestId('app-install').click();
        const dialog = page.getByRole('dialog');
        const scopeBoxes = dialog.getByTestId('app-scope');
        expect(await scopeBoxes.evaluateAll((els) => els.map((e) => e.getAttribute('data-scope')))).toEqual([
          'catalog:read',
          'orders:read',
          'webhooks',
        ]);
        await dialog.locator('[data-testid="app-scope"][data-scope="catalog:read"]').uncheck();
        await dialog.getByTestId('app-install-approve').click();
        const connect = dialog.getByTestId('app-connect-link');
        await connect.waitFor({ timeout: TIMEOUT });
        expect(await connect.textContent()).toBe(`Connect ${APP_NAME}`);
        const installationId = new URL((await connect.getAttribute('href'))!).searchParams.get('installation')!;
        expect(installationId).toMatch(/^ins_/);

        // 3. "Connect" opens the app's connect page in a new tab: the browser goes through /oauth/authorize and back to
        //    the app's redirect URI, whose server exchanges the code with its PKCE verifier.
        const [appTab] = await Promise.all([context.waitForEvent('page', { timeout: TIMEOUT }), connect.click()]);
        //    The tab shares the register's origin and service worker: /oauth/ must reach the server, not the app shell.
        const hops: string[] = [];
        appTab.on('response', (r) => hops.push(`${r.status()} ${r.url()}`));
        await appTab
          .getByTestId('app-connected')
          .or(appTab.getByTestId('app-error'))
          .waitFor({ timeout: TIMEOUT })
          .catch((err: Error) => {
            throw new Error(`${err.message}\nthe app tab is at ${appTab.url()} after:\n${hops.join('\n')}`);
          });
        expect(await appTab.locator('p').textContent()).toBe(`${APP_NAME} is connected to your store.`);
        expect(app.tokenStatus).toBe(200);
        expect(app.tokens).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), scope: 'orders:read webhooks' });
        await appTab.close();
        await page.keyboard.press('Escape');
        const row = page.locator(`[data-testid="installed-app"][data-installation-id="${installationId}"]`);
        await row.waitFor({ timeout: TIMEOUT });
        expect(await row.locator('[data-scope]').evaluateAll((els) => els.map((e) => e.getAttribute('data-scope')))).toEqual([
          'orders:read',
          'webhooks',
        ]);

        // 4. Within its scopes 200, outside them 403.
        const orders = await app.api('GET', '/api/pos/orders?limit=5');
        expect(orders.status).toBe(200);
        expect(Array.isArray(((await orders.json()) as Json).data)).toBe(true);
        const catalog = await app.api('GET', '/api/pos/catalog');
        expect(catalog.status).toBe(403);
        expect(((await catalog.json()) as Json).code).toBe('insufficient_scope');
        const hooks = (await api<{ data: { id: string; appId: string | null; url: string }[] }>('/api/pos/webhooks')).data;
        expect(hooks.find((h) => h.id === app.subscriptionId)).toMatchObject({ appId: installationId, url: `${app.url}/webhooks` });

        // 5. A sale at the register: the app receives the signed order.paid delivery and verifies it.
        await register.openRegister();
        await register.tapItem('itm_croissant');
        const receipt = await (await (await register.charge()).exact()).complete();
        const orderId = await receipt.orderId();
        expect(orderId).toBeTruthy();
        await expect
          .poll(() => app.webhooks.filter((w) => w.event.type === 'order.paid' && w.event.data?.object?.id === orderId).length, {
            timeout: 60_000,
            interval: 200,
          })
          .toBe(1);
        expect(app.webhooks.every((w) => w.verified)).toBe(true);
        const paid = app.webhooks.find((w) => w.event.data?.object?.id === orderId)!;
        expect(paid.signature).toMatch(/^[0-9a-f]{64}$/);
        expect(paid.event).toMatchObject({ type: 'order.paid', merchantId: server.merchantId, data: { object: { id: orderId, state: 'paid' } } });
        const deliveries = await app.api('GET', `/api/pos/webhooks/${app.subscriptionId}/deliveries`);
        expect(deliveries.status).toBe(200);
        expect(((await deliveries.json()) as Json).data).toContainEqual(
          expect.objectContaining({ eventId: paid.event.id, status: 'succeeded', lastStatusCode: 204 }),
        );

        // 6. Billed: the install's prorated initial charge, and 85 % of it (floored) on the developer's statement.
        const subscriptions = (await api<{ data: Json[] }>('/api/pos/app-subscriptions')).data;
        const subscription = subscriptions.find((s) => s.installationId === installationId)!;
        expect(subscription).toMatchObject({ appId: app.appId, appName: APP_NAME, priceCents: PRICE_CENTS, currency: 'USD', status: 'active' });
        expect(subscription.charges).toHaveLength(1);
        const charge = subscription.charges[0] as Json;
        expect(charge).toMatchObject({ kind: 'initial', status: 'paid', currency: 'USD' });
        expect(charge.amountCents).toBeGreaterThan(0);
        expect(charge.amountCents).toBeLessThanOrEqual(PRICE_CENTS);
        const statement = await call<Json>('GET', '/api/developer/statement', developer.developerToken);
        expect(statement.developerId).toBe(developer.developerId);
        expect(statement.charges).toEqual([
          expect.objectContaining({
            id: charge.id,
            appId: app.appId,
            appName: APP_NAME,
            demoStore: true,
            amountCents: charge.amountCents,
            developerShareCents: Math.floor((charge.amountCents * 85) / 100),
            platformShareCents: charge.amountCents - Math.floor((charge.amountCents * 85) / 100),
            journalTransactionId: charge.journalTransactionId,
            earnings: 'demo',
            earningsAvailableAt: null,
          }),
        ]);
        const share = Math.floor((charge.amountCents * 85) / 100);
        expect(statement.balances).toEqual([
          expect.objectContaining({
            currency: 'USD',
            grossChargesCents: charge.amountCents,
            developerShareCents: share,
            balanceCents: share,
            demoEarningsCents: share,
            availableCents: 0,
            pendingCents: 0,
            owedCents: 0,
          }),
        ]);
        // The demo store moves no money: its earnings are never paid out.
        const payout = await fetch(`${server.baseUrl}/api/developer/payouts`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${developer.developerToken}`,
            'content-type': 'application/json',
            'idempotency-key': crypto.randomUUID(),
          },
          body: JSON.stringify({ currency: 'USD' }),
        });
        expect(payout.status).toBe(403);
        expect(((await payout.json()) as Json).code).toBe('money_movement_disabled');

        // 7. The owner uninstalls in the register: the token answers 401 on its next request.
        expect((await app.api('GET', '/api/pos/orders?limit=1')).status).toBe(200);
        await openApps(page);
        await row.getByTestId('installed-app-uninstall').click();
        await row.getByTestId('installed-app-confirm-uninstall').click();
        await row.waitFor({ state: 'detached', timeout: TIMEOUT });
        const after = await app.api('GET', '/api/pos/orders?limit=1');
        expect(after.status).toBe(401);
        expect((await api<{ data: { id: string }[] }>('/api/pos/webhooks')).data.map((h) => h.id)).not.toContain(app.subscriptionId);
        const ended = (await api<{ data: Json[] }>('/api/pos/app-subscriptions')).data.find((s) => s.installationId === installationId);
        expect(ended).toMatchObject({ status: 'canceled', canceledAt: expect.any(String), nextChargeAt: null });
      } finally {
        await context.close();
      }
    },
  );
});
