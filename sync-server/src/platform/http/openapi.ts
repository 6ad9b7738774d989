/**
 * The OpenAPI 3.1 document of the server (docs/api.md "Conventions"), generated from the routes as
 * they were registered (`recordedRoutes(app)`, http/route-doc.ts) and the zod schemas each route validates with
 * (`z.toJSONSchema`, JSON Schema 2020-12, which is OpenAPI 3.1's dialect). One builder serves `GET /api/openapi.json`
 * (everything) and `GET /api/v1/openapi.json` (the versioned platform API only).
 *
 * What the document adds to each route's RouteDoc, from the house conventions:
 * - security: `staffToken` (ES256 JWT) for staff routes; `staffToken` or `appToken` with the scope for scoped ones;
 * - problem responses (RFC 9457, `#/components/schemas/Problem`): 400 when there is input and on every `/api/`
 *   route (unknown query parameters, a malformed `X-Register-Schema-Version`), 426 with that header on `/api/`,
 *   401/403 with access, 404 and 414 (a segment over 100 characters) with path parameters, 409/422 and the
 *   `Idempotency-Key` header on idempotent POSTs, 413 (the route's own body limit)/415 with a body, 429 and the
 *   rate-limit headers (`RateLimit`, `RateLimit-Policy`, …) on routes whose hooks take quota (`metered`, derived from
 *   the guards as registered), plus `doc.errors`;
 * - `cursor` query parameters as `#/components/parameters/Cursor` (opaque cursor pagination).
 */
import { z } from 'zod';
import type { RateLimitPolicy } from '../rate-limit.ts';
import type { RegisteredRoute, RouteDoc } from './route-doc.ts';

type Json = Record<string, unknown>;

export interface OpenApiOptions {
  /** Server URL of the document (`servers[0].url`). */
  baseUrl: string;
  title: string;
  version: string;
  description: string;
}

/** Fastify URL pattern → OpenAPI path and its parameter names: `/api/pos/orders/:id` → `/api/pos/orders/{id}`. */
export function openApiPath(url: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = url
    .split('/')
    .map((segment) => {
      if (segment === '*') {
        params.push('path');
        return '{path}';
      }
      // `:name`, with an optional regex or suffix (`:file.png`) that OpenAPI cannot express.
      return segment.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => {
        params.push(name);
        return `{${name}}`;
      });
    })
    .join('/');
  return { path, params };
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  catalog: 'Catalog items, tax rates, locations, inventory, CSV import/export',
  orders: 'Orders, payments, refunds, receipts',
  customers: 'Customers (staff only)',
  invoices: 'Invoices and recurring invoices (staff only)',
  'pay-requests': 'Text-to-Pay links',
  'pay-page': 'The hosted pay page (public)',
  reports: 'Sales, tax, refunds and trial balance, as JSON or CSV (staff only)',
  webhooks: 'Webhook subscriptions and their delivery log',
  ledger: 'Journal transactions and the trial balance (staff only)',
  audit: 'Hash-chained audit log',
  outbox: 'SMS and e-mail outboxes (no carrier is connected)',
  sync: 'Register replication (RxDB pull / push / stream)',
  dev: 'Demo store helpers',
  images: 'Image generation (platform API v1), 1 credit per image, images kept 7 days',
  docs: 'This document and its interactive reference',
  restaurant: 'Floor plan (areas and tables) of a restaurant',
  appointments: 'Salons and spas: services, resources, staff schedules, free start times and the appointment book (staff only)',
  screening: 'Sanctions screening (SDN list versions, holds) and ID verification (AAMVA DL/ID), staff only',
};

