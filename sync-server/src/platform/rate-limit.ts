import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from './db/db.ts';

/**
 * Rate limiting with the IETF draft's header fields (draft-ietf-httpapi-ratelimit-headers-10):
 *
 *     RateLimit-Policy: "app";q=120;w=60
 *     RateLimit: "app";r=<remaining>;t=<seconds until the window resets>
 *     RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset   (the older fields many clients still read)
 *
 * and, once the quota is used up, 429 with `Retry-After` and a `quota-exceeded` problem naming the violated policy.
 */

/** One quota policy: `quota` requests per `windowSeconds`, partitioned by the key passed to {@link RateLimit.take}. */
export interface RateLimitPolicy {
  /** Policy name as it appears in the header fields, e.g. `app`. */
  name: string;
  quota: number;
  windowSeconds: number;
}

/** The outcome of taking one unit of quota. */
export interface RateLimitDecision {
  allowed: boolean;
  policy: RateLimitPolicy;
  remaining: number;
  /** Whole seconds until quota becomes available again (≥ 1 when not allowed). */
  resetSeconds: number;
}

/** The header fields for a decision, ready to set on any response (2xx or error alike). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const { policy, remaining, resetSeconds } = decision;
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${remaining};t=${resetSeconds}`,
    'RateLimit-Limit': String(policy.quota),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(resetSeconds),
  };
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, resetSeconds));
  return headers;
}

/** The RFC 9457 body of a 429 (problem type from the draft's §5.1, with its `violated-policies` member). */
export function quotaExceededProblem(decision: RateLimitDecision): Record<string, unknown> {
  return {
    type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
    title: 'Request cannot be satisfied as assigned quota has been exceeded',
    status: 429,
    code: 'quota_exceeded',
    detail: `The "${decision.policy.name}" policy allows ${decision.policy.quota} requests per ${decision.policy.windowSeconds} s; retry in ${Math.max(1, decision.resetSeconds)} s.`,
    'violated-policies': [decision.policy.name],
  };
}

const METERED = Symbol.for('register.rateLimitPolicies');

/**
 * Marks `hook` (a route's onRequest or preHandler) as taking quota from `policies`, and returns it. The route
 * recorder (http/route-doc.ts) reads the mark, so the OpenAPI document states the 429 and the rate-limit header
 * fields of exactly the routes whose hooks meter — derived from how limits are applied, never listed by hand.
 */
export function metered<H extends object>(hook: H, policies: readonly RateLimitPolicy[]): H {
  Object.defineProperty(hook, METERED, { value: [...policies], enumerable: false });
  return hook;
}

/**
 * An onRequest hook for routes open to anyone (pairing, sign-ups): one unit of `perClient` keyed by the client's
 * address, then one of `global` (the whole server, so many addresses cannot flood it either); 429 with the
 * `quota-exceeded` problem and `Retry-After` when either is used up. {@link metered} with `policies` (the routes'
 * documented policies, which stay the same when a test hands in roomier limits).
 */
export function perAddressQuota(perClient: RateLimit, global: RateLimit, policies: readonly RateLimitPolicy[]) {
  return metered(async (request: FastifyRequest, reply: FastifyReply) => {
    for (const [limit, key] of [
      [perClient, request.ip],
      [global, 'all'],
    ] as const) {
      const decision = await limit.take(key);
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) return reply.code(429).type('application/problem+json').send(quotaExceededProblem(decision));
    }
  }, policies);
}

/** The policies a hook (or an array of hooks) was {@link metered} with; empty when it meters nothing. */
export function meteringOf(hooks: unknown): RateLimitPolicy[] {
  const list = Array.isArray(hooks) ? hooks : [hooks];
  const out: RateLimitPolicy[] = [];
  for (const hook of list) {
    const policies =
      hook && (typeof hook === 'function' || typeof hook === 'object')
        ? ((hook as Record<symbol, unknown>)[METERED] as RateLimitPolicy[] | undefined)
        : undefined;
    for (const policy of policies ?? []) if (!out.some((p) => p.name === policy.name)) out.push(policy);
  }
  return out;
}

/**
 * A fixed-window limiter over `rate-limiter-flexible`. The default store is in memory (one process — right for the
 * embedded PGlite set-up); pass another `RateLimiterAbstract` (e.g. `RateLimiterPostgres`) to share quota between
 * several server instances.
 */
export class RateLimit {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    readonly policy: RateLimitPolicy,
    limiter?: RateLimiterAbstract,
  ) {
    this.limiter = limiter ?? new RateLimiterMemory({ keyPrefix: `rl_${policy.name}`, points: policy.quota, duration: policy.windowSeconds });
  }

  /** Takes one unit of quota from partition `key` (e.g. `merchantId:appId`). Never throws for an exhausted quota. */
  async take(key: string): Promise<RateLimitDecision> {
    try {
      const res = await this.limiter.consume(key, 1);
      return this.decision(true, res);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.decision(false, rejection);
      throw rejection; // a store failure, not a limit
    }
  }

  private decision(allowed: boolean, res: RateLimiterRes): RateLimitDecision {
    return {
      allowed,
      policy: this.policy,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }
}

/** The table the PostgreSQL store keeps its counters in (migration 0083_rate_limits.sql). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * The limiter for `policy` that suits `db`: on PostgreSQL, `RateLimiterPostgres` over the
 * server's own database, so every instance on it spends one quota (counters in {@link RATE_LIMIT_TABLE}, one atomic
 * upsert per request, expired rows cleared every 5 minutes); should that store fail, a per-instance memory limiter
 * stands in (the library's insurance) rather than a 500. On PGlite — one process — the memory store.
 */
export function rateLimitFor(db: Db, policy: RateLimitPolicy): RateLimit {
  const memory = () => new RateLimiterMemory({ keyPrefix: `rl_${policy.name}`, points: policy.quota, duration: policy.windowSeconds });
  if (db.engine !== 'postgres') return new RateLimit(policy, memory());
  // The library sends `{ name, text, values }` query objects; ours takes text and values (named statements unneeded).
  const storeClient = { query: (q: { text: string; values?: unknown[] }) => db.query(q.text, q.values ?? []) };
  const limiter = new RateLimiterPostgres({
    storeClient,
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix: `rl_${policy.name}`,
    points: policy.quota,
    duration: policy.windowSeconds,
    insuranceLimiter: memory(),
  });
  return new RateLimit(policy, limiter);
}
