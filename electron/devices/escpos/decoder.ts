/**
 * Streaming ESC/POS decoder: turns a printer byte stream back into printed lines with their styles and events (cut,
 * drawer kick, barcode, QR payload, feeds, real-time status requests). The printer simulator runs it on every byte
 * it receives; tests run it on the python-escpos samples of test/fixtures/escpos (see SOURCE.md there for the byte
 * layouts). Bytes may arrive in any split: an incomplete command waits for its remaining bytes.
 *
 * Never throws: garbage bytes become `unknown` events and the decoder moves on by at least one byte, a line longer
 * than `maxLineChars` is cut into an `error` event `line_too_long` plus the line, a command declaring more than
 * `maxCommandBytes` of data is skipped (an `unknown` event) without buffering it.
 */
import { codePageForNumber, decodeHighByte, type CodePage } from './code-pages.ts';

/** Text styles in effect for a printed line (taken when its first character is printed). */
export interface LineStyle {
  align: 'left' | 'center' | 'right';
  bold: boolean;
  underline: boolean;
  /** Character width multiplier 1–8 (GS ! bits 4–6, ESC ! bit 5). */
  widthScale: number;
  /** Character height multiplier 1–8 (GS ! bits 0–2, ESC ! bit 4). */
  heightScale: number;
}

/** One printed line. */
export interface DecodedLine extends LineStyle {
  text: string;
}

/** Barcode symbologies of GS k. */
export type BarcodeSymbology = 'UPC-A' | 'UPC-E' | 'EAN13' | 'EAN8' | 'CODE39' | 'ITF' | 'CODABAR' | 'CODE93' | 'CODE128';

/** What the decoder saw, in stream order. */
export type EscPosEvent =
  | { type: 'line'; line: DecodedLine }
  | { type: 'init' }
  | { type: 'code_page'; n: number; page?: CodePage }
  | { type: 'feed'; lines: number }
  | { type: 'cut'; partial: boolean }
  | { type: 'drawer'; pin: 2 | 5; onMs: number; offMs: number }
  | { type: 'barcode'; symbology: BarcodeSymbology; data: string }
  | { type: 'qr'; data: string; model: number; moduleSize: number; errorCorrection: 'L' | 'M' | 'Q' | 'H' }
  /** DLE EOT n: the host asks for real-time status n (1 printer, 2 offline cause, 3 error cause, 4 paper sensor). */
  | { type: 'status_request'; n: number }
  | { type: 'unknown'; bytes: number[] }
  | { type: 'error'; code: 'line_too_long' | 'truncated'; detail: string };

/** Decoder limits. */
export interface EscPosDecoderOptions {
  /** Longest line kept in one piece. Default 1024 characters. */
  maxLineChars?: number;
  /** Largest command buffered; larger ones (raster images) are skipped. Default 70 000 bytes (a full QR store). */
  maxCommandBytes?: number;
}

const ESC = 0x1b;
const GS = 0x1d;
const DLE = 0x10;
const FS = 0x1c;
const LF = 0x0a;

const SYMBOLOGY_A: BarcodeSymbology[] = ['UPC-A', 'UPC-E', 'EAN13', 'EAN8', 'CODE39', 'ITF', 'CODABAR'];
const SYMBOLOGY_B: BarcodeSymbology[] = [...SYMBOLOGY_A, 'CODE93', 'CODE128'];

/** ESC commands with a fixed number of parameter bytes (not handled specially below). */
const ESC_FIXED: Record<number, number> = {
  0x20: 1, // ESC SP n right-side spacing
  0x24: 2, // ESC $ nL nH absolute position
  0x25: 1, // ESC % n user-defined characters
  0x32: 0, // ESC 2 default line spacing
  0x33: 1, // ESC 3 n line spacing
  0x3c: 0, // ESC < return home
  0x3d: 1, // ESC = n peripheral device
  0x3f: 1, // ESC ? n cancel user-defined character
  0x44: -1, // ESC D n1..nk NUL tab positions (NUL-terminated)
  0x47: 1, // ESC G n double-strike
  0x4a: 1, // ESC J n feed n dots
  0x4b: 1, // ESC K n reverse feed (some models)
  0x4c: 0, // ESC L page mode
  0x4d: 1, // ESC M n font
  0x52: 1, // ESC R n international character set
  0x53: 0, // ESC S standard mode
  0x54: 1, // ESC T n print direction (page mode)
  0x55: 1, // ESC U n unidirectional
  0x56: 1, // ESC V n 90° rotation
  0x57: 8, // ESC W print area (page mode)
  0x5c: 2, // ESC \ nL nH relative position
  0x63: 2, // ESC c n1 n2 (c3/c4/c5 panel, sensors)
  0x65: 1, // ESC e n reverse feed lines
  0x69: 0, // ESC i partial cut (older models)
  0x6d: 0, // ESC m partial cut (older models)
  0x72: 1, // ESC r n colour
  0x75: 1, // ESC u n peripheral status (old)
  0x76: 0, // ESC v paper sensor status (old)
  0x7b: 1, // ESC { n upside down
};

