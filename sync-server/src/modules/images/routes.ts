import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { authenticate, authorize, authorizeRole } from '../../platform/auth/guard.ts';
import { callerOf } from '../../platform/auth/identity.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import { createImageGenerator, ProviderError, type ImageGenerator } from './generator.ts';
import { metered, quotaExceededProblem, rateLimitFor, rateLimitHeaders, type RateLimit } from '../../platform/rate-limit.ts';
import { z } from 'zod';
import { buildOpenApiDocument } from '../../platform/http/openapi.ts';
import { recordedRoutes, type RouteDoc } from '../../platform/http/route-doc.ts';
import { keptImageSchema } from '../../../../core/index.ts';
import { creditBalanceSchema, IMAGES_SCOPE, imageGenerateRequestSchema, imageGenerateResponseSchema, type ImageGenerateResponse } from './schemas.ts';
import {
  DEFAULT_STARTING_CREDITS,
  findImage,
  findKeptImage,
  generateImages,
  getCreditBalance,
  InsufficientCreditsError,
  keepImage,
  purgeExpiredImages,
} from './service.ts';
import { FsImageStore, type ImageStore } from './store.ts';
import { S3ImageStore, s3OptionsFromEnv, type ImageStoreEnv } from './s3.ts';

/**
 * HTTP surface of image generation (docs/images.md), under the platform API's own versioned prefix:
 *
 * - `POST /api/v1/images/generate` — staff, or an app token with {@link IMAGES_SCOPE}; Idempotency-Key; rate limited;
 * - `GET  /api/v1/images/{id}.png` — the PNG for 7 days, then 410; no auth (the url is the capability);
 * - `POST /api/v1/images/{id}/keep` — staff: a permanent copy (e.g. a catalog picture), served at
 *   `GET /api/v1/media/{id}.png` with no expiry;
 * - `GET  /api/v1/credits` — staff: the merchant's credit balance, for the back office;
 * - `GET  /api/v1/openapi.json` — the OpenAPI 3.1 document of the `/api/v1` platform API (no auth).
 */

/**
 * Staff quota on the image routes: 120 requests per minute per merchant and staff member. Apps use the server-wide
 * app quota (`ctx.appRateLimit`: 120 per minute per merchant per app), shared with the POS API.
 */
export const STAFF_RATE_LIMIT = { name: 'staff', quota: 120, windowSeconds: 60 } as const;

/** 402 `insufficient_credits`, with the `balance` and `required` members a client needs to explain it. */
class InsufficientCreditsProblem extends ProblemError {
  constructor(
    readonly balance: number,
    readonly required: number,
  ) {
    super(
      402,
      'insufficient_credits',
      `Generating ${required} image(s) needs ${required} credit(s); the balance is ${balance}. Nothing was charged.`,
    );
  }

  override toProblem() {
    return { ...super.toProblem(), title: 'Payment Required', balance: this.balance, required: this.required };
  }
}

