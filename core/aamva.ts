/**
 * AAMVA DL/ID Card Design Standard (CDS) PDF417 payload parser. Pure: takes the barcode's text
 * as a keyboard-wedge scanner types it (or a decoder reads it) and answers the header, the subfile directory, the data
 * elements of the DL or ID subfile and the holder they describe, across the standard's versions:
 *
 * - header (CDS Annex D.12.3): compliance indicator `@`, data element separator LF, record separator RS, segment
 *   terminator CR, file type `ANSI ` (version 0 and some early cards: `AAMVA`), issuer identification number (6
 *   digits), AAMVA version (2 digits: 01 = 2000 … 10 = 2020), jurisdiction version (2 digits, from version 02 on),
 *   number of entries (2 digits), then per subfile: type (`DL`, `ID`, `Z?`), offset (4 digits), length (4 digits);
 * - data elements: a 3-letter code and its value, one per line; names DCS (family) DAC (first) DAD (middle) from
 *   version 04, DCS + DCT (given names) in 02–03, DAA (full name, "LAST,FIRST,MIDDLE") and DAB/DAC/DAD in 01;
 *   DBB date of birth, DBA expiry, DBD issue date — CCYYMMDD in version 01 and for Canada, MMDDCCYY for the USA
 *   from version 02; DBC sex (1 male, 2 female, 9 not specified; M/F in 01); DAQ document number; DAG/DAH street,
 *   DAI city, DAJ state, DAK postal code, DCG country; DDE/DDF/DDG truncation of family / first / middle name (T).
 *
 * Scanners are not faithful to the control characters (a CR delivered as LF, an RS dropped): the parser splits lines on
 * any of them and finds the DL/ID subfile by its declared offset, else by its type after the directory.
 */

/** Why a payload could not be read. */
export type AamvaErrorCode = 'not_aamva' | 'truncated' | 'malformed';

