/**
 * Shifts, cash movements and the closeout (Z-report): docs/decisions/0010-shifts-and-the-daily-closeout.md,
 * docs/decisions/0012-shift-counts-every-sale.md.
 *
 * The register authors three append-only documents, synced through the push collections `shifts`, `cash-movements`
 * and `shift-closeouts` (like orders: validated with these schemas, quarantined when invalid, stored once by id):
 *
 * - a {@link Shift}: opened on a register with a counted opening float;
 * - {@link CashMovement}s during the shift: cash paid in, paid out (each with a reason), a no-sale drawer open;
 * - a {@link ShiftCloseout}: the drawer counted by denomination of the store currency, with the register's own
 *   figures (the {@link ZReport} it showed the cashier).
 *
 * The sales of a shift are the register's orders whose `createdAt` lies in `[openedAt, closedAt]` (the register's own
 * clock stamps both, so they agree offline). {@link computeZReport} is the one computation of the figures: the
 * register runs it offline (X-report mid-shift, Z-report at close) and the server runs it again on the sales it
 * holds; the expected cash comes from ledger postings to the register's drawer account (`cash_drawer:R<n>`): on the
 * register from the sales' journal transactions that core builds, on the server from the stored ones.
 */
import { z } from 'zod';
import { withoutCardNumber, freeText, currencyCode, amountCentsSchema, MAX_AMOUNT_CENTS } from './schemas.ts';
import type { JournalTransaction, Order, Posting, Tender } from './schemas.ts';
import { utcDateTime } from './datetime.ts';
import { buildJournalTransaction, buildSaleJournalTransaction, cashDrawerAccount } from './ledger.ts';
import { formatMoney, sumCents } from './money.ts';

/* ───────────────────────────── denominations ───────────────────────────── */

/** One note or coin of a currency: its face value in minor units. */
export interface Denomination {
  kind: 'note' | 'coin';
  valueCents: number;
  label: string;
}

const note = (valueCents: number, label: string): Denomination => ({ kind: 'note', valueCents, label });
const coin = (valueCents: number, label: string): Denomination => ({ kind: 'coin', valueCents, label });

/**
 * Notes and coins in common circulation per ISO 4217 currency, largest first (what a drawer is counted in). CAD has
 * no 1-cent coin since 2013 (cash totals round to 5 cents at the till; a count is simply in 5-cent steps).
 */
export const CURRENCY_DENOMINATIONS: Readonly<Record<string, readonly Denomination[]>> = {
  USD: [
    note(10_000, '$100'),
    note(5_000, '$50'),
    note(2_000, '$20'),
    note(1_000, '$10'),
    note(500, '$5'),
    note(200, '$2'),
    note(100, '$1'),
    coin(100, '$1 coin'),
    coin(50, '50¢'),
    coin(25, '25¢'),
    coin(10, '10¢'),
    coin(5, '5¢'),
    coin(1, '1¢'),
  ],
  EUR: [
    note(50_000, '€500'),
    note(20_000, '€200'),
    note(10_000, '€100'),
    note(5_000, '€50'),
    note(2_000, '€20'),
    note(1_000, '€10'),
    note(500, '€5'),
    coin(200, '€2'),
    coin(100, '€1'),
    coin(50, '50c'),
    coin(20, '20c'),
    coin(10, '10c'),
    coin(5, '5c'),
    coin(2, '2c'),
    coin(1, '1c'),
  ],
  GBP: [
    note(5_000, '£50'),
    note(2_000, '£20'),
    note(1_000, '£10'),
    note(500, '£5'),
    coin(200, '£2'),
    coin(100, '£1'),
    coin(50, '50p'),
    coin(20, '20p'),
    coin(10, '10p'),
    coin(5, '5p'),
    coin(2, '2p'),
    coin(1, '1p'),
  ],
  CAD: [
    note(10_000, '$100'),
    note(5_000, '$50'),
    note(2_000, '$20'),
    note(1_000, '$10'),
    note(500, '$5'),
    coin(200, '$2'),
    coin(100, '$1'),
    coin(25, '25¢'),
    coin(10, '10¢'),
    coin(5, '5¢'),
  ],
};

/**
 * The denominations of `currency` (ISO 4217), largest first.
 * @throws RangeError when the currency has no denomination table (counts cannot be checked).
 */
export function denominationsOf(currency: string): readonly Denomination[] {
  const list = CURRENCY_DENOMINATIONS[currency];
  if (!list) throw new RangeError(`no denominations known for currency ${currency}`);
  return list;
}

/** One line of a drawer count: how many of one note or coin (face value in minor units). */
export const denominationCountSchema = z.strictObject({
  kind: z.enum(['note', 'coin']),
  valueCents: z.int().min(1).max(100_000),
  count: z.int().min(0).max(100_000),
});
export type DenominationCount = z.infer<typeof denominationCountSchema>;

/** Total of a drawer count in minor units: Σ valueCents × count. */
export function countedTotalCents(counts: readonly DenominationCount[]): number {
  return sumCents(counts.map((c) => c.valueCents * c.count));
}

/**
 * Why a count does not fit `currency`: an unknown note/coin or one listed twice.
 * @returns undefined when every line is a denomination of the currency, once; else a sentence (400 / quarantine).
 */
