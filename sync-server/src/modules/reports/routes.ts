import { stringify } from 'csv-stringify/sync';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import type { LedgerReconciliation } from '../../../../core/index.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import {
  refundReport,
  refundReportSchema,
  reportPeriodQuerySchema,
  SALES_GROUPINGS,
  settlementReport,
  settlementReportQuerySchema,
  settlementReportSchema,
  salesReport,
  salesReportSchema,
  taxReport,
  taxReportSchema,
  trialBalanceReport,
  trialBalanceReportSchema,
  type ReportPeriod,
} from './service.ts';

const salesQuerySchema = reportPeriodQuerySchema.extend({
  groupBy: z.enum(SALES_GROUPINGS).default('day').describe('Rows per day (local date), hour of day, item, category, tender method or staff member.'),
});

/** A CSV column: header and how to read it from a row. */
type Column<Row> = [header: string, value: (row: Row) => string | number | boolean | null];

/**
 * True when the caller asked for CSV: `?format=csv`, or no `format` and an Accept header naming `text/csv`.
 * `?format=json` always answers JSON.
 */
function wantsCsv(request: FastifyRequest, format: 'json' | 'csv' | undefined): boolean {
  if (format) return format === 'csv';
  const accept = request.headers.accept ?? '';
  return /(^|,)\s*text\/csv\b/i.test(accept);
}

/** Sends rows as an RFC 4180 CSV attachment (CRLF, header row, a final total row when given). */
function sendCsv<Row>(
  reply: FastifyReply,
  name: string,
  period: ReportPeriod,
  columns: Column<Row>[],
  rows: readonly Row[],
  total?: Row,
): FastifyReply {
  const records = [...rows, ...(total ? [total] : [])].map((row) => columns.map(([, value]) => value(row)));
  const csv = stringify(records, {
    header: true,
    columns: columns.map(([header]) => header),
    record_delimiter: 'windows',
    cast: { boolean: (v) => (v ? 'true' : 'false') },
  });
  return reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${name}-${period.from}-${period.to}.csv"`)
    .send(csv);
}

const figureColumns = [
  'orders',
  'refunds',
  'voids',
  'quantity',
  'refundedQuantity',
  'grossSalesCents',
  'discountCents',
  'refundCents',
  'voidCents',
  'netSalesCents',
  'taxCents',
  'tipCents',
  'totalCents',
] as const;

const csvDoc: Pick<RouteDoc, 'produces'> = { produces: ['application/json', 'text/csv'] };

/**
 * Reports (docs/api.md "Reports"; services/reports.ts): staff only, GET, each as JSON or CSV over a period of local
 * dates in the merchant's time zone.
 */
