import { useEffect, useId, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { StorageBadge } from '../ui/storage-warning.tsx';
import { useNow, useObservable } from '../ui/hooks.ts';
import { useRegisterSession } from './session-context.ts';
import { badgeState, initialSyncStatus } from './sync-status.ts';
import { currentRegisterStaff, registerStaff$, signOut } from './staff-session.ts';

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

/** Always visible: online/offline, unsynced records, last sync time. */
export function AppHeader({ view, onView }: AppHeaderProps) {
  const { session, sync } = useRegisterSession();
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

  const views: readonly (readonly [View, string])[] = [
    ['register', 'Register'],
    ['sales', 'Sales'],
    ['returns', 'Returns'],
    ['shift', 'Shift'],
    ['services', 'Services'],
    ['messages', 'Messages'],
    ['backoffice', 'Back office'],
    ['devices', 'Devices'],
  ];
  // Below 1200 px (a 1024 px tablet) the last views go under "More", so the header stays one row; upright (≤ 900 px)
  // Sign out goes there too.
  const isNarrow = useMediaQuery(NARROW_HEADER);
  const isUpright = useMediaQuery(UPRIGHT_HEADER);
  const barViews = isUpright ? 3 : isNarrow ? 4 : views.length;
  const inBar = views.slice(0, barViews);
  const inMore = views.slice(barViews);
  const signOutButton = (extra = '') => (
    <button type="button" className={`sign-out-button${extra}`} data-testid="sign-out" onClick={signOut}>
      Sign out
    </button>
  );
  const navButton = ([key, label]: readonly [View, string], extra = '') => (
    <button
      key={key}
      type="button"
      className={`${view === key ? 'nav-link nav-link-active' : 'nav-link'}${extra}`}
      aria-current={view === key ? 'page' : undefined}
      {...(key === 'returns'
        ? { 'aria-keyshortcuts': 'F7', title: 'Returns (F7)' }
        : key === 'shift'
          ? { 'aria-keyshortcuts': 'F6', title: 'Shift (F6)' }
          : {})}
      onClick={() => onView(key)}
    >
      {label}
    </button>
  );
  const registerLabel = session.registerName && session.registerName !== `Register ${session.registerNumber}` ? session.registerName : undefined;

  return (
    <header className="app-header">
      <div className="brand">
        <span className="brand-name" title={session.merchantName}>
          {session.merchantName}
        </span>
        <span className="brand-line">
          <span className="brand-register" title={registerLabel ? `Register ${session.registerNumber}: ${registerLabel}` : undefined}>
            Register {session.registerNumber}
          </span>
          {/* Which register this is, by the name it was enrolled with, beside its number. */}
          {registerLabel ? (
            <span className="brand-register-name" data-testid="register-name" title={registerLabel}>
              {registerLabel}
            </span>
          ) : null}
          {signedIn ? (
            <>
              <span className="brand-staff" aria-hidden="true">
                ·
              </span>
              <span
                className="brand-staff brand-staff-name"
                data-testid="signed-in-staff"
                data-staff-id={signedIn.staff.id}
                title="Signed in on this register"
              >
                {signedIn.staff.name}
              </span>
            </>
          ) : null}
        </span>
      </div>
      {signedIn && !isUpright ? signOutButton() : null}
      <nav className="main-nav" aria-label="Main">
        {inBar.map((v) => navButton(v))}
        {inMore.length > 0 ? (
          <MoreViews views={inMore} current={view} onView={onView}>
            {signedIn && isUpright ? signOutButton(' nav-more-sign-out') : null}
          </MoreViews>
        ) : null}
      </nav>
      {/* One short announcement per change that matters (not every badge repaint): see useSyncAnnouncement. */}
      <p className="visually-hidden" role="status" data-testid="sync-announcement">
        {announcement}
      </p>
      <StorageBadge />
      <div className="sync-status">
        <span className="sync-status-line">
          <span className={`sync-badge sync-badge-${state}`} data-testid="sync-badge" data-state={state} title={title}>
            <span className="sync-dot" aria-hidden="true" />
            {state === 'offline' && status.isServerUnreachable ? UNREACHABLE_TEXT : BADGE_TEXT[state]}
            {state === 'syncing' ? <span className="sync-sub"> · syncing</span> : null}
            {state === 'error' ? <span className="sync-sub"> · sync error</span> : null}
          </span>
        </span>
        <span className="sync-status-line">
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
        </span>
      </div>
    </header>
  );
}

/** Below this width the header keeps four views in its bar (the counter's: Register, Sales, Returns, Shift) and the rest under "More". */
const NARROW_HEADER = '(max-width: 1199px)';
/** At or below this width (a tablet held upright): three views in the bar, the rest and Sign out under "More". */
const UPRIGHT_HEADER = '(max-width: 900px)';

/**
 * "More": the views that do not fit the header's one row on a narrow screen, as a disclosure menu (button with
 * `aria-expanded`, the views as buttons below it; Escape or a choice closes it and focus returns to the button).
 * Shows the current view's name when it is one of them.
 */
function MoreViews({
  views,
  current,
  onView,
  children,
}: {
  views: readonly (readonly [View, string])[];
  current: View;
  onView: (view: View) => void;
  children?: ReactNode;
}) {
  const [isOpen, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const currentLabel = views.find(([key]) => key === current)?.[1];
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <div className="nav-more" onKeyDown={(e) => (e.key === 'Escape' && isOpen ? (e.stopPropagation(), close()) : undefined)}>
      <button
        ref={button}
        type="button"
        className={currentLabel ? 'nav-link nav-link-active' : 'nav-link'}
        aria-expanded={isOpen}
        aria-controls={menuId}
        data-testid="nav-more"
        onClick={() => setOpen((o) => !o)}
      >
        {currentLabel ?? 'More'} ▾
      </button>
      {isOpen ? (
        <div className="nav-more-menu" id={menuId}>
          {views.map(([key, label]) => (
            <button
              key={key}
              type="button"
              className={key === current ? 'nav-link nav-link-active' : 'nav-link'}
              aria-current={key === current ? 'page' : undefined}
              onClick={() => {
                onView(key);
                close();
              }}
            >
              {label}
            </button>
          ))}
          {children}
        </div>
      ) : null}
    </div>
  );
}

/** True while the media query matches (re-rendered when it changes). */
function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
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
    else if (!isOffline && before.unsynced > 0 && unsyncedCount === 0)
      setText((t) => (t === 'All sales synced' ? 'All sales synced\u200b' : 'All sales synced'));
  }, [isOffline, unsyncedCount]);
  return text;
}
