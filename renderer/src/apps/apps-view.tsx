/**
 * Apps: the app directory, the install dialog, the installed apps and the in-platform app frame.
 * Shown in the register (Services → Apps) and in the back office (Apps), with the token of the staff member signed in.
 *
 * - Directory: listed apps with icon, name, developer, category, price (free or monthly), what it can do in plain words
 *   (core `APP_SCOPE_EXPLANATIONS`), a search box and a category filter; an empty state.
 * - Install (owner only; others are told why): the requested scopes as checkboxes, all checked; "Approve and install"
 *   grants the checked subset. An external integration then offers "Connect <app>" (its connect URL, new tab).
 * - Installed apps: granted scopes; Open (in-platform), Uninstall (confirmed; its tokens stop working at once). For
 *   managers and owners a paid app also shows the monthly price the store agreed to and any change of the app's price:
 *   a rise shows the old and the new price and what accepting means — only the owner accepts, and until then the
 *   store keeps paying the old price; a lower price or a now-free app is stated (they apply by themselves).
 * - Open: `POST …/launch` gives a 1 h app token and the page; the page runs in
 *   `<iframe sandbox="allow-scripts allow-forms">` (no `allow-same-origin`: it cannot read this register's storage or
 *   cookies; no device permission) and reaches the API only through the message bridge (app-bridge.ts), which calls
 *   with the APP's token, renewed by a new launch when it has expired.
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { errorMessage, type BackOfficeApi } from '../common/back-office-api.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';
import { currentStaffSession, staffSession$ } from '../common/staff-session.ts';
import { Dialog } from '../ui/dialog.tsx';
import { useObservable } from '../ui/hooks.ts';
import { createAppBridge } from './app-bridge.ts';
import {
  acceptAppPrice,
  billingDateText,
  explainScope,
  formText,
  installApp,
  launchApp,
  listAppDirectory,
  listAppSubscriptions,
  listInstallations,
  monthlyText,
  priceText,
  safeLaunchUrl,
  uninstallApp,
  type AppDirectoryPage,
  type AppInstallation,
  type AppSubscription,
  type DirectoryApp,
  type InstallResult,
} from './apps-api.ts';
import './apps.css';

/** The app open in the frame: its installation, the page and the app token of its launch. */
interface OpenApp {
  installation: AppInstallation;
  launchUrl: string;
  accessToken: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** Apps: directory, installed apps, and the open in-platform app. */
export function AppsView() {
  const api = useApi();
  useObservable(staffSession$, staffSession$.value);
  const role = currentStaffSession()?.staff.role;
  const [installed, setInstalled] = useState<AppInstallation[] | undefined>();
  const [installedError, setInstalledError] = useState<unknown>();
  // Managers and owners see what the paid apps cost (cashiers may not read subscriptions).
  const [subscriptions, setSubscriptions] = useState<AppSubscription[]>([]);
  const seesBilling = role === 'owner' || role === 'manager';
  const [open, setOpen] = useState<OpenApp | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  // Bumped after an install, an uninstall or closing an app: the control used is gone, so focus goes to "Installed apps".
  const [focusInstalled, setFocusInstalled] = useState(0);

  const loadInstalled = useCallback(() => {
    listInstallations(api).then(
      (rows) => {
        setInstalled(rows);
        setInstalledError(undefined);
      },
      (err: unknown) => setInstalledError(err),
    );
    if (seesBilling) listAppSubscriptions(api).then(setSubscriptions, () => setSubscriptions([]));
  }, [api, seesBilling]);
  useEffect(loadInstalled, [loadInstalled]);

  if (open)
    return (
      <AppFrame
        api={api}
        app={open}
        onClose={() => {
          setOpen(undefined);
          setFocusInstalled((n) => n + 1);
        }}
      />
    );
  return (
    <section className="bo-section apps" data-testid="apps">
      {notice ? (
        <p className="bo-saved" role="status" data-testid="apps-notice">
          {notice}
        </p>
      ) : null}
      <InstalledApps
        api={api}
        isOwner={role === 'owner'}
        rows={installed}
        subscriptions={subscriptions}
        error={installedError}
        onOpen={setOpen}
        focusRequest={focusInstalled}
        onChanged={(message) => {
          setNotice(message);
          setFocusInstalled((n) => n + 1);
          loadInstalled();
        }}
      />
      <AppDirectory
        api={api}
        role={role}
        installed={installed ?? []}
        onInstalled={(result) => {
          setNotice(`${result.installation.appName} is installed.`);
          setFocusInstalled((n) => n + 1);
          loadInstalled();
        }}
      />
    </section>
  );
}

/** The directory: search, category filter, the listed apps and the install dialog. */
function AppDirectory({
  api,
  role,
  installed,
  onInstalled,
}: {
  api: BackOfficeApi;
  role: string | undefined;
  installed: AppInstallation[];
  onInstalled: (result: InstallResult) => void;
}) {
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const [page, setPage] = useState<AppDirectoryPage | undefined>();
  const [error, setError] = useState<unknown>();
  const [installing, setInstalling] = useState<DirectoryApp | undefined>();
  const searchId = useId();
  const categoryId = useId();

  useEffect(() => {
    let current = true;
    // Typed searches wait 250 ms for the next key.
    const timer = setTimeout(
      () => {
        listAppDirectory(api, { q, category }).then(
          (p) => {
            if (!current) return;
            setPage(p);
            setError(undefined);
          },
          (err: unknown) => current && setError(err),
        );
      },
      q ? 250 : 0,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, q, category]);

  const installedIds = new Set(installed.map((i) => i.appId));
  const categories = page?.categories ?? [];
  return (
    <section className="bo-section" aria-labelledby={`${searchId}-heading`} data-testid="app-directory">
      <h2 id={`${searchId}-heading`}>App directory</h2>
      <form className="bo-toolbar" role="search" onSubmit={(e: FormEvent) => e.preventDefault()}>
        <label htmlFor={searchId} className="visually-hidden">
          Search apps
        </label>
        <input
          id={searchId}
          className="bo-input"
          type="search"
          placeholder="Search apps"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          data-testid="app-search"
          autoComplete="off"
        />
        <label htmlFor={categoryId} className="visually-hidden">
          Category
        </label>
        <select id={categoryId} className="bo-input" value={category} onChange={(e) => setCategory(e.target.value)} data-testid="app-category">
          <option value="">All categories</option>
          {categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </form>
      {error ? <LoadError error={error} what="The app directory" /> : null}
      {!error && !page ? <p className="muted">Loading the app directory…</p> : null}
      {page && page.data.length === 0 ? (
        <p className="bo-empty" data-testid="app-directory-empty">
          {q || category
            ? 'No app matches this search. Try other words or all categories.'
            : 'No apps are listed yet. Apps appear here once the platform has reviewed them.'}
        </p>
      ) : null}
      {page && page.data.length > 0 ? (
        <ul className="app-cards">
          {page.data.map((app) => (
            <li key={app.id} className="app-card" data-testid="app-card" data-app-id={app.id}>
              <div className="app-card-head">
                <AppIcon name={app.name} iconUrl={app.iconUrl} />
                <div className="app-card-title">
                  <h3 className="app-name">{app.name}</h3>
                  <span className="muted">by {app.developerName}</span>
                </div>
              </div>
              <p className="app-meta">
                <span className="bo-status">{app.category}</span>
                <span className="app-price" data-testid="app-price">
                  {priceText(app.pricing)}
                </span>
                <span className="muted">{formText(app.form)}</span>
              </p>
              <p className="app-description">{app.description}</p>
              <div>
                <h4 className="app-scopes-title">It can</h4>
                <ul className="app-scopes">
                  {app.scopes.map((s) => (
                    <li key={s.scope} data-scope={s.scope}>
                      {s.explanation || explainScope(s.scope)}
                    </li>
                  ))}
                </ul>
              </div>
              <div className="bo-actions app-card-actions">
                {installedIds.has(app.id) ? (
                  <span className="bo-status bo-status-paid" data-testid="app-installed-badge">
                    Installed
                  </span>
                ) : (
                  <button
                    type="button"
                    className="button button-primary"
                    onClick={() => setInstalling(app)}
                    data-testid="app-install"
                    aria-label={`Install ${app.name}`}
                  >
                    Install
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {installing ? (
        <InstallDialog
          api={api}
          app={installing}
          role={role}
          onClose={() => setInstalling(undefined)}
          onInstalled={(result) => {
            onInstalled(result);
            if (!result.connectUrl) setInstalling(undefined);
          }}
        />
      ) : null}
    </section>
  );
}

/** The app's icon, or its initial on a tinted square when it has none (decorative: the name is next to it). */
function AppIcon({ name, iconUrl }: { name: string; iconUrl: string | null | undefined }) {
  if (iconUrl) return <img className="app-icon" src={iconUrl} alt="" width={48} height={48} referrerPolicy="no-referrer" />;
  return (
    <span className="app-icon app-icon-letter" aria-hidden="true">
      {name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}

/**
 * Install: the owner sees every scope the app asks for (checked), unchecks what they refuse, and approves; at least one
 * must stay checked. Other roles see why they cannot install. An external integration then offers "Connect <app>".
 */
function InstallDialog({
  api,
  app,
  role,
  onClose,
  onInstalled,
}: {
  api: BackOfficeApi;
  app: DirectoryApp;
  role: string | undefined;
  onClose: () => void;
  onInstalled: (result: InstallResult) => void;
}) {
  const [checked, setChecked] = useState<Set<string>>(() => new Set(app.scopes.map((s) => s.scope)));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<InstallResult | undefined>();
  const isOwner = role === 'owner';
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!isOwner || checked.size === 0 || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const result = await installApp(
        api,
        app.id,
        app.scopes.map((s) => s.scope).filter((s) => checked.has(s)),
      );
      setDone(result);
      onInstalled(result);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (scope: string, on: boolean) =>
    setChecked((prev) => {
      const next = new Set(prev);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });

  if (done?.connectUrl) {
    return (
      <Dialog
        title={`${app.name} is installed`}
        onClose={onClose}
        footer={
          <button type="button" className="button" onClick={onClose}>
            Done
          </button>
        }
      >
        <div data-testid="app-connect">
          <p>Finish on {app.developerName}’s site: it asks this store to confirm the access you approved.</p>
          <a
            className="button button-primary"
            href={done.connectUrl}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="app-connect-link"
            data-autofocus
          >
            Connect {app.name}
          </a>
          <p className="muted">The link works once and for 10 minutes.</p>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog
      title={`Install ${app.name}`}
      onClose={onClose}
      footer={
        <>
          {error ? (
            <span className="form-error dialog-hint" role="alert" data-testid="app-install-error">
              {error}
            </span>
          ) : null}
          <button type="button" className="button" onClick={onClose} data-testid="app-install-cancel">
            Cancel
          </button>
          {isOwner ? (
            <button
              type="button"
              className="button button-primary"
              disabled={busy || checked.size === 0}
              onClick={() => void submit()}
              data-testid="app-install-approve"
            >
              {busy ? 'Installing…' : 'Approve and install'}
            </button>
          ) : null}
        </>
      }
    >
      <form onSubmit={(e) => void submit(e)} data-testid="app-install-dialog">
        <p>
          {app.name} by {app.developerName} · {priceText(app.pricing)}
          {app.pricing.model === 'monthly' ? ', billed to the store every month' : ''}.
        </p>
        {isOwner ? (
          <fieldset className="choice-group">
            <legend>{app.name} asks to:</legend>
            {app.scopes.map((s) => (
              <label key={s.scope} className="bo-check app-scope-choice">
                <input
                  type="checkbox"
                  checked={checked.has(s.scope)}
                  onChange={(e) => toggle(s.scope, e.target.checked)}
                  data-testid="app-scope"
                  data-scope={s.scope}
                />
                <span>
                  {s.explanation || explainScope(s.scope)} <code className="muted">{s.scope}</code>
                </span>
              </label>
            ))}
          </fieldset>
        ) : (
          <>
            <p>{app.name} asks to:</p>
            <ul className="app-scopes">
              {app.scopes.map((s) => (
                <li key={s.scope}>{s.explanation || explainScope(s.scope)}</li>
              ))}
            </ul>
            <p className="banner banner-warning app-owner-only" role="status" data-testid="app-install-owner-only">
              Only the store owner can install apps and approve what they may do{role ? `; you are signed in as ${role}` : ''}. Ask the owner to sign
              in here.
            </p>
          </>
        )}
        {isOwner && checked.size === 0 ? (
          <p className="form-error" role="status">
            Keep at least one permission checked, or cancel.
          </p>
        ) : null}
        {isOwner ? (
          <p className="muted">Unchecked permissions are refused: the app gets only what stays checked. You can uninstall it at any time.</p>
        ) : null}
      </form>
    </Dialog>
  );
}

/** The store's installed apps: granted scopes, Open (in-platform), Uninstall (owner, confirmed inline). */
function InstalledApps({
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

/** Permissions-Policy of the frame: none of the register's devices or payment features. */
const FRAME_ALLOW = "camera 'none'; microphone 'none'; geolocation 'none'; usb 'none'; serial 'none'; hid 'none'; bluetooth 'none'; payment 'none'";

/**
 * An in-platform app in its sandboxed frame, with the message bridge. The app token lives here (memory only) and is
 * renewed by a new launch a minute before it expires; the frame never sees it.
 */
function AppFrame({ api, app, onClose }: { api: BackOfficeApi; app: OpenApp; onClose: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const token = useRef<{ accessToken: string; expiresAt: number } | undefined>(undefined);
  const [calls, setCalls] = useState<{ n: number; method: string; path: string; status: number }[]>([]);
  const installationId = app.installation.id;
  const { accessToken, expiresAt } = app;
  const title = useRef<HTMLHeadingElement>(null);
  // The Open button is gone: focus lands on the app's name, just before the frame.
  useEffect(() => title.current?.focus(), []);

  useEffect(() => {
    token.current = { accessToken, expiresAt: Date.parse(expiresAt) };
    let counter = 0;
    let launching: Promise<string> | undefined;
    const appToken = async (): Promise<string> => {
      const held = token.current;
      if (held && held.expiresAt - 60_000 > Date.now()) return held.accessToken;
      launching ??= launchApp(api, installationId)
        .then((launch) => {
          token.current = { accessToken: launch.accessToken, expiresAt: Date.parse(launch.expiresAt) };
          return launch.accessToken;
        })
        .finally(() => {
          launching = undefined;
        });
      return launching;
    };
    const bridge = createAppBridge({
      frame: () => frame.current?.contentWindow,
      appToken,
      onCall: (call) => {
        counter += 1;
        const n = counter;
        setCalls((prev) => [{ n, ...call }, ...prev].slice(0, 5));
      },
    });
    window.addEventListener('message', bridge);
    return () => {
      window.removeEventListener('message', bridge);
      token.current = undefined;
    };
  }, [api, installationId, accessToken, expiresAt]);

  return (
    <section className="bo-section app-frame-view" data-testid="app-frame-view" data-installation-id={installationId}>
      <div className="bo-toolbar">
        <h2 ref={title} tabIndex={-1}>
          {app.installation.appName}
        </h2>
        <span className="muted app-frame-note">
          Runs apart from the register, with only what you approved: {app.installation.grantedScopes.map(explainScope).join(' ')}
        </span>
        <button type="button" className="button app-frame-close" onClick={onClose} data-testid="app-frame-close">
          Close app
        </button>
      </div>
      <iframe
        ref={frame}
        className="app-frame"
        title={app.installation.appName}
        src={app.launchUrl}
        sandbox="allow-scripts allow-forms"
        allow={FRAME_ALLOW}
        referrerPolicy="no-referrer"
        data-testid="app-frame"
      />
      {calls.length > 0 ? (
        <details className="app-bridge-log" data-testid="app-bridge-log">
          <summary>Requests the app made ({calls.length === 5 ? 'last 5' : calls.length})</summary>
          <ul>
            {calls.map((c) => (
              <li key={c.n} data-status={c.status}>
                {c.method} {c.path} → {c.status === 0 ? 'no connection' : c.status}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
