import { z } from 'zod';
import type { Queryable } from '../platform/db/db.ts';
import { hydrateJournalTransactions } from '../kernel/ledger.ts';
import { mutation, type MutationActor } from '../kernel/mutation.ts';
import type { AppContext } from '../platform/context.ts';
import { OptimisticWriteRefused, storeRegisterSales, type WriteMode } from '../workflows/register-sale.ts';
import { storeShiftDocuments } from '../workflows/shift-closeout.ts';
import { storeRegisterReturns } from '../workflows/register-return.ts';
import { storeCustomerPush } from '../workflows/register-customer.ts';
import { maxCustomerSeq, pullCustomers } from '../modules/customers/index.ts';
import { storeCheckDocuments, type OverpaymentFlag } from '../modules/checks/index.ts';
import { CHECK_COLLECTIONS, type CheckCollection } from '../../../core/index.ts';
import { quarantine } from './quarantine.ts';
import type { FastifyInstance } from 'fastify';
import { authorize, guard, principalOf } from '../platform/auth/guard.ts';
import { AuthError, callerOf } from '../platform/auth/identity.ts';
import { isRegisterLive, issueStreamTicket, redeemStreamTicket, STREAM_TICKET_TTL_MS } from '../platform/auth/stream-tickets.ts';
import { parseOrThrow, ProblemError } from '../platform/http/problem.ts';
import type { RouteDoc } from '../platform/http/route-doc.ts';
import { registerRegisterReceiptRoutes } from './register-receipts.ts';

/**
 * RxDB replication endpoints: pull by server sequence, push with content-based conflicts, quarantine of
 * invalid documents. Catalog and tax rates are server-authoritative (pull only); orders are register-authored and
 * append-only; journal transactions are derived by the server from the orders it stores (pull only); a restaurant's
 * open checks (`checks`, `check-lines`, `check-payments`) are edited by every register and joined, not overwritten.
 */
export const COLLECTIONS = [
  'catalog-items',
  'tax-rates',
  'orders',
  'journal-transactions',
  'shifts',
  'cash-movements',
  'shift-closeouts',
  'returns',
  'customers',
  'checks',
  'check-lines',
  'check-payments',
] as const;
export type Collection = (typeof COLLECTIONS)[number];
/** Register-authored collections. Journal transactions are derived by the server from the orders: pull only. */
export const PUSHABLE: readonly Collection[] = [
  'orders',
  'shifts',
  'cash-movements',
  'shift-closeouts',
  'returns',
  'customers',
  ...CHECK_COLLECTIONS,
];
/** Register-authored shift documents (core/shifts.ts), stored by workflows/shift-closeout.ts. */
const SHIFT_COLLECTIONS: readonly Collection[] = ['shifts', 'cash-movements', 'shift-closeouts'];
export const MAX_PUSH_ROWS = 500;

function isCheckCollection(collection: Collection): collection is CheckCollection {
  return (CHECK_COLLECTIONS as readonly string[]).includes(collection);
}
/** The collections a register pushes. */
export type PushableCollection = 'orders' | 'shifts' | 'cash-movements' | 'shift-closeouts' | 'returns' | 'customers' | CheckCollection;

/** A replicated document: core-shaped data plus server stamps and RxDB's deletion flag. */
export type SyncDocument = Record<string, unknown> & { updatedAt: string; syncSeq: number; _deleted: boolean };

export interface PullResult {
  documents: SyncDocument[];
  checkpoint: { seq: number } | null;
}

/** Fields a register may send that are not part of the core shape (server stamps, RxDB internals, our rejection). */
const CLIENT_ONLY_FIELDS = ['_deleted', 'updatedAt', 'syncSeq', '_meta', '_rev', '_attachments', 'rejection'];

function stripClientFields(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!CLIENT_ONLY_FIELDS.includes(k)) out[k] = v;
  return out;
}

export const pushBodySchema = z
  .array(
    z.strictObject({
      assumedMasterState: z.record(z.string(), z.unknown()).nullable().optional(),
      newDocumentState: z.record(z.string(), z.unknown()),
    }),
  )
  .max(MAX_PUSH_ROWS);
