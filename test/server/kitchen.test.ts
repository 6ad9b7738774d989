/**
 * The kitchen API: the back office saves stations, routing and thresholds whole from a version (400 naming the field,
 * 409 over a newer save, audited), registers read the routing from their configuration route; a station's display
 * shows the tickets of the check lines registers synced and sent — one per send id, routed by item, then category,
 * then the default, voided lines marked — and bump and recall are recorded with who and when, audited, and refused
 * from the wrong state; ticket times per station reconcile with the bumps recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCheckLine,
  checkDocumentsOf,
  EMPTY_CHECK_BOOK,
  openCheck,
  sendCheckLines,
  voidCheckLine,
  type CheckBook,
  type KitchenSetup,
  type OrderLine,
  type StationTickets,
} from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('kitchen on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let cashier: string;
  let register: EnrolledRegister;
  let display: EnrolledRegister;
  let lines: OrderLine[];
  let now = new Date('2026-11-28T12:00:00.000Z');

  const call = (method: string, url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const pushBook = async (book: CheckBook) => {
    const docs = checkDocumentsOf(book);
    for (const collection of ['checks', 'check-lines'] as const) {
      const res = await server.app.inject({
        method: 'POST',
        url: `/api/sync/${collection}/push`,
        headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify(docs[collection].map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
      });
      expect(res.json(), res.body).toEqual([]);
    }
  };
  const at = (minute: number) => ({
    at: `2026-11-28T11:${String(minute).padStart(2, '0')}:00.000Z`,
    by: register.registerId,
    staffId: server.credentials.staffId,
  });
  const tickets = async (station: string) => {
    const res = await call('GET', `/api/pos/kitchen/stations/${station}/tickets`, display.registerToken);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<StationTickets>();
  };
  const setup = {
    stations: [
      { id: 'grill', name: 'Grill' },
      { id: 'cold', name: 'Cold' },
    ],
    byItem: { itm_latte: 'cold' },
    byCategory: { Bakery: 'grill' },
    defaultStationId: 'grill',
    notPrepared: ['itm_haircut'],
    warnAfterMinutes: 5,
    lateAfterMinutes: 10,
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, clock: () => now });
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
    display = await enrollRegister(server, owner, { name: 'Grill screen' });
    const cashierId = (await call('POST', '/api/pos/staff', owner, { name: 'Cass Cashier', role: 'cashier', pin: '1357' })).json<{ id: string }>().id;
    cashier = (await call('POST', '/api/register/sign-in', register.registerToken, { staffId: cashierId, pin: '1357' })).json<{
      staffToken: string;
    }>().staffToken;
    lines = buildSale({ register, sequence: 1, catalog: server.catalog }).order.lines;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('saves the set-up from its version, names the field of a broken rule, refuses a stale save, and reaches registers', async () => {
    const empty = await call('GET', '/api/pos/kitchen/setup', register.registerToken);
    expect(empty.json()).toMatchObject({ version: 0, stations: [], warnAfterMinutes: 8, lateAfterMinutes: 15 });

    const unknownStation = await call('PUT', '/api/pos/kitchen/setup', owner, { version: 0, ...setup, byCategory: { Bakery: 'fryer' } });
    expect(unknownStation.statusCode).toBe(400);
    expect(unknownStation.json().errors).toEqual([{ path: 'byCategory.Bakery', message: 'names station "fryer", which is not set up' }]);
    const late = await call('PUT', '/api/pos/kitchen/setup', owner, { version: 0, ...setup, lateAfterMinutes: 5 });
    expect(late.statusCode).toBe(400);
    expect(late.json().detail).toContain('lateAfterMinutes');
    const badId = await call('PUT', '/api/pos/kitchen/setup', owner, { version: 0, ...setup, stations: [{ id: 'Grill Line', name: 'Grill' }] });
    expect(badId.statusCode).toBe(400);
    expect(badId.json().detail).toContain('stations.0.id');
    expect((await call('PUT', '/api/pos/kitchen/setup', cashier, { version: 0, ...setup })).statusCode).toBe(403);

    const saved = await call('PUT', '/api/pos/kitchen/setup', owner, { version: 0, ...setup });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json<KitchenSetup>()).toMatchObject({ version: 1, ...setup });
    const stale = await call('PUT', '/api/pos/kitchen/setup', owner, { version: 0, ...setup, warnAfterMinutes: 6 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().code).toBe('kitchen_setup_changed');

    const routing = await call('GET', '/api/register/kitchen', register.registerToken);
    expect(routing.statusCode, routing.body).toBe(200);
    expect(routing.json()).toEqual({ version: 1, ...setup });

    const audit = await server.db.query<{ data: { stationsAdded: unknown[] } }>(
      `SELECT data FROM audit_log WHERE merchant_id = $1 AND action = 'kitchen_setup.saved'`,
      [server.credentials.merchantId],
    );
    expect(audit.rows.map((r) => r.data.stationsAdded)).toEqual([setup.stations]);
  });

  it('shows each station its sent lines as tickets, records bump and recall, and reconciles ticket times', async () => {
    const staff = server.credentials.staffId;
    // Latte (by item → cold), croissants (Bakery → grill), haircut (not prepared); one line left unsent.
    const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'table', name: 'Table 12', guests: 2, serverStaffId: staff }, at(0));
    let book = addCheckLine(opened.book, opened.checkId, lines[0]!, { seat: 1, course: 1, note: 'extra hot' }, at(1));
    book = addCheckLine(book, opened.checkId, lines[1]!, { seat: 2, course: 1 }, at(1));
    book = addCheckLine(book, opened.checkId, lines[2]!, { seat: null, course: 1 }, at(1));
    const first = sendCheckLines(book, opened.checkId, at(2));
    book = voidCheckLine(first.book, lines[1]!.id, 'dropped', staff, at(3));
    await pushBook(book);

    const grill = await tickets('grill');
    expect(grill.station).toEqual({ id: 'grill', name: 'Grill' });
    expect(grill).toMatchObject({ warnAfterMinutes: 5, lateAfterMinutes: 10, recentlyBumped: [], now: now.toISOString() });
    expect(grill.tickets).toHaveLength(1);
    expect(grill.tickets[0]).toMatchObject({
      sendId: first.sendId,
      checkName: 'Table 12',
      guests: 2,
      serverName: expect.any(String),
      firedAt: at(2).at,
      bumped: null,
      lines: [{ name: 'Butter croissant', quantity: 2, seat: 2, course: 1, voided: true, note: null }],
    });
    const cold = await tickets('cold');
    expect(cold.tickets.map((t) => t.lines.map((l) => [l.name, l.modifiers.length > 0, l.note, l.voided]))).toEqual([
      [['Latte', true, 'extra hot', false]],
    ]);
    // The voided croissants are not counted all day; the latte is.
    expect(grill.allDay).toEqual([]);
    expect(cold.allDay).toEqual([{ name: 'Latte', quantity: 1 }]);

    // Bumped 4 minutes after fire by the display, then recalled, then bumped again by a staff member at 11:09.
    now = new Date('2026-11-28T11:06:00.000Z');
    const bump = await call('POST', `/api/pos/kitchen/stations/cold/tickets/${first.sendId}/bump`, display.registerToken, {});
    expect(bump.statusCode, bump.body).toBe(201);
    expect(bump.json()).toEqual({
      stationId: 'cold',
      sendId: first.sendId,
      action: 'bump',
      at: now.toISOString(),
      registerId: display.registerId,
      staffId: null,
    });
    expect((await call('POST', `/api/pos/kitchen/stations/cold/tickets/${first.sendId}/bump`, display.registerToken, {})).statusCode).toBe(409);
    expect((await tickets('cold')).tickets).toEqual([]);
    expect((await tickets('cold')).recentlyBumped.map((t) => t.bumped?.registerId)).toEqual([display.registerId]);
    expect((await tickets('cold')).allDay).toEqual([]);
    // The grill's ticket of the same send is not touched.
    expect((await tickets('grill')).tickets.map((t) => t.sendId)).toEqual([first.sendId]);

    now = new Date('2026-11-28T11:07:00.000Z');
    const recall = await call('POST', `/api/pos/kitchen/stations/cold/tickets/${first.sendId}/recall`, display.registerToken, {});
    expect(recall.statusCode, recall.body).toBe(201);
    expect((await tickets('cold')).tickets.map((t) => t.sendId)).toEqual([first.sendId]);
    const recallAgain = await call('POST', `/api/pos/kitchen/stations/cold/tickets/${first.sendId}/recall`, display.registerToken, {});
    expect(recallAgain.statusCode).toBe(409);
    expect(recallAgain.json().code).toBe('ticket_not_bumped');
    now = new Date('2026-11-28T11:09:00.000Z');
    const again = await call('POST', `/api/pos/kitchen/stations/cold/tickets/${first.sendId}/bump`, cashier, {});
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ registerId: null, staffId: expect.stringMatching(/^stf_/) });

    // Unknown station, a send with nothing for this station, a malformed send id.
    expect((await call('POST', `/api/pos/kitchen/stations/fryer/tickets/${first.sendId}/bump`, display.registerToken, {})).statusCode).toBe(404);
    const none = await call('GET', '/api/pos/kitchen/stations/fryer/tickets', display.registerToken);
    expect(none.statusCode).toBe(404);
    const badSend = await call('POST', '/api/pos/kitchen/stations/grill/tickets/ord_1/bump', display.registerToken, {});
    expect(badSend.statusCode).toBe(400);
    expect(badSend.json().detail).toContain('sendId');

    const audit = await server.db.query<{ action: string; data: { registerId: string | null } }>(
      `SELECT action, data FROM audit_log WHERE merchant_id = $1 AND action LIKE 'kitchen_ticket.%' ORDER BY seq`,
      [server.credentials.merchantId],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['kitchen_ticket.bumped', 'kitchen_ticket.recalled', 'kitchen_ticket.bumped']);

    // Ticket times: cold's one ticket fired 11:02, last bumped 11:09 → 420 s; 2 bumps − 1 recall = 1 bumped ticket.
    const times = await call('GET', '/api/pos/kitchen/ticket-times?from=2026-11-28T00:00:00Z&to=2026-11-29T00:00:00Z', owner);
    expect(times.statusCode, times.body).toBe(200);
    const stations = times.json<{ stations: Record<string, unknown>[] }>().stations;
    expect(stations).toEqual([
      expect.objectContaining({ stationId: 'grill', tickets: 1, bumpedTickets: 0, openTickets: 1, bumpsRecorded: 0, averageSeconds: null }),
      expect.objectContaining({
        stationId: 'cold',
        tickets: 1,
        bumpedTickets: 1,
        bumpsRecorded: 2,
        recallsRecorded: 1,
        averageSeconds: 420,
        medianSeconds: 420,
        longestSeconds: 420,
      }),
    ]);
    const rows = await server.db.query<{ action: string }>(
      `SELECT action FROM kitchen_ticket_events WHERE merchant_id = $1 AND station_id = 'cold'`,
      [server.credentials.merchantId],
    );
    expect(rows.rows.filter((r) => r.action === 'bump')).toHaveLength(2);

    const badPeriod = await call('GET', '/api/pos/kitchen/ticket-times?from=2026-11-28T00:00:00Z&to=2026-11-27T00:00:00Z', owner);
    expect(badPeriod.statusCode).toBe(400);
    expect(badPeriod.json().errors).toEqual([{ path: 'to', message: 'must be after from' }]);
    const badFrom = await call('GET', '/api/pos/kitchen/ticket-times?from=yesterday&to=2026-11-27T00:00:00Z', owner);
    expect(badFrom.statusCode).toBe(400);
    expect(badFrom.json().detail).toContain('from');
    expect((await call('GET', '/api/pos/kitchen/ticket-times?from=2026-11-28T00:00:00Z&to=2026-11-29T00:00:00Z', cashier)).statusCode).toBe(403);
  });
});
