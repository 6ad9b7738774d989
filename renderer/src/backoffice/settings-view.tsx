/**
 * Back office → Settings: the store's time zone (reports count days in it), the business day's cut-off hour (shifts
 * and the daily closeout count days from it, in that time zone), the country of phone numbers typed
 * without "+" (customers) and the tip bound (a tip may be at most the larger of a percentage of the order total and a
 * fixed amount), how many days after an online sign-in a staff member may sign in on that register offline, the
 * quiet hours of the store's texts (invoice texts and reminders wait until they end; both empty = none), and the
 * service style (what the registers open on: counter, floor plan or a switch), the
 * language of the store's e-mails and texts, whose templates are edited below the form (message-templates-editor.tsx).
 * `GET` / `PATCH /api/pos/settings`. The form checks each field with the request body's own rule (core
 * `storeSettingsUpdateFields`) before sending; field errors of the server's problem show in place as well.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { SERVICE_STYLES, STORE_LANGUAGE_NAMES, STORE_LANGUAGES, storeSettingsUpdateFields, type ServiceStyle } from '../../../core/index.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import type { StoreSettings } from '../common/back-office-api.ts';
import { Field, LoadError } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem, typed } from '../common/forms.ts';
import { MessageTemplatesEditor } from './message-templates-editor.tsx';

/** IANA zones the browser knows (the server checks against its own list), with the current one kept first if missing. */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const list = known.includes('UTC') ? known : ['UTC', ...known];
  return list.includes(current) ? list : [current, ...list];
}

/** The service styles as the form names them. */
const SERVICE_STYLE_NAMES: Record<ServiceStyle, string> = {
  retail: 'Retail (counter)',
  restaurant: 'Restaurant (floor plan)',
  both: 'Both (a switch)',
};

/** Basis points as a typed percentage: 5000 → "50", 1250 → "12.5". */
const percentOf = (basisPoints: number) => String(basisPoints / 100);
/** A typed percentage (up to two decimals) as basis points; `undefined` when it is not one. */
function basisPointsOf(text: string): number | undefined {
  const t = text.trim().replace(/%$/, '').trim();
  return /^\d{1,4}(\.\d{1,2})?$/.test(t) ? Math.round(Number(t) * 100) : undefined;
}
/** A typed whole number (up to three digits), else `undefined`. */
const wholeNumberOf = (text: string) => (/^\s*\d{1,3}\s*$/.test(text) ? Number(text) : undefined);
/** A typed local time (`HH:MM`, checked by the body's rule), or null when left empty. */
const timeOrNone = (text: string) => (text.trim() === '' ? null : text.trim());

/** The settings form: what is typed (text) → the `PATCH` body's fields, each checked by the body's rule. */
function settingsForm(currency: string) {
  const f = storeSettingsUpdateFields;
  const amountOf = (t: string) => parseCashInput(t, currency) ?? undefined;
  const notAmount = `must be an amount in ${currency}, e.g. 5.00`;
  return z.object({
    timeZone: f.timeZone,
    dayCutoffHour: typed(wholeNumberOf, 'must be an hour from 0 to 23', f.dayCutoffHour),
    defaultCountry: f.defaultCountry,
    tipLimitBasisPoints: typed(basisPointsOf, 'must be a percentage with up to two decimals, e.g. 12.5', f.tipLimitBasisPoints),
    tipLimitCents: typed(amountOf, notAmount, f.tipLimitCents),
    cashierRefundLimitCents: typed(amountOf, notAmount, f.cashierRefundLimitCents),
    offlineSignInDays: typed(wholeNumberOf, 'must be a whole number of days', f.offlineSignInDays),
    smsQuietHoursStart: typed(timeOrNone, 'must be a time, e.g. 21:00', f.smsQuietHoursStart),
    smsQuietHoursEnd: typed(timeOrNone, 'must be a time, e.g. 08:00', f.smsQuietHoursEnd),
    language: f.language,
    serviceStyle: f.serviceStyle,
  });
}
type SettingsForm = ReturnType<typeof settingsForm>;
type Typed = z.input<SettingsForm>;
const FIELDS = Object.keys(settingsForm('USD').shape) as (keyof Typed)[];

