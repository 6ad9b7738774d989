/**
 * A station's kitchen tickets, derived on read from the check lines registers synced (modules/checks), routed by the
 * store's kitchen set-up (modules/kitchen) with the items' categories (modules/catalog), with the bumps and recalls
 * recorded (modules/kitchen) and the servers' names (modules/merchants); bumping and recalling them; and the ticket
 * times per station. A workflow: the lines are the checks module's rows, the set-up and trail the kitchen module's.
 */
import {
  allDayCounts,
  kitchenTicketsOf,
  routingOfSetup,
  ticketTimesOf,
  type KitchenTicket,
  type KitchenTicketEvent,
  type StationTicketTimes,
  type StationTickets,
} from '../../../core/index.ts';
import { mutation, type MutationActor } from '../kernel/mutation.ts';
import { categoriesOfItems } from '../modules/catalog/index.ts';
import { readSentCheckBook } from '../modules/checks/index.ts';
import { readKitchenSetup, readTicketEvents, recordTicketEvent } from '../modules/kitchen/index.ts';
import { staffNamesOf } from '../modules/merchants/index.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/db.ts';
import { ProblemError } from '../platform/http/problem.ts';

/** How far back a display looks for sent lines (ms): a ticket fired longer ago than this is off the display. */
export const DISPLAY_WINDOW_MS = 12 * 3_600_000;
/** Most bumped tickets a display lists for recall. */
const RECENTLY_BUMPED = 20;

const unknownStation = (stationId: string) =>
  new ProblemError(404, 'not_found', `There is no kitchen station "${stationId}": set it up in Back office → Kitchen.`);

/** The tickets of the sent lines of `book`-shaped reads, routed and marked; `stationId` null: every station. */
async function ticketsOf(
  db: Queryable,
  merchantId: string,
  which: Parameters<typeof readSentCheckBook>[2],
  stationId: string | null,
): Promise<{ tickets: KitchenTicket[]; events: KitchenTicketEvent[]; setup: Awaited<ReturnType<typeof readKitchenSetup>> }> {
  const setup = await readKitchenSetup(db, merchantId);
  const book = await readSentCheckBook(db, merchantId, which);
  const lines = Object.values(book.lines);
  const categories = await categoriesOfItems(
    db,
    merchantId,
    lines.map((l) => l.line.catalogItemId),
  );
  const events = await readTicketEvents(db, merchantId, [...new Set(lines.map((l) => l.sent!.sendId))]);
  const tickets = kitchenTicketsOf({
    checks: book.checks,
    lines: book.lines,
    routing: routingOfSetup(setup),
    categoryOf: (itemId) => categories.get(itemId),
    events,
    stationId,
  });
  return { tickets, events, setup };
}

/**
 * What the display of `stationId` shows at `now`: the open tickets fired in the last {@link DISPLAY_WINDOW_MS}, oldest
 * first, the last bumped ones (for recall), the all-day count and the store's age thresholds.
 * @throws ProblemError 404 `not_found` when the station is not set up.
 */
export async function stationTickets(db: Queryable, merchantId: string, stationId: string, now: Date): Promise<StationTickets> {
  const from = new Date(now.getTime() - DISPLAY_WINDOW_MS).toISOString();
  const to = new Date(now.getTime() + 60_000).toISOString(); // a register's clock a little ahead still shows
  const { tickets, setup } = await ticketsOf(db, merchantId, { from, to }, stationId);
  const station = setup.stations.find((s) => s.id === stationId);
  if (!station) throw unknownStation(stationId);
  const names = await staffNamesOf(
    db,
    merchantId,
    tickets.flatMap((t) => (t.serverStaffId ? [t.serverStaffId] : [])),
  );
  const shown = tickets.map((t) => ({ ...t, serverName: t.serverStaffId ? (names.get(t.serverStaffId) ?? null) : null }));
  return {
    station,
    warnAfterMinutes: setup.warnAfterMinutes,
    lateAfterMinutes: setup.lateAfterMinutes,
    tickets: shown.filter((t) => !t.bumped),
    recentlyBumped: shown
      .filter((t) => t.bumped)
      .sort((a, b) => Date.parse(b.bumped!.at) - Date.parse(a.bumped!.at))
      .slice(0, RECENTLY_BUMPED),
    allDay: allDayCounts(tickets),
    now: now.toISOString(),
  };
}

/**
 * Bumps (done) or recalls (back on the display) the ticket of `sendId` at `stationId`, in one mutation under the
 * store's write lock; the kitchen module records it with its audit entry.
 * @throws ProblemError 404 `not_found` when the station is not set up or the send has no line for that station;
 *   409 `ticket_already_bumped` / `ticket_not_bumped` when the ticket is not in the state the action leaves from.
 */
export async function markTicket(
  ctx: AppContext,
  actor: MutationActor & { staffId: string | null },
  ticket: { stationId: string; sendId: string; action: 'bump' | 'recall' },
): Promise<KitchenTicketEvent> {
  return mutation(ctx, actor, async (m) => {
    const { tickets, setup } = await ticketsOf(m.tx, m.merchantId, { sendIds: [ticket.sendId] }, ticket.stationId);
    if (!setup.stations.some((s) => s.id === ticket.stationId)) throw unknownStation(ticket.stationId);
    const found = tickets[0];
    if (!found) throw new ProblemError(404, 'not_found', `Send ${ticket.sendId} has no ticket at station "${ticket.stationId}".`);
    return recordTicketEvent(
      m,
      { ...ticket, checkId: found.checkId, bumped: found.bumped !== null },
      { registerId: actor.registerId ?? null, staffId: actor.staffId },
    );
  });
}

/**
 * Ticket times (fire → latest bump) per station of the tickets fired in [`from`, `to`), with the bumps and recalls
 * recorded for them: every station set up, then any other station a ticket went to.
 */
export async function kitchenTicketTimes(db: Queryable, merchantId: string, from: string, to: string): Promise<StationTicketTimes[]> {
  const { tickets, events, setup } = await ticketsOf(db, merchantId, { from, to }, null);
  return ticketTimesOf(tickets, events, setup.stations);
}
