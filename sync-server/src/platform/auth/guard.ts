import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ProblemError, sendProblem, type Problem } from '../http/problem.ts';
import { metered, quotaExceededProblem, rateLimitHeaders } from '../rate-limit.ts';
import { AuthError, REGISTER_CREDENTIAL_PREFIX, verifyAppToken, verifyRegisterCredential, type AppScope, type Principal } from './identity.ts';
import type { AppContext } from '../context.ts';
import { staffOfExternalToken } from './external-oidc.ts';
import { requiredRole, roleAtLeast } from './permissions.ts';

/**
 * Who may call a route: `'staff'` — merchant staff only; `'register'` — staff, or a paired register's
 * credential (syncing and selling: the replication routes and what the register screen reads); `{ scope }` — staff,
 * or an app token holding that scope. No or bad token → 401; an app without the scope, an app on a staff or register
 * route, or a register credential anywhere but a register route → 403.
 */
export type Access = 'staff' | 'register' | { scope: AppScope };

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m)
      throw new ProblemError(401, 'unauthorized', 'The Authorization header must be "Bearer <token>".', undefined, { 'WWW-Authenticate': 'Bearer' });
    return m[1];
  }
  return undefined;
}

/**
 * The caller of `request` from its `Authorization: Bearer` header only (never the URL: SSE streams take a single-use
 * ticket instead, stream-tickets.ts): staff JWT, app token, OAuth access token of an installed app or register credential.
 * @throws ProblemError 401 when the header is missing, malformed or names no valid token.
 */
export async function authenticate(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const token = bearerOf(request);
  if (!token)
    throw new ProblemError(401, 'unauthorized', 'This endpoint needs Authorization: Bearer <token>.', undefined, { 'WWW-Authenticate': 'Bearer' });
  try {
    if (token.startsWith('rpa_')) return await verifyAppToken(ctx.db, token, ctx.clock());
    if (token.startsWith(REGISTER_CREDENTIAL_PREFIX)) return await verifyRegisterCredential(ctx.db, token);
    // An opaque OAuth 2.0 access token of an external integration (JWTs always have dots).
    if (ctx.oauthAccessToken && !token.includes('.')) {
      const principal = await ctx.oauthAccessToken(token, ctx.clock());
      if (principal) return principal;
      throw new AuthError('the access token is unknown, expired or revoked, or its app is no longer installed');
    }
    if (ctx.externalIssuer?.claims(token)) {
      const now = ctx.clock();
      return await staffOfExternalToken(ctx.db, ctx.externalIssuer.issuer, await ctx.externalIssuer.verify(token, now), now);
    }
    return await ctx.idp.verifyStaffToken(token, ctx.clock());
  } catch (err) {
    if (err instanceof AuthError) {
      throw new ProblemError(401, 'invalid_token', err.message, undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    throw err;
  }
}

/** @throws ProblemError 403 (`staff_only`, `register_not_allowed`, `insufficient_scope`) when `principal` may not call a route of `access`. */
export function authorize(principal: Principal, access: Access): void {
  if (principal.kind === 'staff') return;
  if (principal.kind === 'register') {
    if (access === 'register') return;
    throw new ProblemError(403, 'register_not_allowed', 'A register credential syncs and sells only; this endpoint needs a staff member signed in.');
  }
  if (access === 'staff' || access === 'register')
    throw new ProblemError(403, 'staff_only', 'This endpoint is for merchant staff only; app tokens cannot use it.');
  if (!principal.scopes.includes(access.scope)) {
    throw new ProblemError(403, 'insufficient_scope', `This endpoint needs the scope "${access.scope}", which the app token does not have.`);
  }
}

/**
 * Applies the permission table (`permissions.ts`) to a staff caller of the route `method url` (the Fastify pattern).
 * Apps and registers pass (their scopes / `Access` govern them).
 * @throws ProblemError 403 `role_not_allowed`, naming the role needed, when the staff member's role is below it.
 */
export function authorizeRole(principal: Principal, method: string, url: string): void {
  if (principal.kind !== 'staff') return;
  const needed = requiredRole(method, url);
  if (!roleAtLeast(principal.role, needed)) {
    throw new ProblemError(
      403,
      'role_not_allowed',
      `This needs a staff member with the role ${needed === 'owner' ? 'owner' : needed === 'manager' ? 'manager or owner' : 'cashier, manager or owner'}; you are signed in as ${principal.role}.`,
    );
  }
}

/**
 * An onRequest hook (runs before the body is read) that authenticates, authorises and sets `request.principal`. App
 * tokens take one unit of the app quota (`ctx.appRateLimit`) first — on staff-only routes too — so the hook is
 * {@link metered} with that policy and the OpenAPI document lists the 429 wherever a guard runs.
 */
export function guard(ctx: AppContext, access: Access): onRequestAsyncHookHandler {
  return metered(
    async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = await authenticate(ctx, request);
      request.principal = principal;
      if (principal.kind === 'app') {
        // Apps are metered per merchant and app (docs/api.md "Rate limit (apps)"); staff are not. Headers go on every app response.
        const decision = await ctx.appRateLimit.take(`${principal.merchantId}:${principal.appId}`);
        reply.headers(rateLimitHeaders(decision));
        if (!decision.allowed) return sendProblem(reply, quotaExceededProblem(decision) as Problem);
      }
      authorize(principal, access);
      authorizeRole(principal, request.method, request.routeOptions.url ?? request.url);
    },
    [ctx.appRateLimit.policy],
  );
}

/** The authenticated principal of a guarded route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is not guarded');
  return request.principal;
}
