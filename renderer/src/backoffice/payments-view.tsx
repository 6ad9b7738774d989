/**
 * Back office → Payments: the store's payment rails (fee as % + fixed, cap, enabled, health — routing
 * chooses the cheapest available rail for each payment) and payouts of the settled card clearing balance to the bank.
 * In the demo store the payout button is disabled with the reason before anyone tries (settings `moneyMovement`);
 * the server would answer 403 `money_movement_disabled` anyway.
 * `GET`/`PATCH /api/pos/rails`, `GET`/`POST /api/pos/payouts`, `GET /api/pos/settings`.
 */
import { useCallback, useEffect, useState } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import { errorMessage, type Payout, type RailConfig, type StoreSettings } from '../common/back-office-api.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';

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

function RailRow({ rail, currency, onSaved }: { rail: RailConfig; currency: string; onSaved: (r: RailConfig) => void }) {
  const api = useApi();
  const [percent, setPercent] = useState(String(rail.fee.basisPoints / 100));
  const [fixed, setFixed] = useState(centsToInput(rail.fee.fixedCents, currency));
  const [cap, setCap] = useState(rail.fee.capCents === null ? '' : centsToInput(rail.fee.capCents, currency));
  const [error, setError] = useState<string | undefined>();
  const patch = async (body: Partial<Omit<RailConfig, 'rail'>>) => {
    setError(undefined);
    try {
      onSaved(await api.updateRail(rail.rail, body));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const saveFee = () => {
    const bp = /^\d{1,3}(\.\d{1,2})?$/.test(percent.trim()) ? Math.round(Number(percent.trim()) * 100) : Number.NaN;
    const fixedCents = parseCashInput(fixed, currency) ?? Number.NaN;
    const capCents = cap.trim() === '' ? null : (parseCashInput(cap, currency) ?? Number.NaN);
    void patch({ fee: { basisPoints: bp, fixedCents, capCents } });
  };
  const label = RAIL_LABELS[rail.rail];
  return (
    <tr data-testid="rail-row" data-rail={rail.rail}>
      <th scope="row">{label}</th>
      <td>
        <input
          className="bo-input bo-input-narrow"
          aria-label={`${label} fee percent`}
          inputMode="decimal"
          value={percent}
          onChange={(e) => setPercent(e.target.value)}
        />{' '}
        % +{' '}
        <input
          className="bo-input bo-input-narrow"
          aria-label={`${label} fixed fee`}
          inputMode="decimal"
          value={fixed}
          onChange={(e) => setFixed(e.target.value)}
        />{' '}
        cap{' '}
        <input
          className="bo-input bo-input-narrow"
          aria-label={`${label} fee cap`}
          inputMode="decimal"
          placeholder="none"
          value={cap}
          onChange={(e) => setCap(e.target.value)}
        />{' '}
        <button type="button" className="button" onClick={saveFee}>
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
  const api = useApi();
  const [settings, setSettings] = useState<StoreSettings | undefined>();
  const [rails, setRails] = useState<RailConfig[] | undefined>();
  const [payouts, setPayouts] = useState<Payout[]>([]);
  const [loadError, setLoadError] = useState<unknown>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    Promise.all([api.settings(), api.rails(), api.payouts()]).then(([s, r, p]) => {
      setSettings(s);
      setRails(r.data);
      setPayouts(p.data);
    }, setLoadError);
  }, [api]);
  useEffect(load, [load]);

  if (loadError) return <LoadError error={loadError} what="Payments" />;
  if (!settings || !rails) return <p className="muted">Loading payments…</p>;
  const disabled = settings.moneyMovement === 'disabled';

  const payOut = async () => {
    setError(undefined);
    setBusy(true);
    try {
      await api.createPayout();
      load();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

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
              <RailRow
                key={rail.rail}
                rail={rail}
                currency={settings.currency}
                onSaved={(next) => setRails(rails.map((r) => (r.rail === next.rail ? next : r)))}
              />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
