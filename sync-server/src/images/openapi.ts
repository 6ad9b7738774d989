import { z } from 'zod';
import { creditBalanceSchema, IMAGES_SCOPE, imageGenerateRequestSchema, imageGenerateResponseSchema } from './schemas.ts';

/**
 * The OpenAPI 3.1 path items of the image routes, generated from their zod schemas — merged into the server's OpenAPI
 * document. Problem responses reference `#/components/schemas/Problem` when the document defines it, otherwise they
 * are described inline.
 */
export function imageOpenApiPaths(options: { problemRef?: string } = {}): Record<string, unknown> {
  const problem = options.problemRef
    ? { $ref: options.problemRef }
    : {
        type: 'object',
        description: 'RFC 9457 problem details',
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          code: { type: 'string' },
          errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
        },
        required: ['type', 'title', 'status', 'detail', 'code'],
      };
  const problemResponse = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: problem } },
  });
  const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
    return rest;
  };
  const rateLimitHeaders = {
    RateLimit: { description: 'IETF draft field: `"app";r=<remaining>;t=<seconds>`', schema: { type: 'string' } },
    'RateLimit-Policy': { description: 'IETF draft field: `"app";q=120;w=60` (staff: `"staff";q=120;w=60`)', schema: { type: 'string' } },
    'RateLimit-Limit': { schema: { type: 'integer' } },
    'RateLimit-Remaining': { schema: { type: 'integer' } },
    'RateLimit-Reset': { schema: { type: 'integer' } },
  };
  const security = [{ bearer: [] }, { appToken: [IMAGES_SCOPE] }];
  return {
    '/api/v1/images/generate': {
      post: {
        operationId: 'generateImages',
        tags: ['images'],
        summary: 'Generate images',
        description:
          `Generates 1 … 4 PNG images (1:1 → 1024×1024, 16:9 → 1792×1008, 9:16 → 1008×1792). 1 credit per image, ` +
          `charged all or nothing. Staff tokens, or app tokens with the \`${IMAGES_SCOPE}\` scope. Each url serves its ` +
          'image for 7 days, then answers 410.',
        security,
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: 255 },
            description: 'Replays return the first response with Idempotent-Replayed: true and charge nothing again.',
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(imageGenerateRequestSchema, 'input') } } },
        responses: {
          '200': {
            description: 'The generated images and the credits charged',
            headers: rateLimitHeaders,
            content: { 'application/json': { schema: jsonSchema(imageGenerateResponseSchema, 'output') } },
          },
          '400': problemResponse('Invalid or unknown field (`errors` names it)'),
          '401': problemResponse('No or bad bearer token'),
          '402': problemResponse('Balance smaller than n (`insufficient_credits`); nothing charged'),
          '403': problemResponse(`App token without the ${IMAGES_SCOPE} scope`),
          '409': problemResponse('A request with the same Idempotency-Key is still running'),
          '422': problemResponse('Idempotency-Key reused with another body'),
          '429': problemResponse('Rate limited (`quota-exceeded`); see Retry-After'),
          '502': problemResponse('The image provider failed; nothing charged'),
        },
      },
    },
    '/api/v1/images/{file}': {
      get: {
        operationId: 'getGeneratedImage',
        tags: ['images'],
        summary: 'A generated image',
        description: 'The PNG, with no authentication (the url is the capability), until 7 days after generation.',
        security: [],
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^img_[0-9A-HJKMNP-TV-Z]{26}\\.png$' } }],
        responses: {
          '200': { description: 'The image', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } },
          '404': problemResponse('Unknown image'),
          '410': problemResponse('Expired: older than 7 days (`image_expired`)'),
        },
      },
    },
    '/api/v1/images/{id}/keep': {
      post: {
        operationId: 'keepGeneratedImage',
        tags: ['images'],
        summary: 'Keep a permanent copy of a generated image',
        description:
          'Copies a generated image (before its 7 days are over) to permanent storage, e.g. as a catalog item picture. ' +
          'Free. Keeping the same image again returns the same copy. Staff only.',
        security: [{ bearer: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^img_[0-9A-HJKMNP-TV-Z]{26}$' } },
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } },
        ],
        responses: {
          '200': {
            description: 'The permanent copy',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { url: { type: 'string', format: 'uri' }, width: { type: 'integer' }, height: { type: 'integer' } },
                  required: ['url', 'width', 'height'],
                },
              },
            },
          },
          '401': problemResponse('No or bad bearer token'),
          '403': problemResponse('Staff only'),
          '404': problemResponse('Unknown image (or another merchant\'s)'),
          '410': problemResponse('The image is past its 7 days'),
        },
      },
    },
    '/api/v1/media/{file}': {
      get: {
        operationId: 'getKeptImage',
        tags: ['images'],
        summary: 'A kept image (PNG), no expiry',
        security: [],
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^med_[0-9A-HJKMNP-TV-Z]{26}\\.png$' } }],
        responses: {
          '200': { description: 'The image', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } },
          '404': problemResponse('Unknown image'),
        },
      },
    },
    '/api/v1/credits': {
      get: {
        operationId: 'getCreditBalance',
        tags: ['images'],
        summary: "The merchant's image credit balance",
        security: [{ bearer: [] }],
        responses: {
          '200': { description: 'The balance', headers: rateLimitHeaders, content: { 'application/json': { schema: jsonSchema(creditBalanceSchema, 'output') } } },
          '401': problemResponse('No or bad bearer token'),
          '403': problemResponse('App tokens cannot read the balance (staff only)'),
        },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the platform API v1 (`/api/v1/*`: image generation, credits), served at
 * `GET /api/v1/openapi.json`. `baseUrl` becomes the server entry. Security: `bearer` is a staff ID token (JWT);
 * `appToken` an app API token, with the scope the operation needs.
 */
export function imageOpenApiDocument(baseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Register platform API v1',
      version: '1',
      description:
        'The versioned platform API (spec: Versioning — `/api/v1/`): image generation and the credit balance. ' +
        'Errors are RFC 9457 problem details. See docs/images.md.',
    },
    servers: [{ url: baseUrl }],
    tags: [{ name: 'images', description: 'Image generation, 1 credit per image, images kept 7 days' }],
    paths: imageOpenApiPaths(),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Merchant staff ID token' },
        appToken: {
          type: 'http',
          scheme: 'bearer',
          description: `App API token (\`rpa_…\`); image generation needs the \`${IMAGES_SCOPE}\` scope`,
        },
      },
    },
  };
}
