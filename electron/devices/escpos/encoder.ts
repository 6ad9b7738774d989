/**
 * ESC/POS encoder: turns the semantic `PrintJob` blocks of core/devices.ts into Epson ESC/POS bytes.
 * Command reference: the Epson ESC/POS command set, as summarised with byte layouts in
 * test/fixtures/escpos/SOURCE.md (ESC @, ESC t, ESC a, ESC E, ESC -, GS !, GS k, GS ( k, ESC d, GS V, ESC p).
 */
import { printJobSchema, type PrintJob } from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';
import { CODE_PAGE_NUMBER, encodeText, type CodePage } from './code-pages.ts';

const ESC = 0x1b;
const GS = 0x1d;
const LF = 0x0a;

/** Encoder settings. */
export interface EscPosEncoderOptions {
  /** Character table for accented text (ESC t n). Default `pc858` (Western European + €). */
  codePage?: CodePage;
  /** QR module size in dots (GS ( k fn 67), 1–16. Default 6. */
  qrModuleSize?: number;
  /** QR error correction (GS ( k fn 69). Default `M` (15 %). */
  qrErrorCorrection?: 'L' | 'M' | 'Q' | 'H';
  /** Barcode height in dots (GS h). Default 80. */
  barcodeHeight?: number;
  /** Lines fed before a cut (GS V 65 n feeds n × the vertical motion unit, then cuts). Default 3. */
  feedBeforeCut?: number;
  /** Append a cut when the job's last block is not one. Default true (the printer simulator counts receipts by cut). */
  cutAtEnd?: boolean;
}

/** ESC p m t1 t2: pulse on connector pin 2 (m = 0), on for 25 × 2 ms, off for 250 × 2 ms. */
export const DRAWER_KICK = Uint8Array.from([ESC, 0x70, 0x00, 25, 250]);

/** ESC @: initialise (clears styles, alignment and the print buffer's mode settings). */
export const INITIALISE = Uint8Array.from([ESC, 0x40]);

/** Real-time status request DLE EOT n (n = 1 printer, 2 offline cause, 3 error cause, 4 roll paper sensor). */
export function statusRequest(n: 1 | 2 | 3 | 4): Uint8Array {
  return Uint8Array.from([0x10, 0x04, n]);
}

