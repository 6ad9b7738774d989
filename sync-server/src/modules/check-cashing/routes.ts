import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageSchema } from '../../../../core/index.ts';
import { actorOf, type MutationActor } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { checkCashCreateSchema, checkCashingListQuery, checkCashingSchema, getCheckCashing, listCheckCashings, type CheckCashCreate, type CheckCashing } from './service.ts';

/** What the check-cashing routes do that spans modules (workflows/financial-services.ts), handed in by app.ts. */
export interface CheckCashingWorkflows {
  /** ID, screening, fee, limits, duplicate guard, cash out: 201 paid or 202 held. */
  cashCheck(ctx: AppContext, who: MutationActor, input: CheckCashCreate): Promise<{ status: 201 | 202; body: CheckCashing }>;
  /** Pays a held check once its screening is cleared. */
  completeHeldCheck(ctx: AppContext, who: MutationActor, id: string): Promise<CheckCashing>;
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
 * Check cashing (issue 14; docs/api.md "Check cashing"), staff only: cash a check (cashier), complete it once a held
 * screening is cleared (cashier), refuse a held one (manager), one record (cashier), the list with filters (manager);
 * and the services overview the register reads before the cashier starts.
 */
export function registerCheckCashingRoutes(app: FastifyInstance, ctx: AppContext, workflows: CheckCashingWorkflows): void {
  const staff = guard(ctx, 'staff');

  app.get('/api/pos/financial-services', {
    onRequest: staff,
    config: { openapi: { summary: 'Financial services overview', description: 'Whether money may move in this store (the demo store: `disabled`, and the message the register shows before the cashier starts), the fee schedules and limits, the transfer corridors.', tags: ['financial-services'], access: 'staff', query: noQuery, response: workflows.overviewSchema } satisfies RouteDoc },
  }, async (request) => {
    parseOrThrow(noQuery, request.query, '(query)');
    return workflows.overview(ctx.db, principalOf(request).merchantId);
  });

  app.post('/api/pos/check-cashings', {
    onRequest: staff,
    config: {
      openapi: {
        summary: 'Cash a check',
        description:
          'The MICR fields as the check scanner read them (ABA checksum verified), the amount, the customer\'s licence barcode. Steps: money movement, duplicate MICR line, per-check limit, ID (expiry, age), per-customer daily limit, sanctions screening, fee (percent + fixed, minimum), cash out: Dr checks to deposit, Cr fee income, Cr cash drawer in one journal transaction. ' +
          '201 `paid` with the receipt; 202 `held` when the customer is a potential sanctions match (a manager clears the screening, then `complete`). Every step and refusal is audited.',
        tags: ['financial-services'],
        access: 'staff',
        body: checkCashCreateSchema,
        response: checkCashingSchema,
        status: 201,
        idempotent: true,
        errors: {
          202: 'Held: the customer is a potential sanctions match (body: the held record)',
          403: 'The demo store (`money_movement_disabled`)',
          409: 'The MICR line was already presented (`duplicate_check`)',
          422: 'Above a limit (`limit_per_transaction`, `limit_per_customer_day`), ID refused (`id_not_accepted`), sanctions match (`screening_blocked`)',
        },
      } satisfies RouteDoc,
    },
  }, idempotent(ctx.db, ctx.clock, async (request) => {
    const body = parseOrThrow(checkCashCreateSchema, request.body ?? undefined);
    return workflows.cashCheck(ctx, actorOf(principalOf(request)), body);
  }));

  app.get('/api/pos/check-cashings', {
    onRequest: staff,
    config: { openapi: { summary: 'List check cashings', description: 'Newest first; filter by status or customer name (contains).', tags: ['financial-services'], access: 'staff', query: checkCashingListQuery, response: pageSchema(checkCashingSchema) } satisfies RouteDoc },
  }, async (request) => {
    const q = parseOrThrow(checkCashingListQuery, request.query, '(query)');
    return listCheckCashings(ctx.db, principalOf(request).merchantId, q);
  });

  app.get('/api/pos/check-cashings/:id', {
    onRequest: staff,
    config: { openapi: { summary: 'Get a check cashing', tags: ['financial-services'], access: 'staff', params: idParams, response: checkCashingSchema } satisfies RouteDoc },
  }, async (request) => {
    const { id } = parseOrThrow(idParams, request.params, '(path)');
    const { cashAccount: _cash, ...record } = await getCheckCashing(ctx.db, principalOf(request).merchantId, id);
    return record;
  });

  app.post('/api/pos/check-cashings/:id/complete', {
    onRequest: staff,
    config: { openapi: { summary: 'Pay out a held check', description: 'Once a manager cleared the screening: cash out and the journal transaction. 409 `screening_hold` while it is not cleared.', tags: ['financial-services'], access: 'staff', params: idParams, body: emptyBodySchema, response: checkCashingSchema, status: 200, errors: { 403: 'The demo store (`money_movement_disabled`)', 409: 'Screening not cleared (`screening_hold`) or not held (`illegal_state_transition`)' } } satisfies RouteDoc },
  }, async (request) => {
    parseEmptyBody(request.body);
    const { id } = parseOrThrow(idParams, request.params, '(path)');
    return workflows.completeHeldCheck(ctx, actorOf(principalOf(request)), id);
  });

  app.post('/api/pos/check-cashings/:id/refuse', {
    onRequest: staff,
    config: { openapi: { summary: 'Refuse a held check', description: 'A manager refuses the held check (and its held screening) with a reason; nothing is paid.', tags: ['financial-services'], access: 'staff', params: idParams, body: refuseBody, response: checkCashingSchema, status: 200, errors: { 409: 'Not held (`illegal_state_transition`)' } } satisfies RouteDoc },
  }, async (request) => {
    const { id } = parseOrThrow(idParams, request.params, '(path)');
    const { reason } = parseOrThrow(refuseBody, request.body ?? undefined);
    return workflows.refuseHeldCheck(ctx, actorOf(principalOf(request)), id, reason);
  });
}
