/**
 * Financial services at the register: the pure rules of check cashing, money transfers and
 * bill payments — fee schedules, limits, the MICR duplicate key, the US Remittance Transfer Rule disclosure
 * (12 CFR 1005.31, 1005.34: 30-minute cancellation right), the transfer status machine and billers' account-number
 * check digits. Money is always integer minor units (cents). No I/O.
 */
import { z } from 'zod';
import { luhnValid } from './card-numbers.ts';
import { MAX_AMOUNT_CENTS } from './money.ts';

/* ───────────────────────────── fees and limits ───────────────────────────── */

/** A fee schedule: `basisPoints` of the amount (1 bp = 0.01 %) + `fixedCents`, never below `minimumCents`. */
export const serviceFeeScheduleSchema = z.strictObject({
  basisPoints: z.int().min(0).max(10_000),
  fixedCents: z.int().min(0).max(100_000),
  minimumCents: z.int().min(0).max(100_000),
});
/** See {@link serviceFeeScheduleSchema}. */
export type ServiceFeeSchedule = z.infer<typeof serviceFeeScheduleSchema>;

/**
 * The fee of `amountCents` under `schedule`: round-half-up(amount × bp / 10 000) + fixed, at least the minimum, never
 * more than the amount itself.
 * @throws RangeError when `amountCents` is not a non-negative safe integer.
 */
export function serviceFee(amountCents: number, schedule: ServiceFeeSchedule): number {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new RangeError('amountCents must be a non-negative integer');
  const percent = Math.floor((amountCents * schedule.basisPoints + 5_000) / 10_000);
  const fee = Math.max(percent + schedule.fixedCents, schedule.minimumCents);
  return Math.min(fee, amountCents);
}

/** Limits of a service: per transaction and per customer (sender) per business day, minor units. */
export const serviceLimitsSchema = z.strictObject({
  perTransactionCents: z.int().min(1),
  perCustomerPerDayCents: z.int().min(1),
});
/** See {@link serviceLimitsSchema}. */
export type ServiceLimits = z.infer<typeof serviceLimitsSchema>;

/** Why an amount is refused by {@link checkServiceLimits}, or null when it passes. */
export type LimitRefusal = { code: 'limit_per_transaction' | 'limit_per_customer_day'; limitCents: number; message: string } | null;

/**
 * Whether `amountCents` fits the limits, given what the same customer already did today (`todayCents`).
 * @returns null when allowed, else the refusal (code, the limit, a message for the cashier).
 */
export function checkServiceLimits(amountCents: number, todayCents: number, limits: ServiceLimits): LimitRefusal {
  if (amountCents > limits.perTransactionCents) {
    return {
      code: 'limit_per_transaction',
      limitCents: limits.perTransactionCents,
      message: `The amount is above the per-transaction limit of ${formatUsd(limits.perTransactionCents)}.`,
    };
  }
  if (todayCents + amountCents > limits.perCustomerPerDayCents) {
    return {
      code: 'limit_per_customer_day',
      limitCents: limits.perCustomerPerDayCents,
      message: `This customer would exceed the daily limit of ${formatUsd(limits.perCustomerPerDayCents)} (${formatUsd(todayCents)} already today).`,
    };
  }
  return null;
}

function formatUsd(cents: number): string {
  return `${(cents / 100).toFixed(2)}`;
}

/** The store's financial-services settings with their defaults (docs/decisions/0056-check-cashing-transfers-and-bill-payments.md). */
export const financialServiceSettingsSchema = z.strictObject({
  checkFee: serviceFeeScheduleSchema,
  checkLimits: serviceLimitsSchema,
  transferLimits: serviceLimitsSchema,
  billPaymentFeeCents: z.int().min(0),
  billPaymentLimits: serviceLimitsSchema,
});
/** See {@link financialServiceSettingsSchema}. */
export type FinancialServiceSettings = z.infer<typeof financialServiceSettingsSchema>;

/**
 * Defaults: checks 1 % + $1.00, minimum $3.00; $5 000 a check, $7 500 per customer a day; transfers $2 999 per
 * transfer (under the $3 000 record-keeping threshold of 31 CFR 1010.410(e)), $5 000 per sender a day; bill payments
 * $1.50 each, $2 500 each, $5 000 per customer a day.
 */
export const DEFAULT_FINANCIAL_SERVICE_SETTINGS: FinancialServiceSettings = {
  checkFee: { basisPoints: 100, fixedCents: 100, minimumCents: 300 },
  checkLimits: { perTransactionCents: 500_000, perCustomerPerDayCents: 750_000 },
  transferLimits: { perTransactionCents: 299_900, perCustomerPerDayCents: 500_000 },
  billPaymentFeeCents: 150,
  billPaymentLimits: { perTransactionCents: 250_000, perCustomerPerDayCents: 500_000 },
};

