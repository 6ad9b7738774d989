/**
 * SMS segments (3GPP TS 23.038 and TS 23.040): which alphabet a text needs and how many message parts a carrier bills
 * for it.
 *
 * - GSM-7: every character is in the GSM 03.38 basic set (one septet) or its extension table (`^ { } \ [ ~ ] | €` and
 *   form feed: an escape septet plus one, so two). One message holds 160 septets; a longer text is sent as parts of
 *   153 septets each (7 octets go to the concatenation header), and an escape pair is never split across two parts.
 * - UCS-2: any other character. Counted in UTF-16 code units (an emoji outside the Basic Multilingual Plane is a
 *   surrogate pair: two units). One message holds 70 units; parts hold 67, and a surrogate pair is never split.
 *
 * Pure: no I/O.
 */

/** The alphabet a text is sent in. */
export type SmsEncoding = 'GSM-7' | 'UCS-2';

/** How a text is sent: its alphabet, its length in that alphabet's units, its parts and the room left in the last one. */
export interface SmsSegmentInfo {
  encoding: SmsEncoding;
  /** Septets (GSM-7: extension characters count two) or UTF-16 code units (UCS-2). */
  units: number;
  /** Message parts billed: 1 for an empty or short text. */
  segments: number;
  /** Units still free in the current (last) part before one more part is needed. */
  remaining: number;
}

/** GSM 03.38 basic character set (one septet each; the escape code 0x1B is not a character of its own). */
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/** GSM 03.38 extension table: escape septet + one, so two septets each. */
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

/** Units in one lone message and in each part of a longer one. */
const LIMITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

/** True when every character of `text` is in the GSM-7 basic set or its extension table. */
function isGsm7(text: string): boolean {
  for (const ch of text) if (!GSM_BASIC.has(ch) && !GSM_EXTENSION.has(ch)) return false;
  return true;
}

/**
 * The alphabet, length, parts and room left of an SMS body (see the file's comment for the rules). An empty body is
 * one part with the whole message free.
 */
export function smsSegments(body: string): SmsSegmentInfo {
  const encoding: SmsEncoding = isGsm7(body) ? 'GSM-7' : 'UCS-2';
  // Each character's cost in units; a character (code point) is never split across parts.
  const costs: number[] = [];
  for (const ch of body) costs.push(encoding === 'GSM-7' ? (GSM_EXTENSION.has(ch) ? 2 : 1) : ch.length);
  const units = costs.reduce((a, b) => a + b, 0);
  const { single, part } = LIMITS[encoding];
  if (units <= single) return { encoding, units, segments: 1, remaining: single - units };
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > part) {
      segments++;
      used = 0;
    }
    used += cost;
  }
  return { encoding, units, segments, remaining: part - used };
}

/** "1 SMS segment (GSM-7)", "3 SMS segments (UCS-2)": the count as staff read it. */
export function describeSmsSegments(info: Pick<SmsSegmentInfo, 'segments' | 'encoding'>): string {
  return `${info.segments} SMS segment${info.segments === 1 ? '' : 's'} (${info.encoding})`;
}
