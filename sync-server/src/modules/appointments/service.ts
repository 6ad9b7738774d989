/**
 * Appointments (core/appointments.ts, decision 0110): services, resources, staff schedules, and the appointments whose
 * busy parts hold a staff member and resources. This module is the one writer of `appointment_services`,
 * `appointment_resources`, `staff_schedules`, `appointments` and `appointment_holds`. It reads `merchants.time_zone`
 * (the store's zone), `staff` and `customers` to check what a body names.
 */
import {
  availableStarts,
  busyParts,
  freeResources,
  localDaySpan,
  newId,
  priceAtLevel,
  staffConflict,
  staffParts,
  type Appointment,
  type AppointmentCreate,
  type AppointmentResource,
  type AppointmentService,
  type AppointmentServiceCreate,
  type AppointmentStatus,
  type AppointmentUpdate,
  type BusyPart,
  type ResourceKind,
  type Span,
  type StaffSchedule,
  type StaffScheduleUpdate,
  type StaffShift,
} from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { jsonValue, type Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Problem } from '../../platform/http/problem.ts';

/** Free starts are offered every this many minutes from each shift's start. */
export const AVAILABILITY_STEP_MINUTES = 15;

/** The 409 of a booking or move refused because a staff member or resource is held then: names each clash. */
class AppointmentClashError extends ProblemError {
  constructor(
    detail: string,
    readonly clashes: { holderKind: string; holderId: string; holderName: string; appointmentId: string; start: string; end: string }[],
  ) {
    super(409, 'appointment_clash', detail);
  }
  override toProblem(): Problem {
    return { ...super.toProblem(), clashes: this.clashes } as Problem;
  }
}

const notFound = (what: string, id: string) => new ProblemError(404, 'not_found', `No ${what} ${id} in this store.`);
const fieldError = (path: string, message: string) =>
  new ProblemError(400, 'validation_error', `Invalid ${path}: ${path} ${message}`, [{ path, message }]);
const iso = (value: Date | string) => new Date(value).toISOString();

// --------------------------------------------------------------------------------------------------------------------
// Services

interface ServiceRow {
  id: string;
  name: string;
  duration_minutes: number;
  processing_after_min: number | null;
  processing_minutes: number | null;
  buffer_after_minutes: number;
  prices: unknown;
  resource_kinds: unknown;
  active: boolean;
  updated_at: Date;
}

function serviceOf(r: ServiceRow): AppointmentService {
  return {
    id: r.id,
    name: r.name,
    durationMinutes: Number(r.duration_minutes),
    processing: r.processing_after_min === null ? null : { afterMinutes: Number(r.processing_after_min), minutes: Number(r.processing_minutes) },
    bufferAfterMinutes: Number(r.buffer_after_minutes),
    prices: jsonValue(r.prices),
    resourceKinds: jsonValue(r.resource_kinds),
    active: r.active,
    updatedAt: iso(r.updated_at),
  };
}

/** The store's services, by name (inactive ones too, marked). */
export async function listServices(db: Queryable, merchantId: string): Promise<{ data: AppointmentService[] }> {
  const { rows } = await db.query<ServiceRow>('SELECT * FROM appointment_services WHERE merchant_id = $1 ORDER BY name, id', [merchantId]);
  return { data: rows.map(serviceOf) };
}

