/**
 * Back office → Payments: the store's payment rails (fee as % + fixed, cap, enabled, health — routing
 * chooses the cheapest available rail for each payment) and payouts of the settled card clearing balance to the bank.
 * In the demo store the payout button is disabled with the reason before anyone tries (settings `moneyMovement`);
 * the server would answer 403 `money_movement_disabled` anyway.
 * `GET`/`PATCH /api/pos/rails`, `GET`/`POST /api/pos/payouts`, `GET /api/pos/settings`. Held by TanStack Query
 * (common/back-office-query.ts); a rail's fee is a form (React Hook Form) whose parts are checked with the `fee` rule
 * of the PATCH body (core `feeScheduleSchema`) before it is sent.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { feeScheduleSchema, formatMoney } from '../../../core/index.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import type { RailConfig } from '../common/back-office-api.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem, typed } from '../common/forms.ts';

const RAIL_LABELS: Record<RailConfig['rail'], string> = {
  card_present: 'Card present (terminal)',
  card_not_present: 'Card not present (pay page)',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  ach: 'ACH bank transfer',
  instant_bank: 'Instant bank (RTP/FedNow)',
  cash: 'Cash',
  check: 'Check',
};

/** The text shown beside the disabled payout button in the demo store. */
export const MONEY_MOVEMENT_DISABLED_REASON =
  'Money movement is disabled in the demo store: payouts to the bank never run here (sales and refunds use the sandbox rails).';

/** A typed percentage (up to two decimals, "%" allowed) as basis points; `undefined` when it is not one. */
function basisPointsOf(text: string): number | undefined {
  const t = text.trim().replace(/%$/, '').trim();
  return /^\d{1,3}(\.\d{1,2})?$/.test(t) ? Math.round(Number(t) * 100) : undefined;
}

/**
 * A rail's fee form: what is typed (text) → the `PATCH /api/pos/rails/{rail}` body `{ fee }`, each part checked by
 * its rule (core `feeScheduleSchema`). The form's paths are the body's (`fee.basisPoints`, …), so the server's field
 * errors land on the same fields.
 */
function feeForm(currency: string) {
  const f = feeScheduleSchema.shape;
  const amountOf = (t: string) => parseCashInput(t, currency) ?? undefined;
  const notAmount = `must be an amount in ${currency}, e.g. 0.30`;
  return z.object({
    fee: z.object({
      basisPoints: typed(basisPointsOf, 'must be a percentage with up to two decimals, e.g. 2.9', f.basisPoints),
      fixedCents: typed(amountOf, notAmount, f.fixedCents),
      // An empty cap is no cap (null).
      capCents: typed((t) => (t.trim() === '' ? null : amountOf(t)), `${notAmount}, or empty for no cap`, f.capCents),
    }),
  });
}
type FeeForm = ReturnType<typeof feeForm>;
type TypedFee = z.input<FeeForm>;
const FEE_FIELDS = ['fee.basisPoints', 'fee.fixedCents', 'fee.capCents'] as const;

/** A rail's stored fee as the form shows it. */
function typedFee(rail: RailConfig, currency: string): TypedFee {
  return {
    fee: {
      basisPoints: String(rail.fee.basisPoints / 100),
      fixedCents: centsToInput(rail.fee.fixedCents, currency),
      capCents: rail.fee.capCents === null ? '' : centsToInput(rail.fee.capCents, currency),
    },
  };
}

