/**
 * Shifts and the closeout on the register (issue 12), end to end: the built register in Debian's Chromium, the real
 * sync server, the web hardware bridge and its printer simulator (what is printed is read back by decoding the
 * ESC/POS bytes it received).
 *
 * - open a shift with a float counted by denomination → a cash sale → a paid out → an X-report (screen and paper) →
 *   close with a count → expected,
 *   counted and the over/short shown before confirming → the Z-report on screen and printed → the server holds the
 *   closeout (and the shift and the paid out), and a signed-in staff member sees the server's check agree;
 * - offline: a shift opened, a sale and a closeout made with the network cut, the Z-report covering the unsynced sale;
 *   after reconnecting, each record reaches the server exactly once.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceBridge, type DeviceBridge } from '../../electron/bridge/start-bridge.ts';
import type { DeviceSimulators } from '../../electron/devices/index.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { CHROMIUM, launchChromium, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

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

interface Doc {
  id: string;
  shiftId?: string;
  kind?: string;
  amountCents?: number;
  countedCashCents?: number;
  openingFloatCents?: number;
  report?: { overShortCents: number | null; expectedCashCents: number; salesCount: number; kind: string };
}

describe.skipIf(!existsSync(CHROMIUM) || !existsSync('/usr/bin/socat'))('register shifts and the closeout', () => {
  let server: ServerUnderTest;
  let bridge: DeviceBridge;
  let sim: DeviceSimulators;
  let dir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let register: RegisterPage;

  const api = staffApi(() => server, { 'x-register-schema-version': '1' });
  const pullAll = async (collection: string): Promise<Doc[]> => (await api<{ documents: Doc[] }>(`/api/sync/${collection}/pull?seq=0&limit=500`)).documents;
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const count = async (key: string, value: number) => page.getByTestId(`count-${key}`).fill(String(value));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shift-e2e-'));
    server = await startServerUnderTest();
    bridge = await startDeviceBridge({ dataDir: dir, port: 0, allowedOrigins: [server.baseUrl], printerRetryIntervalMs: 100, simulatorProcessingMs: 20 });
    sim = bridge.hub.simulators!;
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.waitForBadge('synced', 60_000);
    await nav('Devices');
    await page.getByTestId('bridge-url').fill(bridge.url);
    await page.getByTestId('bridge-token').fill(bridge.token);
    await page.getByTestId('bridge-connect').click();
    await eventually(async () => expect(await page.locator('[data-testid="device-state"]:visible').getAttribute('data-connection')).toBe('ready'));
  });

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Rings up a $35.00 haircut paid with exact cash; answers its receipt number. */
  async function cashSale(): Promise<string> {
    await nav('Register');
    await register.tapItem('itm_haircut');
    const tender = await register.charge();
    expect(await page.getByTestId('tender-total').textContent()).toBe('$35.00');
    const receipt = await (await tender.exact()).complete();
    const number = await receipt.receiptNumber();
    await receipt.newSale();
    return number;
  }

  it('opens with a counted float, sells, pays out, closes with a count showing the over/short, prints the Z-report, and the server holds it', { timeout: 180_000 }, async () => {
    /* Open: five $20 notes → a $100.00 float. */
    await page.keyboard.press('F6');
    await expect(page.getByTestId('shift-status').getAttribute('data-state')).resolves.toBe('closed');
    await count('note-2000', 5);
    await expect(page.getByTestId('counted-total').textContent()).resolves.toBe('$100.00');
    await page.getByTestId('open-shift').click();
    await eventually(async () => expect(await page.getByTestId('shift-status').textContent()).toContain('float $100.00'));

    const receiptNumber = await cashSale();

    /* Paid out $10 with a reason; the drawer opens. */
    await nav('Shift');
    const kicks = sim.printer.drawerKicks;
    await page.getByTestId('paid-out').click();
    await page.getByTestId('movement-amount').fill('10');
    await page.getByTestId('movement-reason').fill('Window cleaner');
    await page.getByTestId('movement-save').click();
    await eventually(async () => expect(await page.getByTestId('shift-note').textContent()).toContain('Paid out $10.00 recorded'));
    await eventually(async () => expect(sim.printer.drawerKicks).toBeGreaterThan(kicks));

    /* X-report mid-shift: on screen and printed; the shift stays open. */
    const beforeX = sim.printer.receipts.length;
    await page.getByTestId('x-report').click();
    await expect(page.getByTestId('x-report-view').locator('[data-label="Expected cash"] dd').textContent()).resolves.toBe('$125.00');
    await eventually(async () => expect(sim.printer.receipts.length).toBe(beforeX + 1));
    const xPaper = sim.printer.receipts.at(-1)!.text;
    expect(xPaper).toContain('X-REPORT');
    expect(xPaper).toMatch(/Paid out\s+\$10\.00/);
    expect(xPaper).not.toMatch(/Counted cash/);
    await expect(page.getByTestId('shift-status').getAttribute('data-state')).resolves.toBe('open');

    /* Close: expected 100 + 35 − 10 = $125.00; counted $124.00 → short $1.00, shown before confirming. */
    await page.getByTestId('close-shift').click();
    await eventually(async () => expect(await page.getByTestId('expected-cash').textContent()).toBe('$125.00'));
    await count('note-10000', 1);
    await count('note-2000', 1);
    await count('note-100', 4);
    await expect(page.getByTestId('counted-cash').textContent()).resolves.toBe('$124.00');
    await expect(page.getByTestId('over-short').textContent()).resolves.toBe('Short $1.00');
    const printed = sim.printer.receipts.length;
    await page.getByTestId('confirm-close').click();

    /* The Z-report on screen and on paper. */
    const z = page.getByTestId('z-report-view');
    await z.waitFor({ timeout: TIMEOUT });
    await expect(z.locator('[data-label="Short"] dd').textContent()).resolves.toBe('-$1.00');
    await expect(z.locator('[data-label="Sales"] dd').textContent()).resolves.toBe('1');
    await eventually(async () => expect(sim.printer.receipts.length).toBe(printed + 1));
    const paper = sim.printer.receipts.at(-1)!.text;
    expect(paper).toContain('Z-REPORT');
    expect(paper).toMatch(/Opening float\s+\$100\.00/);
    expect(paper).toMatch(/Paid out\s+\$10\.00/);
    expect(paper).toMatch(/Expected cash\s+\$125\.00/);
    expect(paper).toMatch(/Counted cash\s+\$124\.00/);
    expect(paper).toMatch(/Short\s+-\$1\.00/);
    expect(paper).toMatch(new RegExp(`First receipt\\s+${receiptNumber}`));

    /* The server holds the shift, the paid out and the closeout. */
    await eventually(async () => expect(await page.getByTestId('closeout-sync').getAttribute('data-state')).toBe('synced'), 60_000);
    const closeouts = await pullAll('shift-closeouts');
    expect(closeouts).toHaveLength(1);
    expect(closeouts[0]!.countedCashCents).toBe(12_400);
    expect(closeouts[0]!.report).toMatchObject({ kind: 'z', expectedCashCents: 12_500, overShortCents: -100, salesCount: 1 });
    const shifts = await pullAll('shifts');
    expect(shifts.map((s) => s.id)).toEqual([closeouts[0]!.shiftId]);
    expect(shifts[0]!.openingFloatCents).toBe(10_000);
    const movements = await pullAll('cash-movements');
    expect(movements.map((m) => [m.kind, m.amountCents])).toEqual([['paid_out', 1000]]);

    /* A staff member signed in sees the server's recomputation of the shift: it agrees. */
    await expect(page.getByTestId('server-check').getAttribute('data-state')).resolves.toBe('signed-out');
    await BackOfficePage.open(page, server.ownerPin);
    await nav('Shift');
    await eventually(async () => expect(await page.getByTestId('server-check').getAttribute('data-state')).toBe('agree'));
  });

  it('opens, sells and closes offline; the Z-report covers the unsynced sale; everything syncs once after reconnecting', { timeout: 180_000 }, async () => {
    await context.setOffline(true);
    await register.waitForBadge('offline');

    await nav('Shift');
    await page.getByTestId('float-input').fill('50');
    await page.getByTestId('open-shift').click();
    await eventually(async () => expect(await page.getByTestId('shift-status').textContent()).toContain('float $50.00'));
    await cashSale();

    await nav('Shift');
    await page.getByTestId('close-shift').click();
    await eventually(async () => expect(await page.getByTestId('expected-cash').textContent()).toBe('$85.00'));
    await expect(page.getByTestId('close-unsynced').textContent()).resolves.toContain('1 sale of this shift not yet on the server');
    await count('note-5000', 1);
    await count('note-2000', 1);
    await count('note-1000', 1);
    await count('note-500', 1);
    await expect(page.getByTestId('over-short').textContent()).resolves.toBe('Even');
    await page.getByTestId('confirm-close').click();
    const z = page.getByTestId('z-report-view');
    await z.waitFor({ timeout: TIMEOUT });
    await expect(z.locator('[data-label="Sales"] dd').textContent()).resolves.toBe('1');
    await expect(z.locator('[data-label="Over"] dd').textContent()).resolves.toBe('$0.00');
    await expect(page.getByTestId('closeout-sync').getAttribute('data-state')).resolves.toBe('pending');
    expect(await pullAll('shift-closeouts')).toHaveLength(1); // only the first test's

    await context.setOffline(false);
    await eventually(async () => expect(await page.getByTestId('closeout-sync').getAttribute('data-state')).toBe('synced'), 90_000);
    await register.waitForBadge('synced', 60_000);
    const closeouts = await pullAll('shift-closeouts');
    expect(closeouts).toHaveLength(2);
    const offline = closeouts.find((c) => c.countedCashCents === 8500)!;
    expect(offline.report).toMatchObject({ kind: 'z', expectedCashCents: 8500, overShortCents: 0, salesCount: 1 });
    const shifts = await pullAll('shifts');
    expect(shifts).toHaveLength(2);
    expect(new Set(shifts.map((s) => s.id)).size).toBe(2);
    expect(shifts.some((s) => s.id === offline.shiftId && s.openingFloatCents === 5000)).toBe(true);
  });
});