async function readService(db: Queryable, merchantId: string, id: string, lock = false): Promise<AppointmentService | undefined> {
  const { rows } = await db.query<ServiceRow>(`SELECT * FROM appointment_services WHERE merchant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
    merchantId,
    id,
  ]);
  return rows[0] && serviceOf(rows[0]);
}

/** Creates a service; audited `appointment_service.created`. */
export async function createService(m: Mutation, input: AppointmentServiceCreate): Promise<AppointmentService> {
  const id = newId('appointmentService');
  await m.tx.query(
    `INSERT INTO appointment_services (id, merchant_id, name, duration_minutes, processing_after_min, processing_minutes, buffer_after_minutes,
       prices, resource_kinds, active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, true, $10, $10)`,
    [
      id,
      m.merchantId,
      input.name,
      input.durationMinutes,
      input.processing?.afterMinutes ?? null,
      input.processing?.minutes ?? null,
      input.bufferAfterMinutes ?? 0,
      JSON.stringify(input.prices),
      JSON.stringify(input.resourceKinds ?? []),
      m.now.toISOString(),
    ],
  );
  const service = (await readService(m.tx, m.merchantId, id))!;
  await m.audit({ action: 'appointment_service.created', entityType: 'appointment_service', entityId: id, data: { ...service } });
  return service;
}

/**
 * Changes the fields given of a service (the result must still satisfy every rule of a new one: `merged` is
 * checked by the caller's schema); audited `appointment_service.updated` with the fields before and after.
 * Appointments already booked keep their time and price.
 * @throws ProblemError 404 for a service not of this store.
 */
export async function updateService(
  m: Mutation,
  id: string,
  patch: Partial<AppointmentServiceCreate> & { active?: boolean },
  validate: (merged: AppointmentServiceCreate) => AppointmentServiceCreate,
): Promise<AppointmentService> {
  const before = await readService(m.tx, m.merchantId, id, true);
  if (!before) throw notFound('service', id);
  const merged = validate({
    name: patch.name ?? before.name,
    durationMinutes: patch.durationMinutes ?? before.durationMinutes,
    processing: patch.processing !== undefined ? patch.processing : before.processing,
    bufferAfterMinutes: patch.bufferAfterMinutes ?? before.bufferAfterMinutes,
    prices: patch.prices ?? before.prices,
    resourceKinds: patch.resourceKinds ?? before.resourceKinds,
  });
  await m.tx.query(
    `UPDATE appointment_services SET name = $3, duration_minutes = $4, processing_after_min = $5, processing_minutes = $6,
       buffer_after_minutes = $7, prices = $8::jsonb, resource_kinds = $9::jsonb, active = $10, updated_at = $11
     WHERE merchant_id = $1 AND id = $2`,
    [
      m.merchantId,
      id,
      merged.name,
      merged.durationMinutes,
      merged.processing?.afterMinutes ?? null,
      merged.processing?.minutes ?? null,
      merged.bufferAfterMinutes ?? 0,
      JSON.stringify(merged.prices),
      JSON.stringify(merged.resourceKinds ?? []),
      patch.active ?? before.active,
      m.now.toISOString(),
    ],
  );
  const after = (await readService(m.tx, m.merchantId, id))!;
  await m.audit({ action: 'appointment_service.updated', entityType: 'appointment_service', entityId: id, data: { before, after } });
  return after;
}

// --------------------------------------------------------------------------------------------------------------------
// Resources

interface ResourceRow {
  id: string;
  name: string;
  kind: ResourceKind;
  active: boolean;
  updated_at: Date;
}

const resourceOf = (r: ResourceRow): AppointmentResource => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  active: r.active,
  updatedAt: iso(r.updated_at),
});

/** The store's resources, by kind and name. */
export async function listResources(db: Queryable, merchantId: string): Promise<{ data: AppointmentResource[] }> {
  const { rows } = await db.query<ResourceRow>('SELECT * FROM appointment_resources WHERE merchant_id = $1 ORDER BY kind, name, id', [merchantId]);
  return { data: rows.map(resourceOf) };
}

/** Creates a resource; audited `appointment_resource.created`. */
export async function createResource(m: Mutation, input: { name: string; kind: ResourceKind }): Promise<AppointmentResource> {
  const id = newId('appointmentResource');
  const { rows } = await m.tx.query<ResourceRow>(
    `INSERT INTO appointment_resources (id, merchant_id, name, kind, active, created_at, updated_at) VALUES ($1, $2, $3, $4, true, $5, $5) RETURNING *`,
    [id, m.merchantId, input.name, input.kind, m.now.toISOString()],
  );
  const resource = resourceOf(rows[0]!);
  await m.audit({ action: 'appointment_resource.created', entityType: 'appointment_resource', entityId: id, data: { ...resource } });
  return resource;
}

/**
 * Renames a resource or stops using it (`active: false`: no new booking holds it; appointments holding it keep it);
 * audited `appointment_resource.updated`.
 * @throws ProblemError 404 for a resource not of this store.
 */
export async function updateResource(m: Mutation, id: string, patch: { name?: string; active?: boolean }): Promise<AppointmentResource> {
  const { rows } = await m.tx.query<ResourceRow>(
    `UPDATE appointment_resources SET name = COALESCE($3, name), active = COALESCE($4, active), updated_at = $5
     WHERE merchant_id = $1 AND id = $2 RETURNING *`,
    [m.merchantId, id, patch.name ?? null, patch.active ?? null, m.now.toISOString()],
  );
  if (!rows[0]) throw notFound('resource', id);
  const resource = resourceOf(rows[0]);
  await m.audit({ action: 'appointment_resource.updated', entityType: 'appointment_resource', entityId: id, data: { changes: patch } });
  return resource;
}

// --------------------------------------------------------------------------------------------------------------------
// Staff schedules

interface ScheduleRow {
  staff_id: string;
  level: string;
  shifts: unknown;
  time_off: unknown;
  updated_at: Date;
}

const scheduleOf = (r: ScheduleRow): StaffSchedule => ({
  staffId: r.staff_id,
  level: r.level,
  shifts: jsonValue<StaffShift[]>(r.shifts),
  timeOff: jsonValue(r.time_off),
  updatedAt: iso(r.updated_at),
});

/** Every staff member's schedule in the store. */
export async function listSchedules(db: Queryable, merchantId: string): Promise<{ data: StaffSchedule[] }> {
  const { rows } = await db.query<ScheduleRow>('SELECT * FROM staff_schedules WHERE merchant_id = $1 ORDER BY staff_id', [merchantId]);
  return { data: rows.map(scheduleOf) };
}

async function staffExists(db: Queryable, merchantId: string, staffId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM staff WHERE merchant_id = $1 AND id = $2', [merchantId, staffId]);
  return rows.length > 0;
}

/**
 * Saves a staff member's whole schedule (level, weekly shifts with breaks, time off); audited `staff_schedule.saved`.
 * Appointments already booked are not moved or refused by it: the appointment book shows them against the new hours.
 * @throws ProblemError 404 for a staff member not of this store.
 */
export async function saveSchedule(m: Mutation, staffId: string, input: StaffScheduleUpdate): Promise<StaffSchedule> {
  if (!(await staffExists(m.tx, m.merchantId, staffId))) throw notFound('staff member', staffId);
  const { rows } = await m.tx.query<ScheduleRow>(
    `INSERT INTO staff_schedules (staff_id, merchant_id, level, shifts, time_off, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6)
     ON CONFLICT (staff_id) DO UPDATE SET level = EXCLUDED.level, shifts = EXCLUDED.shifts, time_off = EXCLUDED.time_off, updated_at = EXCLUDED.updated_at
     RETURNING *`,
    [staffId, m.merchantId, input.level, JSON.stringify(input.shifts), JSON.stringify(input.timeOff ?? []), m.now.toISOString()],
  );
  const schedule = scheduleOf(rows[0]!);
  await m.audit({ action: 'staff_schedule.saved', entityType: 'staff', entityId: staffId, data: { ...schedule } });
  return schedule;
}

async function readSchedule(db: Queryable, merchantId: string, staffId: string): Promise<StaffSchedule | undefined> {
  const { rows } = await db.query<ScheduleRow>('SELECT * FROM staff_schedules WHERE merchant_id = $1 AND staff_id = $2', [merchantId, staffId]);
  return rows[0] && scheduleOf(rows[0]);
}

// --------------------------------------------------------------------------------------------------------------------
// Availability

async function timeZoneOf(db: Queryable, merchantId: string): Promise<string> {
  const { rows } = await db.query<{ time_zone: string }>('SELECT time_zone FROM merchants WHERE id = $1', [merchantId]);
  return rows[0]?.time_zone ?? 'UTC';
}

/** Holds of `holderIds` overlapping `span`, by holder. */
async function holdsOf(db: Queryable, merchantId: string, holderIds: string[], span: Span, exceptAppointment?: string): Promise<Map<string, Span[]>> {
  const out = new Map<string, Span[]>(holderIds.map((id) => [id, []]));
  if (holderIds.length === 0) return out;
  const { rows } = await db.query<{ holder_id: string; s: Date; e: Date }>(
    `SELECT holder_id, lower(during) AS s, upper(during) AS e FROM appointment_holds
      WHERE merchant_id = $1 AND holder_id = ANY($2::text[]) AND during && tstzrange($3, $4, '[)') AND appointment_id <> $5`,
    [merchantId, holderIds, new Date(span.start).toISOString(), new Date(span.end).toISOString(), exceptAppointment ?? ''],
  );
  for (const r of rows) out.get(r.holder_id)!.push({ start: new Date(r.s).getTime(), end: new Date(r.e).getTime() });
  return out;
}

/**
 * The free start times of a service on the store's local day `date`, for one staff member or anyone scheduled
 * (core/appointments.ts `availableStarts`), never before `now`.
 * @throws ProblemError 404 for a service or staff member not of this store.
 */
export async function availability(
  db: Queryable,
  merchantId: string,
  q: { serviceId: string; date: string; staffId?: string },
  now: Date,
): Promise<{ date: string; timeZone: string; stepMinutes: number; starts: { startsAt: string; staffIds: string[] }[] }> {
  const timeZone = await timeZoneOf(db, merchantId);
  const service = await readService(db, merchantId, q.serviceId);
  if (!service) throw notFound('service', q.serviceId);
  const named = q.staffId && q.staffId !== 'anyone' ? q.staffId : undefined;
  if (named && !(await staffExists(db, merchantId, named))) throw notFound('staff member', named);
  const { rows } = await db.query<ScheduleRow>(
    `SELECT s.* FROM staff_schedules s WHERE s.merchant_id = $1 AND ($2::text IS NULL OR s.staff_id = $2) ORDER BY s.staff_id`,
    [merchantId, named ?? null],
  );
  const schedules = rows.map(scheduleOf);
  const resources = (await listResources(db, merchantId)).data.filter((r) => r.active && service.resourceKinds.includes(r.kind));
  // The day, widened by the longest appointment on either side: holds that reach into it.
  const day = localDaySpan(q.date, timeZone);
  const widened = { start: day.start - 24 * 3_600_000, end: day.end + 24 * 3_600_000 };
  const holds = await holdsOf(db, merchantId, [...schedules.map((s) => s.staffId), ...resources.map((r) => r.id)], widened);
  const starts = service.active
    ? availableStarts({
        timeZone,
        date: q.date,
        service,
        staff: schedules.map((s) => ({ ...s, busy: holds.get(s.staffId) ?? [] })),
        resources: resources.map((r) => ({ id: r.id, kind: r.kind, busy: holds.get(r.id) ?? [] })),
        stepMinutes: AVAILABILITY_STEP_MINUTES,
        notBefore: now.getTime(),
      })
    : [];
  return { date: q.date, timeZone, stepMinutes: AVAILABILITY_STEP_MINUTES, starts };
}

// --------------------------------------------------------------------------------------------------------------------
// Appointments

interface AppointmentRow {
  id: string;
  service_id: string;
  staff_id: string;
  customer_id: string | null;
  customer_name: string | null;
  starts_at: Date;
  ends_at: Date;
  status: AppointmentStatus;
  price_cents: string | number;
  resource_ids: unknown;
  parts: unknown;
  note: string | null;
  created_at: Date;
  updated_at: Date;
}

const appointmentOf = (r: AppointmentRow): Appointment => ({
  id: r.id,
  serviceId: r.service_id,
  staffId: r.staff_id,
  customerId: r.customer_id,
  customerName: r.customer_name,
  startsAt: iso(r.starts_at),
  endsAt: iso(r.ends_at),
  status: r.status,
  priceCents: Number(r.price_cents),
  resourceIds: jsonValue(r.resource_ids),
  parts: jsonValue(r.parts),
  note: r.note,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const partsJson = (parts: BusyPart[]) => parts.map((p) => ({ kind: p.kind, start: iso(new Date(p.start)), end: iso(new Date(p.end)) }));

/** One appointment of the store. @throws ProblemError 404 when it is not one. */
export async function getAppointment(db: Queryable, merchantId: string, id: string, lock = false): Promise<Appointment> {
  const { rows } = await db.query<AppointmentRow>(`SELECT * FROM appointments WHERE merchant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
    merchantId,
    id,
  ]);
  if (!rows[0]) throw notFound('appointment', id);
  return appointmentOf(rows[0]);
}

