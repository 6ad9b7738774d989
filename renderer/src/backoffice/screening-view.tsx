/**
 * Back office → Screenings: the sanctions screenings with filters (held ones first: a manager clears or
 * refuses each with a reason), the ID verifications with filters, the SDN list versions (owners upload OFAC's files;
 * every version kept) and the thresholds. `GET /api/pos/screenings`, `POST /api/pos/screenings/{id}/clear|refuse`,
 * `GET /api/pos/id-verifications`, `GET`/`POST /api/pos/sanctions-lists`, `GET /api/pos/screening-settings`.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { screeningDecisionFields, type IdVerification, type SanctionsList, type Screening, type ScreeningSettings } from '../../../core/screening.ts';
import { DataTable } from '../ui/data-table.tsx';
import type { Page } from '../common/back-office-api.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { useDebounced } from '../common/cursor-list.tsx';
import { showProblem } from '../common/forms.ts';

function readFile(file: File): Promise<string> {
  return file.text();
}

/** The decision form: the reason, checked by the clear/refuse body's own rule. */
const decisionForm = z.object({ reason: screeningDecisionFields.reason });
type DecisionForm = z.input<typeof decisionForm>;

function Decide({ screening }: { screening: Screening }) {
  const errorId = useId();
  const { register, handleSubmit, setError, formState } = useForm<DecisionForm, unknown, z.output<typeof decisionForm>>({
    resolver: zodResolver(decisionForm),
    defaultValues: { reason: '' },
  });
  const actions = useBackOfficeActions(['screenings']);
  const decide = (decision: 'clear' | 'refuse') =>
    handleSubmit(async ({ reason }) => {
      await actions.run(
        (api) => api.request('POST', `/api/pos/screenings/${screening.id}/${decision}`, { reason }),
        (err) => showProblem(err, setError, ['reason']),
      );
    });
  const fieldError = formState.errors.reason?.message;
  const busy = formState.isSubmitting;
  return (
    <span className="hold-decision">
      <input
        className="bo-input"
        aria-label={`Reason for ${screening.name}`}
        placeholder="Reason"
        aria-invalid={Boolean(fieldError)}
        {...(fieldError ? { 'aria-describedby': errorId } : {})}
        {...register('reason')}
      />
      <button type="button" className="button" disabled={busy} onClick={(e) => void decide('clear')(e)}>
        Clear
      </button>
      <button type="button" className="button" disabled={busy} onClick={(e) => void decide('refuse')(e)}>
        Refuse
      </button>
      {fieldError ? (
        <span className="bo-field-error" id={errorId} role="alert" data-testid="field-error">
          {fieldError}
        </span>
      ) : null}
      {actions.error ? <span className="form-error">{actions.error}</span> : null}
    </span>
  );
}

