import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { journalTransactionSchema, pageQueryFields, pageSchema } from '../../../../core/index.ts';
import { verifyAuditChain } from '../../kernel/audit.ts';
import { hydrateJournalTransactions, trialBalance } from '../../kernel/ledger.ts';

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

/**
 * One page of an outbox table (`sms_outbox`, `email_outbox`: id, merchant_id, created_at, status + `columns`), newest
 * first, keyset-paginated on (created_at, id); `view` maps a row's own columns to the API fields.
 */
async function outboxPage<R extends object>(
  db: AppContext['db'],
  merchantId: string,
  q: z.infer<typeof pageQuery>,
  table: 'sms_outbox' | 'email_outbox',
  columns: string,
  view: (row: R) => Record<string, string>,
): Promise<{ data: Record<string, string>[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (created_at, id) < ($2::timestamptz, $3::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<R & { id: string; created_at: Date; status: string }>(
    `SELECT id, ${columns}, created_at, status FROM ${table} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => ({ id: r.id, ...view(r), status: r.status, createdAt: new Date(r.created_at).toISOString() })), nextCursor };
}

/** The POS REST API (`/api/pos/*`). Scopes per DESIGN §7; everything not app-scoped is staff only. */
export function registerPosRoutes(app: FastifyInstance, ctx: AppContext): void {
  // GET /api/pos/catalog and the rest of the catalog API: routes/catalog.ts.

  // GET /api/pos/orders and the rest of the order API: routes/orders.ts.

  // POST/GET /api/pos/pay-requests…: routes/pay-requests.ts.

  app.get('/api/pos/sms-outbox', {
    onRequest: guard(ctx, 'staff'),
    config: { openapi: { summary: 'List queued SMS messages', description: 'Newest first. No carrier is connected: texts wait here.', tags: ['outbox'], access: 'staff', query: pageQuery, response: pageSchema(smsOutboxEntry) } satisfies RouteDoc },
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
    const params: unknown[] = [merchantId];
    let where = 'merchant_id = $1';
    if (q.collection) {
      params.push(q.collection);
      where += ` AND collection = $${params.length}`;
    }
    if (q.cursor) {
      const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
      params.push(createdAt, id);
      where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
    }
    params.push(q.limit + 1);
    const { rows } = await ctx.db.query<{ id: string; collection: string; doc_id: string; data: unknown; reason: string; created_at: Date }>(
      `SELECT id, collection, doc_id, data, reason, created_at FROM quarantine WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
    return {
      data: page.map((r) => ({ id: r.id, collection: r.collection, documentId: r.doc_id, document: r.data, reason: r.reason, createdAt: new Date(r.created_at).toISOString() })),
      nextCursor,
    };
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
    const params: unknown[] = [merchantId];
    let where = 'merchant_id = $1';
    if (q.sourceId) {
      params.push(q.sourceId);
      where += ` AND source_id = $${params.length}`;
    }
    if (q.cursor) {
      params.push(decodeCursor(q.cursor, ['number'])[0]);
      where += ` AND sync_seq > $${params.length}`;
    }
    params.push(q.limit + 1);
    const { rows } = await ctx.db.query<Parameters<typeof hydrateJournalTransactions>[1][number]>(
      `SELECT * FROM journal_transactions WHERE ${where} ORDER BY sync_seq LIMIT $${params.length}`,
      params,
    );
    const { page, nextCursor } = pageOf(rows, q.limit, (last) => [Number(last.sync_seq)]);
    return { data: await hydrateJournalTransactions(ctx.db, page), nextCursor };
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
