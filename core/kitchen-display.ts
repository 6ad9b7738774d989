/**
 * The kitchen's set-up and its display: the store's stations and routing (core/kitchen.ts `KitchenRouting`) with the
 * ticket age thresholds, saved whole from a version like the floor plan; and the tickets a station's display shows,
 * derived from a check book's sent lines — one ticket per send id and station — with their bump state, the all-day
 * count, the age colour and the ticket times (fire → bump) per station. Pure.
 */
import { z } from 'zod';
import type { CheckHeader, CheckLine } from './checks.ts';
import { stationOfLine, type KitchenRouting } from './kitchen.ts';
import { nonBlankText } from './schemas.ts';

/** Most stations of a store, and most routing entries by item or by category. */
export const KITCHEN_LIMITS = { stations: 30, routes: 5_000 } as const;
/** Default ticket age thresholds, minutes: a ticket turns amber after `warn`, red after `late`. */
export const DEFAULT_TICKET_THRESHOLDS = { warnAfterMinutes: 8, lateAfterMinutes: 15 } as const;

const stationIdSchema = z
  .string()
  .regex(/^[a-z0-9_-]{1,24}$/, 'must be a short id: 1 to 24 lower-case letters, digits, - or _ (it is the display’s address, /kitchen/<id>)');
const itemIdSchema = z.string().min(1).max(64);

/** A station as set up: its id (the display's address) and the name on its tickets and display. */
export const kitchenStationSchema = z.strictObject({
  id: stationIdSchema.describe('Short id, kept for life: the display of this station opens at /kitchen/<id>.'),
  name: nonBlankText(40).describe('"Grill", "Cold", "Bar".'),
});

const setupFields = {
  stations: z.array(kitchenStationSchema).max(KITCHEN_LIMITS.stations),
  byItem: z.record(itemIdSchema, stationIdSchema).describe('Catalog item id → station id (wins over its category).'),
  byCategory: z.record(nonBlankText(100), stationIdSchema).describe("Catalog category (the items' `category`, exact spelling) → station id."),
  defaultStationId: stationIdSchema.nullable().describe('Where the other prepared items go; null: nowhere.'),
  notPrepared: z.array(itemIdSchema).max(KITCHEN_LIMITS.routes).describe('Catalog item ids that go to no station (bottled drinks, retail).'),
  warnAfterMinutes: z.int().min(1).max(240).describe('A ticket older than this (minutes since it was fired) shows amber.'),
  lateAfterMinutes: z.int().min(1).max(240).describe('A ticket older than this shows red; more than warnAfterMinutes.'),
};

/** `GET /api/pos/kitchen/setup` and the answer of PUT: stations, routing and thresholds (version 0: never saved). */
export const kitchenSetupSchema = z.strictObject({
  version: z.int().min(0).describe('Goes up by one at each save; a save names the version it was edited from.'),
  ...setupFields,
  updatedAt: z.string().nullable().describe('When it was last saved (ISO 8601), null when never.'),
});
export type KitchenSetup = z.infer<typeof kitchenSetupSchema>;

/** `PUT /api/pos/kitchen/setup` body: the whole set-up as edited, and the version it was edited from. */
export const kitchenSetupUpdateSchema = z.strictObject({ version: z.int().min(0), ...setupFields });
export type KitchenSetupUpdate = z.infer<typeof kitchenSetupUpdateSchema>;

/**
 * `GET /api/register/kitchen`: what a register keeps of the kitchen set-up to print each station's tickets while
 * offline — core/kitchen.ts `KitchenRouting`, with the set-up version and the ticket age thresholds.
 */
export const registerKitchenRoutingSchema = kitchenSetupSchema
  .pick({
    version: true,
    stations: true,
    byItem: true,
    byCategory: true,
    defaultStationId: true,
    notPrepared: true,
    warnAfterMinutes: true,
    lateAfterMinutes: true,
  })
  .describe('core/kitchen.ts KitchenRouting, with the set-up version and the ticket age thresholds.');

/** The set-up of a store that never saved one: no stations, default thresholds. */
export const EMPTY_KITCHEN_SETUP: KitchenSetup = {
  version: 0,
  stations: [],
  byItem: {},
  byCategory: {},
  defaultStationId: null,
  notPrepared: [],
  ...DEFAULT_TICKET_THRESHOLDS,
  updatedAt: null,
};

