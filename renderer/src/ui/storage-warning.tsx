import { useEffect, useState } from 'react';

const DISMISSED_KEY = 'register.storageWarningDismissed';

/**
 * Asks the browser to keep the register's data (`navigator.storage.persist()`); if it refuses, the browser may
 * evict IndexedDB under storage pressure and unsynced sales with it, so the cashier is told (DESIGN §8).
 */
export function StorageWarning() {
  const [isRefused, setRefused] = useState(false);
  // Dismissed once on this register, dismissed for good (a banner that returns on every load trains people to ignore it).
  const [isDismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED_KEY) === '1');

  useEffect(() => {
    const storage = navigator.storage;
    if (!storage?.persist) {
      setRefused(true);
      return;
    }
    void storage
      .persisted()
      .then((already) => already || storage.persist())
      .then((granted) => setRefused(!granted))
      .catch(() => setRefused(true));
  }, []);

  if (!isRefused || isDismissed) return null;
  return (
    // A region, not an alert: it is there from load, and an alert would interrupt the screen reader on every start.
    <div className="banner banner-warning" role="region" aria-label="Storage warning" data-testid="storage-warning">
      <span>
        This browser has not granted persistent storage: under storage pressure it may delete sales that are not synced yet.
        Install the register as an app or allow storage for this site, and sync regularly.
      </span>
      <button
        type="button"
        className="button button-ghost"
        onClick={() => {
          localStorage.setItem(DISMISSED_KEY, '1');
          setDismissed(true);
        }}
      >
        Dismiss
      </button>
    </div>
  );
}
