import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  invoiceCreateSchema,
  invoicePageSchema,
  invoicePaymentCreateSchema,
  invoiceRefundCreateSchema,
  invoiceSchema,
  invoiceSendSchema,
  invoiceSeriesCreateSchema,
  invoiceSeriesPageSchema,
  invoiceSeriesSchema,
  invoiceListQuerySchema,
  invoiceUpdateSchema,
  invoiceVoidSchema,
  seriesStatus,
  pageQueryFields,
} from '../../../../core/index.ts';
import { guard, principalOf, type Access } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow } from '../../platform/http/problem.ts';
import { renderInvoicePdf } from './pdf.ts';
import { getInvoice, listInvoices } from './service.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { getSeries, listSeries, transitionSeries } from './recurring.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type {
  Invoice,
  InvoiceCreate,
  InvoicePaymentCreate,
  InvoiceRefundCreate,
  InvoiceSeries,
  InvoiceSeriesCreate,
  InvoiceUpdate,
} from '../../../../core/index.ts';

/**
 * Invoice operations that span modules (workflows/invoice-drafts.ts, invoice-issue.ts, invoice-payment.ts,
 * invoice-void.ts), handed in by app.ts: a module never imports a workflow.
 */
export interface InvoiceWorkflows {
  createInvoice(ctx: AppContext, principal: Principal, input: InvoiceCreate): Promise<Invoice>;
  updateInvoice(ctx: AppContext, principal: Principal, id: string, input: InvoiceUpdate): Promise<Invoice>;
  sendInvoice(ctx: AppContext, principal: Principal, id: string, input: { channels?: ('sms' | 'email')[] }): Promise<Invoice>;
  recordInvoicePayment(ctx: AppContext, principal: Principal, id: string, input: InvoicePaymentCreate): Promise<Invoice>;
  refundInvoice(ctx: AppContext, principal: Principal, id: string, input: InvoiceRefundCreate): Promise<Invoice>;
  voidInvoice(ctx: AppContext, principal: Principal, id: string, input: { reason?: string }): Promise<Invoice>;
  createSeries(ctx: AppContext, principal: Principal, input: InvoiceSeriesCreate): Promise<InvoiceSeries>;
}