/** The appointments starting on the store's local day `date` (every state), by start time; one staff member's when named. */
export async function listDay(
  db: Queryable,
  merchantId: string,
  q: { date: string; staffId?: string },
): Promise<{ date: string; timeZone: string; data: Appointment[] }> {
  const timeZone = await timeZoneOf(db, merchantId);
  const day = localDaySpan(q.date, timeZone);
  const { rows } = await db.query<AppointmentRow>(
    `SELECT * FROM appointments WHERE merchant_id = $1 AND starts_at >= $2 AND starts_at < $3 AND ($4::text IS NULL OR staff_id = $4)
      ORDER BY starts_at, id`,
    [merchantId, new Date(day.start).toISOString(), new Date(day.end).toISOString(), q.staffId ?? null],
  );
  return { date: q.date, timeZone, data: rows.map(appointmentOf) };
}

/**
 * Where a booking of `service` by `staffId` at `start` may go: its parts, price and the resources it holds (the first
 * free of each kind). Bookings of the staff member are left to the database's exclusion constraint.
 * @throws ProblemError 400 naming `staffId` for a staff member not of this store; 409 `staff_not_available` (no
 *   schedule, outside their shift, on a break, on time off), `service_not_offered` (no price at their level),
 *   `resource_unavailable` (the store has no active resource of a needed kind). When every resource of a kind is
 *   held then, the first is chosen anyway and `hold` answers the clash.
 */