/** Computes the EAN-13 check digit of 12 digits (weights 1,3,1,3… from the left; GS1 General Specifications §7.9). */
export function ean13CheckDigit(twelveDigits: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i += 1) sum += Number(twelveDigits[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

/**
 * Builds ESC/POS bytes step by step. Every method returns `this`; `bytes()` returns the stream so far.
 * Throws `DeviceError('invalid_input')` for data a symbology cannot carry.
 */
export class EscPosBuilder {
  readonly #chunks: number[] = [];
  readonly #options: Required<EscPosEncoderOptions>;

  constructor(options: EscPosEncoderOptions = {}) {
    this.#options = {
      codePage: options.codePage ?? 'pc858',
      qrModuleSize: options.qrModuleSize ?? 6,
      qrErrorCorrection: options.qrErrorCorrection ?? 'M',
      barcodeHeight: options.barcodeHeight ?? 80,
      feedBeforeCut: options.feedBeforeCut ?? 3,
      cutAtEnd: options.cutAtEnd ?? true,
    };
  }

  #push(...bytes: number[]): this {
    for (const byte of bytes) this.#chunks.push(byte & 0xff);
    return this;
  }

  /** ESC @ then ESC t n (the configured code page). */
  initialise(): this {
    return this.#push(...INITIALISE, ESC, 0x74, CODE_PAGE_NUMBER[this.#options.codePage]);
  }

  /** ESC a n — effective at the start of a line. */
  align(align: 'left' | 'center' | 'right'): this {
    return this.#push(ESC, 0x61, align === 'left' ? 0 : align === 'center' ? 1 : 2);
  }

  /** ESC E n. */
  bold(on: boolean): this {
    return this.#push(ESC, 0x45, on ? 1 : 0);
  }

  /** ESC - n (1-dot underline). */
  underline(on: boolean): this {
    return this.#push(ESC, 0x2d, on ? 1 : 0);
  }

  /** GS ! n — double width and height (0x11) or normal (0x00). */
  doubleSize(on: boolean): this {
    return this.#push(GS, 0x21, on ? 0x11 : 0x00);
  }

  /** Text in the configured code page; a line feed is added unless the text ends with one. */
  text(text: string): this {
    this.#push(...encodeText(text, this.#options.codePage));
    if (!text.endsWith('\n')) this.#push(LF);
    return this;
  }

  /** ESC d n — print and feed n lines. */
  feed(lines: number): this {
    return this.#push(ESC, 0x64, Math.max(0, Math.min(255, lines)));
  }

  /** GS V 65 n — feed to the cutter (+ n units) and full cut. */
  cut(): this {
    return this.#push(GS, 0x56, 65, this.#options.feedBeforeCut);
  }

  /** ESC p 0 25 250 — kick the cash drawer on pin 2. */
  openDrawer(): this {
    return this.#push(...DRAWER_KICK);
  }

  /**
   * A barcode with human-readable digits below (GS H 2), centred. EAN-13 takes 12 digits (check digit computed) or
   * 13 (check digit verified), sent as GS k 67 13; CODE128 takes printable ASCII, sent as GS k 73 n with code set B
   * (`{B`, a literal `{` doubled).
   */
  barcode(symbology: 'EAN13' | 'CODE128', data: string): this {
    this.#push(GS, 0x68, this.#options.barcodeHeight, GS, 0x77, 2, GS, 0x48, 2);
    if (symbology === 'EAN13') {
      if (!/^\d{12,13}$/.test(data)) throw new DeviceError('invalid_input', 'EAN-13 takes 12 or 13 digits', { data });
      const check = ean13CheckDigit(data);
      if (data.length === 13 && Number(data[12]) !== check) {
        throw new DeviceError('invalid_input', `EAN-13 check digit should be ${check}`, { data });
      }
      const digits = data.slice(0, 12) + String(check);
      return this.#push(GS, 0x6b, 67, 13, ...Buffer.from(digits, 'ascii'));
    }
    if (!/^[\x20-\x7e]+$/.test(data)) throw new DeviceError('invalid_input', 'CODE128 takes printable ASCII', { data });
    const payload = Buffer.from(`{B${data.replace(/\{/g, '{{')}`, 'ascii');
    if (payload.length > 255) throw new DeviceError('invalid_input', 'CODE128 data too long', { length: data.length });
    return this.#push(GS, 0x6b, 73, payload.length, ...payload);
  }

  /** A QR code, model 2 (GS ( k: fn 65 model, 67 module size, 69 error correction, 80 store, 81 print). UTF-8 data. */
  qr(data: string): this {
    const bytes = Buffer.from(data, 'utf8');
    const storeLength = bytes.length + 3;
    if (storeLength > 7092) throw new DeviceError('invalid_input', 'QR data too long', { length: bytes.length });
    const ec = { L: 48, M: 49, Q: 50, H: 51 }[this.#options.qrErrorCorrection];
    return this.#push(
      GS,
      0x28,
      0x6b,
      4,
      0,
      49,
      65,
      50,
      0,
      GS,
      0x28,
      0x6b,
      3,
      0,
      49,
      67,
      this.#options.qrModuleSize,
      GS,
      0x28,
      0x6b,
      3,
      0,
      49,
      69,
      ec,
      GS,
      0x28,
      0x6b,
      storeLength & 0xff,
      storeLength >> 8,
      49,
      80,
      48,
      ...bytes,
      GS,
      0x28,
      0x6b,
      3,
      0,
      49,
      81,
      48,
    );
  }

  /** Appends raw bytes (already ESC/POS). */
  raw(bytes: Uint8Array): this {
    return this.#push(...bytes);
  }

  /** The bytes built so far. */
  bytes(): Uint8Array {
    return Uint8Array.from(this.#chunks);
  }
}

/**
 * Encodes a whole print job: initialise + code page, each block, a cut at the end (unless `cutAtEnd: false` or the
 * job already ends with one), then the drawer kick when `openDrawer` is set. Throws `DeviceError('invalid_input')`
 * when the job fails `printJobSchema` or a barcode's data is invalid.
 */
export function encodePrintJob(job: PrintJob, options: EscPosEncoderOptions = {}): Uint8Array {
  const parsed = printJobSchema.safeParse(job);
  if (!parsed.success) {
    throw new DeviceError('invalid_input', `invalid print job: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      issues: parsed.error.issues,
    });
  }
  const builder = new EscPosBuilder(options).initialise();
  for (const block of parsed.data.blocks) {
    switch (block.kind) {
      case 'text':
        builder
          .align(block.align ?? 'left')
          .bold(block.bold ?? false)
          .underline(block.underline ?? false);
        builder.doubleSize(block.doubleSize ?? false).text(block.text);
        builder.bold(false).underline(false).doubleSize(false).align('left');
        break;
      case 'barcode':
        builder.align('center').barcode(block.symbology, block.data).align('left');
        break;
      case 'qr':
        builder.align('center').qr(block.data).align('left');
        break;
      case 'feed':
        builder.feed(block.lines);
        break;
      case 'cut':
        builder.cut();
        break;
    }
  }
  if ((options.cutAtEnd ?? true) && parsed.data.blocks.at(-1)?.kind !== 'cut') builder.cut();
  if (parsed.data.openDrawer) builder.openDrawer();
  return builder.bytes();
}