export function denominationCountProblem(currency: string, counts: readonly DenominationCount[]): string | undefined {
  const known = CURRENCY_DENOMINATIONS[currency];
  if (!known) return `no denominations known for currency ${currency}`;
  const seen = new Set<string>();
  for (const c of counts) {
    const key = `${c.kind}:${c.valueCents}`;
    if (seen.has(key)) return `${c.kind} ${c.valueCents} is counted twice`;
    seen.add(key);
    if (!known.some((d) => d.kind === c.kind && d.valueCents === c.valueCents)) return `${c.kind} ${c.valueCents} is not a ${currency} denomination`;
  }
  return undefined;
}

/* ───────────────────────────── documents ───────────────────────────── */

const ulidId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`);
const registerIdSchema = withoutCardNumber(z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/));
const staffIdSchema = withoutCardNumber(z.string().max(64));
const serverStamp = { updatedAt: utcDateTime.optional(), syncSeq: z.int().min(0).optional() };
const rejection = z.strictObject({ reason: z.string(), at: utcDateTime }).optional();

/**
 * A shift as the register opens it (`shf_…` id born on the register). `openingFloatCents` is the counted float put in
 * the drawer (minor units); `openingCount` its count by denomination when the cashier counted note by note (its total
 * must equal the float).
 */
export const shiftSchema = z.strictObject({
  id: ulidId('shf'),
  registerId: registerIdSchema,
  registerNumber: z.int().min(1).max(9999),
  currency: currencyCode,
  openedAt: utcDateTime,
  staffId: staffIdSchema.optional(),
  openingFloatCents: amountCentsSchema,
  openingCount: z.array(denominationCountSchema).max(40).optional(),
  rejection,
  ...serverStamp,
});
export type Shift = z.infer<typeof shiftSchema>;

/**
 * Kinds of cash movement: money put in, money taken out (both with a reason), a drawer opened with no sale — and the
 * drawer side of a financial service, recorded by the register from the server's answer: cash handed out
 * for a check cashed (`check_cashed`: the payout), cash taken for a money transfer or a bill payment (`transfer_in`,
 * `bill_payment_in`: amount + fee), cash handed back for a transfer canceled within 30 minutes (`transfer_canceled`).
 */
export const cashMovementKind = z.enum(['paid_in', 'paid_out', 'no_sale', 'check_cashed', 'transfer_in', 'bill_payment_in', 'transfer_canceled']);
export type CashMovementKind = z.infer<typeof cashMovementKind>;

/** The cash-movement kinds of a financial service (see {@link cashMovementKind}); they post no journal transaction of their own. */
export const SERVICE_CASH_KINDS = ['check_cashed', 'transfer_in', 'bill_payment_in', 'transfer_canceled'] as const;
/** See {@link SERVICE_CASH_KINDS}. */
export type ServiceCashKind = (typeof SERVICE_CASH_KINDS)[number];

/** True for the kinds of {@link SERVICE_CASH_KINDS}. */
export function isServiceCashKind(kind: string): kind is ServiceCashKind {
  return (SERVICE_CASH_KINDS as readonly string[]).includes(kind);
}

/** The record id of a financial service (`chq_…` check cashing, `mtr_…` money transfer, `bpy_…` bill payment). */
export const serviceRefSchema = z.string().regex(/^(chq|mtr|bpy)_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a check cashing, transfer or bill payment id');

/**
 * A cash movement during a shift (`cmv_…`). `amountCents` > 0 for paid in/out, 0 for a no-sale; `reason` is required
 * for paid in/out (free text, card numbers masked).
 */
export const cashMovementSchema = z
  .strictObject({
    id: ulidId('cmv'),
    shiftId: ulidId('shf'),
    registerId: registerIdSchema,
    registerNumber: z.int().min(1).max(9999),
    kind: cashMovementKind,
    amountCents: amountCentsSchema,
    reason: freeText(200).optional(),
    /** A financial service's movement: the service record it comes from (`chq_…`, `mtr_…`, `bpy_…`). */
    serviceRef: serviceRefSchema.optional(),
    /** A financial service's movement: the fee of the service (minor units; included in `amountCents` when cash came in). */
    feeCents: amountCentsSchema.optional(),
    createdAt: utcDateTime,
    staffId: staffIdSchema.optional(),
    rejection,
    ...serverStamp,
  })
  .superRefine((m, ctx) => {
    const service = isServiceCashKind(m.kind);
    if (m.kind === 'no_sale' && m.amountCents !== 0)
      ctx.addIssue({ code: 'custom', path: ['amountCents'], message: 'a no-sale moves no money: must be 0' });
    if (m.kind !== 'no_sale' && m.amountCents < 1)
      ctx.addIssue({ code: 'custom', path: ['amountCents'], message: `a ${m.kind} must move at least 1` });
    if ((m.kind === 'paid_in' || m.kind === 'paid_out') && !m.reason?.trim())
      ctx.addIssue({ code: 'custom', path: ['reason'], message: `a ${m.kind} needs a reason` });
    if (service && !m.serviceRef) ctx.addIssue({ code: 'custom', path: ['serviceRef'], message: `a ${m.kind} names its service record` });
    if (!service && (m.serviceRef !== undefined || m.feeCents !== undefined))
      ctx.addIssue({ code: 'custom', path: ['serviceRef'], message: `a ${m.kind} has no service record or fee` });
  });
export type CashMovement = z.infer<typeof cashMovementSchema>;

/* ───────────────────────────── Z-report ───────────────────────────── */

/** Payment rails a register tender maps to (`other` for a tender with no rail). */
export type ReportRail = 'cash' | 'card_present' | 'apple_pay' | 'google_pay' | 'check' | 'other';

/** The rail of a register tender: card → card present; wallets → themselves; cash, check; anything else `other`. */
export function railOfTender(tender: Pick<Tender, 'method'>): ReportRail {
  switch (tender.method) {
    case 'card':
      return 'card_present';
    case 'cash':
    case 'apple_pay':
    case 'google_pay':
    case 'check':
      return tender.method;
    default:
      return 'other';
  }
}

const totalLine = z.strictObject({ count: z.int().min(0), amountCents: z.int(), tipCents: z.int().min(0) });
/** Figures per key (tender method, rail, card brand): number of tenders, amount (tips included) and tips, minor units. */
export type TotalLine = z.infer<typeof totalLine>;

const countLine = z.strictObject({ count: z.int().min(0), amountCents: z.int().min(0) });

/**
 * The drawer side of a shift's financial services, minor units: cash handed out for checks cashed (the
 * payouts), cash taken for money transfers and bill payments (amount + fee), cash handed back for transfers canceled
 * (amount + fee), and the services' fees (checks' fees, transfers' and bills' fees, less the fees of canceled
 * transfers) — fees are part of those amounts, shown on their own for the store's revenue.
 */
export const serviceCashSchema = z.strictObject({
  checksCashed: countLine,
  transfersIn: countLine,
  billPaymentsIn: countLine,
  transfersCanceled: countLine,
  feesCents: z.int(),
});
/** See {@link serviceCashSchema}. */
export type ServiceCash = z.infer<typeof serviceCashSchema>;

/** No financial service in the shift. */
export function emptyServiceCash(): ServiceCash {
  return {
    checksCashed: { count: 0, amountCents: 0 },
    transfersIn: { count: 0, amountCents: 0 },
    billPaymentsIn: { count: 0, amountCents: 0 },
    transfersCanceled: { count: 0, amountCents: 0 },
    feesCents: 0,
  };
}

/** What the services did to the drawer: + transfers and bills taken in, − checks paid out and transfers handed back. */
export function serviceDrawerCents(s: ServiceCash | undefined): number {
  if (!s) return 0;
  return s.transfersIn.amountCents + s.billPaymentsIn.amountCents - s.checksCashed.amountCents - s.transfersCanceled.amountCents;
}

/**
 * The {@link ServiceCash} of a shift from the register's service movements (kinds of {@link SERVICE_CASH_KINDS});
 * other movements are ignored. A service record counted twice (the same `serviceRef` and kind) counts once.
 */
export function serviceCashOf(movements: readonly CashMovement[]): ServiceCash {
  const out = emptyServiceCash();
  const seen = new Set<string>();
  for (const m of movements) {
    if (!isServiceCashKind(m.kind) || !m.serviceRef) continue;
    const key = `${m.kind}:${m.serviceRef}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const line =
      m.kind === 'check_cashed'
        ? out.checksCashed
        : m.kind === 'transfer_in'
          ? out.transfersIn
          : m.kind === 'bill_payment_in'
            ? out.billPaymentsIn
            : out.transfersCanceled;
    line.count += 1;
    line.amountCents += m.amountCents;
    out.feesCents += (m.kind === 'transfer_canceled' ? -1 : 1) * (m.feeCents ?? 0);
  }
  return out;
}

