/**
 * The kitchen display in Chromium: `/kitchen/grill` and `/kitchen/cold` pair by themselves (demo mode on this
 * machine) and open empty; a register pushes a check with sent lines through the sync API, as a register does; the
 * ticket arrives on the grill's display (its lines routed there by category), never on the cold's. Bump takes it off
 * and the server records it (which display, when); Recall brings it back. Real server + built register.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCheckLine, checkDocumentsOf, EMPTY_CHECK_BOOK, openCheck, sendCheckLines, voidCheckLine } from '../../core/index.ts';
import { enrollRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';

const TIMEOUT = 30_000;

describe('kitchen display', () => {
  let suite: BrowserSuite;
  beforeAll(async () => {
    suite = await startBrowserSuite();
  });
  afterAll(async () => {
    await suite?.close();
  });

  it('shows a sent ticket on its station only, bumps it (recorded) and recalls it', { timeout: 120_000 }, async () => {
    const { page, server, context } = suite;
    const saved = await fetch(`${server.baseUrl}/api/pos/kitchen/setup`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        version: 0,
        stations: [
          { id: 'grill', name: 'Grill' },
          { id: 'cold', name: 'Cold' },
        ],
        byItem: {},
        byCategory: { Bakery: 'grill', Coffee: 'grill' },
        defaultStationId: null,
        notPrepared: ['itm_haircut'],
        warnAfterMinutes: 8,
        lateAfterMinutes: 15,
      }),
    });
    expect(saved.status, await saved.clone().text()).toBe(200);

    await page.goto(`${server.baseUrl}/kitchen/grill`);
    const grill = page.getByTestId('kitchen-display');
    await grill.getByTestId('kds-empty').waitFor({ timeout: TIMEOUT });
    const coldPage = await context.newPage();
    await coldPage.goto(`${server.baseUrl}/kitchen/cold`);
    await coldPage.getByTestId('kds-empty').waitFor({ timeout: TIMEOUT });

    // A register opens table 12, adds a latte and two croissants, fires them, then voids the croissants.
    const register = await enrollRegister({ baseUrl: server.baseUrl }, server.staffToken);
    const lines = buildSale({ register, sequence: 1, catalog: server.catalog }).order.lines;
    const stamp = () => ({ at: new Date().toISOString(), by: register.registerId });
    const staffId = (await (await fetch(`${server.baseUrl}/api/pos/staff`, { headers: { authorization: `Bearer ${server.staffToken}` } })).json())
      .data[0].id as string;
    const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'table', name: 'Table 12', guests: 2, serverStaffId: staffId }, stamp());
    let book = addCheckLine(opened.book, opened.checkId, lines[0]!, { seat: 1, course: 1, note: 'extra hot' }, stamp());
    book = addCheckLine(book, opened.checkId, lines[1]!, { seat: 2, course: 1 }, stamp());
    book = addCheckLine(book, opened.checkId, lines[2]!, { seat: null, course: 1 }, stamp());
    const sent = sendCheckLines(book, opened.checkId, stamp());
    book = voidCheckLine(sent.book, lines[1]!.id, 'dropped', staffId, stamp());
    const docs = checkDocumentsOf(book);
    for (const collection of ['checks', 'check-lines'] as const) {
      const res = await fetch(`${server.baseUrl}/api/sync/${collection}/push`, {
        method: 'POST',
        headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(docs[collection].map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
      });
      expect(await res.json()).toEqual([]);
    }

    // It arrives on the grill's display without a reload: table, server, seat, modifiers, note, the void struck.
    const ticket = grill.getByTestId('kds-ticket');
    await ticket.waitFor({ timeout: TIMEOUT });
    const text = await ticket.textContent();
    expect(text).toContain('Table 12');
    expect(text).toContain('2 guests');
    expect(text).toContain('1 × Latte');
    expect(text).toContain('** extra hot **');
    expect(text).toContain('Seat 1');
    expect(await ticket.locator('s').textContent()).toBe('2 × Butter croissant');
    expect(await ticket.getByText('VOID', { exact: true }).count()).toBe(1);
    expect(await grill.getByTestId('kds-all-day').textContent()).toBe('1 Latte');
    expect(await ticket.getAttribute('data-age')).toBe('fresh');
    // The cold station's display stays empty.
    await expect.poll(() => coldPage.getByTestId('kds-empty').count(), { timeout: TIMEOUT }).toBe(1);
    expect(await coldPage.getByTestId('kds-ticket').count()).toBe(0);
    await coldPage.close();

    // Bump from the keyboard (the ticket in focus, Enter): off the display, recorded on the server.
    await ticket.focus();
    await page.keyboard.press('Enter');
    await grill.getByTestId('kds-empty').waitFor({ timeout: TIMEOUT });
    const events = async () =>
      (
        await server.db.query<{ action: string; station_id: string; send_id: string; register_id: string | null }>(
          `SELECT action, station_id, send_id, register_id FROM kitchen_ticket_events WHERE merchant_id = $1 ORDER BY id`,
          [server.merchantId],
        )
      ).rows;
    const bumped = await events();
    expect(bumped).toEqual([{ action: 'bump', station_id: 'grill', send_id: sent.sendId, register_id: expect.stringMatching(/^reg_/) }]);
    expect(bumped[0]!.register_id).not.toBe(register.registerId);

    // Recall by touch: the ticket is back, and the recall is recorded too.
    await grill.getByRole('button', { name: 'Recall Table 12' }).click();
    await ticket.waitFor({ timeout: TIMEOUT });
    expect((await events()).map((e) => e.action)).toEqual(['bump', 'recall']);
  });
});
