import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { journalTransactionSchema, pageQueryFields, pageSchema } from '../../../../core/index.ts';
import { verifyAuditChain } from '../../kernel/audit.ts';
import { trialBalance } from '../../kernel/ledger.ts';
import { listJournalTransactions, listQuarantine, outboxPage } from './service.ts';

const pageQuery = z.strictObject(pageQueryFields);

const journalQuery = z.strictObject({
  ...pageQueryFields,
  sourceId: z.string().min(1).max(64).optional(),
});

const quarantineQuery = pageQuery.extend({ collection: z.enum(['orders', 'journal-transactions']).optional() });
const noQuery = z.strictObject({});
const smsOutboxEntry = z.strictObject({ id: z.string(), to: z.string(), body: z.string(), status: z.string(), createdAt: z.iso.datetime() });
const emailOutboxEntry = z.strictObject({ id: z.string(), to: z.string(), subject: z.string(), body: z.string().describe('Plain text'), status: z.string(), createdAt: z.iso.datetime() });
const quarantineEntry = z.strictObject({
  id: z.string(),
  collection: z.enum(['orders', 'journal-transactions']),
  documentId: z.string(),
  document: z.unknown().describe('The document as pushed'),
  reason: z.string(),
  createdAt: z.iso.datetime(),
});
const trialBalanceResponse = z.strictObject({
  currency: z.string(),
  accounts: z.array(z.strictObject({ code: z.string(), name: z.string(), type: z.string(), balanceCents: z.int().describe('Debit > 0, credit < 0') })),
  totalCents: z.int().describe('Always 0'),
});
const auditVerifyResponse = z.strictObject({
  ok: z.boolean(),
  checked: z.int().describe('Rows checked'),
  brokenAtSeq: z.int().optional(),
  reason: z.string().optional(),
});

/** The POS REST API (`/api/pos/*`). Scopes per DESIGN §7; everything not app-scoped is staff only. */
export function registerPosRoutes(app: FastifyInstance, ctx: AppContext): void {
  // GET /api/pos/catalog and the rest of the catalog API: routes/catalog.ts.

  // GET /api/pos/orders and the rest of the order API: routes/orders.ts.

  // POST/GET /api/pos/pay-requests…: routes/pay-requests.ts.

  app.get('/api/pos/sms-outbox', {
    onRequest: guard(ctx, 'register'),
    config: { openapi: { summary: 'List queued SMS messages', description: 'Newest first. No carrier is connected: texts wait here (the register\'s Messages screen shows them, so registers may read it).', tags: ['outbox'], access: 'register', query: pageQuery, response: pageSchema(smsOutboxEntry) } satisfies RouteDoc },
  }, async (request) => {
    const q = parseOrThrow(pageQuery, request.query, '(query)');
    return outboxPage<{ to_phone: string; body: string }>(ctx.db, principalOf(request).merchantId, q, 'sms_outbox', 'to_phone, body', (r) => ({ to: r.to_phone, body: r.body }));
  });

  app.get('/api/pos/email-outbox', {
    onRequest: guard(ctx, 'staff'),
    config: { openapi: { summary: 'List queued e-mails', description: 'Newest first: receipts, invoices and reminders. No mail server is connected: messages wait here.', tags: ['outbox'], access: 'staff', query: pageQuery, response: pageSchema(emailOutboxEntry) } satisfies RouteDoc },
  }, async (request) => {
    const q = parseOrThrow(pageQuery, request.query, '(query)');
    return outboxPage<{ to_address: string; subject: string; body: string }>(ctx.db, principalOf(request).merchantId, q, 'email_outbox', 'to_address, subject, body', (r) => ({ to: r.to_address, subject: r.subject, body: r.body }));
  });

  app.get('/api/pos/quarantine', {
    onRequest: guard(ctx, 'staff'),
    config: { openapi: { summary: 'List documents refused on replication', description: 'Newest first, with the reason (DESIGN §15).', tags: ['sync'], access: 'staff', query: quarantineQuery, response: pageSchema(quarantineEntry) } satisfies RouteDoc },
  }, async (request) => {
    const { merchantId } = principalOf(request);
    const q = parseOrThrow(quarantineQuery, request.query, '(query)');
    return listQuarantine(ctx.db, merchantId, q);
  });

  app.get('/api/pos/ledger/journal-transactions', {
    onRequest: guard(ctx, 'staff'),
    config: {
      openapi: {
        summary: 'List journal transactions',
        description: 'In posting order (server sequence), with postings (debit > 0, credit < 0); filter by `sourceId` (e.g. an order id).',
        tags: ['ledger'],
        access: 'staff',
        query: journalQuery,
        response: pageSchema(journalTransactionSchema),
      } satisfies RouteDoc,
    },
  }, async (request) => {
    const { merchantId } = principalOf(request);
    const q = parseOrThrow(journalQuery, request.query, '(query)');
    return listJournalTransactions(ctx.db, merchantId, q);
  });

  app.get('/api/pos/ledger/trial-balance', {
    onRequest: guard(ctx, 'staff'),
    config: {
      openapi: {
        summary: 'Trial balance of the ledger, all time',
        description: 'Balance of every account; the total is always 0. Over a period, with opening and closing balances: GET /api/pos/reports/trial-balance.',
        tags: ['ledger'],
        access: 'staff',
        query: noQuery,
        response: trialBalanceResponse,
      } satisfies RouteDoc,
    },
  }, async (request) => {
    parseOrThrow(noQuery, request.query, '(query)');
    return trialBalance(ctx.db, principalOf(request).merchantId);
  });

  app.get('/api/pos/audit/verify', {
    onRequest: guard(ctx, 'staff'),
    config: {
      openapi: {
        summary: 'Verify the audit hash chain',
        description: 'Recomputes hash = SHA-256(prevHash ‖ canonical row) over the merchant\'s audit log.',
        tags: ['audit'],
        access: 'staff',
        query: noQuery,
        response: auditVerifyResponse,
      } satisfies RouteDoc,
    },
  }, async (request) => {
    parseOrThrow(noQuery, request.query, '(query)');
    return verifyAuditChain(ctx.db, principalOf(request).merchantId);
  });
}
