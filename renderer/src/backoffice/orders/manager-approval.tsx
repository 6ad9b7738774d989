/** A manager's approval (name and PIN) for an order action that needs one. */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../common/back-office-api.ts';
import { useApi } from '../../common/back-office-kit.tsx';

/**
 * The manager's approval prompt: a manager or owner picks their name and types their PIN
 * (`POST /api/register/approvals`); the approval, bound to this order, is handed to `onApproved` for the retry.
 */
export function ManagerApproval({
  orderId,
  onApproved,
  onCancel,
}: {
  orderId: string;
  onApproved: (approval: string) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const id = useId();
  const [approvers, setApprovers] = useState<{ id: string; name: string }[] | undefined>(undefined);
  const [staffId, setStaffId] = useState('');
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    api.signInStaff().then(
      ({ data }) => {
        if (!live) return;
        const managers = data.filter((s) => s.role === 'manager' || s.role === 'owner');
        setApprovers(managers);
        setStaffId((current) => current || managers[0]?.id || '');
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [api]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const { approval } = await api.approve({ staffId, pin, action: 'refund', orderId });
      setPin('');
      onApproved(approval);
    } catch (err) {
      setError(err instanceof ApiError && err.problem.code === 'invalid_pin' ? 'Wrong PIN.' : err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="bo-form bo-panel" onSubmit={onSubmit} noValidate data-testid="refund-approval" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} role="alert">
        This refund is above the store's limit for cashiers: a manager approves it with their PIN.
      </p>
      {error ? (
        <p className="form-error" role="alert" data-testid="refund-approval-error">
          {error}
        </p>
      ) : null}
      <div className="bo-row">
        <label htmlFor={`${id}-manager`}>Manager</label>
        <select
          id={`${id}-manager`}
          className="bo-input"
          value={staffId}
          onChange={(e) => setStaffId(e.target.value)}
          disabled={!approvers}
          data-testid="refund-approval-manager"
        >
          {(approvers ?? []).map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-pin`}>PIN</label>
        <input
          id={`${id}-pin`}
          className="bo-input"
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={8}
          value={pin}
          onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))}
          data-testid="refund-approval-pin"
        />
        <button type="submit" className="button button-primary" disabled={busy || !staffId || pin.length < 4} data-testid="refund-approval-submit">
          Approve and refund
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
