import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { serviceChargeSettingsSchema } from '../../../../core/index.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import { listFlaggedOverpayments, readServiceCharges, saveServiceCharges } from './service.ts';

const query = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) });
const flaggedOverpayment = z.strictObject({
  checkId: z.string(),
  checkName: z.string(),
  tableId: z.string().nullable(),
  orderId: z.string().describe('The sale that took the payment: refund it (POST /api/pos/orders/{id}/refunds)'),
  amountCents: z.int().describe('What the payment paid toward the check'),
  refundCents: z.int().describe('What it took above the check total: owed back'),
  registerId: z.string(),
  staffId: z.string().nullable(),
  paidAt: z.string(),
  flaggedAt: z.string(),
});

/**
 * The restaurant's checks in the back office: `GET /api/pos/check-overpayments` (managers) lists the payments the
 * server flagged for refund when two registers took the same check's payment apart; `GET`/`PUT
 * /api/pos/service-charges` the store's service charge and automatic gratuity (registers read them to total a check).
 */
export function registerCheckRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/pos/check-overpayments',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Payments of a check flagged for refund',
          description:
            "Payments that went past their check's total — the same check paid on two registers while apart — newest flag first. Each is flagged once, when the registers' pushes meet on the server; the check's registers pull the flag with the payment.",
          tags: ['restaurant'],
          access: 'staff',
          query,
          response: z.strictObject({ items: z.array(flaggedOverpayment) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(query, request.query, '(query)');
      return { items: await listFlaggedOverpayments(ctx.db, principalOf(request).merchantId, q.limit) };
    },
  );

  app.get(
    '/api/pos/service-charges',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: "The store's service charge and automatic gratuity",
          description:
            "Rates in basis points of a check's pre-tax net; the gratuity for parties of `gratuityPartySize` or more; each taxable or not (at the exclusive rates of the check's dishes). Both 0 until set.",
          tags: ['restaurant'],
          access: 'register',
          response: serviceChargeSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => readServiceCharges(ctx.db, principalOf(request).merchantId),
  );

  app.put(
    '/api/pos/service-charges',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Set the service charge and automatic gratuity',
          description: 'The whole setting; audited `service_charges.updated`.',
          tags: ['restaurant'],
          access: 'staff',
          body: serviceChargeSettingsSchema,
          response: serviceChargeSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(serviceChargeSettingsSchema, request.body ?? undefined);
      return mutation(ctx, actorOf(principalOf(request)), (m) => saveServiceCharges(m, body));
    },
  );
}
