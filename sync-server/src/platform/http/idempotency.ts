import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalJson } from '../../../../core/index.ts';
import { commitHooks, type Db, type Queryable } from '../db/db.ts';
import { callerOf } from '../auth/identity.ts';
import { ProblemError } from './problem.ts';
import { SecretBoxError, secretBox } from '../secrets.ts';

/**
 * `Idempotency-Key` on POSTs. The first response (status < 500) is stored for 24 h per
 * (merchant, caller, key) with a SHA-256 of method, path and body; a replay returns it with `Idempotent-Replayed: true`.
 * The same key with another request → 422; while the first request is still running → 409. A 5xx (a bug, or the
 * database failing) forgets the key so the client can retry — unless the request's work had already committed.
 *
 * States of a key: `in_flight` (claimed) → `committed` (a transaction of the request committed: marked inside that
 * very transaction, through the database's commit hook) → `completed` (the answer is stored). A request that dies
 * between its commit and its stored answer (a crash, the database gone for a moment) leaves `committed`: a retry is
 * then refused — 409 `idempotency_in_flight`, and after {@link IN_FLIGHT_TIMEOUT_MS} 409 `idempotency_response_lost`
 * — instead of doing the work a second time. Only a key still `in_flight` (nothing committed) is taken over.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A key left `in_flight` longer than this belongs to a crashed request and may be taken over. */
export const IN_FLIGHT_TIMEOUT_MS = 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface RouteResult {
  status: number;
  body: unknown;
  /**
   * What a replay answers instead, when `body` carries a secret shown once (a token, a one-time ticket): only this is
   * stored in `idempotency_keys`, never the secret.
   */
  replay?: { status: number; body: unknown };
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<RouteResult>;

/** What the `idempotency_keys.key` column holds for a key the client sent: its SHA-256, hex (64 characters). */
export function keyDigest(sent: string): string {
  return createHash('sha256').update(sent).digest('hex');
}

/** SHA-256 of method, path (no query) and the canonical JSON of the body: what a key's replay must match. */
export function idempotencyRequestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

function requestHash(request: FastifyRequest): string {
  return idempotencyRequestHash(request.method, request.url.split('?')[0] ?? request.url, request.body);
}

/** Wraps a POST handler that returns `{ status, body }` with idempotency-key handling. The route must be guarded. */
export function idempotent(db: Db, clock: () => Date, handler: Handler) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const raw = request.headers['idempotency-key'];
    if (raw === undefined) {
      const result = await handler(request, reply);
      return reply.code(result.status).send(result.body);
    }
    const sent = Array.isArray(raw) ? raw[0] : raw;
    if (!sent || !KEY_PATTERN.test(sent)) {
      throw new ProblemError(400, 'validation_error', 'Invalid Idempotency-Key: use 1 to 255 visible ASCII characters.', [
        { path: 'Idempotency-Key', message: 'must be 1–255 visible ASCII characters' },
      ]);
    }
    // Stored as its SHA-256 only: whatever a client puts in its keys (a timestamp, an order number, even a card number
    // typed by mistake) never reaches the database, and no key is refused for looking like a card number.
    const key = keyDigest(sent);
    const principal = request.principal!;
    const caller = callerOf(principal);
    const hash = requestHash(request);
    const now = clock();
    const staleBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString();
    const abandonedBefore = new Date(now.getTime() - IN_FLIGHT_TIMEOUT_MS).toISOString();

    // Expired keys, and in-flight keys of crashed requests, are free again.
    await db.query(
      `DELETE FROM idempotency_keys WHERE merchant_id = $1 AND caller = $2 AND key = $3
       AND (created_at < $4 OR (state = 'in_flight' AND created_at < $5))`,
      [principal.merchantId, caller, key, staleBefore, abandonedBefore],
    );
    const claimed = await db.query(
      `INSERT INTO idempotency_keys (merchant_id, caller, key, request_hash, state, created_at)
       VALUES ($1, $2, $3, $4, 'in_flight', $5) ON CONFLICT DO NOTHING RETURNING key`,
      [principal.merchantId, caller, key, hash, now.toISOString()],
    );
    if (claimed.rows.length === 0) {
      const { rows } = await db.query<{ request_hash: string; state: string; response_status: number; response_body: unknown; created_at: Date }>(
        'SELECT request_hash, state, response_status, response_body, created_at FROM idempotency_keys WHERE merchant_id = $1 AND caller = $2 AND key = $3',
        [principal.merchantId, caller, key],
      );
      const stored = rows[0];
      if (!stored) throw new ProblemError(409, 'idempotency_in_flight', 'A request with this Idempotency-Key is being processed; retry shortly.');
      if (stored.request_hash !== hash) {
        throw new ProblemError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request (method, path or body).',
        );
      }
      if (stored.state === 'committed' && new Date(stored.created_at).toISOString() < abandonedBefore) {
        throw new ProblemError(
          409,
          'idempotency_response_lost',
          'The request with this Idempotency-Key was carried out, but the server stopped before it could answer. It will not be carried out again: look the result up (list or get the resource) instead of retrying.',
        );
      }
      if (stored.state !== 'completed') {
        throw new ProblemError(409, 'idempotency_in_flight', 'A request with this Idempotency-Key is still being processed; retry shortly.');
      }
      const body = openStoredAnswer(stored.response_body, principal.merchantId, caller, key);
      reply.header('Idempotent-Replayed', 'true');
      const status = Number(stored.response_status);
      if (status >= 400) reply.type('application/problem+json');
      return reply.code(status).send(body);
    }

    const claim = [principal.merchantId, caller, key] as const;
    let result: RouteResult;
    try {
      result = await commitHooks.run(
        (tx) => markKeyCommitted(tx, ...claim),
        () => handler(request, reply),
      );
    } catch (err) {
      if (err instanceof ProblemError && err.status < 500) {
        result = { status: err.status, body: err.toProblem() };
        await complete(db, principal.merchantId, caller, key, result);
        throw err;
      }
      // Nothing committed: the key is free for a retry. Committed work keeps its key, so a retry cannot repeat it.
      await db.query(`DELETE FROM idempotency_keys WHERE merchant_id = $1 AND caller = $2 AND key = $3 AND state = 'in_flight'`, [...claim]);
      throw err;
    }
    await complete(db, principal.merchantId, caller, key, result);
    return reply.code(result.status).send(result.body);
  };
}

