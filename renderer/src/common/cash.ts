/**
 * Cash entry. The cashier types dollars ("20", "20.5", "$1,020.05"); we parse the string into integer minor units
 * without ever going through a float, so "0.29" is 29 cents and not 28.999….
 */
import { minorUnitExponent, type Cents } from '../../../core/index.ts';

/** Parses a typed amount into minor units; undefined when it is not a plain non-negative amount. */
export function parseCashInput(text: string, currency = 'USD'): Cents | undefined {
  const exponent = minorUnitExponent(currency);
  const cleaned = text
    .trim()
    .replace(/^[$€£¥]/, '')
    .replace(/,/g, '')
    .trim();
  if (cleaned === '') return undefined;
  const match = /^(\d{0,9})(?:\.(\d*))?$/.exec(cleaned);
  if (!match) return undefined;
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  if (whole === '' && fraction === '') return undefined;
  if (fraction.length > exponent) return undefined;
  const cents = Number(whole || '0') * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/** Minor units back to what a cashier would type, e.g. 2050 → "20.50" (for prefilled inputs, not display). */
export function centsToInput(cents: Cents, currency = 'USD'): string {
  const exponent = minorUnitExponent(currency);
  if (exponent === 0) return String(cents);
  const unit = 10 ** exponent;
  return `${Math.floor(cents / unit)}.${String(cents % unit).padStart(exponent, '0')}`;
}

/**
 * Quick-tender suggestions: the exact amount, then the next round $5, $10 and $20 at or above it, topped up with the
 * next $50 and $100 when those coincide (duplicates dropped, ascending, at most four).
 */
export function quickTenders(dueCents: Cents, currency = 'USD'): Cents[] {
  const unit = 10 ** minorUnitExponent(currency);
  const roundUp = (step: number) => Math.ceil(dueCents / step) * step;
  const amounts = [dueCents, roundUp(5 * unit), roundUp(10 * unit), roundUp(20 * unit), roundUp(50 * unit), roundUp(100 * unit)];
  return [...new Set(amounts)]
    .filter((a) => a > 0)
    .sort((a, b) => a - b)
    .slice(0, 4);
}
