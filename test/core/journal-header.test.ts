import { describe, expect, it } from 'vitest';
import {
  buildCancellationJournalTransaction,
  buildInvoiceIssueJournal,
  buildInvoicePaymentJournal,
  buildJournalTransaction,
  buildOrderPaymentJournalTransaction,
  buildOrderSettlementJournalTransaction,
  buildRefundJournalTransaction,
  buildSaleJournalTransaction,
  catalogSnapshot,
  computeOrderTotals,
  journalTransactionSchema,
  LedgerError,
  newId,
  orderJournalHeader,
  planRefund,
  priceLine,
  type Order,
} from '../../core/index.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';

const catalog = catalogSnapshot(DEMO_CATALOG_ITEMS, DEMO_TAX_RATES);
const AT = '2026-03-01T12:00:00.000Z';

function order(): Order {
  const lines = [
    priceLine({ catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'], quantity: 2 }, catalog, 'lines.0'),
    priceLine({ catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', modifierIds: [], quantity: 1 }, catalog, 'lines.1'),
  ];
  const totals = computeOrderTotals(lines, []);
  return {
    id: newId('order'),
    registerId: 'reg_7',
    registerNumber: 7,
    receiptNumber: 'R7-000042',
    state: 'paid',
    currency: 'USD',
    createdAt: AT,
    lines: totals.lines,
    discounts: [],
    taxLines: totals.taxLines,
    subtotalCents: totals.subtotalCents,
    discountCents: 0,
    taxCents: totals.taxCents,
    totalCents: totals.totalCents,
    tipCents: 100,
    paidCents: totals.totalCents + 100,
    tenders: [{ id: newId('tender'), method: 'cash', amountCents: totals.totalCents + 100, tipCents: 100 }],
    journalTransactionId: null,
  };
}

describe('journal-transaction header built in one place (core/ledger.ts)', () => {
  it('every order journal carries the header orderJournalHeader gives: source order, the order id, register and currency', () => {
    const o = order();
    const payment = { id: newId('payment'), accountCode: 'card_clearing:card_not_present', amountCents: o.paidCents, tipCents: 100 };
    const plan = planRefund(o, [], [{ ...payment, refundedCents: 0 }], { amountCents: 500 });
    const built = [
      [buildSaleJournalTransaction(o), 'sale', o.createdAt, `Sale ${o.receiptNumber}`],
      [buildOrderPaymentJournalTransaction(o, payment, AT), 'payment', AT, `Payment ${payment.id} on ${o.receiptNumber}`],
      [buildOrderSettlementJournalTransaction(o, AT)!, 'sale', AT, `Sale ${o.receiptNumber}`],
      [buildCancellationJournalTransaction(o, [payment], AT), 'refund', AT, `Cancellation of ${o.receiptNumber}`],
      [buildRefundJournalTransaction(o, plan, 'rfd_x', AT), 'refund', AT, `Refund rfd_x of ${o.receiptNumber}`],
    ] as const;
    for (const [jt, kind, occurredAt, memo] of built) {
      const { id: _id, ...header } = orderJournalHeader(o, kind, occurredAt, memo);
      expect(jt, memo).toMatchObject({ ...header, sourceType: 'order', sourceId: o.id, registerId: 'reg_7', currency: 'USD' });
      expect(journalTransactionSchema.parse(jt)).toEqual(jt);
    }
  });

  it('invoice journals go through the same builder: header as given, postings consolidated and balanced', () => {
    const o = order();
    const invoice = {
      id: `inv_${o.id.slice(4)}`,
      number: 'INV-000001',
      currency: 'EUR',
      lines: o.lines.map((l) => ({
        ...l,
        type: 'catalog' as const,
        catalogItemId: l.catalogItemId,
        variationId: l.variationId,
        modifierIds: [],
        description: l.name,
      })),
      taxCents: o.taxCents,
      totalCents: o.totalCents,
    };
    const issue = buildInvoiceIssueJournal(invoice, AT);
    expect(issue).toMatchObject({
      id: `jtx_${o.id.slice(4)}`,
      kind: 'sale',
      sourceType: 'invoice',
      sourceId: invoice.id,
      registerId: null,
      currency: 'EUR',
      occurredAt: AT,
    });
    const pay = buildInvoicePaymentJournal({
      id: newId('journalTransaction'),
      invoiceId: invoice.id,
      invoiceNumber: 'INV-000001',
      currency: 'EUR',
      amountCents: 100,
      accountCode: 'bank',
      registerId: null,
      occurredAt: AT,
      via: 'bank_transfer',
    });
    expect(pay.postings).toEqual([
      { accountCode: 'bank', amountCents: 100 },
      { accountCode: 'customer_receivables', amountCents: -100 },
    ]);
  });

  it('buildJournalTransaction merges postings per account, drops zeros, and refuses what does not balance', () => {
    const header = {
      kind: 'adjustment' as const,
      sourceType: 'manual' as const,
      sourceId: 'x',
      registerId: null,
      currency: 'USD',
      occurredAt: AT,
      memo: 'test',
    };
    const jt = buildJournalTransaction(header, [
      { accountCode: 'bank', amountCents: 70 },
      { accountCode: 'bank', amountCents: 30 },
      { accountCode: 'discounts', amountCents: 0 },
      { accountCode: 'sales_revenue', amountCents: -100 },
    ]);
    expect(jt.id).toMatch(/^jtx_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(jt.postings).toEqual([
      { accountCode: 'bank', amountCents: 100 },
      { accountCode: 'sales_revenue', amountCents: -100 },
    ]);
    expect(() =>
      buildJournalTransaction(header, [
        { accountCode: 'bank', amountCents: 1 },
        { accountCode: 'sales_revenue', amountCents: -2 },
      ]),
    ).toThrow(LedgerError);
  });
});
