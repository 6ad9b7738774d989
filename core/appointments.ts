/**
 * Salons, barbers and spas: services with their timing, the resources they hold (chairs, rooms, basins), each staff
 * member's working week, and the free start times of a service on a day (docs/decisions/0110-appointments.md).
 *
 * Times: an appointment is a span of real minutes from an instant; working hours are wall-clock times ("09:00") in the
 * store's IANA time zone, turned into instants with Luxon (never by hand), so a day with a daylight-saving change
 * has the hours its clock shows. Instants here are milliseconds since the epoch unless a name says ISO. Pure.
 *
 * The busy parts of an appointment, in order from its start (see {@link busyParts}):
 * - `work` — the staff member is with the client: staff member and resources busy;
 * - `processing` — colour or treatment developing: the resources (chair, basin) stay busy, the staff member is free;
 * - `work` again after the processing, to the end of the service's duration;
 * - `buffer` — after the client has gone (clean-up, turn the room): staff member and resources busy.
 */
import { DateTime } from 'luxon';
import { z } from 'zod';
import { utcDateTime } from './datetime.ts';
import { ID_PREFIXES } from './ids.ts';
import { amountCentsSchema, nonBlankText, patchBody } from './schemas.ts';

const MINUTE_MS = 60_000;
const ulidTail = '[0-9A-HJKMNP-TV-Z]{26}';
const idOf = (kind: keyof typeof ID_PREFIXES) =>
  z.string().regex(new RegExp(`^${ID_PREFIXES[kind]}_${ulidTail}$`), `must be an id starting with ${ID_PREFIXES[kind]}_`);

/** Ids as the appointment routes take them (400 naming the field for another shape). */
export const appointmentServiceIdSchema = idOf('appointmentService');
export const appointmentResourceIdSchema = idOf('appointmentResource');
export const appointmentIdSchema = idOf('appointment');
/** A staff member's id (`stf_…`); the demo store's seeded ids are not ULIDs, so only the prefix is checked. */
export const staffIdSchema = z.string().regex(/^stf_[A-Za-z0-9_]{1,40}$/, 'must be an id starting with stf_');

