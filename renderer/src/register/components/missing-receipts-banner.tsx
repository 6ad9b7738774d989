import { useEffect, useState } from 'react';
import { useObservable } from '../../ui/hooks.ts';
import { useRegister } from '../register-context.ts';
import { checkMissingReceipts } from '../sync/missing-receipts.ts';
import { initialSyncStatus } from '../../common/sync-status.ts';

const DISMISSED_KEY = 'register.missingReceiptsDismissed';

/**
 * Names the receipts whose sales this register lost (its browser storage was cleared before they synced), once the
 * server has been told (sync/missing-receipts.ts). Checked when the register starts and whenever it is back online;
 * dismissing hides the numbers shown until another one goes missing.
 */
export function MissingReceiptsBanner() {
  const { db, session, sync } = useRegister();
  const status = useObservable(sync.status$, initialSyncStatus);
  const [missing, setMissing] = useState<string[]>([]);
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED_KEY) ?? '');

  useEffect(() => {
    if (!status.isOnline) return undefined;
    let isCurrent = true;
    checkMissingReceipts(db, session).then(
      (numbers) => isCurrent && setMissing(numbers),
      () => undefined, // unreachable or refused: checked again when back online
    );
    return () => {
      isCurrent = false;
    };
  }, [db, session, status.isOnline]);

  if (missing.length === 0 || missing.join(',') === dismissed) return null;
  return (
    <div className="banner banner-error" role="alert" data-testid="missing-receipts-warning">
      <span>
        {missing.length === 1 ? 'Receipt ' : 'Receipts '}
        {missing.map((n, i) => (
          <span key={n}>
            {i > 0 ? ', ' : ''}
            <strong data-testid="missing-receipt">{n}</strong>
          </span>
        ))}{' '}
        {missing.length === 1 ? 'was' : 'were'} rung up on this register, but {missing.length === 1 ? 'its sale was' : 'their sales were'} lost before
        reaching the server (this browser's storage was cleared). The back office has been told; keep any paper copies.
      </span>
      <button
        type="button"
        className="button button-ghost"
        onClick={() => {
          const key = missing.join(',');
          localStorage.setItem(DISMISSED_KEY, key);
          setDismissed(key);
        }}
      >
        Dismiss
      </button>
    </div>
  );
}