/**
 * A Z-report (at close) or X-report (mid-shift: `kind: 'x'`, no count) of one shift, every amount in minor units of
 * `currency`. Sales are the shift's orders that are not canceled; voids are canceled orders (count and total).
 * `refundsCents` are the refunds of the returns made on the register during the shift (whichever shift sold the
 * goods) — the same figure on the register, on the server and in the store's day.
 * `expectedCashCents` = opening float + the drawer account's postings of the shift's sales and returns + paid in −
 * paid out + the financial services' cash in − their cash out (`services`); on the server all of it but
 * the services read from the ledger ({@link ZReportOptions.ledgerDrawerCents});
 * `overShortCents` = counted − expected (> 0 over, < 0 short), null on an X-report.
 */
export const zReportSchema = z.strictObject({
  kind: z.enum(['x', 'z']),
  shiftId: z.string(),
  registerId: z.string(),
  registerNumber: z.int(),
  currency: z.string(),
  openedAt: z.string(),
  closedAt: z.string().nullable(),
  salesCount: z.int().min(0),
  grossSalesCents: z.int().describe('Σ line gross of the sales (before discounts)'),
  discountsCents: z.int().min(0),
  netSalesCents: z.int().describe('Σ order total (after discounts, tax included)'),
  taxCents: z.int().min(0),
  tipsCents: z.int().min(0),
  refundsCents: z.int().min(0),
  voids: z.strictObject({ count: z.int().min(0), amountCents: z.int().min(0) }),
  taxByRate: z.array(
    z.strictObject({
      taxRateId: z.string(),
      name: z.string(),
      basisPoints: z.int(),
      inclusive: z.boolean(),
      taxableCents: z.int(),
      taxCents: z.int(),
    }),
  ),
  byTender: z.record(z.string(), totalLine),
  byRail: z.record(z.string(), totalLine),
  cardByBrand: z.record(z.string(), totalLine),
  paidInCents: z.int().min(0),
  paidOutCents: z.int().min(0),
  noSaleCount: z.int().min(0),
  services: serviceCashSchema
    .optional()
    .describe('The drawer side of the financial services of the shift (absent in reports of registers that predate financial services)'),
  openingFloatCents: z.int().min(0),
  cashSalesCents: z.int().describe("Σ postings to the register's drawer account of the shift's sales (cash taken less cash refunded)"),
  expectedCashCents: z.int(),
  countedCashCents: z.int().nullable(),
  overShortCents: z.int().nullable(),
  firstReceiptNumber: z.string().nullable(),
  lastReceiptNumber: z.string().nullable(),
});
export type ZReport = z.infer<typeof zReportSchema>;

