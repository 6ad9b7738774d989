import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageSchema } from '../../../../core/index.ts';
import { actorOf, type MutationActor } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import {
  CHECK_IMAGE_MAX_BYTES,
  checkCashCreateSchema,
  checkCashingListQuery,
  checkCashingSchema,
  completeCheckBody,
  getCheckCashing,
  getCheckImage,
  listCheckCashings,
  type CheckCashCreate,
  type CheckCashing,
} from './service.ts';

/** What the check-cashing routes do that spans modules (workflows/financial-services.ts), handed in by app.ts. */
export interface CheckCashingWorkflows {
  /** ID, screening, fee, limits, duplicate guard, cash out: 201 paid or 202 held. */
  cashCheck(ctx: AppContext, who: MutationActor, input: CheckCashCreate): Promise<{ status: 201 | 202; body: CheckCashing }>;
  /** Pays a held check once its screening is cleared. */
  completeHeldCheck(ctx: AppContext, who: MutationActor, id: string, shiftId?: string): Promise<CheckCashing>;
  /** Refuses a held check (and its held screening). */
  refuseHeldCheck(ctx: AppContext, who: MutationActor, id: string, reason: string): Promise<CheckCashing>;
  /** `GET /api/pos/financial-services`: money movement, settings, corridors. */
  overview(db: Queryable, merchantId: string): Promise<unknown>;
  /** Its response schema. */
  overviewSchema: z.ZodType;
}

const noQuery = z.strictObject({});
const idParams = z.strictObject({ id: z.string().regex(/^chq_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a check cashing id (chq_…)') });
const refuseBody = z.strictObject({ reason: z.string().trim().min(3).max(500) });

/**
 * Check cashing (docs/api.md "Check cashing"), staff only: cash a check (cashier), complete it once a held
 * screening is cleared (cashier), refuse a held one (manager), one record (cashier), the list with filters (manager);
 * and the services overview the register reads before the cashier starts.
 */
export function registerCheckCashingRoutes(app: FastifyInstance, ctx: AppContext, workflows: CheckCashingWorkflows): void {
  const staff = guard(ctx, 'staff');

  app.get(
    '/api/pos/financial-services',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Financial services overview',
          description:
            'Whether money may move in this store (the demo store: `disabled`, and the message the register shows before the cashier starts), the fee schedules and limits, the transfer corridors.',
          tags: ['financial-services'],
          access: 'staff',
          query: noQuery,
          response: workflows.overviewSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return workflows.overview(ctx.db, principalOf(request).merchantId);
    },
  );

  app.post(
    '/api/pos/check-cashings',
    {
      onRequest: staff,
      // The check image (base64 PNG up to 5 MiB) rides in the body.
      bodyLimit: Math.ceil(CHECK_IMAGE_MAX_BYTES / 3) * 4 + 64 * 1024,
      config: {
        openapi: {
          summary: 'Cash a check',
          description:
            "The MICR fields as the check scanner read them (ABA checksum verified), the check image (`imagePng`, stored with the record), the amount, the customer's licence barcode, the register's open shift (`shiftId`: its X/Z report counts the payout). Steps: money movement, duplicate MICR line, per-check limit, ID (expiry, age), per-customer daily limit, sanctions screening, fee (percent + fixed, minimum), cash out: Dr checks to deposit, Cr fee income, Cr cash drawer in one journal transaction. " +
            '201 `paid` with the receipt; 202 `held` when the customer is a potential sanctions match (a manager clears the screening, then `complete`). Every step and refusal is audited.',
          tags: ['financial-services'],
          access: 'staff',
          body: checkCashCreateSchema,
          response: checkCashingSchema,
          status: 201,
          idempotent: true,
          errors: {
            202: 'Held: the customer is a potential sanctions match (body: the held record)',
            400: 'Invalid body, routing checksum (`micr_bad_routing_checksum`) or an image that is not a PNG (`invalid_check_image`)',
            403: 'The demo store (`money_movement_disabled`)',
            409: 'The MICR line was already presented (`duplicate_check`)',
            422: 'Above a limit (`limit_per_transaction`, `limit_per_customer_day`), ID refused (`id_not_accepted`), sanctions match (`screening_blocked`)',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(checkCashCreateSchema, request.body ?? undefined);
      return workflows.cashCheck(ctx, actorOf(principalOf(request)), body);
    }),
  );

  app.get(
    '/api/pos/check-cashings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List check cashings',
          description: 'Newest first; filter by status or customer name (contains).',
          tags: ['financial-services'],
          access: 'staff',
          query: checkCashingListQuery,
          response: pageSchema(checkCashingSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(checkCashingListQuery, request.query, '(query)');
      return listCheckCashings(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/check-cashings/:id',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get a check cashing',
          tags: ['financial-services'],
          access: 'staff',
          params: idParams,
          response: checkCashingSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const { cashAccount: _cash, ...record } = await getCheckCashing(ctx.db, principalOf(request).merchantId, id);
      return record;
    },
  );

  app.get(
    '/api/pos/check-cashings/:id/image',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get the image of a cashed check',
          description:
            "The check image the scanner delivered (PNG bytes, `image/png`), stored with the record. 404 when the check cashing is not this store's or has no stored image.",
          tags: ['financial-services'],
          access: 'staff',
          params: idParams,
          produces: ['image/png'],
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const image = await getCheckImage(ctx.db, principalOf(request).merchantId, id);
      return reply
        .header('content-type', image.contentType)
        .header('cache-control', 'private, no-store')
        .header('etag', `"${image.sha256}"`)
        .send(image.bytes);
    },
  );

  app.post(
    '/api/pos/check-cashings/:id/complete',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Pay out a held check',
          description:
            "Once a manager cleared the screening: cash out and the journal transaction. The body may name the register's open shift paying out (`shiftId`; default the shift that held it). 409 `screening_hold` while it is not cleared.",
          tags: ['financial-services'],
          access: 'staff',
          params: idParams,
          body: completeCheckBody,
          response: checkCashingSchema,
          status: 200,
          errors: {
            403: 'The demo store (`money_movement_disabled`)',
            409: 'Screening not cleared (`screening_hold`) or not held (`illegal_state_transition`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const { shiftId } = parseOrThrow(completeCheckBody, request.body ?? {});
      return workflows.completeHeldCheck(ctx, actorOf(principalOf(request)), id, shiftId);
    },
  );

  app.post(
    '/api/pos/check-cashings/:id/refuse',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Refuse a held check',
          description: 'A manager refuses the held check (and its held screening) with a reason; nothing is paid.',
          tags: ['financial-services'],
          access: 'staff',
          params: idParams,
          body: refuseBody,
          response: checkCashingSchema,
          status: 200,
          errors: { 409: 'Not held (`illegal_state_transition`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const { reason } = parseOrThrow(refuseBody, request.body ?? undefined);
      return workflows.refuseHeldCheck(ctx, actorOf(principalOf(request)), id, reason);
    },
  );
}