/** The fields of one service's limits in `PATCH /api/pos/financial-services/settings`, each with its own rule. */
export const serviceLimitsUpdateFields = {
  perTransactionCents: z.int().min(1).max(MAX_AMOUNT_CENTS).optional().describe('Most one transaction may move, minor units'),
  perCustomerPerDayCents: z.int().min(1).max(MAX_AMOUNT_CENTS).optional().describe('Most one customer may move in a day (UTC), minor units'),
};
const feeCents = z.int().min(0).max(100_000);
/** The fields of the check fee in `PATCH /api/pos/financial-services/settings`, each with its own rule. */
export const checkFeeUpdateFields = {
  basisPoints: z.int().min(0).max(10_000).optional().describe('Percent part of the fee in basis points (100 = 1 %)'),
  fixedCents: feeCents.optional().describe('Fixed part of the fee, minor units'),
  minimumCents: feeCents.optional().describe('The least fee charged, minor units'),
};
const limitsUpdate = z.strictObject(serviceLimitsUpdateFields).optional();
/**
 * The fields `PATCH /api/pos/financial-services/settings` may change, each with its own rule (the back office's form
 * checks each field with it): any part of the settings; sub-objects are merged field by field with the current
 * settings. Fees: `basisPoints` 0–10 000 (1 bp = 0.01 %), `fixedCents` and `minimumCents` 0–100 000.
 */
export const financialServiceSettingsUpdateFields = {
  checkFee: z.strictObject(checkFeeUpdateFields).optional(),
  checkLimits: limitsUpdate,
  transferLimits: limitsUpdate,
  billPaymentFeeCents: z.int().min(0).max(100_000).optional().describe('Fee of one bill payment, minor units'),
  billPaymentLimits: limitsUpdate,
};

/* ───────────────────────────── checks ───────────────────────────── */

/** True when the 9 digits pass the ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 mod 10. */
export function abaRoutingValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

/**
 * The duplicate key of a check: routing, account (digits only) and check number (leading zeros dropped), the fields
 * that identify one paper item. Two scans of the same check give the same key whatever the scanner's spacing.
 */
export function micrKey(fields: {
  routingNumber: string;
  accountNumber: string;
  checkNumber?: string | undefined;
  auxOnUs?: string | undefined;
}): string {
  const account = fields.accountNumber.replace(/\D/g, '');
  const serial = (fields.checkNumber || fields.auxOnUs || '').replace(/\D/g, '').replace(/^0+/, '');
  return `${fields.routingNumber}|${account}|${serial}`;
}

/** The last four digits of an account number, the rest masked (`••••6789`): what is stored and shown. */
export function maskAccount(account: string): string {
  const digits = account.replace(/[^0-9A-Za-z]/g, '');
  return `••••${digits.slice(-4)}`;
}

/* ───────────────────────────── transfers ───────────────────────────── */

/** Payout methods of a money transfer. */
export const PAYOUT_METHODS = ['cash_pickup', 'bank_deposit', 'mobile_wallet'] as const;
/** See {@link PAYOUT_METHODS}. */
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/** The statuses of a money transfer (`held` = waiting for a manager to clear a screening match; nothing taken yet). */
export const TRANSFER_STATUSES = ['held', 'submitted', 'sent', 'available', 'paid', 'canceled', 'refunded', 'refused'] as const;
/** See {@link TRANSFER_STATUSES}. */
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/**
 * The transfer status machine: held → submitted (money taken) → sent → available → paid; submitted/sent may be
 * canceled (within the cancellation window, full refund) and sent/available refunded by the partner; held may be refused.
 */
export const TRANSFER_TRANSITIONS: Readonly<Record<TransferStatus, readonly TransferStatus[]>> = {
  held: ['submitted', 'refused'],
  submitted: ['sent', 'canceled', 'refunded'],
  sent: ['available', 'canceled', 'refunded'],
  available: ['paid', 'refunded'],
  paid: [],
  canceled: [],
  refunded: [],
  refused: [],
};

/** Whether a transfer may go from `from` to `to` (see {@link TRANSFER_TRANSITIONS}). */
export function canTransferMove(from: TransferStatus, to: TransferStatus): boolean {
  return TRANSFER_TRANSITIONS[from].includes(to);
}

/** The order in which a transfer advances, for walking from one status to a later one. */
export const TRANSFER_PROGRESS: readonly TransferStatus[] = ['submitted', 'sent', 'available', 'paid'];

/** The cancellation right of the Remittance Transfer Rule (12 CFR 1005.34): 30 minutes after payment. */
export const TRANSFER_CANCEL_WINDOW_MS = 30 * 60 * 1000;

