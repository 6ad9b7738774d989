/**
 * MICR E-13B line parser (the check scanner). Scanners return the four E-13B symbols — transit ⑆, on-us ⑈,
 * amount ⑇, dash ⑉ — substituted by ASCII characters, and each vendor picked its own; the schemes below are the
 * columns of test/fixtures/micr/micr-symbol-substitutions.csv (sources in its SOURCE.md).
 *
 * Field layout (ANS X9.13 / X9.100-160, right to left): amount ⑇dddddddddd⑇ (10 digits, cents); on-us field
 * (account number ⑈ then, on personal checks, the check serial number); transit field ⑆ddddddddd⑆ with the 9-digit
 * ABA routing number; optional auxiliary on-us ⑈…⑈ at the far left (business checks; usually the serial number).
 *
 * The ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
 */
import { DeviceError } from '../errors.ts';

/** Substitution schemes (columns of micr-symbol-substitutions.csv). */
export type MicrScheme =
  'unicode' | 'magtek_fmt_00' | 'magtek_fmt_01' | 'magtek_fmt_02' | 'acheck21_TOAD' | 'ranger_bcd' | 'inlite_clearmicr' | 'axiohm_unisys_printer_raw';

/** The characters one scheme uses for each E-13B symbol, its "unreadable" mark and its space. */
export interface MicrSymbolSet {
  transit: string;
  onUs: string;
  amount: string;
  dash: string;
  /** Character the reader puts where it could not read a symbol (none for Ranger bcd). */
  unreadable?: string;
  space: string;
}

/** Every scheme's symbols, transcribed from micr-symbol-substitutions.csv. */
export const MICR_SCHEMES: Record<MicrScheme, MicrSymbolSet> = {
  unicode: { transit: '\u2446', onUs: '\u2448', amount: '\u2447', dash: '\u2449', space: ' ' },
  magtek_fmt_00: { transit: 'T', onUs: 'U', amount: '$', dash: '-', unreadable: '?', space: ' ' },
  magtek_fmt_01: { transit: 't', onUs: 'o', amount: 'a', dash: 'd', unreadable: '?', space: ' ' },
  magtek_fmt_02: { transit: 'T', onUs: 'O', amount: 'A', dash: 'D', unreadable: '?', space: ' ' },
  acheck21_TOAD: { transit: 'T', onUs: 'O', amount: 'A', dash: 'D', unreadable: '!', space: ' ' },
  ranger_bcd: { transit: 'd', onUs: 'c', amount: 'b', dash: '-', space: ' ' },
  inlite_clearmicr: { transit: 'T', onUs: 'U', amount: 'A', dash: 'D', unreadable: '?', space: '_' },
  axiohm_unisys_printer_raw: { transit: ')', onUs: '(', amount: '&', dash: "'", unreadable: '?', space: ' ' },
};

/** A MICR line read and validated. */
export interface MicrFields {
  /** The scheme the line was read in (given or detected). */
  scheme: MicrScheme;
  /** 9 digits, ABA checksum valid. */
  routingNumber: string;
  /** Digits and dashes of the on-us field, spaces removed. */
  accountNumber: string;
  checkNumber?: string;
  auxOnUs?: string;
  amountCents?: number;
  /** The line in canonical form: digits, T (transit), U (on-us), A (amount), D (dash), space. */
  canonical: string;
}

/** Longest raw line accepted (an X9 MICR line is 65 positions; room for padding). */
export const MAX_MICR_LINE = 128;

