import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { newId, parseReceiptNumber } from '../../../../core/index.ts';
import type { AppContext } from '../../platform/context.ts';
import { lockMerchant } from '../../platform/db/db.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { appendAudit } from '../../kernel/audit.ts';

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
    const demo = (
      await ctx.db.query<{ id: string; name: string; currency: string }>('SELECT id, name, currency FROM merchants WHERE is_demo ORDER BY created_at, id LIMIT 1')
    ).rows[0];
    if (!demo) throw new ProblemError(404, 'no_demo_store', 'This server has no demo store; registers are paired by the merchant.');
    const staff = (await ctx.db.query<{ id: string; role: string }>(`SELECT id, role FROM staff WHERE merchant_id = $1 ORDER BY (role = 'owner') DESC, created_at LIMIT 1`, [demo.id])).rows[0];
    if (!staff) throw new ProblemError(404, 'no_demo_store', 'The demo store has no staff member.');

    const register = await ctx.db.transaction(async (tx) => {
      await lockMerchant(tx, demo.id);
      if (body.registerId) {
        const known = (await tx.query<{ id: string; number: number }>('SELECT id, number FROM registers WHERE id = $1 AND merchant_id = $2', [body.registerId, demo.id])).rows[0];
        if (known) return known;
      }
      const next = (await tx.query<{ n: number | string }>('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM registers WHERE merchant_id = $1', [demo.id])).rows[0]!;
      const created = { id: newId('register'), number: Number(next.n) };
      await tx.query('INSERT INTO registers (id, merchant_id, number, name) VALUES ($1, $2, $3, $4)', [created.id, demo.id, created.number, `Register ${created.number}`]);
      await appendAudit(tx, {
        merchantId: demo.id,
        actor: `staff:${staff.id}`,
        registerId: created.id,
        action: 'register.paired',
        entityType: 'register',
        entityId: created.id,
        occurredAt: ctx.clock(),
        data: { number: created.number, requestedId: body.registerId ?? null },
      });
      return created;
    });

    const receipts = await ctx.db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1', [register.id]);
    const lastReceiptSequence = receipts.rows.reduce((max, r) => Math.max(max, parseReceiptNumber(r.receipt_number)?.sequence ?? 0), 0);
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
