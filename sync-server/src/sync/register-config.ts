/**
 * What a register learns from its server's configuration: the address of the web hardware bridge that
 * `npm start` runs beside the server (`BRIDGE_PORT`, main.ts → `ServerConfig.deviceBridgeUrl`), so a register never
 * proposes the default address when the bridge was started on another port. Register credentials (or staff).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { guard } from '../platform/auth/guard.ts';
import type { AppContext } from '../platform/context.ts';
import type { RouteDoc } from '../platform/http/route-doc.ts';

const deviceBridgeResponse = z.strictObject({
  url: z
    .string()
    .nullable()
    .describe("WebSocket address of the hardware bridge on the register's computer (ws://127.0.0.1:PORT); null when the server does not run one"),
});

/** `GET /api/register/device-bridge`: `{ url }` from `ServerConfig.deviceBridgeUrl` (null when not configured). */
export function registerRegisterConfigRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/register/device-bridge',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Get the hardware bridge address this server was started with',
          description:
            'The address of the web hardware bridge started beside this server (`BRIDGE_PORT`). A register whose cashier has not set ' +
            'an address in Devices uses this one instead of the default ws://127.0.0.1:8790.',
          tags: ['registers'],
          access: 'register',
          response: deviceBridgeResponse,
        } satisfies RouteDoc,
      },
    },
    async () => ({ url: ctx.config.deviceBridgeUrl ?? null }),
  );
}