/** What a service may need held: one resource of each kind it names. */
export const RESOURCE_KINDS = ['chair', 'room', 'basin'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** The parts of an appointment (see the file's comment). */
export const BUSY_PART_KINDS = ['work', 'processing', 'buffer'] as const;
export type BusyPartKind = (typeof BUSY_PART_KINDS)[number];

/** Bounds of a service's timing, in minutes. */
export const SERVICE_MINUTES = { duration: { min: 5, max: 720 }, buffer: { max: 240 } } as const;

/** A staff level a price is set for ("junior", "senior", "master"): the staff member's schedule names theirs. */
export const staffLevelSchema = nonBlankText(30).describe('A staff level, e.g. junior, senior, master.');

const processingSchema = z
  .strictObject({
    afterMinutes: z.int().min(1).max(SERVICE_MINUTES.duration.max).describe('Minutes of work before the processing starts.'),
    minutes: z.int().min(1).max(SERVICE_MINUTES.duration.max).describe('Minutes the staff member is free while it develops.'),
  })
  .describe('A processing time in the middle of the service: the staff member is free, the resources stay held.');

/** The fields of a service (`POST /api/pos/appointment-services`), each with its own rule. */
const serviceFields = {
  name: nonBlankText(80),
  durationMinutes: z
    .int()
    .min(SERVICE_MINUTES.duration.min)
    .max(SERVICE_MINUTES.duration.max)
    .describe('Minutes the client is in, processing included.'),
  processing: processingSchema.nullable().optional(),
  bufferAfterMinutes: z.int().min(0).max(SERVICE_MINUTES.buffer.max).optional().describe('Clean-up minutes after the client leaves; default 0.'),
  prices: z
    .array(z.strictObject({ level: staffLevelSchema, priceCents: amountCentsSchema }))
    .min(1)
    .max(10)
    .describe('The price at each staff level, in cents; staff of a level with no price do not offer the service.'),
  resourceKinds: z.array(z.enum(RESOURCE_KINDS)).max(RESOURCE_KINDS.length).optional().describe('One resource of each kind is held; default none.'),
};

/** Rules across a service's fields: processing ends before the duration does, levels and kinds listed once. */
function refineService(
  s: {
    durationMinutes?: number;
    processing?: { afterMinutes: number; minutes: number } | null;
    prices?: { level: string }[];
    resourceKinds?: string[];
  },
  ctx: z.RefinementCtx,
): void {
  if (s.processing && s.durationMinutes !== undefined && s.processing.afterMinutes + s.processing.minutes >= s.durationMinutes)
    ctx.addIssue({ code: 'custom', path: ['processing', 'minutes'], message: 'must end before durationMinutes (the work after it needs time)' });
  const levels = new Set<string>();
  s.prices?.forEach((p, i) => {
    const key = p.level.toLowerCase();
    if (levels.has(key)) ctx.addIssue({ code: 'custom', path: ['prices', i, 'level'], message: 'is listed twice' });
    levels.add(key);
  });
  if (s.resourceKinds && new Set(s.resourceKinds).size !== s.resourceKinds.length)
    ctx.addIssue({ code: 'custom', path: ['resourceKinds'], message: 'must name each kind once' });
}

/** `POST /api/pos/appointment-services` body. */
export const appointmentServiceCreateSchema = z.strictObject(serviceFields).superRefine(refineService);
export type AppointmentServiceCreate = z.infer<typeof appointmentServiceCreateSchema>;
/** `PATCH /api/pos/appointment-services/{id}` body: any field; `active: false` stops offering it (bookings keep it). */
export const appointmentServiceUpdateSchema = patchBody(z.strictObject({ ...serviceFields, active: z.boolean() }).partial().shape).superRefine(
  refineService,
);

/** A service as stored and answered. */
export const appointmentServiceSchema = z.strictObject({
  id: appointmentServiceIdSchema,
  name: z.string(),
  durationMinutes: z.int(),
  processing: processingSchema.nullable(),
  bufferAfterMinutes: z.int(),
  prices: z.array(z.strictObject({ level: z.string(), priceCents: z.int() })),
  resourceKinds: z.array(z.enum(RESOURCE_KINDS)),
  active: z.boolean(),
  updatedAt: z.string(),
});
export type AppointmentService = z.infer<typeof appointmentServiceSchema>;

/** `POST /api/pos/appointment-resources` body. */
export const appointmentResourceCreateSchema = z.strictObject({ name: nonBlankText(60), kind: z.enum(RESOURCE_KINDS) });
/** `PATCH /api/pos/appointment-resources/{id}` body. */
export const appointmentResourceUpdateSchema = patchBody({ name: nonBlankText(60).optional(), active: z.boolean().optional() });
/** A resource as stored and answered. */
export const appointmentResourceSchema = z.strictObject({
  id: appointmentResourceIdSchema,
  name: z.string(),
  kind: z.enum(RESOURCE_KINDS),
  active: z.boolean(),
  updatedAt: z.string(),
});
export type AppointmentResource = z.infer<typeof appointmentResourceSchema>;

/** A wall-clock time of day in the store's zone, `HH:MM`; `24:00` is the end of the day. */
export const wallTimeSchema = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'must be a time HH:MM between 00:00 and 24:00');
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const shiftSchema = z.strictObject({
  weekday: z.int().min(1).max(7).describe('ISO weekday: 1 Monday … 7 Sunday.'),
  start: wallTimeSchema,
  end: wallTimeSchema,
  breaks: z
    .array(z.strictObject({ start: wallTimeSchema, end: wallTimeSchema }))
    .max(6)
    .optional(),
});
export type StaffShift = z.infer<typeof shiftSchema>;

/** `PUT /api/pos/staff-schedules/{staffId}` body: the whole working week, level and time off. */
export const staffScheduleUpdateSchema = z
  .strictObject({
    level: staffLevelSchema,
    shifts: z.array(shiftSchema).max(21).describe("Working hours by weekday, wall-clock in the store's time zone."),
    timeOff: z
      .array(z.strictObject({ from: utcDateTime, to: utcDateTime, reason: nonBlankText(120).optional() }))
      .max(200)
      .optional()
      .describe('Absences (holiday, sick day), as instants.'),
  })
  .superRefine((s, ctx) => {
    s.shifts.forEach((shift, i) => {
      if (minutesOf(shift.end) <= minutesOf(shift.start))
        ctx.addIssue({ code: 'custom', path: ['shifts', i, 'end'], message: 'must be after start' });
      shift.breaks?.forEach((b, j) => {
        if (minutesOf(b.end) <= minutesOf(b.start))
          ctx.addIssue({ code: 'custom', path: ['shifts', i, 'breaks', j, 'end'], message: 'must be after start' });
        else if (minutesOf(b.start) < minutesOf(shift.start) || minutesOf(b.end) > minutesOf(shift.end))
          ctx.addIssue({ code: 'custom', path: ['shifts', i, 'breaks', j], message: 'must lie inside the shift' });
      });
      s.shifts.forEach((other, k) => {
        if (
          k < i &&
          other.weekday === shift.weekday &&
          minutesOf(other.start) < minutesOf(shift.end) &&
          minutesOf(shift.start) < minutesOf(other.end)
        )
          ctx.addIssue({ code: 'custom', path: ['shifts', i, 'start'], message: `overlaps shift ${k} of the same weekday` });
      });
    });
    s.timeOff?.forEach((t, i) => {
      if (Date.parse(t.to) <= Date.parse(t.from)) ctx.addIssue({ code: 'custom', path: ['timeOff', i, 'to'], message: 'must be after from' });
    });
  });
export type StaffScheduleUpdate = z.infer<typeof staffScheduleUpdateSchema>;

/** A staff member's schedule as stored and answered. */
export const staffScheduleSchema = z.strictObject({
  staffId: z.string(),
  level: z.string(),
  shifts: z.array(shiftSchema),
  timeOff: z.array(z.strictObject({ from: z.string(), to: z.string(), reason: z.string().optional() })),
  updatedAt: z.string(),
});
export type StaffSchedule = z.infer<typeof staffScheduleSchema>;

/** An appointment's state: booked → arrived, no_show or cancelled. Only a booked one moves. */
export const APPOINTMENT_STATUSES = ['booked', 'arrived', 'no_show', 'cancelled'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** `POST /api/pos/appointments` body. */
export const appointmentCreateSchema = z.strictObject({
  serviceId: appointmentServiceIdSchema,
  staffId: staffIdSchema,
  startsAt: utcDateTime,
  customerId: z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES.customer}_${ulidTail}$`), `must be an id starting with ${ID_PREFIXES.customer}_`)
    .nullable()
    .optional(),
  customerName: nonBlankText(120).optional().describe('Who comes, when they are not a customer record (a walk-in, a phone booking).'),
  note: nonBlankText(500).optional(),
});
export type AppointmentCreate = z.infer<typeof appointmentCreateSchema>;

/** `PATCH /api/pos/appointments/{id}` body: move (startsAt, staffId) or change its state; at least one field. */
export const appointmentUpdateSchema = patchBody({
  startsAt: utcDateTime.optional(),
  staffId: staffIdSchema.optional(),
  status: z.enum(['arrived', 'no_show', 'cancelled']).optional(),
  note: nonBlankText(500).nullable().optional(),
});
export type AppointmentUpdate = z.infer<typeof appointmentUpdateSchema>;

/** An appointment as stored and answered. */
export const appointmentSchema = z.strictObject({
  id: appointmentIdSchema,
  serviceId: z.string(),
  staffId: z.string(),
  customerId: z.string().nullable(),
  customerName: z.string().nullable(),
  startsAt: z.string().describe('When the client is due (UTC).'),
  endsAt: z.string().describe('When the service ends (UTC); the buffer follows it.'),
  status: z.enum(APPOINTMENT_STATUSES),
  priceCents: z.int().describe("The service's price at the staff member's level when booked or moved."),
  resourceIds: z.array(z.string()),
  parts: z.array(z.strictObject({ kind: z.enum(BUSY_PART_KINDS), start: z.string(), end: z.string() })),
  note: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Appointment = z.infer<typeof appointmentSchema>;

/** A local calendar day, `YYYY-MM-DD`, in the store's zone. */
export const localDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
  .refine((d) => DateTime.fromISO(d, { zone: 'UTC' }).isValid, 'must be a real date');

/** `GET /api/pos/appointment-availability` query. */
export const availabilityQuerySchema = z.strictObject({
  serviceId: appointmentServiceIdSchema,
  date: localDateSchema,
  staffId: z
    .union([z.literal('anyone'), staffIdSchema])
    .optional()
    .describe('A staff member, or `anyone` (default).'),
});

/** The answer of `GET /api/pos/appointment-availability`. */
export const availabilitySchema = z.strictObject({
  date: z.string(),
  timeZone: z.string(),
  stepMinutes: z.int(),
  starts: z.array(z.strictObject({ startsAt: z.string(), staffIds: z.array(z.string()) })),
});

/** `GET /api/pos/appointments` query: the store's local day. */
export const appointmentDayQuerySchema = z.strictObject({ date: localDateSchema, staffId: staffIdSchema.optional() });

// ---------------------------------------------------------------------------------------------------------------------
// Timing and availability

/** A half-open span of instants `[start, end)`, ms. */
export interface Span {
  start: number;
  end: number;
}

/** A busy part of an appointment: its kind and span. */
export interface BusyPart extends Span {
  kind: BusyPartKind;
}

/** What timing needs of a service. */
export type ServiceTiming = Pick<AppointmentService, 'durationMinutes' | 'processing' | 'bufferAfterMinutes'>;

/**
 * The busy parts of `service` started at `start` (ms), in order, empty ones left out: work, processing, work, buffer
 * (see the file's comment). Their union is `[start, start + duration + buffer)`.
 */
export function busyParts(service: ServiceTiming, start: number): BusyPart[] {
  const at = (minutes: number) => start + minutes * MINUTE_MS;
  const parts: BusyPart[] = [];
  const p = service.processing;
  if (p) {
    parts.push({ kind: 'work', start, end: at(p.afterMinutes) });
    parts.push({ kind: 'processing', start: at(p.afterMinutes), end: at(p.afterMinutes + p.minutes) });
    parts.push({ kind: 'work', start: at(p.afterMinutes + p.minutes), end: at(service.durationMinutes) });
  } else parts.push({ kind: 'work', start, end: at(service.durationMinutes) });
  if (service.bufferAfterMinutes > 0)
    parts.push({ kind: 'buffer', start: at(service.durationMinutes), end: at(service.durationMinutes + service.bufferAfterMinutes) });
  return parts.filter((part) => part.end > part.start);
}

/** The parts that hold the staff member: all but processing. */
export function staffParts(parts: readonly BusyPart[]): BusyPart[] {
  return parts.filter((p) => p.kind !== 'processing');
}

const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

/**
 * The store-zone instant of wall-clock `hhmm` on local day `date` (`24:00` → the next day's midnight). A wall time
 * the clock skips (02:30 on a spring-forward night) is taken as the same offset from the skipped hour's start, as
 * Luxon does (03:30 daylight time).
 */
export function wallTimeToInstant(date: string, hhmm: string, timeZone: string): number {
  const day = DateTime.fromISO(date, { zone: timeZone });
  if (hhmm === '24:00') return day.plus({ days: 1 }).startOf('day').toMillis();
  return DateTime.fromISO(`${date}T${hhmm}`, { zone: timeZone }).toMillis();
}

/** The instants where local day `date` starts and the next one starts, in `timeZone`: `[start, end)`. */
export function localDaySpan(date: string, timeZone: string): Span {
  const day = DateTime.fromISO(date, { zone: timeZone }).startOf('day');
  return { start: day.toMillis(), end: day.plus({ days: 1 }).toMillis() };
}

/** A staff member as availability sees them: their schedule and what already holds them. */
export interface StaffAvailabilityInput {
  staffId: string;
  level: string;
  shifts: readonly StaffShift[];
  timeOff: readonly { from: string; to: string }[];
  /** Staff parts of their appointments (ms), any order. */
  busy: readonly Span[];
}

/** A resource as availability sees it. */
export interface ResourceAvailabilityInput {
  id: string;
  kind: ResourceKind;
  /** The parts of appointments holding it (ms). */
  busy: readonly Span[];
}

/** Why a staff member cannot take `service` at `start`, or null when they can (working hours, breaks, time off, bookings). */
export function staffConflict(
  staff: StaffAvailabilityInput,
  service: ServiceTiming,
  start: number,
  timeZone: string,
): 'not_working' | 'on_break' | 'time_off' | 'booked' | null {
  const parts = busyParts(service, start);
  const whole: Span = { start, end: parts[parts.length - 1]!.end };
  const date = DateTime.fromMillis(start, { zone: timeZone }).toISODate()!;
  const weekday = DateTime.fromISO(date, { zone: timeZone }).weekday;
  const shift = staff.shifts
    .filter((s) => s.weekday === weekday)
    .map((s) => ({ s, span: { start: wallTimeToInstant(date, s.start, timeZone), end: wallTimeToInstant(date, s.end, timeZone) } }))
    .find(({ span }) => span.start <= whole.start && whole.end <= span.end);
  if (!shift) return 'not_working';
  if (staff.timeOff.some((t) => overlaps(whole, { start: Date.parse(t.from), end: Date.parse(t.to) }))) return 'time_off';
  const mine = staffParts(parts);
  const breaks = (shift.s.breaks ?? []).map((b) => ({
    start: wallTimeToInstant(date, b.start, timeZone),
    end: wallTimeToInstant(date, b.end, timeZone),
  }));
  if (mine.some((p) => breaks.some((b) => overlaps(p, b)))) return 'on_break';
  if (mine.some((p) => staff.busy.some((b) => overlaps(p, b)))) return 'booked';
  return null;
}

/**
 * For each resource kind `service` needs, the first resource of that kind (in the order given) free over the whole
 * appointment (work, processing and buffer); null when some kind has none free.
 */
export function freeResources(
  resources: readonly ResourceAvailabilityInput[],
  kinds: readonly ResourceKind[],
  service: ServiceTiming,
  start: number,
): string[] | null {
  const parts = busyParts(service, start);
  const whole: Span = { start, end: parts[parts.length - 1]!.end };
  const chosen: string[] = [];
  for (const kind of kinds) {
    const free = resources.find((r) => r.kind === kind && !r.busy.some((b) => overlaps(b, whole)));
    if (!free) return null;
    chosen.push(free.id);
  }
  return chosen;
}

/** What {@link availableStarts} needs. */
export interface AvailabilityInput {
  /** The store's IANA zone: the day and the working hours are read in it. */
  timeZone: string;
  /** The local day, `YYYY-MM-DD`. */
  date: string;
  service: ServiceTiming & Pick<AppointmentService, 'prices' | 'resourceKinds'>;
  /** Candidate staff (one for a named staff member; everyone scheduled for "anyone"), in the order to offer them. */
  staff: readonly StaffAvailabilityInput[];
  resources: readonly ResourceAvailabilityInput[];
  /** Starts are offered every `stepMinutes` from each shift's start. */
  stepMinutes: number;
  /** No start before this instant (ms): now, so the past is never offered. */
  notBefore?: number;
}

/**
 * The free start times of a service on a local day: every `stepMinutes` from the start of each shift of each
 * candidate, where the whole appointment lies in the shift, clear of time off; the staff parts (work, buffer) clear of
 * breaks and of the staff member's bookings; and one resource of each needed kind free for the whole appointment.
 * Staff whose level has no price do not offer the service. Starts are ISO instants in UTC, ascending, each with the
 * staff members free then (in the order given). Durations are real minutes: a service across a daylight-saving change
 * takes as long as on any other day, and a shift's length is what the clock shows that day.
 */
export function availableStarts(input: AvailabilityInput): { startsAt: string; staffIds: string[] }[] {
  const { timeZone, date, service } = input;
  const priced = new Set(service.prices.map((p) => p.level.toLowerCase()));
  const day = localDaySpan(date, timeZone);
  const weekday = DateTime.fromISO(date, { zone: timeZone }).weekday;
  const step = input.stepMinutes * MINUTE_MS;
  const byStart = new Map<number, string[]>();
  for (const staff of input.staff) {
    if (!priced.has(staff.level.toLowerCase())) continue;
    for (const shift of staff.shifts.filter((s) => s.weekday === weekday)) {
      const from = wallTimeToInstant(date, shift.start, timeZone);
      const to = wallTimeToInstant(date, shift.end, timeZone);
      for (let start = from; start < to && start < day.end; start += step) {
        if (input.notBefore !== undefined && start < input.notBefore) continue;
        if (staffConflict(staff, service, start, timeZone) !== null) continue;
        if (freeResources(input.resources, service.resourceKinds, service, start) === null) continue;
        const list = byStart.get(start) ?? [];
        if (!list.includes(staff.staffId)) list.push(staff.staffId);
        byStart.set(start, list);
      }
    }
  }
  return [...byStart.entries()].sort(([a], [b]) => a - b).map(([start, staffIds]) => ({ startsAt: new Date(start).toISOString(), staffIds }));
}

/** The price of `service` at `level`, in cents; undefined when the service has no price at that level. */
export function priceAtLevel(service: Pick<AppointmentService, 'prices'>, level: string): number | undefined {
  return service.prices.find((p) => p.level.toLowerCase() === level.toLowerCase())?.priceCents;
}
