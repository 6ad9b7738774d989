/**
 * A crash right after the first pairing keeps the register's identity: pair, sell at once, kill the browser process
 * without closing it, relaunch with the same profile — the same register opens, with its sale. (The pairing used to
 * live in localStorage only, which Chromium writes to disk seconds later: the relaunched browser paired as a new
 * register and the sale vanished from its Sales view.)
 *
 * Chromium is spawned (support/spawned-chromium.ts: Playwright's launch cannot be killed mid-flight) and driven over CDP.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { requireBuiltRegister } from './support/browser.ts';
import { kill, spawnChromium } from './support/spawned-chromium.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

describe('web register after a crash', () => {
  let server: ServerUnderTest;
  let profile: string;
  let current: ChildProcess | undefined;

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    profile = mkdtempSync(join(tmpdir(), 'register-crash-'));
  });

  afterAll(async () => {
    if (current) await kill(current);
    await server?.close();
    // A killed browser's last writes may still land for a moment: retry the removal instead of failing the suite.
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  it('keeps its identity and its first sale through a crash right after pairing', { timeout: 180_000 }, async () => {
    /* First start: pair, sell at once, crash. */
    const first = await spawnChromium(profile);
    current = first.child;
    const page = await first.browser.contexts()[0]!.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const brand = (await page.locator('.brand-register').textContent()) ?? '';
    expect(brand).toMatch(/^Register \d+$/);
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    const tender = await register.charge();
    await tender.exact();
    const receipt = await tender.complete();
    const orderId = await receipt.orderId();
    await kill(first.child);

    /* Relaunch on the same profile: the same register, its sale in the Sales view. */
    const second = await spawnChromium(profile);
    current = second.child;
    const again = await second.browser.contexts()[0]!.newPage();
    again.on('pageerror', (err) => console.error('[page error]', err));
    const reopened = await RegisterPage.open(again, server.baseUrl, server.ownerPin);
    await expect(again.locator('.brand-register').textContent()).resolves.toBe(brand);
    const sales = await reopened.openSales();
    await sales.rows.first().waitFor();
    const rows = await sales.list();
    expect(rows.map((r) => r.orderId)).toContain(orderId);
    // …and the sale reaches the server as this register's.
    await reopened.waitForUnsynced(0, 60_000);
    const response = await fetch(`${server.baseUrl}/api/pos/orders?limit=100`, { headers: { authorization: `Bearer ${server.staffToken}` } });
    const { data } = (await response.json()) as { data: { id: string; registerId: string }[] };
    expect(data.filter((o) => o.id === orderId)).toHaveLength(1);
    await second.browser.close();
    await kill(second.child);
    current = undefined;
  });
});