export type PushRow = z.infer<typeof pushBodySchema>[number];

interface DataRow {
  data: Record<string, unknown>;
  sync_seq: number | string;
  updated_at: Date;
  deleted?: boolean;
}

function toDocument(row: DataRow): SyncDocument {
  return { ...row.data, updatedAt: new Date(row.updated_at).toISOString(), syncSeq: Number(row.sync_seq), _deleted: row.deleted ?? false };
}

const TABLE: Record<Exclude<Collection, 'journal-transactions' | 'customers'>, string> = {
  'catalog-items': 'catalog_items',
  'tax-rates': 'tax_rates',
  orders: 'orders',
  shifts: 'shifts',
  'cash-movements': 'cash_movements',
  'shift-closeouts': 'shift_closeouts',
  returns: 'register_returns',
  checks: 'checks',
  'check-lines': 'check_lines',
  'check-payments': 'check_payments',
};

/** Documents of `collection` strictly after `seq`, in sequence order. With none, the checkpoint sent is returned. */
export async function pull(db: Queryable, merchantId: string, collection: Collection, seq: number | null, limit: number): Promise<PullResult> {
  let documents: SyncDocument[];
  if (collection === 'customers') {
    // Customers and the aliases of register customers merged into them (modules/customers/register-customers.ts).
    documents = (await pullCustomers(db, merchantId, seq ?? 0, limit)) as unknown as SyncDocument[];
  } else if (collection === 'journal-transactions') {
    const { rows } = await db.query<Parameters<typeof hydrateJournalTransactions>[1][number]>(
      'SELECT * FROM journal_transactions WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3',
      [merchantId, seq ?? 0, limit],
    );
    documents = (await hydrateJournalTransactions(db, rows)).map((jt) => ({ ...jt, _deleted: false }));
  } else {
    const deleted =
      collection === 'orders' || collection === 'returns' || SHIFT_COLLECTIONS.includes(collection) || isCheckCollection(collection)
        ? 'false AS deleted'
        : 'deleted';
    const { rows } = await db.query<DataRow>(
      `SELECT data, sync_seq, updated_at, ${deleted} FROM ${TABLE[collection]} WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3`,
      [merchantId, seq ?? 0, limit],
    );
    documents = rows.map(toDocument);
  }
  const last = documents.at(-1);
  return { documents, checkpoint: last ? { seq: last.syncSeq } : seq === null ? null : { seq } };
}

/** The highest sequence of the merchant's documents in `collection` (0 when none). */
export async function maxSeq(db: Queryable, merchantId: string, collection: Collection): Promise<number> {
  if (collection === 'customers') return maxCustomerSeq(db, merchantId);
  const table = collection === 'journal-transactions' ? 'journal_transactions' : TABLE[collection];
  const { rows } = await db.query<{ seq: number | string | null }>(`SELECT MAX(sync_seq) AS seq FROM ${table} WHERE merchant_id = $1`, [merchantId]);
  return Number(rows[0]?.seq ?? 0);
}

/**
 * Applies a push of register orders in one transaction under the merchant's write lock, through the
 * register-sale workflow, which validates, price-checks and stores the sales with their derived journal transactions.
 * Refused documents are quarantined with their reason; a bad document never fails the push. The change feed hears of
 * the collections written after the commit.
 * Check payments that the push showed to have gone past their check's total are flagged in the same transaction
 * (modules/checks); `alert` hears of each after the commit (the route logs it for the store's managers).
 * @returns the conflicts to answer, in push order: master states of stored orders that differ, and refused documents
 *   marked with `rejection: { reason, at }`
 */
