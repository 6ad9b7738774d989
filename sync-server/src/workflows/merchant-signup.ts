/**
 * Merchant sign-up: a new store, ready to sell, in one transaction — the merchants module's merchant row,
 * the kernel's chart of accounts, inventory's default location and the merchants module's owner (with the PIN the
 * register and back office ask for). Nothing else is seeded: the catalog starts empty (the back office's empty states
 * and the Shopify import fill it).
 */
import type { AppContext } from '../platform/context.ts';
import { ensureChartOfAccounts } from '../kernel/ledger.ts';
import { mutation } from '../kernel/mutation.ts';
import { ensureDefaultLocation } from '../modules/inventory/index.ts';
import { createMerchant, newMerchantId, createStaff, type SignUpInput } from '../modules/merchants/index.ts';

/** What sign-up made: the new store's id and its owner's staff id. */
export interface SignedUp {
  merchantId: string;
  staffId: string;
}

/**
 * Creates the store of `input` and its owner (role `owner`, PIN set), audited `merchant.created` and `staff.created`.
 * @throws ProblemError 400 naming `timeZone` for an unknown zone (nothing is written).
 */
export async function signUpMerchant(ctx: Pick<AppContext, 'db' | 'clock' | 'feed'>, input: SignUpInput): Promise<SignedUp> {
  const merchantId = newMerchantId();
  return mutation(ctx, { merchantId, actor: 'system:signup' }, async (m) => {
    await createMerchant(m, input);
    await ensureChartOfAccounts(m.tx, merchantId);
    await ensureDefaultLocation(m.tx, merchantId);
    const owner = await createStaff(m, 'owner', { name: input.ownerName, email: input.ownerEmail, role: 'owner', pin: input.ownerPin });
    return { merchantId, staffId: owner.id };
  });
}
