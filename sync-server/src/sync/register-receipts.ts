/**
 * What the server knows of a register's receipt numbers, and the receipts a register reports lost (its browser
 * storage was cleared before they synced: its receipt counter ran ahead of what it holds and of what the server
 * received). Lost receipts are kept in the audit trail (`register.receipts_missing`, one entry per report with the
 * numbers not reported before) and listed for the back office. Staff tokens only.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { formatReceiptNumber, parseReceiptNumber, receiptNumberSchema, SERVICE_STYLES, type ServiceStyle } from '../../../core/index.ts';
import { guard, principalOf } from '../platform/auth/guard.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/db.ts';
import { parseOrThrow, ProblemError } from '../platform/http/problem.ts';
import type { RouteDoc } from '../platform/http/route-doc.ts';
import { actorOf, mutation } from '../kernel/mutation.ts';

/** Receipt numbers in one report, at most. */
export const MAX_MISSING_RECEIPTS_PER_REPORT = 1000;

const registerParams = z.strictObject({ registerId: z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/, 'must be a register id') });
const registerReceiptsResponse = z.strictObject({
  registerId: z.string(),
  registerNumber: z.int(),
  lastReceiptNumber: z.string().nullable().describe('The highest receipt number the server holds from this register; null when none'),
  lastReceiptSequence: z.int().describe('Its sequence (0 when none)'),
  missingReceiptNumbers: z.array(z.string()).describe('Receipt numbers this register reported lost, ascending'),
  confirmSellPastZero: z.boolean().describe("The store's setting: the register asks once before selling past zero stock"),
  serviceStyle: z
    .enum(SERVICE_STYLES)
    .describe("The store's setting: what the register opens on (retail: the counter; restaurant: the floor plan; both)"),
});
const missingBody = z.strictObject({
  receiptNumbers: z.array(receiptNumberSchema).min(1).max(MAX_MISSING_RECEIPTS_PER_REPORT),
});
const missingListResponse = z.strictObject({
  data: z.array(
    z.strictObject({
      registerId: z.string(),
      registerNumber: z.int(),
      receiptNumber: z.string(),
      reportedAt: z.string().describe('ISO 8601 time of the first report'),
    }),
  ),
});

interface RegisterRow {
  id: string;
  number: number;
}

async function registerOf(db: Queryable, merchantId: string, registerId: string): Promise<RegisterRow> {
  const row = (await db.query<RegisterRow>('SELECT id, number FROM registers WHERE id = $1 AND merchant_id = $2', [registerId, merchantId])).rows[0];
  if (!row) throw new ProblemError(404, 'not_found', `No register ${registerId} in this store.`);
  return row;
}

/** Every receipt number reported lost by the merchant's registers (first report of each), by register then number. */
async function missingReceipts(
  db: Queryable,
  merchantId: string,
  registerId?: string,
): Promise<{ registerId: string; receiptNumber: string; reportedAt: string }[]> {
  const { rows } = await db.query<{ register_id: string; data: { receiptNumbers?: string[] }; occurred_at: Date }>(
    `SELECT register_id, data, occurred_at FROM audit_log WHERE merchant_id = $1 AND action = 'register.receipts_missing'
       AND ($2::text IS NULL OR register_id = $2) ORDER BY seq`,
    [merchantId, registerId ?? null],
  );
  const seen = new Map<string, { registerId: string; receiptNumber: string; reportedAt: string }>();
  for (const row of rows) {
    for (const receiptNumber of row.data.receiptNumbers ?? []) {
      const key = `${row.register_id} ${receiptNumber}`;
      if (!seen.has(key)) seen.set(key, { registerId: row.register_id, receiptNumber, reportedAt: new Date(row.occurred_at).toISOString() });
    }
  }
  const sequence = (n: string) => parseReceiptNumber(n)?.sequence ?? 0;
  return [...seen.values()].sort((a, b) => a.registerId.localeCompare(b.registerId) || sequence(a.receiptNumber) - sequence(b.receiptNumber));
}

/**
 * The store's settings a register keeps for offline use (modules/merchants/settings.ts): selling past zero (migration
 * 0155; false when the row is gone) and the service style (migration 0295; retail when the row is gone).
 */
async function registerSettings(db: Queryable, merchantId: string): Promise<{ confirmSellPastZero: boolean; serviceStyle: ServiceStyle }> {
  const { rows } = await db.query<{ confirm_sell_past_zero: boolean; service_style: ServiceStyle }>(
    'SELECT confirm_sell_past_zero, service_style FROM merchants WHERE id = $1',
    [merchantId],
  );
  return { confirmSellPastZero: rows[0]?.confirm_sell_past_zero ?? false, serviceStyle: rows[0]?.service_style ?? 'retail' };
}

async function lastReceiptSequence(db: Queryable, registerId: string): Promise<number> {
  const { rows } = await db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1', [registerId]);
  return rows.reduce((max, r) => Math.max(max, parseReceiptNumber(r.receipt_number)?.sequence ?? 0), 0);
}

