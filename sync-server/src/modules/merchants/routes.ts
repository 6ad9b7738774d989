import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import {
  MESSAGE_KINDS,
  messageTemplatePreviewRequestSchema,
  messageTemplatePreviewSchema,
  messageTemplateSaveSchema,
  messageTemplateViewSchema,
  STORE_LANGUAGES,
} from '../../../../core/index.ts';
import { listMessageTemplates, previewMessageTemplate, resetMessageTemplate, saveMessageTemplate } from './message-templates.ts';
import { getSettings, storeSettingsSchema, storeSettingsUpdateSchema, updateSettings } from './settings.ts';

const noQuery = z.strictObject({});
const languageQuery = z.strictObject({
  language: z.enum(STORE_LANGUAGES).optional().describe("The templates' language; default the store's."),
});
const templateParams = z.strictObject({ kind: z.enum(MESSAGE_KINDS) });

/**
 * Store settings (staff only): `GET` and `PATCH /api/pos/settings` (logic in settings.ts), and the store's message
 * templates: `GET /api/pos/message-templates`, `PUT` / `DELETE /api/pos/message-templates/{kind}`,
 * `POST /api/pos/message-template-previews` (logic in message-templates.ts).
 */
export function registerSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/pos/settings',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Get the store settings',
          tags: ['settings'],
          access: 'staff',
          query: noQuery,
          response: storeSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return getSettings(ctx.db, principalOf(request).merchantId);
    },
  );

  app.patch(
    '/api/pos/settings',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Change the store settings',
          description:
            'Time zone (reports count days in it), default phone country (customers typed without +) and the tip bound (the larger of tipLimitBasisPoints of the order total and tipLimitCents; default 5000 and 10000). Audited.',
          tags: ['settings'],
          access: 'staff',
          body: storeSettingsUpdateSchema,
          response: storeSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(storeSettingsUpdateSchema, request.body ?? undefined);
      return updateSettings(ctx, principalOf(request), body);
    },
  );

  app.get(
    '/api/pos/message-templates',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List the message templates',
          description:
            "Every kind of e-mail and text the store sends, in a language (default the store's): the store's own template or the built-in default, with the placeholders it may use and those it must.",
          tags: ['settings'],
          access: 'staff',
          query: languageQuery,
          response: z.strictObject({ items: z.array(messageTemplateViewSchema) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { language } = parseOrThrow(languageQuery, request.query, '(query)');
      return { items: await listMessageTemplates(ctx.db, principalOf(request).merchantId, language) };
    },
  );

  app.put(
    '/api/pos/message-templates/:kind',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Save a message template',
          description:
            "The store's own template for one kind of message in one language (default the store's). {{name}} inserts a placeholder, {{#name}}…{{/name}} keeps its content only when the value is not empty. An unknown placeholder, a required one missing (e.g. {{payLink}}) or a syntax error is a 400 naming `subject` or `body`. Audited.",
          tags: ['settings'],
          access: 'staff',
          params: templateParams,
          body: messageTemplateSaveSchema,
          response: messageTemplateViewSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { kind } = parseOrThrow(templateParams, request.params, '(path)');
      const body = parseOrThrow(messageTemplateSaveSchema, request.body ?? undefined);
      return saveMessageTemplate(ctx, principalOf(request), kind, body);
    },
  );

  app.delete(
    '/api/pos/message-templates/:kind',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Reset a message template to the default',
          description: "Drops the store's own template for one kind in one language: the built-in default is sent again. Audited.",
          tags: ['settings'],
          access: 'staff',
          params: templateParams,
          query: languageQuery,
          response: messageTemplateViewSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      // The query first: an unknown parameter is named even when the path is wrong too.
      const { language } = parseOrThrow(languageQuery, request.query, '(query)');
      const { kind } = parseOrThrow(templateParams, request.params, '(path)');
      return resetMessageTemplate(ctx, principalOf(request), kind, language);
    },
  );

  app.post(
    '/api/pos/message-template-previews',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Preview a message template',
          description:
            "Renders a template (saved or not) with sample data in the store's name, currency and language: the subject and body, the e-mail's HTML part, an SMS's alphabet and parts. Changes nothing; the same 400s as saving.",
          tags: ['settings'],
          access: 'staff',
          body: messageTemplatePreviewRequestSchema,
          response: messageTemplatePreviewSchema,
          status: 200,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(messageTemplatePreviewRequestSchema, request.body ?? undefined);
      return previewMessageTemplate(ctx, principalOf(request).merchantId, body);
    },
  );
}