export function ScreeningView() {
  const [status, setStatus] = useState('held');
  const [q, setQ] = useState('');
  const [idFilter, setIdFilter] = useState('');
  const [files, setFiles] = useState<{ sdn?: File; alt?: File; add?: File }>({});
  const name = useDebounced(q.trim());

  const screenings = useBackOfficeData('screenings', [status, name], (api) => {
    const params = new URLSearchParams();
    if (status) params.set('status', status);
    if (name) params.set('q', name);
    return api.request<Page<Screening>>('GET', `/api/pos/screenings?${params.toString()}`);
  });
  const ids = useBackOfficeData('id-verifications', [idFilter], (api) =>
    api.request<Page<IdVerification>>('GET', `/api/pos/id-verifications?${new URLSearchParams(idFilter ? { ok: idFilter } : {}).toString()}`),
  );
  const lists = useBackOfficeData('sanctions-lists', [], (api) => api.request<{ data: SanctionsList[] }>('GET', '/api/pos/sanctions-lists'));
  const screeningSettings = useBackOfficeData('screening-settings', [], (api) =>
    api.request<ScreeningSettings>('GET', '/api/pos/screening-settings'),
  );
  const settings = screeningSettings.data;
  const uploads = useBackOfficeActions(['sanctions-lists']);

  const upload = async () => {
    const { sdn, alt, add } = files;
    if (!sdn) return;
    const done = await uploads.run(async (api) =>
      api.request('POST', '/api/pos/sanctions-lists', {
        sdnCsv: await readFile(sdn),
        ...(alt ? { altCsv: await readFile(alt) } : {}),
        ...(add ? { addCsv: await readFile(add) } : {}),
      }),
    );
    if (done) setFiles({});
  };

  const loadError = screenings.error ?? ids.error ?? lists.error ?? screeningSettings.error;
  if (loadError) return <LoadError error={loadError} what="Screenings" />;
  return (
    <section className="bo-section" data-testid="screenings">
      <h2>Sanctions screenings</h2>
      <div className="bo-filters">
        <label>
          Status{' '}
          <select className="bo-input" value={status} onChange={(e) => setStatus(e.target.value)} data-testid="screenings-status">
            <option value="">all</option>
            {['held', 'clear', 'cleared', 'refused', 'blocked'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          Name <input className="bo-input" value={q} onChange={(e) => setQ(e.target.value)} />
        </label>
      </div>
      {screenings.data ? (
        <DataTable
          caption="Screenings"
          captionHidden
          columns={[
            { key: 'at', header: 'Screened', cell: (s) => new Date(s.createdAt).toLocaleString() },
            { key: 'name', header: 'Name', cell: (s) => s.name },
            { key: 'role', header: 'Role', cell: (s) => s.role },
            { key: 'match', header: 'Best match', cell: (s) => (s.topMatches[0] ? `${s.topMatches[0].name} (${s.score.toFixed(2)})` : '') },
            { key: 'status', header: 'Status', cell: (s) => (s.decisionReason ? `${s.status}: ${s.decisionReason}` : s.status) },
            { key: 'act', header: '', cell: (s) => (s.status === 'held' ? <Decide screening={s} /> : null) },
          ]}
          rows={screenings.data.data}
          rowKey={(s) => s.id}
          rowAttributes={(s) => ({ 'data-testid': 'screening-row', 'data-status': s.status })}
          emptyText="No screening matches these filters."
          emptyClassName="muted"
        />
      ) : (
        <p className="muted">Loading…</p>
      )}

      <h2>ID verifications</h2>
      <label>
        Result{' '}
        <select className="bo-input" value={idFilter} onChange={(e) => setIdFilter(e.target.value)}>
          <option value="">all</option>
          <option value="true">ok</option>
          <option value="false">problems</option>
        </select>
      </label>
      {ids.data ? (
        <DataTable
          caption="ID verifications"
          captionHidden
          columns={[
            { key: 'at', header: 'Checked', cell: (v) => new Date(v.createdAt).toLocaleString() },
            { key: 'name', header: 'Holder', cell: (v) => [v.holder.firstName, v.holder.lastName].filter(Boolean).join(' ') },
            { key: 'doc', header: 'Document', cell: (v) => `${v.holder.jurisdiction ?? ''} ${v.holder.documentNumberMasked ?? ''}` },
            { key: 'service', header: 'Service', cell: (v) => v.service },
            { key: 'ok', header: 'Result', cell: (v) => (v.ok ? 'ok' : v.problems.join(', ')) },
          ]}
          rows={ids.data.data}
          rowKey={(v) => v.id}
          rowAttributes={() => ({ 'data-testid': 'id-verification-row' })}
          emptyText="No ID verification yet."
          emptyClassName="muted"
        />
      ) : null}

      <h2>Sanctions list</h2>
      {settings ? (
        <p className="muted">
          Potential match at a score of {settings.matchThreshold} or more; blocked at {settings.blockThreshold} or more.
        </p>
      ) : null}
      <DataTable
        caption="List versions"
        captionHidden
        columns={[
          { key: 'version', header: 'Version', cell: (l) => `${l.version}${l.current ? ' (current)' : ''}` },
          { key: 'published', header: 'Published', cell: (l) => l.publishedOn ?? '' },
          { key: 'entries', header: 'Entries', cell: (l) => `${l.entryCount} + ${l.aliasCount} aliases` },
          { key: 'loaded', header: 'Loaded', cell: (l) => new Date(l.createdAt).toLocaleString() },
        ]}
        rows={lists.data?.data ?? []}
        rowKey={(l) => l.id}
        rowAttributes={() => ({ 'data-testid': 'sanctions-list-row' })}
      />
      <div className="bo-form">
        <span className="muted">Upload OFAC’s files (owners):</span>{' '}
        {(['sdn', 'alt', 'add'] as const).map((f) => (
          <label key={f}>
            {f}.csv <input type="file" accept=".csv,text/csv" onChange={(e) => setFiles((prev) => ({ ...prev, [f]: e.target.files?.[0] }))} />
          </label>
        ))}
        <button type="button" className="button" disabled={!files.sdn} onClick={() => void upload()}>
          Upload new version
        </button>
        {uploads.error ? (
          <p className="form-error" role="alert">
            {uploads.error}
          </p>
        ) : null}
      </div>
    </section>
  );
}