/** @throws ProblemError 403 `other_register` when a register credential names another register than its own. */
function assertOwnRegister(principal: Principal, registerId: string): void {
  if (principal.kind === 'register' && principal.registerId !== registerId) {
    throw new ProblemError(403, 'other_register', 'A register credential reads and reports its own register only.');
  }
}

/** `GET /api/sync/registers/{registerId}`, `POST …/missing-receipts` (staff or that register), `GET /api/sync/missing-receipts` (staff). */
export function registerRegisterReceiptRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/sync/registers/:registerId',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: "Get what the server knows of a register's receipts",
          description:
            'The highest receipt number the server holds from this register, and the receipt numbers it reported lost. A register ' +
            'compares them with its own receipt counter at start-up to notice sales lost with its browser storage.',
          tags: ['sync'],
          access: 'register',
          params: registerParams,
          response: registerReceiptsResponse,
          errors: {
            403: 'A register credential asking for another register (`other_register`)',
            404: 'No such register in this store (`not_found`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { registerId } = parseOrThrow(registerParams, request.params, '(path)');
      const merchantId = principalOf(request).merchantId;
      const register = await registerOf(ctx.db, merchantId, registerId);
      assertOwnRegister(principalOf(request), register.id);
      const last = await lastReceiptSequence(ctx.db, register.id);
      return {
        registerId: register.id,
        registerNumber: register.number,
        lastReceiptNumber: last > 0 ? formatReceiptNumber(register.number, last) : null,
        lastReceiptSequence: last,
        missingReceiptNumbers: (await missingReceipts(ctx.db, merchantId, register.id)).map((m) => m.receiptNumber),
        ...(await registerSettings(ctx.db, merchantId)),
      };
    },
  );

  app.post(
    '/api/sync/registers/:registerId/missing-receipts',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Report receipt numbers a register lost',
          description:
            'Receipt numbers this register handed out whose sales it no longer holds and the server never received (its browser ' +
            'storage was cleared before they synced). Numbers of this register only, not held by the server. Audited ' +
            '(`register.receipts_missing`); idempotent by content (numbers already reported are ignored), so no Idempotency-Key is needed. ' +
            "Answers the register's state as `GET /api/sync/registers/{registerId}` does.",
          tags: ['sync'],
          access: 'register',
          params: registerParams,
          body: missingBody,
          response: registerReceiptsResponse,
          idempotent: false,
          errors: {
            403: 'A register credential asking for another register (`other_register`)',
            404: 'No such register in this store (`not_found`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { registerId } = parseOrThrow(registerParams, request.params, '(path)');
      const body = parseOrThrow(missingBody, request.body);
      const principal = principalOf(request);
      const merchantId = principal.merchantId;
      return mutation(ctx, actorOf(principal), async (m) => {
        const tx = m.tx;
        const register = await registerOf(tx, merchantId, registerId);
        assertOwnRegister(principal, register.id);
        const errors = body.receiptNumbers.flatMap((n, i) =>
          parseReceiptNumber(n)?.registerNumber === register.number
            ? []
            : [{ path: `receiptNumbers.${i}`, message: `is not a receipt number of register ${register.number}` }],
        );
        if (errors.length > 0)
          throw new ProblemError(400, 'validation_error', `Invalid receiptNumbers: ${errors[0]!.path} ${errors[0]!.message}`, errors);
        const held = new Set(
          (
            await tx.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1 AND receipt_number = ANY($2)', [
              register.id,
              body.receiptNumbers,
            ])
          ).rows.map((r) => r.receipt_number),
        );
        const known = new Set((await missingReceipts(tx, merchantId, register.id)).map((m) => m.receiptNumber));
        const fresh = [...new Set(body.receiptNumbers)].filter((n) => !held.has(n) && !known.has(n));
        if (fresh.length > 0) {
          await m.audit({
            registerId: register.id,
            action: 'register.receipts_missing',
            entityType: 'register',
            entityId: register.id,
            data: { receiptNumbers: fresh },
          });
        }
        const last = await lastReceiptSequence(tx, register.id);
        return {
          registerId: register.id,
          registerNumber: register.number,
          lastReceiptNumber: last > 0 ? formatReceiptNumber(register.number, last) : null,
          lastReceiptSequence: last,
          missingReceiptNumbers: (await missingReceipts(tx, merchantId, register.id)).map((m) => m.receiptNumber),
          ...(await registerSettings(tx, merchantId)),
        };
      });
    },
  );

  app.get(
    '/api/sync/missing-receipts',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List receipt numbers registers reported lost',
          description: "Every receipt number the store's registers reported lost (first report of each), by register and number.",
          tags: ['sync'],
          access: 'staff',
          response: missingListResponse,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      const missing = await missingReceipts(ctx.db, merchantId);
      const numbers = new Map(
        (await ctx.db.query<RegisterRow>('SELECT id, number FROM registers WHERE merchant_id = $1', [merchantId])).rows.map((r) => [r.id, r.number]),
      );
      return { data: missing.map((m) => ({ ...m, registerNumber: numbers.get(m.registerId) ?? 0 })) };
    },
  );
}