const problemSchema: Json = {
  type: 'object',
  description: 'RFC 9457 problem details (`application/problem+json`). Extensions may follow (e.g. `currentState`).',
  properties: {
    type: { type: 'string', format: 'uri', description: '`https://register.example/problems/<code>` (the IETF type for quota-exceeded)' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'Names every offending field.' },
    code: { type: 'string', description: 'Stable machine-readable code, e.g. `validation_error`.' },
    errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
  additionalProperties: true,
};

const STANDARD_RESPONSES: Record<string, { status: number; description: string }> = {
  BadRequest: { status: 400, description: 'Invalid input: `errors[].path` names each field (unknown fields are refused too)' },
  Unauthorized: { status: 401, description: 'No, malformed, expired or unknown bearer token' },
  Forbidden: { status: 403, description: 'App token without the scope (`insufficient_scope`) or on a staff route (`staff_only`)' },
  NotFound: { status: 404, description: "No such resource (or another merchant's)" },
  IdempotencyInFlight: {
    status: 409,
    description:
      'A request with the same Idempotency-Key is still running (`idempotency_in_flight`), or it was carried out and its answer lost (`idempotency_response_lost`: look the result up, it will not run again)',
  },
  PayloadTooLarge: { status: 413, description: 'Body over 1 MiB' },
  UriTooLong: { status: 414, description: 'A path segment (path parameter) longer than 100 characters (`uri_too_long`)' },
  UnsupportedMediaType: { status: 415, description: 'A body that is not application/json' },
  IdempotencyKeyReused: { status: 422, description: 'Idempotency-Key reused with another method, path or body' },
  RegisterTooOld: {
    status: 426,
    description: '`X-Register-Schema-Version` older than the server supports (`register_too_old`): the `Upgrade` header names the version needed',
  },
  TooManyRequests: { status: 429, description: 'Quota used up (`quota_exceeded`; `RateLimit-Policy` names the policy): see Retry-After' },
};

const rateLimitHeaders: Json = {
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
};

function components(policies: readonly RateLimitPolicy[]): Json {
  const responses: Json = {};
  for (const [name, r] of Object.entries(STANDARD_RESPONSES)) {
    responses[name] = {
      description: r.status === 429 && policies.length ? `${r.description}. Policies: ${describePolicies(policies)}` : r.description,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      ...(r.status === 429 ? { headers: { ...rateLimitHeaders, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } } : {}),
    };
  }
  return {
    securitySchemes: {
      staffToken: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'Merchant staff ID token: ES256 JWT of the identity provider (`aud` register-pos), keys at /.well-known/jwks.json.',
      },
      appToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          'App API token (`rpa_…`, opaque) issued to an installed app, with the scopes the merchant approved: `catalog:read`, ' +
          '`orders:read`, `pay:create`, `webhooks` (and `images:generate` on the platform API). The scope an operation needs is ' +
          'listed in its security requirement.',
      },
      registerCredential: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Register credential (`rrc_…`, opaque) a register received for a one-time pairing code (`POST /api/register/pair`): ' +
          'syncing and selling as that register only; revoked with `POST /api/pos/registers/{id}/revoke`.',
      },
      developerToken: {
        type: 'http',
        scheme: 'bearer',
        description: "Developer account token (`rpd_…`, opaque) answered once by `POST /api/developers`: manages that developer's own apps only.",
      },
      platformAdminToken: {
        type: 'http',
        scheme: 'bearer',
        description: "Platform admin token (`rpp_…`, opaque) of an app reviewer — platform staff seeded per deployment, never a merchant's staff.",
      },
    },
    schemas: {
      Problem: problemSchema,
      FieldError: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Dotted field path, e.g. `lineItems.0.quantity`; `(body)`/`(query)` for the whole value' },
          message: { type: 'string' },
        },
        required: ['path', 'message'],
      },
    },
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes the POST safe to retry: the first response (status < 500) is stored 24 h per merchant, caller and key; a replay ' +
          'returns it with `Idempotent-Replayed: true`. Same key, other request → 422; still running → 409.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
      },
      RegisterSchemaVersion: {
        name: 'X-Register-Schema-Version',
        in: 'header',
        required: false,
        description: 'The schema version the calling register speaks (registers send it); older than the server supports → 426.',
        schema: { type: 'string', pattern: '^[0-9]{1,6}$' },
      },
      Cursor: {
        name: 'cursor',
        in: 'query',
        required: false,
        description: 'Opaque: the `nextCursor` of the previous page, unchanged. Lists answer `{ data: [...], nextCursor: string | null }`.',
        schema: { type: 'string', maxLength: 500 },
      },
    },
    headers: {
      RateLimit: { description: 'IETF draft field: `"app";r=<remaining>;t=<seconds>`', schema: { type: 'string' } },
      'RateLimit-Policy': { description: 'IETF draft field: `"app";q=120;w=60`', schema: { type: 'string' } },
      'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Requests left in this window', schema: { type: 'integer' } },
      'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
      'Idempotent-Replayed': {
        description: '`true` when this is a stored response replayed for an Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    responses,
  };
}

/**
 * zod → JSON Schema for embedding in the document: `$schema` dropped, `$defs` (recursive or named schemas) moved to
 * `components.schemas` with their `$ref`s rewritten, results cached per schema object.
 */