export function registerReportRoutes(app: FastifyInstance, ctx: AppContext): void {
  const staff = guard(ctx, 'staff');

  /**
   * The alert of a report that disagrees with the ledger: a warning in the server log and an audit entry
   * `report.unreconciled` naming the report, its period and the differences. The report itself carries the flag.
   */
  const alertIfUnreconciled = async (
    request: FastifyRequest,
    report: { report: string; period: { from: string; to: string; timeZone: string }; reconciliation: LedgerReconciliation },
  ) => {
    if (report.reconciliation.reconciled) return;
    const data = { report: report.report, period: report.period, ...report.reconciliation };
    request.log.warn({ alert: 'report.unreconciled', ...data }, 'report disagrees with the ledger postings');
    await mutation(ctx, actorOf(principalOf(request)), (m) =>
      m.audit({ action: 'report.unreconciled', entityType: 'report', entityId: report.report, data }),
    );
  };

  app.get(
    '/api/pos/reports/sales',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Sales summary',
          description:
            'Sales of the period (paid orders, issued invoices and paid pay links, counted when their sale was posted to the ' +
            'ledger) net of the refunds and invoice voids of the period, grouped by day, hour of day, item, category, tender or ' +
            'staff member. Reconciles with the ledger: `netSalesCents` = −(revenue + discounts + refunds postings), `taxCents` = ' +
            '−(sales tax payable postings) of the journal transactions in the period. `?format=csv` or `Accept: text/csv` for ' +
            'CSV (a final row holds the totals).',
          tags: ['reports'],
          access: 'staff',
          query: salesQuerySchema,
          response: salesReportSchema,
          ...csvDoc,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const q = parseOrThrow(salesQuerySchema, request.query, '(query)');
      const report = await salesReport(ctx.db, principalOf(request).merchantId, q, q.groupBy);
      await alertIfUnreconciled(request, report);
      if (!wantsCsv(request, q.format)) return report;
      if (report.groupBy === 'tender') {
        type T = { key: string; label: string; count: number; amountCents: number; tipCents: number; refundCents: number; netCents: number };
        const rows = report.rows as T[];
        const sum = (k: keyof Omit<T, 'key' | 'label'>) => rows.reduce((a, r) => a + r[k], 0);
        const total: T = {
          key: 'total',
          label: 'Total',
          count: sum('count'),
          amountCents: sum('amountCents'),
          tipCents: sum('tipCents'),
          refundCents: sum('refundCents'),
          netCents: sum('netCents'),
        };
        const cols: Column<T>[] = [
          ['tender', (r) => r.key],
          ['label', (r) => r.label],
          ...(['count', 'amountCents', 'tipCents', 'refundCents', 'netCents'] as const).map((k): Column<T> => [k, (r) => r[k]]),
        ];
        return sendCsv(reply, 'sales-by-tender', report.period, cols, rows, total);
      }
      type S = Record<(typeof figureColumns)[number], number> & { key: string; label: string };
      const cols: Column<S>[] = [[report.groupBy, (r) => r.key], ['label', (r) => r.label], ...figureColumns.map((k): Column<S> => [k, (r) => r[k]])];
      return sendCsv(reply, `sales-by-${report.groupBy}`, report.period, cols, report.rows as S[], {
        key: 'total',
        label: 'Total',
        ...report.totals,
      });
    },
  );

  app.get(
    '/api/pos/reports/tax',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Tax collected',
          description:
            'Tax collected on the sales of the period per tax rate (taxable base and tax), and tax given back by refunds. ' +
            '`totals.netCents` = −(sales tax payable postings of the journal transactions in the period). CSV: one row per ' +
            'rate, then `refunded` and `total` rows.',
          tags: ['reports'],
          access: 'staff',
          query: reportPeriodQuerySchema,
          response: taxReportSchema,
          ...csvDoc,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const q = parseOrThrow(reportPeriodQuerySchema, request.query, '(query)');
      const report = await taxReport(ctx.db, principalOf(request).merchantId, q);
      await alertIfUnreconciled(request, report);
      if (!wantsCsv(request, q.format)) return report;
      type R = {
        taxRateId: string;
        name: string;
        basisPoints: number | null;
        inclusive: boolean | null;
        orders: number | null;
        taxableCents: number;
        taxCents: number;
      };
      const cols: Column<R>[] = [
        ['taxRateId', (r) => r.taxRateId],
        ['name', (r) => r.name],
        ['basisPoints', (r) => r.basisPoints],
        ['inclusive', (r) => r.inclusive],
        ['orders', (r) => r.orders],
        ['taxableCents', (r) => r.taxableCents],
        ['taxCents', (r) => r.taxCents],
      ];
      const { totals } = report;
      const rows: R[] = [
        ...report.rows,
        {
          taxRateId: 'refunded',
          name: 'Tax refunded',
          basisPoints: null,
          inclusive: null,
          orders: null,
          taxableCents: 0,
          taxCents: -totals.refundedCents,
        },
      ];
      return sendCsv(reply, 'tax', report.period, cols, rows, {
        taxRateId: 'total',
        name: 'Net tax',
        basisPoints: null,
        inclusive: null,
        orders: null,
        taxableCents: totals.taxableCents,
        taxCents: totals.netCents,
      });
    },
  );

  app.get(
    '/api/pos/reports/refunds',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Refunds and cancellations',
          description:
            'Every refund (kind `refund`) and every cancellation of an open order that gave money back (kind `cancellation`) ' +
            'whose journal transaction occurred in the period, oldest first.',
          tags: ['reports'],
          access: 'staff',
          query: reportPeriodQuerySchema,
          response: refundReportSchema,
          ...csvDoc,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const q = parseOrThrow(reportPeriodQuerySchema, request.query, '(query)');
      const report = await refundReport(ctx.db, principalOf(request).merchantId, q);
      if (!wantsCsv(request, q.format)) return report;
      type R = (typeof report.rows)[number];
      const keys = [
        'refundId',
        'orderId',
        'receiptNumber',
        'kind',
        'occurredAt',
        'amountCents',
        'goodsCents',
        'taxCents',
        'tipCents',
        'lines',
        'restock',
        'reason',
      ] as const;
      const cols: Column<R>[] = keys.map((k): Column<R> => [k, (r) => r[k]]);
      return sendCsv(reply, 'refunds', report.period, cols, report.rows);
    },
  );

  app.get(
    '/api/pos/reports/settlements',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Settlements of card and bank payments over a period',
          description:
            'Card and bank payments captured in the period, by their settlement state now (pending, settled, returned by the bank and reversed): counts and amounts in all and per rail.',
          tags: ['reports'],
          access: 'staff',
          query: settlementReportQuerySchema,
          response: settlementReportSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(settlementReportQuerySchema, request.query, '(query)');
      return settlementReport(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/reports/trial-balance',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Trial balance of the ledger over a period',
          description:
            'Per account: balance before the period, debits and credits posted in it (by journal transaction `occurredAt`), ' +
            'closing balance. Every source counts (orders, invoices, pay links). Debits = credits; opening and closing totals are 0.',
          tags: ['reports'],
          access: 'staff',
          query: reportPeriodQuerySchema,
          response: trialBalanceReportSchema,
          ...csvDoc,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const q = parseOrThrow(reportPeriodQuerySchema, request.query, '(query)');
      const report = await trialBalanceReport(ctx.db, principalOf(request).merchantId, q);
      if (!wantsCsv(request, q.format)) return report;
      type R = (typeof report.rows)[number];
      type T = Omit<R, 'type'> & { type: R['type'] | '' };
      const keys = ['code', 'name', 'type', 'openingCents', 'debitCents', 'creditCents', 'closingCents'] as const;
      const cols: Column<T>[] = keys.map((k): Column<T> => [k, (r) => r[k]]);
      return sendCsv<T>(reply, 'trial-balance', report.period, cols, report.rows, { code: 'total', name: 'Total', type: '', ...report.totals });
    },
  );
}
