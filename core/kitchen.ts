/**
 * Kitchen tickets: what a send, a change or a void of a restaurant check prints at each station (grill, cold, bar, …),
 * as the semantic print blocks of core/devices.ts `PrintJob` that the ESC/POS driver turns into bytes. Pure.
 *
 * A ticket is read at arm's length in a hot kitchen: the table, the course and each line are in double size; the
 * server, guests, seat, modifiers and notes in normal type. The job id is derived from the send (or, for a void, from
 * the voided line), so the register's persistent print queue — which prints a job id once, also across a crash —
 * never prints the same ticket twice however often it is handed the same send.
 */
import type { CheckHeader, CheckLine } from './checks.ts';
import type { PrintJob } from './devices.ts';

/** A preparation station and the printer-facing name on its tickets. */
export interface KitchenStation {
  /** Short id (letters, digits, `-`, `_`; at most 24), e.g. `grill`. */
  id: string;
  name: string;
}

/**
 * Where lines go: a station per catalog item, else per category of the item, else the default station. Items that go
 * nowhere (e.g. retail goods on a restaurant's menu) are listed in `notPrepared`.
 */
export interface KitchenRouting {
  stations: readonly KitchenStation[];
  byItem: Readonly<Record<string, string>>;
  byCategory: Readonly<Record<string, string>>;
  defaultStationId: string | null;
  notPrepared?: readonly string[];
}

/** What a ticket is for: a send (new lines), a change to lines already sent, or a void of a sent line. */
export type KitchenTicketKind = 'send' | 'change' | 'void';

/** Thrown for a ticket that cannot be made (an unknown station, a station id that is not a short id). */
export class KitchenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KitchenError';
  }
}

/** Characters per double-size line on an 80 mm printer (42 columns in normal type). */
const WIDE_COLUMNS = 21;
const STATION_ID = /^[A-Za-z0-9_-]{1,24}$/;

/**
 * The station of a line: its item's, else its category's (`categoryOf` answers the item's category id), else the
 * default; null when the item is not prepared or no station applies.
 */
export function stationOfLine(line: CheckLine, routing: KitchenRouting, categoryOf: (catalogItemId: string) => string | undefined): string | null {
  const itemId = line.line.catalogItemId;
  if (routing.notPrepared?.includes(itemId)) return null;
  const category = categoryOf(itemId);
  return routing.byItem[itemId] ?? (category !== undefined ? routing.byCategory[category] : undefined) ?? routing.defaultStationId;
}

/** Wraps `text` at word boundaries into lines of at most `width` characters (a longer word is cut). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    for (let piece = word; piece.length > 0; piece = piece.slice(width)) {
      const part = piece.slice(0, width);
      if (current === '') current = part;
      else if (current.length + 1 + part.length <= width) current = `${current} ${part}`;
      else {
        out.push(current);
        current = part;
      }
    }
  }
  if (current !== '') out.push(current);
  return out.length > 0 ? out : [''];
}

/**
 * The print jobs of one send, change or void of `check`: one per station that has lines, in the order of
 * `routing.stations`; lines in course, then seat, then added order.
 * @param ticket `id` names the send (`snd_…`) — or for a void, the voided line's id — and makes the job ids
 *   (`kt-<id>-<station>`, at most 64 characters); `at` is printed as the local time in `timeZone` (IANA); `reason` is
 *   printed on a void.
 * @throws KitchenError when a line routes to a station not in `routing.stations`, or a station id is not a short id.
 */
export function kitchenTicketJobs(
  ticket: {
    kind: KitchenTicketKind;
    id: string;
    check: CheckHeader;
    serverName: string;
    lines: readonly CheckLine[];
    at: string;
    timeZone: string;
    reason?: string;
  },
  routing: KitchenRouting,
  categoryOf: (catalogItemId: string) => string | undefined = () => undefined,
): PrintJob[] {
  for (const s of routing.stations) if (!STATION_ID.test(s.id)) throw new KitchenError(`station id "${s.id}" is not a short id`);
  const byStation = new Map<string, CheckLine[]>();
  for (const line of ticket.lines) {
    const station = stationOfLine(line, routing, categoryOf);
    if (station === null) continue;
    if (!routing.stations.some((s) => s.id === station))
      throw new KitchenError(`line ${line.line.id} goes to station ${station}, which is not set up`);
    byStation.set(station, [...(byStation.get(station) ?? []), line]);
  }
  const time = new Intl.DateTimeFormat('en-GB', { timeZone: ticket.timeZone, hour: '2-digit', minute: '2-digit', hour12: false }).format(
    new Date(ticket.at),
  );
  const jobs: PrintJob[] = [];
  for (const station of routing.stations) {
    const lines = [...(byStation.get(station.id) ?? [])].sort(
      (a, b) => a.place.course - b.place.course || (a.place.seat ?? 0) - (b.place.seat ?? 0) || Date.parse(a.added.at) - Date.parse(b.added.at),
    );
    if (lines.length === 0) continue;
    const blocks: PrintJob['blocks'] = [];
    const big = (text: string, extra: { bold?: boolean; align?: 'left' | 'center' } = {}) =>
      wrap(text, WIDE_COLUMNS).forEach((t) => blocks.push({ kind: 'text', text: t, doubleSize: true, ...extra }));
    const small = (text: string, extra: { bold?: boolean; align?: 'left' | 'center' } = {}) => blocks.push({ kind: 'text', text, ...extra });
    small(station.name.toUpperCase(), { align: 'center', bold: true });
    if (ticket.kind === 'void') big('*** VOID ***', { align: 'center', bold: true });
    if (ticket.kind === 'change') big('*** CHANGE ***', { align: 'center', bold: true });
    big(ticket.check.name, { bold: true });
    small(`Server: ${ticket.serverName}   Guests: ${ticket.check.guests}   ${time}`);
    if (ticket.kind === 'void' && ticket.reason) small(`Reason: ${ticket.reason}`, { bold: true });
    let course = 0;
    for (const l of lines) {
      if (l.place.course !== course) {
        course = l.place.course;
        small('-'.repeat(42));
        big(`Course ${course}`, { align: 'center' });
      }
      big(`${l.line.quantity} x ${l.line.name}`, { bold: true });
      for (const m of l.line.modifiers) small(`   + ${m.name}`);
      if (l.note) small(`   ** ${l.note} **`, { bold: true });
      small(`   ${l.place.seat === null ? 'Table' : `Seat ${l.place.seat}`}`);
    }
    blocks.push({ kind: 'feed', lines: 2 });
    jobs.push({ jobId: `kt-${ticket.id}-${station.id}`, blocks });
  }
  return jobs;
}