/** A payload that is not an AAMVA DL/ID barcode (`not_aamva`), is cut short (`truncated`) or is broken (`malformed`). */
export class AamvaError extends Error {
  override name = 'AamvaError';
  constructor(
    readonly code: AamvaErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** One entry of the subfile directory. */
export interface AamvaSubfile {
  type: string;
  offset: number;
  length: number;
}

/** A parsed payload. Dates are YYYY-MM-DD; absent values null. */
export interface AamvaRecord {
  iin: string;
  /** Issuer from the IIN table (aamva.org, 2023-12-29), when known. */
  issuer: { jurisdiction: string; country: 'USA' | 'Canada' | string } | null;
  aamvaVersion: number;
  jurisdictionVersion: number | null;
  subfiles: AamvaSubfile[];
  documentType: 'DL' | 'ID';
  /** Every data element of the DL/ID subfile by code, values trimmed. */
  elements: Record<string, string>;
  holder: {
    firstName: string | null;
    middleName: string | null;
    lastName: string | null;
    suffix: string | null;
    dateOfBirth: string | null;
    expiry: string | null;
    issueDate: string | null;
    sex: 'M' | 'F' | 'X' | null;
    documentNumber: string | null;
    /** Issuing jurisdiction (from the IIN, else DAJ). */
    jurisdiction: string | null;
    address: { street: string | null; city: string | null; state: string | null; postalCode: string | null; country: string | null };
    /** A name the card marks truncated (DDE/DDF/DDG = T). */
    nameTruncated: boolean;
  };
}

/** AAMVA issuer identification numbers → [jurisdiction abbreviation, country]. */
export const AAMVA_IINS: Readonly<Record<string, readonly [string, string]>> = {
  '604426': ['PE', 'Canada'],
  '604427': ['AS', 'USA'],
  '604428': ['QC', 'Canada'],
  '604429': ['YT', 'Canada'],
  '604430': ['MP', 'USA'],
  '604431': ['PR', 'USA'],
  '604432': ['AB', 'Canada'],
  '604433': ['NU', 'Canada'],
  '604434': ['NT', 'Canada'],
  '636000': ['VA', 'USA'],
  '636001': ['NY', 'USA'],
  '636002': ['MA', 'USA'],
  '636003': ['MD', 'USA'],
  '636004': ['NC', 'USA'],
  '636005': ['SC', 'USA'],
  '636006': ['CT', 'USA'],
  '636007': ['LA', 'USA'],
  '636008': ['MT', 'USA'],
  '636009': ['NM', 'USA'],
  '636010': ['FL', 'USA'],
  '636011': ['DE', 'USA'],
  '636012': ['ON', 'Canada'],
  '636013': ['NS', 'Canada'],
  '636014': ['CA', 'USA'],
  '636015': ['TX', 'USA'],
  '636016': ['NF', 'Canada'],
  '636017': ['NB', 'Canada'],
  '636018': ['IA', 'USA'],
  '636019': ['GU', 'USA'],
  '636020': ['CO', 'USA'],
  '636021': ['AR', 'USA'],
  '636022': ['KS', 'USA'],
  '636023': ['OH', 'USA'],
  '636024': ['VT', 'USA'],
  '636025': ['PA', 'USA'],
  '636026': ['AZ', 'USA'],
  '636027': ['', 'USA'],
  '636028': ['BC', 'Canada'],
  '636029': ['OR', 'USA'],
  '636030': ['MO', 'USA'],
  '636031': ['WI', 'USA'],
  '636032': ['MI', 'USA'],
  '636033': ['AL', 'USA'],
  '636034': ['ND', 'USA'],
  '636035': ['IL', 'USA'],
  '636036': ['NJ', 'USA'],
  '636037': ['IN', 'USA'],
  '636038': ['MN', 'USA'],
  '636039': ['NH', 'USA'],
  '636040': ['UT', 'USA'],
  '636041': ['ME', 'USA'],
  '636042': ['SD', 'USA'],
  '636043': ['DC', 'USA'],
  '636044': ['SK', 'Canada'],
  '636045': ['WA', 'USA'],
  '636046': ['KY', 'USA'],
  '636047': ['HI', 'USA'],
  '636048': ['MB', 'Canada'],
  '636049': ['NV', 'USA'],
  '636050': ['ID', 'USA'],
  '636051': ['MS', 'USA'],
  '636052': ['RI', 'USA'],
  '636053': ['TN', 'USA'],
  '636054': ['NE', 'USA'],
  '636055': ['GA', 'USA'],
  '636056': ['CU', 'Mexico'],
  '636057': ['HL', 'Mexico'],
  '636058': ['OK', 'USA'],
  '636059': ['AK', 'USA'],
  '636060': ['WY', 'USA'],
  '636061': ['WV', 'USA'],
  '636062': ['VI', 'USA'],
};

/** Card codes that name the same jurisdiction as the IIN table's: Newfoundland (NF in the table) writes NL since 2002. */
const SAME_JURISDICTION: Readonly<Record<string, readonly string[]>> = { NF: ['NF', 'NL'] };

/** What the issuer identification number says against the card, see {@link issuerProblem}. */
export type IssuerProblem = 'unknown_issuer' | 'issuer_state_mismatch';

/**
 * Checks a card's issuer against the AAMVA IIN table ({@link AAMVA_IINS}, aamva.org 2023-12-29) and against the
 * state of the address printed on the card (DAJ): `unknown_issuer` when the IIN is no AAMVA issuer (e.g. 999999);
 * `issuer_state_mismatch` when the address's state is not the issuer's jurisdiction (a jurisdiction issues its
 * licences and ID cards to its own residents: a Maryland IIN on a Virginia address is not a genuine card). Null when
 * consistent, or when there is nothing to compare (no address state, or an issuer with no jurisdiction code such as
 * the State Department's diplomatic cards).
 */
export function issuerProblem(record: Pick<AamvaRecord, 'iin' | 'holder'>): IssuerProblem | null {
  const issuer = AAMVA_IINS[record.iin];
  if (!issuer) return 'unknown_issuer';
  const state = record.holder.address.state?.trim().toUpperCase();
  if (!issuer[0] || !state) return null;
  return (SAME_JURISDICTION[issuer[0]] ?? [issuer[0]]).includes(state) ? null : 'issuer_state_mismatch';
}

const MAX_PAYLOAD_CHARS = 20_000;
const EMPTY = new Set(['', 'NONE', 'UNAVL', 'UNAVAILABLE', 'UNK', 'N/A']);

function clean(v: string | undefined): string | null {
  if (v === undefined) return null;
  const t = v.trim().replace(/\s+/g, ' ');
  return EMPTY.has(t.toUpperCase()) ? null : t;
}

function isoDate(y: number, m: number, d: number): string | null {
  if (y < 1850 || y > 2200 || m < 1 || m > 12 || d < 1) return null;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d > days) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * An AAMVA date (8 digits) as YYYY-MM-DD: CCYYMMDD when `yearFirst`, else MMDDCCYY; the other order is tried when the
 * first gives no real date. Null when empty, all zeros or no real date either way.
 */
export function aamvaDate(value: string | null, yearFirst: boolean): string | null {
  if (!value) return null;
  const v = value.trim();
  if (!/^\d{8}$/.test(v) || /^0+$/.test(v)) return null;
  const ymd = () => isoDate(Number(v.slice(0, 4)), Number(v.slice(4, 6)), Number(v.slice(6, 8)));
  const mdy = () => isoDate(Number(v.slice(4, 8)), Number(v.slice(0, 2)), Number(v.slice(2, 4)));
  return yearFirst ? (ymd() ?? mdy()) : (mdy() ?? ymd());
}

function postalCode(v: string | null, country: string | null): string | null {
  if (!v) return null;
  const t = v.replace(/\s+/g, '');
  if (country !== 'CAN' && /^\d{9}$/.test(t)) return t.endsWith('0000') ? t.slice(0, 5) : `${t.slice(0, 5)}-${t.slice(5)}`;
  if (country !== 'CAN' && /^\d{5}$/.test(t)) return t;
  return v.trim();
}

function sexOf(v: string | null): 'M' | 'F' | 'X' | null {
  if (!v) return null;
  const t = v.trim().toUpperCase();
  if (t === '1' || t === 'M') return 'M';
  if (t === '2' || t === 'F') return 'F';
  if (t === '9' || t === 'X') return 'X';
  return null;
}

/** "LAST,FIRST,MIDDLE" (commas) or "FIRST MIDDLE LAST" (spaces) → parts (version 01's DAA). */
function splitFullName(v: string): { last: string | null; first: string | null; middle: string | null } {
  if (v.includes(',')) {
    const [last, first, ...middle] = v.split(',').map((p) => p.trim());
    return { last: clean(last), first: clean(first), middle: clean(middle.join(' ')) };
  }
  const parts = v.trim().split(/\s+/);
  if (parts.length === 1) return { last: clean(parts[0]), first: null, middle: null };
  return { first: clean(parts[0]), middle: clean(parts.slice(1, -1).join(' ')), last: clean(parts.at(-1)) };
}

/**
 * Parses an AAMVA DL/ID PDF417 payload (see the file's comment for the layout and the versions read).
 * @param raw the barcode's text, control characters as the scanner delivered them
 * @throws AamvaError `not_aamva` when it is not an AAMVA DL/ID barcode, `truncated` when it ends before its header,
 *   directory or mandatory elements do, `malformed` when a field is not what the standard says (naming it)
 */
export function parseAamva(raw: string): AamvaRecord {
  if (typeof raw !== 'string' || raw.trim() === '') throw new AamvaError('not_aamva', 'The payload is empty.');
  if (raw.length > MAX_PAYLOAD_CHARS)
    throw new AamvaError('malformed', `The payload is longer than ${MAX_PAYLOAD_CHARS} characters: not a licence barcode.`);
  const head = raw.slice(0, 24);
  const at = head.search(/ANSI |AAMVA/);
  const indicator = head.indexOf('@');
  if (at < 0 || indicator < 0 || indicator > at) {
    if (raw.trimStart().startsWith('@') && raw.length < 21) throw new AamvaError('truncated', 'The payload ends inside its header.');
    throw new AamvaError('not_aamva', 'This is not an AAMVA driver licence or ID card barcode (no "@ … ANSI " header).');
  }
  let p = at + 5;
  const need = (n: number, what: string): string => {
    const s = raw.slice(p, p + n);
    if (s.length < n) throw new AamvaError('truncated', `The payload ends inside its header (${what}).`);
    if (!/^\d+$/.test(s)) throw new AamvaError('malformed', `The header's ${what} is not ${n} digits.`);
    p += n;
    return s;
  };
  const iin = need(6, 'issuer identification number');
  const aamvaVersion = Number(need(2, 'AAMVA version'));
  const jurisdictionVersion = aamvaVersion >= 2 ? Number(need(2, 'jurisdiction version')) : null;
  const entries = Number(need(2, 'number of entries'));
  if (entries < 1) throw new AamvaError('malformed', 'The header lists no subfile.');
  const subfiles: AamvaSubfile[] = [];
  for (let i = 0; i < entries; i++) {
    const d = raw.slice(p, p + 10);
    if (d.length < 10) throw new AamvaError('truncated', `The payload ends inside its subfile directory (entry ${i + 1} of ${entries}).`);
    if (!/^[A-Z]{2}\d{8}$/.test(d)) throw new AamvaError('malformed', `Subfile directory entry ${i + 1} is not a type and two 4-digit numbers.`);
    subfiles.push({ type: d.slice(0, 2), offset: Number(d.slice(2, 6)), length: Number(d.slice(6, 10)) });
    p += 10;
  }
  const main = subfiles.find((s) => s.type === 'DL' || s.type === 'ID');
  if (!main) throw new AamvaError('malformed', 'The payload has no DL or ID subfile.');
  // The offset counts from the compliance indicator; a scanner dropping a control character shifts it, so fall back to
  // the first occurrence of the type after the directory.
  const origin = raw.indexOf('@');
  let start = raw.startsWith(main.type, origin + main.offset) ? origin + main.offset : raw.indexOf(main.type, p);
  if (start < 0) {
    if (raw.length < origin + main.offset + 2) throw new AamvaError('truncated', `The payload ends before its ${main.type} subfile.`);
    throw new AamvaError('malformed', `The ${main.type} subfile is not where the directory says.`);
  }
  start += 2;
  const declaredEnd = origin + main.offset + main.length;
  const cutShort = raw.replace(/[\r\n\s]+$/, '').length < declaredEnd - 2;
  const elements: Record<string, string> = {};
  for (const line of raw.slice(start).split(/[\r\n\u001e]+/)) {
    const m = /^(D[A-Z]{2})(.*)$/s.exec(line);
    if (m && !(m[1]! in elements)) elements[m[1]!] = m[2]!.trim();
  }
  const e = (code: string) => clean(elements[code]);
  const country = e('DCG');
  const canadian = country === 'CAN' || AAMVA_IINS[iin]?.[1] === 'Canada';
  const yearFirst = aamvaVersion <= 1 || canadian;

  let last = e('DCS') ?? e('DAB');
  let first = e('DAC');
  let middle = e('DAD');
  const given = e('DCT');
  if (!first && given) {
    const [f, ...rest] = given.split(/[,\s]+/).filter(Boolean);
    first = clean(f);
    middle = middle ?? clean(rest.join(' '));
  }
  const full = e('DAA');
  if (full && (!last || !first)) {
    const parts = splitFullName(full);
    last = last ?? parts.last;
    first = first ?? parts.first;
    middle = middle ?? parts.middle;
  }
  const missing: string[] = [];
  if (!e('DAQ')) missing.push('DAQ (document number)');
  if (!elements.DBB) missing.push('DBB (date of birth)');
  if (!elements.DBA) missing.push('DBA (expiry)');
  if (!last) missing.push('DCS (family name)');
  if (missing.length > 0) {
    throw new AamvaError(cutShort ? 'truncated' : 'malformed', `${cutShort ? 'The payload is cut short: m' : 'M'}issing ${missing.join(', ')}.`);
  }
  const dateOfBirth = aamvaDate(e('DBB'), yearFirst);
  if (!dateOfBirth) throw new AamvaError('malformed', 'DBB (date of birth) is not a date.');
  const expiry = aamvaDate(e('DBA'), yearFirst);
  if (!expiry) throw new AamvaError('malformed', 'DBA (expiry) is not a date.');
  const issuer = AAMVA_IINS[iin];
  const state = e('DAJ');
  const street = [e('DAG'), e('DAH')].filter(Boolean).join(', ') || null;
  return {
    iin,
    issuer: issuer ? { jurisdiction: issuer[0], country: issuer[1] } : null,
    aamvaVersion,
    jurisdictionVersion,
    subfiles,
    documentType: main.type as 'DL' | 'ID',
    elements,
    holder: {
      firstName: first,
      middleName: middle,
      lastName: last,
      suffix: e('DCU') ?? e('DAE'),
      dateOfBirth,
      expiry,
      issueDate: aamvaDate(e('DBD'), yearFirst),
      sex: sexOf(e('DBC')),
      documentNumber: e('DAQ'),
      jurisdiction: issuer?.[0] ?? state,
      address: {
        street,
        city: e('DAI'),
        state,
        postalCode: postalCode(e('DAK'), country),
        country: country ?? (issuer ? (issuer[1] === 'Canada' ? 'CAN' : 'USA') : null),
      },
      nameTruncated: ['DDE', 'DDF', 'DDG'].some((c) => e(c) === 'T'),
    },
  };
}
