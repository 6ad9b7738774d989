/**
 * Tip-outs and tip pools of a restaurant's shift: who keeps which part of the tips taken. Pure.
 *
 * Each rule takes a share of the tips of one role (e.g. servers give 3 % of their tips… expressed in basis points of
 * their tips) and shares it among the staff of the receiving roles who worked the shift, by minutes worked (the
 * largest-remainder rule, core/money.ts `allocateProRata`). Rules apply to the tips each person took, not to what
 * they received from another rule, so the order of rules does not matter. When nobody of the receiving roles worked,
 * the rule takes nothing. Every cent is accounted for: what everyone ends with adds up to the tips taken.
 */
import { allocateProRata, mulDivHalfEven, type Cents } from './money.ts';

/** One staff member's shift: role, tips taken (cents) and minutes worked. */
export interface TipShift {
  staffId: string;
  role: string;
  tipsCents: Cents;
  minutesWorked: number;
}

/** A tip-out rule: `basisPoints` of each `fromRole` member's tips go to the `toRoles` members, by minutes worked. */
export interface TipOutRule {
  fromRole: string;
  basisPoints: number;
  toRoles: readonly string[];
}

/** What one staff member ends the shift with. */
export interface TipShare {
  staffId: string;
  role: string;
  tipsCents: Cents;
  /** Given to others by the rules. */
  tippedOutCents: Cents;
  /** Received from others' tip-outs. */
  receivedCents: Cents;
  /** tips − tipped out + received. */
  finalCents: Cents;
}

/** Thrown for a rule or a shift that cannot be applied. */
export class TipPoolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TipPoolError';
  }
}

/**
 * Applies `rules` to the shift's tips.
 * @returns one share per shift, in the order given
 * @throws TipPoolError for basis points outside 0–10 000, rules of one role giving away more than 100 % of its tips, a
 *   rule that gives a role to itself, negative or fractional tips or minutes, or the same staff member twice.
 */
export function distributeTips(shifts: readonly TipShift[], rules: readonly TipOutRule[]): TipShare[] {
  const seen = new Set<string>();
  for (const s of shifts) {
    if (seen.has(s.staffId)) throw new TipPoolError(`staff ${s.staffId} is listed twice`);
    seen.add(s.staffId);
    if (!Number.isSafeInteger(s.tipsCents) || s.tipsCents < 0) throw new TipPoolError(`tips of ${s.staffId} must be whole cents ≥ 0`);
    if (!Number.isSafeInteger(s.minutesWorked) || s.minutesWorked < 0) throw new TipPoolError(`minutes of ${s.staffId} must be a whole number ≥ 0`);
  }
  for (const r of rules) {
    if (!Number.isInteger(r.basisPoints) || r.basisPoints < 0 || r.basisPoints > 10_000) {
      throw new TipPoolError(`a tip-out is 0 to 10000 basis points of the tips, got ${r.basisPoints}`);
    }
    if (r.toRoles.includes(r.fromRole)) throw new TipPoolError(`role ${r.fromRole} cannot tip out to itself`);
  }
  const byRole = new Map<string, number>();
  for (const r of rules) byRole.set(r.fromRole, (byRole.get(r.fromRole) ?? 0) + r.basisPoints);
  for (const [role, bp] of byRole) if (bp > 10_000) throw new TipPoolError(`the rules of ${role} give away ${bp / 100} % of the tips; at most 100 %`);
  // Each giver's rules are rounded on their running sum (round(tips × all basis points so far) less what was given),
  // so a person's tip-outs never add up to more than the rules' share of their tips, whatever the rounding.
  const out = shifts.map((s) => ({ ...s, tippedOutCents: 0, receivedCents: 0, basisPointsGiven: 0 }));
  for (const rule of rules) {
    const receivers = out.filter((s) => rule.toRoles.includes(s.role) && s.minutesWorked > 0);
    if (receivers.length === 0) continue;
    const givers = out.filter((s) => s.role === rule.fromRole);
    const given = givers.map((g) => {
      const after = g.basisPointsGiven + rule.basisPoints;
      const amount = mulDivHalfEven(g.tipsCents, after, 10_000) - mulDivHalfEven(g.tipsCents, g.basisPointsGiven, 10_000);
      g.basisPointsGiven = after;
      return amount;
    });
    const total = given.reduce((a, b) => a + b, 0);
    givers.forEach((g, i) => (g.tippedOutCents += given[i]!));
    const shares = allocateProRata(
      total,
      receivers.map((r) => r.minutesWorked),
    );
    receivers.forEach((r, i) => (r.receivedCents += shares[i]!));
  }
  return out.map((s) => ({
    staffId: s.staffId,
    role: s.role,
    tipsCents: s.tipsCents,
    tippedOutCents: s.tippedOutCents,
    receivedCents: s.receivedCents,
    finalCents: s.tipsCents - s.tippedOutCents + s.receivedCents,
  }));
}
