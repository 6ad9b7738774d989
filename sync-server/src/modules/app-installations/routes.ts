/**
 * App installation routes: the owner installs a listed app approving
 * some of its scopes, staff list installations and launch in-platform apps, the owner uninstalls. The work spans
 * modules, so it is handed in from workflows/app-installation.ts.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseEmptyBody, parseOrThrow, problem } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { installationListQuery, installationSchema, installBodySchema, listInstallations, type InstallBody, type Installation } from './service.ts';

/** The installation operations that span modules (workflows/app-installation.ts), handed in by app.ts. */
export interface AppInstallationWorkflows {
  installApp(ctx: AppContext, principal: Principal, input: InstallBody): Promise<{ installation: Installation; connectUrl?: string }>;
  uninstallApp(ctx: AppContext, principal: Principal, id: string): Promise<Installation>;
  launchApp(ctx: AppContext, principal: Principal, id: string): Promise<{ launchUrl: string; accessToken: string; expiresAt: string }>;
}

const idParams = z.strictObject({
  id: z
    .string()
    .regex(/^ins_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an installation id starting with ins_')
    .describe('Installation id (`ins_…`).'),
});

/** Registers the app installation routes. */
export function registerAppInstallationRoutes(app: FastifyInstance, ctx: AppContext, flows: AppInstallationWorkflows): void {
  app.post(
    '/api/pos/app-installations',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Install an app from the directory',
          description:
            "Owner only. `scopes` is the owner's approval: a non-empty subset of the app's approved scopes (400 naming `scopes` otherwise). " +
            'An external integration also gets `connectUrl`: its launch URL with `installation` and a one-time `ticket` (10 minutes) that starts the OAuth 2.0 code + PKCE flow at `/oauth/authorize`.',
          tags: ['apps'],
          access: 'staff',
          body: installBodySchema,
          response: z.object({
            installation: installationSchema,
            connectUrl: z.string().optional(),
            connectUrlWithheld: z
              .literal(true)
              .optional()
              .describe(
                "Only on a replayed Idempotency-Key of an external integration's install: its one-time ticket is never stored, so `connectUrl` is left out (uninstall and install again for a new one)",
              ),
          }),
          status: 201,
          idempotent: true,
          errors: {
            404: 'No listed app `appId` (`not_found`)',
            409: 'The app is installed already (`already_installed`), or an external integration has no launch URL (`launch_url_missing`)',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const input = parseOrThrow(installBodySchema, request.body ?? undefined);
      const result = await flows.installApp(ctx, principalOf(request), input);
      // The one-time ticket is never stored: a replay answers the installation, and says the connect URL is withheld.
      const replay = { installation: result.installation, ...(result.connectUrl ? { connectUrlWithheld: true as const } : {}) };
      return { status: 201, body: result, replay: { status: 201, body: replay } };
    }),
  );

  app.get(
    '/api/pos/app-installations',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: "The store's app installations",
          description: 'Installed ones by default; `status` filters. Newest first, up to 500.',
          tags: ['apps'],
          access: 'staff',
          query: installationListQuery,
          response: z.object({ data: z.array(installationSchema) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { status } = parseOrThrow(installationListQuery, request.query, '(query)');
      return { data: await listInstallations(ctx.db, principalOf(request).merchantId, status) };
    },
  );

  app.delete(
    '/api/pos/app-installations/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Uninstall an app',
          description:
            'Owner only. Revokes every token of the installation (launch tokens, OAuth grants, access and refresh tokens) and deletes its webhook subscriptions in the same transaction; its tokens are 401 on their next request.',
          tags: ['apps'],
          access: 'staff',
          params: idParams,
          response: installationSchema,
          errors: { 409: 'Uninstalled already (`illegal_state_transition`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      return flows.uninstallApp(ctx, principalOf(request), id);
    },
  );

  app.post(
    '/api/pos/app-installations/:id/launch',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Launch an in-platform app',
          description:
            'A 1-hour app token bound to the installation, carrying only its granted scopes, for the app framed inside the register at `launchUrl`.',
          tags: ['apps'],
          access: 'staff',
          params: idParams,
          response: z.object({
            launchUrl: z.string(),
            accessToken: z.string().describe('`rpa_…`, valid until `expiresAt` while the app stays installed.'),
            expiresAt: z.string(),
          }),
          status: 200,
          idempotent: true,
          errors: {
            409: 'An external integration (`not_in_platform`), not installed (`illegal_state_transition`), or a replayed Idempotency-Key (`token_not_replayed`: the token is shown once)',
          },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      parseEmptyBody(request.body ?? {});
      const launched = await flows.launchApp(ctx, principalOf(request), id);
      // The token is never stored: a replay answers 409 (launch again with a new key for a new token).
      return {
        status: 200,
        body: launched,
        replay: {
          status: 409,
          body: problem(409, 'token_not_replayed', 'A launch token is shown once: launch again with a new Idempotency-Key for a new token.'),
        },
      };
    }),
  );
}
