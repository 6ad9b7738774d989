/**
 * The shift records as this register stores them, and the figures of a shift's X- and Z-report. These mirror the
 * core contract of issue 12 (core/shifts.ts, written on the server side); the register maps to it where they meet.
 */
import { ulid, type Cents, type Order } from '../../../../core/index.ts';

export type { Cents, Order };

/** Id prefixes of the shift records (prefixed ULIDs, DESIGN §7). */
const PREFIXES = { shift: 'shf', cashMovement: 'cmv', closeout: 'clo' } as const;

/** A new prefixed ULID for a shift record, born on the register. */
export function newShiftRecordId(kind: keyof typeof PREFIXES): string {
  return `${PREFIXES[kind]}_${ulid()}`;
}

/** How many notes or coins of one denomination (`valueCents`, minor units) are in the drawer. */
export interface DenominationCount {
  valueCents: Cents;
  count: number;
}

/** A shift on one register: opened with a counted float (cents); open while it has no closeout. */
export interface Shift {
  id: string;
  registerId: string;
  registerNumber: number;
  currency: string;
  /** ISO 8601 time the shift opened. */
  openedAt: string;
  openingFloatCents: Cents;
  /** The float by denomination when counted so (may be empty: the cashier typed the total). */
  openingCounts: DenominationCount[];
  /** `sale`: the register opened it by itself for a sale rung up with no shift open (float 0). */
  openedBy: 'cashier' | 'sale';
  staffId?: string;
}

export type CashMovementKind = 'paid_in' | 'paid_out' | 'no_sale';

/** Cash into or out of the drawer other than a sale, with a reason; `no_sale` is a drawer opened for nothing (0). */
export interface CashMovement {
  id: string;
  shiftId: string;
  registerId: string;
  kind: CashMovementKind;
  /** Cents, > 0 for paid in/out, 0 for a no-sale. */
  amountCents: Cents;
  reason: string;
  createdAt: string;
  staffId?: string;
}

/** The figures of an X-report (mid-shift) or Z-report (at the close) of one shift, all in cents of the shift's currency. */
export interface ShiftReport {
  currency: string;
  openedAt: string;
  /** End of the period covered (the close, or when an X-report was made). */
  until: string;
  salesCount: number;
  /** Gross of goods before discounts (sum of order subtotals). */
  salesCents: Cents;
  refundsCents: Cents;
  voidsCount: number;
  discountsCents: Cents;
  tipsCents: Cents;
  taxCents: Cents;
  /** Net total of the sales (order totals, tax included, tips excluded). */
  totalCents: Cents;
  taxByRate: { name: string; basisPoints: number; taxCents: Cents }[];
  byTender: { method: string; count: number; amountCents: Cents }[];
  cardByBrand: { brand: string; count: number; amountCents: Cents }[];
  paidInCents: Cents;
  paidOutCents: Cents;
  noSaleCount: number;
  openingFloatCents: Cents;
  cashSalesCents: Cents;
  expectedCashCents: Cents;
  firstReceipt?: string;
  lastReceipt?: string;
  /** Sales in the report not yet on the server (made offline). */
  unsyncedCount: number;
}

/** A shift's close: the drawer counted by denomination, expected vs counted cash and the Z-report figures. */
export interface Closeout {
  id: string;
  shiftId: string;
  registerId: string;
  closedAt: string;
  counts: DenominationCount[];
  countedCashCents: Cents;
  expectedCashCents: Cents;
  /** counted − expected (cents): positive is over, negative short. */
  overShortCents: Cents;
  report: ShiftReport;
  staffId?: string;
  /** Set by the server when its recomputation of the shift differs from the register's figures (pulled back). */
  serverDifference?: { field: string; registerCents: number; serverCents: number }[];
}
