/**
 * Tenders staff take through the orders API: cash into the register's drawer, cards on the sandbox
 * staff rail (documented tokens, never a card number), checks and other tenders into their clearing accounts.
 * Capturing is pure: it says where the money sits or why the rail declined; the orders module records the outcome.
 */
import { cashDrawerAccount, type TenderInput } from '../../../../core/index.ts';
import { SANDBOX_STAFF_CARDS, STAFF_CARD_RAIL } from './processors.ts';

/** One captured tender: what the rail said and where the money sits (amounts in minor units, tips included). */
export interface CapturedTender {
  method: 'cash' | 'card' | 'check' | 'other';
  rail: string;
  /** Ledger account the money sits in: `cash_drawer:R<n>`, `card_clearing:<rail>`, `check_clearing`, `other_tender_clearing`. */
  accountCode: string;
  amountCents: number;
  tipCents: number;
  tenderedCents?: number;
  changeCents?: number;
  cardBrand?: string;
  lastFour?: string;
  authCode?: string;
  reference?: string;
}

/** A card tender the sandbox staff rail declined: nothing moved; the orders module stores the attempt. */
export interface DeclinedTender {
  /** Index of the tender in the request (`tenders.<index>`). */
  index: number;
  /** The rail's decline code: `card_declined`, `insufficient_funds`. */
  code: string;
  tender: Extract<TenderInput, { method: 'card' }>;
  rail: string;
  accountCode: string;
}

/**
 * Captures one tender (already checked by the orders module: tip within amount, cash handed over ≥ amount) on the
 * register numbered `registerNumber`; `paymentUlid` seeds the sandbox authorisation code; `cardRail` is the rail routing
 * chose for a card (default the staff card rail, card_not_present).
 * Returns the captured tender, or the decline of a sandbox card token.
 */
export function captureStaffTender(
  t: TenderInput,
  index: number,
  registerNumber: number,
  paymentUlid: string,
  cardRail: string = STAFF_CARD_RAIL,
): { captured: CapturedTender } | { declined: DeclinedTender } {
  const tipCents = t.tipCents ?? 0;
  switch (t.method) {
    case 'cash':
      return {
        captured: {
          method: 'cash',
          rail: 'cash',
          accountCode: cashDrawerAccount(registerNumber),
          amountCents: t.amountCents,
          tipCents,
          ...(t.tenderedCents !== undefined ? { tenderedCents: t.tenderedCents, changeCents: t.tenderedCents - t.amountCents } : {}),
        },
      };
    case 'card': {
      const card = SANDBOX_STAFF_CARDS[t.cardToken]!;
      if ('decline' in card) return { declined: { index, code: card.decline, tender: t, rail: cardRail, accountCode: `card_clearing:${cardRail}` } };
      return {
        captured: {
          method: 'card',
          rail: cardRail,
          accountCode: `card_clearing:${cardRail}`,
          amountCents: t.amountCents,
          tipCents,
          cardBrand: card.brand,
          lastFour: card.last4,
          authCode: `SBX${paymentUlid.slice(-6)}`,
        },
      };
    }
    case 'check':
      return {
        captured: {
          method: 'check',
          rail: 'check',
          accountCode: 'check_clearing',
          amountCents: t.amountCents,
          tipCents,
          ...(t.checkNumber ? { reference: `check ${t.checkNumber}` } : {}),
        },
      };
    case 'other':
      return {
        captured: {
          method: 'other',
          rail: 'other',
          accountCode: 'other_tender_clearing',
          amountCents: t.amountCents,
          tipCents,
          ...(t.reference ? { reference: t.reference } : {}),
        },
      };
  }
}