/**
 * The rules of a set-up beyond each field's bounds, each with the field's path: station ids unique, every route and
 * the default naming a station of the set-up, at most {@link KITCHEN_LIMITS}.routes routes, late after warn.
 */
export function kitchenSetupIssues(setup: KitchenSetupUpdate): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const ids = new Set<string>();
  setup.stations.forEach((s, i) => {
    if (ids.has(s.id)) issues.push({ path: `stations.${i}.id`, message: `"${s.id}" is the id of another station` });
    ids.add(s.id);
  });
  for (const [item, station] of Object.entries(setup.byItem))
    if (!ids.has(station)) issues.push({ path: `byItem.${item}`, message: `names station "${station}", which is not set up` });
  for (const [category, station] of Object.entries(setup.byCategory))
    if (!ids.has(station)) issues.push({ path: `byCategory.${category}`, message: `names station "${station}", which is not set up` });
  if (setup.defaultStationId !== null && !ids.has(setup.defaultStationId))
    issues.push({ path: 'defaultStationId', message: `names station "${setup.defaultStationId}", which is not set up` });
  if (Object.keys(setup.byItem).length + Object.keys(setup.byCategory).length > KITCHEN_LIMITS.routes)
    issues.push({ path: 'byItem', message: `more than ${KITCHEN_LIMITS.routes} routes by item and category together` });
  if (setup.lateAfterMinutes <= setup.warnAfterMinutes)
    issues.push({ path: 'lateAfterMinutes', message: `must be more than warnAfterMinutes (${setup.warnAfterMinutes})` });
  return issues;
}

/** The set-up as core/kitchen.ts routing (what the register prints tickets by). */
export function routingOfSetup(setup: Pick<KitchenSetup, 'stations' | 'byItem' | 'byCategory' | 'defaultStationId' | 'notPrepared'>): KitchenRouting {
  return {
    stations: setup.stations,
    byItem: setup.byItem,
    byCategory: setup.byCategory,
    defaultStationId: setup.defaultStationId,
    notPrepared: setup.notPrepared,
  };
}

/** One line of a ticket, as the display shows it. */
export interface KitchenTicketLine {
  lineId: string;
  name: string;
  variationName: string;
  quantity: number;
  modifiers: string[];
  note: string | null;
  seat: number | null;
  course: number;
  /** Voided after it was sent: shown struck through with VOID. */
  voided: boolean;
}

/** A bump or recall of a ticket: when, by which device (register id) and staff member. */
export interface KitchenTicketMark {
  at: string;
  registerId: string | null;
  staffId: string | null;
}

/** A ticket of one station: the lines of one send (send id) that route to it. */
export interface KitchenTicket {
  sendId: string;
  stationId: string;
  checkId: string;
  /** The check's name ("Table 12", a tab's name); "?" when the header has not arrived. */
  checkName: string;
  tableId: string | null;
  guests: number | null;
  serverStaffId: string | null;
  /** When it was fired: the earliest send stamp of its lines (ISO 8601). */
  firedAt: string;
  lines: KitchenTicketLine[];
  /** The latest bump, when the ticket is bumped (a recall after it clears it). */
  bumped: KitchenTicketMark | null;
}

/** A bump or recall as recorded, for {@link kitchenTicketsOf}. */
export interface KitchenTicketEvent {
  stationId: string;
  sendId: string;
  action: 'bump' | 'recall';
  at: string;
  registerId: string | null;
  staffId: string | null;
}

/**
 * The tickets of `stationId` (every station when null): the sent lines of `lines` grouped by send id and routed by
 * `routing` (core/kitchen.ts `stationOfLine`), with the state the `events` leave (in the order recorded: the last
 * one counts), ordered by fire time then send id. Lines of a ticket in course, seat, then added order.
 */
