import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { getSettings, storeSettingsSchema, storeSettingsUpdateSchema, updateSettings } from './settings.ts';

const noQuery = z.strictObject({});

/** Store settings (staff only): `GET` and `PATCH /api/pos/settings`. Logic in services/settings.ts. */
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
}
