import { createHash } from 'node:crypto';

/**
 * Payment rails: every processor is an adapter behind {@link PaymentProcessor}. The server only ever
 * sees tokens, a brand and last four digits — never a card or bank account number. Card data is tokenised where it is
 * typed (the hosted pay page's tokeniser, a terminal), exactly as a real processor's hosted fields would do.
 *
 * The demo store and the tests run on {@link SandboxProcessor}: deterministic, no network, documented test cards and
 * bank accounts (below, and in docs/api.md "Sandbox rails").
 */

/** How the customer pays: card (card not present), a wallet, or a bank transfer (ACH). */
export type PaymentMethod = 'card' | 'apple_pay' | 'google_pay' | 'bank_transfer';

/** One charge to make. `reference` is the caller's idempotency key at the processor (e.g. the pay request id). */
export interface ChargeRequest {
  method: PaymentMethod;
  /** A processor token: `tok_sbx_<brand>_<last4>` (cards, wallets), `btok_sbx_<routing>_<last4>` (bank), `tok_visa`… */
  token: string;
  amountCents: number;
  currency: string;
  reference: string;
  /** The rail routing chose (core `routePayment`); default: the method's own rail ({@link RAIL_OF_METHOD}). */
  rail?: string;
}

/** What the processor answered. A decline moves no money. */
export type ChargeResult =
  | {
      outcome: 'captured';
      /** The rail the money moved on: `card_not_present`, `apple_pay`, `google_pay`, `ach`. */
      rail: string;
      /** The ledger account the money sits in until settlement: `card_clearing:<rail>`. */
      accountCode: string;
      processorReference: string;
      brand: string | null;
      last4: string;
      /**
       * The processing fee (minor units) when the processor reports it at capture; it is then posted to the ledger
       * (Dr `processing_fees`, Cr the clearing account). The sandbox reports none at capture.
       */
      feeCents?: number;
    }
  | { outcome: 'declined'; code: string; message: string };

/**
 * A payment processor adapter. `charge` authorises and captures at once. A real adapter calls its provider outside
 * any database transaction with `reference` as the provider's idempotency key; the sandbox one is pure.
 */
export interface PaymentProcessor {
  readonly name: string;
  charge(request: ChargeRequest): Promise<ChargeResult>;
}

/** Rail of each pay-page method. */
export const RAIL_OF_METHOD: Readonly<Record<PaymentMethod, string>> = {
  card: 'card_not_present',
  apple_pay: 'apple_pay',
  google_pay: 'google_pay',
  bank_transfer: 'ach',
};

/**
 * The rail of a card staff charge through the API with a token (no terminal in the loop): card not present, for
 * orders and invoices alike, so every keyed card clears through one account, `card_clearing:card_not_present`.
 */
export const STAFF_CARD_RAIL = 'card_not_present';

/**
 * The sandbox's staff-side test cards (the order and invoice APIs take these instead of card data): what each
 * approves as (brand, last four) or the decline code it answers. One table for every caller.
 */
export const SANDBOX_STAFF_CARDS: Readonly<Record<string, { brand: string; last4: string } | { decline: string }>> = {
  tok_visa: { brand: 'visa', last4: '4242' },
  tok_mastercard: { brand: 'mastercard', last4: '4444' },
  tok_amex: { brand: 'amex', last4: '0005' },
  tok_declined: { decline: 'card_declined' },
  tok_insufficient_funds: { decline: 'insufficient_funds' },
};

const CARD_DECLINES: Record<string, string> = { '0002': 'card_declined', '9995': 'insufficient_funds', '0069': 'expired_card' };
const BANK_DECLINES: Record<string, string> = { '1116': 'account_closed', '2227': 'insufficient_funds' };

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card or account has insufficient funds.',
  expired_card: 'The card has expired.',
  account_closed: 'The bank account is closed.',
  invalid_token: 'The payment token is not valid.',
};

