import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { enrolledRegisterSchema } from './enrollment-routes.ts';
import { selfPairDemoRegister } from './enrollment.ts';
import { findDemoStore } from './pairing.ts';

const pairBody = z.strictObject({
  registerId: z
    .string()
    .regex(/^reg_[A-Za-z0-9_-]{1,40}$/, 'must be a register id')
    .optional(),
});

const LOOPBACK_ADDRESS = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/i;

/**
 * True when the request comes from this machine to a loopback name: the TCP peer (never `X-Forwarded-For`, which
 * anyone can send) is a loopback address, no proxy header is present (a reverse proxy on this machine forwards
 * strangers), and the Host header names loopback (a DNS-rebinding page on another name is refused).
 */
export function isLoopbackRequest(request: FastifyRequest): boolean {
  const peer = request.socket.remoteAddress ?? '';
  const host = request.headers.host ?? '';
  const proxied =
    request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined || request.headers['x-real-ip'] !== undefined;
  return LOOPBACK_ADDRESS.test(peer) && !proxied && LOOPBACK_HOST.test(host);
}

/**
 * Demo-mode self-pairing (`ServerConfig.demoSelfPair`, set by `npm start`; the route does not exist otherwise): the
 * register served on loopback pairs itself with the demo store in one step. Answers a register credential — the same
 * answer as `POST /api/register/pair` —, never a staff token; from any other address 403 `loopback_only`.
 */
export function registerDevRoutes(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.demoSelfPair) return;
  app.post(
    '/api/dev/pair-register',
    {
      config: {
        openapi: {
          summary: 'Pair a register served on loopback with the demo store (demo mode only)',
          description:
            'Demo mode only (`npm start`), and only from this machine (loopback peer, loopback Host, no proxy headers): the known ' +
            'register when `registerId` is an active register of the demo store, else the next one (named `Demo register <n> (<browser> on <system>)` ' +
            'from the User-Agent, as each browser profile pairs as its own register), with a register credential ' +
            '(syncing and selling only). Registers elsewhere pair with a code (`POST /api/register/pair`).',
          tags: ['dev'],
          body: pairBody,
          response: enrolledRegisterSchema,
          idempotent: false,
          errors: {
            403: 'Not from loopback (`loopback_only`)',
            404: 'No demo store on this server (`no_demo_store`)',
            409: 'The register was revoked (`register_revoked`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      if (!isLoopbackRequest(request)) {
        throw new ProblemError(
          403,
          'loopback_only',
          'Registers pair themselves only on this machine in demo mode; elsewhere ask a manager for a pairing code.',
        );
      }
      const body = parseOrThrow(pairBody, request.body === undefined ? {} : request.body);
      const { merchant: demo } = await findDemoStore(ctx.db);
      return selfPairDemoRegister(ctx, { merchantId: demo.id, actor: 'system' }, body.registerId, request.headers['user-agent']);
    },
  );
}
