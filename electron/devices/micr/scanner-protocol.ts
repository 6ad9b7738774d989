/**
 * Check-scanner serial protocol (ours, documented in docs/devices.md §"Check scanner"). Lines end with CR LF.
 *
 *   host → scanner   SCAN                 feed and read one check
 *   scanner → host   MICR <raw line>      the MICR line as the scanner's substitution scheme spells it (UTF-8)
 *                    IMG <n>              followed by exactly n bytes of PNG (no line end after them)
 *                    END                  the record is complete
 *                    ERR <REASON>         no record: JAM, DOUBLE_FEED, NO_CHECK, … (upper-case word)
 *
 * A record is MICR [IMG] END. The reader is streaming and never throws: an oversized line (> 512 bytes) is reported
 * as `line_too_long` and skipped up to its CR LF; an image over `maxImageBytes` is reported `image_too_large` and
 * its bytes skipped; anything else off the grammar is `malformed_frame`.
 */

/** One complete scanner record, or a refusal. */
export type ScannerRecord =
  | { type: 'check'; micr: string; image?: Uint8Array }
  | { type: 'scanner_error'; reason: string }
  | { type: 'protocol_error'; code: 'line_too_long' | 'image_too_large' | 'malformed_frame'; detail: string };

export const MAX_SCANNER_LINE = 512;
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The host's scan command. */
export const SCAN_COMMAND = Buffer.from('SCAN\r\n', 'ascii');

/** Encodes a check record (the simulator's side). */
export function encodeCheckRecord(micr: string, image?: Uint8Array): Buffer {
  const parts = [Buffer.from(`MICR ${micr}\r\n`, 'utf8')];
  if (image) parts.push(Buffer.from(`IMG ${image.length}\r\n`, 'ascii'), Buffer.from(image));
  parts.push(Buffer.from('END\r\n', 'ascii'));
  return Buffer.concat(parts);
}

/** Streaming reader of scanner records. */
export class ScannerRecordReader {
  readonly #maxImageBytes: number;
  #line: number[] = [];
  #overflow = false;
  #imageLeft = 0;
  #image: Buffer[] = [];
  #skipImage = false;
  #micr: string | undefined;
  #imageBytes: Uint8Array | undefined;

  constructor(options: { maxImageBytes?: number } = {}) {
    this.#maxImageBytes = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  }

  /** Consumes bytes; returns the records they complete. */
  push(chunk: Uint8Array): ScannerRecord[] {
    const out: ScannerRecord[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.#imageLeft > 0) {
        const take = Math.min(this.#imageLeft, chunk.length - i);
        if (!this.#skipImage) this.#image.push(Buffer.from(chunk.subarray(i, i + take)));
        this.#imageLeft -= take;
        i += take;
        if (this.#imageLeft === 0 && !this.#skipImage) {
          this.#imageBytes = Buffer.concat(this.#image);
          this.#image = [];
        }
        continue;
      }
      const byte = chunk[i]!;
      i += 1;
      if (byte === 0x0a) {
        const line = Buffer.from(this.#line).toString('utf8').replace(/\r$/, '');
        const overflow = this.#overflow;
        this.#line = [];
        this.#overflow = false;
        if (overflow) {
          this.#reset();
          out.push({ type: 'protocol_error', code: 'line_too_long', detail: `line longer than ${MAX_SCANNER_LINE} bytes` });
        } else this.#onLine(line, out);
        continue;
      }
      if (this.#line.length >= MAX_SCANNER_LINE) this.#overflow = true;
      else this.#line.push(byte);
    }
    return out;
  }

  #reset(): void {
    this.#micr = undefined;
    this.#imageBytes = undefined;
    this.#skipImage = false;
  }

  #onLine(line: string, out: ScannerRecord[]): void {
    if (line === '') return;
    if (line.startsWith('MICR ')) {
      if (this.#micr !== undefined) out.push({ type: 'protocol_error', code: 'malformed_frame', detail: 'MICR line without END before it' });
      this.#reset();
      this.#micr = line.slice(5);
      return;
    }
    const image = /^IMG (\d{1,9})$/.exec(line);
    if (image) {
      const size = Number(image[1]);
      if (this.#micr === undefined) {
        out.push({ type: 'protocol_error', code: 'malformed_frame', detail: 'IMG outside a record' });
        this.#skipImage = true;
      } else if (size > this.#maxImageBytes) {
        out.push({ type: 'protocol_error', code: 'image_too_large', detail: `image of ${size} bytes (limit ${this.#maxImageBytes})` });
        this.#micr = undefined;
        this.#skipImage = true;
      } else this.#skipImage = false;
      this.#imageLeft = size;
      this.#image = [];
      if (size === 0 && !this.#skipImage) this.#imageBytes = new Uint8Array();
      return;
    }
    if (line === 'END') {
      if (this.#micr === undefined) {
        if (!this.#skipImage) out.push({ type: 'protocol_error', code: 'malformed_frame', detail: 'END outside a record' });
      } else out.push(this.#imageBytes ? { type: 'check', micr: this.#micr, image: this.#imageBytes } : { type: 'check', micr: this.#micr });
      this.#reset();
      return;
    }
    const error = /^ERR ([A-Z_]{1,32})$/.exec(line);
    if (error) {
      this.#reset();
      out.push({ type: 'scanner_error', reason: error[1]! });
      return;
    }
    out.push({ type: 'protocol_error', code: 'malformed_frame', detail: `unexpected line ${JSON.stringify(line.slice(0, 40))}` });
  }
}
