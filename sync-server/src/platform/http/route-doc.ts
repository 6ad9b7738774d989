import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { Access } from '../auth/guard.ts';
import { meteringOf, type RateLimitPolicy } from '../rate-limit.ts';

/**
 * What a route says about itself for the OpenAPI 3.1 document (`/api/openapi.json`): pass it as the route option
 * `config: { openapi: { … } }`. Schemas are the same zod schemas the handler validates with, so the document cannot
 * drift from the code. Every route is listed in the document; one without `openapi` gets a bare entry.
 */
export interface RouteDoc {
  /** One line, imperative: "List orders". */
  summary: string;
  /** Grouping in the reference: 'catalog', 'orders', 'customers', 'invoices', 'pay-requests', 'reports', 'webhooks', … */
  tags: string[];
  /**
   * Who may call it (as given to `guard`; the image API has its own scope; `developer` / `platform_admin`: the
   * developer program's own tokens, modules/apps); omitted for public routes.
   */
  access?: Access | { scope: string } | 'developer' | 'platform_admin';
  description?: string;
  body?: z.ZodType;
  /**
   * Media types the body may come in besides JSON, as text (e.g. `['text/csv']` for a file upload); each is
   * documented as a string body. Needs the route's own content-type parser.
   */
  consumes?: string[];
  query?: z.ZodType;
  params?: z.ZodType;
  /** The success body; omitted when the route answers with no JSON (e.g. a PDF or CSV: set `produces`). */
  response?: z.ZodType;
  /** Success status; default 200 (201 for POSTs that create). */
  status?: number;
  /** Media types of a non-JSON success body, e.g. ['text/csv'] or ['application/pdf']. */
  produces?: string[];
  /** The route honours `Idempotency-Key` (every POST under /api/pos should). */
  idempotent?: boolean;
  /**
   * Problem responses beyond the ones the document derives (400 for inputs, 401/403 for access, 404 for path
   * parameters, 409/422 for idempotency, 413/415 for bodies, 429 for app scopes): status → when it happens,
   * e.g. `{ 402: 'Card declined (`card_declined`)', 409: 'Not open (`illegal_state_transition`)' }`.
   */
  errors?: Record<number, string>;
  /**
   * The body of the `errors` responses when it is not an RFC 9457 problem: e.g. the OAuth 2.0 endpoints answer
   * `application/json` `{ error, error_description }` (RFC 6749 §5.2), as OAuth clients expect.
   */
  errorBody?: { mediaType: string; schema: z.ZodType };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    openapi?: RouteDoc;
  }
}

/** One registered route as the OpenAPI builder sees it. */
export interface RegisteredRoute {
  method: string;
  /** Fastify's URL pattern, e.g. `/api/pos/orders/:id`. */
  url: string;
  doc?: RouteDoc;
  /** Quota policies the route's hooks take from (see `metered` in rate-limit.ts); empty when unmetered. */
  rateLimits?: RateLimitPolicy[];
  /** The route's own body limit in bytes, when it sets one (else the server's). */
  bodyLimit?: number;
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * Starts recording every route registered on `app` from now on (call it before registering routes). Returns the live
 * list: HEAD routes Fastify adds by itself are left out.
 */
export function recordRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  registries.set(app, routes);
  app.addHook('onRoute', (options) => {
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const doc = (options.config as { openapi?: RouteDoc } | undefined)?.openapi;
      const rateLimits = meteringOf([...[options.onRequest ?? []].flat(), ...[options.preHandler ?? []].flat()]);
      routes.push({
        method,
        url: options.url,
        ...(doc ? { doc } : {}),
        rateLimits,
        ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      });
    }
  });
  return routes;
}

/** The routes recorded on `app` (see {@link recordRoutes}); empty when recording was never started. */
export function recordedRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registries.get(app) ?? [];
}
