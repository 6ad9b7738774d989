/**
 * ECR serial framing for the card terminal: `STX payload ETX LRC`, answered by one `ACK` or `NAK` byte.
 *
 * LRC = XOR of every byte after STX up to and including ETX, no initial value. That is the rule the two worked
 * vectors of test/fixtures/ecr/lrc-vectors.tsv agree on (Transbank POS Integrado `0200|123|` → 0x31, Concert/Caisse
 * → 0x01); Nexi ECR17's variant (initial value 0x7F) is a different protocol and not used here.
 *
 * The payload is printable ASCII (0x20–0x7E), so STX/ETX/ACK/NAK can never appear inside it and a receiver can
 * resynchronise on the next STX after garbage.
 */

export const STX = 0x02;
export const ETX = 0x03;
export const ACK = 0x06;
export const NAK = 0x15;

/** Longest payload accepted (bytes between STX and ETX). */
export const MAX_PAYLOAD_BYTES = 1024;

/** XOR of `bytes` (pass payload + ETX). */
export function lrc(bytes: Uint8Array): number {
  let value = 0;
  for (const byte of bytes) value ^= byte;
  return value;
}

/** True when every byte is printable ASCII (the only bytes a payload may carry). */
export function isPrintablePayload(payload: Uint8Array): boolean {
  return payload.every((byte) => byte >= 0x20 && byte <= 0x7e);
}

/** Frames a payload: STX payload ETX LRC. The caller guarantees a printable-ASCII payload (see `encodeEcrMessage`). */
export function encodeFrame(payload: Uint8Array | string): Uint8Array {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'latin1') : payload;
  const out = new Uint8Array(body.length + 3);
  out[0] = STX;
  out.set(body, 1);
  out[body.length + 1] = ETX;
  out[body.length + 2] = lrc(out.subarray(1, body.length + 2));
  return out;
}

/** What the frame reader found, in stream order. */
export type FrameEvent =
  | { type: 'frame'; payload: Uint8Array }
  | { type: 'ack' }
  | { type: 'nak' }
  /** A frame was received but is unusable; the receiver should answer NAK. */
  | { type: 'bad_frame'; code: 'bad_lrc' | 'malformed_frame' | 'line_too_long'; detail: string }
  /** Bytes outside any frame that are not ACK/NAK (line noise); dropped. */
  | { type: 'garbage'; bytes: number };

/**
 * Streaming frame reader: push bytes in any split, get frames, ACK/NAK bytes and errors. Never throws; keeps at most
 * `MAX_PAYLOAD_BYTES + 2` bytes buffered (an overlong frame is reported as `line_too_long` and dropped).
 */
export class FrameReader {
  #state: 'idle' | 'payload' | 'lrc' = 'idle';
  #payload: number[] = [];
  #overflow = false;
  #garbage = 0;

  /** Consumes a chunk and returns the events it completes. */
  push(chunk: Uint8Array): FrameEvent[] {
    const events: FrameEvent[] = [];
    const flushGarbage = (): void => {
      if (this.#garbage > 0) events.push({ type: 'garbage', bytes: this.#garbage });
      this.#garbage = 0;
    };
    for (const byte of chunk) {
      switch (this.#state) {
        case 'idle':
          if (byte === STX) {
            flushGarbage();
            this.#state = 'payload';
            this.#payload = [];
            this.#overflow = false;
          } else if (byte === ACK || byte === NAK) {
            flushGarbage();
            events.push({ type: byte === ACK ? 'ack' : 'nak' });
          } else this.#garbage += 1;
          break;
        case 'payload':
          if (byte === ETX) this.#state = 'lrc';
          else if (byte === STX) {
            // A new frame starts inside the old one: the old one was cut short.
            events.push({ type: 'bad_frame', code: 'malformed_frame', detail: 'STX inside a frame' });
            this.#payload = [];
            this.#overflow = false;
          } else if (this.#payload.length >= MAX_PAYLOAD_BYTES) this.#overflow = true;
          else this.#payload.push(byte);
          break;
        case 'lrc': {
          this.#state = 'idle';
          const payload = Uint8Array.from(this.#payload);
          this.#payload = [];
          if (this.#overflow) {
            events.push({ type: 'bad_frame', code: 'line_too_long', detail: `payload longer than ${MAX_PAYLOAD_BYTES} bytes` });
            break;
          }
          const expected = lrc(payload) ^ ETX;
          if (byte !== expected) {
            events.push({
              type: 'bad_frame',
              code: 'bad_lrc',
              detail: `LRC 0x${byte.toString(16).padStart(2, '0')}, expected 0x${expected.toString(16).padStart(2, '0')}`,
            });
          } else if (!isPrintablePayload(payload)) {
            events.push({ type: 'bad_frame', code: 'malformed_frame', detail: 'payload has non-printable bytes' });
          } else events.push({ type: 'frame', payload });
          break;
        }
      }
    }
    if (this.#state === 'idle') flushGarbage();
    return events;
  }

  /** Drops a half-received frame (after a timeout or a reconnect). */
  reset(): void {
    this.#state = 'idle';
    this.#payload = [];
    this.#overflow = false;
    this.#garbage = 0;
  }
}
