/**
 * Payment rails and cheapest-rail routing. Pure: no I/O. The rail names are stable — the ledger's
 * `card_clearing:<rail>` accounts, the payments' `rail` field and the closeout's "totals by rail" all use them.
 *
 * A rail has a fee schedule (basis points + fixed minor units, optional cap; card rails a cheaper one for debit
 * cards), limits per payment, availability (enabled by the merchant, health up/down, online-only) and a settlement
 * time. {@link routePayment} picks the cheapest available rail for one payment, ties broken by faster settlement,
 * and explains every candidate. Defaults and their reasons: docs/decisions/0050-payment-rails-routing-and-payouts.md.
 */
import { z } from 'zod';
import { MAX_AMOUNT_CENTS, mulDivHalfEven } from './money.ts';

/** Every rail, in display order. Stable names (ledger accounts, reports, closeout totals by rail). */
export const RAIL_NAMES = ['card_present', 'card_not_present', 'apple_pay', 'google_pay', 'ach', 'instant_bank', 'cash', 'check'] as const;
/** One rail's name. */
export type RailName = (typeof RAIL_NAMES)[number];

/** Rails whose fee depends on the card's funding (credit vs debit): they carry a `debitFee`. */
export const CARD_RAILS: readonly RailName[] = ['card_present', 'card_not_present', 'apple_pay', 'google_pay'];

/** Largest basis points of a fee schedule (100 % of the payment). */
export const MAX_FEE_BASIS_POINTS = 10_000;
/** Longest settlement time a rail may declare: 30 days, in hours. */
export const MAX_SETTLEMENT_HOURS = 720;

/** A fee schedule: `amount × basisPoints / 10 000` (half-even) + `fixedCents`, at most `capCents` when set. Minor units. */
export const feeScheduleSchema = z.strictObject({
  basisPoints: z.int().min(0).max(MAX_FEE_BASIS_POINTS).describe('Percentage part, basis points (100 = 1 %).'),
  fixedCents: z.int().min(0).max(MAX_AMOUNT_CENTS).describe('Fixed part per payment, minor units.'),
  capCents: z.int().min(0).max(MAX_AMOUNT_CENTS).nullable().describe('Largest fee per payment (minor units), or null for no cap.'),
});
/** See {@link feeScheduleSchema}. */
export type FeeSchedule = z.infer<typeof feeScheduleSchema>;

/** One rail as a merchant has it configured (`GET /api/pos/rails`). */
export const railConfigSchema = z.strictObject({
  rail: z.enum(RAIL_NAMES),
  enabled: z.boolean().describe('The merchant takes payments on this rail.'),
  status: z.enum(['up', 'down']).describe('Health: a rail that is down is skipped by routing.'),
  onlineOnly: z.boolean().describe('Needs the network: skipped when the register is offline.'),
  fee: feeScheduleSchema.describe('Fee of a payment (credit cards, wallets, bank transfers…).'),
  debitFee: feeScheduleSchema.nullable().describe('Fee of a debit or prepaid card on a card rail; null uses `fee`.'),
  minCents: z.int().min(0).max(MAX_AMOUNT_CENTS).describe('Smallest payment on this rail (minor units).'),
  maxCents: z.int().min(1).max(MAX_AMOUNT_CENTS).describe('Largest payment on this rail (minor units).'),
  settlementHours: z.int().min(0).max(MAX_SETTLEMENT_HOURS).describe('Hours from capture until the money is settled to the bank; 0 = at once.'),
});
/** See {@link railConfigSchema}. */
export type RailConfig = z.infer<typeof railConfigSchema>;

const fee = (basisPoints: number, fixedCents: number, capCents: number | null = null): FeeSchedule => ({ basisPoints, fixedCents, capCents });
const rail = (
  name: RailName,
  f: FeeSchedule,
  debitFee: FeeSchedule | null,
  onlineOnly: boolean,
  settlementHours: number,
  maxCents = MAX_AMOUNT_CENTS,
  minCents = 0,
): RailConfig => ({
  rail: name,
  enabled: true,
  status: 'up',
  onlineOnly,
  fee: f,
  debitFee,
  minCents,
  maxCents,
  settlementHours,
});

