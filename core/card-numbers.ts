/**
 * Card numbers (PANs) in text people type or tokens apps send: found, masked, refused (PCI DSS v4.0 req. 3.3–3.4: at
 * most the first six and last four digits of a PAN may be kept).
 *
 * The text is first **normalised for the scan** ({@link normalizeForCardScan}): each character in Unicode NFKC
 * (full-width `４２`, circled, superscript and other compatibility digits become `42`; NBSP and the other spaces a
 * plain space), every other decimal digit (Arabic-Indic, Devanagari, …) its value, and format characters (`\p{Cf}`:
 * zero-width space, soft hyphen, bidi controls) and combining marks dropped.
 *
 * A **candidate** is then a run of 13–19 digits (ISO/IEC 7812-1 PAN lengths) not starting with 0 (the major industry
 * identifier of a payment card is 1–9, and ids padded with zeros are no card) in which digit groups may be separated
 * by one to three {@link CARD_NUMBER_SEPARATORS} — white space (space, tab, newline), `-`, `.`, `/`, `_`, Unicode
 * dashes and minus — aligned to whole groups of a longer run, whose Luhn check digit is right (ISO/IEC 7812-1 Annex
 * B). A group of more than 19 digits with no separator is searched window by window (a PAN glued to other digits).
 * Masking replaces every digit of a candidate but its first six and last four with `*`, and — in a text holding a
 * card number — the digits of a "cvc 987" / "cvv: 123" / "csc 1234" phrase and a 3–4 digit code written right after
 * the card number with no label (`4242 4242 4242 4242 123`, `…4242, 12/29, 123`). Masking keeps the length (each UTF-16
 * unit of a masked character becomes one `*`) and everything that is not such a digit, and runs until no candidate is
 * left.
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
  /**
   * Index in the text of the character that holds each digit of the PAN (separators are not listed). A compatibility
   * character that stands for two digits (`⒇`) is listed for each.
   */
  digitIndexes: number[];
}

/**
 * The characters that may separate digit groups of a PAN, after normalisation: white space, `-`, `.`, `/`, `_`, the
 * Unicode dashes U+2010–U+2015 and the minus sign U+2212. One to three of them in a row join two groups.
 */
export const CARD_NUMBER_SEPARATORS = '\\s._/\\-\u2010-\u2015\u2212';
/** Most separator characters in a row between two groups of one PAN (`4242 - 4242`). */
const MAX_SEPARATOR_RUN = 3;

/** Digit groups joined by one to three separators: the runs a PAN is looked for in (normalised text). */
const DIGIT_RUN = new RegExp(`\\d+(?:[${CARD_NUMBER_SEPARATORS}]{1,${MAX_SEPARATOR_RUN}}\\d+)*`, 'g');
const SEPARATOR = new RegExp(`^[${CARD_NUMBER_SEPARATORS}]$`);
const ASCII_ONLY = /^[\x00-\x7F]*$/;
/** Characters that are (or NFKC turns into) digits: a text with fewer than 5 of them cannot spell 13 digits. */
const DIGIT_LIKE = /[\p{N}\p{So}]/gu;
const DROPPED = /^[\p{Cf}\p{M}]$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** The value 0–9 of the decimal digit `ch` (`\p{Nd}`; Unicode assigns them in runs of ten, one run of twenty). */
function decimalValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  let back = 0;
  while (back < 19 && DECIMAL_DIGIT.test(String.fromCodePoint(cp - back - 1))) back++;
  return back % 10;
}

/** A text as the scan reads it: the normalised text, and for each of its UTF-16 units the index it came from. */
export interface CardScanText {
  /** The normalised text (see the module comment): ASCII digits for every digit. */
  text: string;
  /** `origin[i]` is the index in the original text of the character that gave `text[i]`; absent when they are the same. */
  origin?: number[];
}

/**
 * `text` normalised for the card-number scan: per character Unicode NFKC, other decimal digits to ASCII, format
 * characters (`\p{Cf}`) and combining marks (`\p{M}`) dropped, with the index each unit came from. An ASCII text (or
 * one with fewer than five digit-like characters) is its own normalisation, at no cost.
 */
export function normalizeForCardScan(text: string): CardScanText {
  if (ASCII_ONLY.test(text)) return { text };
  DIGIT_LIKE.lastIndex = 0;
  let digitLike = 0;
  while (DIGIT_LIKE.exec(text) && ++digitLike < 5);
  if (digitLike < 5) return { text };
  let out = '';
  const origin: number[] = [];
  for (let i = 0; i < text.length;) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    if (!DROPPED.test(ch)) {
      let n = ch.normalize('NFKC');
      if (n.length <= 2 && DECIMAL_DIGIT.test(n) && !(n >= '0' && n <= '9')) n = String(decimalValue(n));
      out += n;
      for (let k = 0; k < n.length; k++) origin.push(i);
    }
    i += ch.length;
  }
  return { text: out, origin };
}

/**
 * Whether `text` (normalised) has a run of at least {@link PAN_MIN_DIGITS} digits that separators may split (what
 * {@link DIGIT_RUN} matches, counted in digits): the precondition of any candidate. One pass over the characters with
 * no allocation, so the ids, names and amounts every request carries — almost all with no such run — skip the
 * regular expression and the prefix sums.
 */
