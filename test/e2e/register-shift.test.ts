/**
 * Shifts and the closeout on the register, end to end: the built register in Debian's Chromium, the real
 * sync server, the web hardware bridge and its printer simulator (what is printed is read back by decoding the
 * ESC/POS bytes it received).
 *
 * - open a shift with a float counted by denomination → a cash sale → a paid out → an X-report (screen and paper) →
 *   close with a count → expected,
 *   counted and the over/short shown before confirming → the Z-report on screen and printed → the server holds the
 *   closeout (and the shift and the paid out), and a signed-in staff member sees the server's check agree;
 * - offline: a shift opened, a sale and a closeout made with the network cut, the Z-report covering the unsynced sale;
 *   after reconnecting, each record reaches the server exactly once;
 * - a check cashed at the Services area pays out of the drawer: the X- and Z-report show "Checks cashed
 *   out", the cashier counts exactly the expected cash, over/short is 0 and the server's recompute agrees;
 * - a first sale rung up with no shift open — by card online, in cash offline — counts in the shift it opens: the X-
 *   and Z-report on screen show it, expected cash is what the drawer got, the server's recompute (against the ledger's
 *   drawer postings) agrees and the drawer account moved by the cash sale.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceHost, type DeviceHost, type RemoteDeviceSimulators } from '../support/device-host.ts';
import { buildAamvaPayload } from '../support/aamva.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { E2E_TERMINAL_TIMEOUTS, untilCardReceipt } from './support/card.ts';
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
  let bridge: DeviceHost;
  let sim: RemoteDeviceSimulators;
  let dir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let register: RegisterPage;

  const api = staffApi(() => server, { 'x-register-schema-version': '1' });
  const pullAll = async (collection: string): Promise<Doc[]> =>
    (await api<{ documents: Doc[] }>(`/api/sync/${collection}/pull?seq=0&limit=500`)).documents;
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const count = async (key: string, value: number) => page.getByTestId(`count-${key}`).fill(String(value));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shift-e2e-'));
    server = await startServerUnderTest();
    bridge = await startDeviceHost({
      dataDir: dir,
      port: 0,
      allowedOrigins: [server.baseUrl],
      ...E2E_TERMINAL_TIMEOUTS,
      printerRetryIntervalMs: 100,
      simulatorProcessingMs: 20,
    });
    sim = bridge.simulators!;
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

  it(
    'opens with a counted float, sells, pays out, closes with a count showing the over/short, prints the Z-report, and the server holds it',
    { timeout: 180_000 },
    async () => {
      /* Open: five $20 notes → a $100.00 float. */
      await page.keyboard.press('F6');
      await expect(page.getByTestId('shift-status').getAttribute('data-state')).resolves.toBe('closed');
      // Each count field is named once by its denomination: "$1 coins", never "$1 coin coins".
      await expect(page.getByTestId('count-coin-100').getAttribute('aria-label')).resolves.toBe('Number of $1 coins');
      await expect(page.getByTestId('count-note-100').getAttribute('aria-label')).resolves.toBe('Number of $1 notes');
      const labels = await page.locator('[data-testid^="count-"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      expect(labels.filter((l) => /(coin|note)s? (coin|note)s/.test(l))).toEqual([]);
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

      /* The staff member signed in on the register sees the server's recomputation of the shift (no second PIN): it agrees. */
      await eventually(async () => expect(await page.getByTestId('server-check').getAttribute('data-state')).toBe('agree'));
    },
  );

  it(
    'opens, sells and closes offline; the Z-report covers the unsynced sale; everything syncs once after reconnecting',
    { timeout: 180_000 },
    async () => {
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
    },
  );

  it(
    'a check cashed at the Services area leaves the drawer: the X/Z report shows it, counted = expected, over/short 0, the server agrees',
    { timeout: 180_000 },
    async () => {
      // The demo store made a sandbox store: money may move.
      await server.db.query(`UPDATE merchants SET is_demo = false WHERE id = $1`, [server.merchantId]);
      await nav('Shift');
      await count('note-10000', 5);
      await page.getByTestId('open-shift').click();
      await eventually(async () => expect(await page.getByTestId('shift-status').textContent()).toContain('float $500.00'));

      /* Cash the feeder's first check ($392.75): fee 1 % + $1.00 = $4.93, $387.82 handed out of the drawer. */
      await nav('Services');
      const signIn = page.getByTestId('services-sign-in');
      await page.getByTestId('services').or(signIn).first().waitFor({ timeout: TIMEOUT });
      if (await signIn.isVisible()) {
        await signIn.getByLabel('PIN').fill(server.ownerPin);
        await signIn.getByRole('button', { name: 'Sign in' }).click();
        await page.getByTestId('services').waitFor({ timeout: TIMEOUT });
      }
      await page.getByRole('tab', { name: 'Cash a check', exact: true }).click();
      await page.getByTestId('cash-check-scan').click();
      await eventually(async () => expect(await page.getByTestId('cash-check-amount').inputValue()).toBe('392.75'));
      await page.getByTestId('cash-check-id').fill(
        buildAamvaPayload(3, '636014', 'DL', [
          ['DCS', 'PUBLIC'],
          ['DCT', 'JOHN Q'],
          ['DAQ', 'Y1234567'],
          ['DBB', '07041980'],
          ['DBA', '07042029'],
          ['DBC', '1'],
        ]),
      );
      await page.getByTestId('cash-check-submit').click();
      await eventually(async () => expect(await page.getByTestId('cash-check-payout').textContent()).toBe('$387.82'));

      /* The X-report names the payout and takes it off the expected cash: 500.00 − 387.82 = 112.18. */
      await nav('Shift');
      await page.getByTestId('x-report').click();
      const x = page.getByTestId('x-report-view');
      await eventually(async () => expect(await x.locator('[data-label="Checks cashed out (1)"] dd').textContent()).toBe('-$387.82'));
      await expect(x.locator('[data-label="Service fees"] dd').textContent()).resolves.toBe('$4.93');
      await expect(x.locator('[data-label="Expected cash"] dd').textContent()).resolves.toBe('$112.18');

      /* Close counting exactly $112.18: even. */
      await page.getByTestId('close-shift').click();
      await eventually(async () => expect(await page.getByTestId('expected-cash').textContent()).toBe('$112.18'));
      await count('note-10000', 1);
      await count('note-1000', 1);
      await count('note-100', 2);
      await count('coin-10', 1);
      await count('coin-5', 1);
      await count('coin-1', 3);
      await expect(page.getByTestId('counted-cash').textContent()).resolves.toBe('$112.18');
      await expect(page.getByTestId('over-short').textContent()).resolves.toBe('Even');
      const printed = sim.printer.receipts.length;
      await page.getByTestId('confirm-close').click();
      const z = page.getByTestId('z-report-view');
      await z.waitFor({ timeout: TIMEOUT });
      await expect(z.locator('[data-label="Over"] dd').textContent()).resolves.toBe('$0.00');
      await expect(z.locator('[data-label="Checks cashed out (1)"] dd').textContent()).resolves.toBe('-$387.82');
      await eventually(async () => expect(sim.printer.receipts.length).toBeGreaterThan(printed));
      expect(sim.printer.receipts.find((r, i) => i >= printed && r.text.includes('Z-REPORT'))?.text).toMatch(/Checks cashed out \(1\)\s+-\$387\.82/);

      /* The server holds the movement and the closeout, and its recompute from its own check record agrees. */
      await eventually(async () => expect(await page.getByTestId('closeout-sync').getAttribute('data-state')).toBe('synced'), 60_000);
      const closeout = (await pullAll('shift-closeouts')).find((c) => c.countedCashCents === 11_218)!;
      expect(closeout.report).toMatchObject({ kind: 'z', expectedCashCents: 11_218, overShortCents: 0 });
      await eventually(async () =>
        expect((await pullAll('cash-movements')).filter((m) => m.shiftId === closeout.shiftId).map((m) => [m.kind, m.amountCents])).toEqual([
          ['check_cashed', 38_782],
        ]),
      );
      const check = await api<{ report: { overShortCents: number; expectedCashCents: number }; differences: unknown[] }>(
        `/api/pos/shifts/${closeout.shiftId}`,
      );
      expect(check.differences).toEqual([]);
      expect(check.report).toMatchObject({ overShortCents: 0, expectedCashCents: 11_218 });
      await BackOfficePage.open(page, server.ownerPin);
      await nav('Shift');
      await eventually(async () => expect(await page.getByTestId('server-check').getAttribute('data-state')).toBe('agree'));
    },
  );

  it(
    'a first sale with no shift open counts in the shift it opens — card online, cash offline: X and Z show it, the server and the drawer ledger agree',
    { timeout: 240_000 },
    async () => {
      const drawer = async () =>
        (await api<{ accounts: { code: string; balanceCents: number }[] }>('/api/pos/ledger/trial-balance')).accounts.find(
          (a) => a.code === 'cash_drawer:R1',
        )?.balanceCents ?? 0;
      const drawerBefore = await drawer();
      await nav('Shift');
      await expect(page.getByTestId('shift-status').getAttribute('data-state')).resolves.toBe('closed');

      /* Online: a $35.00 card sale with no shift open opens one with an empty float, and is in it. */
      await nav('Register');
      await register.tapItem('itm_haircut');
      await page.getByTestId('charge').click();
      await page.getByTestId('tender-method-card').click();
      await page.getByTestId('charge-card').click();
      await untilCardReceipt(page);
      const cardReceipt = (await page.getByTestId('receipt-number').textContent())!;
      await page.getByTestId('new-sale').click();
      await nav('Shift');
      await eventually(async () => expect(await page.getByTestId('shift-status').textContent()).toContain('float $0.00'));
      await page.getByTestId('x-report').click();
      const x = page.getByTestId('x-report-view');
      await eventually(async () => expect(await x.locator('[data-label="Sales"] dd').textContent()).toBe('1'));
      await expect(x.locator('[data-label="Card (1)"] dd').textContent()).resolves.toBe('$35.00');
      await expect(x.locator('[data-label="Net sales incl. tax"] dd').textContent()).resolves.toBe('$35.00');
      await expect(x.locator('[data-label="Expected cash"] dd').textContent()).resolves.toBe('$0.00');
      // Nothing in the drawer: counted $0.00, even.
      await page.getByTestId('close-shift').click();
      await eventually(async () => expect(await page.getByTestId('expected-cash').textContent()).toBe('$0.00'));
      await expect(page.getByTestId('over-short').textContent()).resolves.toBe('Even');
      await page.getByTestId('confirm-close').click();
      let z = page.getByTestId('z-report-view');
      await z.waitFor({ timeout: TIMEOUT });
      await expect(z.locator('[data-label="Sales"] dd').textContent()).resolves.toBe('1');
      await expect(z.locator('[data-label="First receipt"] dd').textContent()).resolves.toBe(cardReceipt);
      await expect(z.locator('[data-label="Over"] dd').textContent()).resolves.toBe('$0.00');
      await eventually(async () => expect(await page.getByTestId('closeout-sync').getAttribute('data-state')).toBe('synced'), 60_000);
      await eventually(async () => expect(await page.getByTestId('server-check').getAttribute('data-state')).toBe('agree'));
      const cardClose = (await pullAll('shift-closeouts')).find((c) => c.report?.salesCount === 1 && c.countedCashCents === 0)!;
      const cardCheck = await api<{ report: { salesCount: number; expectedCashCents: number }; differences: unknown[] }>(
        `/api/pos/shifts/${cardClose.shiftId}`,
      );
      expect(cardCheck.differences).toEqual([]);
      expect(cardCheck.report).toMatchObject({ salesCount: 1, expectedCashCents: 0 });

      /* Offline: a $35.00 cash sale with no shift open opens the next shift and is in it; counted $35.00, even. */
      await context.setOffline(true);
      await register.waitForBadge('offline');
      await cashSale();
      await nav('Shift');
      await eventually(async () => expect(await page.getByTestId('shift-status').textContent()).toContain('float $0.00'));
      await page.getByTestId('close-shift').click();
      await eventually(async () => expect(await page.getByTestId('expected-cash').textContent()).toBe('$35.00'));
      await count('note-2000', 1);
      await count('note-1000', 1);
      await count('note-500', 1);
      await expect(page.getByTestId('over-short').textContent()).resolves.toBe('Even');
      await page.getByTestId('confirm-close').click();
      z = page.getByTestId('z-report-view');
      await z.waitFor({ timeout: TIMEOUT });
      await expect(z.locator('[data-label="Sales"] dd').textContent()).resolves.toBe('1');
      await expect(z.locator('[data-label="Cash sales"] dd').textContent()).resolves.toBe('$35.00');
      await expect(z.locator('[data-label="Expected cash"] dd').textContent()).resolves.toBe('$35.00');
      await expect(z.locator('[data-label="Over"] dd').textContent()).resolves.toBe('$0.00');
      await context.setOffline(false);
      await eventually(async () => expect(await page.getByTestId('closeout-sync').getAttribute('data-state')).toBe('synced'), 90_000);
      await register.waitForBadge('synced', 60_000);
      await eventually(async () => expect(await page.getByTestId('server-check').getAttribute('data-state')).toBe('agree'), 60_000);
      const cashClose = (await pullAll('shift-closeouts')).find(
        (c) => c.report?.salesCount === 1 && c.countedCashCents === 3_500 && c.shiftId !== cardClose.shiftId,
      )!;
      const cashCheck = await api<{ report: { salesCount: number; expectedCashCents: number }; differences: unknown[] }>(
        `/api/pos/shifts/${cashClose.shiftId}`,
      );
      expect(cashCheck.differences).toEqual([]);
      expect(cashCheck.report).toMatchObject({ salesCount: 1, expectedCashCents: 3_500 });
      // The drawer account got the cash sale and nothing else (no over/short posted).
      expect((await drawer()) - drawerBefore).toBe(3_500);
    },
  );
});
