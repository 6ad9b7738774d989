/**
 * Recurring invoice series: a template (customer, lines, memo, due-date offset, channels) and an RFC 5545
 * RRULE evaluated with the `rrule` package over whole UTC days from `startDate`. States `active ⇄ paused → ended`.
 *
 * The housekeeping tick (workflows/housekeeping.ts, started by buildApp and stopped on close, on the injected clock)
 * generates one invoice per occurrence date up to today, idempotently: the database holds a unique key on
 * (series, occurrence date) and every insert is `ON CONFLICT DO NOTHING`, so a restart — or two instances ticking at
 * once — never makes a duplicate. Missed occurrences (the server was down) are caught up; occurrences that fall while
 * a series is paused are skipped. Auto-send series have their generated drafts sent by the same tick (a draft left
 * unsent by a crash is sent by the next tick). The tick spans modules, so it is a workflow
 * (workflows/recurring-invoices.ts, run by workflows/housekeeping.ts) that calls the functions here.
 */
import rrulePkg from 'rrule';
import {
  assertSeriesTransition,
  IllegalTransitionError,
  newId,
  utcDate,
  type InvoiceSeries,
  type InvoiceSeriesCreate,
  type SeriesStatus,
} from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError, StateConflictError } from '../../platform/http/problem.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { billToOf, channelsFor, insertDraft, priceLinesFor, type CatalogLoader } from './service.ts';

const { rrulestr } = rrulePkg;
type RRuleSet = ReturnType<typeof rrulestr>;

const DAY_MS = 24 * 3600 * 1000;
/** Most occurrences one series catches up in one tick (the rest follow on the next ticks). */
export const MAX_OCCURRENCES_PER_TICK = 50;

interface SeriesRow {
  id: string;
  merchant_id: string;
  status: SeriesStatus;
  customer_id: string;
  rrule: string;
  start_date: string;
  days_until_due: number;
  auto_send: boolean;
  channels: ('sms' | 'email')[] | null;
  memo: string | null;
  line_items: InvoiceSeries['lineItems'];
  custom_lines: InvoiceSeries['customLines'];
  cursor_date: string;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
  invoice_count?: number | string;
  last_occurrence?: string | null;
}

const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);
const addDays = (date: string, days: number) => utcDate(new Date(midnight(date).getTime() + days * DAY_MS));

/**
 * Parses a series' rule anchored at `startDate` (UTC midnight).
 * @throws ProblemError 400 naming `rrule` when the rrule package refuses it.
 */
export function parseSeriesRule(rule: string, startDate: string): RRuleSet {
  const body = rule.replace(/^RRULE:/, '');
  try {
    const parsed = rrulestr(`DTSTART:${startDate.replaceAll('-', '')}T000000Z\nRRULE:${body}`);
    parsed.after(midnight(startDate), true); // evaluates the rule once, so a broken one fails here
    return parsed;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ProblemError(400, 'validation_error', `Invalid rrule: ${message}`, [
      { path: 'rrule', message: `is not a valid RFC 5545 RRULE: ${message}` },
    ]);
  }
}

/** The first occurrence date on or after `from` (YYYY-MM-DD), or null when the rule has no more. */
function nextOccurrence(rule: RRuleSet, from: string): string | null {
  const next = rule.after(midnight(from), true);
  return next ? utcDate(next) : null;
}

function toSeries(row: SeriesRow): InvoiceSeries {
  const rule = parseSeriesRule(row.rrule, row.start_date);
  return {
    id: row.id,
    status: row.status,
    customerId: row.customer_id,
    rrule: row.rrule,
    startDate: row.start_date,
    daysUntilDue: row.days_until_due,
    autoSend: row.auto_send,
    channels: row.channels,
    memo: row.memo,
    lineItems: row.line_items,
    customLines: row.custom_lines,
    nextOccurrenceDate: row.status === 'ended' ? null : nextOccurrence(rule, row.cursor_date),
    lastOccurrenceDate: row.last_occurrence ?? null,
    invoiceCount: Number(row.invoice_count ?? 0),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    endedAt: row.ended_at ? new Date(row.ended_at).toISOString() : null,
  };
}

const SELECT_SERIES = `SELECT s.*, (SELECT count(*) FROM invoices i WHERE i.series_id = s.id) AS invoice_count,
  (SELECT max(occurrence_date) FROM invoices i WHERE i.series_id = s.id) AS last_occurrence FROM invoice_series s`;

