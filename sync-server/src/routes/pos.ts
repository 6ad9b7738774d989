import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { payRequestCreateSchema } from '../../../core/index.ts';
import { guard, principalOf } from '../auth/guard.ts';
import type { AppContext } from '../context.ts';
import { decodeCursor, encodeCursor } from '../http/cursor.ts';
import { idempotent } from '../http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../http/problem.ts';
import { verifyAuditChain } from '../services/audit.ts';
import { hydrateJournalTransactions, trialBalance } from '../services/ledger.ts';
import { createPayRequest, getPayRequest } from '../services/pay-requests.ts';

const limitOf = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

const pageQuery = z.strictObject({ limit: limitOf(200, 50), cursor: z.string().max(500).optional() });

const journalQuery = z.strictObject({
  limit: limitOf(200, 50),
  cursor: z.string().max(500).optional(),
  sourceId: z.string().min(1).max(64).optional(),
});

const idParams = (prefix: string) => z.strictObject({ id: z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`) });

/** The POS REST API (`/api/pos/*`). Scopes per DESIGN §7; everything not app-scoped is staff only. */
export function registerPosRoutes(app: FastifyInstance, ctx: AppContext): void {
  // GET /api/pos/catalog and the rest of the catalog API: routes/catalog.ts.

  // GET /api/pos/orders and the rest of the order API: routes/orders.ts.

  app.post(
    '/api/pos/pay-requests',
    { onRequest: guard(ctx, { scope: 'pay:create' }) },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(payRequestCreateSchema, request.body ?? undefined);
      const record = await createPayRequest(ctx, principalOf(request), body);
      return { status: 201, body: record };
    }),
  );

  app.get('/api/pos/pay-requests/:id', { onRequest: guard(ctx, { scope: 'pay:create' }) }, async (request) => {
    const { id } = parseOrThrow(idParams('pr'), request.params, '(path)');
    const record = await getPayRequest(ctx.db, id, principalOf(request).merchantId);
    if (!record) throw new ProblemError(404, 'not_found', `Pay request ${id} does not exist.`);
    const { merchantId: _, ...body } = record;
    return body;
  });

  app.get('/api/pos/sms-outbox', { onRequest: guard(ctx, 'staff') }, async (request) => {
    const { merchantId } = principalOf(request);
    const q = parseOrThrow(pageQuery, request.query, '(query)');
    const params: unknown[] = [merchantId];
    let where = 'merchant_id = $1';
    if (q.cursor) {
      const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
      params.push(createdAt, id);
      where += ` AND (created_at, id) < ($2::timestamptz, $3::text)`;
    }
    params.push(q.limit + 1);
    const { rows } = await ctx.db.query<{ id: string; to_phone: string; body: string; created_at: Date; status: string }>(
      `SELECT id, to_phone, body, created_at, status FROM sms_outbox WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      data: page.map((r) => ({ id: r.id, to: r.to_phone, body: r.body, status: r.status, createdAt: new Date(r.created_at).toISOString() })),
      nextCursor: rows.length > q.limit && last ? encodeCursor([new Date(last.created_at).toISOString(), last.id]) : null,
    };
  });

  app.get('/api/pos/quarantine', { onRequest: guard(ctx, 'staff') }, async (request) => {
    const { merchantId } = principalOf(request);
    const q = parseOrThrow(pageQuery.extend({ collection: z.enum(['orders', 'journal-transactions']).optional() }), request.query, '(query)');
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
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      data: page.map((r) => ({ id: r.id, collection: r.collection, documentId: r.doc_id, document: r.data, reason: r.reason, createdAt: new Date(r.created_at).toISOString() })),
      nextCursor: rows.length > q.limit && last ? encodeCursor([new Date(last.created_at).toISOString(), last.id]) : null,
    };
  });

  app.get('/api/pos/ledger/journal-transactions', { onRequest: guard(ctx, 'staff') }, async (request) => {
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
    const page = await hydrateJournalTransactions(ctx.db, rows.slice(0, q.limit));
    return { data: page, nextCursor: rows.length > q.limit ? encodeCursor([page.at(-1)!.syncSeq]) : null };
  });

  app.get('/api/pos/ledger/trial-balance', { onRequest: guard(ctx, 'staff') }, async (request) => {
    parseOrThrow(z.strictObject({}), request.query, '(query)');
    return trialBalance(ctx.db, principalOf(request).merchantId);
  });

  app.get('/api/pos/audit/verify', { onRequest: guard(ctx, 'staff') }, async (request) => {
    parseOrThrow(z.strictObject({}), request.query, '(query)');
    return verifyAuditChain(ctx.db, principalOf(request).merchantId);
  });
}
