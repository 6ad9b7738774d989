/**
 * ECR link layer, used by both the card-terminal driver and its simulator: sends a payload as `STX payload ETX LRC`,
 * waits for ACK, retransmits on NAK or silence up to 3 times (4 transmissions in all), then gives up with
 * `DeviceError('no_ack')`. Received frames are answered ACK (and delivered) or NAK (bad LRC, malformed, overlong).
 */
import { EventEmitter } from 'node:events';
import { DeviceError } from '../errors.ts';
import type { SerialCloseInfo, SerialConnection } from '../serial/transport.ts';
import { ACK, encodeFrame, FrameReader, isPrintablePayload, NAK } from './frame.ts';

/** Link settings. */
export interface EcrLinkOptions {
  /** How long to wait for ACK/NAK after a frame. Default 1000 ms. */
  ackTimeoutMs?: number;
  /** Retransmissions after the first send. Default 3. */
  maxRetransmissions?: number;
}

/** Test hooks (simulators only): counters decremented as they fire. */
export interface EcrLinkFaults {
  /** Send the next N outgoing transmissions with a wrong LRC. */
  corruptLrc: number;
  /** Answer the next N well-formed incoming frames with NAK (and drop them). */
  nakFrames: number;
  /** Neither ACK nor deliver the next N incoming frames (silence). */
  ignoreFrames: number;
}

type LinkEvents = {
  /** A well-formed frame's payload (already ACKed). */
  message: [string];
  /** A received frame was refused (NAK sent) or noise was dropped — for logs and counters; nothing is thrown. */
  frameError: [DeviceError];
  close: [SerialCloseInfo];
};

/** One end of an ECR link over a serial connection. */
export class EcrLink extends EventEmitter<LinkEvents> {
  readonly #reader = new FrameReader();
  readonly #ackTimeoutMs: number;
  readonly #maxRetransmissions: number;
  #waiter: ((reply: 'ack' | 'nak' | 'closed') => void) | undefined;
  #sending: Promise<unknown> = Promise.resolve();
  /** Test hooks; all zero in production. */
  readonly faults: EcrLinkFaults = { corruptLrc: 0, nakFrames: 0, ignoreFrames: 0 };
  /** Counters for tests and diagnostics. */
  readonly stats = { framesSent: 0, retransmissions: 0, naksReceived: 0, naksSent: 0, acksSent: 0 };
  readonly #recent: string[] = [];

  constructor(
    readonly connection: SerialConnection,
    options: EcrLinkOptions = {},
  ) {
    super();
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 1000;
    this.#maxRetransmissions = options.maxRetransmissions ?? 3;
    connection.on('data', (chunk) => this.#onData(chunk));
    connection.on('close', (info) => {
      this.#waiter?.('closed');
      this.emit('close', info);
    });
  }

  /**
   * The link's last 40 events, oldest first, for diagnostics (`<ms since epoch> <event>`): bytes received (control
   * bytes named, payloads cut to 48 characters), frames sent with their attempt, the ACK/NAK/timeout each got.
   */
  get recentEvents(): readonly string[] {
    return [...this.#recent];
  }

  #note(event: string): void {
    this.#recent.push(`${Date.now()} ${event}`);
    if (this.#recent.length > 40) this.#recent.shift();
  }

  #onData(chunk: Buffer): void {
    this.#note(`rx ${describeBytes(chunk)}`);
    for (const event of this.#reader.push(chunk)) {
      switch (event.type) {
        case 'ack':
        case 'nak':
          if (event.type === 'nak') this.stats.naksReceived += 1;
          this.#waiter?.(event.type);
          break;
        case 'frame': {
          if (this.faults.ignoreFrames > 0) {
            this.faults.ignoreFrames -= 1;
            break;
          }
          if (this.faults.nakFrames > 0) {
            this.faults.nakFrames -= 1;
            this.#reply(NAK);
            break;
          }
          this.#reply(ACK);
          this.emit('message', Buffer.from(event.payload).toString('latin1'));
          break;
        }
        case 'bad_frame':
          this.#reply(NAK);
          this.emit('frameError', new DeviceError(event.code, event.detail));
          break;
        case 'garbage':
          this.emit('frameError', new DeviceError('malformed_frame', `${event.bytes} stray bytes outside a frame dropped`));
          break;
      }
    }
  }

  #reply(byte: number): void {
    if (byte === ACK) this.stats.acksSent += 1;
    else this.stats.naksSent += 1;
    this.connection.write(Uint8Array.of(byte)).catch(() => {
      // The port went away; 'close' tells the owner.
    });
  }

  /**
   * Sends one payload and resolves when the peer ACKs it. Sends are serialised. Throws `invalid_input` (payload not
   * printable ASCII), `no_ack` (no ACK after the retransmissions), `port_closed`/`disconnected`.
   */
  send(payload: string): Promise<void> {
    const run = this.#sending.then(() => this.#sendNow(payload));
    this.#sending = run.catch(() => undefined);
    return run;
  }

  async #sendNow(payload: string): Promise<void> {
    const body = Buffer.from(payload, 'latin1');
    if (!isPrintablePayload(body)) throw new DeviceError('invalid_input', 'ECR payload must be printable ASCII');
    const frame = encodeFrame(body);
    for (let attempt = 0; attempt <= this.#maxRetransmissions; attempt += 1) {
      if (attempt > 0) this.stats.retransmissions += 1;
      const bytes = Uint8Array.from(frame);
      if (this.faults.corruptLrc > 0) {
        this.faults.corruptLrc -= 1;
        bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
      }
      const reply = new Promise<'ack' | 'nak' | 'closed' | 'timeout'>((resolve) => {
        const timer = setTimeout(() => {
          this.#waiter = undefined;
          resolve('timeout');
        }, this.#ackTimeoutMs);
        this.#waiter = (value) => {
          clearTimeout(timer);
          this.#waiter = undefined;
          resolve(value);
        };
      });
      this.stats.framesSent += 1;
      this.#note(`tx#${attempt} ${payload.slice(0, 48)}`);
      try {
        await this.connection.write(bytes);
      } catch (error) {
        this.#note(`write failed: ${error instanceof Error ? error.message : String(error)}`);
        this.#waiter?.('closed');
        throw error;
      }
      this.#note('written');
      const answer = await reply;
      this.#note(`tx#${attempt} ${answer}`);
      if (answer === 'ack') return;
      if (answer === 'closed') throw new DeviceError('disconnected', 'the terminal went away while a frame was in flight');
    }
    throw new DeviceError('no_ack', `no ACK after ${this.#maxRetransmissions + 1} transmissions`, {
      payloadKind: payload.split('|')[0],
    });
  }
}

/** Bytes as a short readable text: ACK, NAK, STX and ETX named, other control bytes as hex, cut to 48 characters. */
function describeBytes(chunk: Buffer): string {
  const names: Record<number, string> = { [ACK]: '<ACK>', [NAK]: '<NAK>', 0x02: '<STX>', 0x03: '<ETX>' };
  let text = '';
  for (const byte of chunk) text += names[byte] ?? (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `<${byte.toString(16)}>`);
  return text.length > 48 ? `${text.slice(0, 48)}…` : text;
}
