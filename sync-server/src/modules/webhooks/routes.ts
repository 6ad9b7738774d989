import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  WEBHOOK_DELIVERY_STATUSES,
  webhookDeliverySchema,
  webhookSubscriptionCreateSchema,
  webhookSubscriptionSchema,
  webhookSubscriptionUpdateSchema,
  pageQueryFields,
  pageSchema,
} from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow } from '../../platform/http/problem.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  redeliver,
  rotateSecret,
  updateSubscription,
} from './service.ts';
import { assertPublicReceiverUrl } from '../../platform/http/receiver-network.ts';

const ACCESS = { scope: 'webhooks' } as const;
const ulidId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`);
const subscriptionParams = z.strictObject({ id: ulidId('whs') });
const deliveryParams = z.strictObject({ id: ulidId('whs'), deliveryId: ulidId('whd') });
const pageQuery = z.strictObject(pageQueryFields);
const deliveriesQuery = pageQuery.extend({ status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(), eventId: ulidId('evt').optional() });
const noQuery = z.strictObject({});

/**
 * Webhook subscriptions and their delivery log (docs/api.md "Webhooks"). Apps with the `webhooks` scope manage their
 * own subscriptions; staff see and manage all of the merchant's. Another app's subscription is a 404.
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/api/pos/webhooks',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Subscribe to webhook events',
          description:
            'The response carries the signing secret, once. An app that was given a webhook secret at install (the demo app) signs with it; otherwise a new whsec_… is generated per subscription.',
          tags: ['webhooks'],
          access: ACCESS,
          body: webhookSubscriptionCreateSchema,
          response: webhookSubscriptionSchema.extend({ secret: z.string() }),
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(webhookSubscriptionCreateSchema, request.body ?? undefined);
      await assertPublicReceiverUrl(body.url, { allowPrivateNetworks: ctx.config.allowPrivateWebhookReceivers });
      const principal = principalOf(request);
      const created = await mutation(ctx, actorOf(principal), (m) => createSubscription(m, principal, body));
      return { status: 201, body: created };
    }),
  );

  app.get(
    '/api/pos/webhooks',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'List webhook subscriptions',
          description: 'Newest first. Apps see their own; staff see all.',
          tags: ['webhooks'],
          access: ACCESS,
          query: pageQuery,
          response: pageSchema(webhookSubscriptionSchema),
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(pageQuery, request.query, '(query)');
      const before = q.cursor ? (decodeCursor(q.cursor, ['date', 'string']) as [string, string]) : undefined;
      const rows = await listSubscriptions(ctx.db, principalOf(request), { ...(before ? { before } : {}), limit: q.limit + 1 });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.createdAt, last.id]);
      return { data: page, nextCursor };
    },
  );

  app.get(
    '/api/pos/webhooks/:id',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Get a webhook subscription',
          tags: ['webhooks'],
          access: ACCESS,
          params: subscriptionParams,
          query: noQuery,
          response: webhookSubscriptionSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(subscriptionParams, request.params, '(path)');
      parseOrThrow(noQuery, request.query, '(query)');
      return getSubscription(ctx.db, principalOf(request), id);
    },
  );

  app.patch(
    '/api/pos/webhooks/:id',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Change a webhook subscription',
          description: 'url, eventTypes, description, enabled. A disabled subscription gets no new deliveries; its pending ones are canceled.',
          tags: ['webhooks'],
          access: ACCESS,
          params: subscriptionParams,
          body: webhookSubscriptionUpdateSchema,
          response: webhookSubscriptionSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(subscriptionParams, request.params, '(path)');
      const body = parseOrThrow(webhookSubscriptionUpdateSchema, request.body ?? undefined);
      if (body.url !== undefined) await assertPublicReceiverUrl(body.url, { allowPrivateNetworks: ctx.config.allowPrivateWebhookReceivers });
      const principal = principalOf(request);
      return mutation(ctx, actorOf(principal), (m) => updateSubscription(m, principal, id, body));
    },
  );

  app.delete(
    '/api/pos/webhooks/:id',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Delete a webhook subscription',
          description: 'Pending deliveries are canceled.',
          tags: ['webhooks'],
          access: ACCESS,
          params: subscriptionParams,
          status: 204,
        },
      },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(subscriptionParams, request.params, '(path)');
      const principal = principalOf(request);
      await mutation(ctx, actorOf(principal), (m) => deleteSubscription(m, principal, id));
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/pos/webhooks/:id/deliveries',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Delivery log of a subscription',
          description: 'Newest first, each delivery with its attempts (status code or error, duration).',
          tags: ['webhooks'],
          access: ACCESS,
          params: subscriptionParams,
          query: deliveriesQuery,
          response: pageSchema(webhookDeliverySchema),
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(subscriptionParams, request.params, '(path)');
      const q = parseOrThrow(deliveriesQuery, request.query, '(query)');
      const before = q.cursor ? (decodeCursor(q.cursor, ['date', 'string']) as [string, string]) : undefined;
      const rows = await listDeliveries(ctx.db, principalOf(request), id, {
        ...(q.status ? { status: q.status } : {}),
        ...(q.eventId ? { eventId: q.eventId } : {}),
        ...(before ? { before } : {}),
        limit: q.limit + 1,
      });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.createdAt, last.id]);
      return { data: page, nextCursor };
    },
  );

  app.post(
    '/api/pos/webhooks/:id/rotate-secret',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Rotate the signing secret of a subscription',
          description:
            'Answers the subscription with its new secret, once. Every delivery attempted from now on (retries of pending ones too) is signed with it; the old secret stops verifying at once.',
          tags: ['webhooks'],
          access: ACCESS,
          params: subscriptionParams,
          body: emptyBodySchema,
          response: webhookSubscriptionSchema.extend({ secret: z.string() }),
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(subscriptionParams, request.params, '(path)');
      parseEmptyBody(request.body);
      const principal = principalOf(request);
      const rotated = await mutation(ctx, actorOf(principal), (m) => rotateSecret(m, principal, id));
      return { status: 200, body: rotated };
    }),
  );

  app.post(
    '/api/pos/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      onRequest: guard(ctx, ACCESS),
      config: {
        openapi: {
          summary: 'Redeliver an event',
          errors: {
            409: 'The original delivery is still pending (`delivery_pending`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'Queues a new delivery of the same event, attempted at once with the usual retries. 409 delivery_pending while the original is still pending.',
          tags: ['webhooks'],
          access: ACCESS,
          params: deliveryParams,
          body: emptyBodySchema,
          response: webhookDeliverySchema,
          status: 202,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id, deliveryId } = parseOrThrow(deliveryParams, request.params, '(path)');
      parseEmptyBody(request.body);
      const principal = principalOf(request);
      const delivery = await mutation(ctx, actorOf(principal), (m) => redeliver(m, principal, id, deliveryId));
      return { status: 202, body: delivery };
    }),
  );
}
