/** The store's installed apps, with the monthly price of a paid app and any change of it. */
import { useEffect, useId, useRef, useState } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { errorMessage, type BackOfficeApi } from '../common/back-office-api.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import {
  acceptAppPrice,
  billingDateText,
  explainScope,
  launchApp,
  monthlyText,
  safeLaunchUrl,
  uninstallApp,
  type AppInstallation,
  type AppSubscription,
} from './apps-api.ts';
import type { OpenApp } from './app-frame.tsx';

/** The store's installed apps: granted scopes, Open (in-platform), Uninstall (owner, confirmed inline). */
export function InstalledApps({
  api,
  isOwner,
  rows,
  subscriptions,
  error,
  onOpen,
  onChanged,
  focusRequest,
}: {
  api: BackOfficeApi;
  isOwner: boolean;
  rows: AppInstallation[] | undefined;
  /** The store's paid app subscriptions (empty for cashiers). */
  subscriptions: AppSubscription[];
  error: unknown;
  onOpen: (app: OpenApp) => void;
  onChanged: (message: string) => void;
  /** Focus moves to the heading whenever this changes (after the first render). */
  focusRequest: number;
}) {
  const [confirming, setConfirming] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [actionError, setActionError] = useState<string | undefined>();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusRequest > 0) heading.current?.focus();
  }, [focusRequest, rows]);

  const subscriptionOf = (row: AppInstallation) => subscriptions.find((s) => s.installationId === row.id && s.status !== 'canceled');
  const uninstall = async (row: AppInstallation) => {
    setBusy(row.id);
    setActionError(undefined);
    try {
      await uninstallApp(api, row.id);
      setConfirming(undefined);
      onChanged(`${row.appName} is uninstalled: its access has ended.`);
    } catch (err) {
      setActionError(errorMessage(err));
    } finally {
      setBusy(undefined);
    }
  };
  const open = async (row: AppInstallation) => {
    setActionError(undefined);
    setBusy(row.id);
    try {
      const launch = await launchApp(api, row.id);
      const url = safeLaunchUrl(launch.launchUrl);
      if (!url) throw new Error(`${row.appName} has no web page to open.`);
      onOpen({ installation: row, launchUrl: url, accessToken: launch.accessToken, expiresAt: launch.expiresAt });
    } catch (err) {
      setActionError(errorMessage(err));
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section className="bo-section" aria-labelledby={headingId} data-testid="installed-apps">
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        Installed apps
      </h2>
      {error ? <LoadError error={error} what="Installed apps" /> : null}
      {!error && !rows ? <p className="muted">Loading installed apps…</p> : null}
      {rows && rows.length === 0 ? (
        <p className="muted" data-testid="installed-apps-empty">
          No app is installed in this store yet.
        </p>
      ) : null}
      {actionError ? (
        <p className="form-error" role="alert" data-testid="installed-app-error">
          {actionError}
        </p>
      ) : null}
      {rows && rows.length > 0 ? (
        <ul className="installed-apps">
          {rows.map((row) => (
            <li
              key={row.id}
              className="installed-app"
              data-testid="installed-app"
              data-installation-id={row.id}
              data-app-id={row.appId}
              data-status={row.status}
            >
              <div className="installed-app-main">
                <strong>{row.appName}</strong>
                {row.status === 'suspended' ? <span className="bo-status bo-status-pending"> Suspended</span> : null}
                <span className="muted"> · installed {new Date(row.installedAt).toLocaleDateString()}</span>
                <ul className="app-scopes" aria-label={`What ${row.appName} may do`}>
                  {row.grantedScopes.map((scope) => (
                    <li key={scope} data-scope={scope}>
                      {explainScope(scope)}
                    </li>
                  ))}
                </ul>
                {subscriptionOf(row) ? <AppPrice api={api} subscription={subscriptionOf(row)!} isOwner={isOwner} onChanged={onChanged} /> : null}
              </div>
              <div className="bo-actions">
                {row.form === 'in_platform' && row.status === 'installed' ? (
                  <button
                    type="button"
                    className="button button-primary"
                    disabled={busy === row.id}
                    onClick={() => void open(row)}
                    data-testid="installed-app-open"
                    aria-label={`Open ${row.appName}`}
                  >
                    Open
                  </button>
                ) : null}
                {isOwner && confirming !== row.id ? (
                  <button
                    type="button"
                    className="button"
                    onClick={() => setConfirming(row.id)}
                    data-testid="installed-app-uninstall"
                    aria-label={`Uninstall ${row.appName}`}
                  >
                    Uninstall
                  </button>
                ) : null}
              </div>
              {confirming === row.id ? (
                <div
                  className="banner banner-warning app-confirm"
                  role="group"
                  aria-label={`Uninstall ${row.appName}?`}
                  data-testid="installed-app-confirm"
                >
                  <span>Uninstall {row.appName}? Its access ends at once and its webhooks stop.</span>
                  <button
                    type="button"
                    className="button bo-danger"
                    disabled={busy === row.id}
                    onClick={() => void uninstall(row)}
                    data-testid="installed-app-confirm-uninstall"
                  >
                    Uninstall
                  </button>
                  <button type="button" className="button" onClick={() => setConfirming(undefined)}>
                    Keep it
                  </button>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * What a paid app costs this store and what a change of its price means. A rise is shown with the old and new price
 * and what accepting means; only the owner accepts (the price shown is the one sent: the server refuses it if the
 * app's price changed meanwhile). Until accepted the store keeps paying the old price at every renewal.
 */
function AppPrice({
  api,
  subscription,
  isOwner,
  onChanged,
}: {
  api: BackOfficeApi;
  subscription: AppSubscription;
  isOwner: boolean;
  onChanged: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const change = subscription.priceChange;
  const current = monthlyText(subscription.priceCents, subscription.currency);
  const accept = async () => {
    if (!change || change.kind !== 'rise' || !change.toCurrency) return;
    setBusy(true);
    setError(undefined);
    try {
      await acceptAppPrice(api, subscription.id, { toCents: change.toCents, toCurrency: change.toCurrency });
      onChanged(
        `${subscription.appName}: the new price of ${monthlyText(change.toCents, change.toCurrency)} applies from ${billingDateText(change.appliesFrom)}.`,
      );
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="app-billing" data-testid="installed-app-billing">
      <p className="muted" data-testid="installed-app-price">
        You pay {current}
        {subscription.nextChargeAt && subscription.nextChargeCents !== null
          ? `; next charge ${formatMoney(subscription.nextChargeCents, subscription.currency)} on ${billingDateText(subscription.nextChargeAt)}`
          : ''}
        .
      </p>
      {change?.kind === 'rise' && change.toCurrency ? (
        <div
          className="banner banner-warning app-price-change"
          role="group"
          aria-label={`${subscription.appName} price change`}
          data-testid="app-price-change"
        >
          <p>
            <strong>{subscription.appName} has a new price:</strong>{' '}
            <span data-testid="app-price-old">{monthlyText(change.fromCents, change.fromCurrency)}</span> →{' '}
            <span data-testid="app-price-new">{monthlyText(change.toCents, change.toCurrency)}</span>.
          </p>
          <p>
            Accepting means this store is billed {monthlyText(change.toCents, change.toCurrency)} from the renewal on{' '}
            {billingDateText(change.appliesFrom)}. Until you accept, you keep paying {monthlyText(change.fromCents, change.fromCurrency)} every month;
            if you do not want the new price, you may also uninstall the app.
          </p>
          {isOwner ? (
            <button type="button" className="button button-primary" disabled={busy} onClick={() => void accept()} data-testid="app-price-accept">
              {busy ? 'Accepting…' : `Accept ${monthlyText(change.toCents, change.toCurrency)}`}
            </button>
          ) : (
            <p className="muted" data-testid="app-price-owner-only">
              Only the store owner can accept a new price.
            </p>
          )}
          {error ? (
            <p className="form-error" role="alert" data-testid="app-price-error">
              {error}
            </p>
          ) : null}
        </div>
      ) : null}
      {change?.kind === 'lower' && change.toCurrency ? (
        <p className="muted" data-testid="app-price-change">
          The price went down: from {billingDateText(change.appliesFrom)} you pay {monthlyText(change.toCents, change.toCurrency)} (was{' '}
          {monthlyText(change.fromCents, change.fromCurrency)}).
        </p>
      ) : null}
      {change?.kind === 'free' ? (
        <p className="muted" data-testid="app-price-change">
          {subscription.appName} is free now: nothing more is charged after {billingDateText(change.appliesFrom)}.
        </p>
      ) : null}
    </div>
  );
}
