/**
 * The bill-payment partner behind one interface: biller directory, account validation, payment, status.
 * The sandbox adapter is deterministic, needs no network and is documented in docs/api.md "Bill payments" and here.
 * Sandbox billers (account rules — digits, length, check digit on the last digit):
 *
 * | id | name | category | rule |
 * |---|---|---|---|
 * | `blr_metro_power` | Metro Power & Light | utilities | 10 digits, Luhn |
 * | `blr_city_water` | City Water Department | utilities | 8 digits, mod 10 weights 3-1 |
 * | `blr_wireless_one` | Wireless One | telecom | 9–12 digits, mod 11 |
 * | `blr_first_card` | First Card Services | credit_card | 16 digits, Luhn |
 * | `blr_oak_street` | Oak Street Apartments | rent | 4–10 digits, no check digit |
 *
 * Outcomes by the account number's first digit (after the rule passes): `8` → refused at payment
 * (`partner_rejected`, nothing taken); `7` → the partner does not answer (`partner_timeout`, nothing taken); `9` →
 * accepted, then **rejected by the biller** 30 minutes later (the reversal is posted); anything else → accepted, then
 * `posted` to the biller 30 minutes later.
 */
import { createHash } from 'node:crypto';
import type { BillerAccountRule } from '../../../../core/index.ts';

/** A biller of the directory. */
export interface Biller {
  id: string;
  name: string;
  category: 'utilities' | 'telecom' | 'credit_card' | 'rent';
  accountRule: BillerAccountRule;
}

/** The partner's refusal (nothing taken): `code` is the problem code answered. */
export class BillPartnerError extends Error {
  override name = 'BillPartnerError';
  constructor(
    readonly code: 'partner_rejected' | 'partner_timeout',
    message: string,
  ) {
    super(message);
  }
}

/** A bill-payment partner. */
export interface BillPartner {
  readonly name: string;
  billers(): Promise<readonly Biller[]>;
  /** @throws BillPartnerError (nothing taken). `reference` (our payment id) is its idempotency key. */
  pay(p: { reference: string; billerId: string; account: string; amountCents: number; currency: string }): Promise<{ confirmationNumber: string }>;
  /** Where the payment is: `accepted` (not yet posted), `posted`, or `rejected` with the biller's reason. */
  status(p: { confirmationNumber: string; acceptedAt: Date; now: Date }): Promise<{ status: 'accepted' | 'posted' | 'rejected'; reason?: string }>;
}

const BILLERS: readonly Biller[] = [
  { id: 'blr_metro_power', name: 'Metro Power & Light', category: 'utilities', accountRule: { minLength: 10, maxLength: 10, checkDigit: 'luhn' } },
  {
    id: 'blr_city_water',
    name: 'City Water Department',
    category: 'utilities',
    accountRule: { minLength: 8, maxLength: 8, checkDigit: 'mod10_weights_31' },
  },
  { id: 'blr_wireless_one', name: 'Wireless One', category: 'telecom', accountRule: { minLength: 9, maxLength: 12, checkDigit: 'mod11' } },
  { id: 'blr_first_card', name: 'First Card Services', category: 'credit_card', accountRule: { minLength: 16, maxLength: 16, checkDigit: 'luhn' } },
  { id: 'blr_oak_street', name: 'Oak Street Apartments', category: 'rent', accountRule: { minLength: 4, maxLength: 10, checkDigit: 'none' } },
];

/** The deterministic sandbox partner (see the file comment). */
export const sandboxBillPartner: BillPartner = {
  name: 'sandbox',
  async billers() {
    return BILLERS;
  },
  async pay(p) {
    if (p.account.startsWith('8')) throw new BillPartnerError('partner_rejected', 'The biller refused the payment (sandbox: account starts with 8).');
    if (p.account.startsWith('7'))
      throw new BillPartnerError('partner_timeout', 'The partner did not answer in time (sandbox: account starts with 7); nothing was paid.');
    // The sandbox keeps no state: the outcome it will report is the confirmation number's last letter (R: rejected later).
    return {
      confirmationNumber: `BP${createHash('sha256').update(p.reference).digest('hex').slice(0, 10).toUpperCase()}${p.account.startsWith('9') ? 'R' : 'A'}`,
    };
  },
  async status(p) {
    if (p.now.getTime() - p.acceptedAt.getTime() < 30 * 60_000) return { status: 'accepted' };
    return p.confirmationNumber.endsWith('R')
      ? { status: 'rejected', reason: 'Account closed at the biller (sandbox: account starts with 9)' }
      : { status: 'posted' };
  },
};
