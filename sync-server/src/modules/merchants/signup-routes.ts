/**
 * `POST /api/signup`: a store owner signs up — a new store and its owner — and gets a staff token for the
 * owner at once. Open to anyone, so metered per client address and server-wide (429 with `Retry-After` beyond).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { perAddressQuota, rateLimitFor, type RateLimit, type RateLimitPolicy } from '../../platform/rate-limit.ts';
import { signUpSchema, type SignUpInput } from './signup.ts';
import { SHIFT_TOKEN_TTL_SECONDS } from './staff-pins.ts';

/** Sign-ups per client address: 5 an hour. */
export const SIGNUP_RATE_LIMIT: RateLimitPolicy = { name: 'signup', quota: 5, windowSeconds: 3600 };
/** Sign-ups for the whole server: 100 an hour, so many addresses cannot flood it either. */
export const SIGNUP_GLOBAL_RATE_LIMIT: RateLimitPolicy = { name: 'signup-global', quota: 100, windowSeconds: 3600 };

const signUpResponse = z.strictObject({
  merchantId: z.string(),
  staffId: z.string().describe("The owner's staff id."),
  staffToken: z
    .string()
    .describe(`Staff ID token of the owner (${SHIFT_TOKEN_TTL_SECONDS / 3600} h); the register and back office also sign in with the PIN.`),
  expiresAt: z.string(),
});

/** The workflow the route needs (workflows/merchant-signup.ts), handed in by app.ts. */
export interface SignUpWorkflows {
  signUpMerchant(ctx: AppContext, input: SignUpInput): Promise<{ merchantId: string; staffId: string }>;
}

/** Registers `POST /api/signup`. `limits` replaces the quotas (tests). */
export function registerSignUpRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  workflows: SignUpWorkflows,
  limits?: { perClient?: RateLimit; global?: RateLimit },
): void {
  const quota = perAddressQuota(
    limits?.perClient ?? rateLimitFor(ctx.db, SIGNUP_RATE_LIMIT),
    limits?.global ?? rateLimitFor(ctx.db, SIGNUP_GLOBAL_RATE_LIMIT),
    [SIGNUP_RATE_LIMIT, SIGNUP_GLOBAL_RATE_LIMIT],
  );

  app.post(
    '/api/signup',
    {
      onRequest: quota,
      config: {
        openapi: {
          summary: 'Sign up a new store and its owner',
          description:
            'Creates a store (not the demo: money movement runs to the end on the sandbox adapters) with its chart of accounts, ' +
            'default location and owner (role owner, with the PIN given), and answers a staff token for the owner. The catalog ' +
            'starts empty. No authentication; 5 sign-ups an hour per client address and 100 an hour in all (429 beyond).',
          tags: ['merchants'],
          body: signUpSchema,
          response: signUpResponse,
          status: 201,
          errors: { 429: 'Too many sign-ups from this address or in all (`rate_limited`)' },
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const input = parseOrThrow(signUpSchema, request.body ?? undefined);
      const made = await workflows.signUpMerchant(ctx, input);
      const now = ctx.clock();
      const staffToken = await ctx.idp.issueStaffToken(
        { staffId: made.staffId, merchantId: made.merchantId, role: 'owner' },
        { ttlSeconds: SHIFT_TOKEN_TTL_SECONDS, now },
      );
      reply.code(201);
      return { ...made, staffToken, expiresAt: new Date(now.getTime() + SHIFT_TOKEN_TTL_SECONDS * 1000).toISOString() };
    },
  );
}
