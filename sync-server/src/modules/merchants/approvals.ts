/**
 * Manager approvals (docs/decisions/0047-manager-approvals.md): a cashier's refund above the store's
 * `cashierRefundLimitCents` (and a price override) needs a manager's or owner's say-so. The approver types their PIN
 * (`POST /api/register/approvals`, scrypt check of `staff-pins.ts`) and receives a token valid
 * {@link APPROVAL_TTL_MS} ms, single use, bound to the action, the order and the amount (cents). Only the token's
 * SHA-256 is stored. Table `manager_approvals` is this module's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../../../../core/index.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { checkStaffPin } from './staff-pins.ts';

/** An approval token lives 5 minutes: the manager is standing at the counter. */
export const APPROVAL_TTL_MS = 5 * 60 * 1000;
/** What an approval allows. */
export const APPROVAL_ACTIONS = ['refund', 'price_override'] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

/** An approval asked for: the approver's id and PIN, and what they approve. */
export interface ApprovalRequest {
  staffId: string;
  pin: string;
  action: ApprovalAction;
  orderId?: string | undefined;
  amountCents?: number | undefined;
}

/** A granted approval: the token (shown once) and who approved. */
export interface GrantedApproval {
  approval: string;
  approvedBy: string;
  action: ApprovalAction;
  orderId: string | null;
  amountCents: number | null;
  expiresAt: string;
}

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Checks the approver's PIN and, when they are a manager or owner of the store, stores a new approval (hashed),
 * audited `approval.granted`.
 * @throws ProblemError 401 `invalid_pin` (wrong PIN, unknown staff, no PIN); 403 `approver_not_allowed` when the
 *   approver is a cashier.
 */
export async function grantApproval(m: Mutation, input: ApprovalRequest): Promise<GrantedApproval> {
  const approver = await checkStaffPin(m.tx, m.merchantId, input.staffId, input.pin);
  if (!approver) throw new ProblemError(401, 'invalid_pin', 'Wrong PIN, or no such staff member.', [{ path: 'pin', message: 'does not match' }]);
  if (approver.role !== 'manager' && approver.role !== 'owner') {
    throw new ProblemError(403, 'approver_not_allowed', 'Only a manager or the owner can approve.', [
      { path: 'staffId', message: `is a ${approver.role}; a manager or owner is needed` },
    ]);
  }
  const token = `apv_${randomBytes(24).toString('base64url')}`;
  const expiresAt = new Date(m.now.getTime() + APPROVAL_TTL_MS).toISOString();
  const id = newId('approval');
  await m.tx.query(
    `INSERT INTO manager_approvals (id, merchant_id, token_hash, action, order_id, amount_cents, approved_by, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, m.merchantId, sha256(token), input.action, input.orderId ?? null, input.amountCents ?? null, approver.id, expiresAt, m.now.toISOString()],
  );
  await m.audit({
    action: 'approval.granted',
    entityType: 'staff',
    entityId: approver.id,
    data: { approvalId: id, action: input.action, orderId: input.orderId ?? null, amountCents: input.amountCents ?? null },
  });
  return {
    approval: token,
    approvedBy: approver.id,
    action: input.action,
    orderId: input.orderId ?? null,
    amountCents: input.amountCents ?? null,
    expiresAt,
  };
}

/**
 * Consumes an approval for `action` on `orderId` of `amountCents` (cents) in the mutation and answers the approver's
 * staff id. An approval bound to an amount covers that amount or less; one bound to an order covers only that order.
 * @throws ProblemError 403 `approval_invalid` when the token is unknown, expired, used, or bound to another action,
 *   order or a smaller amount (one answer: nothing tells a guesser which).
 */
export async function consumeApproval(m: Mutation, token: string, action: ApprovalAction, orderId: string, amountCents: number): Promise<string> {
  const { rows } = await m.tx.query<{ id: string; approved_by: string }>(
    `UPDATE manager_approvals SET used_at = $6
      WHERE merchant_id = $1 AND token_hash = $2 AND action = $3 AND used_at IS NULL AND expires_at > $6
        AND (order_id IS NULL OR order_id = $4) AND (amount_cents IS NULL OR amount_cents >= $5)
      RETURNING id, approved_by`,
    [m.merchantId, sha256(token), action, orderId, amountCents, m.now.toISOString()],
  );
  const row = rows[0];
  if (!row)
    throw new ProblemError(
      403,
      'approval_invalid',
      'The approval is unknown, expired, already used, or for another action, order or a smaller amount.',
      [{ path: 'approval', message: 'is not valid for this refund' }],
    );
  await m.audit({
    action: 'approval.used',
    entityType: 'staff',
    entityId: row.approved_by,
    data: { approvalId: row.id, action, orderId, amountCents },
  });
  return row.approved_by;
}
