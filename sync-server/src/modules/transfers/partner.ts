/**
 * The money-transfer partner behind one interface: quote, submit, status, cancel. The sandbox adapter is
 * deterministic and needs no network; its behaviour is documented in docs/api.md "Money transfers" and here:
 *
 * - Corridors (USD →): MX MXN 17.05 · PH PHP 56.10 · IN INR 83.20 · GT GTQ 7.78 · DO DOP 58.90 · SV USD 1.00; any other
 *   country → 422 `corridor_unsupported`.
 * - Fee: $4.99 up to $500.00, $7.99 up to $1 000.00, $9.99 above; `bank_deposit` + $1.00.
 * - Available: cash pickup and mobile wallet the same day (UTC), bank deposit the next day.
 * - Receipt contacts: a fictional provider and State regulator (555-01xx telephone numbers, `.invalid` websites).
 * - Receiver name containing `Reject` → submit refused (`partner_rejected`, nothing taken); `Timeout` → the partner
 *   does not answer (`partner_timeout`, nothing taken); `Later` → stays `sent` and is `refunded` by the partner after
 *   24 hours; `Refund` → `refunded` after 10 minutes; anyone else → `sent` at once, `available` after 10 minutes,
 *   `paid` after 60 minutes.
 */
import { createHash } from 'node:crypto';
import { receiveAmount, type PayoutMethod, type RemittanceContact, type TransferQuote, type TransferStatus } from '../../../../core/index.ts';

/** A quote request: what the sender wants to send, where and how. */
export interface TransferQuoteRequest {
  sendAmountCents: number;
  sendCurrency: string;
  country: string;
  payoutMethod: PayoutMethod;
  now: Date;
}

/** A submission: the quote and who sends to whom. `reference` (our transfer id) is the partner's idempotency key. */
export interface TransferSubmission {
  reference: string;
  quote: TransferQuote;
  senderName: string;
  receiverName: string;
}

/** The partner's refusal of a request (validated, nothing taken): `code` is the problem code answered to the caller. */
export class PartnerError extends Error {
  override name = 'PartnerError';
  constructor(
    readonly code: 'corridor_unsupported' | 'partner_rejected' | 'partner_timeout',
    message: string,
  ) {
    super(message);
  }
}

/** A money-transfer partner (a remittance company's API). */
export interface TransferPartner {
  readonly name: string;
  /** The remittance transfer provider as the receipt names it: name, telephone number and website for errors and questions. */
  readonly provider: RemittanceContact;
  /** The State agency that licenses the provider for this store's transfers, as the receipt names it (null when none is named). */
  readonly stateRegulator: RemittanceContact | null;
  /** @throws PartnerError `corridor_unsupported` */
  quote(request: TransferQuoteRequest): Promise<TransferQuote>;
  /** @throws PartnerError `partner_rejected` / `partner_timeout` (nothing taken). */
  submit(submission: TransferSubmission): Promise<{ partnerReference: string }>;
  /** Where the transfer is now, `submittedAt` the time it was submitted. */
  status(t: {
    partnerReference: string;
    receiverName: string;
    submittedAt: Date;
    now: Date;
  }): Promise<Extract<TransferStatus, 'sent' | 'available' | 'paid' | 'refunded'>>;
  /** Cancels a transfer not yet paid out. */
  cancel(t: { partnerReference: string }): Promise<void>;
}

const CORRIDORS: Record<string, { currency: string; rate: string }> = {
  MX: { currency: 'MXN', rate: '17.05' },
  PH: { currency: 'PHP', rate: '56.10' },
  IN: { currency: 'INR', rate: '83.20' },
  GT: { currency: 'GTQ', rate: '7.78' },
  DO: { currency: 'DOP', rate: '58.90' },
  SV: { currency: 'USD', rate: '1.00' },
};

/** The sandbox's corridors (country → receive currency and rate), for the register's country picker. */
export const SANDBOX_CORRIDORS: Readonly<Record<string, { currency: string; rate: string }>> = CORRIDORS;

const MINUTE = 60_000;

/** The deterministic sandbox partner (see the file comment). */
export const sandboxTransferPartner: TransferPartner = {
  name: 'sandbox',
  provider: { name: 'Sandbox Remittance (test partner)', phone: '1-800-555-0199', website: 'https://sandbox.invalid/remittance' },
  stateRegulator: { name: 'Sandbox State Department of Banking (test)', phone: '1-800-555-0142', website: 'https://sandbox.invalid/regulator' },
  async quote(r) {
    const corridor = CORRIDORS[r.country];
    if (!corridor || r.sendCurrency !== 'USD')
      throw new PartnerError('corridor_unsupported', `The partner does not send ${r.sendCurrency} to ${r.country}.`);
    const base = r.sendAmountCents <= 50_000 ? 499 : r.sendAmountCents <= 100_000 ? 799 : 999;
    const fee = base + (r.payoutMethod === 'bank_deposit' ? 100 : 0);
    const day = new Date(r.now.getTime() + (r.payoutMethod === 'bank_deposit' ? 24 * 60 * MINUTE : 0));
    return {
      sendAmountCents: r.sendAmountCents,
      sendCurrency: r.sendCurrency,
      feeCents: fee,
      rate: corridor.rate,
      receiveAmountMinor: receiveAmount(r.sendAmountCents, corridor.rate),
      receiveCurrency: corridor.currency,
      country: r.country,
      payoutMethod: r.payoutMethod,
      availableOn: day.toISOString().slice(0, 10),
    };
  },
  async submit(s) {
    if (/reject/i.test(s.receiverName))
      throw new PartnerError('partner_rejected', 'The partner refused the transfer (sandbox: receiver name contains "Reject").');
    if (/timeout/i.test(s.receiverName))
      throw new PartnerError('partner_timeout', 'The partner did not answer in time (sandbox: receiver name contains "Timeout"); nothing was sent.');
    return { partnerReference: `sbx_tr_${createHash('sha256').update(s.reference).digest('hex').slice(0, 20)}` };
  },
  async status(t) {
    const elapsed = t.now.getTime() - t.submittedAt.getTime();
    if (/later/i.test(t.receiverName)) return elapsed >= 24 * 60 * MINUTE ? 'refunded' : 'sent';
    if (/refund/i.test(t.receiverName)) return elapsed >= 10 * MINUTE ? 'refunded' : 'sent';
    if (elapsed >= 60 * MINUTE) return 'paid';
    if (elapsed >= 10 * MINUTE) return 'available';
    return 'sent';
  },
  async cancel() {},
};
