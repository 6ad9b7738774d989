import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  ORDER_STATES,
  orderCancelSchema,
  orderCreateSchema,
  orderPageSchema,
  orderViewSchema,
  paymentCreateSchema,
  receiptSendSchema,
  receiptSentSchema,
  refundResultSchema,
  refundCreateSchema,
  pageQueryFields,
  utcDateTime,
} from '../../../../core/index.ts';
import { guard, principalOf, type Access } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import { getOrderView, getReceipt, listOrders } from './service.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { OrderCreate, OrderView, PaymentCreate, ReceiptSend, RefundCreate, RefundRecord } from '../../../../core/index.ts';

/**
 * The order operations that span modules (workflows/create-order.ts, order-payment.ts, cancel-order.ts,
 * refund-order.ts, send-receipt.ts), handed in by app.ts: a module never imports a workflow.
 */
export interface OrderWorkflows {
  createOrder(ctx: AppContext, principal: Principal, input: OrderCreate): Promise<OrderView>;
  payOrder(ctx: AppContext, principal: Principal, orderId: string, input: PaymentCreate): Promise<OrderView>;
  cancelOrder(ctx: AppContext, principal: Principal, orderId: string, input: { reason?: string }): Promise<OrderView>;
  refundOrder(ctx: AppContext, principal: Principal, orderId: string, input: RefundCreate): Promise<{ refund: RefundRecord; order: OrderView }>;
  sendReceipt(
    ctx: AppContext,
    principal: Principal,
    orderId: string,
    input: ReceiptSend,
  ): Promise<{ id: string; channel: 'sms' | 'email'; to: string; orderId: string }>;
}

