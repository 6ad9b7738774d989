/**
 * Money in integer minor units (ISO 4217), e.g. USD cents. Never floats.
 *
 * The guard bound is Number.MAX_SAFE_INTEGER: beyond it integer arithmetic in JS silently loses precision,
 * so an amount there is a bug, not a big sale.
 */

/** An amount in ISO 4217 minor units (cents for USD). Always an integer. */
export type Cents = number;

/**
 * Upper bound of every amount of an order, its lines, payments, tips and refunds, of invoices and pay requests, in
 * minor units (amountCents 1 … 99 999 999, i.e. $999,999.99). Every zod schema of an amount uses it, so a
 * schema-valid document never carries a figure whose arithmetic could leave the safe-integer range.
 */
export const MAX_AMOUNT_CENTS = 99_999_999;

/** Thrown when a value is not a safe integer amount of minor units. */
export class MoneyError extends RangeError {
  override name = 'MoneyError';
}

/**
 * Checks that `value` is a safe integer number of minor units.
 * @throws MoneyError when it is not an integer or lies outside ±Number.MAX_SAFE_INTEGER.
 */
export function assertCents(value: number, label = 'amount'): asserts value is Cents {
  if (!Number.isSafeInteger(value)) {
    throw new MoneyError(`${label} must be a safe integer number of minor units, got ${String(value)}`);
  }
}

/**
 * The exact product `a × b` of two integers (an amount times a quantity, basis points, …), computed with BigInt.
 * Units: whatever `a` carries (cents × count = cents).
 * @throws MoneyError when an operand or the product is not a safe integer (a float product would silently round).
 */
export function multiplyCents(a: number, b: number): Cents {
  assertCents(a, 'multiplicand');
  assertCents(b, 'multiplier');
  const product = BigInt(a) * BigInt(b);
  if (product > BigInt(Number.MAX_SAFE_INTEGER) || product < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MoneyError(`product ${product} of ${a} × ${b} is not a safe integer number of minor units`);
  }
  return Number(product);
}

/**
 * `amount × factor / denominator`, rounded half-even once, with the product kept exact in BigInt: what a percentage
 * discount (`bp / 10 000`), a tax line (`bp / 10 000` or `bp / (10 000 + bp)`) or a refund share (`k / n`) needs.
 * All arguments are integers (minor units, basis points, counts); `denominator` > 0.
 * @throws MoneyError on non-integer input, a non-positive denominator or a result outside the safe-integer range.
 */
export function mulDivHalfEven(amount: number, factor: number, denominator: number): Cents {
  assertCents(amount, 'amount');
  assertCents(factor, 'factor');
  assertCents(denominator, 'denominator');
  return divideHalfEven(BigInt(amount) * BigInt(factor), BigInt(denominator));
}

/**
 * Integer division `numerator / denominator` rounded half to even (banker's rounding), as used for every tax line
 *. Both arguments are integers; `denominator` > 0. Computed with BigInt so that products such as
 * `amountCents * basisPoints` never lose precision.
 * @throws MoneyError on non-integer input or a non-positive denominator.
 */
export function divideHalfEven(numerator: number | bigint, denominator: number | bigint): Cents {
  const n = BigInt(numerator);
  const d = BigInt(denominator);
  if (d <= 0n) throw new MoneyError('denominator must be positive');
  const negative = n < 0n;
  const abs = negative ? -n : n;
  let q = abs / d;
  const r = abs % d;
  const twice = r * 2n;
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  const result = Number(negative ? -q : q);
  assertCents(result, 'rounded amount');
  return result;
}

/**
 * Splits `totalCents` across `weights` in proportion, with the largest-remainder method, so that the parts are
 * integers that always add up to exactly `totalCents`. Zero weights get zero (unless every weight is zero, in which
 * case everything goes to the first part). Ties in remainders go to the earlier index.
 *
 * Shapes: `weights` are non-negative integers (e.g. line amounts in cents); returns one part per weight.
 * @throws MoneyError on non-integer input or a negative weight.
 */
export function allocateProRata(totalCents: Cents, weights: readonly number[]): Cents[] {
  assertCents(totalCents, 'total');
  if (weights.length === 0) return [];
  let weightSum = 0n;
  for (const w of weights) {
    assertCents(w, 'weight');
    if (w < 0) throw new MoneyError('weights must not be negative');
    weightSum += BigInt(w);
  }
  if (weightSum === 0n) return weights.map((_, i) => (i === 0 ? totalCents : 0));
  const total = BigInt(totalCents);
  const sign = total < 0n ? -1n : 1n;
  const absTotal = total * sign;
  const parts = weights.map((w) => (absTotal * BigInt(w)) / weightSum);
  const remainders = weights.map((w, i) => ({ i, r: (absTotal * BigInt(w)) % weightSum }));
  let left = absTotal - parts.reduce((a, b) => a + b, 0n);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left <= 0n) break;
    parts[i] = (parts[i] ?? 0n) + 1n;
    left -= 1n;
  }
  return parts.map((p) => Number(p * sign));
}

/** Sum of integer amounts, guarded. @throws MoneyError when a term or the result is not a safe integer. */
export function sumCents(values: Iterable<number>): Cents {
  let total = 0;
  for (const v of values) {
    assertCents(v);
    total += v;
  }
  assertCents(total, 'sum');
  return total;
}

/** Number of minor units in one major unit for the currencies we support (ISO 4217 exponent). */
export function minorUnitExponent(currency: string): number {
  return ['JPY', 'KRW', 'VND', 'CLP', 'ISK'].includes(currency.toUpperCase()) ? 0 : 2;
}

/**
 * One `Intl.NumberFormat` per locale and currency: building one costs far more than formatting with it (the
 * register formats every visible tile's and cart line's price on each render).
 */
const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * Formats minor units for people, e.g. `formatMoney(1234, 'USD')` → `$12.34`. Display only: never parse this back.
 * @throws RangeError when `currency` is not an ISO 4217 code Intl knows (as `Intl.NumberFormat` does).
 */
export function formatMoney(cents: Cents, currency = 'USD', locale = 'en-US'): string {
  const exponent = minorUnitExponent(currency);
  const key = `${locale}|${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: exponent });
    moneyFormats.set(key, format);
  }
  return format.format(cents / 10 ** exponent);
}
