import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  MAX_AMOUNT_CENTS,
  pageSchema,
  queryBoolean,
  RAIL_NAMES,
  railConfigSchema,
  ROUTING_METHODS,
  routePayment,
  routingDecisionSchema,
} from '../../../../core/index.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { createPayout, listPayouts, payoutCreateSchema, payoutListQuery, payoutSchema, sandboxPayouts, type PayoutAdapter } from './payouts.ts';
import { listSettlements, settlementListQuery, settlementSchema } from './settlements.ts';
import { merchantRails, railListSchema, railUpdateSchema, updateRail } from './rails.ts';

const noQuery = z.strictObject({});
const railParams = z.strictObject({ rail: z.enum(RAIL_NAMES) });
const routeQuery = z.strictObject({
  method: z.enum(ROUTING_METHODS),
  amountCents: z.coerce.number().int().min(0).max(MAX_AMOUNT_CENTS),
  funding: z.enum(['credit', 'debit', 'prepaid', 'unknown']).optional(),
  present: queryBoolean.optional().describe('Card present (terminal) — default false'),
  online: queryBoolean.optional().describe('The deciding device is online — default true'),
});

/**
 * Payment rails, settlements and payouts (staff only): `GET /api/pos/rails`, `PATCH /api/pos/rails/{rail}`,
 * `GET /api/pos/rails/route` (what routing would choose), `GET /api/pos/settlements`, `POST` and `GET /api/pos/payouts`.
 */
export function registerPaymentRoutes(app: FastifyInstance, ctx: AppContext, payouts: PayoutAdapter = sandboxPayouts): void {
  app.get(
    '/api/pos/rails',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List the payment rails',
          description:
            "The eight payment rails in a fixed order, with this store's fee schedules (basis points + fixed minor units, optional cap; card rails a debit fee), limits, availability and settlement time. Defaults and their reasons: docs/decisions/0050-payment-rails-routing-and-payouts.md.",
          tags: ['payments'],
          access: 'staff',
          query: noQuery,
          response: railListSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return { data: await merchantRails(ctx.db, principalOf(request).merchantId) };
    },
  );

  app.get(
    '/api/pos/rails/route',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Route a payment (dry run)',
          description:
            "What the routing engine chooses for a payment on this store's rails: the cheapest available rail (ties: faster settlement), every candidate with its fee and reason. Changes nothing.",
          tags: ['payments'],
          access: 'staff',
          query: routeQuery,
          response: routingDecisionSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(routeQuery, request.query, '(query)');
      const rails = await merchantRails(ctx.db, principalOf(request).merchantId);
      return routePayment({
        method: q.method,
        amountCents: q.amountCents,
        funding: q.funding ?? 'unknown',
        present: q.present ?? false,
        online: q.online ?? true,
        rails,
      });
    },
  );

  app.patch(
    '/api/pos/rails/:rail',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Change a payment rail',
          description:
            'Fee schedule, debit fee (card rails), limits, enabled, health (`status`), online-only, settlement hours. Audited (`rail.updated`).',
          tags: ['payments'],
          access: 'staff',
          params: railParams,
          body: railUpdateSchema,
          response: railConfigSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { rail } = parseOrThrow(railParams, request.params, '(path)');
      const body = parseOrThrow(railUpdateSchema, request.body ?? undefined);
      const principal = principalOf(request);
      return mutation(ctx, actorOf(principal), (m) => updateRail(m, rail, body));
    },
  );

  app.post(
    '/api/pos/payouts',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Pay out the settled balance to the bank',
          description:
            "Moves the settled card clearing balance (or `amountCents` of it) to the store's bank on the sandbox payout adapter: Dr bank, Cr card clearing per rail, audited `payout.paid`. Refused in the demo store, where money movement is disabled.",
          tags: ['payments'],
          access: 'staff',
          body: payoutCreateSchema,
          response: payoutSchema,
          status: 201,
          idempotent: true,
          errors: {
            403: 'The demo store: money movement is disabled (`money_movement_disabled`)',
            409: 'No settled balance (`nothing_to_pay_out`) or less than `amountCents` (`insufficient_balance`)',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(payoutCreateSchema, request.body ?? {});
      const principal = principalOf(request);
      return { status: 201, body: await mutation(ctx, actorOf(principal), (m) => createPayout(m, body, payouts)) };
    }),
  );

  app.get(
    '/api/pos/settlements',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List settlements of delayed rails',
          description:
            "Card and bank payments (pay page, staff API and register card tenders, invoice card payments, forwarded offline cards): `pending` until the rail settles (cards 48 h, ACH 72 h), then `settled`, or — a bank payment — `returned` by the bank with the reversal of the payment's journal transaction posted and what it paid reopened (an order → `balance_due`, an invoice open again). Newest first; filter by `sourceId` (a pay request, `pmt_…`, an invoice payment, an offline tender `tnd_…`) or `status`. Run by the housekeeping tick.",
          tags: ['payments'],
          access: 'staff',
          query: settlementListQuery,
          response: pageSchema(settlementSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(settlementListQuery, request.query, '(query)');
      return listSettlements(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/payouts',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List payouts',
          description: 'Newest first.',
          tags: ['payments'],
          access: 'staff',
          query: payoutListQuery,
          response: pageSchema(payoutSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(payoutListQuery, request.query, '(query)');
      return listPayouts(ctx.db, principalOf(request).merchantId, q);
    },
  );
}
