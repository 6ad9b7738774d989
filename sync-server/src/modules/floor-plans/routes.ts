import type { FastifyInstance } from 'fastify';
import { floorPlanSchema, floorPlanUpdateSchema } from '../../../../core/index.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import { readFloorPlan, type saveFloorPlan } from './service.ts';

/**
 * The floor plan API: `GET /api/pos/floor-plan` (staff and registers: the register opens on it) and
 * `PUT /api/pos/floor-plan` (managers: the back office's editor saves the whole plan, naming the version it edited).
 */
export function registerFloorPlanRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  deps: { saveFloorPlan: (m: Parameters<typeof saveFloorPlan>[0], update: Parameters<typeof saveFloorPlan>[1]) => ReturnType<typeof saveFloorPlan> },
): void {
  app.get(
    '/api/pos/floor-plan',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: "The store's floor plan",
          description:
            'Areas and their tables with names, seats, shapes and places (plan units on a 1200 × 800 canvas). Version 0 with no areas: never saved.',
          tags: ['restaurant'],
          access: 'register',
          response: floorPlanSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => readFloorPlan(ctx.db, principalOf(request).merchantId),
  );

  app.put(
    '/api/pos/floor-plan',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Save the floor plan',
          description:
            'The whole plan as edited, with the version it was edited from. Areas and tables without an id are new and get one; a table keeps its id for life (open checks name it). Names are unique in the store; tables lie inside the canvas and do not overlap.',
          errors: {
            409: 'Saved by someone else since `version` (`floor_plan_changed`): reload and edit again; or the save removes a table that has an open check (`table_has_open_check`, naming the table): close or move the check first',
          },
          tags: ['restaurant'],
          access: 'staff',
          body: floorPlanUpdateSchema,
          response: floorPlanSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(floorPlanUpdateSchema, request.body ?? undefined);
      return mutation(ctx, actorOf(principalOf(request)), (m) => deps.saveFloorPlan(m, body));
    },
  );
}