/** Knobs of the image routes; every one has a default taken from the environment (docs/images.md, Configuration). */
export interface ImageOptions {
  /** Default: {@link createImageGenerator} from `IMAGE_API_URL` / `IMAGE_API_KEY` / `IMAGE_API_MODEL`. */
  generator?: ImageGenerator;
  /** Default: {@link createImageStoreFromEnv} — an S3 bucket when `IMAGE_S3_BUCKET` is set, else `DATA_DIR/images`. */
  store?: ImageStore;
  /** Credits a merchant starts with; default `IMAGE_STARTING_CREDITS` or 50. */
  startingCredits?: number;
  /** How often the purge job runs, in ms; 0 disables it. Default `IMAGE_PURGE_INTERVAL_MS` or one hour. */
  purgeIntervalMs?: number;
  /** Rate limiters; defaults: the server's app limiter (`ctx.appRateLimit`) and {@link STAFF_RATE_LIMIT} (shared through PostgreSQL, in memory on PGlite). */
  rateLimits?: { app?: RateLimit; staff?: RateLimit };
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

/**
 * The image store the environment asks for: an S3-compatible bucket when `IMAGE_S3_BUCKET` is set (see
 * {@link s3OptionsFromEnv}), else files under `DATA_DIR/images` (`DATA_DIR` default `./data`).
 */
export function createImageStoreFromEnv(env: ImageStoreEnv): ImageStore {
  const s3 = s3OptionsFromEnv(env);
  return s3 ? new S3ImageStore(s3) : new FsImageStore(join(env.DATA_DIR ?? './data', 'images'));
}

/** The url of a kept (permanent) copy: `${baseUrl}/api/v1/media/<id>.png`. */
export function keptImageUrl(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/v1/media/${id}.png`;
}

/** The PNG url of an image: `${baseUrl}/api/v1/images/<id>.png`. */
export function imageUrl(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/v1/images/${id}.png`;
}

/**
 * Registers the image routes on `app` (in the style of `registerPosRoutes`): `registerImageRoutes(app, ctx, images)`
 * in app.ts.
 * @throws Error when an IMAGE_* environment variable is malformed.
 */
export function registerImageRoutes(app: FastifyInstance, ctx: AppContext, images?: ImageOptions): void {
  const generator = images?.generator ?? createImageGenerator(process.env);
  const store = images?.store ?? createImageStoreFromEnv(process.env);
  const startingCredits = images?.startingCredits ?? envInt('IMAGE_STARTING_CREDITS', DEFAULT_STARTING_CREDITS);
  const purgeIntervalMs = images?.purgeIntervalMs ?? envInt('IMAGE_PURGE_INTERVAL_MS', 3_600_000);
  // Apps share one quota across the whole API (the server's ctx.appRateLimit); staff are metered here only.
  const limits = {
    app: images?.rateLimits?.app ?? ctx.appRateLimit,
    staff: images?.rateLimits?.staff ?? rateLimitFor(ctx.db, STAFF_RATE_LIMIT),
  };
  const deps = { db: ctx.db, feed: ctx.feed, generator, store, now: () => ctx.clock().getTime(), startingCredits };

  /**
   * onRequest hook: authenticates (401), takes one unit of the caller's quota and sets the rate-limit fields on the
   * reply (429 when used up), then checks the scope (403) and sets `request.principal`.
   */
  const admit = (scope: string | 'staff') =>
    metered(
      async (request: FastifyRequest, reply: FastifyReply) => {
        const principal = await authenticate(ctx, request);
        if (principal.kind === 'register') {
          authorize(principal, 'staff'); // throws 403: registers sync and sell only
          return;
        }
        const decision =
          principal.kind === 'app'
            ? await limits.app.take(`${principal.merchantId}:${principal.appId}`)
            : await limits.staff.take(`${principal.merchantId}:${principal.staffId}`);
        reply.headers(rateLimitHeaders(decision));
        if (!decision.allowed) {
          // Sent here, not thrown: the problem type is the IETF one, not ours.
          return reply.code(429).type('application/problem+json').send(quotaExceededProblem(decision));
        }
        if (principal.kind === 'app') {
          if (scope === 'staff') {
            throw new ProblemError(403, 'staff_only', 'This endpoint is for merchant staff only; app tokens cannot use it.');
          }
          if (!principal.scopes.includes(scope)) {
            throw new ProblemError(
              403,
              'insufficient_scope',
              `This endpoint needs the scope "${scope}", which the app token does not have.`,
              undefined,
              { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
            );
          }
        }
        authorizeRole(principal, request.method, request.routeOptions.url ?? request.url);
        request.principal = principal;
        return undefined;
      },
      [limits.app.policy, limits.staff.policy],
    );

  app.post(
    '/api/v1/images/generate',
    {
      onRequest: admit(IMAGES_SCOPE),
      config: {
        openapi: {
          summary: 'Generate images',
          description:
            `Generates 1 … 4 PNG images (1:1 → 1024×1024, 16:9 → 1792×1008, 9:16 → 1008×1792). 1 credit per image, ` +
            `charged all or nothing. Staff tokens, or app tokens with the \`${IMAGES_SCOPE}\` scope. Each url serves its ` +
            'image for 7 days, then answers 410. Staff are metered too (120 per minute per staff member).',
          tags: ['images'],
          access: { scope: IMAGES_SCOPE },
          body: imageGenerateRequestSchema,
          response: imageGenerateResponseSchema,
          status: 200,
          idempotent: true,
          errors: {
            402: 'Balance smaller than n (`insufficient_credits`, with `balance` and `required`); nothing charged',
            502: 'The image provider failed (`image_provider_failed`); nothing charged',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const principal = request.principal!;
      const body = parseOrThrow(imageGenerateRequestSchema, request.body);
      try {
        const result = await generateImages(deps, principal.merchantId, callerOf(principal), body);
        const response: ImageGenerateResponse = {
          images: result.images.map((image) => ({
            url: imageUrl(ctx.config.baseUrl, image.id),
            width: image.width,
            height: image.height,
          })),
          credits_used: result.creditsUsed,
        };
        return { status: 200, body: response };
      } catch (error) {
        if (error instanceof InsufficientCreditsError) {
          throw new InsufficientCreditsProblem(error.balance, error.required);
        }
        if (error instanceof ProviderError) {
          request.log.warn({ err: error }, 'image provider failed');
          throw new ProblemError(502, 'image_provider_failed', `The image provider failed: ${error.message}. Nothing was charged.`);
        }
        throw error;
      }
    }),
  );

  app.get<{ Params: { file: string } }>(
    '/api/v1/images/:file',
    {
      config: {
        openapi: {
          summary: 'A generated image (PNG)',
          description: 'No authentication (the url is the capability), until 7 days after generation; then 410.',
          tags: ['images'],
          params: z.strictObject({
            file: z
              .string()
              .regex(/^img_[0-9A-HJKMNP-TV-Z]{26}\.png$/)
              .describe('`<image id>.png`'),
          }),
          produces: ['image/png'],
          errors: { 410: 'Expired: older than 7 days (`image_expired`)' },
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const match = /^(img_[0-9A-HJKMNP-TV-Z]{26})\.png$/.exec(request.params.file);
      if (!match) throw new ProblemError(404, 'not_found', 'No such image.');
      const now = ctx.clock().getTime();
      const found = await findImage(ctx.db, store, match[1] as string, now);
      if (found.status === 'not_found') throw new ProblemError(404, 'not_found', 'No such image.');
      if (found.status === 'expired') {
        throw new ProblemError(410, 'image_expired', `This image expired at ${found.expiresAt.toISOString()}: generated images are kept for 7 days.`);
      }
      const maxAge = Math.max(0, Math.floor((found.expiresAt.getTime() - now) / 1000));
      return reply
        .header('Cache-Control', `private, max-age=${maxAge}`)
        .header('Expires', found.expiresAt.toUTCString())
        .header('X-Content-Type-Options', 'nosniff')
        .type('image/png')
        .send(found.png);
    },
  );

  app.get(
    '/api/v1/credits',
    {
      onRequest: admit('staff'),
      config: {
        openapi: {
          summary: "The merchant's image credit balance",
          tags: ['images'],
          access: 'staff',
          response: creditBalanceSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const principal = request.principal!;
      return { balance: await getCreditBalance(ctx.db, principal.merchantId, startingCredits) };
    },
  );

  app.post(
    '/api/v1/images/:id/keep',
    {
      onRequest: admit('staff'),
      config: {
        openapi: {
          summary: 'Keep a permanent copy of a generated image',
          description:
            'Copies a generated image (before its 7 days are over) to permanent storage, e.g. as a catalog item picture. ' +
            'Free. Keeping the same image again returns the same copy. Staff only.',
          tags: ['images'],
          access: 'staff',
          params: z.strictObject({
            id: z
              .string()
              .regex(/^img_[0-9A-HJKMNP-TV-Z]{26}$/)
              .describe('Image id'),
          }),
          body: emptyBodySchema,
          response: keptImageSchema,
          status: 200,
          idempotent: true,
          errors: { 410: 'The image is past its 7 days (`image_expired`)' },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      parseEmptyBody(request.body);
      const principal = request.principal!;
      const kept = await keepImage(deps, principal.merchantId, callerOf(principal), (request.params as { id: string }).id);
      if (kept === null) throw new ProblemError(404, 'not_found', 'No such image.');
      if (kept === 'expired') {
        throw new ProblemError(410, 'image_expired', 'This image is past its 7 days and has nothing left to keep; generate a new one.');
      }
      return { status: 200, body: { url: keptImageUrl(ctx.config.baseUrl, kept.id), width: kept.width, height: kept.height } };
    }),
  );

  app.get<{ Params: { file: string } }>(
    '/api/v1/media/:file',
    {
      config: {
        openapi: {
          summary: 'A kept image (PNG), no expiry',
          tags: ['images'],
          params: z.strictObject({
            file: z
              .string()
              .regex(/^med_[0-9A-HJKMNP-TV-Z]{26}\.png$/)
              .describe('`<kept image id>.png`'),
          }),
          produces: ['image/png'],
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const match = /^(med_[0-9A-HJKMNP-TV-Z]{26})\.png$/.exec(request.params.file);
      const png = match ? await findKeptImage(ctx.db, store, match[1] as string) : null;
      if (!png) throw new ProblemError(404, 'not_found', 'No such image.');
      return reply
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        .type('image/png')
        .send(png);
    },
  );

  // The /api/v1 slice of the server's one OpenAPI builder (the whole server: GET /api/openapi.json).
  let v1Document: Record<string, unknown> | undefined;
  app.get(
    '/api/v1/openapi.json',
    {
      config: {
        openapi: { summary: 'The OpenAPI 3.1 document of the platform API v1', tags: ['docs'], produces: ['application/json'] } satisfies RouteDoc,
      },
    },
    async (_request, reply) => {
      v1Document ??= buildOpenApiDocument(
        recordedRoutes(app).filter((r) => r.url.startsWith('/api/v1/')),
        {
          baseUrl: ctx.config.baseUrl,
          title: 'Register platform API v1',
          version: '1',
          description:
            'The versioned platform API (`/api/v1/`): image generation and the credit balance. ' +
            'Errors are RFC 9457 problem details. See docs/images.md; the whole server is described at /api/openapi.json.',
        },
      );
      reply.header('Cache-Control', 'public, max-age=300');
      return v1Document;
    },
  );

  if (purgeIntervalMs > 0) {
    const timer = setInterval(() => {
      purgeExpiredImages(ctx.db, store, ctx.clock()).catch((error: unknown) => app.log.error({ err: error }, 'image purge failed'));
    }, purgeIntervalMs);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }
}