/**
 * A shift closed on the register (`clo_…`): the drawer counted by denomination (`counted`, whose total must be
 * `countedCashCents`) and the figures the register showed (`report`, a Z-report). The server recomputes the report on
 * the sales it holds and flags any difference; it never rewrites the register's figures.
 */
export const shiftCloseoutSchema = z
  .strictObject({
    id: ulidId('clo'),
    shiftId: ulidId('shf'),
    registerId: registerIdSchema,
    registerNumber: z.int().min(1).max(9999),
    currency: currencyCode,
    closedAt: utcDateTime,
    staffId: staffIdSchema.optional(),
    counted: z.array(denominationCountSchema).max(40),
    countedCashCents: z
      .int()
      .min(0)
      .max(MAX_AMOUNT_CENTS * 100),
    report: zReportSchema,
    note: freeText(500).optional(),
    rejection,
    ...serverStamp,
  })
  .superRefine((c, ctx) => {
    const problem = denominationCountProblem(c.currency, c.counted);
    if (problem) ctx.addIssue({ code: 'custom', path: ['counted'], message: problem });
    else if (countedTotalCents(c.counted) !== c.countedCashCents) {
      ctx.addIssue({ code: 'custom', path: ['countedCashCents'], message: `must be the total of counted (${countedTotalCents(c.counted)})` });
    }
  });
export type ShiftCloseout = z.infer<typeof shiftCloseoutSchema>;

/**
 * True when the order was made during the shift: same register, `openedAt ≤ createdAt ≤ closedAt` (or still open).
 * `after` (ISO 8601, exclusive), when earlier than `openedAt`, reaches back instead: a sale rung up after that instant
 * and before the shift opened (no shift was open on the register) belongs to this shift — see
 * {@link ZReportOptions.salesAfter}.
 */
export function isSaleOfShift(
  shift: Pick<Shift, 'registerId' | 'openedAt'>,
  closedAt: string | null,
  order: Pick<Order, 'registerId' | 'createdAt'>,
  after?: string,
): boolean {
  const t = Date.parse(order.createdAt);
  const from = Date.parse(shift.openedAt);
  const inStart = after !== undefined && Date.parse(after) < from ? t > Date.parse(after) : t >= from;
  return order.registerId === shift.registerId && inStart && (closedAt === null || t <= Date.parse(closedAt));
}

/** Sum of the postings to `cash_drawer:R<registerNumber>` (minor units): what the drawer gained. */
export function drawerPostingsCents(postings: readonly Posting[], registerNumber: number): number {
  const account = cashDrawerAccount(registerNumber);
  return sumCents(postings.filter((p) => p.accountCode === account).map((p) => p.amountCents));
}

/** Options of {@link computeZReport}. */
export interface ZReportOptions {
  /** The drawer count at close; absent for an X-report. */
  count?: { closedAt: string; countedCashCents: number };
  /**
   * The drawer account's postings of the shift's sales (server: from the stored journal transactions, refunds in
   * cash included). When absent, they are taken from core's sale journal transactions of `sales` (the register).
   */
  drawerCents?: number;
  /**
   * Refunds given during the shift in minor units: the returns made on the register in this shift (whatever shift
   * their sale was in), on the register and on the server alike; default 0.
   */
  refundsCents?: number;
  /**
   * The server's reach before `openedAt` (ISO 8601, exclusive): the close of this register's previous shift, or the
   * start of the business day when there is none. A sale rung up between them, when no shift was open, belongs to this
   * shift — the drawer held its cash — so the server counts it here and flags the register's report if it did not.
   */
  salesAfter?: string;
  /**
   * The server's drawer, read from the ledger: Σ postings to `cash_drawer:R<n>` of the shift's sales, the refunds of
   * its returns and its paid in / paid out (minor units). When given, the expected cash is the opening float plus
   * this plus the financial services' cash (`services`, posted by the services themselves) — so a shift whose
   * documents say something else than the ledger differs from the register's report and is never shown as agreeing.
   */
  ledgerDrawerCents?: number;
  /**
   * Cash given back from this drawer by returns made during the shift (register), minor units: taken off the
   * drawer's sales when `drawerCents` is not given. Default 0.
   */
  cashRefundsCents?: number;
  /** When the X-report is taken (ISO); default the latest sale or the opening. */
  at?: string;
  /**
   * The financial services' drawer side (server: from its service records of the shift). When absent, taken from the
   * service movements among `movements` ({@link serviceCashOf}, the register).
   */
  services?: ServiceCash;
}