export async function push(
  app: Pick<AppContext, 'db' | 'clock' | 'feed'>,
  who: MutationActor,
  collection: PushableCollection,
  rows: PushRow[],
  alert: (flag: OverpaymentFlag) => void = () => {},
): Promise<SyncDocument[]> {
  if (collection !== 'orders') {
    const flagged: OverpaymentFlag[] = [];
    const answer = await pushOnce(app, who, collection, rows, 'isolating', flagged);
    flagged.forEach(alert);
    return answer;
  }
  // Orders are written optimistically first (no savepoint); should the database refuse anything — a statement, or the
  // ledger's balance check at COMMIT — that transaction is rolled back whole and the push written again, isolating
  // the refused sales in savepoints (workflows/register-sale.ts `WriteMode`).
  try {
    return await pushOnce(app, who, collection, rows, 'optimistic');
  } catch (err) {
    if (!(err instanceof OptimisticWriteRefused) && !isDatabaseRefusal(err)) throw err;
    return pushOnce(app, who, collection, rows, 'isolating');
  }
}

/** An error the database answered with (it carries a five-character SQLSTATE), e.g. a constraint checked at COMMIT. */
function isDatabaseRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

async function pushOnce(
  app: Pick<AppContext, 'db' | 'clock' | 'feed'>,
  who: MutationActor,
  collection: PushableCollection,
  rows: PushRow[],
  mode: WriteMode,
  flagged: OverpaymentFlag[] = [],
): Promise<SyncDocument[]> {
  return mutation(app, who, async (m) => {
    const documents = rows.map((row) => stripClientFields(row.newDocumentState));
    const outcomes =
      collection === 'orders'
        ? await storeRegisterSales(m, documents, mode)
        : collection === 'returns'
          ? await storeRegisterReturns(m, documents)
          : collection === 'customers'
            ? await storeCustomerPush(m, documents)
            : isCheckCollection(collection)
              ? await storeCheckDocuments(m, collection, documents, flagged)
              : await storeShiftDocuments(m, collection, documents);
    const refused = outcomes.flatMap((o, i) =>
      o.kind === 'rejected' ? [{ index: i, data: documents[i]!, reason: o.reason, registerId: o.registerId }] : [],
    );
    const kept = await quarantine(m, collection, refused);
    const rejections = new Map(refused.map((r, k) => [r.index, kept[k]!]));
    return outcomes.flatMap((o, i): SyncDocument[] => {
      if (o.kind === 'master') return [{ ...o.stored.data, updatedAt: o.stored.updatedAt, syncSeq: o.stored.syncSeq, _deleted: false }];
      // A register customer merged into an existing one: its alias, so the register re-points at once.
      if (o.kind === 'merged') return [{ ...o.alias, _deleted: false }];
      const q = rejections.get(i);
      return q ? [{ ...q.data, rejection: { reason: q.reason, at: q.at }, updatedAt: q.at, syncSeq: 0, _deleted: false }] : [];
    });
  });
}

