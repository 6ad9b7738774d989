/** The app directory: search, category filter, the listed apps (with their icon). */
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { BackOfficeApi } from '../common/back-office-api.ts';
import { LoadError } from '../common/back-office-kit.tsx';
import {
  explainScope,
  formText,
  listAppDirectory,
  priceText,
  type AppDirectoryPage,
  type AppInstallation,
  type DirectoryApp,
  type InstallResult,
} from './apps-api.ts';
import { InstallDialog } from './install-dialog.tsx';

/** The directory: search, category filter, the listed apps and the install dialog. */
export function AppDirectory({
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
