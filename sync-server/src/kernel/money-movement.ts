import type { MerchantRow } from './merchant.ts';
import { ProblemError } from '../platform/http/problem.ts';

/**
 * Money movement in the demo store (docs/decisions/0050-payment-rails-routing-and-payouts.md): the demo
 * store takes sales and refunds on the sandbox rails so everything can be tried, but nothing whose purpose is to move
 * money out of the store — payouts to the bank, settlements to a bank, money transfers, bill payments, check-cashing
 * disbursements, developer payouts — ever runs there. THE one guard every such action calls first; the financial
 * services and developer payout modules reuse it.
 */

/** `'disabled'` in the demo store, else `'enabled'`: what the settings API and the back office show. */
export type MoneyMovement = 'enabled' | 'disabled';

/** Whether money may move out of `merchant` (see {@link assertMoneyMovementAllowed}). */
export function moneyMovementOf(merchant: Pick<MerchantRow, 'is_demo'>): MoneyMovement {
  return merchant.is_demo ? 'disabled' : 'enabled';
}

/**
 * Refuses an action that moves money out of the store when the store is the demo. Call it before any side effect
 * (before a processor or partner is reached, before a row is written).
 * @param merchant the store (kernel `getMerchant`)
 * @param action what was tried, for the message, e.g. `'A payout'`
 * @throws ProblemError 403 `money_movement_disabled` (RFC 9457) in the demo store
 */
export function assertMoneyMovementAllowed(merchant: Pick<MerchantRow, 'is_demo' | 'name'>, action = 'This action'): void {
  if (merchant.is_demo) {
    throw new ProblemError(
      403,
      'money_movement_disabled',
      `${action} would move money out of the store, and money movement is disabled in the demo store "${merchant.name}": sales and refunds run on sandbox rails, but payouts, settlements to a bank, transfers, bill payments and disbursements never run here.`,
    );
  }
}
