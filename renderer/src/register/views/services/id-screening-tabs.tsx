/** "Verify ID" and "Screen a name" in the register's Services area, and how a screening and its hold are shown. */
import { useEffect, useState, type FormEvent } from 'react';
import type { IdVerification, Screening } from '../../../../../core/screening.ts';
import { errorMessage, type BackOfficeApi } from '../../../common/back-office-api.ts';
import { useObservable } from '../../../ui/hooks.ts';
import { currentStaffSession, staffSession$ } from '../../../common/staff-session.ts';

const SERVICES: [string, string][] = [
  ['check_cashing', 'Check cashing'],
  ['money_transfer', 'Money transfer'],
  ['bill_payment', 'Bill payment'],
];

function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('could not read the photo'));
    reader.readAsDataURL(file);
  });
}

const PROBLEM_TEXT: Record<string, string> = {
  expired: 'The ID has expired.',
  under_minimum_age: 'The holder is under the minimum age for this service.',
  not_yet_issued: 'The ID’s issue date is in the future.',
  name_truncated: 'The card marks the name as truncated: check it against the printed name.',
  unknown_issuer: 'The barcode names no known licence issuer: do not accept the card.',
  issuer_state_mismatch: 'The issuing state is not the state of the address on the card: do not accept it.',
};

