/** A manager's approval (name and PIN) for an order action that needs one. */
import { useCallback } from 'react';
import { ApiError } from '../../common/back-office-api.ts';
import { useApi } from '../../common/back-office-kit.tsx';
import { ManagerPinApproval } from '../../common/manager-pin-approval.tsx';

/**
 * The manager's approval prompt of a refund: a manager or owner picks their name and types their PIN
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
  const loadApprovers = useCallback(async () => (await api.signInStaff()).data.filter((s) => s.role === 'manager' || s.role === 'owner'), [api]);
  const approve = async (staffId: string, pin: string) => {
    try {
      onApproved((await api.approve({ staffId, pin, action: 'refund', orderId })).approval);
    } catch (err) {
      throw err instanceof ApiError && err.problem.code === 'invalid_pin' ? new Error('Wrong PIN.') : err;
    }
  };
  return (
    <ManagerPinApproval
      loadApprovers={loadApprovers}
      onApprove={approve}
      testId="refund-approval"
      prompt="This refund is above the store's limit for cashiers: a manager approves it with their PIN."
      submitLabel="Approve and refund"
      classNames={{ form: 'bo-form bo-panel', input: 'bo-input', row: 'bo-row' }}
      alert
      onCancel={onCancel}
    />
  );
}