function addTo(map: Record<string, TotalLine>, key: string, amountCents: number, tipCents: number): void {
  const line = (map[key] ??= { count: 0, amountCents: 0, tipCents: 0 });
  line.count += 1;
  line.amountCents += amountCents;
  line.tipCents += tipCents;
}

function receiptSequence(receipt: string): number {
  return Number(receipt.split('-')[1] ?? 0);
}

/**
 * The X- or Z-report of `shift`: pure, shared by the register (offline, every sale it stores) and the server
 * (recompute). `sales` may hold orders of other shifts or registers: only those of the shift count
 * ({@link isSaleOfShift}); `movements` likewise by `shiftId`. Canceled orders count as voids only.
 * @throws LedgerError (from the sale journal) when a paid sale does not balance and `drawerCents` is not given.
 */
export function computeZReport(shift: Shift, sales: readonly Order[], movements: readonly CashMovement[], options: ZReportOptions = {}): ZReport {
  const closedAt = options.count?.closedAt ?? null;
  const mine = sales
    .filter((o) => isSaleOfShift(shift, closedAt, o, options.salesAfter))
    .sort((a, b) => receiptSequence(a.receiptNumber) - receiptSequence(b.receiptNumber));
  const kept = mine.filter((o) => o.state !== 'canceled');
  const voided = mine.filter((o) => o.state === 'canceled');
  const byTender: Record<string, TotalLine> = {};
  const byRail: Record<string, TotalLine> = {};
  const cardByBrand: Record<string, TotalLine> = {};
  const taxes = new Map<string, ZReport['taxByRate'][number]>();
  for (const o of kept) {
    for (const t of o.tenders) {
      addTo(byTender, t.method, t.amountCents, t.tipCents);
      addTo(byRail, railOfTender(t), t.amountCents, t.tipCents);
      if (t.method === 'card' || t.method === 'apple_pay' || t.method === 'google_pay')
        addTo(cardByBrand, (t.cardBrand ?? 'unknown').toLowerCase(), t.amountCents, t.tipCents);
    }
    for (const tl of o.taxLines) {
      const key = `${tl.taxRateId}:${tl.basisPoints}:${tl.inclusive}`;
      const line = taxes.get(key) ?? {
        taxRateId: tl.taxRateId,
        name: tl.name,
        basisPoints: tl.basisPoints,
        inclusive: tl.inclusive,
        taxableCents: 0,
        taxCents: 0,
      };
      line.taxableCents += tl.taxableCents;
      line.taxCents += tl.taxCents;
      taxes.set(key, line);
    }
  }
  const own = movements.filter((m) => m.shiftId === shift.id);
  const paidInCents = sumCents(own.filter((m) => m.kind === 'paid_in').map((m) => m.amountCents));
  const paidOutCents = sumCents(own.filter((m) => m.kind === 'paid_out').map((m) => m.amountCents));
  const cashSalesCents =
    options.drawerCents ??
    sumCents(
      kept.filter((o) => o.tenders.length > 0).map((o) => drawerPostingsCents(buildSaleJournalTransaction(o).postings, shift.registerNumber)),
    ) - (options.cashRefundsCents ?? 0);
  const services = options.services ?? serviceCashOf(own);
  const expectedCashCents =
    options.ledgerDrawerCents !== undefined
      ? shift.openingFloatCents + options.ledgerDrawerCents + serviceDrawerCents(services)
      : shift.openingFloatCents + cashSalesCents + paidInCents - paidOutCents + serviceDrawerCents(services);
  const countedCashCents = options.count?.countedCashCents ?? null;
  return {
    kind: options.count ? 'z' : 'x',
    shiftId: shift.id,
    registerId: shift.registerId,
    registerNumber: shift.registerNumber,
    currency: shift.currency,
    openedAt: shift.openedAt,
    closedAt,
    salesCount: kept.length,
    grossSalesCents: sumCents(kept.flatMap((o) => o.lines.map((l) => l.grossCents))),
    discountsCents: sumCents(kept.map((o) => o.discountCents)),
    netSalesCents: sumCents(kept.map((o) => o.totalCents)),
    taxCents: sumCents(kept.map((o) => o.taxCents)),
    tipsCents: sumCents(kept.map((o) => o.tipCents)),
    refundsCents: options.refundsCents ?? 0,
    voids: { count: voided.length, amountCents: sumCents(voided.map((o) => o.totalCents)) },
    taxByRate: [...taxes.values()],
    byTender,
    byRail,
    cardByBrand,
    paidInCents,
    paidOutCents,
    noSaleCount: own.filter((m) => m.kind === 'no_sale').length,
    services,
    openingFloatCents: shift.openingFloatCents,
    cashSalesCents,
    expectedCashCents,
    countedCashCents,
    overShortCents: countedCashCents === null ? null : countedCashCents - expectedCashCents,
    firstReceiptNumber: kept[0]?.receiptNumber ?? null,
    lastReceiptNumber: kept.at(-1)?.receiptNumber ?? null,
  };
}

