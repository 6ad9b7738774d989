import { useEffect, useSyncExternalStore } from 'react';
import { BehaviorSubject } from 'rxjs';

/** Set once the banner has been shown on this register (the key's old name: it was set on dismissal only). */
const SHOWN_KEY = 'register.storageWarningDismissed';

/**
 * Whether the browser refused to keep the register's data (`navigator.storage.persist()`), and whether the full
 * warning is open. Asked once per page; the banner and the header's badge read the same state.
 */
const state$ = new BehaviorSubject<{ isRefused: boolean; isOpen: boolean }>({ isRefused: false, isOpen: false });
let asked = false;

function askOnce(): void {
  if (asked) return;
  asked = true;
  const refused = () => {
    // The full warning once: on the load that first finds storage refused. After that (dismissed, or any later load)
    // it is a small badge in the header, which opens it again.
    const isFirst = localStorage.getItem(SHOWN_KEY) !== '1';
    localStorage.setItem(SHOWN_KEY, '1');
    state$.next({ isRefused: true, isOpen: isFirst });
  };
  const storage = navigator.storage;
  if (!storage?.persist) {
    refused();
    return;
  }
  void storage
    .persisted()
    .then((already) => already || storage.persist())
    .then((granted) => (granted ? undefined : refused()))
    .catch(refused);
}

function useStorageState(): { isRefused: boolean; isOpen: boolean } {
  useEffect(askOnce, []);
  return useSyncExternalStore(
    (onChange) => {
      const subscription = state$.subscribe(onChange);
      return () => subscription.unsubscribe();
    },
    () => state$.value,
  );
}

/**
 * The persistent-storage warning: if the browser refuses to keep the register's data, it may evict IndexedDB under
 * storage pressure and unsynced sales with it, so the cashier is told — in full once, then by {@link StorageBadge}.
 */
export function StorageWarning() {
  const { isRefused, isOpen } = useStorageState();
  if (!isRefused || !isOpen) return null;
  return (
    // A region, not an alert: it is there from load, and an alert would interrupt the screen reader on every start.
    <div className="banner banner-warning" role="region" aria-label="Storage warning" data-testid="storage-warning">
      <span>
        This browser has not granted persistent storage: under storage pressure it may delete sales that are not synced yet. Install the register as
        an app or allow storage for this site, and sync regularly.
      </span>
      <button type="button" className="button button-ghost" onClick={() => state$.next({ isRefused: true, isOpen: false })}>
        Dismiss
      </button>
    </div>
  );
}

/** The header's reminder while storage is not persistent and the full warning is closed: a small badge that opens it. */
export function StorageBadge() {
  const { isRefused, isOpen } = useStorageState();
  if (!isRefused || isOpen) return null;
  return (
    <button
      type="button"
      className="storage-badge"
      data-testid="storage-badge"
      title="This browser may delete sales that are not synced yet: show why"
      aria-label="Storage is not kept: show the warning"
      onClick={() => state$.next({ isRefused: true, isOpen: true })}
    >
      <span aria-hidden="true">⚠</span> <span className="storage-badge-word">Storage</span>
    </button>
  );
}