export function kitchenTicketsOf(input: {
  checks: Readonly<Record<string, CheckHeader>>;
  lines: Readonly<Record<string, CheckLine>>;
  routing: KitchenRouting;
  categoryOf: (catalogItemId: string) => string | undefined;
  events: readonly KitchenTicketEvent[];
  stationId: string | null;
}): KitchenTicket[] {
  const byKey = new Map<string, { stationId: string; sendId: string; lines: [string, CheckLine][] }>();
  for (const [id, line] of Object.entries(input.lines)) {
    if (!line.sent) continue;
    const station = stationOfLine(line, input.routing, input.categoryOf);
    if (station === null || (input.stationId !== null && station !== input.stationId)) continue;
    const key = `${line.sent.sendId}\u0000${station}`;
    const entry = byKey.get(key) ?? { stationId: station, sendId: line.sent.sendId, lines: [] };
    entry.lines.push([id, line]);
    byKey.set(key, entry);
  }
  const marks = new Map<string, KitchenTicketMark | null>();
  for (const e of input.events)
    marks.set(`${e.sendId}\u0000${e.stationId}`, e.action === 'bump' ? { at: e.at, registerId: e.registerId, staffId: e.staffId } : null);
  const tickets: KitchenTicket[] = [];
  for (const [key, entry] of byKey) {
    entry.lines.sort(
      ([, a], [, b]) =>
        a.place.course - b.place.course || (a.place.seat ?? 0) - (b.place.seat ?? 0) || Date.parse(a.added.at) - Date.parse(b.added.at),
    );
    const firedAt = entry.lines.map(([, l]) => l.sent!.stamp.at).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
    // The check the send was made on: the earliest-added line's (a line moved later still names the send).
    const checkId = entry.lines[0]![1].place.checkId;
    const check = input.checks[checkId];
    tickets.push({
      sendId: entry.sendId,
      stationId: entry.stationId,
      checkId,
      checkName: check?.name ?? '?',
      tableId: check?.tableId ?? null,
      guests: check?.guests ?? null,
      serverStaffId: check?.serverStaffId ?? null,
      firedAt,
      lines: entry.lines.map(([id, l]) => ({
        lineId: id,
        name: l.line.name,
        variationName: l.line.variationName,
        quantity: l.line.quantity,
        modifiers: l.line.modifiers.map((m) => m.name),
        note: l.note ?? null,
        seat: l.place.seat,
        course: l.place.course,
        voided: l.voided !== undefined,
      })),
      bumped: marks.get(key) ?? null,
    });
  }
  return tickets.sort((a, b) => Date.parse(a.firedAt) - Date.parse(b.firedAt) || (a.sendId < b.sendId ? -1 : a.sendId > b.sendId ? 1 : 0));
}