/** GS commands with a fixed number of parameter bytes (not handled specially below). */
const GS_FIXED: Record<number, number> = {
  0x23: 1, // GS # n
  0x24: 2, // GS $ vertical position
  0x2f: 1, // GS / m print downloaded bit image
  0x3a: 0, // GS : macro
  0x42: 1, // GS B n reverse
  0x48: 1, // GS H n HRI position
  0x49: 1, // GS I n transmit printer ID
  0x4c: 2, // GS L left margin
  0x50: 2, // GS P motion units
  0x54: 1, // GS T n
  0x57: 2, // GS W print area width
  0x5c: 2, // GS \ relative vertical position
  0x5e: 3, // GS ^ macro
  0x61: 1, // GS a n automatic status back
  0x62: 1, // GS b n smoothing
  0x63: 0, // GS c counter
  0x66: 1, // GS f n HRI font
  0x67: 2, // GS g 0 m / GS g 2 (maintenance counter) — approximate
  0x68: 1, // GS h n barcode height
  0x72: 1, // GS r n transmit status
  0x77: 1, // GS w n barcode width
  0x7a: 2, // GS z
};

type ParseResult = { consumed: number; events?: EscPosEvent[] } | 'more' | { skip: number; head: number[] };

/** Streaming decoder; feed bytes with `push`, finish with `end`. */
export class EscPosDecoder {
  readonly #maxLineChars: number;
  readonly #maxCommandBytes: number;
  #pending: number[] = [];
  #skip = 0;
  #line = '';
  #lineStyle: LineStyle | undefined;
  #style: LineStyle = EscPosDecoder.#defaultStyle();
  #codePage: CodePage | undefined = 'pc437';
  #qr = { model: 2, moduleSize: 3, errorCorrection: 'L' as 'L' | 'M' | 'Q' | 'H', data: '' };

  constructor(options: EscPosDecoderOptions = {}) {
    this.#maxLineChars = options.maxLineChars ?? 1024;
    this.#maxCommandBytes = options.maxCommandBytes ?? 70_000;
  }

