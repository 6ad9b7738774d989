import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  appointmentCreateSchema,
  appointmentDayQuerySchema,
  appointmentIdSchema,
  appointmentResourceCreateSchema,
  appointmentResourceIdSchema,
  appointmentResourceSchema,
  appointmentResourceUpdateSchema,
  appointmentSchema,
  appointmentServiceCreateSchema,
  appointmentServiceIdSchema,
  appointmentServiceSchema,
  appointmentServiceUpdateSchema,
  appointmentUpdateSchema,
  availabilityQuerySchema,
  availabilitySchema,
  staffIdSchema,
  staffScheduleSchema,
  staffScheduleUpdateSchema,
} from '../../../../core/index.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf, type Access } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import {
  availability,
  bookAppointment,
  createResource,
  createService,
  listDay,
  listResources,
  listSchedules,
  listServices,
  saveSchedule,
  updateAppointment,
  updateResource,
  updateService,
} from './service.ts';

const STAFF: Access = 'staff';
const TAG = 'appointments';
const serviceParams = z.strictObject({ id: appointmentServiceIdSchema });
const resourceParams = z.strictObject({ id: appointmentResourceIdSchema });
const scheduleParams = z.strictObject({ staffId: staffIdSchema });
const appointmentParams = z.strictObject({ id: appointmentIdSchema });
const list = <T extends z.ZodType>(item: T) => z.strictObject({ data: z.array(item) });
const CLASH =
  'A staff member or resource is held then (`appointment_clash`, `clashes` names each), the staff member does not work then (`staff_not_available`), does not offer the service at their level (`service_not_offered`), or the store has no resource of a kind it needs (`resource_unavailable`)';

/**
 * The appointment book's API (staff only): services, resources and staff schedules (managers edit them), the free
 * start times of a service, and appointments — book, move, mark arrived or no-show, cancel, and the day's list.
 */
