/**
 * Back office → Import & export: a Shopify product CSV imported as a job (a progress bar of rows done /
 * total polled from the server, Cancel, and re-running the same file is safe) with a per-line result (imported rows,
 * rejected lines with their line number and reason, warnings), and the catalog exported as a CSV download. "Check
 * only" runs the one-shot dry run.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { CATALOG_CSV_MAX_BYTES, CATALOG_IMPORT_JOB_MAX_BYTES } from '../../../core/index.ts';
import { DataTable } from '../ui/data-table.tsx';
import { errorMessage, type ImportJob, type ImportReport } from '../common/back-office-api.ts';
import { downloadBlob } from './download.ts';
import { useApi } from '../common/back-office-kit.tsx';

type ImportState =
  | { phase: 'idle' }
  | { phase: 'running'; lines: number; fileName: string; job?: ImportJob }
  | { phase: 'done'; report: ImportReport; fileName: string; job?: ImportJob }
  | { phase: 'failed'; message: string };

const POLL_MS = 400;

/** Data lines of a CSV text (physical lines after the header; quoted newlines may make this an over-estimate). */
function dataLineCount(csv: string): number {
  return Math.max(0, csv.split(/\r?\n/).filter((l) => l.trim() !== '').length - 1);
}

export function ImportExportView() {
  const api = useApi();
  const id = useId();
  const [file, setFile] = useState<File | undefined>();
  const [dryRun, setDryRun] = useState(false);
  const [state, setState] = useState<ImportState>({ phase: 'idle' });
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | undefined>();
  const [fileError, setFileError] = useState<string | undefined>();
  const jobId = useRef<string | undefined>(undefined);

  const onImport = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setFileError('Choose a CSV file first');
      return;
    }
    // A dry run checks the file in one request (16 MiB at most); an import runs as a job (64 MiB).
    const limit = dryRun ? CATALOG_CSV_MAX_BYTES : CATALOG_IMPORT_JOB_MAX_BYTES;
    if (file.size > limit) {
      setFileError(
        `This file is ${(file.size / 1024 / 1024).toFixed(1)} MiB: ${dryRun ? 'a check without importing' : 'the import'} takes up to ${limit / 1024 / 1024} MiB. Split it into several files.`,
      );
      return;
    }
    setFileError(undefined);
    const csv = await file.text();
    const fileName = file.name;
    setState({ phase: 'running', lines: dataLineCount(csv), fileName });
    try {
      if (dryRun) {
        setState({ phase: 'done', report: await api.importCsv(csv, true), fileName });
        return;
      }
      let job = await api.startImportJob(csv);
      jobId.current = job.id;
      while (job.status === 'running' || job.status === 'cancelling') {
        setState({ phase: 'running', lines: job.rowsTotal, fileName, job });
        await new Promise((r) => setTimeout(r, POLL_MS));
        job = await api.importJob(job.id);
      }
      jobId.current = undefined;
      if (job.status === 'failed' || !job.report)
        setState({
          phase: 'failed',
          message: `The import stopped: ${job.error ?? 'unknown error'}. Import the same file again: it is safe to re-run.`,
        });
      else setState({ phase: 'done', report: job.report, fileName, job });
    } catch (err) {
      jobId.current = undefined;
      setState({ phase: 'failed', message: errorMessage(err) });
    }
  };

  const onCancel = async () => {
    if (!jobId.current) return;
    try {
      await api.cancelImportJob(jobId.current);
    } catch (err) {
      setState({ phase: 'failed', message: errorMessage(err) });
    }
  };

  const onExport = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      downloadBlob(await api.exportCsv(), `catalog-${new Date().toISOString().slice(0, 10)}.csv`);
    } catch (err) {
      setExportError(errorMessage(err));
    } finally {
      setExporting(false);
    }
  };

  return (
    <section className="bo-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import &amp; export</h2>
      <div className="bo-panel">
        <h3>Import a Shopify product CSV</h3>
        <form className="bo-form bo-import-form" onSubmit={onImport}>
          <div className="bo-field">
            <label htmlFor={`${id}-file`}>CSV file</label>
            <input
              id={`${id}-file`}
              type="file"
              accept=".csv,text/csv"
              onChange={(e) => {
                setFile(e.target.files?.[0]);
                setFileError(undefined);
              }}
              data-testid="csv-file"
              aria-invalid={Boolean(fileError)}
            />
            {fileError ? (
              <span className="bo-field-error" role="alert">
                {fileError}
              </span>
            ) : null}
          </div>
          <label className="bo-check">
            <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} /> Check only (nothing is written)
          </label>
          <button type="submit" className="button button-primary" disabled={state.phase === 'running'} data-testid="csv-import">
            {state.phase === 'running' ? 'Importing…' : dryRun ? 'Check file' : 'Import'}
          </button>
        </form>
        {state.phase === 'running' ? (
          <div data-testid="import-progress">
            {state.job ? (
              <>
                <label htmlFor={`${id}-progress`}>
                  {state.job.status === 'cancelling' ? 'Cancelling after this chunk — ' : 'Importing '}
                  {state.fileName}: <span data-testid="import-rows-done">{state.job.rowsDone}</span> of {state.job.rowsTotal} lines
                </label>{' '}
                <progress id={`${id}-progress`} max={Math.max(1, state.job.rowsTotal)} value={state.job.rowsDone} data-testid="import-progress-bar" />{' '}
                <button type="button" className="button" onClick={onCancel} disabled={state.job.status === 'cancelling'} data-testid="import-cancel">
                  Cancel import
                </button>
              </>
            ) : (
              <p role="status">
                <progress /> {dryRun ? 'Checking' : 'Importing'} {state.fileName}: {state.lines} lines…
              </p>
            )}
          </div>
        ) : null}
        {state.phase === 'failed' ? (
          <p className="form-error" role="alert" data-testid="import-error">
            {state.message}
          </p>
        ) : null}
        {state.phase === 'done' ? (
          <ImportResult report={state.report} fileName={state.fileName} cancelled={state.job?.status === 'cancelled'} />
        ) : null}
      </div>

      <div className="bo-panel">
        <h3>Export the catalog</h3>
        <p className="muted">A Shopify product CSV of every item; it imports back to the same catalog.</p>
        <button type="button" className="button" onClick={onExport} disabled={exporting} data-testid="csv-export">
          {exporting ? 'Preparing…' : 'Download CSV'}
        </button>
        {exportError ? (
          <p className="form-error" role="alert">
            {exportError}
          </p>
        ) : null}
      </div>
    </section>
  );
}

