/**
 * Back office → Screenings: the sanctions screenings with filters (held ones first: a manager clears or
 * refuses each with a reason), the ID verifications with filters, the SDN list versions (owners upload OFAC's files;
 * every version kept) and the thresholds. `GET /api/pos/screenings`, `POST /api/pos/screenings/{id}/clear|refuse`,
 * `GET /api/pos/id-verifications`, `GET`/`POST /api/pos/sanctions-lists`, `GET /api/pos/screening-settings`.
 */
import { useCallback, useEffect, useState } from 'react';
import type { IdVerification, SanctionsList, Screening, ScreeningSettings } from '../../../core/screening.ts';
import { DataTable } from '../ui/data-table.tsx';
import { errorMessage, type Page } from '../common/back-office-api.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';

function readFile(file: File): Promise<string> {
  return file.text();
}

function Decide({ screening, onDone }: { screening: Screening; onDone: () => void }) {
  const api = useApi();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const decide = async (decision: 'clear' | 'refuse') => {
    setError(undefined);
    try {
      await api.request('POST', `/api/pos/screenings/${screening.id}/${decision}`, { reason });
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <span className="hold-decision">
      <input
        className="bo-input"
        aria-label={`Reason for ${screening.name}`}
        placeholder="Reason"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
      />
      <button type="button" className="button" disabled={reason.trim().length < 3} onClick={() => void decide('clear')}>
        Clear
      </button>
      <button type="button" className="button" disabled={reason.trim().length < 3} onClick={() => void decide('refuse')}>
        Refuse
      </button>
      {error ? <span className="form-error">{error}</span> : null}
    </span>
  );
}

export function ScreeningView() {
  const api = useApi();
  const [status, setStatus] = useState('held');
  const [q, setQ] = useState('');
  const [screenings, setScreenings] = useState<Screening[] | undefined>();
  const [ids, setIds] = useState<IdVerification[] | undefined>();
  const [idFilter, setIdFilter] = useState('');
  const [lists, setLists] = useState<SanctionsList[]>([]);
  const [settings, setSettings] = useState<ScreeningSettings | undefined>();
  const [loadError, setLoadError] = useState<unknown>();
  const [uploadError, setUploadError] = useState<string | undefined>();
  const [files, setFiles] = useState<{ sdn?: File; alt?: File; add?: File }>({});

  const load = useCallback(() => {
    const params = new URLSearchParams();
    if (status) params.set('status', status);
    if (q.trim()) params.set('q', q.trim());
    const idParams = new URLSearchParams(idFilter ? { ok: idFilter } : {});
    Promise.all([
      api.request<Page<Screening>>('GET', `/api/pos/screenings?${params.toString()}`),
      api.request<Page<IdVerification>>('GET', `/api/pos/id-verifications?${idParams.toString()}`),
      api.request<{ data: SanctionsList[] }>('GET', '/api/pos/sanctions-lists'),
      api.request<ScreeningSettings>('GET', '/api/pos/screening-settings'),
    ]).then(([s, v, l, st]) => {
      setScreenings(s.data);
      setIds(v.data);
      setLists(l.data);
      setSettings(st);
    }, setLoadError);
  }, [api, status, q, idFilter]);
  useEffect(load, [load]);

  const upload = async () => {
    setUploadError(undefined);
    if (!files.sdn) return;
    try {
      await api.request('POST', '/api/pos/sanctions-lists', {
        sdnCsv: await readFile(files.sdn),
        ...(files.alt ? { altCsv: await readFile(files.alt) } : {}),
        ...(files.add ? { addCsv: await readFile(files.add) } : {}),
      });
      setFiles({});
      load();
    } catch (err) {
      setUploadError(errorMessage(err));
    }
  };

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
      {screenings ? (
        <DataTable
          caption="Screenings"
          captionHidden
          columns={[
            { key: 'at', header: 'Screened', cell: (s) => new Date(s.createdAt).toLocaleString() },
            { key: 'name', header: 'Name', cell: (s) => s.name },
            { key: 'role', header: 'Role', cell: (s) => s.role },
            { key: 'match', header: 'Best match', cell: (s) => (s.topMatches[0] ? `${s.topMatches[0].name} (${s.score.toFixed(2)})` : '') },
            { key: 'status', header: 'Status', cell: (s) => (s.decisionReason ? `${s.status}: ${s.decisionReason}` : s.status) },
            { key: 'act', header: '', cell: (s) => (s.status === 'held' ? <Decide screening={s} onDone={load} /> : null) },
          ]}
          rows={screenings}
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
      {ids ? (
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
          rows={ids}
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
        rows={lists}
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
        {uploadError ? (
          <p className="form-error" role="alert">
            {uploadError}
          </p>
        ) : null}
      </div>
    </section>
  );
}
