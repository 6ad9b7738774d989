/**
 * Catalog import jobs (table `catalog_import_jobs`, migration 0150): the progress row of an import run in
 * chunks (workflows/catalog-import.ts), each chunk's part of the report appended once (`catalog_import_job_chunks`),
 * and the cancel request the runner honours between chunks. Progress is written in the chunk's own transaction, so
 * `rowsDone` always counts committed rows.
 */
import { newId, type ImportJob, type ImportReport } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { finishReport, newImportReport } from './csv.ts';

/** The job answer (core `importJobSchema`). */
export type { ImportJob };

interface JobRow {
  id: string;
  status: ImportJob['status'];
  rows_total: number;
  rows_done: number;
  report: { items: ImportReport['items']; rejected: number; stockMovements: number; variantRows: number; imageRows: number };
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const ENDED = new Set(['done', 'cancelled', 'failed']);

/** Creates a `running` job of `rowsTotal` rows inside `m` (audited `catalog.import_started`). Returns its id. */
export async function createImportJob(m: Mutation, rowsTotal: number): Promise<string> {
  const id = newId('catalogImport');
  await m.tx.query(
    `INSERT INTO catalog_import_jobs (id, merchant_id, actor, status, rows_total, report, created_at, updated_at)
     VALUES ($1, $2, $3, 'running', $4, $5::jsonb, $6, $6)`,
    [
      id,
      m.merchantId,
      m.actor,
      rowsTotal,
      JSON.stringify({ items: { created: 0, updated: 0, unchanged: 0 }, rejected: 0, stockMovements: 0, variantRows: 0, imageRows: 0 }),
      m.now.toISOString(),
    ],
  );
  await m.audit({ action: 'catalog.import_started', entityType: 'catalog_import', entityId: id, appId: null, data: { rows: rowsTotal } });
  return id;
}

/**
 * Records one committed chunk inside its own mutation `m`: its report part (`part`, a report of the chunk's rows
 * only) appended, the job's counters advanced by it.
 */
export async function recordImportChunk(m: Mutation, jobId: string, chunk: number, part: ImportReport, rowsInChunk: number): Promise<void> {
  await m.tx.query('INSERT INTO catalog_import_job_chunks (job_id, chunk, part) VALUES ($1, $2, $3::jsonb)', [
    jobId,
    chunk,
    JSON.stringify({ rejected: part.rejected, warnings: part.warnings, results: part.results }),
  ]);
  await m.tx.query(
    `UPDATE catalog_import_jobs SET rows_done = rows_done + $3, updated_at = $4,
            report = jsonb_build_object(
              'items', jsonb_build_object('created', (report->'items'->>'created')::int + $5, 'updated', (report->'items'->>'updated')::int + $6, 'unchanged', (report->'items'->>'unchanged')::int + $7),
              'rejected', (report->>'rejected')::int + $8, 'stockMovements', (report->>'stockMovements')::int + $9,
              'variantRows', (report->>'variantRows')::int + $10, 'imageRows', (report->>'imageRows')::int + $11)
      WHERE merchant_id = $1 AND id = $2`,
    [
      m.merchantId,
      jobId,
      rowsInChunk,
      m.now.toISOString(),
      part.items.created,
      part.items.updated,
      part.items.unchanged,
      part.rejected.length,
      part.stockMovements,
      part.variantRows,
      part.imageRows,
    ],
  );
}

/** Ends the job (`done`, `cancelled` or `failed` with `error`); audited `catalog.imported`. */
export async function endImportJob(m: Mutation, jobId: string, status: 'done' | 'cancelled' | 'failed', error: string | null = null): Promise<void> {
  const { rows } = await m.tx.query<{ rows_done: number; report: JobRow['report'] }>(
    `UPDATE catalog_import_jobs SET status = $3, error = $4, finished_at = $5, updated_at = $5 WHERE merchant_id = $1 AND id = $2 RETURNING rows_done, report`,
    [m.merchantId, jobId, status, error, m.now.toISOString()],
  );
  await m.audit({
    action: 'catalog.imported',
    entityType: 'catalog_import',
    entityId: jobId,
    appId: null,
    data: { status, rowsDone: rows[0]?.rows_done ?? 0, ...(rows[0]?.report ?? {}), ...(error ? { error } : {}) },
  });
}

/** The job's status as stored (`undefined` when unknown): what the runner checks between chunks. */
export async function importJobStatus(db: Queryable, merchantId: string, jobId: string): Promise<ImportJob['status'] | undefined> {
  const { rows } = await db.query<{ status: ImportJob['status'] }>('SELECT status FROM catalog_import_jobs WHERE merchant_id = $1 AND id = $2', [
    merchantId,
    jobId,
  ]);
  return rows[0]?.status;
}

/**
 * The job with its progress; once it has ended, with its full report (the union of its chunks' parts).
 * @throws ProblemError 404 `not_found` for a job of another store or none.
 */
export async function getImportJob(db: Queryable, merchantId: string, jobId: string): Promise<ImportJob> {
  const { rows } = await db.query<JobRow>(
    'SELECT id, status, rows_total, rows_done, report, error, created_at, finished_at FROM catalog_import_jobs WHERE merchant_id = $1 AND id = $2',
    [merchantId, jobId],
  );
  const row = rows[0];
  if (!row) throw new ProblemError(404, 'not_found', `Catalog import job ${jobId} does not exist.`);
  let report: ImportReport | null = null;
  if (ENDED.has(row.status)) {
    report = newImportReport(row.id, false, row.rows_done);
    Object.assign(report, {
      items: row.report.items,
      stockMovements: row.report.stockMovements,
      variantRows: row.report.variantRows,
      imageRows: row.report.imageRows,
    });
    const parts = await db.query<{ part: Pick<ImportReport, 'rejected' | 'warnings' | 'results'> }>(
      'SELECT part FROM catalog_import_job_chunks WHERE job_id = $1 ORDER BY chunk',
      [jobId],
    );
    for (const { part } of parts.rows) {
      report.rejected.push(...part.rejected);
      report.warnings.push(...part.warnings);
      report.results.push(...part.results);
    }
    finishReport(report);
  }
  return {
    id: row.id,
    status: row.status,
    rowsTotal: Number(row.rows_total),
    rowsDone: Number(row.rows_done),
    items: row.report.items,
    rejectedRows: Number(row.report.rejected),
    error: row.error,
    createdAt: new Date(row.created_at).toISOString(),
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    report,
  };
}

/**
 * Asks a running job to stop after its current chunk (`cancelling`; the runner then marks it `cancelled`). A job that
 * has ended is answered as it is. @throws ProblemError 404 as {@link getImportJob}.
 */
export async function cancelImportJob(m: Mutation, jobId: string): Promise<void> {
  const { rows } = await m.tx.query<{ status: string }>(
    `UPDATE catalog_import_jobs SET status = CASE WHEN status = 'running' THEN 'cancelling' ELSE status END, updated_at = $3
      WHERE merchant_id = $1 AND id = $2 RETURNING status`,
    [m.merchantId, jobId, m.now.toISOString()],
  );
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Catalog import job ${jobId} does not exist.`);
  if (rows[0].status === 'cancelling')
    await m.audit({ action: 'catalog.import_cancel_requested', entityType: 'catalog_import', entityId: jobId, appId: null, data: {} });
}