const STAFF: Access = 'staff';
const TAGS = ['invoices'];
const invoiceParams = z.strictObject({ id: z.string().regex(/^inv_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with inv_') });
const seriesParams = z.strictObject({ id: z.string().regex(/^isr_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with isr_') });
const seriesListQuery = z.strictObject({
  ...pageQueryFields,
  status: seriesStatus.optional(),
});

/**
 * Invoices and recurring invoice series — staff only. Logic in service.ts and recurring.ts (the tick's pass in
 * workflows/recurring-invoices.ts, run by workflows/housekeeping.ts); the PDF in pdf.ts.
 */
export function registerInvoiceRoutes(app: FastifyInstance, ctx: AppContext, flows: InvoiceWorkflows): void {
  const onRequest = guard(ctx, STAFF);

  app.post(
    '/api/pos/invoices',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Create a draft invoice',
          description: 'Lines are catalog references (priced on the server) and/or custom lines (description + amountCents).',
          tags: TAGS,
          access: STAFF,
          body: invoiceCreateSchema,
          response: invoiceSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(invoiceCreateSchema, request.body ?? undefined);
      return { status: 201, body: await flows.createInvoice(ctx, principalOf(request), body) };
    }),
  );

  app.get(
    '/api/pos/invoices',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'List invoices',
          description: 'Newest first. `status` is the state now (a sent invoice past its due date is `overdue`).',
          tags: TAGS,
          access: STAFF,
          query: invoiceListQuerySchema,
          response: invoicePageSchema,
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(invoiceListQuerySchema, request.query, '(query)');
      return listInvoices(ctx, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/invoices/:id',
    {
      onRequest,
      config: { openapi: { summary: 'Get an invoice with its payments', tags: TAGS, access: STAFF, params: invoiceParams, response: invoiceSchema } },
    },
    async (request) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      return getInvoice(ctx, principalOf(request).merchantId, id);
    },
  );

  app.patch(
    '/api/pos/invoices/:id',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Edit a draft invoice',
          description: 'Drafts only (409 otherwise). Lists sent replace the stored ones.',
          errors: { 409: 'The invoice is no longer a draft (`illegal_state_transition`, `currentState`)' },
          tags: TAGS,
          access: STAFF,
          params: invoiceParams,
          body: invoiceUpdateSchema,
          response: invoiceSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      const body = parseOrThrow(invoiceUpdateSchema, request.body ?? undefined);
      return flows.updateInvoice(ctx, principalOf(request), id, body);
    },
  );

  app.post(
    '/api/pos/invoices/:id/send',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Send (issue) an invoice, or send a reminder',
          errors: {
            409: 'The invoice is paid or void (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'A draft is issued (draft → sent, receivable posted) and sent by SMS and/or e-mail with its pay link; an issued invoice with a balance is sent again.',
          tags: TAGS,
          access: STAFF,
          params: invoiceParams,
          body: invoiceSendSchema,
          response: invoiceSchema,
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      const body = parseOrThrow(invoiceSendSchema, request.body === undefined ? {} : request.body);
      return { status: 200, body: await flows.sendInvoice(ctx, principalOf(request), id, body) };
    }),
  );

  app.post(
    '/api/pos/invoices/:id/payments',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Record a payment on an invoice',
          errors: {
            402: 'A card was declined (`card_declined`, `insufficient_funds`, …) naming `cardToken`: nothing recorded',
            409: 'The invoice is a draft, paid or void (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'At the register or received another way; partial payments allowed (sent → partially_paid → paid). Card: sandbox tokens; declined → 402.',
          tags: TAGS,
          access: STAFF,
          params: invoiceParams,
          body: invoicePaymentCreateSchema,
          response: invoiceSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      const body = parseOrThrow(invoicePaymentCreateSchema, request.body ?? undefined);
      return { status: 201, body: await flows.recordInvoicePayment(ctx, principalOf(request), id, body) };
    }),
  );

  app.post(
    '/api/pos/invoices/:id/refunds',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Refund a paid invoice',
          errors: {
            400: 'amountCents above what is left to refund (`refund_exceeds_refundable`), or paymentId not a captured payment of the invoice (`unknown_payment`)',
            409: 'The invoice is not paid (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            "Gives back `amountCents` (default: all still refundable) of a paid invoice, from `paymentId` or newest payment first. Posts Dr refunds and sales tax (the invoice's tax share), Cr the payments' accounts; audit `invoice.refunded`; webhook `payment.refunded`. The invoice stays `paid` with `refundedCents` and `refunds`.",
          tags: TAGS,
          access: STAFF,
          params: invoiceParams,
          body: invoiceRefundCreateSchema,
          response: invoiceSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      const body = parseOrThrow(invoiceRefundCreateSchema, request.body === undefined ? {} : request.body);
      return { status: 201, body: await flows.refundInvoice(ctx, principalOf(request), id, body) };
    }),
  );

  app.post(
    '/api/pos/invoices/:id/void',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Void an invoice',
          errors: {
            409: 'The invoice is paid, partially paid, void or has payments (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description: 'draft | sent | overdue → void while nothing is paid; an issued invoice’s receivable is reversed.',
          tags: TAGS,
          access: STAFF,
          params: invoiceParams,
          body: invoiceVoidSchema,
          response: invoiceSchema,
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      const body = parseOrThrow(invoiceVoidSchema, request.body === undefined ? {} : request.body);
      return { status: 200, body: await flows.voidInvoice(ctx, principalOf(request), id, body) };
    }),
  );

  app.get(
    '/api/pos/invoices/:id/pdf',
    {
      onRequest,
      config: {
        openapi: { summary: 'Printable PDF of an invoice', tags: TAGS, access: STAFF, params: invoiceParams, produces: ['application/pdf'] },
      },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(invoiceParams, request.params, '(path)');
      const { merchantId } = principalOf(request);
      const invoice = await getInvoice(ctx, merchantId, id);
      const merchant = await getMerchant(ctx.db, merchantId);
      const pdf = await renderInvoicePdf(invoice, merchant);
      return reply
        .type('application/pdf')
        .header('Content-Disposition', `inline; filename="${invoice.number}.pdf"`)
        .header('Cache-Control', 'no-store')
        .send(Buffer.from(pdf));
    },
  );

  /* ───────────── recurring series ───────────── */

  app.post(
    '/api/pos/invoice-series',
    {
      onRequest,
      config: {
        openapi: {
          summary: 'Create a recurring invoice series',
          description: 'An RFC 5545 RRULE over whole UTC days from startDate; one invoice per occurrence, generated by the scheduler.',
          tags: TAGS,
          access: STAFF,
          body: invoiceSeriesCreateSchema,
          response: invoiceSeriesSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(invoiceSeriesCreateSchema, request.body ?? undefined);
      return { status: 201, body: await flows.createSeries(ctx, principalOf(request), body) };
    }),
  );

  app.get(
    '/api/pos/invoice-series',
    {
      onRequest,
      config: {
        openapi: { summary: 'List recurring invoice series', tags: TAGS, access: STAFF, query: seriesListQuery, response: invoiceSeriesPageSchema },
      },
    },
    async (request) => {
      const q = parseOrThrow(seriesListQuery, request.query, '(query)');
      return listSeries(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/invoice-series/:id',
    {
      onRequest,
      config: {
        openapi: { summary: 'Get a recurring invoice series', tags: TAGS, access: STAFF, params: seriesParams, response: invoiceSeriesSchema },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(seriesParams, request.params, '(path)');
      return getSeries(ctx.db, principalOf(request).merchantId, id);
    },
  );

  for (const [action, summary] of [
    ['pause', 'Pause a series (active → paused)'],
    ['resume', 'Resume a series (paused → active; occurrences missed while paused are skipped)'],
    ['end', 'End a series (→ ended, final)'],
  ] as const) {
    app.post(
      `/api/pos/invoice-series/:id/${action}`,
      {
        onRequest,
        config: {
          openapi: {
            summary,
            tags: TAGS,
            access: STAFF,
            params: seriesParams,
            body: emptyBodySchema,
            response: invoiceSeriesSchema,
            status: 200,
            idempotent: true,
            errors: {
              409: 'The series cannot move from its state (`illegal_state_transition`, `currentState`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
            },
          },
        },
      },
      idempotent(ctx.db, ctx.clock, async (request) => {
        const { id } = parseOrThrow(seriesParams, request.params, '(path)');
        parseEmptyBody(request.body);
        return { status: 200, body: await transitionSeries(ctx, principalOf(request), id, action) };
      }),
    );
  }
}
