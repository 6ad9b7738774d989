import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authenticate, authorize, guard, principalOf } from '../platform/auth/guard.ts';
import { callerOf } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { parseOrThrow, ProblemError } from '../platform/http/problem.ts';
import type { RouteDoc } from '../platform/http/route-doc.ts';
import { COLLECTIONS, maxSeq, pull, push, PUSHABLE, pushBodySchema, type Collection } from '../sync/replication.ts';
import { registerRegisterReceiptRoutes } from './register-receipts.ts';

const collectionParams = z.strictObject({ collection: z.enum(COLLECTIONS) });
const pullQuery = z.strictObject({
  seq: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
const streamQuery = z.strictObject({ token: z.string().min(1).max(4096).optional() });
/** A replicated document: the core shape plus `updatedAt`, `syncSeq`, `_deleted` (and `rejection` when quarantined). */
const replicatedDocument = z.record(z.string(), z.unknown()).describe('Core shape (order, journal transaction, catalog item, tax rate) + updatedAt, syncSeq, _deleted');
const pullResponse = z.strictObject({ documents: z.array(replicatedDocument), checkpoint: z.strictObject({ seq: z.int() }).nullable() });
const syncErrors = { 404: 'Unknown collection (`unknown_collection`)', 426: 'Register schema too old (`register_too_old`)' };

function collectionOf(params: unknown): Collection {
  const result = collectionParams.safeParse(params);
  if (!result.success) {
    throw new ProblemError(404, 'unknown_collection', `No such replicated collection; use one of ${COLLECTIONS.join(', ')}.`);
  }
  return result.data.collection;
}

/** Replication endpoints for RxDB (DESIGN §15), staff tokens only; and the registers' receipt numbers (register-receipts.ts). */
export function registerSyncRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerRegisterReceiptRoutes(app, ctx);
  app.get('/api/sync/:collection/pull', {
    onRequest: guard(ctx, 'staff'),
    config: {
      openapi: {
        summary: 'Pull replicated documents after a checkpoint',
        description: 'The merchant\'s documents with `syncSeq > seq`, in sequence order; fewer than `limit` means caught up (DESIGN §15).',
        tags: ['sync'],
        access: 'staff',
        params: collectionParams,
        query: pullQuery,
        response: pullResponse,
        errors: syncErrors,
      } satisfies RouteDoc,
    },
  }, async (request) => {
    const collection = collectionOf(request.params);
    const q = parseOrThrow(pullQuery, request.query, '(query)');
    return pull(ctx.db, principalOf(request).merchantId, collection, q.seq ?? null, q.limit);
  });

  app.post('/api/sync/:collection/push', {
    onRequest: guard(ctx, 'staff'),
    config: {
      openapi: {
        summary: 'Push register-authored documents',
        description:
          'One transaction, idempotent by content. Answers the conflicts: master states of documents that differ, and ' +
          'refused documents (kept in quarantine) marked with `rejection`. `orders` only: the server derives each ' +
          "sale's journal transaction (`journal-transactions` is pull-only, like the catalog). " +
          'Pushes are idempotent by document id and content, so no Idempotency-Key is needed.',
        tags: ['sync'],
        access: 'staff',
        params: collectionParams,
        body: pushBodySchema,
        response: z.array(replicatedDocument),
        idempotent: false,
        errors: { ...syncErrors, 405: 'Pull-only collection (`read_only_collection`)' },
      } satisfies RouteDoc,
    },
  }, async (request, reply) => {
    const collection = collectionOf(request.params);
    if (!PUSHABLE.includes(collection)) {
      reply.header('Allow', 'GET');
      throw new ProblemError(405, 'read_only_collection', `${collection} is server-authoritative: pull only (edit it through the API).`);
    }
    const rows = parseOrThrow(pushBodySchema, request.body);
    const principal = principalOf(request);
    return push(ctx, { merchantId: principal.merchantId, actor: callerOf(principal) }, 'orders', rows);
  });

  app.get('/api/sync/:collection/stream', {
    config: {
      openapi: {
        summary: 'Stream replicated documents (server-sent events)',
        description:
          'text/event-stream: `data: "RESYNC"` on connect, then `data: { documents, checkpoint }` after each committed write. ' +
          'EventSource cannot send headers, so the staff token may come as `?token=` here.',
        tags: ['sync'],
        access: 'staff',
        params: collectionParams,
        query: streamQuery,
        produces: ['text/event-stream'],
        errors: syncErrors,
      } satisfies RouteDoc,
    },
  }, async (request, reply) => {
    const collection = collectionOf(request.params);
    parseOrThrow(streamQuery, request.query, '(query)');
    const principal = await authenticate(ctx, request, true);
    authorize(principal, 'staff');
    const merchantId = principal.merchantId;
    let lastSeq = await maxSeq(ctx.db, merchantId, collection);

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(`retry: 3000\ndata: "RESYNC"\n\n`);

    let isClosed = false;
    let chain: Promise<void> = Promise.resolve();
    const drain = async () => {
      while (!isClosed) {
        const batch = await pull(ctx.db, merchantId, collection, lastSeq, 500);
        if (batch.documents.length === 0) return;
        lastSeq = batch.checkpoint?.seq ?? lastSeq;
        res.write(`data: ${JSON.stringify(batch)}\n\n`);
        if (batch.documents.length < 500) return;
      }
    };
    const unsubscribe = ctx.feed.subscribe(merchantId, collection, () => {
      chain = chain.then(drain).catch((err: unknown) => {
        request.log.warn({ err }, 'sync stream: pull failed; asking the client to resync');
        if (!isClosed) res.write(`data: "RESYNC"\n\n`);
      });
    });
    const keepAlive = setInterval(() => {
      if (!isClosed) res.write(`: keep-alive\n\n`);
    }, ctx.config.streamKeepAliveMs);
    const close = () => {
      if (isClosed) return;
      isClosed = true;
      clearInterval(keepAlive);
      unsubscribe();
      openStreams.delete(close);
      res.end();
    };
    openStreams.add(close);
    request.raw.on('close', close);
    res.on('close', close);
  });

  const openStreams = new Set<() => void>();
  // Streams never end on their own: close them so app.close() (tests, graceful shutdown) does not hang.
  app.addHook('preClose', async () => {
    for (const close of [...openStreams]) close();
  });
}