async function placeBooking(
  m: Mutation,
  service: AppointmentService,
  staffId: string,
  start: number,
  timeZone: string,
  exceptAppointment?: string,
): Promise<{ parts: BusyPart[]; priceCents: number; resourceIds: string[] }> {
  if (!(await staffExists(m.tx, m.merchantId, staffId))) throw fieldError('staffId', 'is not a staff member of this store');
  const schedule = await readSchedule(m.tx, m.merchantId, staffId);
  if (!schedule) throw new ProblemError(409, 'staff_not_available', `Staff member ${staffId} has no working hours set: save their schedule first.`);
  const priceCents = priceAtLevel(service, schedule.level);
  if (priceCents === undefined)
    throw new ProblemError(
      409,
      'service_not_offered',
      `${service.name} has no price at level ${schedule.level}, the level of staff member ${staffId}.`,
    );
  const conflict = staffConflict({ ...schedule, busy: [] }, service, start, timeZone);
  if (conflict) {
    const why = { not_working: 'is not working then', on_break: 'is on a break then', time_off: 'has time off then', booked: 'is booked then' }[
      conflict
    ];
    throw new ProblemError(409, 'staff_not_available', `Staff member ${staffId} ${why} (${timeZone}).`);
  }
  const parts = busyParts(service, start);
  const whole = { start, end: parts[parts.length - 1]!.end };
  const resources = (await listResources(m.tx, m.merchantId)).data.filter((r) => r.active && service.resourceKinds.includes(r.kind));
  const holds = await holdsOf(
    m.tx,
    m.merchantId,
    resources.map((r) => r.id),
    whole,
    exceptAppointment,
  );
  const free = freeResources(
    resources.map((r) => ({ id: r.id, kind: r.kind, busy: holds.get(r.id) ?? [] })),
    service.resourceKinds,
    service,
    start,
  );
  // None free of some kind: the first of each kind is asked for, so the database refuses it and names who holds it.
  const missing = service.resourceKinds.filter((kind) => !resources.some((r) => r.kind === kind));
  if (missing.length > 0)
    throw new ProblemError(409, 'resource_unavailable', `${service.name} needs a ${missing.join(' and a ')}, and the store has none in use.`);
  const resourceIds = free ?? service.resourceKinds.map((kind) => resources.find((r) => r.kind === kind)!.id);
  return { parts, priceCents, resourceIds };
}

