import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  assertOrderTransition,
  buildOrderPaymentJournalTransaction,
  buildOrderSettlementJournalTransaction,
  buildRefundJournalTransaction,
  canOrderTransition,
  canPaymentTransition,
  catalogSnapshot,
  computeOrderTotals,
  IllegalTransitionError,
  isBalanced,
  newId,
  ORDER_STATES,
  PAYMENT_STATES,
  planRefund,
  priceLine,
  RefundError,
  type Order,
  type PriorRefund,
} from '../../core/index.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';

describe('order state machine', () => {
  it('allows exactly the documented moves', () => {
    const allowed = ORDER_STATES.flatMap((from) => ORDER_STATES.filter((to) => canOrderTransition(from, to)).map((to) => `${from}→${to}`));
    expect(allowed.sort()).toEqual(
      [
        'open→paid',
        'open→canceled',
        'paid→partially_refunded',
        'paid→refunded',
        'partially_refunded→partially_refunded',
        'partially_refunded→refunded',
        // A payment failed after the sale: the balance is due again, then collected.
        'paid→balance_due',
        'partially_refunded→balance_due',
        'balance_due→balance_due',
        'balance_due→paid',
        'balance_due→partially_refunded',
      ].sort(),
    );
  });

  it('refuses every other move, naming the current state', () => {
    for (const from of ORDER_STATES) {
      for (const to of ORDER_STATES) {
        if (canOrderTransition(from, to)) continue;
        try {
          assertOrderTransition(from, to, 'move');
          expect.unreachable(`${from}→${to} should throw`);
        } catch (err) {
          expect(err).toBeInstanceOf(IllegalTransitionError);
          expect((err as IllegalTransitionError).currentState).toBe(from);
          expect((err as Error).message).toContain(from);
        }
      }
    }
  });

  it('payments: pending → authorized → captured, declined and voided final', () => {
    const allowed = PAYMENT_STATES.flatMap((from) => PAYMENT_STATES.filter((to) => canPaymentTransition(from, to)).map((to) => `${from}→${to}`));
    expect(allowed.sort()).toEqual(
      [
        'pending→authorized',
        'pending→declined',
        'authorized→captured',
        'authorized→voided',
        'captured→partially_refunded',
        'captured→refunded',
        'partially_refunded→partially_refunded',
        'partially_refunded→refunded',
        // A bank payment returned at settlement.
        'captured→returned',
      ].sort(),
    );
  });
});

const catalog = catalogSnapshot(DEMO_CATALOG_ITEMS, DEMO_TAX_RATES);

function paidOrder(quantities: number[], tipCents: number): Order {
  const refs = [
    { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'] },
    { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [] },
    { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', modifierIds: [] },
  ];
  const lines = quantities.map((quantity, i) => priceLine({ ...refs[i % refs.length]!, quantity }, catalog, `lines.${i}`));
  const totals = computeOrderTotals(lines, [{ id: newId('discount'), name: 'Ten', kind: 'percentage', basisPoints: 1000 }]);
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

describe('refund planning (core/refunds.ts)', () => {
  it('refunding every line one unit at a time gives back exactly the total and the tax, balanced each time', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 500 }), (quantities, tip) => {
        const order = paidOrder(quantities, tip);
        const payments = [
          { id: newId('payment'), accountCode: 'cash_drawer:R1', amountCents: Math.floor(order.paidCents / 2), refundedCents: 0 },
          {
            id: newId('payment'),
            accountCode: 'card_clearing:card_not_present',
            amountCents: order.paidCents - Math.floor(order.paidCents / 2),
            refundedCents: 0,
          },
        ];
        const prior: PriorRefund[] = [];
        for (const line of order.lines) {
          for (let q = 0; q < line.quantity; q += 1) {
            const plan = planRefund(order, prior, payments, { lines: [{ lineId: line.id, quantity: 1 }] });
            const jt = buildRefundJournalTransaction(order, plan, newId('refund'), order.createdAt);
            expect(isBalanced(jt.postings)).toBe(true);
            for (const a of plan.allocations) payments.find((p) => p.id === a.paymentId)!.refundedCents += a.amountCents;
            prior.push(plan);
          }
        }
        expect(prior.reduce((a, r) => a + r.goodsCents, 0)).toBe(order.totalCents);
        expect(prior.reduce((a, r) => a + r.taxCents, 0)).toBe(order.taxCents);
        // Only the tip is left, and no more than that.
        if (tip > 0) {
          expect(() => planRefund(order, prior, payments, { amountCents: tip + 1 })).toThrow(RefundError);
          const last = planRefund(order, prior, payments, { amountCents: tip });
          expect(last.tipCents).toBe(tip);
        } else {
          expect(() => planRefund(order, prior, payments, { amountCents: 1 })).toThrow(RefundError);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a refund by amount never exceeds what is left, and names the field', () => {
    const order = paidOrder([2, 1], 100);
    const payments = [{ id: newId('payment'), accountCode: 'cash_drawer:R1', amountCents: order.paidCents, refundedCents: 0 }];
    try {
      planRefund(order, [], payments, { amountCents: order.paidCents + 1 });
      expect.unreachable();
    } catch (err) {
      expect((err as RefundError).path).toBe('amountCents');
    }
    const all = planRefund(order, [], payments, { amountCents: order.paidCents });
    expect(all).toMatchObject({ goodsCents: order.totalCents, taxCents: order.taxCents, tipCents: 100 });
    try {
      planRefund(order, [], payments, { lines: [{ lineId: order.lines[0]!.id, quantity: 3 }] });
      expect.unreachable();
    } catch (err) {
      expect((err as RefundError).path).toBe('lines.0.quantity');
    }
  });

  it('payment and settlement journal transactions balance and clear receivables', () => {
    const order = paidOrder([1, 2, 1], 150);
    const pay = buildOrderPaymentJournalTransaction(
      order,
      { id: newId('payment'), accountCode: 'card_clearing:card_not_present', amountCents: order.paidCents, tipCents: 150 },
      order.createdAt,
    );
    const sale = buildOrderSettlementJournalTransaction(order, order.createdAt)!;
    expect(isBalanced(pay.postings)).toBe(true);
    expect(isBalanced(sale.postings)).toBe(true);
    const receivables = [...pay.postings, ...sale.postings]
      .filter((p) => p.accountCode === 'customer_receivables')
      .reduce((a, p) => a + p.amountCents, 0);
    expect(receivables).toBe(0);
  });
});
