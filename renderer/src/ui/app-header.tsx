import { useEffect, useMemo, useRef, useState } from 'react';
import { useNow, useObservable } from './hooks.ts';
import { useRegister } from '../register/register-context.ts';
import { badgeState, initialSyncStatus } from '../register/sync/sync-status.ts';
import { currentRegisterStaff, registerStaff$, signOut } from '../register/staff-session.ts';

export type View = 'register' | 'sales' | 'returns' | 'shift' | 'services' | 'messages' | 'backoffice' | 'devices';

const BADGE_TEXT = { synced: 'Online', syncing: 'Online', error: 'Online', offline: 'Offline' } as const;
/** The badge when the network is up but the sync server does not answer. */
const UNREACHABLE_TEXT = 'Server unreachable';

/**
 * The last sync as shown in the header: short enough to keep the header on one row at 1280 px. Offline it never says
 * "just now" (that reads as "in sync"): it gives the time of the last sync.
 */
function lastSyncText(iso: string | undefined, now: number, isOffline = false): string {
  if (!iso) return 'Never synced';
  const at = new Date(iso);
  const seconds = Math.max(0, Math.round((now - at.getTime()) / 1000));
  if (seconds < 10 && !isOffline) return 'Synced just now';
  if (seconds < 24 * 3600) return `Synced ${at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
  return `Synced ${at.toLocaleDateString([], { month: 'short', day: 'numeric' })}`;
}

/** The last sync in full, for the tooltip: date, time to the second and how long ago. */
function lastSyncDetail(iso: string | undefined, now: number): string {
  if (!iso) return 'This register has not synced yet';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  const ago = seconds < 60 ? `${seconds} s ago` : seconds < 3600 ? `${Math.floor(seconds / 60)} min ago` : `${Math.floor(seconds / 3600)} h ago`;
  return `Last sync ${new Date(iso).toLocaleString()} (${ago})`;
}

interface AppHeaderProps {
  view: View;
  onView: (view: View) => void;
}

/** Always visible (DESIGN §8): online/offline, unsynced records, last sync time. */
export function AppHeader({ view, onView }: AppHeaderProps) {
  const { session, sync } = useRegister();
  const status = useObservable(sync.status$, initialSyncStatus);
  const now = useNow(5_000);
  const state = badgeState(status);
  useObservable(registerStaff$, registerStaff$.value);
  const signedIn = currentRegisterStaff();
  const announcement = useSyncAnnouncement(state, status.unsyncedCount);
  const title = useMemo(
    () =>
      state === 'synced'
        ? 'Everything is on the server'
        : state === 'offline'
          ? status.isServerUnreachable
            ? 'The sync server does not answer: sales are kept on this register and sync when it is back'
            : 'No connection: sales are kept on this register and sync when it is back'
          : state === 'error'
            ? `Sync problem: ${status.isOutdated ? 'this register is too old for the server — reload to update' : (status.error ?? '')}`
            : 'Syncing with the server…',
    [state, status.error, status.isOutdated, status.isServerUnreachable],
  );

  return (
    <header className="app-header">
      <div className="brand">
        <span className="brand-name">{session.merchantName}</span>
        <span className="brand-line">
          <span className="brand-register">Register {session.registerNumber}</span>
          {/* Which register this is, by the name it was enrolled with (issue 13), beside its number. */}
          {session.registerName && session.registerName !== `Register ${session.registerNumber}` ? (
            <span className="brand-register-name" data-testid="register-name">
              {session.registerName}
            </span>
          ) : null}
          {signedIn ? (
            <>
              <span className="brand-staff" aria-hidden="true">
                ·
              </span>
              <span className="brand-staff" data-testid="signed-in-staff" data-staff-id={signedIn.staff.id} title="Signed in on this register">
                {signedIn.staff.name}
              </span>
              <button type="button" className="sign-out-button" data-testid="sign-out" onClick={signOut}>
                Sign out
              </button>
            </>
          ) : null}
        </span>
      </div>
      <nav className="main-nav" aria-label="Main">
        {(
          [
            ['register', 'Register'],
            ['sales', 'Sales'],
            ['returns', 'Returns'],
            ['shift', 'Shift'],
            ['services', 'Services'],
            ['messages', 'Messages'],
            ['backoffice', 'Back office'],
            ['devices', 'Devices'],
          ] as const
        ).map(([key, label]) => (
          <button key={key} type="button" className={view === key ? 'nav-link nav-link-active' : 'nav-link'} aria-current={view === key ? 'page' : undefined} {...(key === 'returns' ? { 'aria-keyshortcuts': 'F7', title: 'Returns (F7)' } : {})} onClick={() => onView(key)}>
            {label}
          </button>
        ))}
      </nav>
      {/* One short announcement per change that matters (not every badge repaint): see useSyncAnnouncement. */}
      <p className="visually-hidden" role="status" data-testid="sync-announcement">
        {announcement}
      </p>
      <div className="sync-status">
        <span className={`sync-badge sync-badge-${state}`} data-testid="sync-badge" data-state={state} title={title}>
          <span className="sync-dot" aria-hidden="true" />
          {state === 'offline' && status.isServerUnreachable ? UNREACHABLE_TEXT : BADGE_TEXT[state]}
          {state === 'syncing' ? <span className="sync-sub"> · syncing</span> : null}
          {state === 'error' ? <span className="sync-sub"> · sync error</span> : null}
        </span>
        <span className={status.unsyncedCount > 0 ? 'unsynced unsynced-pending' : 'unsynced'}>
          <span data-testid="unsynced-count">{status.unsyncedCount}</span> unsynced
        </span>
        {status.rejectedCount > 0 ? (
          <span className="rejected-count" data-testid="rejected-count">
            {status.rejectedCount} rejected by server
          </span>
        ) : null}
        {status.refusedCount > 0 ? (
          <span className="rejected-count" data-testid="refused-count" title="Too large to send to the server: kept on this register. See Sales.">
            {status.refusedCount} too large to sync
          </span>
        ) : null}
        <span className="last-sync" data-testid="last-sync" data-time={status.lastSyncAt ?? ''} title={lastSyncDetail(status.lastSyncAt, now)}>
          {lastSyncText(status.lastSyncAt, now, state === 'offline')}
        </span>
      </div>
    </header>
  );
}

/**
 * What the header's live region says: "Offline…" / "Back online" when the connection changes, and "All sales synced"
 * when the unsynced count returns to 0 — once per sale, where the badge itself repaints four times (syncing, synced…).
 * Nothing is said on load.
 */
function useSyncAnnouncement(state: ReturnType<typeof badgeState>, unsyncedCount: number): string {
  const [text, setText] = useState('');
  const last = useRef<{ isOffline: boolean; unsynced: number } | undefined>(undefined);
  const isOffline = state === 'offline';
  useEffect(() => {
    const before = last.current;
    last.current = { isOffline, unsynced: unsyncedCount };
    if (!before) return;
    if (isOffline !== before.isOffline) setText(isOffline ? 'Offline: sales are kept on this register' : 'Back online');
    // Toggling an invisible trailing character makes the same words a new announcement on the next sale.
    else if (!isOffline && before.unsynced > 0 && unsyncedCount === 0) setText((t) => (t === 'All sales synced' ? 'All sales synced\u200b' : 'All sales synced'));
  }, [isOffline, unsyncedCount]);
  return text;
}
