import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { createQueryClient } from './common/cursor-list.tsx';
import { AppHeader, type View } from './common/app-header.tsx';
import { AuditHeadBanner } from './register/components/audit-head-banner.tsx';
import { MissingReceiptsBanner } from './register/components/missing-receipts-banner.tsx';
import { StorageWarning } from './ui/storage-warning.tsx';
import { bootRegister, FirstStartOfflineError, pairThisRegister, type BootedRegister } from './register/boot.ts';
import { PairingForm } from './register/components/pairing-form.tsx';
import { PairingRequiredError } from './common/session.ts';
import { offlineShellReady } from './register/offline-shell.ts';
import { useObservable } from './ui/hooks.ts';
import type { SyncEngine } from './register/sync/replication.ts';
import { initialSyncStatus } from './common/sync-status.ts';
import { RegisterContext, type RegisterContextValue } from './register/register-context.ts';
import { SessionContext } from './common/session-context.ts';
import { BackOfficeView } from './backoffice/backoffice-view.tsx';
import { KitchenDisplay } from './kitchen/kitchen-display.tsx';
import { AppsView } from './apps/apps-view.tsx';
import { DevicesView } from './register/views/devices-view.tsx';
import { MessagesView } from './register/views/messages-view.tsx';
import { ServiceView } from './register/views/service-view.tsx';
import { SalesView } from './register/views/sales-view.tsx';
import { ReturnsView } from './register/views/returns-view.tsx';
import { ShiftView } from './register/views/shift-view.tsx';
import { ServicesView } from './register/views/services-view.tsx';
import { StaffSignIn } from './common/staff-sign-in.tsx';
import { ShortcutHelp } from './register/components/shortcut-help.tsx';
import { learnBridgeAddress } from './register/devices/bridge-address.ts';
import { currentRegisterStaff, registerStaff$, signOut } from './common/staff-session.ts';

type BootState =
  | { phase: 'starting'; message?: string }
  | { phase: 'failed'; message: string }
  | { phase: 'pairing'; message: string }
  | { phase: 'ready'; booted: BootedRegister };

/** The back office's server state (common/cursor-list.tsx): one cache for the life of the page. */
const queryClient = createQueryClient();

/** The station of a kitchen display's address (`/kitchen/<station>`), or undefined for the register. */
const KITCHEN_PATH = /^\/kitchen\/([^/]+)\/?$/;

/** The register, or at `/kitchen/<station>` that station's kitchen display (a paired device of its own). */
export function App() {
  const kitchen = KITCHEN_PATH.exec(location.pathname);
  if (kitchen)
    return (
      <KitchenDisplay station={decodeURIComponent(kitchen[1]!)} pairing={(message, onPair) => <PairingForm message={message} onPair={onPair} />} />
    );
  return <RegisterApp />;
}