/** `GET /api/pos/orders` query (cursor pagination; unknown parameters → 400). */
export const ordersQuery = z.strictObject({
  ...pageQueryFields,
  registerId: z
    .string()
    .regex(/^reg_[A-Za-z0-9_-]{1,40}$/, 'must be a register id')
    .optional(),
  status: z.enum(ORDER_STATES).optional(),
  customerId: z
    .string()
    .regex(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a customer id')
    .optional(),
  source: z.enum(['register', 'api']).optional(),
  /** Inclusive lower bound of the order's business time. */
  createdFrom: utcDateTime.optional(),
  /** Exclusive upper bound of the order's business time. */
  createdTo: utcDateTime.optional(),
});

const orderParams = z.strictObject({ id: z.string().regex(/^ord_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with ord_') });

const receiptSchema = z.strictObject({
  orderId: z.string(),
  receiptNumber: z.string(),
  merchantName: z.string(),
  currency: z.string(),
  createdAt: z.string(),
  state: z.enum(ORDER_STATES),
  lines: z.array(
    z.strictObject({ name: z.string(), quantity: z.int(), modifiers: z.array(z.string()), unitPriceCents: z.int(), amountCents: z.int() }),
  ),
  subtotalCents: z.int(),
  discountCents: z.int(),
  taxLines: z.array(z.strictObject({ name: z.string(), taxCents: z.int(), inclusive: z.boolean() })),
  totalCents: z.int(),
  tipCents: z.int(),
  paidCents: z.int(),
  tenders: z.array(
    z.strictObject({
      method: z.string(),
      amountCents: z.int(),
      tipCents: z.int(),
      changeCents: z.int().nullable(),
      cardBrand: z.string().nullable(),
      last4: z.string().nullable(),
    }),
  ),
  refunds: z.array(z.strictObject({ id: z.string(), amountCents: z.int(), createdAt: z.string() })),
  refundedCents: z.int(),
  balanceDueCents: z.int(),
  /** Plain text, 42 columns, ready for the receipt printer. */
  text: z.string(),
});

const STAFF: Access = 'staff';
const ORDERS_READ: Access = { scope: 'orders:read' };

/**
 * Orders: list and read (scope `orders:read`); create, pay, cancel, refund and receipts (staff only).
 * Reads live in ./service.ts; writes are the workflows handed in as `flows`.
 */
export function registerOrderRoutes(app: FastifyInstance, ctx: AppContext, flows: OrderWorkflows): void {
  app.get(
    '/api/pos/orders',
    {
      onRequest: guard(ctx, ORDERS_READ),
      config: {
        openapi: {
          summary: 'List orders',
          description: 'Newest first by business time (createdAt), ties by id. Register sales and API orders alike.',
          tags: ['orders'],
          access: ORDERS_READ,
          query: ordersQuery,
          response: orderPageSchema,
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(ordersQuery, request.query, '(query)');
      return listOrders(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/orders/:id',
    {
      onRequest: guard(ctx, ORDERS_READ),
      config: {
        openapi: {
          summary: 'Get an order with its payments and refunds',
          tags: ['orders'],
          access: ORDERS_READ,
          params: orderParams,
          response: orderViewSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(orderParams, request.params, '(path)');
      return getOrderView(ctx.db, principalOf(request).merchantId, id);
    },
  );

  app.post(
    '/api/pos/orders',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Create an open order from catalog references',
          description: 'The server prices every line from the catalog; a price on a line is a 400.',
          tags: ['orders'],
          access: STAFF,
          body: orderCreateSchema,
          response: orderViewSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(orderCreateSchema, request.body ?? undefined);
      return { status: 201, body: await flows.createOrder(ctx, principalOf(request), body) };
    }),
  );

  app.post(
    '/api/pos/orders/:id/payments',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Pay an open order with one or several tenders, or collect a balance due',
          description:
            "All tenders or none. Cards run on the sandbox rail (tok_visa, tok_mastercard, tok_amex approve; tok_declined, tok_insufficient_funds → 402 naming the declined attempt, kept as a payment in state `declined` with no money moved). No tender (`tenders: []`) completes an order with nothing due (discounted to 0). The order's tips may not exceed the store's tip bound (settings): 400 `tip_out_of_range` naming `tenders.<i>.tipCents`. A card tender is pending settlement for its rail's settlementHours (GET /api/pos/settlements). On an order in state `balance_due` (an offline card declined or expired on forward, a bank payment returned) the tenders collect what is owed instead: no tip, at most `balanceDueCents` (400 `overpayment` naming `tenders`), each posted Dr its account, Cr the order's receivable; at 0 the order is `paid` again (`order.paid` emitted). 409 when the order is neither open nor balance_due.",
          tags: ['orders'],
          access: STAFF,
          params: orderParams,
          body: paymentCreateSchema,
          response: orderViewSchema,
          status: 201,
          idempotent: true,
          errors: {
            402: 'A card tender was declined (`card_declined`, `insufficient_funds`): `paymentId` names the attempt, kept as a payment in state `declined`; replayed with the same Idempotency-Key',
            409: 'The order is not open (`illegal_state_transition`, `currentState`)',
          },
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(orderParams, request.params, '(path)');
      const body = parseOrThrow(paymentCreateSchema, request.body ?? undefined);
      return { status: 201, body: await flows.payOrder(ctx, principalOf(request), id, body) };
    }),
  );

  app.post(
    '/api/pos/orders/:id/cancel',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Cancel an open order',
          errors: {
            409: 'The order is not open (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description: 'open → canceled; payments it had collected are given back. 409 in any other state.',
          tags: ['orders'],
          access: STAFF,
          params: orderParams,
          body: orderCancelSchema,
          response: orderViewSchema,
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(orderParams, request.params, '(path)');
      const body = parseOrThrow(orderCancelSchema, request.body === undefined ? {} : request.body);
      return { status: 200, body: await flows.cancelOrder(ctx, principalOf(request), id, body) };
    }),
  );

  app.post(
    '/api/pos/orders/:id/refunds',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Refund a paid order, fully or partly',
          errors: {
            403: "A cashier's refund above the store's `cashierRefundLimitCents` without a manager's approval (`approval_required`), or with an approval unknown, expired, used or for another order or a smaller amount (`approval_invalid`); an app token (`staff_only`)",
            409: 'The order is not paid or partially refunded (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'By lines and quantities, or by amount; never beyond what was paid. A new refund record, never an edit of the order. ' +
            "A cashier's refund above the store's `cashierRefundLimitCents` carries `approval`, a manager's token from `POST /api/register/approvals` (single use); the refund records the approver as `approvedBy`.",
          tags: ['orders'],
          access: STAFF,
          params: orderParams,
          body: refundCreateSchema,
          response: refundResultSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(orderParams, request.params, '(path)');
      const body = parseOrThrow(refundCreateSchema, request.body ?? undefined);
      return { status: 201, body: await flows.refundOrder(ctx, principalOf(request), id, body) };
    }),
  );

  app.get(
    '/api/pos/orders/:id/receipt',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: { summary: "Get an order's receipt (re-print data)", tags: ['orders'], access: STAFF, params: orderParams, response: receiptSchema },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(orderParams, request.params, '(path)');
      return getReceipt(ctx.db, principalOf(request).merchantId, id);
    },
  );

  app.post(
    '/api/pos/orders/:id/receipts',
    {
      // Staff, or a paired register's credential (the cashier sends the receipt from the register).
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Send the receipt by SMS or e-mail',
          description:
            "Queued in the SMS or e-mail outbox; without `to`, the order's customer's phone or e-mail. Staff or a paired register " +
            "(its credential: the register sends a synced sale's receipt).",
          tags: ['orders'],
          access: 'register',
          params: orderParams,
          body: receiptSendSchema,
          response: receiptSentSchema,
          status: 202,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(orderParams, request.params, '(path)');
      const body = parseOrThrow(receiptSendSchema, request.body ?? undefined);
      return { status: 202, body: await flows.sendReceipt(ctx, principalOf(request), id, body) };
    }),
  );
}