async function seriesRow(db: Queryable, merchantId: string, id: string): Promise<SeriesRow> {
  const { rows } = await db.query<SeriesRow>(`${SELECT_SERIES} WHERE s.id = $1 AND s.merchant_id = $2`, [id, merchantId]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Invoice series ${id} does not exist.`);
  return rows[0];
}

/** A series of the merchant. @throws ProblemError 404. */
export async function getSeries(db: Queryable, merchantId: string, id: string): Promise<InvoiceSeries> {
  return toSeries(await seriesRow(db, merchantId, id));
}

/** The merchant's series, newest first (cursor pagination); `status` filters. */
export async function listSeries(
  db: Queryable,
  merchantId: string,
  q: { limit: number; cursor?: string; status?: SeriesStatus },
): Promise<{ data: InvoiceSeries[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 's.merchant_id = $1';
  if (q.status) {
    params.push(q.status);
    where += ` AND s.status = $${params.length}`;
  }
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (s.created_at, s.id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<SeriesRow>(`${SELECT_SERIES} WHERE ${where} ORDER BY s.created_at DESC, s.id DESC LIMIT $${params.length}`, params);
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map(toSeries), nextCursor };
}

/**
 * Creates an active series. The customer, the lines (priced now, to refuse a template that cannot be priced) and the
 * rule are checked; an auto-send series needs a customer reachable on its channels.
 * @throws ProblemError 400 naming the field.
 */
export async function createSeries(
  ctx: AppContext,
  principal: Principal,
  input: InvoiceSeriesCreate,
  catalogOf: CatalogLoader,
): Promise<InvoiceSeries> {
  const merchantId = principal.merchantId;
  const rule = parseSeriesRule(input.rrule, input.startDate);
  const billTo = await billToOf(ctx.db, merchantId, input.customerId);
  if (input.autoSend) channelsFor(billTo, input.channels);
  priceLinesFor(await catalogOf(ctx.db, merchantId), input.lineItems, input.customLines);
  if (!nextOccurrence(rule, input.startDate)) {
    throw new ProblemError(400, 'validation_error', 'Invalid rrule: it has no occurrence on or after startDate.', [
      { path: 'rrule', message: 'has no occurrence on or after startDate' },
    ]);
  }
  const id = newId('invoiceSeries');
  await mutation(ctx, actorOf(principal), async ({ tx, now, actor, audit }) => {
    await tx.query(
      `INSERT INTO invoice_series (id, merchant_id, status, customer_id, rrule, start_date, days_until_due, auto_send, channels, memo, line_items, custom_lines, cursor_date, created_by, created_at, updated_at)
       VALUES ($1, $2, 'active', $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $5, $12, $13, $13)`,
      [
        id,
        merchantId,
        input.customerId,
        input.rrule.replace(/^RRULE:/, ''),
        input.startDate,
        input.daysUntilDue,
        input.autoSend,
        input.channels ?? null,
        input.memo ?? null,
        JSON.stringify(input.lineItems),
        JSON.stringify(input.customLines),
        actor,
        now.toISOString(),
      ],
    );
    await audit({
      action: 'invoice_series.created',
      entityType: 'invoice_series',
      entityId: id,
      data: { rrule: input.rrule, startDate: input.startDate, customerId: input.customerId, autoSend: input.autoSend },
    });
  });
  return getSeries(ctx.db, merchantId, id);
}

/**
 * Moves a series: `pause` (active → paused), `resume` (paused → active; occurrences before today that fell while
 * paused are skipped), `end` (active | paused → ended).
 * @throws ProblemError 404; 409 naming `currentState`.
 */
export async function transitionSeries(
  ctx: AppContext,
  principal: Principal,
  id: string,
  action: 'pause' | 'resume' | 'end',
): Promise<InvoiceSeries> {
  const merchantId = principal.merchantId;
  const target: SeriesStatus = action === 'pause' ? 'paused' : action === 'resume' ? 'active' : 'ended';
  await mutation(ctx, actorOf(principal), async ({ tx, now, audit }) => {
    const row = await seriesRow(tx, merchantId, id);
    try {
      assertSeriesTransition(row.status, target, action);
    } catch (err) {
      if (err instanceof IllegalTransitionError) throw StateConflictError.fromTransition(err, id);
      throw err;
    }
    const today = utcDate(now);
    const cursor = action === 'resume' && row.cursor_date < today ? today : row.cursor_date;
    await tx.query(`UPDATE invoice_series SET status = $2, cursor_date = $3, updated_at = $4, ended_at = $5 WHERE id = $1`, [
      id,
      target,
      cursor,
      now.toISOString(),
      target === 'ended' ? now.toISOString() : null,
    ]);
    await audit({
      action: `invoice_series.${action === 'end' ? 'ended' : action === 'pause' ? 'paused' : 'resumed'}`,
      entityType: 'invoice_series',
      entityId: id,
      data: { from: row.status, to: target },
    });
  });
  return getSeries(ctx.db, merchantId, id);
}

/**
 * What one pass over the recurring invoices did (the housekeeping tick's report extends it: workflows/housekeeping.ts):
 * ids of the invoices generated and sent, of the series ended, and the errors of single series and drafts.
 */
export interface RecurringInvoicesReport {
  generated: string[];
  sent: string[];
  ended: string[];
  errors: { seriesId?: string; invoiceId?: string; message: string }[];
}

/**
 * Generates the due occurrences of one series up to `today`, each in its own mutation by `system` on the series'
 * merchant (series row locked; `ON CONFLICT DO NOTHING` on (series, occurrence date)), advancing the series' cursor.
 * Ends the series when its rule has no more dates. Returns the ids of the invoices it created.
 */
export async function generateDueInvoices(
  ctx: Pick<AppContext, 'db' | 'clock' | 'feed'>,
  seriesId: string,
  today: string,
  report: RecurringInvoicesReport,
  catalogOf: CatalogLoader,
): Promise<void> {
  const now = ctx.clock();
  // A series never changes merchant: its merchant is read once, outside the mutations (whose lock it names).
  const owner = (await ctx.db.query<{ merchant_id: string }>('SELECT merchant_id FROM invoice_series WHERE id = $1', [seriesId])).rows[0];
  if (!owner) return;
  const at = { db: ctx.db, feed: ctx.feed, clock: () => now };
  for (let n = 0; n < MAX_OCCURRENCES_PER_TICK; n++) {
    const done = await mutation(at, { merchantId: owner.merchant_id, actor: 'system' }, async (m) => {
      const tx = m.tx;
      const row = (await tx.query<SeriesRow>('SELECT * FROM invoice_series WHERE id = $1 FOR UPDATE', [seriesId])).rows[0];
      if (!row || row.status !== 'active') return true;
      const rule = parseSeriesRule(row.rrule, row.start_date);
      const occurrence = nextOccurrence(rule, row.cursor_date);
      if (!occurrence) {
        await tx.query(`UPDATE invoice_series SET status = 'ended', ended_at = $2, updated_at = $2 WHERE id = $1`, [seriesId, now.toISOString()]);
        await m.audit({ action: 'invoice_series.ended', entityType: 'invoice_series', entityId: seriesId, data: { reason: 'rule_exhausted' } });
        report.ended.push(seriesId);
        return true;
      }
      if (occurrence > today) return true;
      const merchant = await getMerchant(tx, row.merchant_id);
      const billTo = await billToOf(tx, row.merchant_id, row.customer_id);
      const totals = priceLinesFor(await catalogOf(tx, row.merchant_id), row.line_items, row.custom_lines);
      const created = await insertDraft(m, {
        currency: merchant.currency,
        billTo,
        totals,
        dueDate: addDays(occurrence, row.days_until_due),
        memo: row.memo,
        seriesId,
        occurrenceDate: occurrence,
      });
      if (created) report.generated.push(created.id);
      await tx.query('UPDATE invoice_series SET cursor_date = $2, updated_at = $3 WHERE id = $1', [
        seriesId,
        addDays(occurrence, 1),
        now.toISOString(),
      ]);
      return false;
    });
    if (done) return;
  }
}

/** Ids of the active series with an occurrence due on or before `today` (YYYY-MM-DD, UTC), for a tick. */
export async function dueSeriesIds(db: Queryable, today: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM invoice_series WHERE status = 'active' AND cursor_date <= $1 ORDER BY id`, [today]);
  return rows.map((r) => r.id);
}

/** Drafts generated by auto-send series and not sent yet (a crash between generating and sending), oldest first. */
export async function unsentAutoSendDrafts(db: Queryable): Promise<{ id: string; merchantId: string; channels: ('sms' | 'email')[] | null }[]> {
  const { rows } = await db.query<{ id: string; merchant_id: string; channels: ('sms' | 'email')[] | null }>(
    `SELECT i.id, i.merchant_id, s.channels FROM invoices i JOIN invoice_series s ON s.id = i.series_id
     WHERE i.status = 'draft' AND s.auto_send ORDER BY i.created_at, i.id`,
  );
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, channels: r.channels }));
}