/** "Verify ID": scanner box or photo → the holder's summary and problems. */
export function VerifyIdTab({ api, onScreen }: { api: BackOfficeApi; onScreen: (name: string) => void }) {
  const [service, setService] = useState('check_cashing');
  const [payload, setPayload] = useState('');
  const [result, setResult] = useState<IdVerification | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const send = async (body: { payload: string } | { imageBase64: string }) => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api.request<IdVerification>('POST', '/api/pos/id-verifications', { service, ...body }));
      setPayload('');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (payload.trim()) void send({ payload });
  };
  const h = result?.holder;
  return (
    <section className="bo-section" data-testid="verify-id">
      <h2>Verify ID</h2>
      <form onSubmit={submit} className="bo-form">
        <label>
          Service{' '}
          <select className="bo-input" value={service} onChange={(e) => setService(e.target.value)} data-testid="id-service">
            {SERVICES.map(([key, label]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="bo-field">
          Scan the barcode on the back of the licence (the scanner types here)
          <textarea
            className="bo-input id-scan"
            rows={4}
            value={payload}
            onChange={(e) => setPayload(e.target.value)}
            data-testid="id-payload"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <div className="bo-actions">
          <button type="submit" className="button button-primary" disabled={busy || !payload.trim()} data-testid="id-verify">
            Verify
          </button>
          <label className="button">
            Photo of the back…
            <input
              type="file"
              accept="image/*"
              capture="environment"
              hidden
              data-testid="id-photo"
              onChange={(e) => {
                const file = e.target.files?.[0];
                e.target.value = '';
                if (file)
                  void fileToBase64(file).then(
                    (imageBase64) => send({ imageBase64 }),
                    (err: unknown) => setError(errorMessage(err)),
                  );
              }}
            />
          </label>
        </div>
      </form>
      {busy ? <p className="muted">Reading the ID…</p> : null}
      {error ? (
        <p className="form-error" role="alert" data-testid="id-error">
          {error}
        </p>
      ) : null}
      {result && h ? (
        <div className={result.ok ? 'id-result id-ok' : 'id-result id-problem'} data-testid="id-result" data-ok={String(result.ok)}>
          <p className="id-verdict" role="status">
            {result.ok ? `ID OK for ${SERVICES.find(([k]) => k === result.service)?.[1] ?? result.service}` : 'Do not accept this ID'}
          </p>
          {result.problems.length > 0 ? (
            <ul className="form-error" data-testid="id-problems">
              {result.problems.map((p) => (
                <li key={p}>{PROBLEM_TEXT[p] ?? p}</li>
              ))}
            </ul>
          ) : null}
          <dl className="id-summary">
            <dt>Name</dt>
            <dd data-testid="id-name">{[h.firstName, h.middleName, h.lastName].filter(Boolean).join(' ')}</dd>
            <dt>Date of birth</dt>
            <dd>
              {h.dateOfBirth} (age {h.age ?? '?'}, minimum {result.minimumAge})
            </dd>
            <dt>Expires</dt>
            <dd>{h.expiry}</dd>
            <dt>Document</dt>
            <dd>
              {h.documentType === 'ID' ? 'ID card' : 'Driver licence'} {h.jurisdiction} {h.documentNumberMasked}
            </dd>
            {h.address ? (
              <>
                <dt>Address</dt>
                <dd>{[h.address.street, h.address.city, h.address.state, h.address.postalCode].filter(Boolean).join(', ')}</dd>
              </>
            ) : null}
          </dl>
          {h.firstName || h.lastName ? (
            <button
              type="button"
              className="button"
              onClick={() => onScreen([h.firstName, h.middleName, h.lastName].filter(Boolean).join(' '))}
              data-testid="id-screen-name"
            >
              Screen this name
            </button>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

const ROLES: [string, string][] = [
  ['manual', 'Manual check'],
  ['check_casher', 'Check casher'],
  ['transfer_sender', 'Transfer sender'],
  ['transfer_receiver', 'Transfer receiver'],
  ['bill_payer', 'Bill payer'],
];

/** "Screen a name": the outcome, the best matches, and the hold banner for a potential match. */
export function ScreenNameTab({ api, initialName }: { api: BackOfficeApi; initialName: string }) {
  const [name, setName] = useState(initialName);
  const [role, setRole] = useState('manual');
  const [screening, setScreening] = useState<Screening | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setName(initialName), [initialName]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setScreening(undefined);
    try {
      setScreening(await api.request<Screening>('POST', '/api/pos/screenings', { name, role }));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="bo-section" data-testid="screen-name">
      <h2>Screen a name</h2>
      <form onSubmit={(e) => void submit(e)} className="bo-form">
        <label className="bo-field">
          Full name
          <input className="bo-input" value={name} onChange={(e) => setName(e.target.value)} data-testid="screen-name-input" autoComplete="off" />
        </label>
        <label>
          Whose name{' '}
          <select className="bo-input" value={role} onChange={(e) => setRole(e.target.value)}>
            {ROLES.map(([key, label]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()} data-testid="screen-submit">
          Screen
        </button>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {screening ? <ScreeningResult api={api} screening={screening} onChange={setScreening} /> : null}
    </section>
  );
}

/** A screening's outcome: clear, held (with {@link ScreeningHoldBanner}), cleared, refused or blocked, and its best matches. */
export function ScreeningResult({ api, screening, onChange }: { api: BackOfficeApi; screening: Screening; onChange: (s: Screening) => void }) {
  const text: Record<Screening['status'], string> = {
    clear: 'Clear: no match on the sanctions list. Go ahead.',
    held: 'Held: potential sanctions match.',
    cleared: `Cleared by a manager: ${screening.decisionReason ?? ''}. Go ahead.`,
    refused: `Refused by a manager: ${screening.decisionReason ?? ''}. Do not go ahead.`,
    blocked: 'Blocked: this name matches the sanctions list. Do not go ahead.',
  };
  return (
    <div className={`screening-result screening-${screening.status}`} data-testid="screening-result" data-status={screening.status}>
      {screening.status === 'held' ? (
        <ScreeningHoldBanner api={api} screening={screening} onChange={onChange} />
      ) : (
        <p role="status">{text[screening.status]}</p>
      )}
      <p className="muted">
        Score {screening.score.toFixed(2)} (threshold {screening.threshold}), list {screening.listVersion}
      </p>
      {screening.topMatches.length > 0 && screening.status !== 'clear' ? (
        <table className="bo-table">
          <caption className="muted">Closest list entries</caption>
          <thead>
            <tr>
              <th scope="col">Listed name</th>
              <th scope="col">Matched</th>
              <th scope="col">Programs</th>
              <th scope="col">Score</th>
            </tr>
          </thead>
          <tbody>
            {screening.topMatches.map((m) => (
              <tr key={m.sdnId}>
                <td>{m.name}</td>
                <td>
                  {m.matchedName} {m.nameType !== 'primary' ? `(${m.nameType})` : ''}
                </td>
                <td>{m.programs ?? ''}</td>
                <td>{m.score.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

/**
 * The hold, shown plainly: the transaction waits for a manager. Polls the screening every 3 s until decided; a manager
 * or owner signed in here clears or refuses it with a reason.
 */
export function ScreeningHoldBanner({ api, screening, onChange }: { api: BackOfficeApi; screening: Screening; onChange: (s: Screening) => void }) {
  useObservable(staffSession$, staffSession$.value);
  const role = currentStaffSession()?.staff.role;
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (screening.status !== 'held') return undefined;
    const timer = setInterval(() => {
      api.request<Screening>('GET', `/api/pos/screenings/${screening.id}`).then(
        (s) => {
          if (s.status !== 'held') onChange(s);
        },
        () => undefined,
      );
    }, 3000);
    return () => clearInterval(timer);
  }, [api, screening.id, screening.status, onChange]);
  const decide = async (decision: 'clear' | 'refuse') => {
    setError(undefined);
    try {
      onChange(await api.request<Screening>('POST', `/api/pos/screenings/${screening.id}/${decision}`, { reason }));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const best = screening.topMatches[0];
  return (
    <div className="banner banner-error screening-hold" role="alert" data-testid="screening-hold">
      <div>
        <strong>On hold — potential sanctions match.</strong> “{screening.name}” scored {screening.score.toFixed(2)}
        {best ? ` against ${best.name}` : ''}. The transaction waits until a manager clears or refuses it.
        {role === 'manager' || role === 'owner' ? (
          <div className="hold-decision">
            <input
              className="bo-input"
              placeholder="Reason (kept in the audit trail)"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              data-testid="hold-reason"
            />
            <button
              type="button"
              className="button"
              disabled={reason.trim().length < 3}
              onClick={() => void decide('clear')}
              data-testid="hold-clear"
            >
              Clear (false positive)
            </button>
            <button
              type="button"
              className="button"
              disabled={reason.trim().length < 3}
              onClick={() => void decide('refuse')}
              data-testid="hold-refuse"
            >
              Refuse
            </button>
          </div>
        ) : (
          <div className="muted">A manager signs in here or opens Back office → Screenings to decide.</div>
        )}
        {error ? <div className="form-error">{error}</div> : null}
      </div>
    </div>
  );
}