/** How many of each item the open (not bumped) tickets still ask for, voided lines left out; most first, then by name. */
export function allDayCounts(tickets: readonly KitchenTicket[]): { name: string; quantity: number }[] {
  const counts = new Map<string, number>();
  for (const t of tickets) {
    if (t.bumped) continue;
    for (const l of t.lines) if (!l.voided) counts.set(l.name, (counts.get(l.name) ?? 0) + l.quantity);
  }
  return [...counts]
    .map(([name, quantity]) => ({ name, quantity }))
    .sort((a, b) => b.quantity - a.quantity || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The colour of a ticket's age: `fresh`, `warn` from warnAfterMinutes, `late` from lateAfterMinutes (ms since fire). */
export function ticketAgeLevel(ageMs: number, thresholds: { warnAfterMinutes: number; lateAfterMinutes: number }): 'fresh' | 'warn' | 'late' {
  if (ageMs >= thresholds.lateAfterMinutes * 60_000) return 'late';
  if (ageMs >= thresholds.warnAfterMinutes * 60_000) return 'warn';
  return 'fresh';
}

/** Ticket times of one station over a period (`GET /api/pos/kitchen/ticket-times`). */
export const stationTicketTimesSchema = z.strictObject({
  stationId: z.string(),
  name: z.string().describe("The station's name; its id when it is no longer set up."),
  tickets: z.int().min(0).describe('Tickets fired in the period.'),
  bumpedTickets: z.int().min(0).describe('Of these, bumped now (their time counts).'),
  openTickets: z.int().min(0).describe('Of these, not bumped.'),
  bumpsRecorded: z.int().min(0).describe('Bumps recorded for these tickets; bumpsRecorded − recallsRecorded = bumpedTickets.'),
  recallsRecorded: z.int().min(0),
  averageSeconds: z.int().min(0).nullable().describe('Mean fire → bump time of the bumped tickets, whole seconds; null when none.'),
  medianSeconds: z.int().min(0).nullable(),
  longestSeconds: z.int().min(0).nullable(),
});
export type StationTicketTimes = z.infer<typeof stationTicketTimesSchema>;

/**
 * Fire → bump times per station of `tickets` (each counted at its latest bump), with the bumps and recalls recorded
 * for them in `events`; stations in the order of `stations`, then any other station id met. Seconds, rounded half up.
 */
export function ticketTimesOf(
  tickets: readonly KitchenTicket[],
  events: readonly KitchenTicketEvent[],
  stations: readonly { id: string; name: string }[],
): StationTicketTimes[] {
  const order = [...stations.map((s) => s.id), ...tickets.map((t) => t.stationId).filter((id) => !stations.some((s) => s.id === id))];
  const out: StationTicketTimes[] = [];
  for (const stationId of [...new Set(order)]) {
    const mine = tickets.filter((t) => t.stationId === stationId);
    const keys = new Set(mine.map((t) => t.sendId));
    const recorded = events.filter((e) => e.stationId === stationId && keys.has(e.sendId));
    const seconds = mine
      .filter((t) => t.bumped)
      .map((t) => Math.max(0, Math.round((Date.parse(t.bumped!.at) - Date.parse(t.firedAt)) / 1000)))
      .sort((a, b) => a - b);
    const median =
      seconds.length === 0
        ? null
        : seconds.length % 2 === 1
          ? seconds[(seconds.length - 1) / 2]!
          : Math.round((seconds[seconds.length / 2 - 1]! + seconds[seconds.length / 2]!) / 2);
    out.push({
      stationId,
      name: stations.find((s) => s.id === stationId)?.name ?? stationId,
      tickets: mine.length,
      bumpedTickets: seconds.length,
      openTickets: mine.length - seconds.length,
      bumpsRecorded: recorded.filter((e) => e.action === 'bump').length,
      recallsRecorded: recorded.filter((e) => e.action === 'recall').length,
      averageSeconds: seconds.length === 0 ? null : Math.round(seconds.reduce((a, b) => a + b, 0) / seconds.length),
      medianSeconds: median,
      longestSeconds: seconds.length === 0 ? null : seconds.at(-1)!,
    });
  }
  return out;
}

const markSchema = z.strictObject({
  at: z.string().describe('ISO 8601.'),
  registerId: z.string().nullable().describe('The display (a paired register) that did it.'),
  staffId: z.string().nullable().describe('The staff member, when a staff token did it.'),
});

/** A ticket as `GET /api/pos/kitchen/stations/{stationId}/tickets` answers it. */
export const kitchenTicketSchema = z.strictObject({
  sendId: z.string(),
  stationId: z.string(),
  checkId: z.string(),
  checkName: z.string(),
  tableId: z.string().nullable(),
  guests: z.int().nullable(),
  serverStaffId: z.string().nullable(),
  serverName: z.string().nullable().describe("The check's server's name; null when not a staff member of the store."),
  firedAt: z.string().describe('When it was fired (the earliest send stamp of its lines).'),
  lines: z.array(
    z.strictObject({
      lineId: z.string(),
      name: z.string(),
      variationName: z.string(),
      quantity: z.int(),
      modifiers: z.array(z.string()),
      note: z.string().nullable(),
      seat: z.int().nullable(),
      course: z.int(),
      voided: z.boolean().describe('Voided after it was sent: struck through, VOID.'),
    }),
  ),
  bumped: markSchema.nullable().describe('The latest bump; null while the ticket is on the display.'),
});

/** `GET /api/pos/kitchen/stations/{stationId}/tickets`: a station's display. */
export const stationTicketsSchema = z.strictObject({
  station: kitchenStationSchema,
  warnAfterMinutes: z.int(),
  lateAfterMinutes: z.int(),
  tickets: z.array(kitchenTicketSchema).describe('Open tickets (not bumped), oldest fired first.'),
  recentlyBumped: z.array(kitchenTicketSchema).describe('Bumped tickets, last bumped first (at most 20): what Recall brings back.'),
  allDay: z.array(z.strictObject({ name: z.string(), quantity: z.int() })).describe('Items the open tickets still ask for.'),
  now: z.string().describe("The server's time (ISO 8601): ages count from it."),
});
export type StationTickets = z.infer<typeof stationTicketsSchema>;

/** The answer of a bump or recall. */
export const kitchenTicketEventSchema = z.strictObject({
  stationId: z.string(),
  sendId: z.string(),
  action: z.enum(['bump', 'recall']),
  at: z.string(),
  registerId: z.string().nullable(),
  staffId: z.string().nullable(),
});
