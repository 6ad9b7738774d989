import { stringify } from 'csv-stringify/sync';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  businessDayOf,
  businessDaySchema,
  cashMovementSchema,
  reportLines,
  shiftCloseoutSchema,
  shiftSchema,
  zReportSchema,
} from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { actorOf, type MutationActor } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { renderReportPdf } from './pdf.ts';
import { getShiftRecord, listStoreCloseouts, type ShiftRecord } from './store.ts';

/**
 * What the closeout routes do that spans modules (workflows/shift-closeout.ts), handed in by app.ts: the server's
 * report of a shift, the status of a business day and the store closeout.
 */
export interface CloseoutWorkflows {
  /** workflows/shift-closeout.ts `shiftView`: the shift with the server's recomputed report and the differences. */
  shiftView(db: Queryable, merchantId: string, record: ShiftRecord, at: Date): Promise<z.infer<typeof shiftViewSchema>>;
  /** `dayStatus`: shifts, missing registers and totals of a business day. */
  dayStatus(db: Queryable, merchantId: string, day: string, now: Date): Promise<z.infer<typeof dayStatusSchema>>;
  /** `closeStoreDay`: the store closeout (409 `day_closed` / `registers_missing`) and its signed checkpoint. */
  closeStoreDay(ctx: AppContext, who: MutationActor, day: string, closeWithMissing: boolean): Promise<z.infer<typeof closedDaySchema>>;
  /** `storeDayOf`: the store's currency, time zone and day cut-off hour. */
  storeDayOf(db: Queryable, merchantId: string): Promise<{ currency: string; timeZone: string; cutoffHour: number }>;
}

/** Who closes the store's day: owners and managers. */

const difference = z.strictObject({ field: z.string(), register: z.unknown(), server: z.unknown() });
const shiftViewSchema = z.strictObject({
  shift: shiftSchema,
  businessDay: z.string().describe('YYYY-MM-DD in the store time zone, days ending at the cut-off hour'),
  status: z.enum(['open', 'closed']),
  closeout: shiftCloseoutSchema.nullable(),
  movements: z.array(cashMovementSchema),
  report: zReportSchema.describe("The server's figures, recomputed from the sales and ledger postings it holds (X-report while open)"),
  differences: z.array(difference).describe("Figures of the register's closeout report that differ from the server's; empty when they agree"),
});
const missingSchema = z.strictObject({
  registerId: z.string(),
  registerNumber: z.int(),
  name: z.string(),
  reason: z.enum(['open_shift', 'not_synced']),
  shiftId: z.string().optional(),
  lastSeenAt: z.string().nullable(),
});
const totalsSchema = zReportSchema
  .omit({ kind: true, shiftId: true, registerId: true, registerNumber: true, openedAt: true, closedAt: true })
  .extend({
    receiptRanges: z.array(z.strictObject({ registerNumber: z.int(), first: z.string().nullable(), last: z.string().nullable() })),
  });