export function registerAppointmentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const who = (request: Parameters<typeof principalOf>[0]) => actorOf(principalOf(request));

  app.get(
    '/api/pos/appointment-services',
    {
      onRequest: guard(ctx, STAFF),
      config: { openapi: { summary: 'List services', tags: [TAG], access: STAFF, response: list(appointmentServiceSchema) } satisfies RouteDoc },
    },
    async (request) => listServices(ctx.db, principalOf(request).merchantId),
  );
  app.post(
    '/api/pos/appointment-services',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Create a service',
          description:
            'Duration, an optional processing time in the middle (the staff member is free), a buffer after, a price per staff level in cents, and the kinds of resource it holds.',
          tags: [TAG],
          access: STAFF,
          body: appointmentServiceCreateSchema,
          response: appointmentServiceSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(appointmentServiceCreateSchema, request.body ?? undefined);
      return { status: 201, body: await mutation(ctx, who(request), (m) => createService(m, body)) };
    }),
  );
  app.patch(
    '/api/pos/appointment-services/:id',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Change a service',
          description: 'Any field; `active: false` stops offering it. Booked appointments keep their time and price.',
          tags: [TAG],
          access: STAFF,
          params: serviceParams,
          body: appointmentServiceUpdateSchema,
          response: appointmentServiceSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(serviceParams, request.params, '(path)');
      const body = parseOrThrow(appointmentServiceUpdateSchema, request.body ?? undefined);
      return mutation(ctx, who(request), (m) => updateService(m, id, body, (merged) => parseOrThrow(appointmentServiceCreateSchema, merged)));
    },
  );

  app.get(
    '/api/pos/appointment-resources',
    {
      onRequest: guard(ctx, STAFF),
      config: { openapi: { summary: 'List resources', tags: [TAG], access: STAFF, response: list(appointmentResourceSchema) } satisfies RouteDoc },
    },
    async (request) => listResources(ctx.db, principalOf(request).merchantId),
  );
  app.post(
    '/api/pos/appointment-resources',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Create a resource',
          description: 'A chair, room or basin that services of its kind hold.',
          tags: [TAG],
          access: STAFF,
          body: appointmentResourceCreateSchema,
          response: appointmentResourceSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(appointmentResourceCreateSchema, request.body ?? undefined);
      return { status: 201, body: await mutation(ctx, who(request), (m) => createResource(m, body)) };
    }),
  );
  app.patch(
    '/api/pos/appointment-resources/:id',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Rename or retire a resource',
          description: '`active: false`: no new booking holds it; appointments holding it keep it.',
          tags: [TAG],
          access: STAFF,
          params: resourceParams,
          body: appointmentResourceUpdateSchema,
          response: appointmentResourceSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(resourceParams, request.params, '(path)');
      const body = parseOrThrow(appointmentResourceUpdateSchema, request.body ?? undefined);
      return mutation(ctx, who(request), (m) => updateResource(m, id, body));
    },
  );

  app.get(
    '/api/pos/staff-schedules',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: { summary: "Staff members' schedules", tags: [TAG], access: STAFF, response: list(staffScheduleSchema) } satisfies RouteDoc,
      },
    },
    async (request) => listSchedules(ctx.db, principalOf(request).merchantId),
  );
  app.put(
    '/api/pos/staff-schedules/:staffId',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: "Save a staff member's schedule",
          description:
            "The whole schedule: their level (prices follow it), shifts per ISO weekday with breaks, wall-clock in the store's time zone, and time off as instants.",
          tags: [TAG],
          access: STAFF,
          params: scheduleParams,
          body: staffScheduleUpdateSchema,
          response: staffScheduleSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { staffId } = parseOrThrow(scheduleParams, request.params, '(path)');
      const body = parseOrThrow(staffScheduleUpdateSchema, request.body ?? undefined);
      return mutation(ctx, who(request), (m) => saveSchedule(m, staffId, body));
    },
  );

  app.get(
    '/api/pos/appointment-availability',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Free start times of a service on a day',
          description:
            "The store's local day, every 15 minutes from each shift's start, never in the past; each start with the staff members free then (one named, or `anyone`).",
          tags: [TAG],
          access: STAFF,
          query: availabilityQuerySchema,
          response: availabilitySchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(availabilityQuerySchema, request.query, '(query)');
      return availability(ctx.db, principalOf(request).merchantId, q, ctx.clock());
    },
  );

  app.get(
    '/api/pos/appointments',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: "The day's appointments",
          description: "Every appointment starting on the store's local day `date`, in every state, by start time.",
          tags: [TAG],
          access: STAFF,
          query: appointmentDayQuerySchema,
          response: z.strictObject({ date: z.string(), timeZone: z.string(), data: z.array(appointmentSchema) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(appointmentDayQuerySchema, request.query, '(query)');
      return listDay(ctx.db, principalOf(request).merchantId, q);
    },
  );
  app.post(
    '/api/pos/appointments',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Book an appointment',
          description:
            'Holds the staff member for the work and buffer parts and one free resource of each kind the service needs for all of it; the database refuses a double booking.',
          errors: { 409: CLASH },
          tags: [TAG],
          access: STAFF,
          body: appointmentCreateSchema,
          response: appointmentSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(appointmentCreateSchema, request.body ?? undefined);
      return { status: 201, body: await mutation(ctx, who(request), (m) => bookAppointment(m, body)) };
    }),
  );
  app.patch(
    '/api/pos/appointments/:id',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Move, mark or cancel an appointment',
          description:
            '`startsAt`/`staffId` move it (holds taken again); `status` arrived, no_show or cancelled (the last two free its time); `note`.',
          errors: { 409: `${CLASH}; or the appointment is not booked any more (\`illegal_state_transition\`)` },
          tags: [TAG],
          access: STAFF,
          params: appointmentParams,
          body: appointmentUpdateSchema,
          response: appointmentSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(appointmentParams, request.params, '(path)');
      const body = parseOrThrow(appointmentUpdateSchema, request.body ?? undefined);
      return mutation(ctx, who(request), (m) => updateAppointment(m, id, body));
    },
  );
}
