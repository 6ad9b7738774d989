/**
 * The appointment book through the API: services, resources and staff schedules (400s naming the field), free start
 * times in the store's zone, booking, moving, marking and cancelling — and the database refusing a double booking
 * (the exclusion constraint over the staff member's and each resource's busy parts), also when 20 bookings of one slot
 * race over HTTP: exactly one 201, nineteen 409s naming the clash. On PGlite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Appointment, AppointmentService } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

describe.each(databaseTargets())('appointments on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let stylist: string;
  let barber: string;
  let colour: AppointmentService;
  let cut: AppointmentService;

  const call = (method: string, url: string, payload?: unknown, token = owner) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const ok = async (method: string, url: string, payload?: unknown, status = 200): Promise<Json> => {
    const res = await call(method, url, payload);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  // Tuesday 2030-06-04 in New York (EDT, UTC−4): 09:00 local is 13:00Z.
  const DAY = '2030-06-04';
  const week = (level: string) => ({
    level,
    shifts: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '09:00', end: '17:00', breaks: [{ start: '12:00', end: '13:00' }] })),
  });

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, listen: true });
    owner = server.credentials.staffToken;
    await ok('PATCH', '/api/pos/settings', { timeZone: 'America/New_York' });
    stylist = (await ok('POST', '/api/pos/staff', { name: 'Sasha Stylist', role: 'cashier' }, 201)).id;
    barber = (await ok('POST', '/api/pos/staff', { name: 'Bo Barber', role: 'cashier' }, 201)).id;
    await ok('PUT', `/api/pos/staff-schedules/${stylist}`, week('senior'));
    await ok('PUT', `/api/pos/staff-schedules/${barber}`, week('junior'));
    await ok('POST', '/api/pos/appointment-resources', { name: 'Chair 1', kind: 'chair' }, 201);
    await ok('POST', '/api/pos/appointment-resources', { name: 'Basin 1', kind: 'basin' }, 201);
    colour = (await ok(
      'POST',
      '/api/pos/appointment-services',
      {
        name: 'Full colour',
        durationMinutes: 120,
        processing: { afterMinutes: 30, minutes: 45 },
        bufferAfterMinutes: 15,
        prices: [{ level: 'senior', priceCents: 12_000 }],
        resourceKinds: ['chair', 'basin'],
      },
      201,
    )) as AppointmentService;
    cut = (await ok(
      'POST',
      '/api/pos/appointment-services',
      {
        name: 'Cut',
        durationMinutes: 30,
        prices: [
          { level: 'senior', priceCents: 6_000 },
          { level: 'junior', priceCents: 3_500 },
        ],
      },
      201,
    )) as AppointmentService;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses bad services, resources and schedules with a 400 naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      [
        'POST',
        '/api/pos/appointment-services',
        { name: 'X', durationMinutes: 60, processing: { afterMinutes: 30, minutes: 30 }, prices: [{ level: 'a', priceCents: 1 }] },
        'processing.minutes',
      ],
      ['POST', '/api/pos/appointment-services', { name: 'X', durationMinutes: 2, prices: [{ level: 'a', priceCents: 1 }] }, 'durationMinutes'],
      ['POST', '/api/pos/appointment-services', { name: 'X', durationMinutes: 30, prices: [{ level: 'a', priceCents: -1 }] }, 'prices.0.priceCents'],
      [
        'POST',
        '/api/pos/appointment-services',
        {
          name: 'X',
          durationMinutes: 30,
          prices: [
            { level: 'a', priceCents: 1 },
            { level: 'A', priceCents: 2 },
          ],
        },
        'prices.1.level',
      ],
      ['POST', '/api/pos/appointment-resources', { name: 'Sink', kind: 'sink' }, 'kind'],
      ['PUT', `/api/pos/staff-schedules/${stylist}`, { level: 'senior', shifts: [{ weekday: 8, start: '09:00', end: '17:00' }] }, 'shifts.0.weekday'],
      ['PUT', `/api/pos/staff-schedules/${stylist}`, { level: 'senior', shifts: [{ weekday: 1, start: '17:00', end: '09:00' }] }, 'shifts.0.end'],
      [
        'PUT',
        `/api/pos/staff-schedules/${stylist}`,
        { level: 'senior', shifts: [{ weekday: 1, start: '09:00', end: '12:00', breaks: [{ start: '11:00', end: '13:00' }] }] },
        'shifts.0.breaks.0',
      ],
      ['PATCH', `/api/pos/appointment-services/${cut.id}`, { processing: { afterMinutes: 20, minutes: 20 } }, 'processing.minutes'],
      ['POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt: 'tomorrow' }, 'startsAt'],
    ];
    for (const [method, url, body, path] of cases) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(
        res.json().errors.map((e: Json) => e.path),
        res.body,
      ).toContain(path);
    }
    expect((await call('GET', `/api/pos/appointment-availability?serviceId=${cut.id}&date=2030-02-30`)).json().errors[0].path).toBe('date');
    // Staff of another store, or nobody: 404.
    expect((await call('PUT', '/api/pos/staff-schedules/stf_01J00000000000000000000000', week('senior'))).statusCode).toBe(404);
  });

  it("offers free starts in the store's zone: shifts, breaks, processing gaps and bookings", async () => {
    const free = await ok('GET', `/api/pos/appointment-availability?serviceId=${cut.id}&date=${DAY}&staffId=anyone`);
    expect(free.timeZone).toBe('America/New_York');
    // 09:00 EDT is 13:00Z; the last cut starts 16:30 (20:30Z); the lunch break 12:00–13:00 (16:00–17:00Z) is left out.
    expect(free.starts[0]).toEqual({ startsAt: '2030-06-04T13:00:00.000Z', staffIds: [stylist, barber].sort() });
    expect(free.starts.at(-1).startsAt).toBe('2030-06-04T20:30:00.000Z');
    expect(free.starts.map((s: Json) => s.startsAt)).not.toContain('2030-06-04T16:00:00.000Z');
    // Only the senior stylist offers colour (priced at their level); it needs 2 h 15 with the buffer.
    const colourFree = await ok('GET', `/api/pos/appointment-availability?serviceId=${colour.id}&date=${DAY}`);
    expect(new Set(colourFree.starts.flatMap((s: Json) => s.staffIds))).toEqual(new Set([stylist]));

    // Colour at 09:00: the stylist works 09:00–09:30 and 10:15–11:00, cleans up till 11:15, and is free while it processes.
    const booked = await ok(
      'POST',
      '/api/pos/appointments',
      { serviceId: colour.id, staffId: stylist, startsAt: '2030-06-04T13:00:00Z', customerName: 'Ada' },
      201,
    );
    expect(booked).toMatchObject({ status: 'booked', priceCents: 12_000, endsAt: '2030-06-04T15:00:00.000Z' });
    expect(booked.resourceIds).toHaveLength(2);
    expect(booked.parts.map((p: Json) => p.kind)).toEqual(['work', 'processing', 'work', 'buffer']);
    const stylistFree = (await ok('GET', `/api/pos/appointment-availability?serviceId=${cut.id}&date=${DAY}&staffId=${stylist}`)).starts.map(
      (s: Json) => s.startsAt,
    );
    expect(stylistFree).toContain('2030-06-04T13:30:00.000Z'); // 09:30: processing has started
    expect(stylistFree).toContain('2030-06-04T13:45:00.000Z'); // 09:45–10:15, inside the processing gap
    expect(stylistFree).not.toContain('2030-06-04T14:00:00.000Z'); // 10:00–10:30 runs into the second work part
    expect(stylistFree).not.toContain('2030-06-04T13:15:00.000Z'); // 09:15 runs into the first work part
    expect(stylistFree).not.toContain('2030-06-04T15:00:00.000Z'); // 11:00 is the buffer
    expect(stylistFree).toContain('2030-06-04T15:15:00.000Z');
    // A cut for the stylist in the processing gap books; the chair and basin stay with the colour client.
    const gap = await call('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: stylist, startsAt: '2030-06-04T13:30:00Z' });
    expect(gap.statusCode, gap.body).toBe(201);
    // A second colour in the same hours: the chair and basin are held by the first (the database names the clash).
    await ok('PUT', `/api/pos/staff-schedules/${barber}`, week('senior'));
    const noChair = await call('POST', '/api/pos/appointments', { serviceId: colour.id, staffId: barber, startsAt: '2030-06-04T13:30:00Z' });
    expect(noChair.statusCode, noChair.body).toBe(409);
    expect(noChair.json()).toMatchObject({
      code: 'appointment_clash',
      clashes: [
        { holderName: 'Chair 1', appointmentId: booked.id },
        { holderName: 'Basin 1', appointmentId: booked.id },
      ],
    });
    await ok('PUT', `/api/pos/staff-schedules/${barber}`, week('junior'));
    // Outside the shift, and on the break: the staff member is not available.
    for (const startsAt of ['2030-06-04T12:00:00Z', '2030-06-04T16:00:00Z', '2030-06-08T14:00:00Z']) {
      const res = await call('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().code).toBe('staff_not_available');
    }
  });

  it('refuses a double booking with a 409 naming the clash; moves, marks and cancels', async () => {
    const first = await ok('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt: '2030-06-05T15:00:00Z' }, 201);
    const clash = await call('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt: '2030-06-05T15:15:00Z' });
    expect(clash.statusCode, clash.body).toBe(409);
    expect(clash.json()).toMatchObject({
      code: 'appointment_clash',
      clashes: [{ holderKind: 'staff', holderId: barber, holderName: 'Bo Barber', appointmentId: first.id }],
    });
    expect(clash.json().detail).toContain('Bo Barber');

    // Move it half an hour later: the old time is free, the new one held.
    const moved = await ok('PATCH', `/api/pos/appointments/${first.id}`, { startsAt: '2030-06-05T15:30:00Z' });
    expect(moved.startsAt).toBe('2030-06-05T15:30:00.000Z');
    const again = await ok('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt: '2030-06-05T15:00:00Z' }, 201);
    expect((await call('PATCH', `/api/pos/appointments/${again.id}`, { startsAt: '2030-06-05T15:45:00Z' })).statusCode).toBe(409);

    // Arrived keeps the time; cancelled frees it; a cancelled one cannot be moved.
    expect((await ok('PATCH', `/api/pos/appointments/${again.id}`, { status: 'arrived' })).status).toBe('arrived');
    expect((await call('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt: '2030-06-05T15:00:00Z' })).statusCode).toBe(
      409,
    );
    expect((await ok('PATCH', `/api/pos/appointments/${first.id}`, { status: 'cancelled' })).status).toBe('cancelled');
    const refilled = await ok('POST', '/api/pos/appointments', { serviceId: cut.id, staffId: barber, startsAt: '2030-06-05T15:30:00Z' }, 201);
    expect((await ok('PATCH', `/api/pos/appointments/${refilled.id}`, { status: 'no_show' })).status).toBe('no_show');
    const late = await call('PATCH', `/api/pos/appointments/${first.id}`, { startsAt: '2030-06-05T16:00:00Z' });
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('illegal_state_transition');

    // The day's list, in the store's day, every state; each change audited.
    const day = await ok('GET', `/api/pos/appointments?date=2030-06-05&staffId=${barber}`);
    expect(day.data.map((a: Appointment) => [a.startsAt, a.status])).toEqual([
      ['2030-06-05T15:00:00.000Z', 'arrived'],
      ['2030-06-05T15:30:00.000Z', 'cancelled'],
      ['2030-06-05T15:30:00.000Z', 'no_show'],
    ]);
    const { rows } = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE entity_id = $1 ORDER BY seq`, [first.id]);
    expect(rows.map((r) => r.action)).toEqual(['appointment.booked', 'appointment.moved', 'appointment.cancelled']);
  });

  it('20 parallel bookings of one slot over HTTP: exactly one 201, nineteen 409s', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${server.baseUrl}/api/pos/appointments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', 'idempotency-key': `race-${i}` },
          body: JSON.stringify({ serviceId: colour.id, staffId: stylist, startsAt: '2030-06-06T13:00:00Z', customerName: `Client ${i}` }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json })),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(19);
    const winner = results.find((r) => r.status === 201)!.body.id;
    for (const r of refused)
      expect(r.body).toMatchObject({
        code: 'appointment_clash',
        clashes: expect.arrayContaining([expect.objectContaining({ appointmentId: winner })]),
      });
    const day = await ok('GET', '/api/pos/appointments?date=2030-06-06');
    expect(day.data).toHaveLength(1);
  });
});
