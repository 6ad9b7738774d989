/**
 * ESC/POS character code tables (ESC t n) for accented text. Bytes 0x00–0x7F are ASCII in every table; the upper half
 * (0x80–0xFF) is listed here, one character per byte, as glibc `iconv -f <table>` and Python's codecs decode it
 * (checked identical when this file was written). Unassigned WPC1252 bytes are U+FFFD.
 *
 * Epson numbering (ESC t n): 0 = PC437 (USA, the power-on default), 16 = WPC1252, 19 = PC858 (PC850 + euro sign at
 * 0xD5). The encoder defaults to PC858: it has every Western European accented letter and €, and every ESC/POS
 * printer we know supports it.
 */

/** Code pages the encoder can select. */
export type CodePage = 'pc437' | 'pc858' | 'wpc1252';

const UPPER_HALF: Record<CodePage, string> = {
  pc437: 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0',
  pc858: 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0',
  wpc1252:
    '€\ufffd‚ƒ„…†‡ˆ‰Š‹Œ\ufffdŽ\ufffd\ufffd‘’“”•–—˜™š›œ\ufffdžŸ\u00a0¡¢£¤¥¦§¨©ª«¬\u00ad®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ',
};

/** ESC t n numbers of the supported tables. */
export const CODE_PAGE_NUMBER: Record<CodePage, number> = { pc437: 0, wpc1252: 16, pc858: 19 };

const BY_NUMBER = new Map<number, CodePage>(Object.entries(CODE_PAGE_NUMBER).map(([page, n]) => [n, page as CodePage]));

/** The table selected by `ESC t n`, or undefined for tables this module does not know. */
export function codePageForNumber(n: number): CodePage | undefined {
  return BY_NUMBER.get(n);
}

const DECODERS: Record<CodePage, string[]> = {
  pc437: [...UPPER_HALF.pc437],
  pc858: [...UPPER_HALF.pc858],
  wpc1252: [...UPPER_HALF.wpc1252],
};

const ENCODERS = new Map<CodePage, Map<string, number>>();

function encoderFor(page: CodePage): Map<string, number> {
  let map = ENCODERS.get(page);
  if (!map) {
    map = new Map();
    const chars = [...UPPER_HALF[page]];
    chars.forEach((char, index) => {
      if (char !== '\ufffd') map!.set(char, 0x80 + index);
    });
    ENCODERS.set(page, map);
  }
  return map;
}

/** Characters that are not in a table but have an obvious printable stand-in. */
const FALLBACKS: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u00a0': ' ',
  '\u2022': '*',
};

/**
 * Encodes text in a code page. Printable ASCII passes through; characters of the table's upper half map to their
 * byte; others are first decomposed (NFD, dropping combining marks: "ő" → "o"), then replaced by `?`. Control
 * characters other than LF are dropped so text can never inject ESC/POS commands.
 */
export function encodeText(text: string, page: CodePage): Uint8Array {
  const map = encoderFor(page);
  const out: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0x0a || (code >= 0x20 && code < 0x7f)) {
      out.push(code);
      continue;
    }
    if (code < 0x20 || code === 0x7f) continue;
    const byte = map.get(char);
    if (byte !== undefined) {
      out.push(byte);
      continue;
    }
    const fallback = FALLBACKS[char];
    if (fallback !== undefined) {
      for (const c of fallback) out.push(map.get(c) ?? c.charCodeAt(0));
      continue;
    }
    const base = char.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    if (base.length > 0 && base !== char && [...base].every((c) => c.charCodeAt(0) < 0x7f || map.has(c))) {
      for (const c of base) out.push(map.get(c) ?? c.charCodeAt(0));
    } else out.push(0x3f);
  }
  return Uint8Array.from(out);
}

/** Decodes one byte ≥ 0x80 in a code page (U+FFFD for an unknown table or an unassigned byte). */
export function decodeHighByte(byte: number, page: CodePage | undefined): string {
  if (!page) return '\ufffd';
  return DECODERS[page][byte - 0x80] ?? '\ufffd';
}