class SchemaConverter {
  readonly hoisted: Json = {};
  private readonly cache = new Map<z.ZodType, Map<string, Json>>();
  private counter = 0;

  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    const cached = this.cache.get(schema)?.get(io);
    if (cached) return cached;
    let json: Json;
    try {
      json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
    } catch {
      json = {};
    }
    const { $schema: _dialect, $defs, ...rest } = json as Json & { $defs?: Record<string, unknown> };
    const prefix = `Schema${++this.counter}_`;
    const rename = (name: string) => (name.startsWith('__') ? `${prefix}${name.slice(2)}` : name.replace(/[^A-Za-z0-9._-]/g, '_'));
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === 'object') {
        const out: Json = {};
        for (const [k, v] of Object.entries(value)) {
          out[k] =
            k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
              ? `#/components/schemas/${rename(v.slice('#/$defs/'.length))}`
              : rewrite(v);
        }
        return out;
      }
      return value;
    };
    for (const [name, def] of Object.entries($defs ?? {})) this.hoisted[rename(name)] = rewrite(def);
    const result = rewrite(rest) as Json;
    const byIo = this.cache.get(schema) ?? new Map<string, Json>();
    byIo.set(io, result);
    this.cache.set(schema, byIo);
    return result;
  }
}

function operationId(method: string, path: string, taken: Set<string>): string {
  const words = path
    .split('/')
    .filter((s) => s && s !== 'api')
    .map((s) => (s.startsWith('{') ? `by-${s.slice(1, -1)}` : s))
    .flatMap((s) => s.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const base = [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

function operation(route: RegisteredRoute, path: string, params: string[], converter: SchemaConverter, taken: Set<string>): Json {
  const doc: RouteDoc | undefined = route.doc;
  const method = route.method.toUpperCase();
  const op: Json = { operationId: operationId(method, path, taken), tags: doc?.tags ?? [tagOf(path)] };
  if (!doc) {
    // Routes without a RouteDoc (health, JWKS, the built register's files): listed, not described.
    op.summary = `${method} ${path}`;
    op.description = 'Not described yet (the route carries no RouteDoc).';
    op.responses = { default: { description: 'Not described' } };
    if (params.length) op.parameters = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    return op;
  }
  return describedOperation(route, doc, op, method, path, params, converter);
}

/** `1048576` → `1 MiB` (body limits in descriptions). */
function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** `"app" 120 requests per 60 s (per merchant and app)` for the 429's description. */
function describePolicies(policies: readonly RateLimitPolicy[]): string {
  const per: Record<string, string> = { app: ' per merchant and app', staff: ' per merchant and staff member (image API)' };
  return policies.map((p) => `"${p.name}" ${p.quota} requests per ${p.windowSeconds} s${per[p.name] ?? ''}`).join('; ');
}

function describedOperation(
  route: RegisteredRoute,
  doc: RouteDoc,
  op: Json,
  method: string,
  path: string,
  params: string[],
  converter: SchemaConverter,
): Json {
  const isApi = path.startsWith('/api/');
  const rateLimits = route.rateLimits ?? [];
  const isMetered = rateLimits.length > 0;
  // Fastify's router refuses a parametric segment over maxParamLength (100) with 414; `*` wildcards are not limited.
  const hasParametricSegment = route.url.split('/').some((segment) => segment.startsWith(':'));
  op.summary = doc.summary;
  if (doc.description) op.description = doc.description;

  // Security: staff token, or an app token holding the scope; public routes say so explicitly.
  if (doc.access === undefined) op.security = [];
  else if (doc.access === 'staff') op.security = [{ staffToken: [] }];
  else if (doc.access === 'register') op.security = [{ staffToken: [] }, { registerCredential: [] }];
  else if (doc.access === 'developer') op.security = [{ developerToken: [] }];
  else if (doc.access === 'platform_admin') op.security = [{ platformAdminToken: [] }];
  else op.security = [{ staffToken: [] }, { appToken: [doc.access.scope] }];

  const parameters: Json[] = [];
  const paramSchema = doc.params ? converter.convert(doc.params, 'input') : undefined;
  const paramProps = (paramSchema?.properties ?? {}) as Record<string, Json>;
  for (const name of params) {
    const schema = paramProps[name] ?? { type: 'string' };
    const { description, ...rest } = schema;
    parameters.push({ name, in: 'path', required: true, schema: rest, ...(typeof description === 'string' ? { description } : {}) });
  }
  if (doc.query) {
    const q = converter.convert(doc.query, 'input');
    const props = (q.properties ?? {}) as Record<string, Json>;
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(props)) {
      if (name === 'cursor') {
        parameters.push({ $ref: '#/components/parameters/Cursor' });
        continue;
      }
      const { description, ...rest } = schema;
      parameters.push({ name, in: 'query', required: required.has(name), schema: rest, ...(typeof description === 'string' ? { description } : {}) });
    }
  }
  const isIdempotent = doc.idempotent ?? method === 'POST';
  if (isIdempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (isApi) parameters.push({ $ref: '#/components/parameters/RegisterSchemaVersion' });
  if (parameters.length) op.parameters = parameters;

  if (doc.body) {
    const bodyContent: Json = { 'application/json': { schema: converter.convert(doc.body, 'input') } };
    for (const type of doc.consumes ?? []) bodyContent[type] = { schema: { type: 'string', contentMediaType: type } };
    op.requestBody = { required: true, content: bodyContent };
  }

  const status = String(doc.status ?? 200);
  const success: Json = { description: doc.summary };
  const content: Json = {};
  const produces = doc.produces ?? (doc.response ? ['application/json'] : []);
  for (const type of produces) {
    if (type === 'application/json' || (type.endsWith('+json') && doc.response))
      content[type] = { schema: doc.response ? converter.convert(doc.response, 'output') : {} };
    else if (type.startsWith('text/')) content[type] = { schema: { type: 'string' } };
    else content[type] = { schema: { type: 'string', contentMediaType: type } };
  }
  if (doc.response && !produces.some((t) => t === 'application/json' || t.endsWith('+json')))
    content['application/json'] = { schema: converter.convert(doc.response, 'output') };
  if (Object.keys(content).length && status !== '204') success.content = content;
  const successHeaders: Json = {
    ...(isMetered ? rateLimitHeaders : {}),
    ...(isIdempotent ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
  };
  if (Object.keys(successHeaders).length) success.headers = successHeaders;

  const responses: Json = { [status]: success };
  const ref = (name: keyof typeof STANDARD_RESPONSES) => ({ $ref: `#/components/responses/${name}` });
  if (doc.body || doc.query || doc.params || params.length || isApi) responses['400'] = ref('BadRequest');
  if (doc.access !== undefined) {
    responses['401'] = ref('Unauthorized');
    responses['403'] = ref('Forbidden');
  }
  if (params.length) responses['404'] = ref('NotFound');
  if (hasParametricSegment) responses['414'] = ref('UriTooLong');
  if (isIdempotent) {
    responses['409'] = ref('IdempotencyInFlight');
    responses['422'] = ref('IdempotencyKeyReused');
  }
  if (doc.body) {
    responses['413'] =
      route.bodyLimit === undefined
        ? ref('PayloadTooLarge')
        : { ...ref('PayloadTooLarge'), description: `Body over ${formatBytes(route.bodyLimit)}` };
    responses['415'] = doc.consumes?.length
      ? { ...ref('UnsupportedMediaType'), description: `A body that is not ${['application/json', ...doc.consumes].join(' or ')}` }
      : ref('UnsupportedMediaType');
  }
  if (isApi) responses['426'] = ref('RegisterTooOld');
  if (isMetered) responses['429'] = ref('TooManyRequests');
  const errorContent = doc.errorBody
    ? { [doc.errorBody.mediaType]: { schema: converter.convert(doc.errorBody.schema, 'output') } }
    : { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  for (const [code, description] of Object.entries(doc.errors ?? {})) {
    responses[code] = { description, content: errorContent };
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return op;
}

function tagOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api' && (parts[1] === 'pos' || parts[1] === 'v1')) return parts[2] ?? parts[1];
  if (parts[0] === 'api') return parts[1] ?? 'api';
  return parts[0] ?? 'root';
}

/**
 * Builds the OpenAPI 3.1 document of `routes` (usually `recordedRoutes(app)`, possibly filtered). Routes without a
 * RouteDoc still appear (with a bare "not described" entry) so nothing registered is missing from the document.
 */
export function buildOpenApiDocument(routes: readonly RegisteredRoute[], options: OpenApiOptions): Json {
  const converter = new SchemaConverter();
  const paths: Record<string, Json> = {};
  const taken = new Set<string>();
  const tags = new Set<string>();
  const sorted = [...routes].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
  for (const route of sorted) {
    const method = route.method.toLowerCase();
    if (!['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method)) continue;
    const { path, params } = openApiPath(route.url);
    const op = operation(route, path, params, converter, taken);
    for (const tag of op.tags as string[]) tags.add(tag);
    paths[path] = { ...(paths[path] ?? {}), [method]: op };
  }
  const policies: RateLimitPolicy[] = [];
  for (const route of routes) for (const policy of route.rateLimits ?? []) if (!policies.some((p) => p.name === policy.name)) policies.push(policy);
  const base = components(policies);
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, description: options.description },
    servers: [{ url: options.baseUrl }],
    tags: [...tags].sort().map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths,
    components: { ...base, schemas: { ...(base.schemas as Json), ...converter.hoisted } },
  };
}
