import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isIdnEmail } from '../../core/index.ts';
import { openApiPath } from '../../sync-server/src/platform/http/openapi.ts';

// ajv-formats is CommonJS: its function is the `default` member of what an ES import gives.
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule }).default ?? addFormatsModule;

type Json = Record<string, any>;

const DOC_ID = 'https://register.example/openapi.json';

/**
 * Checks answers against the server's own OpenAPI document (`GET /api/openapi.json`), the way Schemathesis does:
 * the status must be one the operation documents (or `default`), the media type one its response documents, and a
 * JSON body (`application/json`, `application/problem+json`) must validate against the documented schema (JSON
 * Schema 2020-12, OpenAPI 3.1's dialect, with Ajv and its formats). So the document cannot drift from the server.
 *
 *     const conformance = await OpenApiConformance.of(app);
 *     expect(conformance.check('POST', '/api/pos/orders', res)).toEqual([]);
 */
export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  private constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    // `idn-email` (RFC 6531 addresses) is not among ajv-formats': the server's own check (core isIdnEmail) is the format.
    this.ajv.addFormat('idn-email', isIdnEmail);
    // The components, under the document's id: response schemas' `#/components/…` refs are rewritten to point here.
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components }, DOC_ID);
  }

  /** Fetches the document from `app` (a 200 is required). */
  static async of(app: FastifyInstance): Promise<OpenApiConformance> {
    const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}`);
    return new OpenApiConformance(res.json() as Json);
  }

  /** The operation of a route (`routeUrl` is Fastify's pattern, e.g. `/api/pos/orders/:id`), if documented. */
  operation(method: string, routeUrl: string): Json | undefined {
    return this.doc.paths?.[openApiPath(routeUrl).path]?.[method.toLowerCase()];
  }

  /** The statuses the operation documents, e.g. `['200', '400', …]`. */
  statuses(method: string, routeUrl: string): string[] {
    return Object.keys(this.operation(method, routeUrl)?.responses ?? {});
  }

  /** Every way `res` departs from the document (empty when it conforms). */
  check(method: string, routeUrl: string, res: LightMyRequestResponse): string[] {
    const where = `${method} ${routeUrl} → ${res.statusCode}`;
    const op = this.operation(method, routeUrl);
    if (!op) return [`${where}: the operation is not in the document`];
    const status = String(res.statusCode);
    let response: Json | undefined = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.default;
    if (!response) return [`${where}: status not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`];
    if (typeof response.$ref === 'string') response = this.resolve(response.$ref);
    if (!response) return [`${where}: the response's $ref does not resolve`];
    const body = res.body;
    if (res.statusCode === 204 || method === 'HEAD' || body.length === 0) return [];
    const mediaType = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const content = (response.content ?? {}) as Record<string, Json>;
    const media = content[mediaType] ?? content[`${mediaType.split('/')[0]}/*`] ?? content['*/*'];
    if (!media) return [`${where}: media type ${mediaType || '(none)'} not documented (documented: ${Object.keys(content).join(', ') || 'no body'})`];
    if (!/^application\/([a-z.+-]+\+)?json$/.test(mediaType) || !media.schema) return [];
    const key = `${op.operationId} ${status} ${mediaType}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.anchored(media.schema) as Json);
      this.validators.set(key, validate);
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${where}: the body is not JSON: ${body.slice(0, 200)}`];
    }
    if (validate(value)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)} (schema ${e.schemaPath})`);
  }

  private resolve(ref: string): Json | undefined {
    if (!ref.startsWith('#/')) return undefined;
    return ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((node, k) => (node && typeof node === 'object' ? node[k] : undefined), this.doc);
  }

  /** A copy of `schema` whose local refs (`#/components/…`) point into the document registered under DOC_ID. */
  private anchored(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map((s) => this.anchored(s));
    if (schema && typeof schema === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(schema))
        out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : this.anchored(v);
      return out;
    }
    return schema;
  }
}
