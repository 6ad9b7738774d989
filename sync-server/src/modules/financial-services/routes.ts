import type { FastifyInstance } from 'fastify';
import { financialServiceSettingsSchema } from '../../../../core/index.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { financialServiceSettingsPatch, updateFinancialServiceSettings } from './settings.ts';

/**
 * The financial services' settings (docs/api.md "Financial services settings"): the owner changes the fee
 * schedule and the limits of check cashing, money transfers and bill payments. They are read with the services'
 * overview (`GET /api/pos/financial-services`).
 */
export function registerFinancialServiceSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const staff = guard(ctx, 'staff');
  app.patch(
    '/api/pos/financial-services/settings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: "Change the financial services' fees and limits",
          description:
            'The check-cashing fee schedule (basis points + fixed, minimum), the bill-payment fee and the limits per transaction and per customer per day of check cashing, money transfers and bill payments. Sub-objects are merged with the current settings. Owners only; audited with before and after (`financial_service_settings.updated`).',
          tags: ['financial-services'],
          access: 'staff',
          body: financialServiceSettingsPatch,
          response: financialServiceSettingsSchema,
          status: 200,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const patch = parseOrThrow(financialServiceSettingsPatch, request.body ?? undefined);
      return mutation(ctx, actorOf(principalOf(request)), (m) => updateFinancialServiceSettings(m, patch));
    },
  );
}
