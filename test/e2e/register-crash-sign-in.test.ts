/**
 * A crash 0–5 s after pairing or after a staff sign-in loses neither, and the register comes back by itself: the
 * browser is killed (no shutdown, no flush), relaunched on the same profile while the server cannot be reached, then
 * the server comes back. After a sign-in the register reopens offline with the same staff member signed in and sells;
 * after a pairing it reopens paired (not at the pairing form) and its sign-in screen fills in by itself once the server
 * answers (it used to stay at "Signing in needs a connection to the server." until someone reloaded).
 *
 * Server without demo self-pairing (a code pairs), behind a TCP proxy that the test stops and starts; Chromium spawned
 * on a profile directory and driven over CDP (support/crash.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { requireBuiltRegister, staffApi } from './support/browser.ts';
import { kill, spawnChromium } from './support/spawned-chromium.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const TIMEOUT = 30_000;
/** How long after pairing or signing in the browser is killed (ms). */
const CRASH_DELAYS = [0, 2500, 5000];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('web register crashed right after pairing or signing in', () => {
  let server: ServerUnderTest;
  let proxy: TcpProxy;
  const profiles: string[] = [];
  let current: ChildProcess | undefined;
  const api = staffApi(() => server);

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest({ demoSelfPair: false });
    proxy = await startTcpProxy(server.baseUrl);
  });
  // A test that failed while the server was unreachable must not leave it so for the next.
  afterEach(async () => {
    if (current) await kill(current);
    current = undefined;
    await proxy?.start();
  });
  afterAll(async () => {
    if (current) await kill(current);
    await proxy?.close();
    await server?.close();
    for (const profile of profiles) rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  /** A fresh profile, a browser on it, the register at the proxy paired with a new code. */
  const pairNewRegister = async (): Promise<{ profile: string; page: Page; child: ChildProcess }> => {
    const profile = mkdtempSync(join(tmpdir(), 'register-crash-sign-in-'));
    profiles.push(profile);
    const { child, browser } = await spawnChromium(profile);
    current = child;
    const page = await browser.contexts()[0]!.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await page.goto(proxy.baseUrl);
    const form = page.getByTestId('pairing-form');
    await form.waitFor({ timeout: TIMEOUT });
    const { code } = await api<{ code: string }>('/api/pos/registers/pairing-codes', { body: { name: 'Crash till' } });
    await form.getByLabel('Pairing code').fill(code);
    await form.getByRole('button', { name: 'Pair this register' }).click();
    await new RegisterPage(page).signInScreen.waitFor({ timeout: TIMEOUT });
    return { profile, page, child };
  };

  /** Kills the browser, stops the server's address, relaunches on `profile` and opens the register (from its service worker). */
  const crashAndReopenOffline = async (profile: string, child: ChildProcess): Promise<Page> => {
    await kill(child);
    await proxy.stop();
    const { child: again, browser } = await spawnChromium(profile);
    current = again;
    const page = await browser.contexts()[0]!.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await page.goto(proxy.baseUrl);
    return page;
  };

  /** Rings up one item, paid in cash. */
  const sellOne = async (register: RegisterPage) => {
    await register.page.locator('.item-tile:not(.item-has-options)').first().click();
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const orderId = await receipt.orderId();
    await receipt.newSale();
    return orderId;
  };

  for (const delay of CRASH_DELAYS) {
    it(`killed ${delay} ms after signing in: reopens offline signed in, sells, and syncs once the server is back`, { timeout: 180_000 }, async () => {
      const { profile, page, child } = await pairNewRegister();
      const register = new RegisterPage(page);
      await register.signIn(server.ownerPin);
      const staffId = await page.getByTestId('signed-in-staff').getAttribute('data-staff-id');
      await sleep(delay);
      const reopened = new RegisterPage(await crashAndReopenOffline(profile, child));
      await reopened.scanInput.or(reopened.signInScreen).first().waitFor({ timeout: TIMEOUT });
      expect(await reopened.signInScreen.count()).toBe(0);
      await reopened.waitForCatalog();
      expect(await reopened.page.getByTestId('signed-in-staff').getAttribute('data-staff-id')).toBe(staffId);
      const orderId = await sellOne(reopened);
      await proxy.start();
      await reopened.waitForUnsynced(0, 60_000);
      expect((await api<{ staffId?: string }>(`/api/pos/orders/${orderId}`)).staffId).toBe(staffId);
      await kill(current!);
      current = undefined;
    });

    it(
      `killed ${delay} ms after pairing: reopens paired offline, and its sign-in fills in by itself once the server is back`,
      { timeout: 180_000 },
      async () => {
        const { profile, child } = await pairNewRegister();
        await sleep(delay);
        const reopened = new RegisterPage(await crashAndReopenOffline(profile, child));
        const screen = reopened.signInScreen;
        await screen.or(reopened.page.getByTestId('pairing-form')).first().waitFor({ timeout: TIMEOUT });
        expect(await reopened.page.getByTestId('pairing-form').count()).toBe(0);
        // Nobody has signed in on this register yet: offline, nobody can.
        await expect
          .poll(() => screen.getByRole('alert').textContent(), { timeout: TIMEOUT })
          .toContain('Signing in needs a connection to the server.');
        await proxy.start();
        // No reload, no click: the staff list arrives within 20 s of the server answering again.
        await screen.getByRole('option', { name: /Demo Owner/ }).waitFor({ state: 'attached', timeout: 20_000 });
        expect(await screen.getByRole('alert').count()).toBe(0);
        await reopened.signIn(server.ownerPin, 'Demo Owner');
        await sellOne(reopened);
        await reopened.waitForUnsynced(0, 60_000);
        await kill(current!);
        current = undefined;
      },
    );
  }
});
