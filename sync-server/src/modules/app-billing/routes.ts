/**
 * App billing's HTTP routes:
 * - `GET /api/pos/app-subscriptions` — the store's paid app subscriptions, their charges, status, next charge and
 *   any price change of the app (staff: managers and owners);
 * - `POST /api/pos/app-subscriptions/{id}/accept-price` — the store accepts an app's price rise (owner);
 * - `PUT /api/pos/app-billing/payment-method` — the store's billing method (owner); past-due and suspended
 *   subscriptions are retried at once;
 * - `GET /api/developer/statement` and `POST /api/developer/payouts` — a developer's earnings (85 %, held before they
 *   can be paid out) and payouts (developer token; the guard is the apps module's, handed in by app.ts).
 */
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import type { AppBillingOptions } from './adapters.ts';
import { developerPayoutCreateSchema, developerPayoutSchema, developerStatement, developerStatementSchema, payOutDeveloper } from './payouts.ts';
import {
  acceptPriceChange,
  acceptPriceSchema,
  appSubscriptionSchema,
  billingMethodSchema,
  listAppSubscriptions,
  setBillingMethod,
} from './subscriptions.ts';

const noQuery = z.strictObject({});
const idParams = z.strictObject({ id: z.string().min(1).max(100).describe('Subscription id (`asub_…`).') });
const subscriptionList = z.object({
  data: z.array(appSubscriptionSchema),
  billingReference: z.string().describe("The store's billing method at the billing processor."),
});

/** What app.ts hands in: the developer token guard of the apps module (it sets `request.programCaller`). */
export interface AppBillingRouteDeps {
  developerGuard: onRequestAsyncHookHandler;
}

const developerIdOf = (request: FastifyRequest): string => {
  const caller = request.programCaller;
  if (caller?.kind !== 'developer') throw new ProblemError(403, 'developer_only', 'This endpoint is for developer accounts.');
  return caller.id;
};

/** Registers app billing's routes. */
export function registerAppBillingRoutes(app: FastifyInstance, ctx: AppContext, deps: AppBillingRouteDeps, options: AppBillingOptions = {}): void {
  app.get(
    '/api/pos/app-subscriptions',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: "List the store's app subscriptions",
          description:
            "Paid apps installed in this store: status (`active`, `past_due`, `suspended`, `canceled`), the price the store agreed to, the current billing period (calendar months, UTC), the next charge and its amount, a notice when past due or suspended, `priceChange` when the app's listed price differs (a rise waits for the store's acceptance; a lower price applies by itself at the next renewal; free ends the subscription then), the charges (newest 24) and refunds of unused days. Free apps have no subscription.",
          tags: ['apps'],
          access: 'staff',
          query: noQuery,
          response: subscriptionList,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return listAppSubscriptions(ctx.db, principalOf(request).merchantId);
    },
  );

  app.post(
    '/api/pos/app-subscriptions/:id/accept-price',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: "Accept an app's price rise",
          description:
            "Owner only. `{ priceCents, currency }` must be the app's listed price now (`priceChange.toCents`, `priceChange.toCurrency`), so a store never accepts a price it was not shown. From the next renewal (`priceChange.appliesFrom`) the subscription is billed the new price; the period already billed is not charged again. Until a store accepts, it keeps paying the price it agreed to at every renewal. Accepting the price already paid answers the subscription unchanged. Audited (`app_subscription.price_accepted`).",
          tags: ['apps'],
          access: 'staff',
          params: idParams,
          body: acceptPriceSchema,
          response: appSubscriptionSchema,
          status: 200,
          idempotent: true,
          errors: {
            409: 'Canceled (`illegal_state_transition`), no rise to accept (`no_price_change`), or the listed price is not the one sent (`price_changed`)',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const body = parseOrThrow(acceptPriceSchema, request.body ?? undefined);
      return { status: 200, body: await mutation(ctx, actorOf(principalOf(request)), (m) => acceptPriceChange(m, id, body)) };
    }),
  );

  app.put(
    '/api/pos/app-billing/payment-method',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: "Set the store's billing method for app subscriptions",
          description:
            'A billing reference from the billing processor, never a card number (sandbox: `bref_sbx_<brand>_<last4>`, last four 0002, 9995, 0069 decline). Past-due subscriptions are retried at once and suspended ones reactivated with a charge prorated to the end of the month. Audited (`app_billing_method.updated`). Owner only.',
          tags: ['apps'],
          access: 'staff',
          body: billingMethodSchema,
          response: z.object({ billingReference: z.string(), subscriptions: z.array(appSubscriptionSchema) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { billingReference } = parseOrThrow(billingMethodSchema, request.body ?? undefined);
      return mutation(ctx, actorOf(principalOf(request)), (m) => setBillingMethod(m, billingReference, options));
    },
  );

  app.get(
    '/api/developer/statement',
    {
      onRequest: deps.developerGuard,
      config: {
        openapi: {
          summary: "The developer's statement: charges, 85 % shares, refunds, payouts and balance",
          description:
            "Per currency: paid charges of the developer's apps, their 85 % share (floored per charge; the platform keeps the rest), refunds of unused days and where each was taken from, payouts, and the balance on the platform ledger: on hold (`pendingCents`: each share is held `holdDays` days and at least until the period it paid for ends), available to pay out, owed (refunds beyond the balance, recovered from the next releases) and what the demo store earned (never paid out).",
          tags: ['apps'],
          access: 'developer',
          query: noQuery,
          response: developerStatementSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return developerStatement(ctx.db, developerIdOf(request), ctx.clock(), {
        ...(options.payoutMinimumCents !== undefined ? { minimumCents: options.payoutMinimumCents } : {}),
      });
    },
  );

  app.post(
    '/api/developer/payouts',
    {
      onRequest: deps.developerGuard,
      config: {
        openapi: {
          summary: "Pay out the developer's available earnings",
          description:
            "Pays the available balance in `currency` — earnings whose hold has ended, less what the developer owes — to the developer's connected account through the payment-connect adapter (sandbox), posting Dr `developer_payable:<developerId>`, Cr `app_billing_clearing` on the platform ledger. Earnings on hold are never paid (409 `earnings_on_hold` when nothing else is). Below the minimum it is refused (the weekly schedule pays it once it reaches it). Earnings from the demo store never pay out.",
          tags: ['apps'],
          access: 'developer',
          body: developerPayoutCreateSchema,
          response: developerPayoutSchema,
          status: 201,
          idempotent: false,
          errors: {
            403: 'Only demo-store earnings: money movement is disabled there (`money_movement_disabled`)',
            409: 'Nothing to pay out (`nothing_to_pay_out`), only earnings on hold (`earnings_on_hold`) or below the minimum (`below_payout_minimum`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const body = parseOrThrow(developerPayoutCreateSchema, request.body ?? {});
      const now = ctx.clock();
      const payout = await payOutDeveloper(
        ctx.db,
        developerIdOf(request),
        { ...(body.currency ? { currency: body.currency } : {}), trigger: 'manual', now },
        {
          ...(options.paymentConnect ? { paymentConnect: options.paymentConnect } : {}),
          ...(options.payoutMinimumCents !== undefined ? { minimumCents: options.payoutMinimumCents } : {}),
        },
      );
      reply.code(201);
      return payout;
    },
  );
}
