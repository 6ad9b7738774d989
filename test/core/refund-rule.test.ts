import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  catalogSnapshot,
  computeOrderTotals,
  newId,
  planOrderRefund,
  planRefund,
  priceLine,
  refundableBalance,
  RefundError,
  type Order,
  type OrderPaymentLike,
  type OrderRefundLike,
} from '../../core/index.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';

const catalog = catalogSnapshot(DEMO_CATALOG_ITEMS, DEMO_TAX_RATES);

function paidOrder(quantities: number[], tipCents: number): Order {
  const refs = [
    { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'] },
    { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [] },
    { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', modifierIds: [] },
  ];
  const lines = quantities.map((quantity, i) => priceLine({ ...refs[i % refs.length]!, quantity }, catalog, `lines.${i}`));
  const totals = computeOrderTotals(lines, []);
  return {
    id: newId('order'),
    registerId: 'reg_x',
    registerNumber: 1,
    receiptNumber: 'R1-000001',
    state: 'paid',
    currency: 'USD',
    createdAt: '2026-03-01T12:00:00.000Z',
    lines: totals.lines,
    discounts: [],
    taxLines: totals.taxLines,
    subtotalCents: totals.subtotalCents,
    discountCents: totals.discountCents,
    taxCents: totals.taxCents,
    totalCents: totals.totalCents,
    tipCents,
    paidCents: totals.totalCents + tipCents,
    tenders: [],
    journalTransactionId: null,
  };
}

const payment = (state: string, amountCents: number, refundedCents = 0): OrderPaymentLike => ({
  id: newId('payment'),
  state,
  accountCode: state === 'captured' ? 'cash_drawer:R1' : 'card_clearing:card_not_present',
  amountCents,
  refundedCents,
});

describe('the refund rule, once in core (refundableBalance / planOrderRefund)', () => {
  it('draws only on payments that captured money: declined, voided, pending and authorized attempts are left out', () => {
    const order = paidOrder([2, 1], 0);
    const captured = payment('captured', order.paidCents);
    const attempts = [payment('declined', order.paidCents), payment('voided', 500), payment('pending', 300), payment('authorized', 200)];
    const balance = refundableBalance(order, [...attempts, captured], []);
    expect(balance.payments.map((p) => p.id)).toEqual([captured.id]);
    expect(balance.totalCents).toBe(order.paidCents);
    // Everything goes back to the captured payment, none to an attempt.
    const plan = planOrderRefund(order, [...attempts, captured], [], { amountCents: order.paidCents });
    expect(plan.allocations).toEqual([{ paymentId: captured.id, amountCents: order.paidCents, accountCode: captured.accountCode }]);
    expect(plan.orderState).toBe('refunded');
  });

  it('counts earlier refunds, not cancellations, and is capped by what the payments still hold', () => {
    const order = paidOrder([1, 1, 1], 200);
    const cancellation: OrderRefundLike = { kind: 'cancellation', goodsCents: 999, taxCents: 0, tipCents: 0, lines: [] };
    expect(refundableBalance(order, [payment('captured', order.paidCents)], [cancellation]).totalCents).toBe(order.paidCents);
    // A payment that already gave part back holds less than the order has left.
    expect(refundableBalance(order, [payment('partially_refunded', order.paidCents, 500)], []).totalCents).toBe(order.paidCents - 500);
    expect(refundableBalance(order, [], []).totalCents).toBe(0);
  });

  it('agrees with paid − refunded after any sequence of refunds, and the order is refunded exactly when nothing is left (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 400 }),
        fc.array(fc.integer({ min: 1, max: 3_000 }), { minLength: 1, maxLength: 8 }),
        (quantities, tip, asks) => {
          const order = paidOrder(quantities, tip);
          const half = Math.floor(order.paidCents / 2);
          const payments = [payment('captured', half), payment('captured', order.paidCents - half), payment('declined', 1_000)];
          const refunds: OrderRefundLike[] = [];
          let refunded = 0;
          for (const ask of asks) {
            const balance = refundableBalance(order, payments, refunds);
            expect(balance.totalCents).toBe(Math.max(0, order.paidCents - refunded));
            if (ask > balance.totalCents) {
              expect(() => planOrderRefund(order, payments, refunds, { amountCents: ask })).toThrow(RefundError);
              continue;
            }
            const plan = planOrderRefund(order, payments, refunds, { amountCents: ask });
            // The same plan as the lower-level planner given the rule's inputs.
            expect(plan).toMatchObject(planRefund(order, balance.prior, balance.payments, { amountCents: ask }));
            for (const a of plan.allocations) payments.find((p) => p.id === a.paymentId)!.refundedCents += a.amountCents;
            refunds.push({ kind: 'refund', ...plan });
            refunded += plan.amountCents;
            expect(plan.orderState).toBe(refunded === order.paidCents ? 'refunded' : 'partially_refunded');
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