/**
 * Writes the holds of an appointment: the staff member for its work and buffer parts, each resource for every part.
 * The exclusion constraint refuses any that overlaps another appointment's hold of the same staff member or resource.
 * @throws AppointmentClashError 409 `appointment_clash` naming each staff member or resource held then and the
 *   appointment holding it.
 */
async function hold(m: Mutation, appointmentId: string, staffId: string, resourceIds: string[], parts: BusyPart[]): Promise<void> {
  const rows = [
    ...staffParts(parts).map((p) => ({ holder_kind: 'staff', holder_id: staffId, part: p.kind, s: iso(new Date(p.start)), e: iso(new Date(p.end)) })),
    ...resourceIds.flatMap((id) =>
      parts.map((p) => ({ holder_kind: 'resource', holder_id: id, part: p.kind, s: iso(new Date(p.start)), e: iso(new Date(p.end)) })),
    ),
  ];
  await m.savepoint('appointment_holds');
  try {
    await m.tx.query(
      `INSERT INTO appointment_holds (merchant_id, appointment_id, holder_kind, holder_id, part, during)
       SELECT $1, $2, x.holder_kind, x.holder_id, x.part, tstzrange(x.s, x.e, '[)')
         FROM jsonb_to_recordset($3::jsonb) AS x(holder_kind text, holder_id text, part text, s timestamptz, e timestamptz)`,
      [m.merchantId, appointmentId, JSON.stringify(rows)],
    );
    await m.releaseSavepoint('appointment_holds');
  } catch (error) {
    if ((error as { code?: string }).code !== '23P01') throw error;
    await m.rollbackToSavepoint('appointment_holds');
    const whole = { start: parts[0]!.start, end: parts[parts.length - 1]!.end };
    const { rows: clashes } = await m.tx.query<{
      holder_kind: string;
      holder_id: string;
      holder_name: string | null;
      appointment_id: string;
      s: Date;
      e: Date;
    }>(
      `SELECT h.holder_kind, h.holder_id, COALESCE(st.name, r.name) AS holder_name, h.appointment_id, min(lower(h.during)) AS s, max(upper(h.during)) AS e
         FROM appointment_holds h
         LEFT JOIN staff st ON h.holder_kind = 'staff' AND st.id = h.holder_id
         LEFT JOIN appointment_resources r ON h.holder_kind = 'resource' AND r.id = h.holder_id
        WHERE h.merchant_id = $1 AND h.holder_id = ANY($2::text[]) AND h.during && tstzrange($3, $4, '[)') AND h.appointment_id <> $5
        GROUP BY h.holder_kind, h.holder_id, st.name, r.name, h.appointment_id ORDER BY h.holder_kind DESC, h.holder_id`,
      [m.merchantId, [staffId, ...resourceIds], iso(new Date(whole.start)), iso(new Date(whole.end)), appointmentId],
    );
    const named = clashes.map((c) => ({
      holderKind: c.holder_kind,
      holderId: c.holder_id,
      holderName: c.holder_name ?? c.holder_id,
      appointmentId: c.appointment_id,
      start: iso(c.s),
      end: iso(c.e),
    }));
    throw new AppointmentClashError(
      `Double booking refused: ${named.map((c) => `${c.holderName} (${c.holderKind === 'staff' ? 'staff member' : 'resource'}) is held by appointment ${c.appointmentId} from ${c.start} to ${c.end}`).join('; ') || 'the staff member or a resource is held then'}.`,
      named,
    );
  }
}

