/**
 * "Create a store": a store owner signs up from a register that is not paired yet — store name, country,
 * currency, time zone, their name, e-mail and PIN — through `POST /api/signup`; the register then pairs itself with the
 * new store (a pairing code made with the owner's token, `POST /api/pos/registers/pairing-codes`, exchanged at once),
 * and the owner signs in with the PIN like any staff member. The owner's token is never stored.
 */
import { useId, useMemo, useState, type FormEvent } from 'react';

/** What the server answered for a field, shown under it. */
type FieldErrors = Partial<Record<'storeName' | 'country' | 'currency' | 'timeZone' | 'ownerName' | 'ownerEmail' | 'ownerPin', string>>;

/** Countries offered first, with their currency (any ISO 3166-1 alpha-2 code may be typed). */
const COUNTRIES: { code: string; name: string; currency: string }[] = [
  { code: 'US', name: 'United States', currency: 'USD' },
  { code: 'CA', name: 'Canada', currency: 'CAD' },
  { code: 'GB', name: 'United Kingdom', currency: 'GBP' },
  { code: 'IE', name: 'Ireland', currency: 'EUR' },
  { code: 'FR', name: 'France', currency: 'EUR' },
  { code: 'DE', name: 'Germany', currency: 'EUR' },
  { code: 'ES', name: 'Spain', currency: 'EUR' },
  { code: 'AU', name: 'Australia', currency: 'AUD' },
  { code: 'JP', name: 'Japan', currency: 'JPY' },
];

async function postJson<T>(path: string, body: unknown, token?: string): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as T & { detail?: string; errors?: { path: string; message: string }[] };
  if (!response.ok) throw Object.assign(new Error(answer.detail ?? `The server answered ${response.status}.`), { errors: answer.errors ?? [] });
  return answer;
}

/** The sign-up form; `onPair(code)` pairs this register with the new store (the pairing form's own action). */
export function SignUpForm({ onPair, onCancel }: { onPair: (code: string) => Promise<void>; onCancel: () => void }) {
  const id = useId();
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []), []);
  const [form, setForm] = useState({
    storeName: '',
    country: 'US',
    currency: 'USD',
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'America/New_York',
    ownerName: '',
    ownerEmail: '',
    ownerPin: '',
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const set = (field: keyof typeof form, value: string) =>
    setForm((f) => ({
      ...f,
      [field]: value,
      ...(field === 'country' ? { currency: COUNTRIES.find((c) => c.code === value)?.currency ?? f.currency } : {}),
    }));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    setError(undefined);
    try {
      setBusy('Creating the store…');
      const made = await postJson<{ staffToken: string }>('/api/signup', form);
      setBusy('Pairing this register…');
      const { code } = await postJson<{ code: string }>('/api/pos/registers/pairing-codes', { name: 'Register 1' }, made.staffToken);
      await onPair(code);
    } catch (err) {
      const fieldErrors = Object.fromEntries(
        ((err as { errors?: { path: string; message: string }[] }).errors ?? []).map((e) => [e.path, e.message]),
      ) as FieldErrors;
      setErrors(fieldErrors);
      setError(err instanceof TypeError ? 'Creating a store needs a connection to the server.' : (err as Error).message);
    } finally {
      setBusy(undefined);
    }
  };

  const field = (name: keyof FieldErrors, label: string, input: React.ReactNode) => (
    <div className="form-field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      {input}
      {errors[name] ? (
        <p className="field-error" id={`${id}-${name}-error`}>
          {errors[name]}
        </p>
      ) : null}
    </div>
  );
  const described = (name: keyof FieldErrors) => (errors[name] ? { 'aria-invalid': true, 'aria-describedby': `${id}-${name}-error` } : {});

  return (
    <form className="pairing-form sign-up-form" onSubmit={onSubmit} noValidate data-testid="sign-up-form" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Create a store</h1>
      <p>Your store gets its own catalog, ledger and staff. This register becomes its first register; you sign in on it with your PIN.</p>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {field(
        'storeName',
        'Store name',
        <input
          id={`${id}-storeName`}
          className="bo-input"
          value={form.storeName}
          onChange={(e) => set('storeName', e.target.value)}
          autoComplete="organization"
          required
          {...described('storeName')}
        />,
      )}
      {field(
        'country',
        'Country',
        <select
          id={`${id}-country`}
          className="bo-input"
          value={form.country}
          onChange={(e) => set('country', e.target.value)}
          {...described('country')}
        >
          {COUNTRIES.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>,
      )}
      {field(
        'currency',
        'Currency (ISO 4217)',
        <input
          id={`${id}-currency`}
          className="bo-input"
          value={form.currency}
          maxLength={3}
          onChange={(e) => set('currency', e.target.value.toUpperCase())}
          {...described('currency')}
        />,
      )}
      {field(
        'timeZone',
        'Time zone',
        <select
          id={`${id}-timeZone`}
          className="bo-input"
          value={form.timeZone}
          onChange={(e) => set('timeZone', e.target.value)}
          {...described('timeZone')}
        >
          {(zones.includes(form.timeZone) ? zones : [form.timeZone, ...zones]).map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>,
      )}
      {field(
        'ownerName',
        'Your name',
        <input
          id={`${id}-ownerName`}
          className="bo-input"
          value={form.ownerName}
          onChange={(e) => set('ownerName', e.target.value)}
          autoComplete="name"
          {...described('ownerName')}
        />,
      )}
      {field(
        'ownerEmail',
        'Your e-mail',
        <input
          id={`${id}-ownerEmail`}
          className="bo-input"
          type="email"
          value={form.ownerEmail}
          onChange={(e) => set('ownerEmail', e.target.value)}
          autoComplete="email"
          {...described('ownerEmail')}
        />,
      )}
      {field(
        'ownerPin',
        'Your PIN (4–8 digits)',
        <input
          id={`${id}-ownerPin`}
          className="bo-input"
          type="password"
          inputMode="numeric"
          value={form.ownerPin}
          onChange={(e) => set('ownerPin', e.target.value)}
          autoComplete="new-password"
          {...described('ownerPin')}
        />,
      )}
      <div className="form-actions">
        <button type="button" className="button button-large" onClick={onCancel} disabled={busy !== undefined}>
          I have a pairing code
        </button>
        <button type="submit" className="button button-primary button-large" disabled={busy !== undefined}>
          {busy ?? 'Create the store'}
        </button>
      </div>
    </form>
  );
}