/** The stored settings as the form shows them. */
function typedOf(s: StoreSettings): Typed {
  return {
    timeZone: s.timeZone,
    dayCutoffHour: String(s.dayCutoffHour),
    defaultCountry: s.defaultCountry,
    tipLimitBasisPoints: percentOf(s.tipLimitBasisPoints),
    tipLimitCents: centsToInput(s.tipLimitCents, s.currency),
    cashierRefundLimitCents: centsToInput(s.cashierRefundLimitCents, s.currency),
    offlineSignInDays: String(s.offlineSignInDays),
    smsQuietHoursStart: s.smsQuietHoursStart ?? '',
    smsQuietHoursEnd: s.smsQuietHoursEnd ?? '',
    language: s.language,
    serviceStyle: s.serviceStyle,
  };
}

export function SettingsView() {
  const stored = useBackOfficeData('settings', [], (api) => api.settings());
  if (stored.error) return <LoadError error={stored.error} what="Settings" />;
  if (!stored.data) return <p className="muted">Loading settings…</p>;
  return <SettingsFormView settings={stored.data} />;
}

function SettingsFormView({ settings }: { settings: StoreSettings }) {
  const formId = useId();
  const schema = useMemo(() => settingsForm(settings.currency), [settings.currency]);
  const form = useForm<Typed, unknown, z.output<SettingsForm>>({ resolver: zodResolver(schema), defaultValues: typedOf(settings) });
  const { register, handleSubmit, setError, reset, formState } = form;
  const errors = formState.errors;
  const actions = useBackOfficeActions(['settings']);
  const [saved, setSaved] = useState(false);
  const zones = useMemo(() => timeZones(settings.timeZone), [settings.timeZone]);

  const onSubmit = handleSubmit(async (values) => {
    setSaved(false);
    // Only what changed is sent (a field another manager changed meanwhile is left as they set it).
    const patch = Object.fromEntries(
      Object.entries(values).filter(([key, value]) => value !== undefined && value !== settings[key as keyof StoreSettings]),
    ) as Partial<z.output<SettingsForm>>;
    const next =
      Object.keys(patch).length > 0
        ? await actions.run(
            (api) => api.updateSettings(patch),
            (err) => showProblem(err, setError, FIELDS),
          )
        : settings;
    if (!next) return;
    reset(typedOf(next));
    setSaved(true);
  });

  return (
    <section className="bo-section" data-testid="settings">
      <div className="bo-panel">
        <div className="bo-panel-header">
          <h2>Store settings</h2>
        </div>
        <p className="muted">
          {settings.name} · amounts in {settings.currency}
        </p>
        <form id={formId} className="bo-form" onSubmit={(event) => void onSubmit(event)} noValidate>
          {actions.error ? (
            <p className="form-error" role="alert">
              {actions.error}
            </p>
          ) : null}
          <div className="bo-row">
            <Field id={`${formId}-timeZone`} label="Time zone" error={errors.timeZone?.message} hint="Reports count days from midnight here">
              {(props) => (
                <select {...props} className="bo-input" {...register('timeZone')} data-testid="settings-time-zone">
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
              error={errors.dayCutoffHour?.message}
              hint="Local hour: sales before it count in the previous day's closeout"
            >
              {(props) => (
                <select {...props} className="bo-input" {...register('dayCutoffHour')} data-testid="settings-day-cutoff">
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
              error={errors.defaultCountry?.message}
              hint="Two letters, e.g. US, GB: numbers typed without + are read in this country"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  maxLength={2}
                  autoCapitalize="characters"
                  {...register('defaultCountry')}
                  data-testid="settings-country"
                />
              )}
            </Field>
          </div>
          <div className="bo-row">
            <Field
              id={`${formId}-tipLimitBasisPoints`}
              label="Tip bound: % of total"
              error={errors.tipLimitBasisPoints?.message}
              hint="A tip may be at most this share of the order total…"
            >
              {(props) => (
                <input {...props} className="bo-input" inputMode="decimal" {...register('tipLimitBasisPoints')} data-testid="settings-tip-percent" />
              )}
            </Field>
            <Field
              id={`${formId}-tipLimitCents`}
              label={`Tip bound: fixed (${settings.currency})`}
              error={errors.tipLimitCents?.message}
              hint="…or this amount, whichever is larger"
            >
              {(props) => (
                <input {...props} className="bo-input" inputMode="decimal" {...register('tipLimitCents')} data-testid="settings-tip-fixed" />
              )}
            </Field>
          </div>
          <div className="bo-row">
            <Field
              id={`${formId}-cashierRefundLimitCents`}
              label={`Cashier refund limit (${settings.currency})`}
              error={errors.cashierRefundLimitCents?.message}
              hint="A cashier's refund above this needs a manager's PIN"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  inputMode="decimal"
                  {...register('cashierRefundLimitCents')}
                  data-testid="settings-cashier-refund-limit"
                />
              )}
            </Field>
            <Field
              id={`${formId}-offlineSignInDays`}
              label="Offline sign-in (days)"
              error={errors.offlineSignInDays?.message}
              hint="Staff who signed in on a register within this many days may sign in there while it is offline; 0 = never"
            >
              {(props) => (
                <input
                  {...props}
                  className="bo-input"
                  inputMode="numeric"
                  {...register('offlineSignInDays')}
                  data-testid="settings-offline-sign-in-days"
                />
              )}
            </Field>
            <Field
              id={`${formId}-serviceStyle`}
              label="Service"
              error={errors.serviceStyle?.message}
              hint="What the registers open on: the counter (retail), the floor plan with open checks (restaurant), or a switch (both)"
            >
              {(props) => (
                <select {...props} className="bo-input" {...register('serviceStyle')} data-testid="settings-service-style">
                  {SERVICE_STYLES.map((style) => (
                    <option key={style} value={style}>
                      {SERVICE_STYLE_NAMES[style]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <div className="bo-row">
            <Field
              id={`${formId}-smsQuietHoursStart`}
              label="Quiet hours for texts: from"
              error={errors.smsQuietHoursStart?.message}
              hint="Local time: invoice texts and reminders wait until the quiet hours end; receipts and pay links go at once"
            >
              {(props) => (
                <input {...props} type="time" className="bo-input" {...register('smsQuietHoursStart')} data-testid="settings-quiet-start" />
              )}
            </Field>
            <Field
              id={`${formId}-smsQuietHoursEnd`}
              label="Quiet hours: until"
              error={errors.smsQuietHoursEnd?.message}
              hint="May be the next morning, e.g. 21:00 until 08:00; both empty: no quiet hours"
            >
              {(props) => <input {...props} type="time" className="bo-input" {...register('smsQuietHoursEnd')} data-testid="settings-quiet-end" />}
            </Field>
            <Field
              id={`${formId}-language`}
              label="Language of e-mails and texts"
              error={errors.language?.message}
              hint="Receipts, invoices and pay requests are written in it (templates below)"
            >
              {(props) => (
                <select {...props} className="bo-input" {...register('language')} data-testid="settings-language">
                  {STORE_LANGUAGES.map((l) => (
                    <option key={l} value={l}>
                      {STORE_LANGUAGE_NAMES[l]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <div className="bo-actions">
            {saved ? (
              <span className="bo-saved" role="status" data-testid="settings-saved">
                Saved
              </span>
            ) : null}
            <button type="submit" className="button button-primary" disabled={formState.isSubmitting} data-testid="settings-save">
              {formState.isSubmitting ? 'Saving…' : 'Save settings'}
            </button>
          </div>
        </form>
      </div>
      <MessageTemplatesEditor key={settings.language} storeLanguage={settings.language} />
    </section>
  );
}