function hasLongDigitRun(text: string): boolean {
  let digits = 0;
  let separators = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      if (++digits >= PAN_MIN_DIGITS) return true;
      separators = 0;
    } else if (digits > 0 && separators < MAX_SEPARATOR_RUN && SEPARATOR.test(text[i]!)) {
      separators++;
    } else {
      digits = 0;
      separators = 0;
    }
  }
  return false;
}

/**
 * Every card-number candidate of `text` (see the module comment), possibly overlapping, with indexes into `text`.
 * Pure; linear in the length of the text (each candidate's Luhn sum comes from prefix sums in O(1); at most 7 lengths
 * are tried per start).
 */
export function findCardNumbers(text: string): CardNumberMatch[] {
  const scan = normalizeForCardScan(text);
  const found = findInNormalized(scan.text);
  if (!scan.origin) return found;
  return found.map((m) => ({ digitIndexes: m.digitIndexes.map((i) => scan.origin![i]!) }));
}

/** {@link findCardNumbers} on normalised text (indexes into it). */
function findInNormalized(text: string): CardNumberMatch[] {
  const found: CardNumberMatch[] = [];
  if (!hasLongDigitRun(text)) return found;
  for (const run of text.matchAll(DIGIT_RUN)) {
    // The run's digits (value and index in the text) and where each group starts among them.
    const at: number[] = [];
    const value: number[] = [];
    const groupStarts: number[] = [0];
    let inSeparator = false;
    for (let i = 0; i < run[0].length; i++) {
      const code = run[0].charCodeAt(i);
      if (code >= 48 && code <= 57) {
        at.push(run.index + i);
        value.push(code - 48);
        inSeparator = false;
      } else if (!inSeparator) {
        groupStarts.push(at.length);
        inSeparator = true;
      }
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
    // A PAN's first digit (its major industry identifier) is 1–9: `0000000000000` and ids padded with zeros are none.
    const check = (start: number, end: number) => {
      if (value[start] !== 0 && luhn(start, end)) found.push({ digitIndexes: at.slice(start, end) });
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
 * A code written right after a card number without a label, as people copy a card: `4242 4242 4242 4242 123`,
 * `4242424242424242, 12/29, 1234`, `… exp 12/2029 987`. From the PAN's last digit: one to three separators or
 * punctuation marks, an optional expiry (`MM/YY` or `MM/YYYY`, possibly after `exp`, `expiry`, `expires`,
 * `valid thru`) with its own separators, then 3 or 4 digits standing alone. Sticky: tried at one index only.
 */
const TRAILING_CODE =
  /[\s,;:/._-]{1,3}(?:(?:(?:exp(?:iry|ires|iration)?|valid\s+thru)\.?\s*[:#]?\s*)?(?:0[1-9]|1[0-2])\s?[/._-]\s?(?:\d{4}|\d{2})[\s,;:/._-]{1,3})?(\d{3,4})(?!\d)/iy;

/**
 * `text` with each card number masked to its first six and last four digits (`424242******4242`, separators kept),
 * and, when it held a card number, the digits of every card-security-code phrase masked (`cvc ***`) and of a code
 * written right after a card number without a label (`4242… 12/29 ***`; the expiry is kept). Same length as
 * `text` (every UTF-16 unit of a masked character becomes `*`); a text without a card number comes back unchanged
 * (the same string). Spellings the scan normalises (full-width digits, zero-width spaces between digits, …) are found
 * and masked in the original text.
 */
export function maskCardNumbers(text: string): string {
  let matches = findCardNumbers(text);
  if (matches.length === 0) return text;
  let current = text;
  const masked = new Set<number>();
  // CVC phrases, once: the text held a card number.
  const scan = normalizeForCardScan(text);
  const maskCode = (end: number, code: string) => {
    const at = end - code.length;
    for (let i = 0; i < code.length; i++) masked.add(scan.origin ? scan.origin[at + i]! : at + i);
  };
  for (const m of scan.text.matchAll(CVC_PHRASE)) maskCode(m.index + m[0].length, m[1]!);
  // A code written just after a card number, without a label.
  for (const { digitIndexes } of findInNormalized(scan.text)) {
    TRAILING_CODE.lastIndex = digitIndexes.at(-1)! + 1;
    const m = TRAILING_CODE.exec(scan.text);
    if (m) maskCode(m.index + m[0].length, m[1]!);
  }
  // Mask until no candidate is left: digits kept by one match may join others into a new one.
  for (;;) {
    for (const { digitIndexes } of matches) {
      for (let k = 6; k < digitIndexes.length - 4; k++) masked.add(digitIndexes[k]!);
    }
    const chars = current.split(''); // UTF-16 code units, as the match indexes count them
    for (const i of masked) {
      chars[i] = MASK_CHAR;
      // A character of two units (a surrogate pair): both become `*`, so the length is kept.
      const code = current.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < chars.length) chars[i + 1] = MASK_CHAR;
    }
    current = chars.join('');
    matches = findCardNumbers(current);
    if (matches.length === 0) return current;
  }
}