/**
 * The rails every merchant starts with (docs/decisions/0050-payment-rails-routing-and-payouts.md): card present 2.6 % + 10,
 * debit 1.5 % + 10; card not present 2.9 % + 30, debit 2.0 % + 30; wallets 2.7 % + 15 (debit 1.8 % + 15); ACH
 * 0.8 % capped at 5.00, at most 100 000.00, 3 days; instant bank (RTP/FedNow) flat 7.50, at most 500 000.00, at once;
 * cash and check free. Cards settle in 2 days. Card present works offline (store and forward); the others online only.
 */
export const DEFAULT_RAILS: readonly RailConfig[] = [
  rail('card_present', fee(260, 10), fee(150, 10), false, 48),
  rail('card_not_present', fee(290, 30), fee(200, 30), true, 48),
  rail('apple_pay', fee(270, 15), fee(180, 15), true, 48),
  rail('google_pay', fee(270, 15), fee(180, 15), true, 48),
  rail('ach', fee(80, 0, 500), null, true, 72, 10_000_000, 100),
  rail('instant_bank', fee(0, 750), null, true, 0, 50_000_000, 100),
  rail('cash', fee(0, 0), null, false, 0),
  rail('check', fee(0, 0), null, false, 72),
];

/** How the payer pays. `any_online` = the payer may use any online rail (e.g. a pay link open to card and bank). */
export const ROUTING_METHODS = ['card', 'apple_pay', 'google_pay', 'bank', 'cash', 'check', 'any_online'] as const;
/** See {@link ROUTING_METHODS}. */
export type RoutingMethod = (typeof ROUTING_METHODS)[number];
/** A card's funding: debit and prepaid cards take a rail's `debitFee`. */
export type CardFunding = 'credit' | 'debit' | 'prepaid' | 'unknown';

/** The rails that can carry a payment of `method`, in order of preference at equal fee and settlement. */
export function railsForMethod(method: RoutingMethod, present: boolean): RailName[] {
  switch (method) {
    case 'card':
      return present ? ['card_present'] : ['card_not_present'];
    case 'apple_pay':
      // A wallet tapped on the terminal is also a card-present payment.
      return present ? ['apple_pay', 'card_present'] : ['apple_pay', 'card_not_present'];
    case 'google_pay':
      return present ? ['google_pay', 'card_present'] : ['google_pay', 'card_not_present'];
    case 'bank':
      return ['ach', 'instant_bank'];
    case 'cash':
      return ['cash'];
    case 'check':
      return ['check'];
    case 'any_online':
      return ['card_not_present', 'ach', 'instant_bank'];
  }
}

/** The fee (minor units) of `amountCents` under `schedule`: half-even percentage + fixed part, at most the cap. */
export function feeCents(schedule: FeeSchedule, amountCents: number): number {
  const raw = mulDivHalfEven(amountCents, schedule.basisPoints, 10_000) + schedule.fixedCents;
  return schedule.capCents === null ? raw : Math.min(raw, schedule.capCents);
}

/** The fee schedule a payment of `funding` pays on `config`: the debit one for debit/prepaid cards on a card rail. */
export function scheduleFor(config: RailConfig, funding: CardFunding): FeeSchedule {
  return (funding === 'debit' || funding === 'prepaid') && config.debitFee ? config.debitFee : config.fee;
}

/** A merchant's rails: the defaults with its overrides (by rail name) applied; every rail once, in {@link RAIL_NAMES} order. */
export function mergeRails(overrides: readonly RailConfig[]): RailConfig[] {
  const byName = new Map(overrides.map((r) => [r.rail, r]));
  return DEFAULT_RAILS.map((d) => byName.get(d.rail) ?? d);
}

/** One payment to route. */
export interface RoutingRequest {
  method: RoutingMethod;
  /** Card funding (cards and wallets); default `unknown` (= credit fees). */
  funding?: CardFunding;
  /** Card present (terminal, in person) vs not (pay page, keyed). Default: false. */
  present?: boolean;
  /** The payment's amount, minor units (≥ 0). */
  amountCents: number;
  /** The merchant's rails ({@link mergeRails}); rails missing here are not candidates. */
  rails: readonly RailConfig[];
  /** The device deciding is online; offline, online-only rails are skipped. */
  online: boolean;
}