/** Figures of a Z-report compared when the server recomputes a synced closeout (everything but ids and times). */
export const COMPARED_FIGURES = [
  'salesCount',
  'grossSalesCents',
  'discountsCents',
  'netSalesCents',
  'taxCents',
  'tipsCents',
  'refundsCents',
  'voids',
  'byTender',
  'byRail',
  'cardByBrand',
  'paidInCents',
  'paidOutCents',
  'noSaleCount',
  'services',
  'openingFloatCents',
  'cashSalesCents',
  'expectedCashCents',
  'countedCashCents',
  'overShortCents',
  'firstReceiptNumber',
  'lastReceiptNumber',
  'taxByRate',
] as const;

/** One figure the register and the server disagree on: its name and both values. */
export interface ReportDifference {
  field: string;
  register: unknown;
  server: unknown;
}

function stable(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${k}:${stable((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  return JSON.stringify(value);
}

/** The figures of `server` that differ from the register's `register` report ({@link COMPARED_FIGURES}); empty when equal. */
export function diffZReports(register: ZReport, server: ZReport): ReportDifference[] {
  return COMPARED_FIGURES.filter((f) => stable(register[f]) !== stable(server[f])).map((field) => ({
    field,
    register: register[field],
    server: server[field],
  }));
}

/* ───────────────────────────── business day ───────────────────────────── */

/**
 * The business day (`YYYY-MM-DD`) of `instant` for a store in IANA `timeZone` whose day ends at `cutoffHour` (0–23,
 * local): before the cut-off hour, an instant belongs to the previous calendar day.
 * @throws RangeError on an unknown time zone.
 */
export function businessDayOf(instant: string | Date, timeZone: string, cutoffHour: number): string {
  const at = new Date(typeof instant === 'string' ? Date.parse(instant) : instant.getTime());
  const shifted = new Date(at.getTime() - cutoffHour * 3_600_000);
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(shifted);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** A business day as a string `YYYY-MM-DD` (validated as a real calendar date). */
export const businessDaySchema = z.iso.date();

/* ───────────────────────────── ledger ───────────────────────────── */

/** The journal transaction id of a cash movement or a closeout: derived from its id (`cmv_X`/`clo_X` → `jtx_X`). */
export function shiftJournalTransactionId(documentId: string): string {
  return `jtx_${documentId.replace(/^(cmv|clo)_/, '')}`;
}

/**
 * The journal transaction of a paid in / paid out (none for a no-sale or a financial service's movement): paid in Dr `cash_drawer:R<n>` Cr
 * `cash_paid_in_out`; paid out the reverse. Source `closeout` / the movement's id; kind `adjustment`.
 */
export function buildCashMovementJournalTransaction(movement: CashMovement, currency: string): JournalTransaction | undefined {
  // A financial service's movement is posted by the service itself (its journal transaction names the drawer).
  if ((movement.kind !== 'paid_in' && movement.kind !== 'paid_out') || movement.amountCents === 0) return undefined;
  const sign = movement.kind === 'paid_in' ? 1 : -1;
  return buildJournalTransaction(
    {
      id: shiftJournalTransactionId(movement.id),
      kind: 'adjustment',
      sourceType: 'closeout',
      sourceId: movement.id,
      registerId: movement.registerId,
      currency,
      occurredAt: movement.createdAt,
      memo: `${movement.kind === 'paid_in' ? 'Paid in' : 'Paid out'}: ${movement.reason ?? ''}`.slice(0, 500),
    },
    [
      { accountCode: cashDrawerAccount(movement.registerNumber), amountCents: sign * movement.amountCents },
      { accountCode: 'cash_paid_in_out', amountCents: -sign * movement.amountCents },
    ],
  );
}

/**
 * The over/short of a closed shift (`overShortCents` = counted − expected, minor units): over Dr `cash_drawer:R<n>`
 * Cr `cash_over_short`; short the reverse; none when the drawer is exact. Kind and source `closeout`.
 */
export function buildOverShortJournalTransaction(
  closeout: Pick<ShiftCloseout, 'id' | 'registerId' | 'registerNumber' | 'currency' | 'closedAt'>,
  overShortCents: number,
): JournalTransaction | undefined {
  if (overShortCents === 0) return undefined;
  return buildJournalTransaction(
    {
      id: shiftJournalTransactionId(closeout.id),
      kind: 'closeout',
      sourceType: 'closeout',
      sourceId: closeout.id,
      registerId: closeout.registerId,
      currency: closeout.currency,
      occurredAt: closeout.closedAt,
      memo: `Cash ${overShortCents > 0 ? 'over' : 'short'} at closeout of R${closeout.registerNumber}`,
    },
    [
      { accountCode: cashDrawerAccount(closeout.registerNumber), amountCents: overShortCents },
      { accountCode: 'cash_over_short', amountCents: -overShortCents },
    ],
  );
}

/* ───────────────────────────── store day ───────────────────────────── */

/** The sums of the figures of several Z-reports (a store's business day): every amount and count added up. */
export type ReportTotals = Omit<ZReport, 'kind' | 'shiftId' | 'registerId' | 'registerNumber' | 'openedAt' | 'closedAt'>;

function mergeLines(into: Record<string, TotalLine>, from: Record<string, TotalLine>): void {
  for (const [k, v] of Object.entries(from)) {
    const line = (into[k] ??= { count: 0, amountCents: 0, tipCents: 0 });
    line.count += v.count;
    line.amountCents += v.amountCents;
    line.tipCents += v.tipCents;
  }
}

/** The sum of several shifts' {@link ServiceCash} (missing ones count as none). */
export function addServiceCash(list: readonly (ServiceCash | undefined)[]): ServiceCash {
  const out = emptyServiceCash();
  for (const s of list) {
    if (!s) continue;
    for (const k of ['checksCashed', 'transfersIn', 'billPaymentsIn', 'transfersCanceled'] as const) {
      out[k].count += s[k].count;
      out[k].amountCents += s[k].amountCents;
    }
    out.feesCents += s.feesCents;
  }
  return out;
}

/**
 * Adds up shift reports into the store's day: amounts, counts, tender/rail/brand lines and tax by rate summed; first
 * and last receipt numbers listed per register (`R1-000001`, …: sequences are per register), in register order.
 * Over/short and counted cash add up only over closed shifts (null when none is closed).
 */
export function rollUpReports(
  currency: string,
  reports: readonly ZReport[],
): ReportTotals & { receiptRanges: { registerNumber: number; first: string | null; last: string | null }[] } {
  const byTender: Record<string, TotalLine> = {};
  const byRail: Record<string, TotalLine> = {};
  const cardByBrand: Record<string, TotalLine> = {};
  const taxes = new Map<string, ZReport['taxByRate'][number]>();
  const sum = (f: (r: ZReport) => number) => sumCents(reports.map(f));
  for (const r of reports) {
    mergeLines(byTender, r.byTender);
    mergeLines(byRail, r.byRail);
    mergeLines(cardByBrand, r.cardByBrand);
    for (const t of r.taxByRate) {
      const key = `${t.taxRateId}:${t.basisPoints}:${t.inclusive}`;
      const line = taxes.get(key) ?? { ...t, taxableCents: 0, taxCents: 0 };
      line.taxableCents += t.taxableCents;
      line.taxCents += t.taxCents;
      taxes.set(key, line);
    }
  }
  const closed = reports.filter((r) => r.countedCashCents !== null);
  const sorted = [...reports].sort((a, b) => a.registerNumber - b.registerNumber || a.openedAt.localeCompare(b.openedAt));
  return {
    currency,
    salesCount: sum((r) => r.salesCount),
    grossSalesCents: sum((r) => r.grossSalesCents),
    discountsCents: sum((r) => r.discountsCents),
    netSalesCents: sum((r) => r.netSalesCents),
    taxCents: sum((r) => r.taxCents),
    tipsCents: sum((r) => r.tipsCents),
    refundsCents: sum((r) => r.refundsCents),
    voids: { count: sum((r) => r.voids.count), amountCents: sum((r) => r.voids.amountCents) },
    taxByRate: [...taxes.values()],
    byTender,
    byRail,
    cardByBrand,
    paidInCents: sum((r) => r.paidInCents),
    paidOutCents: sum((r) => r.paidOutCents),
    noSaleCount: sum((r) => r.noSaleCount),
    services: addServiceCash(reports.map((r) => r.services)),
    openingFloatCents: sum((r) => r.openingFloatCents),
    cashSalesCents: sum((r) => r.cashSalesCents),
    expectedCashCents: sum((r) => r.expectedCashCents),
    countedCashCents: closed.length === 0 ? null : sumCents(closed.map((r) => r.countedCashCents ?? 0)),
    overShortCents: closed.length === 0 ? null : sumCents(closed.map((r) => r.overShortCents ?? 0)),
    firstReceiptNumber: sorted.find((r) => r.firstReceiptNumber)?.firstReceiptNumber ?? null,
    lastReceiptNumber: sorted.findLast((r) => r.lastReceiptNumber)?.lastReceiptNumber ?? null,
    receiptRanges: sorted.map((r) => ({ registerNumber: r.registerNumber, first: r.firstReceiptNumber, last: r.lastReceiptNumber })),
  };
}

/* ───────────────────────────── printing ───────────────────────────── */

/**
 * The financial services' lines of a report (label, signed minor units as they move the drawer; fees as earned):
 * "Checks cashed out (n)", "Transfers in (n)", "Bill payments in (n)", "Transfers canceled out (n)", "Service fees".
 * None when the shift had no service (the report reads as it did before financial services).
 */
export function serviceCashLines(s: ServiceCash | undefined): [label: string, cents: number][] {
  if (!s) return [];
  const lines: [string, number][] = [];
  if (s.checksCashed.count > 0) lines.push([`Checks cashed out (${s.checksCashed.count})`, -s.checksCashed.amountCents]);
  if (s.transfersIn.count > 0) lines.push([`Transfers in (${s.transfersIn.count})`, s.transfersIn.amountCents]);
  if (s.billPaymentsIn.count > 0) lines.push([`Bill payments in (${s.billPaymentsIn.count})`, s.billPaymentsIn.amountCents]);
  if (s.transfersCanceled.count > 0) lines.push([`Transfers canceled out (${s.transfersCanceled.count})`, -s.transfersCanceled.amountCents]);
  if (lines.length > 0) lines.push(['Service fees', s.feesCents]);
  return lines;
}

/**
 * The sales figures of a report with what each one is, in order — the one wording the register's shift screen, its
 * printed X/Z-report and the back office's day report (screen, PDF, CSV) share (minor units, signed as they add up):
 *
 * - "Sales" — number of sales;
 * - "Gross sales (before discounts and tax)" — Σ unit price × quantity (with tax-inclusive prices: "…before discounts,
 *   tax-inclusive prices", as the tax is then part of the price);
 * - "Discounts" (negative);
 * - "Net sales (after discounts, excl. tax)" — net sales incl. tax less the tax;
 * - "Tax";
 * - "Net sales incl. tax" — what the customers owed (Σ order totals, tips not included);
 * - "Tips";
 * - "Refunds (returns made in this shift)" (negative; over several shifts: "Refunds (returns)").
 *
 * Counts come as `count`, money as `cents`.
 */
export function salesFigureLines(
  report: Pick<
    ZReport,
    'salesCount' | 'grossSalesCents' | 'discountsCents' | 'netSalesCents' | 'taxCents' | 'tipsCents' | 'refundsCents' | 'taxByRate'
  >,
  options: { shift?: boolean } = {},
): ({ label: string; count: number } | { label: string; cents: number })[] {
  const inclusive = report.taxByRate.some((t) => t.inclusive && t.taxCents !== 0);
  return [
    { label: 'Sales', count: report.salesCount },
    {
      label: inclusive ? 'Gross sales (before discounts, tax-inclusive prices)' : 'Gross sales (before discounts and tax)',
      cents: report.grossSalesCents,
    },
    { label: 'Discounts', cents: -report.discountsCents },
    { label: 'Net sales (after discounts, excl. tax)', cents: report.netSalesCents - report.taxCents },
    { label: 'Tax', cents: report.taxCents },
    { label: 'Net sales incl. tax', cents: report.netSalesCents },
    { label: 'Tips', cents: report.tipsCents },
    { label: options.shift === false ? 'Refunds (returns)' : 'Refunds (returns made in this shift)', cents: -report.refundsCents },
  ];
}

/**
 * A report as label/value rows, the one layout every output uses — the back office's PDF and CSV, the register's
 * screen and its receipt printer: money formatted in `currency` (via {@link formatMoney}), counts as numbers, one row
 * per tender, rail, card brand and tax rate. `section` rows (value '') head each part.
 */
export function reportLines(
  title: string,
  report: Omit<ReportTotals, 'currency'> & {
    currency: string;
    kind?: 'x' | 'z';
    registerNumber?: number;
    openedAt?: string;
    closedAt?: string | null;
  },
): { label: string; value: string }[] {
  const money = (c: number | null) => (c === null ? '—' : formatMoney(c, report.currency).replace(/\u00a0/g, ' '));
  const rows: { label: string; value: string }[] = [{ label: title, value: '' }];
  if (report.registerNumber !== undefined) rows.push({ label: 'Register', value: `R${report.registerNumber}` });
  if (report.openedAt) rows.push({ label: 'Opened', value: report.openedAt });
  if (report.closedAt !== undefined) rows.push({ label: 'Closed', value: report.closedAt ?? 'open (X-report)' });
  rows.push(
    { label: 'Sales', value: '' },
    ...salesFigureLines(report, { shift: report.kind !== undefined }).map((l) =>
      'count' in l ? { label: l.label === 'Sales' ? 'Number of sales' : l.label, value: String(l.count) } : { label: l.label, value: money(l.cents) },
    ),
    { label: 'Voids', value: `${report.voids.count} / ${money(report.voids.amountCents)}` },
    { label: 'First receipt', value: report.firstReceiptNumber ?? '—' },
    { label: 'Last receipt', value: report.lastReceiptNumber ?? '—' },
    { label: 'Tax by rate', value: '' },
    ...report.taxByRate.map((t) => ({
      label: `${t.name} ${t.basisPoints / 100}%${t.inclusive ? ' incl.' : ''}`,
      value: `${money(t.taxCents)} on ${money(t.taxableCents)}`,
    })),
    { label: 'By tender', value: '' },
    ...Object.entries(report.byTender).map(([k, v]) => ({ label: `${k} (${v.count})`, value: money(v.amountCents) })),
    { label: 'By rail', value: '' },
    ...Object.entries(report.byRail).map(([k, v]) => ({ label: `${k} (${v.count})`, value: money(v.amountCents) })),
    { label: 'Card by brand', value: '' },
    ...Object.entries(report.cardByBrand).map(([k, v]) => ({ label: `${k} (${v.count})`, value: money(v.amountCents) })),
    { label: 'Cash drawer', value: '' },
    { label: 'Opening float', value: money(report.openingFloatCents) },
    { label: 'Cash sales', value: money(report.cashSalesCents) },
    { label: 'Paid in', value: money(report.paidInCents) },
    { label: 'Paid out', value: money(report.paidOutCents) },
    { label: 'No-sale opens', value: String(report.noSaleCount) },
    ...serviceCashLines(report.services).map(([label, cents]) => ({ label, value: money(cents) })),
    { label: 'Expected cash', value: money(report.expectedCashCents) },
    { label: 'Counted cash', value: money(report.countedCashCents) },
    { label: 'Over/short', value: money(report.overShortCents) },
  );
  return rows;
}
