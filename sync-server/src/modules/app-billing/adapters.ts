/**
 * The two outside services of app billing, each an adapter behind one interface like the
 * payment processors (modules/payments/processors.ts), with a deterministic sandbox that needs no network:
 * - {@link AppBillingAdapter}: charges a store's billing method for its app subscriptions and refunds unused days;
 * - {@link PaymentConnectAdapter}: the payment-connect service that pays developers out to their connected account.
 * The demo store always runs on the sandboxes whatever is configured ({@link billingFor}).
 */
import { createHash } from 'node:crypto';

/** One charge of a store's billing method. `reference` is the charge id (`ach_…`): the processor's idempotency key. */
export interface BillingChargeRequest {
  merchantId: string;
  /** The store's billing method at the processor (`bref_…`), never a card number. */
  billingReference: string;
  amountCents: number;
  currency: string;
  reference: string;
}

/** What the billing processor answered: paid (money collected into the platform's balance there) or declined. */
export type BillingChargeResult = { outcome: 'paid'; processorReference: string } | { outcome: 'declined'; code: string; message: string };

/**
 * A billing processor. A live adapter is called with `reference` as its idempotency key, so the retry of a charge
 * whose database transaction rolled back never collects twice.
 */
export interface AppBillingAdapter {
  readonly name: string;
  charge(request: BillingChargeRequest): Promise<BillingChargeResult>;
  /** Refunds part of a paid charge (`chargeReference`: the processor's reference of it); `reference` is `acr_…`. */
  refund(request: { chargeReference: string; amountCents: number; currency: string; reference: string }): Promise<{ processorReference: string }>;
}

/** The billing method of a store that never set one: the sandbox's always-approving test method. */
export const DEFAULT_BILLING_REFERENCE = 'bref_sbx_visa_4242';

/**
 * Sandbox billing references: `bref_sbx_<brand>_<last4>`. Like the sandbox test cards, the last four digits decide:
 * `0002` declines (`card_declined`), `9995` declines (`insufficient_funds`), `0069` declines (`expired_card`); any
 * other approves. Anything not of this shape declines with `invalid_billing_reference`.
 */
export const SANDBOX_BILLING_DECLINES: Readonly<Record<string, string>> = {
  '0002': 'card_declined',
  '9995': 'insufficient_funds',
  '0069': 'expired_card',
};

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** The deterministic sandbox billing processor (see {@link SANDBOX_BILLING_DECLINES}). */
export const sandboxBilling: AppBillingAdapter = {
  name: 'sandbox',
  async charge(request) {
    const m = /^bref_sbx_[a-z]{1,20}_(\d{4})$/.exec(request.billingReference);
    if (!m) return { outcome: 'declined', code: 'invalid_billing_reference', message: 'The billing method is not a sandbox billing reference.' };
    const decline = SANDBOX_BILLING_DECLINES[m[1]!];
    if (decline) return { outcome: 'declined', code: decline, message: `The billing method was declined (${decline}).` };
    return { outcome: 'paid', processorReference: `sbx_bch_${digest(`${request.reference}|${request.amountCents}`)}` };
  },
  async refund(request) {
    return { processorReference: `sbx_bre_${digest(`${request.reference}|${request.chargeReference}|${request.amountCents}`)}` };
  },
};

/**
 * The billing processor a store's app charges run on: `configured` — except in the demo store, which always runs on
 * the sandbox, like its sales (`processorFor`).
 */
export function billingFor(merchant: { is_demo: boolean }, configured: AppBillingAdapter = sandboxBilling): AppBillingAdapter {
  return merchant.is_demo ? sandboxBilling : configured;
}

/** One payout to a developer's connected account. `reference` is the payout id (`dpo_…`): the idempotency key. */
export interface ConnectTransferRequest {
  developerId: string;
  /** The developer's account at the payment-connect service. */
  connectAccount: string;
  amountCents: number;
  currency: string;
  reference: string;
}

/** A payment-connect service (Stripe Connect–like): transfers from the platform's balance to a developer. */
export interface PaymentConnectAdapter {
  readonly name: string;
  /** The developer's connected account (a sandbox derives it; a live adapter looks up the onboarded account). */
  accountOf(developerId: string): string;
  transfer(request: ConnectTransferRequest): Promise<{ processorReference: string }>;
}

/** The deterministic sandbox payment-connect service: account `acct_sbx_<developerId>`, every transfer succeeds. */
export const sandboxPaymentConnect: PaymentConnectAdapter = {
  name: 'sandbox',
  accountOf: (developerId) => `acct_sbx_${developerId}`,
  async transfer(request) {
    return { processorReference: `sbx_tr_${digest(`${request.reference}|${request.connectAccount}|${request.amountCents}`)}` };
  },
};

/** App billing's adapters and payout minimum (BuildAppOptions.appBilling). */
export interface AppBillingOptions {
  /** Billing processor of stores that are not the demo; default {@link sandboxBilling}. */
  billing?: AppBillingAdapter;
  /** Payment-connect service of developer payouts; default {@link sandboxPaymentConnect}. */
  paymentConnect?: PaymentConnectAdapter;
  /** Least payout, minor units; default core `DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS` (2 500). */
  payoutMinimumCents?: number;
}
