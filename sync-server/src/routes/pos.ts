import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { payRequestCreateSchema, type CatalogItem, type Order, type TaxRate } from '../../../core/index.ts';
import { guard, principalOf } from '../auth/guard.ts';
import type { AppContext } from '../context.ts';
import { decodeCursor, encodeCursor } from '../http/cursor.ts';
import { idempotent } from '../http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../http/problem.ts';
import { verifyAuditChain } from '../services/audit.ts';
import { hydrateJournalTransactions, trialBalance } from '../services/ledger.ts';
import { createPayRequest, getPayRequest } from '../services/pay-requests.ts';

const limitOf = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

const catalogQuery = z.strictObject({
  limit: limitOf(200, 50),
  cursor: z.string().max(500).optional(),
  category: z.string().min(1).max(100).optional(),
  q: z.string().min(1).max(200).optional(),
  updatedSince: z.iso.datetime({ offset: true }).refine((v) => !v.startsWith('0000'), 'must be a time after year 0').optional(),
});

const ordersQuery = z.strictObject({
  limit: limitOf(200, 50),
  cursor: z.string().max(500).optional(),
  registerId: z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/).optional(),
});

const pageQuery = z.strictObject({ limit: limitOf(200, 50), cursor: z.string().max(500).optional() });

const journalQuery = z.strictObject({
  limit: limitOf(200, 50),
  cursor: z.string().max(500).optional(),
  sourceId: z.string().min(1).max(64).optional(),
});

const idParams = (prefix: string) => z.strictObject({ id: z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`) });

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The POS REST API (`/api/pos/*`). Scopes per DESIGN §7; everything not app-scoped is staff only. */
export function registerPosRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/pos/catalog', { onRequest: guard(ctx, { scope: 'catalog:read' }) }, async (request) => {
    const { merchantId } = principalOf(request);
    const q = parseOrThrow(catalogQuery, request.query, '(query)');
    const where = ['merchant_id = $1', 'NOT deleted'];
    const params: unknown[] = [merchantId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replaceAll('?', `$${params.length}`));
    };
    if (q.cursor) add('id > ?', decodeCursor(q.cursor, ['string'])[0]);
    if (q.category) add(`lower(data->>'category') = lower(?)`, q.category);
    if (q.q) {
      add(
        `(data->>'name' ILIKE ? OR EXISTS (SELECT 1 FROM jsonb_array_elements(data->'variations') v WHERE v->>'sku' ILIKE ? OR v->>'gtin' ILIKE ?))`,
        likePattern(q.q),
      );
    }
    if (q.updatedSince) add('updated_at >= ?', q.updatedSince);
    params.push(q.limit + 1);
    const { rows } = await ctx.db.query<{ id: string; data: CatalogItem; updated_at: Date }>(
      `SELECT id, data, updated_at FROM catalog_items WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const rates = await ctx.db.query<{ data: TaxRate; updated_at: Date }>('SELECT data, updated_at FROM tax_rates WHERE merchant_id = $1 AND NOT deleted ORDER BY id', [merchantId]);
    return {
      data: page.map((r) => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString() })),
      taxRates: rates.rows.map((r) => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString() })),
      nextCursor: rows.length > q.limit ? encodeCursor([page.at(-1)!.id]) : null,
    };
  });

  app.get('/api/pos/orders', { onRequest: guard(ctx, { scope: 'orders:read' }) }, async (request) => {
    const { merchantId } = principalOf(request);
    const q = parseOrThrow(ordersQuery, request.query, '(query)');
    const params: unknown[] = [merchantId];
    let where = 'merchant_id = $1';
    if (q.registerId) {
      params.push(q.registerId);
      where += ` AND register_id = $${params.length}`;
    }
    if (q.cursor) {
      const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
      params.push(createdAt, id);
      where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
    }
    params.push(q.limit + 1);
    const { rows } = await ctx.db.query<{ id: string; data: Order; created_at: Date; updated_at: Date; sync_seq: number | string }>(
      `SELECT id, data, created_at, updated_at, sync_seq FROM orders WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      data: page.map((r) => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString(), syncSeq: Number(r.sync_seq) })),
      nextCursor: rows.length > q.limit && last ? encodeCursor([new Date(last.created_at).toISOString(), last.id]) : null,
    };
  });

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
