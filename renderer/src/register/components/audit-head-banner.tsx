import { useEffect, useState } from 'react';
import { HEAD_ROLLBACK_EVENT, HEAD_ROLLBACK_KEY, headRollback, type HeadRollback } from '../sync/held-checkpoints.ts';

/**
 * Shows the manager that the server handed this register a signed audit head older than the newest checkpoint the
 * register holds (sync/held-checkpoints.ts): the server's audit trail went backwards — rolled back, or its checkpoints
 * deleted. Says whether the server was told; dismissing hides this finding (a newer one shows again).
 */
export function AuditHeadBanner() {
  const [finding, setFinding] = useState<HeadRollback | null>(() => headRollback());
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(`${HEAD_ROLLBACK_KEY}.dismissed`) ?? '');
  useEffect(() => {
    const onSeen = () => setFinding(headRollback());
    window.addEventListener(HEAD_ROLLBACK_EVENT, onSeen);
    return () => window.removeEventListener(HEAD_ROLLBACK_EVENT, onSeen);
  }, []);
  if (!finding || String(finding.held.seq) === dismissed) return null;
  const told = finding.told ? `entry ${finding.told.seq}` : 'no checkpoint at all';
  return (
    <div className="banner banner-error" role="alert" data-testid="audit-head-warning">
      <span>
        Manager: the server's audit trail went backwards. This register holds a checkpoint signed by the server for entry{' '}
        <strong data-testid="audit-head-held">{finding.held.seq}</strong>, but the server now names {told}. Its records may have been rolled back or
        rewritten. {finding.reported ? 'The server has been told; ' : 'The server could not be told yet; '}tell the store's owner.
      </span>
      <button
        type="button"
        className="button button-ghost"
        onClick={() => {
          const key = String(finding.held.seq);
          localStorage.setItem(`${HEAD_ROLLBACK_KEY}.dismissed`, key);
          setDismissed(key);
        }}
      >
        Dismiss
      </button>
    </div>
  );
}
