import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageSchema } from '../../../../core/index.ts';
import { actorOf, mutation, type MutationActor } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { sandboxBillPartner, type BillPartner } from './partner.ts';
import {
  billAccountBody,
  billerSchema,
  billPaymentCreateSchema,
  billPaymentListQuery,
  billPaymentSchema,
  getBillPayment,
  listBillers,
  listBillPayments,
  payBill,
  refreshBillPayment,
  validateBillAccount,
  type BillPaymentSettings,
} from './service.ts';

/** Reads the store's bill-payment fee and limits (modules/financial-services, handed in by app.ts). */
export type BillPaymentSettingsOf = (db: Queryable, merchantId: string) => Promise<BillPaymentSettings>;

const noQuery = z.strictObject({});
const idParams = z.strictObject({ id: z.string().regex(/^bpy_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a bill payment id (bpy_…)') });
const validateResponse = z.strictObject({ valid: z.literal(true), biller: billerSchema, accountMasked: z.string() });

/**
 * Writes the audit entry of a refused financial-service request (`<service>.refused`, the problem's code and detail)
 * in its own mutation — the refused request's own writes were rolled back. Never throws past the original error.
 */
export async function auditServiceRefusal(ctx: AppContext, who: MutationActor, action: string, entityType: string, error: unknown, data: Record<string, unknown> = {}): Promise<void> {
  if (!(error instanceof ProblemError)) return;
  try {
    await mutation(ctx, who, (m) => m.audit({ action, entityType, entityId: 'refused', data: { code: error.code, status: error.status, detail: error.message, ...data } }));
  } catch {
    // The refusal itself is what the caller must see.
  }
}

/**
 * Bill payments (issue 14; docs/api.md "Bill payments"), staff only: the biller directory, account validation, paying
 * a bill in cash (refused in the demo store: 403 `money_movement_disabled`), the list with filters, one payment, and
 * asking the partner for its status (a rejection posts the reversal).
 */
export function registerBillPaymentRoutes(app: FastifyInstance, ctx: AppContext, settingsOf: BillPaymentSettingsOf, partner: BillPartner = sandboxBillPartner): void {
  const staff = guard(ctx, 'staff');

  app.get('/api/pos/billers', {
    onRequest: staff,
    config: { openapi: { summary: 'List the billers', description: "The partner's biller directory: categories and account-number rules (length, check digit).", tags: ['bill-payments'], access: 'staff', query: noQuery, response: z.strictObject({ data: z.array(billerSchema) }) } satisfies RouteDoc },
  }, async (request) => {
    parseOrThrow(noQuery, request.query, '(query)');
    return { data: await listBillers(partner) };
  });

  app.post('/api/pos/bill-payments/validate', {
    onRequest: staff,
    config: { openapi: { summary: 'Validate a bill account number', description: 'Checks the account number against the biller\'s rule before any money is taken. Changes nothing.', tags: ['bill-payments'], access: 'staff', body: billAccountBody, response: validateResponse, status: 200, errors: { 404: 'Unknown biller (`biller_not_found`)' } } satisfies RouteDoc },
  }, async (request) => {
    const body = parseOrThrow(billAccountBody, request.body ?? undefined);
    const v = await validateBillAccount(partner, body);
    return { valid: true as const, biller: v.biller, accountMasked: v.accountMasked };
  });

  app.post('/api/pos/bill-payments', {
    onRequest: staff,
    config: {
      openapi: {
        summary: 'Pay a bill',
        description: 'Validates the account, checks the limits, pays the biller through the partner and takes the cash: Dr cash drawer (amount + fee), Cr fee income, Cr transfers payable. Answers the confirmation number and the receipt. Audited, refusals too (`bill_payment.refused`).',
        tags: ['bill-payments'],
        access: 'staff',
        body: billPaymentCreateSchema,
        response: billPaymentSchema,
        status: 201,
        idempotent: true,
        errors: { 403: 'The demo store (`money_movement_disabled`)', 404: 'Unknown biller (`biller_not_found`)', 422: 'Above a limit (`limit_per_transaction`, `limit_per_customer_day`) or refused by the partner (`partner_rejected`)', 504: 'The partner did not answer (`partner_timeout`); nothing taken' },
      } satisfies RouteDoc,
    },
  }, idempotent(ctx.db, ctx.clock, async (request) => {
    const body = parseOrThrow(billPaymentCreateSchema, request.body ?? undefined);
    const who = actorOf(principalOf(request));
    try {
      return { status: 201, body: await mutation(ctx, who, async (m) => payBill(m, body, partner, await settingsOf(m.tx, m.merchantId))) };
    } catch (e) {
      await auditServiceRefusal(ctx, who, 'bill_payment.refused', 'bill_payment', e, { billerId: body.billerId, amountCents: body.amountCents });
      throw e;
    }
  }));

  app.get('/api/pos/bill-payments', {
    onRequest: staff,
    config: { openapi: { summary: 'List bill payments', description: 'Newest first; filter by status, biller or customer name (contains).', tags: ['bill-payments'], access: 'staff', query: billPaymentListQuery, response: pageSchema(billPaymentSchema) } satisfies RouteDoc },
  }, async (request) => {
    const q = parseOrThrow(billPaymentListQuery, request.query, '(query)');
    return listBillPayments(ctx.db, principalOf(request).merchantId, q);
  });

  app.get('/api/pos/bill-payments/:id', {
    onRequest: staff,
    config: { openapi: { summary: 'Get a bill payment', tags: ['bill-payments'], access: 'staff', params: idParams, response: billPaymentSchema } satisfies RouteDoc },
  }, async (request) => {
    const { id } = parseOrThrow(idParams, request.params, '(path)');
    return getBillPayment(ctx.db, principalOf(request).merchantId, id);
  });

  app.post('/api/pos/bill-payments/:id/refresh', {
    onRequest: staff,
    config: { openapi: { summary: "Update a bill payment's status from the partner", description: '`accepted` → `posted`, or `rejected` by the biller with the reversal journal transaction posted (audited `bill_payment.rejected`).', tags: ['bill-payments'], access: 'staff', params: idParams, body: emptyBodySchema, response: billPaymentSchema, status: 200 } satisfies RouteDoc },
  }, async (request) => {
    parseEmptyBody(request.body);
    const { id } = parseOrThrow(idParams, request.params, '(path)');
    return mutation(ctx, actorOf(principalOf(request)), (m) => refreshBillPayment(m, id, partner));
  });
}
