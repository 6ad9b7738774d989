/**
 * Back office → Settings: the store's time zone (reports count days in it), the business day's cut-off hour (shifts
 * and the daily closeout count days from it, in that time zone), the country of phone numbers typed
 * without "+" (customers) and the tip bound (a tip may be at most the larger of a percentage of the order total and a
 * fixed amount), and how many days after an online sign-in a staff member may sign in on that register offline. `GET` / `PATCH /api/pos/settings`; field errors from the problem body shown in place.
 */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import type { StoreSettings } from '../common/back-office-api.ts';
import { Field, formErrorsOf, LoadError, NO_ERRORS, useApi, useFocusFirstError, type FormErrors } from '../common/back-office-kit.tsx';

/** IANA zones the browser knows (the server checks against its own list), with the current one kept first if missing. */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const list = known.includes('UTC') ? known : ['UTC', ...known];
  return list.includes(current) ? list : [current, ...list];
}

const FIELDS = [
  'timeZone',
  'dayCutoffHour',
  'defaultCountry',
  'tipLimitBasisPoints',
  'tipLimitCents',
  'cashierRefundLimitCents',
  'offlineSignInDays',
] as const;

/** Basis points as a typed percentage: 5000 → "50", 1250 → "12.5". */
const percentOf = (basisPoints: number) => String(basisPoints / 100);
/** A typed percentage (up to two decimals) as basis points; NaN when it is not one (the server names the field). */
function basisPointsOf(text: string): number {
  const t = text.trim().replace(/%$/, '').trim();
  return /^\d{1,4}(\.\d{1,2})?$/.test(t) ? Math.round(Number(t) * 100) : Number.NaN;
}