function RegisterApp() {
  const [boot, setBoot] = useState<BootState>({ phase: 'starting' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let isCurrent = true;
    bootRegister().then(
      (booted) => isCurrent && setBoot({ phase: 'ready', booted }),
      (err: unknown) => {
        if (!isCurrent) return;
        if (err instanceof PairingRequiredError) {
          setBoot({ phase: 'pairing', message: err.message });
          return;
        }
        const message =
          err instanceof FirstStartOfflineError ? err.message : `The register could not start: ${err instanceof Error ? err.message : String(err)}`;
        setBoot({ phase: 'failed', message });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [attempt]);

  if (boot.phase === 'starting') {
    return (
      <div className="splash" role="status">
        {boot.message ?? 'Opening the register…'}
      </div>
    );
  }
  if (boot.phase === 'pairing') {
    return (
      <div className="splash">
        <PairingForm
          message={boot.message}
          onPair={async (code) => {
            await pairThisRegister(code);
            // Paired, but not ready until a restart without the server would open it again (its cached shell).
            setBoot({ phase: 'starting', message: 'Getting this register ready to work offline…' });
            await offlineShellReady();
            setAttempt((a) => a + 1);
          }}
        />
      </div>
    );
  }
  if (boot.phase === 'failed') {
    return (
      <div className="splash">
        <p role="alert">{boot.message}</p>
        <button
          type="button"
          className="button button-primary button-large"
          onClick={() => {
            setBoot({ phase: 'starting' });
            setAttempt((a) => a + 1);
          }}
        >
          Try again
        </button>
      </div>
    );
  }
  return (
    <QueryClientProvider client={queryClient}>
      <PairedRegister booted={boot.booted} />
    </QueryClientProvider>
  );
}

function PairedRegister({ booted }: { booted: BootedRegister }) {
  const session = useObservable(booted.session$, booted.session$.value);
  const [view, setView] = useState<View>('register');
  const context = useMemo<RegisterContextValue>(() => ({ db: booted.db, sync: booted.sync, session }), [booted, session]);
  // The hardware bridge's address from the server's configuration (its BRIDGE_PORT), once per start.
  useEffect(() => {
    void learnBridgeAddress(booted.session$.value);
  }, [booted]);
  // F6: the shift screen (open / close the shift, paid in and out, X- and Z-report), from any view.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'F6' && event.key !== 'F7') return;
      event.preventDefault();
      // F7: returns and exchanges.
      setView(event.key === 'F6' ? 'shift' : 'returns');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  // The register sells only with a staff member signed in; the 12 h shift token's expiry signs them out.
  const signedIn = useObservable(registerStaff$, registerStaff$.value);
  const [, setExpiredTick] = useState(0);
  useEffect(() => {
    if (!signedIn) return undefined;
    const left = new Date(signedIn.expiresAt).getTime() - Date.now();
    if (left <= 0) {
      void signOut();
      return undefined;
    }
    // setTimeout holds at most 2^31-1 ms (~24.8 days); a shift is 12 h.
    const timer = setTimeout(
      () => {
        void signOut();
        setExpiredTick((n) => n + 1);
      },
      Math.min(left, 2 ** 31 - 1),
    );
    return () => clearTimeout(timer);
  }, [signedIn]);
  const staff = signedIn ? currentRegisterStaff() : undefined;
  return (
    <RegisterContext.Provider value={context}>
      <SessionContext.Provider value={context}>
        <div className="app">
          <AppHeader view={view} onView={setView} />
          <OutdatedBanner sync={booted.sync} />
          <RevokedBanner booted={booted} />
          <MissingReceiptsBanner />
          <AuditHeadBanner />
          <StorageWarning />
          {/* The register stays mounted so a cart survives a look at the sales list. */}
          <div className="view" hidden={view !== 'register'}>
            <h1 className="visually-hidden">Register</h1>
            {staff ? (
              <ServiceView />
            ) : (
              <StaffSignIn testId="register-sign-in" purpose="register" message="Sign in with your PIN to sell on this register." />
            )}
          </div>
          {view === 'sales' ? <SalesView /> : null}
          {view === 'returns' ? (
            staff ? (
              <ReturnsView />
            ) : (
              <StaffSignIn testId="returns-sign-in" purpose="register" message="Sign in with your PIN to take returns." />
            )
          ) : null}
          {view === 'shift' ? <ShiftView /> : null}
          {view === 'messages' ? <MessagesView /> : null}
          {view === 'services' ? <ServicesView apps={<AppsView />} /> : null}
          {view === 'backoffice' ? <BackOfficeView apps={<AppsView />} /> : null}
          {view === 'devices' ? <DevicesView /> : null}
          <ShortcutHelp />
        </div>
      </SessionContext.Provider>
    </RegisterContext.Provider>
  );
}

/** The server refused this register's credential (revoked): sales are kept; a new code pairs it again. */
function RevokedBanner({ booted }: { booted: BootedRegister }) {
  const required = useObservable(booted.pairingRequired$, booted.pairingRequired$.value);
  if (!required) return null;
  return (
    <div className="banner banner-error" role="alert" data-testid="pairing-required">
      <PairingForm
        message="This register was removed from the store: its sales are kept here but cannot sync. Enter a new pairing code."
        onPair={booted.pair}
      />
    </div>
  );
}

/** The server refused this register's schema (HTTP 426): a reload fetches the new version through the service worker. */
function OutdatedBanner({ sync }: { sync: SyncEngine }) {
  const status = useObservable(sync.status$, initialSyncStatus);
  if (!status.isOutdated) return null;
  return (
    <div className="banner banner-error" role="alert" data-testid="outdated-warning">
      <span>This register is older than the server: sales are kept here but cannot sync until it is updated.</span>
      <button type="button" className="button" onClick={() => location.reload()}>
        Reload to update
      </button>
    </div>
  );
}
