/**
 * Back office → Financial services: the store's check cashings, money transfers and bill payments, newest
 * first, with filters (status, name), and on a held check or transfer the manager's "Refuse" (clearing is done on the
 * screening, Back office → Screenings). Online, managers and owners (`GET /api/pos/check-cashings`,
 * `/api/pos/transfers`, `/api/pos/bill-payments`). A row opens its detail: the receipt lines and, for a check, the
 * stored check image (`GET /api/pos/check-cashings/{id}/image`). "Fees and limits" shows the store's fee schedule and
 * limits; the owner changes them (`PATCH /api/pos/financial-services/settings`).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useMemo, useState } from 'react';
import { useForm, type Path } from 'react-hook-form';
import { z } from 'zod';
import {
  checkFeeUpdateFields,
  financialServiceSettingsUpdateFields,
  formatMoney,
  serviceLimitsUpdateFields,
  type FinancialServiceSettings,
} from '../../../core/index.ts';
import { errorMessage } from '../common/back-office-api.ts';
import { Field } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { useDebounced } from '../common/cursor-list.tsx';
import { showProblem, typed } from '../common/forms.ts';

type Kind = 'checks' | 'transfers' | 'bills';

const KINDS: [Kind, string, string, string[]][] = [
  ['checks', 'Check cashing', '/api/pos/check-cashings', ['held', 'paid', 'refused']],
  ['transfers', 'Money transfers', '/api/pos/transfers', ['held', 'sent', 'available', 'paid', 'canceled', 'refunded', 'refused']],
  ['bills', 'Bill payments', '/api/pos/bill-payments', ['held', 'accepted', 'posted', 'rejected', 'refused']],
];

type Row = Record<string, unknown> & { id: string; status: string; createdAt: string };

function describe(kind: Kind, r: Row): { who: string; amount: string; detail: string } {
  const money = (c: unknown) => formatMoney(Number(c ?? 0));
  if (kind === 'checks')
    return {
      who: String(r.customerName),
      amount: money(r.amountCents),
      detail: `fee ${money(r.feeCents)}, ${String(r.routingNumber)} ${String(r.accountMasked)}`,
    };
  if (kind === 'transfers') {
    const q = (r.quote ?? {}) as {
      sendAmountCents?: number;
      feeCents?: number;
      country?: string;
      receiveAmountMinor?: number;
      receiveCurrency?: string;
    };
    return {
      who: `${String(r.senderName)} → ${String(r.receiverName)}`,
      amount: money(q.sendAmountCents),
      detail: `${q.country ?? ''}, fee ${money(q.feeCents)}, receives ${((q.receiveAmountMinor ?? 0) / 100).toFixed(2)} ${q.receiveCurrency ?? ''}`,
    };
  }
  return {
    who: String(r.customerName),
    amount: money(r.amountCents),
    detail: `${String(r.billerName)} ${String(r.accountMasked)} · ${r.confirmationNumber ? String(r.confirmationNumber) : 'not sent'}`,
  };
}

/** The stored image of a check (`GET /api/pos/check-cashings/{id}/image`), shown from a local object URL. */
function CheckImage({ row }: { row: Row }) {
  const image = useBackOfficeData('check-image', [row.id], async (api) =>
    (await api.raw('GET', `/api/pos/check-cashings/${encodeURIComponent(row.id)}/image`)).blob(),
  );
  const url = useMemo(() => (image.data ? URL.createObjectURL(image.data) : undefined), [image.data]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  if (url)
    return (
      <img
        src={url}
        alt={`Image of check ${String(row.checkNumber ?? row.id)}`}
        className="fs-check-image"
        data-testid="fs-check-image"
        style={{ maxWidth: '100%' }}
      />
    );
  if (image.error)
    return (
      <p className="form-error" role="alert">
        The check image could not be loaded: {errorMessage(image.error)}
      </p>
    );
  return (
    <p className="muted" data-testid="fs-check-no-image">
      Loading the check image…
    </p>
  );
}

/** The detail of one record: its receipt lines and, for a check with a stored image, the image. */
function RecordDetail({ kind, row }: { kind: Kind; row: Row }) {
  const receipt = Array.isArray(row.receipt) ? (row.receipt as string[]) : ((row.receipt as { lines?: string[] } | null)?.lines ?? []);
  return (
    <div className="fs-detail" data-testid="fs-detail">
      <p className="muted">Reference {row.id}</p>
      {receipt.length > 0 ? <pre className="service-receipt">{receipt.join('\n')}</pre> : null}
      {kind === 'checks' ? (
        row.hasImage ? (
          <CheckImage row={row} />
        ) : (
          <p className="muted" data-testid="fs-check-no-image">
            No check image was stored (the scanner sent none).
          </p>
        )
      ) : null}
    </div>
  );
}

const dollars = (cents: number) => (cents / 100).toFixed(2);
/** A typed amount ("12.50", "$3") or percentage ("1.25") as hundredths (cents, basis points); `undefined` when it is not one. */
const hundredthsOf = (text: string): number | undefined => {
  const m = /^\s*\$?(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(text);
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0')) : undefined;
};

/** The fees-and-limits form: what is typed (text) → the `PATCH` body's fields, each checked by the body's rule. */
function feesForm() {
  const amount = (rule: z.ZodOptional<z.ZodType<number, number>>) => typed(hundredthsOf, 'enter an amount such as 12.50', rule);
  const limits = z.object({
    perTransactionCents: amount(serviceLimitsUpdateFields.perTransactionCents),
    perCustomerPerDayCents: amount(serviceLimitsUpdateFields.perCustomerPerDayCents),
  });
  return z.object({
    checkFee: z.object({
      basisPoints: typed(hundredthsOf, 'enter a percentage such as 1.25', checkFeeUpdateFields.basisPoints),
      fixedCents: amount(checkFeeUpdateFields.fixedCents),
      minimumCents: amount(checkFeeUpdateFields.minimumCents),
    }),
    checkLimits: limits,
    transferLimits: limits,
    billPaymentFeeCents: amount(financialServiceSettingsUpdateFields.billPaymentFeeCents),
    billPaymentLimits: limits,
  });
}
const FEES_FORM = feesForm();
type FeesTyped = z.input<typeof FEES_FORM>;

/** The stored settings as the form shows them (percent and dollars with two decimals). */
function typedOf(s: FinancialServiceSettings): FeesTyped {
  const limits = (l: FinancialServiceSettings['checkLimits']) => ({
    perTransactionCents: dollars(l.perTransactionCents),
    perCustomerPerDayCents: dollars(l.perCustomerPerDayCents),
  });
  return {
    checkFee: {
      basisPoints: (s.checkFee.basisPoints / 100).toFixed(2),
      fixedCents: dollars(s.checkFee.fixedCents),
      minimumCents: dollars(s.checkFee.minimumCents),
    },
    checkLimits: limits(s.checkLimits),
    transferLimits: limits(s.transferLimits),
    billPaymentFeeCents: dollars(s.billPaymentFeeCents),
    billPaymentLimits: limits(s.billPaymentLimits),
  };
}

/** The fields of the settings form: test id, label, the body's path. */
const SETTING_FIELDS: { id: string; label: string; path: Path<FeesTyped> }[] = [
  { id: 'check-fee-percent', label: 'Check fee (%)', path: 'checkFee.basisPoints' },
  { id: 'check-fee-fixed', label: 'Check fee, fixed ($)', path: 'checkFee.fixedCents' },
  { id: 'check-fee-minimum', label: 'Check fee, minimum ($)', path: 'checkFee.minimumCents' },
  { id: 'check-limit-each', label: 'Most per check ($)', path: 'checkLimits.perTransactionCents' },
  { id: 'check-limit-day', label: 'Checks per customer per day ($)', path: 'checkLimits.perCustomerPerDayCents' },
  { id: 'transfer-limit-each', label: 'Most per transfer ($)', path: 'transferLimits.perTransactionCents' },
  { id: 'transfer-limit-day', label: 'Transfers per sender per day ($)', path: 'transferLimits.perCustomerPerDayCents' },
  { id: 'bill-fee', label: 'Bill payment fee ($)', path: 'billPaymentFeeCents' },
  { id: 'bill-limit-each', label: 'Most per bill payment ($)', path: 'billPaymentLimits.perTransactionCents' },
  { id: 'bill-limit-day', label: 'Bill payments per customer per day ($)', path: 'billPaymentLimits.perCustomerPerDayCents' },
];
const PATHS = SETTING_FIELDS.map((f) => f.path);

/** The message of one field of the form (nested paths: `checkLimits.perTransactionCents`). */
function errorAt(errors: object, path: string): string | undefined {
  const found = path
    .split('.')
    .reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), errors);
  return (found as { message?: string } | undefined)?.message;
}

