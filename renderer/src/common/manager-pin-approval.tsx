/** A manager's approval by PIN, shared by the register's Returns screen and the back office's refund. */
import { useEffect, useId, useState, type FormEvent } from 'react';

/** A manager or owner who can approve (from the approvers' list the caller reads). */
export interface Approver {
  id: string;
  name: string;
}

/**
 * The manager's approval prompt: a manager or owner picks their name (the first one chosen once the list is read) and
 * types their PIN (digits only, 4 to 8); submitting calls `onApprove(staffId, pin)`, which asks the server and hands the
 * approval on. The PIN is cleared once it resolves; what it (or `loadApprovers`) throws is shown, by its message, as
 * `<testId>-error`. The caller says where its approvers come from and words its own errors (offline, wrong PIN).
 *
 * Test ids: `<testId>` (the form), `-error`, `-manager`, `-pin`, `-submit`. `classNames` fits the form to its room's
 * styles (`row` wraps the controls in one element when given); `alert` announces the prompt as it appears (when it
 * answers a refused action); `onCancel` adds a Cancel button.
 */
export function ManagerPinApproval({
  loadApprovers,
  onApprove,
  testId,
  prompt,
  submitLabel,
  classNames,
  alert = false,
  onCancel,
}: {
  /** Reads the approvers; a stable function (its change reads them again). */
  loadApprovers: () => Promise<readonly Approver[]>;
  onApprove: (staffId: string, pin: string) => Promise<void>;
  testId: string;
  prompt: string;
  submitLabel: string;
  classNames: { form: string; input: string; row?: string };
  alert?: boolean;
  onCancel?: () => void;
}) {
  const id = useId();
  const [approvers, setApprovers] = useState<readonly Approver[] | undefined>();
  const [staffId, setStaffId] = useState('');
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    loadApprovers().then(
      (list) => {
        if (!live) return;
        setApprovers(list);
        setStaffId((current) => current || list[0]?.id || '');
      },
      (err: unknown) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [loadApprovers]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await onApprove(staffId, pin);
      setPin('');
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const controls = (
    <>
      <label htmlFor={`${id}-manager`}>Manager</label>
      <select
        id={`${id}-manager`}
        className={classNames.input}
        value={staffId}
        onChange={(e) => setStaffId(e.target.value)}
        disabled={!approvers}
        data-testid={`${testId}-manager`}
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
        className={classNames.input}
        type="password"
        inputMode="numeric"
        autoComplete="off"
        maxLength={8}
        value={pin}
        onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))}
        data-testid={`${testId}-pin`}
      />
      <button type="submit" className="button button-primary" disabled={busy || !staffId || pin.length < 4} data-testid={`${testId}-submit`}>
        {submitLabel}
      </button>
      {onCancel ? (
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
    </>
  );
  return (
    <form className={classNames.form} onSubmit={(e) => void onSubmit(e)} noValidate data-testid={testId} aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} role={alert ? 'alert' : undefined}>
        {prompt}
      </p>
      {error ? (
        <p className="form-error" role="alert" data-testid={`${testId}-error`}>
          {error}
        </p>
      ) : null}
      {classNames.row ? <div className={classNames.row}>{controls}</div> : controls}
    </form>
  );
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
