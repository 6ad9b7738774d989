import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { parseOrThrow, ProblemError } from './problem.ts';
import { recordedRoutes } from './route-doc.ts';

/** Where the installed `swagger-ui-dist` package keeps its built files (served locally: no CDN, works offline). */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files of the reference page, by the name they are served under `/api/docs/assets/`. */
const ASSETS: Record<string, { file?: string; type: string; body?: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
  // Our initializer, as a file: the page's Content-Security-Policy allows no inline script.
  'init.js': {
    type: 'text/javascript; charset=utf-8',
    body: `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`,
  },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Register API reference</title>
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/init.js"></script>
</body>
</html>
`;

/** Everything from this server only; Swagger UI needs inline styles and data: images. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const noQuery = z.strictObject({});
const assetParams = z.strictObject({ asset: z.enum(Object.keys(ASSETS) as [string, ...string[]]) });

/** Builds the whole document once per app (the routes are fixed once the app is ready). */
const documents = new WeakMap<FastifyInstance, Record<string, unknown>>();

/**
 * `GET /api/openapi.json` — the OpenAPI 3.1 document of every route of the server (public); `GET /api/docs` — the
 * interactive reference (Swagger UI from the installed `swagger-ui-dist`, served by this server, no CDN).
 */
export function registerOpenApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/openapi.json',
    { config: { openapi: { summary: 'The OpenAPI 3.1 document of this server', tags: ['docs'], query: noQuery, produces: ['application/json'] } } },
    async (request, reply) => {
      parseOrThrow(noQuery, request.query, '(query)');
      let doc = documents.get(app);
      if (!doc) {
        doc = buildOpenApiDocument(recordedRoutes(app), {
          baseUrl: ctx.config.baseUrl,
          title: 'Register API',
          version: '1',
          description:
            'The point-of-sale REST API (`/api/pos/*`, additive changes only), the platform API (`/api/v1/*`), register ' +
            'replication (`/api/sync/*`), the demo helpers and the hosted pay page. JSON, camelCase, integer minor units ' +
            '(`…Cents`); errors are RFC 9457 problem details; every POST accepts `Idempotency-Key`; lists use opaque cursors. ' +
            'See docs/api.md.',
        });
        documents.set(app, doc);
      }
      reply.header('Cache-Control', 'public, max-age=300');
      return doc;
    },
  );

  app.get(
    '/api/docs',
    { config: { openapi: { summary: 'Interactive API reference (HTML)', tags: ['docs'], query: noQuery, produces: ['text/html'] } } },
    async (request, reply) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return reply.header('Content-Security-Policy', CSP).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(PAGE);
    },
  );

  app.get(
    '/api/docs/assets/:asset',
    {
      config: {
        openapi: {
          summary: 'A file of the interactive reference',
          tags: ['docs'],
          params: assetParams,
          produces: ['text/javascript', 'text/css', 'image/png'],
        },
      },
    },
    async (request, reply) => {
      const name = (request.params as { asset: string }).asset;
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (!asset) throw new ProblemError(404, 'not_found', `No asset ${name}.`);
      const body = asset.body ?? (await readFile(join(SWAGGER_UI_DIR, asset.file!)));
      return reply.header('Cache-Control', 'public, max-age=3600').header('X-Content-Type-Options', 'nosniff').type(asset.type).send(body);
    },
  );
}