function ImportResult({ report, fileName, cancelled }: { report: ImportReport; fileName: string; cancelled: boolean }) {
  return (
    <div className="bo-import-result" data-testid="import-result" role="status">
      <p>
        <strong>
          {report.dryRun
            ? `Checked ${fileName}`
            : cancelled
              ? `Import of ${fileName} cancelled (import the same file again to finish; it is safe)`
              : `Imported ${fileName}`}
          :
        </strong>{' '}
        <span data-testid="import-rows">{report.rows}</span> lines — <span data-testid="import-imported">{report.importedRows}</span> imported,{' '}
        <span data-testid="import-rejected">{report.rejected.length}</span> rejected, {report.warnings.length} warnings. Items:{' '}
        <span data-testid="import-created">{report.items.created}</span> created, <span data-testid="import-updated">{report.items.updated}</span>{' '}
        updated, {report.items.unchanged} unchanged.
      </p>
      {report.rejected.length > 0 ? (
        <DataTable
          caption="Rejected lines"
          columns={[
            { key: 'line', header: 'Line', numeric: true, cell: (r) => r.line },
            { key: 'handle', header: 'Handle', cell: (r) => r.handle ?? '—' },
            { key: 'reason', header: 'Reason', cell: (r) => r.reason },
          ]}
          rows={report.rejected}
          rowKey={(r) => `r${r.line}`}
          rowAttributes={(r) => ({ 'data-testid': 'import-rejected-line', 'data-line': r.line })}
        />
      ) : null}
      {report.warnings.length > 0 ? (
        <details>
          <summary>{report.warnings.length} warnings (details the format could not keep)</summary>
          <ul>
            {report.warnings.map((w, i) => (
              <li key={`w${i}`}>
                Line {w.line}
                {w.handle ? ` (${w.handle})` : ''}: {w.message}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {report.results.length > 0 ? (
        <DataTable
          caption="Items"
          columns={[
            { key: 'handle', header: 'Handle', cell: (r) => r.handle },
            { key: 'result', header: 'Result', cell: (r) => r.status },
          ]}
          rows={report.results}
          rowKey={(r) => r.handle}
          rowAttributes={(r) => ({ 'data-testid': 'import-item', 'data-status': r.status })}
        />
      ) : null}
    </div>
  );
}