function RailRow({ rail, currency }: { rail: RailConfig; currency: string }) {
  const actions = useBackOfficeActions(['rails']);
  const schema = useMemo(() => feeForm(currency), [currency]);
  const form = useForm<TypedFee, unknown, z.output<FeeForm>>({ resolver: zodResolver(schema), defaultValues: typedFee(rail, currency) });
  const { register, handleSubmit, setError, reset, formState } = form;
  const patch = (body: Partial<Omit<RailConfig, 'rail'>>) => actions.run((api) => api.updateRail(rail.rail, body));
  const saveFee = handleSubmit(async (body) => {
    const saved = await actions.run(
      (api) => api.updateRail(rail.rail, body),
      (err) => showProblem(err, setError, FEE_FIELDS),
    );
    if (saved) reset(typedFee(saved, currency));
  });
  const errors = formState.errors.fee;
  // The row has no room under each small input: the fee's errors are said together, each input marked invalid.
  const error = [errors?.basisPoints?.message, errors?.fixedCents?.message, errors?.capCents?.message, actions.error].filter(Boolean).join('; ');
  const label = RAIL_LABELS[rail.rail];
  return (
    <tr data-testid="rail-row" data-rail={rail.rail}>
      <th scope="row">{label}</th>
      <td>
        <input
          className="bo-input bo-input-narrow"
          aria-label={`${label} fee percent`}
          aria-invalid={Boolean(errors?.basisPoints)}
          inputMode="decimal"
          {...register('fee.basisPoints')}
        />{' '}
        % +{' '}
        <input
          className="bo-input bo-input-narrow"
          aria-label={`${label} fixed fee`}
          aria-invalid={Boolean(errors?.fixedCents)}
          inputMode="decimal"
          {...register('fee.fixedCents')}
        />{' '}
        cap{' '}
        <input
          className="bo-input bo-input-narrow"
          aria-label={`${label} fee cap`}
          aria-invalid={Boolean(errors?.capCents)}
          inputMode="decimal"
          placeholder="none"
          {...register('fee.capCents')}
        />{' '}
        <button type="button" className="button" disabled={formState.isSubmitting} onClick={() => void saveFee()}>
          Save fee
        </button>
        {rail.debitFee ? (
          <div className="muted">
            Debit: {rail.debitFee.basisPoints / 100} % + {formatMoney(rail.debitFee.fixedCents, currency)}
          </div>
        ) : null}
        {error ? (
          <div className="form-error" role="alert">
            {error}
          </div>
        ) : null}
      </td>
      <td>
        {formatMoney(rail.minCents, currency)} – {formatMoney(rail.maxCents, currency)}
      </td>
      <td>{rail.settlementHours === 0 ? 'at once' : `${rail.settlementHours} h`}</td>
      <td>
        <label>
          <input type="checkbox" checked={rail.enabled} onChange={(e) => void patch({ enabled: e.target.checked })} /> On
        </label>{' '}
        <select
          className="bo-input"
          aria-label={`${label} health`}
          value={rail.status}
          onChange={(e) => void patch({ status: e.target.value as RailConfig['status'] })}
        >
          <option value="up">up</option>
          <option value="down">down</option>
        </select>
        {rail.onlineOnly ? <span className="muted"> online only</span> : null}
      </td>
    </tr>
  );
}

export function PaymentsView() {
  // The settings share the Settings section's query (the same key): the currency and whether money may move.
  const settingsQuery = useBackOfficeData('settings', [], (api) => api.settings());
  const railsQuery = useBackOfficeData('rails', [], (api) => api.rails());
  const payoutsQuery = useBackOfficeData('payouts', [], (api) => api.payouts());
  const payoutActions = useBackOfficeActions(['payouts']);

  const loadError = settingsQuery.error ?? railsQuery.error ?? payoutsQuery.error;
  if (loadError) return <LoadError error={loadError} what="Payments" />;
  const settings = settingsQuery.data;
  const rails = railsQuery.data?.data;
  const payouts = payoutsQuery.data?.data ?? [];
  if (!settings || !rails) return <p className="muted">Loading payments…</p>;
  const disabled = settings.moneyMovement === 'disabled';
  const busy = payoutActions.pending;
  const error = payoutActions.error;

  const payOut = () => payoutActions.run((api) => api.createPayout());

  return (
    <section className="bo-section" data-testid="payments">
      <div className="bo-panel">
        <div className="bo-panel-header">
          <h2>Payouts</h2>
          <button
            type="button"
            className="button button-primary"
            disabled={disabled || busy}
            onClick={() => void payOut()}
            data-testid="payout-button"
            aria-describedby={disabled ? 'payout-disabled-reason' : undefined}
          >
            Pay out settled balance
          </button>
        </div>
        {disabled ? (
          <p className="muted" id="payout-disabled-reason" data-testid="payout-disabled-reason">
            {MONEY_MOVEMENT_DISABLED_REASON}
          </p>
        ) : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        {payouts.length === 0 ? (
          <p className="muted">No payouts yet.</p>
        ) : (
          <ul data-testid="payout-list">
            {payouts.map((p) => (
              <li key={p.id}>
                {new Date(p.createdAt).toLocaleString()} — {formatMoney(p.amountCents, p.currency)} to the bank ({p.status})
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="bo-panel">
        <div className="bo-panel-header">
          <h2>Payment rails</h2>
        </div>
        <p className="muted">Each payment goes on the cheapest rail that is on, up and within its limits; ties go to the faster settlement.</p>
        <table className="bo-table">
          <thead>
            <tr>
              <th scope="col">Rail</th>
              <th scope="col">Fee</th>
              <th scope="col">Limits</th>
              <th scope="col">Settles</th>
              <th scope="col">Availability</th>
            </tr>
          </thead>
          <tbody>
            {rails.map((rail) => (
              <RailRow key={rail.rail} rail={rail} currency={settings.currency} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
