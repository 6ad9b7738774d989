/**
 * The developer program's HTTP routes:
 * - `POST /api/developers` — developer sign-up (public, rate-limited), answers the developer token once;
 * - `/api/developer/apps…` — a developer's own apps (developer token; another developer's app is a 404);
 * - `/api/platform/apps…` — review by platform admins (platform admin token; a merchant's owner is refused 403);
 * - `GET /api/pos/app-directory` — listed apps for merchant staff.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { APP_FORMS, APP_REQUEST_SCOPES, APP_REVIEWED_FIELDS, APP_STATUSES, type AppReviewAction } from '../../../../core/index.ts';
import type { AppContext } from '../../platform/context.ts';
import { guard } from '../../platform/auth/guard.ts';
import { parseEmptyBody, parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { perAddressQuota, rateLimitFor, type RateLimit, type RateLimitPolicy } from '../../platform/rate-limit.ts';
import {
  appCreateSchema,
  appDirectory,
  directoryApp,
  appPatchSchema,
  createApp,
  DEVELOPER_TOKEN_PREFIX,
  developerOfToken,
  developerSignUpSchema,
  getApp,
  listDeveloperApps,
  PLATFORM_ADMIN_TOKEN_PREFIX,
  platformAdminOfToken,
  pricingSchema,
  reviewQueue,
  signUpDeveloper,
  transitionApp,
  updateApp,
} from './service.ts';

/** Developer sign-ups per client address: 5 an hour. */
export const DEVELOPER_SIGNUP_RATE_LIMIT: RateLimitPolicy = { name: 'developer-signup', quota: 5, windowSeconds: 3600 };
/** Developer sign-ups for the whole server: 100 an hour. */
export const DEVELOPER_SIGNUP_GLOBAL_RATE_LIMIT: RateLimitPolicy = { name: 'developer-signup-global', quota: 100, windowSeconds: 3600 };

declare module 'fastify' {
  interface FastifyRequest {
    /** The developer (developer routes) or platform admin (review routes) calling. */
    programCaller?: { kind: 'developer' | 'platform_admin'; id: string };
  }
}

function bearer(request: FastifyRequest): string {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!m)
    throw new ProblemError(401, 'unauthorized', 'This endpoint needs Authorization: Bearer <token>.', undefined, { 'WWW-Authenticate': 'Bearer' });
  return m[1]!;
}

