import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageSchema } from '../../../../core/index.ts';
import { actorOf, mutation, type MutationActor } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { sandboxBillPartner, type BillPartner } from './partner.ts';
import {
  billAccountBody,
  billCompleteBody,
  billerSchema,
  billPaymentCreateSchema,
  billPaymentListQuery,
  billPaymentSchema,
  getBillPayment,
  listBillers,
  listBillPayments,
  refreshBillPayment,
  validateBillAccount,
  type BillPayment,
  type BillPaymentCreate,
} from './service.ts';

/** What the bill-payment routes do that spans modules (workflows/financial-services.ts: ID, screening), handed in by app.ts. */
export interface BillPaymentWorkflows {
  payBill(ctx: AppContext, who: MutationActor, input: BillPaymentCreate, partner: BillPartner): Promise<{ status: 201 | 202; body: BillPayment }>;
  completeHeldBillPayment(
    ctx: AppContext,
    who: MutationActor,
    id: string,
    body: { accountNumber: string; shiftId?: string | undefined },
    partner: BillPartner,
  ): Promise<BillPayment>;
  refuseHeldBillPayment(ctx: AppContext, who: MutationActor, id: string, reason: string, partner: BillPartner): Promise<BillPayment>;
}

const refuseBody = z.strictObject({ reason: z.string().trim().min(3).max(500) });

const noQuery = z.strictObject({});
const idParams = z.strictObject({ id: z.string().regex(/^bpy_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a bill payment id (bpy_…)') });
const validateResponse = z.strictObject({ valid: z.literal(true), biller: billerSchema, accountMasked: z.string() });

/**
 * Bill payments (docs/api.md "Bill payments"), staff only: the biller directory, account validation, paying
 * a bill in cash (refused in the demo store: 403 `money_movement_disabled`; the payer screened, a potential match held
 * until a manager clears it, then completed or refused), the list with filters, one payment, and asking the partner
 * for its status (a rejection owes the refund to the customer).
 */
export function registerBillPaymentRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  workflows: BillPaymentWorkflows,
  partner: BillPartner = sandboxBillPartner,
): void {
  const staff = guard(ctx, 'staff');

  app.get(
    '/api/pos/billers',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List the billers',
          description: "The partner's biller directory: categories and account-number rules (length, check digit).",
          tags: ['bill-payments'],
          access: 'staff',
          query: noQuery,
          response: z.strictObject({ data: z.array(billerSchema) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return { data: await listBillers(partner) };
    },
  );

  app.post(
    '/api/pos/bill-payments/validate',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Validate a bill account number',
          description: "Checks the account number against the biller's rule before any money is taken. Changes nothing.",
          tags: ['bill-payments'],
          access: 'staff',
          body: billAccountBody,
          response: validateResponse,
          status: 200,
          errors: { 404: 'Unknown biller (`biller_not_found`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(billAccountBody, request.body ?? undefined);
      const v = await validateBillAccount(partner, body);
      return { valid: true as const, biller: v.biller, accountMasked: v.accountMasked };
    },
  );

  app.post(
    '/api/pos/bill-payments',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Pay a bill',
          description:
            "Validates the account, checks the limits, verifies the payer's ID when given (required from 3 000.00), screens the payer against the sanctions list, pays the biller through the partner and takes the cash: " +
            'Dr cash drawer (amount + fee), Cr fee income, Cr transfers payable. 201 `accepted` with the confirmation number and the receipt; 202 `held` when the payer is a potential sanctions match (nothing taken: a manager clears the screening, then `…/complete`). ' +
            'Audited, refusals too (`bill_payment.refused`).',
          tags: ['bill-payments'],
          access: 'staff',
          body: billPaymentCreateSchema,
          response: billPaymentSchema,
          status: 201,
          idempotent: true,
          errors: {
            403: 'The demo store (`money_movement_disabled`)',
            404: 'Unknown biller (`biller_not_found`)',
            422: 'Above a limit (`limit_per_transaction`, `limit_per_customer_day`), no ID from 3 000.00 (`id_required`), ID refused (`id_not_accepted`), the payer matches the sanctions list (`screening_blocked`) or refused by the partner (`partner_rejected`)',
            504: 'The partner did not answer (`partner_timeout`); nothing taken',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(billPaymentCreateSchema, request.body ?? undefined);
      return workflows.payBill(ctx, actorOf(principalOf(request)), body, partner);
    }),
  );

  app.post(
    '/api/pos/bill-payments/:id/complete',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Pay a held bill',
          description:
            "Once a manager cleared the payer's screening: the account number again (only its masked form is stored; it must be the held payment's), the partner, the cash, the receipt. The body may name the register's open shift (`shiftId`): its X/Z report counts the cash.",
          tags: ['bill-payments'],
          access: 'staff',
          params: idParams,
          body: billCompleteBody,
          response: billPaymentSchema,
          status: 200,
          errors: {
            403: 'The demo store (`money_movement_disabled`)',
            409: 'Screening not cleared (`screening_hold`), not held (`illegal_state_transition`) or another account (`account_mismatch`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const body = parseOrThrow(billCompleteBody, request.body ?? undefined);
      return workflows.completeHeldBillPayment(ctx, actorOf(principalOf(request)), id, body, partner);
    },
  );

  app.post(
    '/api/pos/bill-payments/:id/refuse',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Refuse a held bill payment',
          description: "A manager refuses the held payment (and the payer's held screening) with a reason; nothing is taken.",
          tags: ['bill-payments'],
          access: 'staff',
          params: idParams,
          body: refuseBody,
          response: billPaymentSchema,
          status: 200,
          errors: { 409: 'Not held (`illegal_state_transition`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const { reason } = parseOrThrow(refuseBody, request.body ?? undefined);
      return workflows.refuseHeldBillPayment(ctx, actorOf(principalOf(request)), id, reason, partner);
    },
  );

  app.get(
    '/api/pos/bill-payments',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List bill payments',
          description: 'Newest first; filter by status, biller or customer name (contains).',
          tags: ['bill-payments'],
          access: 'staff',
          query: billPaymentListQuery,
          response: pageSchema(billPaymentSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(billPaymentListQuery, request.query, '(query)');
      return listBillPayments(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/bill-payments/:id',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get a bill payment',
          tags: ['bill-payments'],
          access: 'staff',
          params: idParams,
          response: billPaymentSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return getBillPayment(ctx.db, principalOf(request).merchantId, id);
    },
  );

  app.post(
    '/api/pos/bill-payments/:id/refresh',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: "Update a bill payment's status from the partner",
          description:
            '`accepted` → `posted`, or `rejected` by the biller with the refund posted as owed to the customer (`refunds_payable:bill_payments`; no cash moves; audited `bill_payment.rejected`).',
          tags: ['bill-payments'],
          access: 'staff',
          params: idParams,
          body: emptyBodySchema,
          response: billPaymentSchema,
          status: 200,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseEmptyBody(request.body);
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return mutation(ctx, actorOf(principalOf(request)), (m) => refreshBillPayment(m, id, partner));
    },
  );
}
