import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  OFFLINE_CARD_STATES,
  offlineCardLimitsPatchSchema,
  offlineCardLimitsSchema,
  offlineCardPaymentSchema,
  pageQueryFields,
} from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { getOfflineCardLimits, listOfflineCardPayments, updateOfflineCardLimits } from './service.ts';

const noQuery = z.strictObject({});

/** `GET /api/pos/offline-cards/payments` query. */
const paymentsQuery = z.strictObject({ ...pageQueryFields, state: z.enum(OFFLINE_CARD_STATES).optional() });

const paymentPageSchema = z.strictObject({ data: z.array(offlineCardPaymentSchema), nextCursor: z.string().nullable() });

/**
 * Offline card payments (store and forward): the store's limits — read by registers (which enforce them
 * offline) and staff, changed by staff — and the list of offline payments with their forward outcome for the back
 * office (a declined forward is a balance due, shown with the receipt's customer).
 */
export function registerOfflineCardRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/pos/offline-cards/limits',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Get the offline card limits',
          description:
            'What a register may approve offline on its card terminal: per payment, outstanding (not yet forwarded) per register, and the forward window. Registers pull it while online and enforce it offline.',
          tags: ['offline-cards'],
          access: 'register',
          query: noQuery,
          response: offlineCardLimitsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return getOfflineCardLimits(ctx.db, principalOf(request).merchantId);
    },
  );

  app.patch(
    '/api/pos/offline-cards/limits',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Change the offline card limits',
          description:
            'Any of maxPaymentCents (0 turns offline card payments off), maxOutstandingCents and forwardWithinHours (1–168). Defaults 10000, 100000 and 24. Audited `offline_cards.limits_updated`.',
          tags: ['offline-cards'],
          access: 'staff',
          body: offlineCardLimitsPatchSchema,
          response: offlineCardLimitsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(offlineCardLimitsPatchSchema, request.body ?? undefined);
      return mutation(ctx, actorOf(principalOf(request)), (m) => updateOfflineCardLimits(m, body));
    },
  );

  app.get(
    '/api/pos/offline-cards/payments',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List offline card payments',
          description:
            "Card payments a terminal approved offline, newest first, with the forward outcome: `pending_forward`, `captured`, or `declined` (the customer owes `balanceDueCents`; `customer` is the receipt's customer to contact). Filter with `state`.",
          tags: ['offline-cards'],
          access: 'staff',
          query: paymentsQuery,
          response: paymentPageSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(paymentsQuery, request.query, '(query)');
      return listOfflineCardPayments(ctx.db, principalOf(request).merchantId, q);
    },
  );
}