const invalidToken = () =>
  new ProblemError(401, 'invalid_token', 'The token is not valid.', undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

/**
 * onRequest hook: a developer token (`rpd_…`); other valid kinds of token are 403 `developer_only`. app.ts hands it to
 * other modules' developer routes (modules/app-billing).
 */
export function developerGuard(ctx: AppContext) {
  return async (request: FastifyRequest) => {
    const token = bearer(request);
    if (!token.startsWith(DEVELOPER_TOKEN_PREFIX))
      throw new ProblemError(403, 'developer_only', 'This endpoint is for developer accounts (token from POST /api/developers).');
    const dev = await developerOfToken(ctx.db, token);
    if (!dev) throw invalidToken();
    request.programCaller = { kind: 'developer', id: dev.id };
  };
}

/** onRequest hook: a platform admin token (`rpp_…`); merchants' staff (owners too), apps and developers are 403 `platform_admin_only`. */
function platformAdminGuard(ctx: AppContext) {
  return async (request: FastifyRequest) => {
    const token = bearer(request);
    if (!token.startsWith(PLATFORM_ADMIN_TOKEN_PREFIX))
      throw new ProblemError(
        403,
        'platform_admin_only',
        "App review is for platform staff only; a merchant's staff, apps and developers cannot review.",
      );
    const admin = await platformAdminOfToken(ctx.db, token);
    if (!admin) throw invalidToken();
    request.programCaller = { kind: 'platform_admin', id: admin.id };
  };
}

const callerId = (request: FastifyRequest): string => request.programCaller!.id;

const idParams = z.strictObject({ id: z.string().min(1).max(100).describe('App id (`app_…`).') });
const scopeSchema = z.enum(APP_REQUEST_SCOPES);
const appView = z.object({
  id: z.string(),
  developerId: z.string(),
  name: z.string(),
  description: z.string(),
  form: z.enum(APP_FORMS),
  redirectUris: z.array(z.string()),
  webhookUrl: z.string().nullable(),
  scopes: z.array(scopeSchema).describe('Requested now.'),
  approvedScopes: z.array(scopeSchema).nullable().describe('Approved by the last approval: what the directory shows and an install may grant.'),
  pricing: pricingSchema.describe("The working copy's price; the directory and installs use `approved.pricing`."),
  iconUrl: z.string().nullable(),
  category: z.string(),
  launchUrl: z
    .string()
    .nullable()
    .describe('In-platform apps: the page framed inside the register; external integrations: the page that starts the connection.'),
  status: z.enum(APP_STATUSES),
  listed: z.boolean().describe('In the directory (stays true, serving `approved`, while a revision is reviewed).'),
  listedAt: z.string().nullable(),
  rejectionReasons: z.array(z.string()).nullable(),
  approved: z
    .object({
      form: z.enum(APP_FORMS),
      scopes: z.array(scopeSchema),
      redirectUris: z.array(z.string()),
      launchUrl: z.string().nullable(),
      pricing: pricingSchema,
    })
    .nullable()
    .describe(
      'The approved version (null before the first approval): what the directory, installs, subscriptions, OAuth redirect URI checks and launches use. A revision of these fields waits for review while this keeps serving.',
    ),
  changesInReview: z
    .array(z.enum(APP_REVIEWED_FIELDS))
    .describe(
      'Reviewed fields (scopes, pricing, redirectUris, launchUrl, form) in which the working copy differs from `approved`: they take effect when a reviewer approves.',
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const appWithHistory = appView.extend({
  history: z.array(
    z.object({
      actor: z.string(),
      action: z.string(),
      fromStatus: z.string().nullable(),
      toStatus: z.string(),
      data: z.record(z.string(), z.unknown()),
      occurredAt: z.string(),
    }),
  ),
});
const rejectSchema = z.strictObject({
  reasons: z.array(z.string().trim().min(1, 'must not be blank').max(1000)).min(1, 'give at least one reason').max(20),
});
const directoryQuery = z.strictObject({
  q: z.string().trim().max(100).optional().describe('Searches name, description and developer name.'),
  category: z.string().trim().max(40).optional(),
});
const directoryEntry = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  developerName: z.string(),
  form: z.enum(APP_FORMS),
  scopes: z.array(z.object({ scope: scopeSchema, explanation: z.string() })).describe('The approved scopes, in plain words.'),
  pricing: pricingSchema,
  priceCents: z.number().int().describe('Monthly price in minor units (cents); 0 = free.'),
  currency: z.string().nullable().describe('ISO 4217 currency of `priceCents`; null when free.'),
  iconUrl: z.string().nullable(),
  category: z.string(),
  launchUrl: z
    .string()
    .nullable()
    .describe('In-platform apps: the page framed inside the register; external integrations: the page that starts the connection.'),
});
const directoryResponse = z.object({
  data: z.array(directoryEntry),
  categories: z.array(z.string()).describe('Every category of listed apps (for the filter).'),
});
const STATE_409 = { 409: "Not allowed in the app's review state (`illegal_state_transition`)" };

/** Registers the developer program's routes. `limits` replaces the sign-up quotas (tests). */
export function registerAppRoutes(app: FastifyInstance, ctx: AppContext, limits?: { perClient?: RateLimit; global?: RateLimit }): void {
  const quota = perAddressQuota(
    limits?.perClient ?? rateLimitFor(ctx.db, DEVELOPER_SIGNUP_RATE_LIMIT),
    limits?.global ?? rateLimitFor(ctx.db, DEVELOPER_SIGNUP_GLOBAL_RATE_LIMIT),
    [DEVELOPER_SIGNUP_RATE_LIMIT, DEVELOPER_SIGNUP_GLOBAL_RATE_LIMIT],
  );
  const developer = developerGuard(ctx);
  const reviewer = platformAdminGuard(ctx);

  app.post(
    '/api/developers',
    {
      onRequest: quota,
      config: {
        openapi: {
          summary: 'Sign up a developer account',
          description:
            "Creates a developer account (not a merchant's staff) and answers its bearer token once. No authentication; 5 sign-ups an hour per client address and 100 an hour in all (429 beyond).",
          tags: ['apps'],
          body: developerSignUpSchema,
          response: z.object({ developerId: z.string(), developerToken: z.string().describe('`rpd_…`: shown once, keep it secret.') }),
          status: 201,
          idempotent: false,
          errors: { 409: 'A developer with this e-mail exists (`email_taken`)', 429: 'Too many sign-ups (`rate_limited`)' },
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const input = parseOrThrow(developerSignUpSchema, request.body ?? undefined);
      reply.code(201);
      return signUpDeveloper(ctx.db, input, ctx.clock());
    },
  );

  app.get(
    '/api/developer/apps',
    {
      onRequest: developer,
      config: {
        openapi: {
          summary: "List the developer's apps",
          tags: ['apps'],
          access: 'developer',
          response: z.object({ data: z.array(appView) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => ({ data: await listDeveloperApps(ctx.db, callerId(request)) }),
  );

  app.post(
    '/api/developer/apps',
    {
      onRequest: developer,
      config: {
        openapi: {
          summary: 'Register an app (draft)',
          description:
            'Scopes only from `catalog:read`, `orders:read`, `pay:create`, `webhooks`. External integrations need redirect URIs (https, or http on loopback) matched exactly at authorization.',
          tags: ['apps'],
          access: 'developer',
          body: appCreateSchema,
          response: appView,
          status: 201,
          idempotent: false,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const input = parseOrThrow(appCreateSchema, request.body ?? undefined);
      reply.code(201);
      return createApp(ctx.db, callerId(request), input, ctx.clock());
    },
  );

  app.get(
    '/api/developer/apps/:id',
    {
      onRequest: developer,
      config: {
        openapi: {
          summary: "Get one of the developer's apps with its review history",
          tags: ['apps'],
          access: 'developer',
          params: idParams,
          response: appWithHistory,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return getApp(ctx.db, id, callerId(request));
    },
  );

  app.patch(
    '/api/developer/apps/:id',
    {
      onRequest: developer,
      config: {
        openapi: {
          summary: 'Edit an app',
          description:
            'Any field; the app after the edit must be valid. Refused while submitted or in review. An approved app goes back to draft. ' +
            'A listed app whose scopes change goes back to review (`submitted`) and stays listed with its approved scopes until approved again.',
          tags: ['apps'],
          access: 'developer',
          params: idParams,
          body: appPatchSchema,
          response: appView,
          errors: STATE_409,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const patch = parseOrThrow(appPatchSchema, request.body ?? undefined);
      return updateApp(ctx.db, callerId(request), id, patch, ctx.clock());
    },
  );

  app.post(
    '/api/developer/apps/:id/submit',
    {
      onRequest: developer,
      config: {
        openapi: {
          summary: 'Submit an app for review',
          tags: ['apps'],
          access: 'developer',
          params: idParams,
          response: appView,
          status: 200,
          idempotent: false,
          errors: STATE_409,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      parseEmptyBody(request.body ?? {});
      const devId = callerId(request);
      return transitionApp(ctx.db, id, 'submit', { actor: `developer:${devId}`, developerId: devId }, ctx.clock());
    },
  );

  app.get(
    '/api/platform/apps',
    {
      onRequest: reviewer,
      config: {
        openapi: {
          summary: 'The review queue',
          description: 'Apps in `status` (default: submitted and in review), oldest first.',
          tags: ['apps'],
          access: 'platform_admin',
          query: z.strictObject({ status: z.enum(APP_STATUSES).optional() }),
          response: z.object({ data: z.array(appView.extend({ developerName: z.string() })) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { status } = parseOrThrow(z.strictObject({ status: z.enum(APP_STATUSES).optional() }), request.query, '(query)');
      return { data: await reviewQueue(ctx.db, status) };
    },
  );

  app.get(
    '/api/platform/apps/:id',
    {
      onRequest: reviewer,
      config: {
        openapi: {
          summary: 'Get an app under review with its history',
          tags: ['apps'],
          access: 'platform_admin',
          params: idParams,
          response: appWithHistory,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return getApp(ctx.db, id, null);
    },
  );

  const reviewAction = (path: string, action: Exclude<AppReviewAction, 'submit' | 'reject'>, summary: string) =>
    app.post(
      `/api/platform/apps/:id/${path}`,
      {
        onRequest: reviewer,
        config: {
          openapi: {
            summary,
            tags: ['apps'],
            access: 'platform_admin',
            params: idParams,
            response: appView,
            status: 200,
            idempotent: false,
            errors: STATE_409,
          } satisfies RouteDoc,
        },
      },
      async (request) => {
        const { id } = parseOrThrow(idParams, request.params, '(path)');
        parseEmptyBody(request.body ?? {});
        return transitionApp(ctx.db, id, action, { actor: `platform_admin:${callerId(request)}`, developerId: null }, ctx.clock());
      },
    );
  reviewAction('start-review', 'start_review', 'Start reviewing a submitted app');
  reviewAction(
    'approve',
    'approve',
    'Approve an app in review (its requested scopes become the approved ones; an app already listed is listed again with them)',
  );
  reviewAction('list', 'list', 'List an approved app in the directory');

  app.post(
    '/api/platform/apps/:id/reject',
    {
      onRequest: reviewer,
      config: {
        openapi: {
          summary: 'Reject an app in review, with reasons',
          tags: ['apps'],
          access: 'platform_admin',
          params: idParams,
          body: rejectSchema,
          response: appView,
          status: 200,
          idempotent: false,
          errors: STATE_409,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const { reasons } = parseOrThrow(rejectSchema, request.body ?? undefined);
      return transitionApp(ctx.db, id, 'reject', { actor: `platform_admin:${callerId(request)}`, developerId: null }, ctx.clock(), reasons);
    },
  );

  app.get(
    '/api/pos/app-directory',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'The app directory',
          description:
            'Listed apps only, with their approved scopes in plain words, price and category; `q` searches, `category` filters. Up to 500 apps.',
          tags: ['apps'],
          access: 'staff',
          query: directoryQuery,
          response: directoryResponse,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const filter = parseOrThrow(directoryQuery, request.query, '(query)');
      return appDirectory(ctx.db, { ...(filter.q ? { q: filter.q } : {}), ...(filter.category ? { category: filter.category } : {}) });
    },
  );

  app.get(
    '/api/pos/app-directory/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'One app of the directory',
          description:
            'A listed app with its approved scopes in plain words (what an install may grant), price and launch URL. An app not listed is a 404.',
          tags: ['apps'],
          access: 'staff',
          params: idParams,
          response: directoryEntry,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return directoryApp(ctx.db, id);
    },
  );
}