/**
 * Books an appointment: checks the staff member works then and offers the service, picks free resources, and holds
 * them and the staff member for the busy parts; audited `appointment.booked`.
 * @throws ProblemError 400 naming `serviceId`, `staffId` or `customerId` when not of this store (or the service is
 *   inactive); 409 as `placeBooking` and `hold` (`appointment_clash`).
 */
export async function bookAppointment(m: Mutation, input: AppointmentCreate): Promise<Appointment> {
  const service = await readService(m.tx, m.merchantId, input.serviceId);
  if (!service || !service.active) throw fieldError('serviceId', 'is not a service this store offers');
  if (input.customerId) {
    const { rows } = await m.tx.query('SELECT 1 FROM customers WHERE merchant_id = $1 AND id = $2', [m.merchantId, input.customerId]);
    if (rows.length === 0) throw fieldError('customerId', 'is not a customer of this store');
  }
  const timeZone = await timeZoneOf(m.tx, m.merchantId);
  const start = Date.parse(input.startsAt);
  const placed = await placeBooking(m, service, input.staffId, start, timeZone);
  const id = newId('appointment');
  const now = m.now.toISOString();
  const { rows } = await m.tx.query<AppointmentRow>(
    `INSERT INTO appointments (id, merchant_id, service_id, staff_id, customer_id, customer_name, starts_at, ends_at, status, price_cents,
       resource_ids, parts, note, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'booked', $9, $10::jsonb, $11::jsonb, $12, $13, $13) RETURNING *`,
    [
      id,
      m.merchantId,
      service.id,
      input.staffId,
      input.customerId ?? null,
      input.customerName ?? null,
      iso(new Date(start)),
      iso(new Date(start + service.durationMinutes * 60_000)),
      placed.priceCents,
      JSON.stringify(placed.resourceIds),
      JSON.stringify(partsJson(placed.parts)),
      input.note ?? null,
      now,
    ],
  );
  await hold(m, id, input.staffId, placed.resourceIds, placed.parts);
  const appointment = appointmentOf(rows[0]!);
  await m.audit({
    action: 'appointment.booked',
    entityType: 'appointment',
    entityId: id,
    data: {
      serviceId: service.id,
      staffId: input.staffId,
      startsAt: appointment.startsAt,
      resourceIds: placed.resourceIds,
      priceCents: placed.priceCents,
    },
  });
  return appointment;
}