const dayStatusSchema = z.strictObject({
  businessDay: z.string(),
  timeZone: z.string(),
  cutoffHour: z.int(),
  closed: z.boolean(),
  closedAt: z.string().nullable(),
  shifts: z.array(shiftViewSchema),
  missing: z.array(missingSchema),
  totals: totalsSchema,
});
const closedDaySchema = dayStatusSchema.extend({
  checkpoint: z
    .strictObject({ seq: z.int(), headHash: z.string(), signedAt: z.string() })
    .nullable()
    .describe('The signed audit checkpoint written at this closeout'),
});
const shiftParams = z.strictObject({ id: z.string().regex(/^shf_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a shift id (shf_…)') });
const dayParams = z.strictObject({ day: businessDaySchema });
const formatQuery = z.strictObject({ format: z.enum(['json', 'csv', 'pdf']).default('json') });
const listQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(366).default(31) });
const listResponse = z.strictObject({
  today: z.string().describe('The current business day'),
  days: z.array(z.strictObject({ businessDay: z.string(), closedAt: z.string(), missingCount: z.int() })),
});
const closeBody = z.strictObject({
  businessDay: businessDaySchema,
  closeWithMissing: z.boolean().default(false).describe('Close although registers are missing: they are recorded on the closeout'),
});
const reportDoc: Pick<RouteDoc, 'produces'> = { produces: ['application/json', 'text/csv', 'application/pdf'] };

async function sendReport(
  reply: FastifyReply,
  format: 'csv' | 'pdf',
  name: string,
  title: string,
  lines: { label: string; value: string }[],
  now: Date,
): Promise<FastifyReply> {
  if (format === 'csv') {
    const csv = stringify(
      lines.map((l) => [l.label, l.value]),
      { header: true, columns: ['label', 'value'], record_delimiter: 'windows' },
    );
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="${name}.csv"`).send(csv);
  }
  const pdf = await renderReportPdf(title, lines, now);
  return reply.type('application/pdf').header('Content-Disposition', `attachment; filename="${name}.pdf"`).send(Buffer.from(pdf));
}

/**
 * Shifts and closeouts (docs/api.md "Shifts and the daily closeout"): staff only; the store closeout owners and
 * managers only. Shifts themselves are register-authored (sync collections `shifts`, `cash-movements`,
 * `shift-closeouts`); these routes read them with the server's recomputed figures and close the store's day.
 */
export function registerCloseoutRoutes(app: FastifyInstance, ctx: AppContext, workflows: CloseoutWorkflows): void {
  const staff = guard(ctx, 'staff');

  const loadShift = async (merchantId: string, id: string) => {
    const record = await getShiftRecord(ctx.db, merchantId, id);
    if (!record) throw new ProblemError(404, 'not_found', `Shift ${id} does not exist.`);
    return workflows.shiftView(ctx.db, merchantId, record, ctx.clock());
  };

  app.get(
    '/api/pos/shifts/:id',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get a shift with its X- or Z-report',
          description:
            "The shift, its cash movements and closeout as the register synced them, the server's report recomputed now from " +
            "the sales and ledger postings it holds (an X-report while the shift is open), and `differences` from the register's report.",
          tags: ['closeout'],
          access: 'staff',
          params: shiftParams,
          response: shiftViewSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(shiftParams, request.params, '(path)');
      return loadShift(principalOf(request).merchantId, id);
    },
  );

  app.get(
    '/api/pos/shifts/:id/report',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: "Download a shift's Z-report (X-report while open)",
          description: "The server's report of the shift as JSON (`format=json`), CSV (label,value rows) or PDF.",
          tags: ['closeout'],
          access: 'staff',
          params: shiftParams,
          query: formatQuery,
          response: zReportSchema,
          ...reportDoc,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const { format } = parseOrThrow(formatQuery, request.query, '(query)');
      const { id } = parseOrThrow(shiftParams, request.params, '(path)');
      const view = await loadShift(principalOf(request).merchantId, id);
      if (format === 'json') return view.report;
      const title = `${view.report.kind === 'z' ? 'Z' : 'X'}-report R${view.report.registerNumber} ${view.businessDay}`;
      return sendReport(reply, format, `${view.report.kind}-report-${id}`, title, reportLines(title, view.report), ctx.clock());
    },
  );

  app.get(
    '/api/pos/closeouts',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List closed business days',
          description: "The store's current business day and its closed days, newest first.",
          tags: ['closeout'],
          access: 'staff',
          query: listQuery,
          response: listResponse,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { limit } = parseOrThrow(listQuery, request.query, '(query)');
      const merchantId = principalOf(request).merchantId;
      const store = await workflows.storeDayOf(ctx.db, merchantId);
      return { today: businessDayOf(ctx.clock(), store.timeZone, store.cutoffHour), days: await listStoreCloseouts(ctx.db, merchantId, limit) };
    },
  );

  app.get(
    '/api/pos/closeouts/:day',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get a business day: shifts per register, missing registers, totals',
          description:
            "Every shift of the day with the server's figures and differences, the registers missing (`open_shift`, or " +
            '`not_synced`: an active register with no shift of the day not seen since the day ended), and the roll-up. A closed day answers what its closeout recorded.',
          tags: ['closeout'],
          access: 'staff',
          params: dayParams,
          response: dayStatusSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { day } = parseOrThrow(dayParams, request.params, '(path)');
      return workflows.dayStatus(ctx.db, principalOf(request).merchantId, day, ctx.clock());
    },
  );

  app.get(
    '/api/pos/closeouts/:day/report',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: "Download a business day's store report",
          description: 'The roll-up of every shift of the day as JSON, CSV (label,value rows) or PDF.',
          tags: ['closeout'],
          access: 'staff',
          params: dayParams,
          query: formatQuery,
          response: totalsSchema,
          ...reportDoc,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const { format } = parseOrThrow(formatQuery, request.query, '(query)');
      const { day } = parseOrThrow(dayParams, request.params, '(path)');
      const status = await workflows.dayStatus(ctx.db, principalOf(request).merchantId, day, ctx.clock());
      if (format === 'json') return status.totals;
      const title = `Store closeout ${day}${status.closed ? '' : ' (open)'}`;
      return sendReport(reply, format, `closeout-${day}`, title, reportLines(title, status.totals), ctx.clock());
    },
  );

  app.post(
    '/api/pos/closeouts',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: "Close the store's business day",
          description:
            'Rolls up every shift of the day, records the store closeout and locks the day (later records fall into the next ' +
            'day; pushes into it are quarantined naming it), then signs an audit checkpoint. Owners and managers only. While ' +
            'registers are missing → 409 `registers_missing` naming them, unless `closeWithMissing` (recorded on the closeout).',
          tags: ['closeout'],
          access: 'staff',
          body: closeBody,
          response: closedDaySchema,
          status: 201,
          idempotent: true,
          errors: { 409: 'Day already closed (`day_closed`, naming the day) or registers missing (`registers_missing`, naming them)' },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const principal = principalOf(request);
      const body = parseOrThrow(closeBody, request.body);
      const closed = await workflows.closeStoreDay(ctx, actorOf(principal), body.businessDay, body.closeWithMissing);
      return { status: 201, body: closed };
    }),
  );
}