const collectionParams = z.strictObject({ collection: z.enum(COLLECTIONS) });
const pullQuery = z.strictObject({
  seq: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
const streamQuery = z.strictObject({ ticket: z.string().min(1).max(100).optional() });
const streamTicketResponse = z.strictObject({ ticket: z.string().describe('`sst_…`: open the stream with `?ticket=` once'), expiresAt: z.string() });
/** A replicated document: the core shape plus `updatedAt`, `syncSeq`, `_deleted` (and `rejection` when quarantined). */
const replicatedDocument = z
  .record(z.string(), z.unknown())
  .describe(
    "Core shape (order, journal transaction, catalog item, tax rate, customer — or a merged customer's alias `{ id, mergedInto }`) + updatedAt, syncSeq, _deleted",
  );
const pullResponse = z.strictObject({ documents: z.array(replicatedDocument), checkpoint: z.strictObject({ seq: z.int() }).nullable() });
const syncErrors = { 404: 'Unknown collection (`unknown_collection`)', 426: 'Register schema too old (`register_too_old`)' };

function collectionOf(params: unknown): Collection {
  const result = collectionParams.safeParse(params);
  if (!result.success) {
    throw new ProblemError(404, 'unknown_collection', `No such replicated collection; use one of ${COLLECTIONS.join(', ')}.`);
  }
  return result.data.collection;
}

/**
 * Replication endpoints for RxDB, for staff and paired registers (a register pushes only its own
 * sales); the stream takes a single-use ticket; and the registers' receipt numbers (register-receipts.ts).
 */
export function registerSyncRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerRegisterReceiptRoutes(app, ctx);
  app.get(
    '/api/sync/:collection/pull',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Pull replicated documents after a checkpoint',
          description: "The merchant's documents with `syncSeq > seq`, in sequence order; fewer than `limit` means caught up.",
          tags: ['sync'],
          access: 'register',
          params: collectionParams,
          query: pullQuery,
          response: pullResponse,
          errors: syncErrors,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const collection = collectionOf(request.params);
      const q = parseOrThrow(pullQuery, request.query, '(query)');
      return pull(ctx.db, principalOf(request).merchantId, collection, q.seq ?? null, q.limit);
    },
  );

  app.post(
    '/api/sync/:collection/push',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Push register-authored documents',
          description:
            'One transaction, idempotent by content. Answers the conflicts: master states of documents that differ, and ' +
            'refused documents (kept in quarantine) marked with `rejection`. `orders` only: the server derives each ' +
            "sale's journal transaction (`journal-transactions` is pull-only, like the catalog). `shifts`, `cash-movements`, " +
            '`shift-closeouts` (core/shifts.ts): a paid in/out posts to the drawer, a closeout its over/short; a closed business day takes no more. ' +
            '`customers` (core `registerCustomerSchema`): a customer created at the register; one whose phone or e-mail another customer has is merged into it ' +
            '(answered as its alias `{ id, mergedInto }`; the orders naming it are re-pointed). ' +
            'Pushes are idempotent by document id and content, so no Idempotency-Key is needed. A register credential pushes ' +
            "only its own register's documents (403 `other_register`).",
          tags: ['sync'],
          access: 'register',
          params: collectionParams,
          body: pushBodySchema,
          response: z.array(replicatedDocument),
          idempotent: false,
          errors: {
            ...syncErrors,
            403: "A register pushing another register's document (`other_register`)",
            405: 'Pull-only collection (`read_only_collection`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const collection = collectionOf(request.params);
      if (!PUSHABLE.includes(collection)) {
        reply.header('Allow', 'GET');
        throw new ProblemError(405, 'read_only_collection', `${collection} is server-authoritative: pull only (edit it through the API).`);
      }
      const rows = parseOrThrow(pushBodySchema, request.body);
      const principal = principalOf(request);
      if (principal.kind === 'register') await assertOwnDocuments(ctx, rows, principal);
      return push(ctx, { merchantId: principal.merchantId, actor: callerOf(principal) }, collection as PushableCollection, rows, (flag) =>
        request.log.warn(
          { alert: 'check.overpaid', merchantId: principal.merchantId, ...flag },
          'a check was paid past its total (paid on two registers apart): the later payment is flagged for refund',
        ),
      );
    },
  );

  app.post(
    '/api/sync/stream-tickets',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Get a single-use ticket for a replication stream',
          description: `EventSource cannot send an Authorization header: open \`/api/sync/{collection}/stream?ticket=\` with this ticket within ${STREAM_TICKET_TTL_MS / 1000} seconds. It opens one stream, once.`,
          tags: ['sync'],
          access: 'register',
          body: z.strictObject({}),
          response: streamTicketResponse,
          status: 201,
          idempotent: false,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      parseOrThrow(z.strictObject({}), request.body === undefined ? {} : request.body);
      reply.code(201);
      return issueStreamTicket(ctx.db, principalOf(request), ctx.clock());
    },
  );

  app.get(
    '/api/sync/:collection/stream',
    {
      config: {
        openapi: {
          summary: 'Stream replicated documents (server-sent events)',
          description:
            'text/event-stream: `data: "RESYNC"` on connect, then `data: { documents, checkpoint }` after each committed write ' +
            '(the `checks` stream also sends `data: "RESYNC"` after a write to `check-lines` or `check-payments`: pull those then). ' +
            'EventSource cannot send headers, so the caller authenticates with a single-use `?ticket=` from `POST /api/sync/stream-tickets` ' +
            '(no token ever travels in the URL).',
          tags: ['sync'],
          access: 'register',
          params: collectionParams,
          query: streamQuery,
          produces: ['text/event-stream'],
          errors: syncErrors,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const collection = collectionOf(request.params);
      const { ticket } = parseOrThrow(streamQuery, request.query, '(query)');
      const principal = await principalOfTicket(ticket);
      authorize(principal, 'register');
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
      const unsubscribeOwn = ctx.feed.subscribe(merchantId, collection, () => {
        chain = chain.then(drain).catch((err: unknown) => {
          request.log.warn({ err }, 'sync stream: pull failed; asking the client to resync');
          if (!isClosed) res.write(`data: "RESYNC"\n\n`);
        });
      });
      // A restaurant register opens one stream for its open checks (the browser's connections per host are few):
      // the `checks` stream also says RESYNC when a line or a payment was written, and the register pulls all three.
      const siblings = collection === 'checks' ? CHECK_COLLECTIONS.filter((c) => c !== 'checks') : [];
      const unsubscribeSiblings = siblings.map((sibling) =>
        ctx.feed.subscribe(merchantId, sibling, () => {
          if (!isClosed) res.write(`data: "RESYNC"\n\n`);
        }),
      );
      const unsubscribe = () => [unsubscribeOwn, ...unsubscribeSiblings].forEach((off) => off());
      const keepAlive = setInterval(() => {
        if (isClosed) return;
        res.write(`: keep-alive\n\n`);
        // A register revoked while streaming: its stream ends at the next keep-alive (its next ticket is refused).
        if (principal.kind === 'register') {
          isRegisterLive(ctx.db, principal.registerId).then(
            (live) => live || close(),
            () => undefined,
          );
        }
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
    },
  );

  /** @throws ProblemError 401 when the ticket is missing, unknown, used or expired. */
  const principalOfTicket = async (ticket: string | undefined) => {
    const challenge = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };
    if (!ticket) throw new ProblemError(401, 'unauthorized', 'This stream needs ?ticket= from POST /api/sync/stream-tickets.', undefined, challenge);
    try {
      return await redeemStreamTicket(ctx.db, ticket, ctx.clock());
    } catch (err) {
      if (err instanceof AuthError) throw new ProblemError(401, 'invalid_token', err.message, undefined, challenge);
      throw err;
    }
  };

  const openStreams = new Set<() => void>();
  // Streams never end on their own: close them so app.close() (tests, graceful shutdown) does not hang.
  app.addHook('preClose', async () => {
    for (const close of [...openStreams]) close();
  });
}

/**
 * A register credential pushes its own register's documents only: a document naming another register of the store is
 * refused (an unknown register id is left to the push, which quarantines it like any invalid document).
 * @throws ProblemError 403 `other_register` naming the first such document (`[i].newDocumentState.registerId`).
 */
async function assertOwnDocuments(
  ctx: AppContext,
  rows: readonly { newDocumentState: unknown }[],
  principal: { merchantId: string; registerId: string },
): Promise<void> {
  const foreign = rows
    .map((row) => (row.newDocumentState as { registerId?: unknown } | null)?.registerId)
    .map((id, index) => ({ id, index }))
    .filter((d): d is { id: string; index: number } => typeof d.id === 'string' && d.id !== principal.registerId);
  if (foreign.length === 0) return;
  const known = new Set(
    (
      await ctx.db.query<{ id: string }>('SELECT id FROM registers WHERE merchant_id = $1 AND id = ANY($2)', [
        principal.merchantId,
        [...new Set(foreign.map((d) => d.id))],
      ])
    ).rows.map((r) => r.id),
  );
  const first = foreign.find((d) => known.has(d.id));
  if (first) {
    throw new ProblemError(403, 'other_register', `Document ${first.index} belongs to another register: a register pushes its own sales only.`, [
      { path: `[${first.index}].newDocumentState.registerId`, message: "must be this register's id" },
    ]);
  }
}
