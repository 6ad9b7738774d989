import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  freeText,
  MAX_AMOUNT_CENTS,
  MAX_MEMO_LENGTH,
  payRequestCancelSchema,
  payRequestCreateSchema,
  payRequestListQuerySchema,
  payRequestPageSchema,
  payRequestRecordSchema,
  payRequestSchema,
} from '../../../../core/index.ts';
import { guard, principalOf, type Access } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import { cancelPayRequest, getPayRequest, listPayRequests, previewPayRequestText } from './service.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { PayRequest, PayRequestCreate } from '../../../../core/index.ts';

/** Pay-request operations that span modules (workflows/pay-link-payment.ts), handed in by app.ts. */
export interface PayRequestWorkflows {
  createPayRequest(ctx: AppContext, principal: Principal, input: PayRequestCreate): Promise<PayRequest>;
}

const PAY_CREATE: Access = { scope: 'pay:create' };
/** `POST /api/pos/pay-request-previews`: the amount and memo of a request being written. */
const previewBodySchema = z.strictObject({
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS).describe('The amount, minor units.'),
  memo: freeText(MAX_MEMO_LENGTH).optional(),
});
const previewSchema = z.strictObject({
  body: z.string().describe('The text as it would be sent (its link stands for the one the request will get: same length).'),
  encoding: z.enum(['GSM-7', 'UCS-2']),
  segments: z.int().min(1).describe('Parts the carrier sends (and bills).'),
  characters: z.int().min(0),
});
const payRequestParams = z.strictObject({ id: z.string().regex(/^pr_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with pr_') });

/**
 * Text-to-Pay (docs/api.md "Invoices and Text-to-Pay"): create (core `payRequestCreateSchema`), list, read and cancel — scope
 * `pay:create` (staff may too). Paying happens on the hosted pay page (routes/pay-page.ts). Logic in
 * services/pay-requests.ts.
 */
export function registerPayRequestRoutes(app: FastifyInstance, ctx: AppContext, flows: PayRequestWorkflows): void {
  app.post(
    '/api/pos/pay-requests',
    {
      onRequest: guard(ctx, PAY_CREATE),
      config: {
        openapi: {
          summary: 'Create a pay request (Text-to-Pay link)',
          errors: {
            409: '`orderId` names an order that is not open (`illegal_state_transition`, `currentState`) or changed meanwhile (`order_changed`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'A free amount (`amountCents`) or a full invoice (`lineItems`, priced on the server), never both. Texts the link to `phone`. Expires after 7 days.',
          tags: ['pay-requests'],
          access: PAY_CREATE,
          body: payRequestCreateSchema,
          response: payRequestSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(payRequestCreateSchema, request.body ?? undefined);
      const record = await flows.createPayRequest(ctx, principalOf(request), body);
      return { status: 201, body: record };
    }),
  );

  app.get(
    '/api/pos/pay-requests',
    {
      onRequest: guard(ctx, PAY_CREATE),
      config: {
        openapi: {
          summary: 'List pay requests',
          description: 'Newest first. `status` is the state now: a pending request past `expiresAt` is `expired`.',
          tags: ['pay-requests'],
          access: PAY_CREATE,
          query: payRequestListQuerySchema,
          response: payRequestPageSchema,
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(payRequestListQuerySchema, request.query, '(query)');
      return listPayRequests(ctx.db, principalOf(request).merchantId, ctx.clock(), q);
    },
  );

  app.get(
    '/api/pos/pay-requests/:id',
    {
      onRequest: guard(ctx, PAY_CREATE),
      config: {
        openapi: {
          summary: 'Get a pay request',
          tags: ['pay-requests'],
          access: PAY_CREATE,
          params: payRequestParams,
          response: payRequestRecordSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(payRequestParams, request.params, '(path)');
      const record = await getPayRequest(ctx.db, id, principalOf(request).merchantId, ctx.clock());
      if (!record) throw new ProblemError(404, 'not_found', `Pay request ${id} does not exist.`);
      const { merchantId: _, ...body } = record;
      return body;
    },
  );

  app.post(
    '/api/pos/pay-requests/:id/cancel',
    {
      onRequest: guard(ctx, PAY_CREATE),
      config: {
        openapi: {
          summary: 'Cancel a pending pay request',
          errors: {
            409: 'The request is not pending (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description: '`pending → canceled`; the link then shows "canceled". Any other state → 409 naming `currentState`.',
          tags: ['pay-requests'],
          access: PAY_CREATE,
          params: payRequestParams,
          body: payRequestCancelSchema,
          response: payRequestRecordSchema,
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(payRequestParams, request.params, '(path)');
      const body = parseOrThrow(payRequestCancelSchema, request.body === undefined ? {} : request.body);
      return { status: 200, body: await cancelPayRequest(ctx, principalOf(request), id, body) };
    }),
  );

  app.post(
    '/api/pos/pay-request-previews',
    {
      onRequest: guard(ctx, PAY_CREATE),
      config: {
        openapi: {
          summary: 'Preview the text of a pay request',
          description:
            "The text a pay request of this amount and memo would send, in the store's template and language, and how it goes: GSM-7 or UCS-2, in how many parts — shown before sending. Changes nothing.",
          tags: ['pay-requests'],
          access: PAY_CREATE,
          body: previewBodySchema,
          response: previewSchema,
          status: 200,
        },
      },
    },
    async (request) => {
      const body = parseOrThrow(previewBodySchema, request.body ?? undefined);
      return previewPayRequestText(ctx, principalOf(request).merchantId, body);
    },
  );
}