/** True when the 9 digits pass the ABA routing number checksum (3-7-1 weights). */
export function isValidAbaRoutingNumber(routing: string): boolean {
  if (!/^\d{9}$/.test(routing) || routing === '000000000') return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

/**
 * Guesses the scheme of a raw line from the symbols it uses (a line holds at least two transit symbols):
 * Unicode OCR symbols → unicode; `)(&'` → Axiohm; lowercase t/o/a → MagTek 01; lowercase d/c/b → Ranger; `$` or `-`
 * with T/U → MagTek 00; T/U/A/D/_ → Inlite (same symbols as MagTek 00 otherwise); `!` → ACheck21 TOAD; T/O/A/D →
 * MagTek 02 (identical to TOAD but for the unreadable mark). Undefined when nothing fits.
 */
export function detectMicrScheme(raw: string): MicrScheme | undefined {
  if (/[\u2446-\u2449]/.test(raw)) return 'unicode';
  if (/[)(&']/.test(raw)) return 'axiohm_unisys_printer_raw';
  if (/[toa]/.test(raw)) return 'magtek_fmt_01';
  if (/[dcb]/.test(raw)) return 'ranger_bcd';
  if (/O/.test(raw)) return raw.includes('!') ? 'acheck21_TOAD' : 'magtek_fmt_02';
  if (/[$-]/.test(raw) && /[TU]/.test(raw)) return 'magtek_fmt_00';
  if (/[TUAD_]/.test(raw)) return 'inlite_clearmicr';
  return undefined;
}

function refuse(code: ConstructorParameters<typeof DeviceError>[0], message: string, detail?: Record<string, unknown>): never {
  throw new DeviceError(code, message, detail);
}

/** Maps a raw line to canonical symbols (T U A D, digits, space). Throws the `micr_*` / `line_too_long` errors. */
export function canonicalMicr(raw: string, scheme: MicrScheme): string {
  const set = MICR_SCHEMES[scheme];
  const table = new Map<string, string>([
    [set.transit, 'T'],
    [set.onUs, 'U'],
    [set.amount, 'A'],
    [set.dash, 'D'],
    [set.space, ' '],
    [' ', ' '],
  ]);
  let out = '';
  let position = 0;
  for (const char of raw) {
    position += 1;
    if (char >= '0' && char <= '9') out += char;
    else if (table.has(char)) out += table.get(char);
    else if (set.unreadable !== undefined && char === set.unreadable) {
      refuse('micr_unreadable_character', `the scanner could not read the character at position ${position}`, { position });
    } else {
      refuse('micr_invalid_character', `character ${JSON.stringify(char)} at position ${position} is not in the ${scheme} scheme`, {
        position,
        scheme,
      });
    }
  }
  return out;
}

/**
 * Reads a raw MICR line in `scheme` (or the detected one) and returns its fields. Refuses — throws `DeviceError` with
 * code `micr_empty`, `line_too_long`, `micr_unreadable_character`, `micr_invalid_character`, `micr_missing_routing`,
 * `micr_bad_routing_checksum`, `micr_missing_account` or `micr_bad_amount` — anything it cannot vouch for. Never
 * throws anything else.
 */
export function parseMicrLine(raw: string, options: { scheme?: MicrScheme | 'auto' } = {}): MicrFields {
  if (raw.length > MAX_MICR_LINE) refuse('line_too_long', `MICR line longer than ${MAX_MICR_LINE} characters`);
  const line = raw.replace(/[\r\n]+$/, '');
  if (line.trim() === '' || /^_+$/.test(line.trim())) refuse('micr_empty', 'no MICR line was read');
  const scheme = !options.scheme || options.scheme === 'auto' ? detectMicrScheme(line) : options.scheme;
  if (!scheme) refuse('micr_invalid_character', 'the line uses no known MICR symbol substitution');
  const canonical = canonicalMicr(line, scheme);

  const transit = /T([\d ]*)T/.exec(canonical);
  const routingNumber = transit?.[1]?.replace(/ /g, '') ?? '';
  if (!transit || !/^\d{9}$/.test(routingNumber)) {
    refuse('micr_missing_routing', 'no transit field with a 9-digit routing number', { canonical });
  }
  if (!isValidAbaRoutingNumber(routingNumber)) {
    refuse('micr_bad_routing_checksum', `routing number ${routingNumber} fails the ABA checksum`, { routingNumber });
  }

  const before = canonical.slice(0, transit.index);
  const after = canonical.slice(transit.index + transit[0].length);

  let amountCents: number | undefined;
  let onUsText = after;
  const amountStart = after.indexOf('A');
  if (amountStart >= 0) {
    const amount = /^A(\d{10})A\s*$/.exec(after.slice(amountStart));
    if (!amount) refuse('micr_bad_amount', 'the amount field is not ⑇ + 10 digits + ⑇', { canonical });
    amountCents = Number(amount[1]);
    onUsText = after.slice(0, amountStart);
  }

  const [accountPart = '', checkPart = '', ...rest] = onUsText.split('U');
  if (rest.some((part) => part.trim() !== '')) refuse('micr_missing_account', 'the on-us field has more than two parts', { canonical });
  const groups = accountPart
    .trim()
    .split(/ +/)
    .filter(Boolean)
    .map((group) => group.replace(/D/g, '-'));
  const accountNumber = groups.at(-1) ?? '';
  if (!/^\d[\d-]*$/.test(accountNumber) || accountNumber.length > 17) {
    refuse('micr_missing_account', 'no account number in the on-us field', { canonical });
  }
  const afterOnUs = checkPart.replace(/ /g, '');
  let checkNumber: string | undefined;
  if (afterOnUs !== '') {
    if (!/^\d{1,15}$/.test(afterOnUs)) refuse('micr_missing_account', 'the check number after ⑈ is not digits', { canonical });
    checkNumber = afterOnUs;
  } else if (groups.length > 1 && /^\d{1,15}$/.test(groups[0]!)) checkNumber = groups[0];

  let auxOnUs: string | undefined;
  const aux = /U([\d D]+)U/.exec(before);
  if (aux) auxOnUs = aux[1]!.replace(/ /g, '').replace(/D/g, '-');

  return {
    scheme,
    routingNumber,
    accountNumber,
    ...(checkNumber !== undefined ? { checkNumber } : {}),
    ...(auxOnUs ? { auxOnUs } : {}),
    ...(amountCents !== undefined ? { amountCents } : {}),
    canonical,
  };
}