export function SettingsView() {
  const api = useApi();
  const formId = useId();
  const [settings, setSettings] = useState<StoreSettings | undefined>();
  const [loadError, setLoadError] = useState<unknown>();
  const [timeZone, setTimeZone] = useState('');
  const [cutoff, setCutoff] = useState(0);
  const [country, setCountry] = useState('');
  const [tipPercent, setTipPercent] = useState('');
  const [tipFixed, setTipFixed] = useState('');
  const [refundLimit, setRefundLimit] = useState('');
  const [offlineDays, setOfflineDays] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstError(formRef, errors);

  useEffect(() => {
    let current = true;
    api.settings().then(
      (s) => {
        if (!current) return;
        setSettings(s);
        setTimeZone(s.timeZone);
        setCutoff(s.dayCutoffHour);
        setCountry(s.defaultCountry);
        setTipPercent(percentOf(s.tipLimitBasisPoints));
        setTipFixed(centsToInput(s.tipLimitCents, s.currency));
        setRefundLimit(centsToInput(s.cashierRefundLimitCents, s.currency));
        setOfflineDays(String(s.offlineSignInDays));
      },
      (err: unknown) => current && setLoadError(err),
    );
    return () => {
      current = false;
    };
  }, [api]);

  const zones = useMemo(() => timeZones(settings?.timeZone ?? 'UTC'), [settings?.timeZone]);

  if (loadError) return <LoadError error={loadError} what="Settings" />;
  if (!settings) return <p className="muted">Loading settings…</p>;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setSaved(false);
    setErrors(NO_ERRORS);
    try {
      const patch: {
        timeZone?: string;
        dayCutoffHour?: number;
        defaultCountry?: string;
        tipLimitBasisPoints?: number;
        tipLimitCents?: number;
        cashierRefundLimitCents?: number;
        offlineSignInDays?: number;
      } = {};
      if (timeZone !== settings.timeZone) patch.timeZone = timeZone;
      if (cutoff !== settings.dayCutoffHour) patch.dayCutoffHour = cutoff;
      if (country.trim().toUpperCase() !== settings.defaultCountry) patch.defaultCountry = country.trim();
      const basisPoints = basisPointsOf(tipPercent);
      const fixedCents = parseCashInput(tipFixed, settings.currency) ?? Number.NaN;
      if (basisPoints !== settings.tipLimitBasisPoints) patch.tipLimitBasisPoints = basisPoints;
      if (fixedCents !== settings.tipLimitCents) patch.tipLimitCents = fixedCents;
      const refundLimitCents = parseCashInput(refundLimit, settings.currency) ?? Number.NaN;
      if (refundLimitCents !== settings.cashierRefundLimitCents) patch.cashierRefundLimitCents = refundLimitCents;
      // A whole number of days, else NaN: the server names the field.
      const days = /^\s*\d{1,3}\s*$/.test(offlineDays) ? Number(offlineDays) : Number.NaN;
      if (days !== settings.offlineSignInDays) patch.offlineSignInDays = days;
      const next = Object.keys(patch).length > 0 ? await api.updateSettings(patch) : settings;
      setSettings(next);
      setCountry(next.defaultCountry);
      setCutoff(next.dayCutoffHour);
      setTipPercent(percentOf(next.tipLimitBasisPoints));
      setTipFixed(centsToInput(next.tipLimitCents, next.currency));
      setRefundLimit(centsToInput(next.cashierRefundLimitCents, next.currency));
      setOfflineDays(String(next.offlineSignInDays));
      setSaved(true);
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => (FIELDS as readonly string[]).includes(p)));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="bo-section" data-testid="settings">
      <div className="bo-panel">
        <div className="bo-panel-header">
          <h2>Store settings</h2>
        </div>
        <p className="muted">
          {settings.name} · amounts in {settings.currency}
        </p>
        <form ref={formRef} id={formId} className="bo-form" onSubmit={onSubmit} noValidate>
          {errors.form ? (
            <p className="form-error" role="alert">
              {errors.form}
            </p>
          ) : null}
          <div className="bo-row">
            <Field id={`${formId}-timeZone`} label="Time zone" error={errors.fields.timeZone} hint="Reports count days from midnight here">
              {(props) => (
                <select
                  {...props}
                  className="bo-input"
                  value={timeZone}
                  onChange={(e) => setTimeZone(e.target.value)}
                  data-testid="settings-time-zone"
                >
                  {zones.map((z) => (
                    <option key={z} value={z}>
                      {z}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              id={`${formId}-dayCutoffHour`}
              label="Business day ends at"
              error={errors.fields.dayCutoffHour}
              hint="Local hour: sales before it count in the previous day's closeout"
            >
              {(props) => (
                <select
                  {...props}
                  className="bo-input"
                  value={cutoff}
                  onChange={(e) => setCutoff(Number(e.target.value))}
                  data-testid="settings-day-cutoff"
                >
                  {Array.from({ length: 24 }, (_, h) => (
                    <option key={h} value={h}>
                      {`${String(h).padStart(2, '0')}:00`}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <div className="bo-row">
            <Field
              id={`${formId}-defaultCountry`}
              label="Phone country"
              error={errors.fields.defaultCountry}
              hint="Two letters, e.g. US, GB: numbers typed without + are read in this country"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  value={country}
                  maxLength={2}
                  autoCapitalize="characters"
                  onChange={(e) => setCountry(e.target.value)}
                  data-testid="settings-country"
                />
              )}
            </Field>
          </div>
          <div className="bo-row">
            <Field
              id={`${formId}-tipLimitBasisPoints`}
              label="Tip bound: % of total"
              error={errors.fields.tipLimitBasisPoints}
              hint="A tip may be at most this share of the order total…"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  inputMode="decimal"
                  value={tipPercent}
                  onChange={(e) => setTipPercent(e.target.value)}
                  data-testid="settings-tip-percent"
                />
              )}
            </Field>
            <Field
              id={`${formId}-tipLimitCents`}
              label={`Tip bound: fixed (${settings.currency})`}
              error={errors.fields.tipLimitCents}
              hint="…or this amount, whichever is larger"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  inputMode="decimal"
                  value={tipFixed}
                  onChange={(e) => setTipFixed(e.target.value)}
                  data-testid="settings-tip-fixed"
                />
              )}
            </Field>
          </div>
          <div className="bo-row">
            <Field
              id={`${formId}-cashierRefundLimitCents`}
              label={`Cashier refund limit (${settings.currency})`}
              error={errors.fields.cashierRefundLimitCents}
              hint="A cashier's refund above this needs a manager's PIN"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  inputMode="decimal"
                  value={refundLimit}
                  onChange={(e) => setRefundLimit(e.target.value)}
                  data-testid="settings-cashier-refund-limit"
                />
              )}
            </Field>
            <Field
              id={`${formId}-offlineSignInDays`}
              label="Offline sign-in (days)"
              error={errors.fields.offlineSignInDays}
              hint="Staff who signed in on a register within this many days may sign in there while it is offline; 0 = never"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  inputMode="numeric"
                  value={offlineDays}
                  onChange={(e) => setOfflineDays(e.target.value)}
                  data-testid="settings-offline-sign-in-days"
                />
              )}
            </Field>
          </div>
          <div className="bo-actions">
            {saved ? (
              <span className="bo-saved" role="status" data-testid="settings-saved">
                Saved
              </span>
            ) : null}
            <button type="submit" className="button button-primary" disabled={saving} data-testid="settings-save">
              {saving ? 'Saving…' : 'Save settings'}
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}