/**
 * The commit hook of an idempotent request (see the top of this file): inside transaction `tx`, just before it commits,
 * marks the key `committed` — only when `tx` wrote something (PostgreSQL assigns a transaction id on the first write:
 * `txid_current_if_assigned()` is null for a transaction that only read), so a request that merely read and then
 * failed still frees its key for a retry.
 */
export async function markKeyCommitted(tx: Queryable, merchantId: string, caller: string, key: string): Promise<void> {
  const { rows } = await tx.query<{ xid: string | number | null }>('SELECT txid_current_if_assigned() AS xid');
  if (rows[0]?.xid === null || rows[0]?.xid === undefined) return;
  await tx.query(`UPDATE idempotency_keys SET state = 'committed' WHERE merchant_id = $1 AND caller = $2 AND key = $3 AND state = 'in_flight'`, [
    merchantId,
    caller,
    key,
  ]);
}

/** The row a stored answer is sealed for (AES-GCM additional data): it opens for that merchant, caller and key only. */
function answerContext(merchantId: string, caller: string, key: string): string {
  return `idempotency_keys:${merchantId}:${caller}:${key}`;
}

/**
 * Stores the answer a replay gives. Every stored answer is sealed with the key-encryption key (platform/secrets.ts,
 * `kek1.…`, a JSON string in `response_body`): an answer may carry a secret the caller needs again on a replay — a
 * webhook signing secret (`whsec_…`) on create or `rotate-secret`, a pairing code — and sealing all of them means no
 * route has to be listed for a dump to hold none. Secrets shown once (tokens, tickets) are not stored at all (`replay`).
 */
async function complete(db: Db, merchantId: string, caller: string, key: string, result: RouteResult): Promise<void> {
  const answer = JSON.stringify((result.replay ? result.replay.body : result.body) ?? null);
  await db.query(
    `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_body = $5::jsonb
     WHERE merchant_id = $1 AND caller = $2 AND key = $3`,
    [
      merchantId,
      caller,
      key,
      result.replay?.status ?? result.status,
      JSON.stringify(secretBox().seal(answer, answerContext(merchantId, caller, key))),
    ],
  );
}

/**
 * The stored answer of a key, opened: a sealed one (`kek1.…`) with the key-encryption key; one stored in clear by an
 * older server as it is. @throws ProblemError 409 `idempotency_response_lost` when it does not open (another KEK).
 */
function openStoredAnswer(stored: unknown, merchantId: string, caller: string, key: string): unknown {
  if (typeof stored !== 'string' || !stored.startsWith('kek1.')) return stored;
  try {
    return JSON.parse(secretBox().open(stored, answerContext(merchantId, caller, key)));
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new ProblemError(
      409,
      'idempotency_response_lost',
      "The request with this Idempotency-Key was carried out, but its stored answer cannot be read (the server's key-encryption key changed). It will not be carried out again: look the result up instead of retrying.",
    );
  }
}

/**
 * Housekeeping (the scheduler's tick): deletes the keys older than the {@link IDEMPOTENCY_TTL_MS} they are kept,
 * answered or abandoned in flight, so the table holds one day of keys rather than every key ever sent. A key is
 * checked for age when it is used again anyway; this only reclaims the space. Returns how many rows went.
 */
export async function purgeIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: number | string }>(
    `WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone`,
    [new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString()],
  );
  return Number(rows[0]?.n ?? 0);
}