/** A partner's quote of a transfer. `rate` is a decimal string (units of the receive currency per 1 send unit). */
export const transferQuoteSchema = z.strictObject({
  sendAmountCents: z.int().min(1),
  sendCurrency: z.string().length(3),
  feeCents: z.int().min(0),
  rate: z.string().regex(/^\d+(\.\d{1,6})?$/),
  receiveAmountMinor: z.int().min(0),
  receiveCurrency: z.string().length(3),
  country: z.string().length(2),
  payoutMethod: z.enum(PAYOUT_METHODS),
  /** ISO date (YYYY-MM-DD) the money is available to the receiver. */
  availableOn: z.string(),
});
/** See {@link transferQuoteSchema}. */
export type TransferQuote = z.infer<typeof transferQuoteSchema>;

/**
 * Receive amount of `sendCents` at `rate` (a decimal string), in the receive currency's minor units (2 decimals),
 * rounded down (the sender is never promised more than is paid).
 */
export function receiveAmount(sendCents: number, rate: string): number {
  const [whole, frac = ''] = rate.split('.');
  const scaled = BigInt(`${whole}${frac.padEnd(6, '0')}`); // rate × 10^6
  return Number((BigInt(sendCents) * scaled) / 1_000_000n);
}

/** A party the sender can contact: name, telephone number, website (12 CFR 1005.31(b)(2)(v), (vi)). */
export const remittanceContactSchema = z.strictObject({ name: z.string(), phone: z.string(), website: z.string() });
/** See {@link remittanceContactSchema}. */
export type RemittanceContact = z.infer<typeof remittanceContactSchema>;

/** The Consumer Financial Protection Bureau as the receipt names it (12 CFR 1005.31(b)(2)(vi)). */
export const CFPB_CONTACT: RemittanceContact = {
  name: 'Consumer Financial Protection Bureau',
  phone: '855-411-2372 (TTY/TDD 855-729-2372)',
  website: 'www.consumerfinance.gov/sending-money',
};

/** Who the receipt names besides the amounts (12 CFR 1005.31(b)(2)(iii), (v), (vi)). */
export const remittanceReceiptPartiesSchema = z.strictObject({
  provider: remittanceContactSchema.describe('The remittance transfer provider (the partner, licensed money transmitter)'),
  agent: z.string().describe("The store, the provider's agent that took the payment"),
  recipientName: z.string(),
  stateRegulator: remittanceContactSchema.nullable().describe('The State agency that licenses the provider (null when the partner names none)'),
});
/** See {@link remittanceReceiptPartiesSchema}. */
export type RemittanceReceiptParties = z.infer<typeof remittanceReceiptPartiesSchema>;