/** True when a 9-digit ABA routing number has a valid check digit (weights 3, 7, 1). */
export function isValidAbaRouting(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const w = [3, 7, 1];
  const sum = [...routing].reduce((acc, d, i) => acc + Number(d) * w[i % 3]!, 0);
  return sum % 10 === 0;
}

/**
 * The deterministic sandbox processor: approves or declines by the documented test cards and accounts, answers a
 * processor reference derived from the charge's `reference` (the same charge gets the same reference).
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = 'sandbox';

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    const declined = (code: string): ChargeResult => ({ outcome: 'declined', code, message: DECLINE_MESSAGES[code] ?? 'Declined.' });
    const processorReference = `sbx_${createHash('sha256').update(`${request.reference}|${request.amountCents}`).digest('hex').slice(0, 24)}`;
    const rail = request.rail ?? RAIL_OF_METHOD[request.method];
    const captured = (brand: string | null, last4: string): ChargeResult => ({
      outcome: 'captured',
      rail,
      accountCode: `card_clearing:${rail}`,
      processorReference,
      brand,
      last4,
    });

    const staff = SANDBOX_STAFF_CARDS[request.token];
    if (staff) return 'decline' in staff ? declined(staff.decline) : captured(staff.brand, staff.last4);

    const card = /^tok_sbx_(visa|mastercard|amex|discover)_(\d{4})$/.exec(request.token);
    if (card && request.method !== 'bank_transfer') {
      const decline = CARD_DECLINES[card[2]!];
      return decline ? declined(decline) : captured(card[1]!, card[2]!);
    }
    const bank = /^btok_sbx_(\d{9})_(\d{4})$/.exec(request.token);
    if (bank && request.method === 'bank_transfer') {
      if (!isValidAbaRouting(bank[1]!)) return declined('invalid_token');
      const decline = BANK_DECLINES[bank[2]!];
      return decline ? declined(decline) : captured(null, bank[2]!);
    }
    const forward = parseStoreAndForwardToken(request.token);
    if (forward && request.method === 'card') {
      const decline = CARD_DECLINES[forward.last4];
      if (decline) return declined(decline);
      return {
        outcome: 'captured',
        rail: CARD_PRESENT_RAIL,
        accountCode: `card_clearing:${CARD_PRESENT_RAIL}`,
        processorReference,
        brand: forward.brand,
        last4: forward.last4,
      };
    }
    return declined('invalid_token');
  }
}

/** The rail of a card tapped, inserted or swiped on the register's terminal (a forwarded offline approval too). */
export const CARD_PRESENT_RAIL = 'card_present';

/**
 * A card terminal's store-and-forward token (offline approval): `saf_<brand>_<last4>_<letters>`. The sandbox
 * forwards it like a test card: last four 0002, 9995 or 0069 decline on forward (`card_declined`, …), others capture
 * on the card-present rail. Forward with `method: 'card'` and the payment id as `reference`.
 */
export function parseStoreAndForwardToken(token: string): { brand: string; last4: string } | undefined {
  const match = /^saf_([a-z]{1,20})_(\d{4})_[A-Za-z_-]{1,100}$/.exec(token);
  return match ? { brand: match[1]!, last4: match[2]! } : undefined;
}

/** The processor of the hosted pay page and staff card payments: the deterministic sandbox. */
export const defaultPaymentProcessor: PaymentProcessor = new SandboxProcessor();

/**
 * The processor a store's charges run on: `configured` (a live adapter in production, `BuildAppOptions.paymentProcessor`)
 * — except in the demo store, which never reaches a live processor or partner whatever is configured: its sales and
 * refunds always run on the sandbox (docs/decisions/0050-payment-rails-routing-and-payouts.md).
 */
export function processorFor(merchant: { is_demo: boolean }, configured: PaymentProcessor = defaultPaymentProcessor): PaymentProcessor {
  return merchant.is_demo ? defaultPaymentProcessor : configured;
}
