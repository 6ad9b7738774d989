/**
 * Kitchen tickets (core/kitchen.ts) printed on two stations' printers — the grill's and the bar's, each its simulator
 * behind a real socat pseudo-terminal pair: one ticket per station per send in large type, the courses fired apart,
 * a void printed with its reason, and the same send handed over again (as after a register restart) never printed
 * twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addCheckLine,
  EMPTY_CHECK_BOOK,
  kitchenTicketJobs,
  KitchenError,
  newId,
  openCheck,
  sendCheckLines,
  voidCheckLine,
  type CheckBook,
  type KitchenRouting,
  type OrderLine,
  type Stamp,
} from '../../core/index.ts';
import { ReceiptPrinter } from '../../electron/devices/escpos/receipt-printer.ts';
import { startPrinterSimulator, type PrinterSimulator } from '../../electron/devices/simulators/printer-simulator.ts';

function dish(name: string, catalogItemId: string, quantity = 1, modifiers: string[] = []): OrderLine {
  return {
    id: newId('orderLine'),
    catalogItemId,
    variationId: `var_${catalogItemId}`,
    kind: 'product',
    name,
    variationName: 'Regular',
    modifiers: modifiers.map((m, i) => ({ id: `mod_${i}`, name: m, priceCents: 0 })),
    quantity,
    unitPriceCents: 1000,
    grossCents: 1000 * quantity,
    discountCents: 0,
    netCents: 1000 * quantity,
    taxCents: 0,
    taxes: [],
  };
}

const at = (minute: number): Stamp => ({ at: new Date(Date.UTC(2026, 10, 28, 18, minute)).toISOString(), by: 'reg_front' });

const routing: KitchenRouting = {
  stations: [
    { id: 'grill', name: 'Grill' },
    { id: 'bar', name: 'Bar' },
  ],
  byItem: { itm_negroni: 'bar' },
  byCategory: { cat_drinks: 'bar', cat_mains: 'grill' },
  defaultStationId: 'grill',
  notPrepared: ['itm_gift_card'],
};
const categoryOf = (itemId: string) => (itemId === 'itm_lager' ? 'cat_drinks' : undefined);

describe('kitchen tickets on the stations’ printers', () => {
  let dir: string;
  const simulators = new Map<string, PrinterSimulator>();
  const printers = new Map<string, ReceiptPrinter>();
  const openPrinter = async (station: string) => {
    const printer = await ReceiptPrinter.open({
      port: { path: simulators.get(station)!.devicePath, baudRate: 38400, parity: 'odd', stopBits: 2 },
      queueDir: join(dir, `queue-${station}`),
      statusTimeoutMs: 500,
      retryIntervalMs: 50,
    });
    printers.set(station, printer);
    return printer;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kitchen-test-'));
    for (const station of ['grill', 'bar']) {
      simulators.set(station, await startPrinterSimulator({ dir: join(dir, station), serial: { baudRate: 38400, parity: 'odd', stopBits: 2 } }));
      await openPrinter(station);
    }
  });

  afterEach(async () => {
    for (const p of printers.values()) await p.close();
    for (const s of simulators.values()) await s.stop();
    printers.clear();
    simulators.clear();
    await rm(dir, { recursive: true, force: true });
  });

  const printAll = async (jobs: ReturnType<typeof kitchenTicketJobs>) => {
    const results = [];
    for (const job of jobs) {
      const station = job.jobId.split('-').at(-1)!;
      const printer = printers.get(station)!;
      results.push(await printer.print(job));
      await printer.whenIdle();
    }
    return results;
  };

  it('prints one ticket per station per send, fires the mains apart, prints a void with its reason, and never prints a send twice', async () => {
    let book: CheckBook = EMPTY_CHECK_BOOK;
    const opened = openCheck(book, { kind: 'table', tableId: 'T12', name: 'Table 12', guests: 4, serverStaffId: 'stf_ana' }, at(0));
    book = opened.book;
    const soup = dish('Onion soup', 'itm_soup');
    const steak = dish('Ribeye steak', 'itm_steak', 2, ['Medium rare']);
    const negroni = dish('Negroni', 'itm_negroni');
    const lager = dish('Lager', 'itm_lager', 3);
    const card = dish('Gift card', 'itm_gift_card');
    book = addCheckLine(book, opened.checkId, soup, { seat: 1, course: 1, note: 'no croutons' }, at(1));
    book = addCheckLine(book, opened.checkId, negroni, { seat: 2, course: 1 }, at(1));
    book = addCheckLine(book, opened.checkId, lager, { seat: null, course: 1 }, at(1));
    book = addCheckLine(book, opened.checkId, card, { seat: null, course: 1 }, at(1));
    book = addCheckLine(book, opened.checkId, steak, { seat: 3, course: 2 }, at(2));
    const ticket = (send: { sendId: string; lineIds: string[]; book: CheckBook }, minute: number) =>
      kitchenTicketJobs(
        {
          kind: 'send',
          id: send.sendId,
          check: send.book.checks[opened.checkId]!,
          serverName: 'Ana',
          lines: send.lineIds.map((id) => send.book.lines[id]!),
          at: at(minute).at,
          timeZone: 'Europe/Paris',
        },
        routing,
        categoryOf,
      );

    // Send the first course: the grill gets the soup, the bar the drinks; the gift card goes nowhere.
    const starters = sendCheckLines(book, opened.checkId, at(3), { course: 1 });
    book = starters.book;
    const first = ticket(starters, 3);
    expect(first.map((j) => j.jobId)).toEqual([`kt-${starters.sendId}-grill`, `kt-${starters.sendId}-bar`]);
    await printAll(first);
    const grill = simulators.get('grill')!;
    const bar = simulators.get('bar')!;
    expect(grill.receipts).toHaveLength(1);
    const soupTicket = grill.receipts[0]!;
    expect(soupTicket.lines.map((l) => l.text)).toEqual([
      'GRILL',
      'Table 12',
      'Server: Ana   Guests: 4   19:03',
      '-'.repeat(42),
      'Course 1',
      '1 x Onion soup',
      '   ** no croutons **',
      '   Seat 1',
    ]);
    expect(soupTicket.lines.find((l) => l.text === 'Table 12')).toMatchObject({ widthScale: 2, heightScale: 2, bold: true });
    expect(soupTicket.lines.find((l) => l.text === '1 x Onion soup')).toMatchObject({ widthScale: 2, heightScale: 2 });
    expect(bar.receipts.map((r) => r.lines.map((l) => l.text).filter((t) => / x /.test(t)))).toEqual([['3 x Lager', '1 x Negroni']]);

    // The register restarts and hands the same send over again: the queues know the job ids, nothing prints twice.
    for (const station of ['grill', 'bar']) {
      await printers.get(station)!.close();
      await openPrinter(station);
    }
    expect((await printAll(first)).map((r) => r.duplicate)).toEqual([true, true]);
    expect([grill.receipts.length, bar.receipts.length]).toEqual([1, 1]);

    // Fire the mains: only the grill, course 2, with the modifier.
    const mains = sendCheckLines(book, opened.checkId, at(25), { course: 2 });
    book = mains.book;
    await printAll(ticket(mains, 25));
    expect(grill.receipts).toHaveLength(2);
    expect(grill.receipts[1]!.lines.map((l) => l.text)).toEqual(
      expect.arrayContaining(['Course 2', '2 x Ribeye steak', '   + Medium rare', '   Seat 3']),
    );
    expect(bar.receipts).toHaveLength(1);

    // A void of a sent line prints VOID and the reason, at its station; its job id is the line's.
    book = voidCheckLine(book, steak.id, 'guest allergic', 'stf_mgr', at(27));
    const voided = kitchenTicketJobs(
      {
        kind: 'void',
        id: steak.id,
        check: book.checks[opened.checkId]!,
        serverName: 'Ana',
        lines: [book.lines[steak.id]!],
        at: at(27).at,
        timeZone: 'Europe/Paris',
        reason: 'guest allergic',
      },
      routing,
      categoryOf,
    );
    await printAll(voided);
    await printAll(voided);
    expect(grill.receipts).toHaveLength(3);
    const voidTicket = grill.receipts[2]!;
    expect(voidTicket.lines[1]).toMatchObject({ text: '*** VOID ***', widthScale: 2, bold: true });
    expect(voidTicket.lines.map((l) => l.text)).toEqual(expect.arrayContaining(['Reason: guest allergic', '2 x Ribeye steak']));
  });

  it('refuses a line routed to a station that is not set up', () => {
    const { book, checkId } = openCheck(EMPTY_CHECK_BOOK, { kind: 'tab', name: 'Sam', guests: 1, serverStaffId: 's' }, at(0));
    const fish = dish('Sea bass', 'itm_fish');
    const withFish = addCheckLine(book, checkId, fish, { seat: null, course: 1 }, at(1));
    expect(() =>
      kitchenTicketJobs(
        {
          kind: 'send',
          id: 'snd_x',
          check: withFish.checks[checkId]!,
          serverName: 'Bo',
          lines: [withFish.lines[fish.id]!],
          at: at(1).at,
          timeZone: 'UTC',
        },
        { ...routing, byItem: { itm_fish: 'fryer' } },
      ),
    ).toThrow(KitchenError);
  });
});