/** The pre-payment disclosure and receipt lines the Remittance Transfer Rule asks for (12 CFR 1005.31(b)). */
export const remittanceDisclosureSchema = z.strictObject({
  transferAmountCents: z.int(),
  transferFeesCents: z.int(),
  totalCents: z.int().describe('What the sender pays: amount + fees'),
  exchangeRate: z.string(),
  amountReceivedMinor: z.int(),
  receiveCurrency: z.string(),
  dateAvailable: z.string(),
  cancelUntil: z.string().nullable().describe('Receipt only: ISO time until which the sender may cancel for a full refund'),
  transferDate: z.string().nullable().describe('Receipt only: the date of the transfer (YYYY-MM-DD, UTC)'),
  provider: remittanceContactSchema.nullable().describe('Receipt only: the provider, with the telephone number and website for errors and questions'),
  agent: z.string().nullable().describe('Receipt only: the store that took the payment'),
  recipientName: z.string().nullable().describe('Receipt only'),
  regulators: z.array(remittanceContactSchema).describe('Receipt only: the State agency that licenses the provider (when named) and the CFPB'),
  lines: z.array(z.string()).describe('The text printed on the disclosure / receipt'),
});
/** See {@link remittanceDisclosureSchema}. */
export type RemittanceDisclosure = z.infer<typeof remittanceDisclosureSchema>;

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`;
const contactLine = (c: RemittanceContact) => `${c.name} · ${c.phone} · ${c.website}`;

/**
 * The disclosure of `quote`: the pre-payment disclosure (12 CFR 1005.31(b)(1)) when `paid` is undefined — transfer
 * amount, fees, total, exchange rate, amount received, date available; the receipt (1005.31(b)(2)) when given — the
 * same, plus the provider's name, telephone number and website, the agent, the recipient's name, the date of the
 * transfer, the error-resolution right (180 days, 1005.33) and the cancellation right (30 minutes, 1005.34), and the
 * State regulator's and the CFPB's contacts.
 */
export function remittanceDisclosure(quote: TransferQuote, paid?: { at: Date; parties: RemittanceReceiptParties }): RemittanceDisclosure {
  const total = quote.sendAmountCents + quote.feeCents;
  const cancelUntil = paid ? new Date(paid.at.getTime() + TRANSFER_CANCEL_WINDOW_MS).toISOString() : null;
  const parties = paid?.parties;
  const regulators = parties ? [...(parties.stateRegulator ? [parties.stateRegulator] : []), CFPB_CONTACT] : [];
  const lines = [paid ? 'RECEIPT — money transfer' : 'DISCLOSURE — before you pay'];
  if (paid && parties) {
    lines.push(
      `Provider: ${contactLine(parties.provider)}`,
      `Agent: ${parties.agent}`,
      `Recipient: ${parties.recipientName}`,
      `Date of transfer: ${paid.at.toISOString().slice(0, 10)}`,
    );
  }
  lines.push(
    `Transfer amount: ${money(quote.sendAmountCents, quote.sendCurrency)}`,
    `Transfer fees: ${money(quote.feeCents, quote.sendCurrency)}`,
    `Total: ${money(total, quote.sendCurrency)}`,
    `Exchange rate: 1 ${quote.sendCurrency} = ${quote.rate} ${quote.receiveCurrency}`,
    `Total to recipient: ${money(quote.receiveAmountMinor, quote.receiveCurrency)}`,
    `Date available: ${quote.availableOn}`,
  );
  if (paid && parties) {
    lines.push(
      `You can cancel for a full refund within 30 minutes of payment (until ${cancelUntil}), unless the funds have been picked up or deposited.`,
      `What to do if you think there has been an error or problem: you have 180 days from the date available to contact ${parties.provider.name} at ${parties.provider.phone} or ${parties.provider.website}. You can also ask for a written explanation of your rights.`,
      `For questions or complaints about ${parties.provider.name}, contact:`,
      ...regulators.map(contactLine),
    );
  }
  return {
    transferAmountCents: quote.sendAmountCents,
    transferFeesCents: quote.feeCents,
    totalCents: total,
    exchangeRate: quote.rate,
    amountReceivedMinor: quote.receiveAmountMinor,
    receiveCurrency: quote.receiveCurrency,
    dateAvailable: quote.availableOn,
    cancelUntil,
    transferDate: paid ? paid.at.toISOString().slice(0, 10) : null,
    provider: parties?.provider ?? null,
    agent: parties?.agent ?? null,
    recipientName: parties?.recipientName ?? null,
    regulators,
    lines,
  };
}

/* ───────────────────────────── bill payments ───────────────────────────── */

/** Check-digit algorithms of billers' account numbers. */
export const CHECK_DIGIT_RULES = ['luhn', 'mod10_weights_31', 'mod11', 'none'] as const;

/** A biller's account-number rule: digits only, length range, check digit (the last digit). */
export const billerAccountRuleSchema = z.strictObject({
  minLength: z.int().min(1),
  maxLength: z.int().min(1),
  checkDigit: z.enum(CHECK_DIGIT_RULES),
});
/** See {@link billerAccountRuleSchema}. */
export type BillerAccountRule = z.infer<typeof billerAccountRuleSchema>;

/** Weights 3,1,3,1… from the left over all digits but the last; check = (10 − sum mod 10) mod 10 (UPC-style). */
export function mod10Weights31Valid(digits: string): boolean {
  const body = digits.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(digits.at(-1));
}

/** Weights 2,3,4,5,6,7 repeating from the right over all digits but the last; check = 11 − sum mod 11 (10 → 0, 11 → 0). */
export function mod11Valid(digits: string): boolean {
  const body = digits.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (2 + (i % 6));
  const check = ((11 - (sum % 11)) % 11) % 10;
  return check === Number(digits.at(-1));
}

/**
 * Validates `account` (spaces and dashes ignored) against a biller's rule.
 * @returns null when valid, else the reason for the cashier.
 */
export function billerAccountProblem(account: string, rule: BillerAccountRule): string | null {
  const digits = account.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(digits)) return 'The account number must be digits only.';
  if (digits.length < rule.minLength || digits.length > rule.maxLength) {
    return rule.minLength === rule.maxLength
      ? `The account number has ${rule.minLength} digits.`
      : `The account number has ${rule.minLength} to ${rule.maxLength} digits.`;
  }
  const ok =
    rule.checkDigit === 'luhn'
      ? luhnValid(digits)
      : rule.checkDigit === 'mod10_weights_31'
        ? mod10Weights31Valid(digits)
        : rule.checkDigit === 'mod11'
          ? mod11Valid(digits)
          : true;
  return ok ? null : 'The account number is not valid for this biller (check digit).';
}

/**
 * Bill payment statuses: `held` (the payer is a potential sanctions match: nothing taken yet), then accepted by the
 * partner, posted to the biller, or rejected by the biller (refund owed to the customer); a held payment a manager
 * refuses is `refused`.
 */
export const BILL_PAYMENT_STATUSES = ['held', 'accepted', 'posted', 'rejected', 'refused'] as const;