  static #defaultStyle(): LineStyle {
    return { align: 'left', bold: false, underline: false, widthScale: 1, heightScale: 1 };
  }

  /** Decodes a chunk; returns the events completed by it (in order). Never throws. */
  push(chunk: Uint8Array): EscPosEvent[] {
    const events: EscPosEvent[] = [];
    let offset = 0;
    if (this.#skip > 0) {
      const skipped = Math.min(this.#skip, chunk.length);
      this.#skip -= skipped;
      offset = skipped;
    }
    for (let i = offset; i < chunk.length; i += 1) this.#pending.push(chunk[i]!);
    this.#drain(events);
    return events;
  }

  /** Flushes a partial line and reports a command left incomplete at the end of the stream. */
  end(): EscPosEvent[] {
    const events: EscPosEvent[] = [];
    if (this.#pending.length > 0) {
      events.push({
        type: 'error',
        code: 'truncated',
        detail: `stream ended inside a command: ${Buffer.from(this.#pending.slice(0, 16)).toString('hex')}`,
      });
      this.#pending = [];
    }
    this.#flushLine(events, false);
    this.#skip = 0;
    return events;
  }

  #drain(events: EscPosEvent[]): void {
    let position = 0;
    const bytes = this.#pending;
    while (position < bytes.length) {
      if (this.#skip > 0) {
        const skipped = Math.min(this.#skip, bytes.length - position);
        this.#skip -= skipped;
        position += skipped;
        continue;
      }
      const result = this.#parseAt(bytes, position, events);
      if (result === 'more') break;
      if ('skip' in result) {
        events.push({ type: 'unknown', bytes: result.head });
        position += result.head.length;
        this.#skip = result.skip;
        continue;
      }
      position += result.consumed;
    }
    this.#pending = bytes.slice(position);
  }

  #addChar(char: string, events: EscPosEvent[]): void {
    if (this.#line.length === 0) this.#lineStyle = { ...this.#style };
    this.#line += char;
    if (this.#line.length >= this.#maxLineChars) {
      events.push({ type: 'error', code: 'line_too_long', detail: `line longer than ${this.#maxLineChars} characters` });
      this.#flushLine(events, true);
    }
  }

  #flushLine(events: EscPosEvent[], force: boolean): void {
    if (this.#line.length === 0 && !force) return;
    const style = this.#line.length > 0 && this.#lineStyle ? this.#lineStyle : this.#style;
    events.push({ type: 'line', line: { text: this.#line, ...style } });
    this.#line = '';
    this.#lineStyle = undefined;
  }

  /** Parses one command or character at `at`. */
  #parseAt(bytes: number[], at: number, events: EscPosEvent[]): ParseResult {
    const byte = bytes[at]!;
    const available = bytes.length - at;
    const arg = (k: number): number => bytes[at + k]!;
    if (byte === LF) {
      this.#flushLine(events, true);
      return { consumed: 1 };
    }
    if (byte === 0x0d) return { consumed: 1 }; // CR: ignored (auto line feed off)
    if (byte === 0x09) {
      this.#addChar('\t', events);
      return { consumed: 1 };
    }
    if (byte >= 0x20 && byte < 0x7f) {
      this.#addChar(String.fromCharCode(byte), events);
      return { consumed: 1 };
    }
    if (byte >= 0x80) {
      this.#addChar(decodeHighByte(byte, this.#codePage), events);
      return { consumed: 1 };
    }
    if (byte === ESC) {
      if (available < 2) return 'more';
      const command = arg(1);
      const needs = (n: number): boolean => available < 2 + n;
      switch (command) {
        case 0x40: // ESC @
          this.#flushLine(events, false);
          this.#style = EscPosDecoder.#defaultStyle();
          this.#codePage = 'pc437';
          events.push({ type: 'init' });
          return { consumed: 2 };
        case 0x74: {
          if (needs(1)) return 'more';
          const page = codePageForNumber(arg(2));
          this.#codePage = page;
          events.push(page ? { type: 'code_page', n: arg(2), page } : { type: 'code_page', n: arg(2) });
          return { consumed: 3 };
        }
        case 0x61: {
          if (needs(1)) return 'more';
          const n = arg(2);
          this.#style.align = n === 1 || n === 49 ? 'center' : n === 2 || n === 50 ? 'right' : 'left';
          return { consumed: 3 };
        }
        case 0x45:
          if (needs(1)) return 'more';
          this.#style.bold = (arg(2) & 1) === 1;
          return { consumed: 3 };
        case 0x2d: {
          if (needs(1)) return 'more';
          const n = arg(2);
          this.#style.underline = n === 1 || n === 2 || n === 49 || n === 50;
          return { consumed: 3 };
        }
        case 0x21: {
          if (needs(1)) return 'more';
          const n = arg(2);
          this.#style.bold = (n & 0x08) !== 0;
          this.#style.heightScale = n & 0x10 ? 2 : 1;
          this.#style.widthScale = n & 0x20 ? 2 : 1;
          this.#style.underline = (n & 0x80) !== 0;
          return { consumed: 3 };
        }
        case 0x64:
          if (needs(1)) return 'more';
          this.#flushLine(events, false);
          events.push({ type: 'feed', lines: arg(2) });
          return { consumed: 3 };
        case 0x70: {
          if (needs(3)) return 'more';
          const m = arg(2);
          events.push({ type: 'drawer', pin: m === 1 || m === 49 ? 5 : 2, onMs: arg(3) * 2, offMs: arg(4) * 2 });
          return { consumed: 5 };
        }
        case 0x2a: {
          // ESC * m nL nH d1..dk: bit image, k = (nL + 256 nH) × (1 for m 0/1, 3 for m 32/33)
          if (needs(3)) return 'more';
          const columns = arg(3) + 256 * arg(4);
          const length = columns * (arg(2) >= 32 ? 3 : 1);
          return this.#withData(bytes, at, 5, length);
        }
        case 0x26: {
          // ESC & y c1 c2 [x d1..d(y×x)]... user-defined characters: skip header, treat data as opaque
          if (needs(4)) return 'more';
          const y = arg(2);
          const count = Math.max(0, arg(4) - arg(3) + 1);
          let offset = 5;
          for (let i = 0; i < count; i += 1) {
            if (available < offset + 1) return 'more';
            offset += 1 + y * arg(offset);
          }
          return this.#withData(bytes, at, offset, 0);
        }
        default: {
          const fixed = ESC_FIXED[command];
          if (fixed === -1) {
            for (let i = at + 2; i < bytes.length && i - at < 34; i += 1) if (bytes[i] === 0) return { consumed: i - at + 1 };
            return available >= 34 ? { consumed: 2, events: this.#unknown(events, [ESC, command]) } : 'more';
          }
          if (fixed !== undefined) {
            if (needs(fixed)) return 'more';
            if (command === 0x69 || command === 0x6d) {
              this.#flushLine(events, false);
              events.push({ type: 'cut', partial: true });
            }
            return { consumed: 2 + fixed };
          }
          this.#unknown(events, [ESC, command]);
          return { consumed: 2 };
        }
      }
    }
    if (byte === GS) {
      if (available < 2) return 'more';
      const command = arg(1);
      const needs = (n: number): boolean => available < 2 + n;
      switch (command) {
        case 0x21: {
          if (needs(1)) return 'more';
          const n = arg(2);
          this.#style.widthScale = ((n >> 4) & 0x07) + 1;
          this.#style.heightScale = (n & 0x07) + 1;
          return { consumed: 3 };
        }
        case 0x56: {
          if (needs(1)) return 'more';
          const m = arg(2);
          if (m === 65 || m === 66 || m === 97 || m === 98 || m === 103 || m === 104) {
            if (needs(2)) return 'more';
            this.#flushLine(events, false);
            events.push({ type: 'cut', partial: m === 66 || m === 98 || m === 104 });
            return { consumed: 4 };
          }
          this.#flushLine(events, false);
          events.push({ type: 'cut', partial: m === 1 || m === 49 });
          return { consumed: 3 };
        }
        case 0x6b:
          return this.#barcode(bytes, at, events);
        case 0x28: {
          // GS ( X pL pH d1..dk — every GS ( function carries its length
          if (needs(3)) return 'more';
          const length = arg(3) + 256 * arg(4);
          if (length + 5 > this.#maxCommandBytes) return { skip: length, head: bytes.slice(at, at + 5) };
          if (available < 5 + length) return 'more';
          if (arg(2) === 0x6b) this.#qrFunction(bytes.slice(at + 5, at + 5 + length), events);
          return { consumed: 5 + length };
        }
        case 0x76: {
          // GS v 0 m xL xH yL yH d1..dk: raster image, k = (xL + 256 xH) × (yL + 256 yH)
          if (needs(6)) return 'more';
          if (arg(2) !== 0x30) {
            this.#unknown(events, [GS, command]);
            return { consumed: 2 };
          }
          const length = (arg(4) + 256 * arg(5)) * (arg(6) + 256 * arg(7));
          return this.#withData(bytes, at, 8, length);
        }
        case 0x2a: {
          // GS * x y d1..d(x×y×8): define downloaded bit image
          if (needs(2)) return 'more';
          return this.#withData(bytes, at, 4, arg(2) * arg(3) * 8);
        }
        default: {
          const fixed = GS_FIXED[command];
          if (fixed !== undefined) {
            if (needs(fixed)) return 'more';
            return { consumed: 2 + fixed };
          }
          this.#unknown(events, [GS, command]);
          return { consumed: 2 };
        }
      }
    }
    if (byte === DLE) {
      if (available < 2) return 'more';
      const command = arg(1);
      if (command === 0x04 || command === 0x05) {
        if (available < 3) return 'more';
        if (command === 0x04) events.push({ type: 'status_request', n: arg(2) });
        return { consumed: 3 };
      }
      if (command === 0x14) {
        // DLE DC4 fn m t: fn 1 = real-time drawer pulse (m pin 0/1, t × 100 ms)
        if (available < 5) return 'more';
        if (arg(2) === 1) events.push({ type: 'drawer', pin: arg(3) === 1 ? 5 : 2, onMs: arg(4) * 100, offMs: arg(4) * 100 });
        return { consumed: 5 };
      }
      this.#unknown(events, [DLE, command]);
      return { consumed: 2 };
    }
    if (byte === FS) {
      if (available < 2) return 'more';
      const command = arg(1);
      if (command === 0x2e || command === 0x26) return { consumed: 2 }; // FS . / FS & kanji mode off/on
      if (command === 0x21 || command === 0x2d || command === 0x57 || command === 0x43) {
        if (available < 3) return 'more';
        return { consumed: 3 };
      }
      if (command === 0x70) {
        if (available < 4) return 'more';
        return { consumed: 4 }; // FS p n m print NV bit image
      }
      this.#unknown(events, [FS, command]);
      return { consumed: 2 };
    }
    if (byte === 0x0c || byte === 0x18 || byte === 0x00) return { consumed: 1 }; // FF, CAN, NUL: nothing printed
    this.#unknown(events, [byte]);
    return { consumed: 1 };
  }

  #unknown(events: EscPosEvent[], bytes: number[]): EscPosEvent[] {
    events.push({ type: 'unknown', bytes });
    return events;
  }

  #withData(bytes: number[], at: number, header: number, length: number): ParseResult {
    if (header + length > this.#maxCommandBytes) return { skip: length, head: bytes.slice(at, at + header) };
    if (bytes.length - at < header + length) return 'more';
    return { consumed: header + length };
  }

  #barcode(bytes: number[], at: number, events: EscPosEvent[]): ParseResult {
    const available = bytes.length - at;
    if (available < 3) return 'more';
    const m = bytes[at + 2]!;
    if (m <= 6) {
      // form A: NUL-terminated (at most 255 data bytes)
      for (let i = at + 3; i < bytes.length; i += 1) {
        if (bytes[i] === 0) {
          this.#flushLine(events, false);
          events.push({ type: 'barcode', symbology: SYMBOLOGY_A[m]!, data: Buffer.from(bytes.slice(at + 3, i)).toString('latin1') });
          return { consumed: i - at + 1 };
        }
        if (i - at > 258) break;
      }
      if (available > 258) {
        this.#unknown(events, [GS, 0x6b, m]);
        return { consumed: 3 };
      }
      return 'more';
    }
    if (m >= 65 && m <= 73) {
      if (available < 4) return 'more';
      const n = bytes[at + 3]!;
      if (available < 4 + n) return 'more';
      const raw = bytes.slice(at + 4, at + 4 + n);
      const symbology = SYMBOLOGY_B[m - 65]!;
      this.#flushLine(events, false);
      events.push({ type: 'barcode', symbology, data: symbology === 'CODE128' ? decodeCode128(raw) : Buffer.from(raw).toString('latin1') });
      return { consumed: 4 + n };
    }
    this.#unknown(events, [GS, 0x6b, m]);
    return { consumed: 3 };
  }

  #qrFunction(data: number[], events: EscPosEvent[]): void {
    // data = cn fn params…; cn 49 = QR code
    if (data[0] !== 49) return;
    const fn = data[1];
    if (fn === 65 && data.length >= 3) this.#qr.model = data[2] === 49 ? 1 : data[2] === 51 ? 3 : 2;
    else if (fn === 67 && data.length >= 3) this.#qr.moduleSize = data[2]!;
    else if (fn === 69 && data.length >= 3) {
      this.#qr.errorCorrection = (['L', 'M', 'Q', 'H'] as const)[data[2]! - 48] ?? this.#qr.errorCorrection;
    } else if (fn === 80) this.#qr.data = Buffer.from(data.slice(3)).toString('utf8');
    else if (fn === 81) {
      this.#flushLine(events, false);
      events.push({
        type: 'qr',
        data: this.#qr.data,
        model: this.#qr.model,
        moduleSize: this.#qr.moduleSize,
        errorCorrection: this.#qr.errorCorrection,
      });
    }
  }
}

/** CODE128 data of GS k 73: `{A`/`{B`/`{C` select the code set, `{{` is a literal brace; code set C carries pairs of digits as bytes 0–99. */
function decodeCode128(raw: number[]): string {
  let set: 'A' | 'B' | 'C' = 'B';
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i]!;
    if (byte === 0x7b && i + 1 < raw.length) {
      const next = String.fromCharCode(raw[i + 1]!);
      if (next === 'A' || next === 'B' || next === 'C') {
        set = next;
        i += 1;
        continue;
      }
      if (next === '{') {
        out += '{';
        i += 1;
        continue;
      }
    }
    out += set === 'C' && byte < 100 ? String(byte).padStart(2, '0') : String.fromCharCode(byte);
  }
  return out;
}

/** The result of decoding a complete stream. */
export interface DecodedEscPos {
  /** Printed lines in order (empty lines included). */
  lines: DecodedLine[];
  /** Every event in order (lines included). */
  events: EscPosEvent[];
}

/** Decodes a complete ESC/POS stream (see `EscPosDecoder`). Never throws. */
export function decodeEscPos(bytes: Uint8Array, options: EscPosDecoderOptions = {}): DecodedEscPos {
  const decoder = new EscPosDecoder(options);
  const events = [...decoder.push(bytes), ...decoder.end()];
  const lines = events.flatMap((event) => (event.type === 'line' ? [event.line] : []));
  return { lines, events };
}
