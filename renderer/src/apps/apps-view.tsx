/**
 * Apps: the app directory (app-directory.tsx), the install dialog (install-dialog.tsx), the installed apps
 * (installed-apps.tsx) and the in-platform app frame (app-frame.tsx).
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
import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../common/back-office-kit.tsx';
import { currentStaffSession, staffSession$ } from '../common/staff-session.ts';
import { useObservable } from '../ui/hooks.ts';
import { listAppSubscriptions, listInstallations, type AppInstallation, type AppSubscription } from './apps-api.ts';
import { AppDirectory } from './app-directory.tsx';
import { InstalledApps } from './installed-apps.tsx';
import { AppFrame, type OpenApp } from './app-frame.tsx';
import './apps.css';

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
