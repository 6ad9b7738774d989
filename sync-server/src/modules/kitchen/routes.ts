import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  kitchenSetupSchema,
  kitchenSetupUpdateSchema,
  kitchenTicketEventSchema,
  stationTicketsSchema,
  stationTicketTimesSchema,
  utcDateTime,
  type KitchenTicketEvent,
  type StationTicketTimes,
  type StationTickets,
} from '../../../../core/index.ts';
import { actorOf, mutation, type MutationActor } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { readKitchenSetup, saveKitchenSetup } from './service.ts';

/** The workflows the kitchen routes call (workflows/kitchen-tickets.ts), handed in by app.ts. */
export interface KitchenWorkflows {
  /** GET …/stations/{stationId}/tickets: `stationTickets` (404 unknown station). */
  stationTickets(db: Queryable, merchantId: string, stationId: string, now: Date): Promise<StationTickets>;
  /** POST …/bump and …/recall: `markTicket` (404 unknown station or ticket, 409 wrong state). */
  markTicket(
    ctx: AppContext,
    actor: MutationActor & { staffId: string | null },
    ticket: { stationId: string; sendId: string; action: 'bump' | 'recall' },
  ): Promise<KitchenTicketEvent>;
  /** GET /api/pos/kitchen/ticket-times: `kitchenTicketTimes`. */
  kitchenTicketTimes(db: Queryable, merchantId: string, from: string, to: string): Promise<StationTicketTimes[]>;
}

const stationParams = z.strictObject({ stationId: z.string().regex(/^[a-z0-9_-]{1,24}$/, 'must be a station id (1 to 24 a-z, 0-9, - or _)') });
const ticketParams = stationParams.extend({
  sendId: z.string().regex(/^snd_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a send id starting with snd_'),
});
/** Longest period of the ticket-times report, days. */
const MAX_PERIOD_DAYS = 93;
const ticketTimesQuery = z.strictObject({
  from: utcDateTime.describe('Tickets fired at or after this instant.'),
  to: utcDateTime.describe(`Tickets fired before this instant; at most ${MAX_PERIOD_DAYS} days after from.`),
});
const ticketTimesResponse = z.strictObject({ from: z.string(), to: z.string(), stations: z.array(stationTicketTimesSchema) });

/**
 * The kitchen API: the set-up (`GET`/`PUT /api/pos/kitchen/setup`: stations, routing, age thresholds, saved whole
 * from a version), a station's display (`GET …/stations/{stationId}/tickets`), bump and recall
 * (`POST …/tickets/{sendId}/bump|recall`, recorded and audited) and ticket times (`GET /api/pos/kitchen/ticket-times`).
 * Displays are paired like registers: register credentials read tickets and bump; staff save the set-up.
 */
export function registerKitchenRoutes(app: FastifyInstance, ctx: AppContext, workflows: KitchenWorkflows): void {
  app.get(
    '/api/pos/kitchen/setup',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: "The store's kitchen set-up",
          description:
            'Stations, where items and categories go, the default station, items not prepared, and the ticket age thresholds. Version 0: never saved.',
          tags: ['restaurant'],
          access: 'register',
          response: kitchenSetupSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => readKitchenSetup(ctx.db, principalOf(request).merchantId),
  );

  app.put(
    '/api/pos/kitchen/setup',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Save the kitchen set-up',
          description:
            'The whole set-up as edited, with the version it was edited from. Station ids are unique and kept (a display opens at /kitchen/<id>); every route names a station of the set-up; lateAfterMinutes is more than warnAfterMinutes.',
          errors: { 409: 'Saved by someone else since `version` (`kitchen_setup_changed`): reload and edit again' },
          tags: ['restaurant'],
          access: 'staff',
          body: kitchenSetupUpdateSchema,
          response: kitchenSetupSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(kitchenSetupUpdateSchema, request.body ?? undefined);
      return mutation(ctx, actorOf(principalOf(request)), (m) => saveKitchenSetup(m, body));
    },
  );

  app.get(
    '/api/pos/kitchen/stations/:stationId/tickets',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: "A station's kitchen display",
          description:
            "The tickets of the station: the lines registers sent (one ticket per send id), routed by the set-up, with table, server, seat, course, modifiers and notes; voided lines marked. Open tickets oldest first, the last bumped ones for recall, the all-day count and the store's age thresholds.",
          errors: { 404: 'No such station in the set-up' },
          tags: ['restaurant'],
          access: 'register',
          params: stationParams,
          response: stationTicketsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { stationId } = parseOrThrow(stationParams, request.params, '(path)');
      return workflows.stationTickets(ctx.db, principalOf(request).merchantId, stationId, ctx.clock());
    },
  );

  for (const action of ['bump', 'recall'] as const) {
    app.post(
      `/api/pos/kitchen/stations/:stationId/tickets/:sendId/${action}`,
      {
        onRequest: guard(ctx, 'register'),
        config: {
          openapi: {
            summary: action === 'bump' ? 'Bump a ticket (done)' : 'Recall a bumped ticket',
            description:
              action === 'bump'
                ? 'Takes the ticket off the display; recorded with who (display or staff member) and when, and audited (`kitchen_ticket.bumped`). Its ticket time runs from fire to this bump.'
                : 'Brings a bumped ticket back on the display; recorded and audited (`kitchen_ticket.recalled`). A later bump is its new end.',
            errors: {
              404: 'No such station, or the send has no line for it',
              409: action === 'bump' ? 'Bumped already (`ticket_already_bumped`)' : 'Not bumped (`ticket_not_bumped`)',
            },
            tags: ['restaurant'],
            access: 'register',
            params: ticketParams,
            body: z.strictObject({}),
            response: kitchenTicketEventSchema,
            status: 201,
          } satisfies RouteDoc,
        },
      },
      // A display that lost the answer to its bump retries with the same Idempotency-Key and gets the same event back,
      // not 409 ticket_already_bumped.
      idempotent(ctx.db, ctx.clock, async (request) => {
        const { stationId, sendId } = parseOrThrow(ticketParams, request.params, '(path)');
        parseOrThrow(z.strictObject({}), request.body ?? {});
        const principal = principalOf(request);
        const event = await workflows.markTicket(
          ctx,
          { ...actorOf(principal), staffId: principal.kind === 'staff' ? principal.staffId : null },
          { stationId, sendId, action },
        );
        return { status: 201, body: event };
      }),
    );
  }

  app.get(
    '/api/pos/kitchen/ticket-times',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Ticket times per station',
          description:
            'For the tickets fired in [from, to): per station the tickets, how many are bumped and open, the bumps and recalls recorded for them (bumps − recalls = bumped tickets), and the mean, median and longest fire → bump time in seconds.',
          tags: ['restaurant'],
          access: 'staff',
          query: ticketTimesQuery,
          response: ticketTimesResponse,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { from, to } = parseOrThrow(ticketTimesQuery, request.query, '(query)');
      const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
      if (days <= 0)
        throw new ProblemError(400, 'validation_error', 'Invalid to: must be after from.', [{ path: 'to', message: 'must be after from' }]);
      if (days > MAX_PERIOD_DAYS)
        throw new ProblemError(400, 'validation_error', `Invalid to: at most ${MAX_PERIOD_DAYS} days after from.`, [
          { path: 'to', message: `must be at most ${MAX_PERIOD_DAYS} days after from` },
        ]);
      return { from, to, stations: await workflows.kitchenTicketTimes(ctx.db, principalOf(request).merchantId, from, to) };
    },
  );
}
