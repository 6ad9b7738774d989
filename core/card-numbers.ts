/**
 * Card numbers (PANs) in text people type or tokens apps send: found, masked, refused (issue 11 "No card number, CVC
 * or secret in the database, the logs or the audit trail"; PCI DSS v4.0 req. 3.3–3.4: at most the first six and last
 * four digits of a PAN may be kept).
 *
 * A **candidate** is a run of 13–19 digits (ISO/IEC 7812-1 PAN lengths) in which single spaces or dashes may separate
 * digit groups ("4242 4242 4242 4242", "4242-4242-4242-4242"), aligned to whole groups of a longer run, whose Luhn
 * check digit is right (ISO/IEC 7812-1 Annex B). A group of more than 19 digits with no separator is searched window
 * by window (a PAN glued to other digits). Masking replaces every digit of a candidate but its first six and last
 * four with `*`, and — in a text holding a card number — the digits of a "cvc 987" / "cvv: 123" / "csc 1234" phrase.
 * Masking keeps the length and everything that is not such a digit, and runs until no candidate is left.
 */

/** Fewest digits of a PAN (ISO/IEC 7812-1). */
export const PAN_MIN_DIGITS = 13;
/** Most digits of a PAN (ISO/IEC 7812-1). */
export const PAN_MAX_DIGITS = 19;

/** The character a masked digit becomes. */
export const MASK_CHAR = '*';

/** True when the digit string `digits` (0-9 only) passes the Luhn mod-10 check (ISO/IEC 7812-1 Annex B). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A card number found in a text: the UTF-16 index of each of its digits, in order. */
export interface CardNumberMatch {
  /** Index of each digit of the PAN in the text (separators between them are not listed). */
  digitIndexes: number[];
}

/** Digit groups joined by single spaces or dashes: the runs a PAN is looked for in. */
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;

/**
 * Whether `text` has a run of at least {@link PAN_MIN_DIGITS} digits that single spaces or dashes may split (what
 * {@link DIGIT_RUN} matches, counted in digits): the precondition of any candidate. One pass over the characters with
 * no allocation, so the ids, names and amounts every schema checks — almost all with no such run — skip the
 * regular expression and the prefix sums.
 */
function hasLongDigitRun(text: string): boolean {
  let digits = 0;
  let afterSeparator = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      if (++digits >= PAN_MIN_DIGITS) return true;
      afterSeparator = false;
    } else if ((code === 32 || code === 45) && digits > 0 && !afterSeparator) {
      // A single space or dash between digits continues the run; a second one in a row ends it.
      afterSeparator = true;
    } else {
      digits = 0;
      afterSeparator = false;
    }
  }
  return false;
}

/**
 * Every card-number candidate of `text` (see the module comment), possibly overlapping. Pure; linear in the length of
 * the text (each candidate's Luhn sum comes from prefix sums in O(1); at most 7 lengths are tried per start).
 */
export function findCardNumbers(text: string): CardNumberMatch[] {
  const found: CardNumberMatch[] = [];
  if (!hasLongDigitRun(text)) return found;
  for (const run of text.matchAll(DIGIT_RUN)) {
    // The run's digits (value and index in the text) and where each group starts among them.
    const at: number[] = [];
    const value: number[] = [];
    const groupStarts: number[] = [0];
    for (let i = 0; i < run[0].length; i++) {
      const code = run[0].charCodeAt(i);
      if (code >= 48 && code <= 57) {
        at.push(run.index + i);
        value.push(code - 48);
      } else groupStarts.push(at.length);
    }
    if (at.length < PAN_MIN_DIGITS) continue;
    // plain[p][i] / doubled[p][i]: sum over digits j < i with j % 2 === p of d, and of Luhn's doubled d.
    const plain = [new Array<number>(at.length + 1).fill(0), new Array<number>(at.length + 1).fill(0)];
    const doubled = [new Array<number>(at.length + 1).fill(0), new Array<number>(at.length + 1).fill(0)];
    for (let j = 0; j < at.length; j++) {
      for (const p of [0, 1]) {
        const mine = j % 2 === p;
        plain[p]![j + 1] = plain[p]![j]! + (mine ? value[j]! : 0);
        doubled[p]![j + 1] = doubled[p]![j]! + (mine ? (value[j]! * 2 > 9 ? value[j]! * 2 - 9 : value[j]! * 2) : 0);
      }
    }
    // Digits [start, end) pass Luhn: the last digit and every second one before it count plain, the others doubled.
    const luhn = (start: number, end: number) => {
      const q = (end - 1) % 2;
      return (plain[q]![end]! - plain[q]![start]! + doubled[1 - q]![end]! - doubled[1 - q]![start]!) % 10 === 0;
    };
    const check = (start: number, end: number) => {
      if (luhn(start, end)) found.push({ digitIndexes: at.slice(start, end) });
    };
    const groupEnds = [...groupStarts.slice(1), at.length];
    for (let g = 0; g < groupStarts.length; g++) {
      const start = groupStarts[g]!;
      if (groupEnds[g]! - start > PAN_MAX_DIGITS) {
        // A long unbroken group: every window of PAN length inside it.
        for (let s0 = start; s0 + PAN_MIN_DIGITS <= groupEnds[g]!; s0++) {
          for (let len = PAN_MIN_DIGITS; len <= PAN_MAX_DIGITS && s0 + len <= groupEnds[g]!; len++) check(s0, s0 + len);
        }
        continue;
      }
      // Whole groups from this one on, while they hold at most 19 digits.
      for (let h = g; h < groupEnds.length && groupEnds[h]! - start <= PAN_MAX_DIGITS; h++) {
        if (groupEnds[h]! - start >= PAN_MIN_DIGITS) check(start, groupEnds[h]!);
      }
    }
  }
  return found;
}

/** True when `text` holds a card number (a Luhn-valid run of 13–19 digits, see {@link findCardNumbers}). */
export function containsCardNumber(text: string): boolean {
  return findCardNumbers(text).length > 0;
}

/** "cvc 987", "CVV: 123", "cvv2 #1234", "csc 123", "cid 1234", "security code 123": the digits are the code. */
const CVC_PHRASE = /\b(?:cvc2?|cvv2?|csc|cid|security\s+code)\b\s*[:#=.-]?\s*(\d{3,4})\b/gi;

/**
 * `text` with each card number masked to its first six and last four digits (`424242******4242`, separators kept),
 * and, when it held a card number, the digits of every card-security-code phrase masked (`cvc ***`). Same length as
 * `text`; a text without a card number comes back unchanged (the same string).
 */
export function maskCardNumbers(text: string): string {
  let matches = findCardNumbers(text);
  if (matches.length === 0) return text;
  const chars = text.split(''); // UTF-16 code units, as the match indexes count them
  // CVC phrases, once: the text held a card number.
  for (const m of text.matchAll(CVC_PHRASE)) {
    const code = m[1]!;
    const at = m.index + m[0].length - code.length;
    for (let i = 0; i < code.length; i++) chars[at + i] = MASK_CHAR;
  }
  // Mask until no candidate is left: digits kept by one match may join others into a new one.
  while (matches.length > 0) {
    for (const { digitIndexes } of matches) {
      for (let k = 6; k < digitIndexes.length - 4; k++) chars[digitIndexes[k]!] = MASK_CHAR;
    }
    matches = findCardNumbers(chars.join(''));
  }
  return chars.join('');
}
