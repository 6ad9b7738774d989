import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageSchema } from '../../../../core/index.ts';
import { actorOf, mutation, type MutationActor } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { sandboxTransferPartner, type TransferPartner } from './partner.ts';
import {
  cancelTransfer,
  getTransfer,
  listTransfers,
  quoteTransfer,
  refreshTransfer,
  transferCreateSchema,
  transferListQuery,
  transferQuoteBody,
  transferQuoteResponse,
  transferSchema,
  transferShiftBody,
  type Transfer,
  type TransferCreate,
} from './service.ts';

/** What the transfer routes do that spans modules (workflows/financial-services.ts), handed in by app.ts. */
export interface TransferWorkflows {
  sendTransfer(ctx: AppContext, who: MutationActor, input: TransferCreate, partner: TransferPartner): Promise<{ status: 201 | 202; body: Transfer }>;
  completeHeldTransfer(ctx: AppContext, who: MutationActor, id: string, partner: TransferPartner, shiftId?: string): Promise<Transfer>;
  refuseHeldTransfer(ctx: AppContext, who: MutationActor, id: string, reason: string, partner: TransferPartner): Promise<Transfer>;
}

const idParams = z.strictObject({ id: z.string().regex(/^mtr_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a transfer id (mtr_…)') });
const refuseBody = z.strictObject({ reason: z.string().trim().min(3).max(500) });

/**
 * Money transfers (docs/api.md "Money transfers"), staff only: quote with the pre-payment disclosure, send
 * (201 sent / 202 held), complete or refuse a held one, cancel within 30 minutes, refresh the status from the partner,
 * one transfer with its history, the list with filters (manager).
 */
export function registerTransferRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  workflows: TransferWorkflows,
  partner: TransferPartner = sandboxTransferPartner,
): void {
  const staff = guard(ctx, 'staff');

  app.post(
    '/api/pos/transfers/quote',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Quote a money transfer',
          description:
            "The partner's fee, exchange rate, amount received and date available, with the Remittance Transfer Rule's pre-payment disclosure. Changes nothing.",
          tags: ['financial-services'],
          access: 'staff',
          body: transferQuoteBody,
          response: transferQuoteResponse,
          status: 200,
          errors: { 422: 'No corridor to that country (`corridor_unsupported`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(transferQuoteBody, request.body ?? undefined);
      return quoteTransfer(ctx.db, principalOf(request).merchantId, body, partner, ctx.clock());
    },
  );

  app.post(
    '/api/pos/transfers',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Send money',
          description:
            "Sender's ID (expiry, age) and screening, receiver's screening, limits per transfer and per sender per day, the partner's quote, then the cash: Dr cash drawer (amount + fee), Cr fee income, Cr transfers payable. 201 `sent` with the receipt (30-minute cancellation right); 202 `held` when a party is a potential sanctions match. Every step and refusal is audited.",
          tags: ['financial-services'],
          access: 'staff',
          body: transferCreateSchema,
          response: transferSchema,
          status: 201,
          idempotent: true,
          errors: {
            202: 'Held: a party is a potential sanctions match (body: the held transfer)',
            403: 'The demo store (`money_movement_disabled`)',
            422: 'Limits, `corridor_unsupported`, `id_not_accepted`, `screening_blocked`, `partner_rejected`',
            504: 'The partner did not answer (`partner_timeout`); nothing taken',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(transferCreateSchema, request.body ?? undefined);
      return workflows.sendTransfer(ctx, actorOf(principalOf(request)), body, partner);
    }),
  );

  app.get(
    '/api/pos/transfers',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List money transfers',
          description: 'Newest first; filter by status or a sender/receiver name (contains).',
          tags: ['financial-services'],
          access: 'staff',
          query: transferListQuery,
          response: pageSchema(transferSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(transferListQuery, request.query, '(query)');
      return listTransfers(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/transfers/:id',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get a money transfer',
          description: 'With its status history and receipt.',
          tags: ['financial-services'],
          access: 'staff',
          params: idParams,
          response: transferSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return getTransfer(ctx.db, principalOf(request).merchantId, id);
    },
  );

  const action = (
    path: string,
    summary: string,
    description: string,
    errors: Record<number, string>,
    run: (who: MutationActor, id: string) => Promise<Transfer>,
  ) =>
    app.post(
      path,
      {
        onRequest: staff,
        config: {
          openapi: {
            summary,
            description,
            tags: ['financial-services'],
            access: 'staff',
            params: idParams,
            body: emptyBodySchema,
            response: transferSchema,
            status: 200,
            errors,
          } satisfies RouteDoc,
        },
      },
      async (request) => {
        parseEmptyBody(request.body);
        const { id } = parseOrThrow(idParams, request.params, '(path)');
        return run(actorOf(principalOf(request)), id);
      },
    );
  /** A cash step at the counter: the body may name the register's open shift whose drawer the cash goes through. */
  const cashAction = (
    path: string,
    summary: string,
    description: string,
    errors: Record<number, string>,
    run: (who: MutationActor, id: string, shiftId: string | undefined) => Promise<Transfer>,
  ) =>
    app.post(
      path,
      {
        onRequest: staff,
        config: {
          openapi: {
            summary,
            description: `${description} The body may name the register's open shift (\`shiftId\`): its X/Z report counts the cash.`,
            tags: ['financial-services'],
            access: 'staff',
            params: idParams,
            body: transferShiftBody,
            response: transferSchema,
            status: 200,
            errors,
          } satisfies RouteDoc,
        },
      },
      async (request) => {
        const { id } = parseOrThrow(idParams, request.params, '(path)');
        const { shiftId } = parseOrThrow(transferShiftBody, request.body ?? {});
        return run(actorOf(principalOf(request)), id, shiftId);
      },
    );

  cashAction(
    '/api/pos/transfers/:id/complete',
    'Send a held transfer',
    'Once a manager cleared every held screening: the partner, the cash, the receipt.',
    { 403: 'The demo store (`money_movement_disabled`)', 409: 'Screening not cleared (`screening_hold`) or not held (`illegal_state_transition`)' },
    (who, id, shiftId) => workflows.completeHeldTransfer(ctx, who, id, partner, shiftId),
  );
  cashAction(
    '/api/pos/transfers/:id/cancel',
    'Cancel a transfer (30 minutes)',
    'The sender cancels within 30 minutes of payment (12 CFR 1005.34): full refund, amount and fees, the reversal posted.',
    { 409: 'After 30 minutes (`cancellation_window_closed`) or not cancelable (`illegal_state_transition`)' },
    (who, id, shiftId) => mutation(ctx, who, (m) => cancelTransfer(m, id, partner, shiftId)),
  );
  action(
    '/api/pos/transfers/:id/refresh',
    "Update a transfer's status from the partner",
    'sent → available → paid, each step recorded; a refund by the partner posts the reversal.',
    {},
    (who, id) => mutation(ctx, who, (m) => refreshTransfer(m, id, partner)),
  );

  app.post(
    '/api/pos/transfers/:id/refuse',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Refuse a held transfer',
          description: 'A manager refuses the held transfer (and its held screenings) with a reason; nothing is taken.',
          tags: ['financial-services'],
          access: 'staff',
          params: idParams,
          body: refuseBody,
          response: transferSchema,
          status: 200,
          errors: { 409: 'Not held (`illegal_state_transition`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const { reason } = parseOrThrow(refuseBody, request.body ?? undefined);
      return workflows.refuseHeldTransfer(ctx, actorOf(principalOf(request)), id, reason, partner);
    },
  );
}
