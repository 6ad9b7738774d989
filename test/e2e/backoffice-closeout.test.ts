/**
 * Back office → Closeout in the built register (Debian Chromium) against the real server: a register's shift with a
 * sale and a closeout, synced over HTTP, shows on the day with the server's figures agreeing; the day waits for the
 * registers that synced nothing, lists them with why and when they were last seen, retires in one step the demo's
 * registers never used to sell (one per browser profile), closes with the rest recorded as missing, and offers the PDF.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeZReport, newId, type Shift, type ShiftCloseout } from '../../core/index.ts';
import { cutoffAwayFromNow } from '../support/business-day.ts';
import { enrollRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

describe('back office closeout', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let page: Page;

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1400, height: 900, acceptDownloads: true });
    ({ server, page } = suite);
  });
  afterAll(() => suite?.close());

  it('shows a synced shift, lists missing registers, closes the day with them recorded', { timeout: 120_000 }, async () => {
    const reg = await enrollRegister({ baseUrl: server.baseUrl }, server.staffToken, { name: 'Counter' });
    // The shift below opened 20 min ago must fall on the day the closeout screen opens on, at any time of the run.
    await cutoffAwayFromNow(server.db, server.merchantId);
    const push = async (collection: string, doc: unknown) => {
      const res = await fetch(`${server.baseUrl}/api/sync/${collection}/push`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reg.registerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ assumedMasterState: null, newDocumentState: doc }]),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([]);
    };
    const t0 = Date.now() - 20 * 60_000;
    const shift: Shift = {
      id: newId('shift'),
      registerId: reg.registerId,
      registerNumber: reg.registerNumber,
      currency: 'USD',
      openedAt: new Date(t0).toISOString(),
      openingFloatCents: 10_000,
    };
    const sale = buildSale({
      register: reg,
      sequence: reg.lastReceiptSequence + 1,
      catalog: server.catalog,
      createdAt: new Date(t0 + 60_000).toISOString(),
    }).order;
    const closedAt = new Date(t0 + 120_000).toISOString();
    const expected = computeZReport(shift, [sale], []).expectedCashCents;
    const closeout: ShiftCloseout = {
      id: newId('shiftCloseout'),
      shiftId: shift.id,
      registerId: reg.registerId,
      registerNumber: reg.registerNumber,
      currency: 'USD',
      closedAt,
      counted: [{ kind: 'coin', valueCents: 1, count: expected }],
      countedCashCents: expected,
      report: computeZReport(shift, [sale], [], { count: { closedAt, countedCashCents: expected } }),
    };
    await push('shifts', shift);
    await push('orders', sale);
    await push('shift-closeouts', closeout);

    // Two browser profiles that opened the demo on this machine an hour ago and never sold: a register each.
    const strays: { registerId: string; registerNumber: number; registerName: string }[] = [];
    for (const userAgent of [
      'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Windows NT 10.0; rv:133.0) Gecko/20100101 Firefox/133.0',
    ]) {
      const res = await fetch(`${server.baseUrl}/api/dev/pair-register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': userAgent },
        body: '{}',
      });
      expect(res.status).toBe(200);
      const stray = (await res.json()) as { registerId: string; registerNumber: number; registerName: string; registerToken: string };
      await fetch(`${server.baseUrl}/api/sync/orders/pull`, { headers: { authorization: `Bearer ${stray.registerToken}` } });
      strays.push(stray);
    }
    expect(strays.map((s) => s.registerName)).toEqual([
      `Demo register ${strays[0]!.registerNumber} (Chrome on Linux)`,
      `Demo register ${strays[1]!.registerNumber} (Firefox on Windows)`,
    ]);
    await server.db.query(`UPDATE register_credentials SET last_seen_at = now() - interval '1 hour' WHERE register_id = ANY($1)`, [
      strays.map((s) => s.registerId),
    ]);

    await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    const backOffice = await BackOfficePage.open(page, server.ownerPin);
    const root = await backOffice.closeout();
    const shifts = root.getByTestId('closeout-shifts');
    await expect.poll(() => shifts.textContent()).toContain(`R${reg.registerNumber}`);
    await expect(shifts.textContent()).resolves.toContain('agree');
    await expect(root.getByTestId('closeout-report').textContent()).resolves.toContain('Number of sales');
    // The browser's own register and the two strays synced no shift today: the close waits for them, and says why.
    const missing = root.getByTestId('closeout-missing-register');
    await expect.poll(() => missing.count()).toBe(3);
    const stray = missing.filter({ hasText: strays[0]!.registerName });
    await expect(stray.textContent()).resolves.toContain('no shift of this day has reached the server');
    await expect(stray.textContent()).resolves.toMatch(/Last seen .* \((59|60|61) min ago|1 h ago\)/);
    await expect(root.getByTestId('closeout-close').isDisabled()).resolves.toBe(true);

    // Back office → Registers retires the two strays in one step; this register (never sold either) is kept.
    const registers = await backOffice.registers();
    const retire = registers.getByTestId('retire-unused');
    await expect(retire.textContent()).resolves.toBe('Retire 2 unused');
    page.once('dialog', (d) => void d.accept());
    await retire.click();
    await expect
      .poll(() => registers.getByTestId('registers-notice').textContent())
      .toBe(`Retired R${strays[0]!.registerNumber}, R${strays[1]!.registerNumber}.`);
    await backOffice.closeout();
    await expect.poll(() => missing.count()).toBe(1);
    await expect(missing.textContent()).resolves.toContain('(Headless Chromium on Linux)');

    page.once('dialog', (d) => void d.accept());
    await root.getByTestId('closeout-close-missing').click();
    await expect.poll(() => root.locator('h2').textContent()).toMatch(/closed/);
    await expect(root.getByTestId('closeout-missing').textContent()).resolves.toContain('Closed with missing registers');

    const [download] = await Promise.all([page.waitForEvent('download'), root.getByRole('button', { name: 'Download PDF' }).click()]);
    const path = await download.path();
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(path)).subarray(0, 5).toString()).toBe('%PDF-');
    await page.screenshot({ path: '/tmp/backoffice-closeout.png' });
  });
});