const NEXT: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  booked: ['arrived', 'no_show', 'cancelled'],
  arrived: [],
  no_show: [],
  cancelled: [],
};

/**
 * Moves an appointment (new start and/or staff member: its holds are released and taken again, the price follows the
 * staff member's level) or changes its state (arrived keeps the holds; no-show and cancelled release them, so the time
 * is free again); a note may change in any state. Audited `appointment.moved`, `appointment.<status>`,
 * `appointment.noted`.
 * @throws ProblemError 404 for an appointment not of this store; 409 `illegal_state_transition` for a move or change
 *   out of a state other than booked; 409 as {@link bookAppointment} for a move.
 */
export async function updateAppointment(m: Mutation, id: string, patch: AppointmentUpdate): Promise<Appointment> {
  const before = await getAppointment(m.tx, m.merchantId, id, true);
  const moving = patch.startsAt !== undefined || patch.staffId !== undefined;
  if ((moving || patch.status) && before.status !== 'booked')
    throw new ProblemError(
      409,
      'illegal_state_transition',
      `Appointment ${id} is ${before.status}: only a booked appointment can be moved, marked or cancelled.`,
    );
  const now = m.now.toISOString();
  if (moving) {
    const service = await readService(m.tx, m.merchantId, before.serviceId);
    const staffId = patch.staffId ?? before.staffId;
    const start = Date.parse(patch.startsAt ?? before.startsAt);
    await m.tx.query('DELETE FROM appointment_holds WHERE merchant_id = $1 AND appointment_id = $2', [m.merchantId, id]);
    const placed = await placeBooking(m, service!, staffId, start, await timeZoneOf(m.tx, m.merchantId), id);
    await hold(m, id, staffId, placed.resourceIds, placed.parts);
    await m.tx.query(
      `UPDATE appointments SET staff_id = $3, starts_at = $4, ends_at = $5, price_cents = $6, resource_ids = $7::jsonb, parts = $8::jsonb, updated_at = $9
        WHERE merchant_id = $1 AND id = $2`,
      [
        m.merchantId,
        id,
        staffId,
        iso(new Date(start)),
        iso(new Date(start + service!.durationMinutes * 60_000)),
        placed.priceCents,
        JSON.stringify(placed.resourceIds),
        JSON.stringify(partsJson(placed.parts)),
        now,
      ],
    );
    await m.audit({
      action: 'appointment.moved',
      entityType: 'appointment',
      entityId: id,
      data: {
        from: { staffId: before.staffId, startsAt: before.startsAt },
        to: { staffId, startsAt: iso(new Date(start)) },
        resourceIds: placed.resourceIds,
      },
    });
  }
  if (patch.status) {
    if (!NEXT[before.status].includes(patch.status))
      throw new ProblemError(409, 'illegal_state_transition', `Appointment ${id} is ${before.status}: it cannot become ${patch.status}.`);
    if (patch.status !== 'arrived')
      await m.tx.query('DELETE FROM appointment_holds WHERE merchant_id = $1 AND appointment_id = $2', [m.merchantId, id]);
    await m.tx.query('UPDATE appointments SET status = $3, updated_at = $4 WHERE merchant_id = $1 AND id = $2', [
      m.merchantId,
      id,
      patch.status,
      now,
    ]);
    await m.audit({ action: `appointment.${patch.status}`, entityType: 'appointment', entityId: id, data: { from: before.status } });
  }
  if (patch.note !== undefined) {
    await m.tx.query('UPDATE appointments SET note = $3, updated_at = $4 WHERE merchant_id = $1 AND id = $2', [m.merchantId, id, patch.note, now]);
    await m.audit({ action: 'appointment.noted', entityType: 'appointment', entityId: id, data: { note: patch.note } });
  }
  return getAppointment(m.tx, m.merchantId, id);
}