/** "Fees and limits": the store's settings, read by everyone here, changed by the owner (the server refuses others). */
function FeesAndLimits() {
  const overview = useBackOfficeData('financial-services', [], (api) =>
    api.request<{ settings: FinancialServiceSettings }>('GET', '/api/pos/financial-services'),
  );
  if (overview.error)
    return (
      <p className="form-error" role="alert">
        {errorMessage(overview.error)}
      </p>
    );
  if (!overview.data) return null;
  return <FeesAndLimitsForm settings={overview.data.settings} />;
}

function FeesAndLimitsForm({ settings }: { settings: FinancialServiceSettings }) {
  const formId = useId();
  const { register, handleSubmit, setError, reset, formState } = useForm<FeesTyped, unknown, z.output<typeof FEES_FORM>>({
    resolver: zodResolver(FEES_FORM),
    defaultValues: typedOf(settings),
  });
  const actions = useBackOfficeActions(['financial-services']);
  const [saved, setSaved] = useState(false);

  const save = handleSubmit(async (values) => {
    setSaved(false);
    // The problem's detail stays in the form's message (it names the field) and each field error shows in place.
    const next = await actions.run(
      (api) => api.request<FinancialServiceSettings>('PATCH', '/api/pos/financial-services/settings', values),
      (err) => (showProblem(err, setError, PATHS), errorMessage(err)),
    );
    if (!next) return;
    reset(typedOf(next));
    setSaved(true);
  });
  const invalid = SETTING_FIELDS.find((f) => errorAt(formState.errors, f.path) !== undefined);
  const message = actions.error
    ? { error: true, text: actions.error }
    : invalid && !formState.isSubmitting
      ? { error: true, text: `${invalid.label}: ${errorAt(formState.errors, invalid.path)}.` }
      : saved
        ? { error: false, text: 'Saved: the register uses these fees and limits from the next service.' }
        : undefined;

  return (
    <form className="bo-form" onSubmit={(e) => void save(e)} aria-label="Fees and limits" data-testid="fs-settings" noValidate>
      <h3>Fees and limits</h3>
      <p className="muted">
        Check fee = percent of the check + fixed, at least the minimum. Limits are per transaction and per customer per day. Only the owner can change
        them.
      </p>
      {SETTING_FIELDS.map((f) => (
        <Field key={f.id} id={`${formId}-${f.id}`} label={f.label} error={errorAt(formState.errors, f.path)}>
          {(props) => <input {...props} className="bo-input" inputMode="decimal" {...register(f.path)} data-testid={`fs-setting-${f.id}`} />}
        </Field>
      ))}
      <button type="submit" className="button button-primary" disabled={formState.isSubmitting} data-testid="fs-settings-save">
        Save fees and limits
      </button>
      {message ? (
        <p className={message.error ? 'form-error' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="fs-settings-message">
          {message.text}
        </p>
      ) : null}
    </form>
  );
}

export function FinancialServicesView() {
  const [kind, setKind] = useState<Kind>('checks');
  const [status, setStatus] = useState('');
  const [name, setName] = useState('');
  const [open, setOpen] = useState<string | undefined>();
  const [, , path, statuses] = KINDS.find(([k]) => k === kind)!;
  const typedName = useDebounced(name.trim());
  // Keyed by the service: a page of one service is never drawn as another's.
  const list = useBackOfficeData('financial-services-records', [kind, status, typedName], (api) => {
    const q = new URLSearchParams({ limit: '100' });
    if (status) q.set('status', status);
    if (typedName) q.set(kind === 'transfers' ? 'name' : 'customerName', typedName);
    return api.request<{ data: Row[] }>('GET', `${path}?${q.toString()}`);
  });
  const rows = list.data?.data;
  const actions = useBackOfficeActions(['financial-services-records']);
  const listError = list.error ? errorMessage(list.error) : undefined;
  const error = actions.error ?? listError;

  const refuse = async (r: Row) => {
    const reason = window.prompt('Reason for refusing (kept in the audit trail)');
    if (!reason || reason.trim().length < 3) return;
    await actions.run((api) => api.request('POST', `${path}/${r.id}/refuse`, { reason }));
  };

  return (
    <section className="bo-section" data-testid="financial-services-lists">
      <h2>Financial services</h2>
      <div className="bo-actions" role="tablist" aria-label="Service">
        {KINDS.map(([k, label]) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={k === kind}
            className={k === kind ? 'bo-nav-link bo-nav-link-active' : 'bo-nav-link'}
            onClick={() => {
              setKind(k);
              setStatus('');
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="bo-form">
        <label>
          Status{' '}
          <select className="bo-input" value={status} onChange={(e) => setStatus(e.target.value)} data-testid="fs-status">
            <option value="">All</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name <input className="bo-input" value={name} onChange={(e) => setName(e.target.value)} data-testid="fs-name" />
        </label>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {rows ? (
        <table className="bo-table" data-testid="fs-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Amount</th>
              <th scope="col">Details</th>
              <th scope="col">Status</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
                  Nothing yet.
                </td>
              </tr>
            ) : (
              rows.map((r) => {
                const d = describe(kind, r);
                return [
                  <tr key={r.id} data-testid="fs-row" data-status={r.status}>
                    <td>{new Date(r.createdAt).toLocaleString()}</td>
                    <td>{d.who}</td>
                    <td>{d.amount}</td>
                    <td>{d.detail}</td>
                    <td>{r.status}</td>
                    <td>
                      <button
                        type="button"
                        className="button"
                        aria-expanded={open === r.id}
                        onClick={() => setOpen((o) => (o === r.id ? undefined : r.id))}
                        data-testid="fs-open"
                      >
                        {open === r.id ? 'Hide' : 'Details'}
                      </button>
                      {r.status === 'held' ? (
                        <button type="button" className="button" onClick={() => void refuse(r)}>
                          Refuse
                        </button>
                      ) : null}
                    </td>
                  </tr>,
                  open === r.id ? (
                    <tr key={`${r.id}-detail`}>
                      <td colSpan={6}>
                        <RecordDetail kind={kind} row={r} />
                      </td>
                    </tr>
                  ) : null,
                ];
              })
            )}
          </tbody>
        </table>
      ) : null}
      <FeesAndLimits />
    </section>
  );
}