/** Why a candidate was or was not chosen. */
export type CandidateReason = 'chosen' | 'costlier' | 'slower_settlement' | 'disabled' | 'down' | 'offline' | 'below_minimum' | 'over_limit';

/** One rail considered for a payment: its fee (minor units) and why it was (not) chosen. */
export const routingCandidateSchema = z.strictObject({
  rail: z.enum(RAIL_NAMES),
  feeCents: z.int().min(0).describe('What this rail would cost for this payment (minor units).'),
  settlementHours: z.int().min(0),
  available: z.boolean(),
  reason: z.enum(['chosen', 'costlier', 'slower_settlement', 'disabled', 'down', 'offline', 'below_minimum', 'over_limit']),
});
/** See {@link routingCandidateSchema}. */
export type RoutingCandidate = z.infer<typeof routingCandidateSchema>;

/** The routing decision stored on a payment: the chosen rail (null: none available), every candidate, a sentence. */
export const routingDecisionSchema = z.strictObject({
  chosen: z.enum(RAIL_NAMES).nullable(),
  feeCents: z.int().min(0).describe('Fee of the chosen rail (0 when none).'),
  candidates: z.array(routingCandidateSchema),
  reason: z.string().describe('Why, in one sentence.'),
});
/** See {@link routingDecisionSchema}. */
export type RoutingDecision = z.infer<typeof routingDecisionSchema>;

function unavailableReason(config: RailConfig, amountCents: number, online: boolean): CandidateReason | undefined {
  if (!config.enabled) return 'disabled';
  if (config.status === 'down') return 'down';
  if (config.onlineOnly && !online) return 'offline';
  if (amountCents < config.minCents) return 'below_minimum';
  if (amountCents > config.maxCents) return 'over_limit';
  return undefined;
}

/**
 * Routes one payment: among the rails that can carry `method`, skips those disabled, down, online-only
 * while offline, or outside their limits, and chooses the cheapest (fee in minor units); ties go to the faster
 * settlement, then to {@link railsForMethod}'s order. Every candidate keeps its fee and its reason. Pure, O(rails).
 * @returns `chosen: null` when no rail is available (the reason says why)
 */
export function routePayment(request: RoutingRequest): RoutingDecision {
  const funding = request.funding ?? 'unknown';
  const names = railsForMethod(request.method, request.present ?? false);
  const candidates: RoutingCandidate[] = [];
  let best: RoutingCandidate | undefined;
  for (const name of names) {
    const config = request.rails.find((r) => r.rail === name);
    if (!config) continue;
    const cost = feeCents(scheduleFor(config, funding), request.amountCents);
    const skip = unavailableReason(config, request.amountCents, request.online);
    const candidate: RoutingCandidate = {
      rail: name,
      feeCents: cost,
      settlementHours: config.settlementHours,
      available: skip === undefined,
      reason: skip ?? 'costlier',
    };
    candidates.push(candidate);
    if (skip === undefined && (!best || cost < best.feeCents || (cost === best.feeCents && config.settlementHours < best.settlementHours)))
      best = candidate;
  }
  if (!best) {
    const why = candidates.map((c) => `${c.rail} ${c.reason.replace('_', ' ')}`).join(', ');
    return { chosen: null, feeCents: 0, candidates, reason: `No rail can take this ${request.method} payment${why ? ` (${why})` : ''}.` };
  }
  for (const c of candidates) {
    if (c === best) c.reason = 'chosen';
    else if (c.available && c.feeCents === best.feeCents) c.reason = 'slower_settlement';
  }
  const others = candidates.filter((c) => c !== best);
  const reason =
    others.length === 0
      ? `${best.rail} is the only rail for this payment (fee ${best.feeCents}).`
      : `${best.rail} is the cheapest available rail (fee ${best.feeCents}); ${others.map((c) => `${c.rail} ${c.available ? `fee ${c.feeCents}${c.reason === 'slower_settlement' ? ', slower settlement' : ''}` : c.reason.replace('_', ' ')}`).join('; ')}.`;
  return { chosen: best.rail, feeCents: best.feeCents, candidates, reason };
}
