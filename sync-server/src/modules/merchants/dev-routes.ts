import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { findDemoStore, lastReceiptSequenceOf, pairDemoRegister } from './pairing.ts';

/** Staff tokens handed to demo registers live 30 days (a demo register is a browser tab left open for weeks). */
export const DEMO_STAFF_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

const pairBody = z.strictObject({ registerId: z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/, 'must be a register id').optional() });
const pairResponse = z.strictObject({
  staffToken: z.string(),
  merchantId: z.string(),
  merchantName: z.string(),
  currency: z.string(),
  registerId: z.string(),
  registerNumber: z.int(),
  lastReceiptSequence: z.int(),
});

/**
 * Demo register pairing: no authentication, demo store only. Returns the register (existing when `registerId` is
 * known, else the next number) with a staff token and the highest receipt sequence the server has for it, so a
 * re-installed register never reuses a receipt number (DESIGN §8).
 */
export function registerDevRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/dev/pair-register', {
    config: {
      openapi: {
        summary: 'Pair a register with the demo store',
        description:
          'No authentication, demo store only. Returns the known register when `registerId` belongs to the demo store, else ' +
          'creates the next one, with a 30-day staff token and the highest receipt sequence the server holds for it.',
        tags: ['dev'],
        body: pairBody,
        response: pairResponse,
        idempotent: false,
        errors: { 404: 'No demo store on this server (`no_demo_store`)' },
      } satisfies RouteDoc,
    },
  }, async (request) => {
    const body = parseOrThrow(pairBody, request.body === undefined ? {} : request.body);
    const { merchant: demo, staff } = await findDemoStore(ctx.db);
    const register = await pairDemoRegister(ctx, { merchantId: demo.id, staffId: staff.id }, body.registerId);
    const lastReceiptSequence = await lastReceiptSequenceOf(ctx.db, register.id);
    const staffToken = await ctx.idp.issueStaffToken({ staffId: staff.id, merchantId: demo.id, role: staff.role }, { ttlSeconds: DEMO_STAFF_TOKEN_TTL_SECONDS, now: ctx.clock() });
    return {
      staffToken,
      merchantId: demo.id,
      merchantName: demo.name,
      currency: demo.currency,
      registerId: register.id,
      registerNumber: register.number,
      lastReceiptSequence,
    };
  });
}
