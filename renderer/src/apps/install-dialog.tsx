/** The install dialog of a listed app: the scopes it asks for, approved by the owner. */
import { useState, type FormEvent } from 'react';
import { errorMessage, type BackOfficeApi } from '../common/back-office-api.ts';
import { Dialog } from '../ui/dialog.tsx';
import { explainScope, installApp, priceText, type DirectoryApp, type InstallResult } from './apps-api.ts';

/**
 * Install: the owner sees every scope the app asks for (checked), unchecks what they refuse, and approves; at least one
 * must stay checked. Other roles see why they cannot install. An external integration then offers "Connect <app>".
 */
export function InstallDialog({
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
