import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  customerCreateSchema,
  customerPageSchema,
  customerRecordSchema,
  customerUpdateSchema,
  ORDER_STATES,
  orderPageSchema,
  pageQueryFields,
  queryBoolean,
  type OrderStateName,
  type OrderView,
} from '../../../../core/index.ts';
import { guard, principalOf, type Access } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import { createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer } from './service.ts';

/**
 * What the customer routes do that spans modules: workflows (sync-server/src/workflows/), handed in by app.ts — a
 * module never imports a workflow.
 */
export interface CustomerWorkflows {
  /** GET /api/pos/customers/{id}/orders: workflows/customer-history.ts `customerPurchaseHistory` (404 unknown customer). */
  customerPurchaseHistory(
    db: Queryable,
    merchantId: string,
    customerId: string,
    q: { limit: number; cursor?: string; status?: OrderStateName },
  ): Promise<{ data: OrderView[]; nextCursor: string | null }>;
}

const STAFF: Access = 'staff';
const customersQuery = z.strictObject({
  ...pageQueryFields,
  /** Substring of the name or e-mail, or digits of the phone. */
  q: z.string().trim().min(1).max(200).optional(),
  marketingConsent: queryBoolean.optional(),
});

const historyQuery = z.strictObject({ ...pageQueryFields, status: z.enum(ORDER_STATES).optional() });

const customerParams = z.strictObject({ id: z.string().regex(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with cus_') });

/** Customers (staff only): CRUD, search, purchase history. Logic in ./service.ts. */
export function registerCustomerRoutes(app: FastifyInstance, ctx: AppContext, workflows: CustomerWorkflows): void {
  app.get(
    '/api/pos/customers',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'List or search customers',
          description: 'Oldest first; `q` matches name, e-mail or phone digits.',
          tags: ['customers'],
          access: STAFF,
          query: customersQuery,
          response: customerPageSchema,
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(customersQuery, request.query, '(query)');
      return listCustomers(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.post(
    '/api/pos/customers',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Create a customer',
          errors: {
            409: 'Another customer has this phone or e-mail (`customer_exists`, `existingCustomerId`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'Phone normalised to E.164, e-mail trimmed; a phone or e-mail another customer has → 409 customer_exists with existingCustomerId.',
          tags: ['customers'],
          access: STAFF,
          body: customerCreateSchema,
          response: customerRecordSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(customerCreateSchema, request.body ?? undefined);
      return { status: 201, body: await createCustomer(ctx, principalOf(request), body) };
    }),
  );

  app.get(
    '/api/pos/customers/:id',
    {
      onRequest: guard(ctx, STAFF),
      config: { openapi: { summary: 'Get a customer', tags: ['customers'], access: STAFF, params: customerParams, response: customerRecordSchema } },
    },
    async (request) => {
      const { id } = parseOrThrow(customerParams, request.params, '(path)');
      return getCustomer(ctx.db, principalOf(request).merchantId, id);
    },
  );

  app.patch(
    '/api/pos/customers/:id',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Update a customer',
          errors: { 409: 'Another customer has this phone or e-mail (`customer_exists`, `existingCustomerId`)' },
          description: '`null` clears a field; giving marketing consent stamps marketingConsentAt.',
          tags: ['customers'],
          access: STAFF,
          params: customerParams,
          body: customerUpdateSchema,
          response: customerRecordSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(customerParams, request.params, '(path)');
      const body = parseOrThrow(customerUpdateSchema, request.body ?? undefined);
      return updateCustomer(ctx, principalOf(request), id, body);
    },
  );

  app.delete(
    '/api/pos/customers/:id',
    {
      onRequest: guard(ctx, STAFF),
      config: {
        openapi: {
          summary: 'Delete a customer',
          description: 'Soft delete: their orders keep the id.',
          tags: ['customers'],
          access: STAFF,
          params: customerParams,
          status: 204,
        },
      },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(customerParams, request.params, '(path)');
      await deleteCustomer(ctx, principalOf(request), id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/pos/customers/:id/orders',
    {
      // Staff, or a paired register (the customer's history at the counter; registers hold the customers already).
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: "A customer's purchase history",
          description: 'Their orders, newest first. Staff, or a paired register (its register credential).',
          tags: ['customers'],
          access: 'register',
          params: customerParams,
          query: historyQuery,
          response: orderPageSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(customerParams, request.params, '(path)');
      const q = parseOrThrow(historyQuery, request.query, '(query)');
      return workflows.customerPurchaseHistory(ctx.db, principalOf(request).merchantId, id, q);
    },
  );
}
