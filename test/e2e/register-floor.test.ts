/**
 * Open checks on two registers of one restaurant, in Chromium: the store serves at tables (`serviceStyle`), so both
 * registers open on the floor plan. Register A seats table 12 for four guests, adds starters and mains by seat and
 * sends them to the kitchen; register B sees table 12 coloured as ordered, opens it and adds a dessert; A sees B's
 * line. A pre-bill marks the check printed without closing it, and re-opening it is recorded on the server. Real
 * server (in-memory database, demo store) + the built register.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ItemDialog } from './pages/register-page.ts';
import { launchChromium, openPage, requireBuiltRegister, staffApi } from './support/browser.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const TIMEOUT = 30_000;

describe('register floor and open checks', () => {
  let server: ServerUnderTest;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const api = staffApi(() => server);

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    browser = await launchChromium();
    const saved = await fetch(`${server.baseUrl}/api/pos/floor-plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        version: 0,
        areas: [
          {
            name: 'Dining room',
            tables: [
              { name: '12', seats: 4, shape: 'square', x: 100, y: 100, width: 120, height: 120 },
              { name: '14', seats: 2, shape: 'round', x: 400, y: 100, width: 100, height: 100 },
            ],
          },
          { name: 'Patio', tables: [{ name: 'P1', seats: 2, shape: 'round', x: 100, y: 100, width: 100, height: 100 }] },
        ],
      }),
    });
    expect(saved.status).toBe(200);
    const settings = await api<{ serviceStyle: string }>('/api/pos/settings', { method: 'PATCH', body: { serviceStyle: 'restaurant' } });
    expect(settings.serviceStyle).toBe('restaurant');
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  /** A register of its own (a new browser profile pairs itself in demo mode), signed in, on the floor. */
  const openRegister = async (): Promise<Page> => {
    const { context, page } = await openPage(browser, { width: 1280, height: 900 });
    contexts.push(context);
    await page.goto(server.baseUrl);
    const signIn = page.getByTestId('register-sign-in');
    await signIn.getByRole('option').first().waitFor({ state: 'attached', timeout: TIMEOUT });
    await signIn.getByLabel('PIN').fill(server.ownerPin);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('floor-table-12').waitFor({ timeout: TIMEOUT });
    return page;
  };

  /** Adds `itemId` on the open check to `seat` ('Table' or a number) and `course`; `size` answers the item's dialog. */
  const addItem = async (page: Page, itemId: string, seat: string, course: string, size?: RegExp) => {
    const check = page.getByTestId('check');
    await check.getByRole('group', { name: 'Seat' }).getByLabel(seat, { exact: true }).check();
    await check.getByRole('group', { name: 'Course' }).getByLabel(course, { exact: true }).check();
    const before = await check.getByTestId('check-line').count();
    await check.getByTestId(`menu-${itemId}`).click();
    if (size) await new ItemDialog(page).choose(size).then((dialog) => dialog.add());
    await expect.poll(() => check.getByTestId('check-line').count(), { timeout: TIMEOUT }).toBe(before + 1);
  };

  it('seats table 12 on register A, orders two courses for four guests, and register B sees it, adds a line that A sees', async () => {
    const a = await openRegister();
    const b = await openRegister();
    const tableA = a.getByTestId('floor-table-12');
    expect(await tableA.getAttribute('data-state')).toBe('free');
    // Areas are tabs: the patio's table shows on its tab.
    await a.getByRole('tab', { name: 'Patio' }).click();
    await a.getByTestId('floor-table-P1').waitFor({ timeout: TIMEOUT });
    await a.getByRole('tab', { name: 'Dining room' }).click();

    await tableA.click();
    const seat = a.getByTestId('seat-form');
    await seat.getByLabel('Guests').fill('4');
    await seat.getByRole('button', { name: 'Seat' }).click();
    const check = a.getByTestId('check');
    await check.waitFor({ timeout: TIMEOUT });
    expect(await check.getByTestId('check-state').textContent()).toBe('Seated');

    await a.getByTestId('menu-itm_croissant').waitFor({ timeout: TIMEOUT });
    await addItem(a, 'itm_croissant', '1', 'Starters');
    await addItem(a, 'itm_blueberry_muffin', '2', 'Starters');
    await addItem(a, 'itm_latte', '3', 'Mains', /Large/);
    await addItem(a, 'itm_coca_cola_can', '4', 'Mains');
    expect(await check.getByRole('region', { name: 'Seat 3, Mains' }).getByTestId('check-line').textContent()).toContain('Latte');
    // Fire the starters only, then send the rest.
    await check.getByRole('button', { name: 'Fire Starters' }).click();
    await expect.poll(() => check.locator('.check-line-sent').count(), { timeout: TIMEOUT }).toBe(2);
    await check.getByTestId('check-send').click();
    await expect.poll(() => check.locator('.check-line-sent').count(), { timeout: TIMEOUT }).toBe(4);
    expect(await check.getByTestId('check-send').isDisabled()).toBe(true);
    await check.getByTestId('check-back').click();
    await expect.poll(() => tableA.getAttribute('data-state'), { timeout: TIMEOUT }).toBe('ordered');

    // Register B: the table turns "ordered" once A's check reaches it through the server.
    const tableB = b.getByTestId('floor-table-12');
    await expect.poll(() => tableB.getAttribute('data-state'), { timeout: TIMEOUT }).toBe('ordered');
    expect(await tableB.getAttribute('aria-label')).toContain('4 guests');
    await tableB.click();
    const checkB = b.getByTestId('check');
    await expect.poll(() => checkB.getByTestId('check-line').count(), { timeout: TIMEOUT }).toBe(4);
    await b.getByTestId('menu-itm_chocolate_cookie').waitFor({ timeout: TIMEOUT });
    await addItem(b, 'itm_chocolate_cookie', '1', 'Desserts');

    // Register A sees B's line on its open table.
    await tableA.click();
    const lines = check.getByTestId('check-line');
    await expect.poll(() => lines.count(), { timeout: TIMEOUT }).toBe(5);
    expect(await check.getByRole('region', { name: 'Seat 1, Desserts' }).textContent()).toContain('Chocolate chip cookie');
  }, 240_000);

  it('prints a pre-bill without closing the check, and re-opening it is recorded on the server', async () => {
    const a = await openRegister();
    await a.getByTestId('floor-table-12').click();
    const check = a.getByTestId('check');
    await check.getByTestId('check-pre-bill').click();
    await expect.poll(() => check.getByTestId('check-state').textContent(), { timeout: TIMEOUT }).toBe('Check printed');
    // The pre-bill reaches the server before the check is re-opened (a re-opening pushed with it would replace it).
    const actions = async () =>
      (
        await server.db.query<{ action: string }>(
          `SELECT action FROM audit_log WHERE merchant_id = $1 AND action IN ('check.pre_billed', 'check.reopened') ORDER BY seq`,
          [server.merchantId],
        )
      ).rows.map((r) => r.action);
    await expect.poll(actions, { timeout: TIMEOUT }).toEqual(['check.pre_billed']);
    await check.getByTestId('check-reopen').click();
    await expect.poll(() => check.getByTestId('check-state').textContent(), { timeout: TIMEOUT }).toBe('Ordered');
    // The server's audit trail holds the pre-bill and the re-opening, each with the register that made it.
    await expect.poll(actions, { timeout: TIMEOUT }).toEqual(['check.pre_billed', 'check.reopened']);
  }, 120_000);
});
