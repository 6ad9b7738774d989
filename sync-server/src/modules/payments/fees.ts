/**
 * Routing and processing fees of a payment: the rail routing chooses for a charge on the merchant's
 * rails, and the fee's journal transaction when the processor reports a fee.
 */
import { buildJournalTransaction, routePayment, type RoutingDecision, type RoutingMethod } from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { PaymentMethod } from './processors.ts';
import { merchantRails } from './rails.ts';

/** The routing method of a processor payment method (pay page, API card charges): a bank transfer is `bank`. */
export const ROUTING_METHOD_OF: Readonly<Record<PaymentMethod, RoutingMethod>> = {
  card: 'card',
  apple_pay: 'apple_pay',
  google_pay: 'google_pay',
  bank_transfer: 'bank',
};

/**
 * Routes an online, card-not-present charge of `amountCents` (minor units) on the mutation merchant's rails.
 * @throws ProblemError 409 `no_rail_available` (the decision's reason as detail) when every rail that could carry it
 *   is disabled, down or outside its limits — before any processor is reached
 */
export async function routeCharge(
  m: Mutation,
  method: PaymentMethod,
  amountCents: number,
): Promise<RoutingDecision & { chosen: NonNullable<RoutingDecision['chosen']> }> {
  const decision = routePayment({
    method: ROUTING_METHOD_OF[method],
    amountCents,
    present: false,
    online: true,
    funding: 'unknown',
    rails: await merchantRails(m.tx, m.merchantId),
  });
  if (!decision.chosen) throw new ProblemError(409, 'no_rail_available', decision.reason);
  return decision as RoutingDecision & { chosen: NonNullable<RoutingDecision['chosen']> };
}

/**
 * Posts a processing fee the processor reported (`feeCents` > 0, minor units) as its own journal transaction (kind
 * `fee`): Dr `processing_fees`, Cr `accountCode` (the clearing account the payment sits in). No-op for 0/undefined.
 * @returns the journal transaction's id, or undefined when nothing was posted
 */
export async function postProcessingFee(
  m: Mutation,
  fee: {
    feeCents: number | undefined;
    accountCode: string;
    currency: string;
    sourceType: 'order' | 'pay_request' | 'invoice';
    sourceId: string;
    memo: string;
  },
): Promise<string | undefined> {
  if (!fee.feeCents || fee.feeCents <= 0) return undefined;
  const jt = buildJournalTransaction(
    {
      kind: 'fee',
      sourceType: fee.sourceType,
      sourceId: fee.sourceId,
      registerId: null,
      currency: fee.currency,
      occurredAt: m.now.toISOString(),
      memo: fee.memo,
    },
    [
      { accountCode: 'processing_fees', amountCents: fee.feeCents },
      { accountCode: fee.accountCode, amountCents: -fee.feeCents },
    ],
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  return jt.id;
}
