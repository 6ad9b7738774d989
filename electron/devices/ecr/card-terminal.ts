/**
 * Card-terminal driver: sale, refund, void and status over the ECR serial protocol (see `link.ts` for
 * framing/ACK/retransmission and `messages.ts` for the payload format).
 *
 * Never charge twice: the sale's reference is the register's idempotency key. Before a SALE the driver asks the
 * terminal for the STATUS of that reference (a previous attempt, perhaps from before a restart, may have gone
 * through); when a sale's RESULT does not arrive in time it asks STATUS again and only re-sends the SALE when the
 * terminal answers NOT_FOUND (it never saw it). If the terminal cannot be reached at all the outcome is `timed_out`
 * with the reference kept: calling `charge` again with the same idempotency key resumes with a STATUS query.
 *
 * Results never carry a card number (token, brand, last four, entry mode only — no card number leaves the terminal).
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  cardHoldRequestSchema,
  chargeRequestSchema,
  type CardHoldRequest,
  type ChargeRequest,
  type DeviceStatus,
  type SerialSettingsInput,
  type TerminalResult,
} from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';
import { openSerialPort, type SerialConnection } from '../serial/transport.ts';
import { EcrLink } from './link.ts';
import { decodeResponse, encodeRequest, isValidRef, type EcrRequest, type EcrResponse } from './messages.ts';

/** Driver settings. All times in milliseconds. */
export interface CardTerminalOptions {
  port: SerialSettingsInput;
  /** Wait for ACK per frame. Default 1000. */
  ackTimeoutMs?: number;
  /** Wait for a sale/refund/void RESULT (the customer is at the terminal). Default 120 000. */
  responseTimeoutMs?: number;
  /** Wait for the answer to a STATUS query. Default 3000. */
  statusTimeoutMs?: number;
  /** STATUS queries made to resolve a lost response before giving up with `timed_out`. Default 3. */
  statusAttempts?: number;
  /** Pause between STATUS queries while the terminal answers IN_PROGRESS. Default 500. */
  statusPollMs?: number;
}

/** A terminal result with the ECR reference it was made under. */
export type TerminalReply = TerminalResult & { ref: string };

type TerminalEvents = { status: [DeviceStatus]; frameError: [DeviceError] };

/**
 * Turns an idempotency key into an ECR reference: keys of 1–64 printable characters without `|` or space are used as
 * they are, others become `k` + the first 40 hex digits of their SHA-256 (stable, so retries map to the same ref).
 */
export function refForIdempotencyKey(key: string): string {
  return isValidRef(key) ? key : `k${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

/** Errors after which the request may or may not have reached the terminal (resolved by STATUS, never by resending blindly). */
function isLinkFailure(error: unknown): boolean {
  return error instanceof DeviceError && ['no_ack', 'disconnected', 'write_failed', 'port_closed'].includes(error.code);
}

/** The card-terminal driver. Construct with `CardTerminal.open(options)`. Requests run one at a time. */
export class CardTerminal extends EventEmitter<TerminalEvents> {
  readonly #link: EcrLink;
  readonly #options: Required<Omit<CardTerminalOptions, 'port'>>;
  readonly #waiters = new Map<string, (response: EcrResponse) => void>();
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(connection: SerialConnection, options: CardTerminalOptions) {
    super();
    this.#options = {
      ackTimeoutMs: options.ackTimeoutMs ?? 1000,
      responseTimeoutMs: options.responseTimeoutMs ?? 120_000,
      statusTimeoutMs: options.statusTimeoutMs ?? 3000,
      statusAttempts: options.statusAttempts ?? 3,
      statusPollMs: options.statusPollMs ?? 500,
    };
    this.#link = new EcrLink(connection, { ackTimeoutMs: this.#options.ackTimeoutMs });
    this.#link.on('message', (payload) => this.#onMessage(payload));
    this.#link.on('frameError', (error) => this.emit('frameError', error));
    this.#link.on('close', (info) => {
      this.#closed = true;
      for (const waiter of this.#waiters.values()) waiter({ type: 'status', ref: '', state: 'busy' });
      this.#waiters.clear();
      if (info.unexpected) this.emit('status', { device: 'terminal', state: 'offline', detail: 'terminal disconnected' });
    });
  }

  /** Opens the serial port. Throws `DeviceError('port_open_failed' | 'invalid_input')`. */
  static async open(options: CardTerminalOptions): Promise<CardTerminal> {
    const connection = await openSerialPort(options.port);
    await connection.flushInput();
    return new CardTerminal(connection, options);
  }

  /** Link counters (frames sent, retransmissions, NAKs) for diagnostics and tests. */
  get linkStats(): Readonly<EcrLink['stats']> {
    return this.#link.stats;
  }

  /** The link's last events (see `EcrLink.recentEvents`), for diagnostics. */
  get recentLinkEvents(): readonly string[] {
    return this.#link.recentEvents;
  }

  #onMessage(payload: string): void {
    let response: EcrResponse;
    try {
      response = decodeResponse(payload);
    } catch (error) {
      if (error instanceof DeviceError) this.emit('frameError', error);
      return;
    }
    const key = `${response.type === 'result' ? 'result' : 'status'}:${response.ref}`;
    // A RESULT also answers a STATUS query for the same ref.
    const waiter = this.#waiters.get(key) ?? (response.type === 'result' ? this.#waiters.get(`status:${response.ref}`) : undefined);
    waiter?.(response);
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Sends a request and waits for the matching answer (`undefined` on timeout). */
  async #exchange(request: EcrRequest, waitFor: 'result' | 'status', timeoutMs: number): Promise<EcrResponse | undefined> {
    if (this.#closed) throw new DeviceError('disconnected', 'the terminal is not connected');
    const key = `${waitFor}:${request.ref}`;
    const answer = new Promise<EcrResponse | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(key);
        resolve(undefined);
      }, timeoutMs);
      this.#waiters.set(key, (response) => {
        clearTimeout(timer);
        this.#waiters.delete(key);
        resolve(response);
      });
    });
    try {
      await this.#link.send(encodeRequest(request));
    } catch (error) {
      this.#waiters.get(key)?.({ type: 'status', ref: request.ref, state: 'busy' });
      throw error;
    }
    if (this.#closed) return undefined;
    return answer;
  }

  /** One STATUS query: the finished result, a state, or `undefined` when it got no answer (or no ACK). */
  async #status(ref: string): Promise<EcrResponse | undefined> {
    try {
      return await this.#exchange({ type: 'status', ref }, 'status', this.#options.statusTimeoutMs);
    } catch (error) {
      if (isLinkFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * Runs a money request (sale, refund, void) safely: STATUS first, the request, and on a lost answer STATUS again
   * (re-sending only after NOT_FOUND). Resolves with the terminal's result or `timed_out` when it stays unknown.
   */
  async #transact(request: Exclude<EcrRequest, { type: 'status' }>, amountCents: number): Promise<TerminalReply> {
    const ref = request.ref;
    const unknown = (message: string): TerminalReply => ({ ref, outcome: 'timed_out', amountCents, message });
    const finished = (response: EcrResponse | undefined): TerminalReply | undefined =>
      response?.type === 'result' ? { ...response.result, ref } : undefined;

    if (this.#closed) throw new DeviceError('disconnected', 'the terminal is not connected; open it again');
    const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
    const inProgressUntil = Date.now() + this.#options.responseTimeoutMs;
    let state = await this.#status(ref);
    if (state === undefined) {
      this.emit('status', { device: 'terminal', state: 'offline', detail: 'no answer to STATUS' });
      return unknown('terminal not reachable; nothing was sent - retry with the same idempotency key');
    }
    let sends = 0;
    let misses = 0;
    for (;;) {
      const done = finished(state);
      if (done) {
        this.emit('status', { device: 'terminal', state: 'ready' });
        return done;
      }
      if (state?.type === 'status' && state.state === 'not_found') {
        // The terminal has never seen this ref: (re-)send it. At most twice, then give up as unknown.
        if (sends === 2) break;
        sends += 1;
        this.emit('status', { device: 'terminal', state: 'busy' });
        try {
          state = await this.#exchange(request, 'result', this.#options.responseTimeoutMs);
        } catch (error) {
          if (!isLinkFailure(error)) throw error;
          state = undefined;
        }
        if (finished(state)) continue;
      } else if (state?.type === 'status' && state.state === 'in_progress') {
        if (Date.now() >= inProgressUntil) break;
        await sleep(this.#options.statusPollMs);
      } else {
        // No answer: the response was lost or the terminal is silent. Ask again, a bounded number of times.
        misses += 1;
        if (misses > this.#options.statusAttempts) break;
        if (misses > 1) await sleep(this.#options.statusPollMs);
      }
      state = await this.#status(ref);
    }
    this.emit('status', { device: 'terminal', state: 'offline', detail: 'outcome unknown' });
    return unknown('outcome unknown; the terminal did not answer - retry with the same idempotency key');
  }

  /**
   * A card-present sale (`offline: true`: the host is unreachable, the terminal may answer `approved_offline` with a
   * store-and-forward token). Throws `DeviceError('invalid_input')` for a request failing `chargeRequestSchema`,
   * `disconnected` when the port is gone; every terminal outcome (declined, cancelled, timed out) is a result.
   */
  charge(request: ChargeRequest): Promise<TerminalReply> {
    const parsed = chargeRequestSchema.safeParse(request);
    if (!parsed.success) return Promise.reject(new DeviceError('invalid_input', 'invalid charge request', { issues: parsed.error.issues }));
    const ref = refForIdempotencyKey(parsed.data.idempotencyKey);
    return this.#serial(() =>
      this.#transact(
        {
          type: 'sale',
          ref,
          amountCents: parsed.data.amountCents,
          currency: parsed.data.currency,
          ...(parsed.data.offline ? { offline: true } : {}),
        },
        parsed.data.amountCents,
      ),
    );
  }

  /** A refund to the card behind `token` (from the original sale's result). Same guarantees as `charge`. */
  refund(request: ChargeRequest & { token: string }): Promise<TerminalReply> {
    const parsed = chargeRequestSchema.safeParse({
      idempotencyKey: request.idempotencyKey,
      amountCents: request.amountCents,
      currency: request.currency,
    });
    if (!parsed.success || !/^[A-Za-z0-9_-]{1,128}$/.test(request.token)) {
      return Promise.reject(new DeviceError('invalid_input', 'invalid refund request'));
    }
    const ref = refForIdempotencyKey(parsed.data.idempotencyKey);
    return this.#serial(() =>
      this.#transact(
        { type: 'refund', ref, amountCents: parsed.data.amountCents, currency: parsed.data.currency, token: request.token },
        parsed.data.amountCents,
      ),
    );
  }

  /** Voids the sale made under `originalIdempotencyKey` (before settlement). `idempotencyKey` names the void itself. */
  void(request: { idempotencyKey: string; originalIdempotencyKey: string }): Promise<TerminalReply> {
    if (!request.idempotencyKey || !request.originalIdempotencyKey) {
      return Promise.reject(new DeviceError('invalid_input', 'invalid void request'));
    }
    const ref = refForIdempotencyKey(request.idempotencyKey);
    const originalRef = refForIdempotencyKey(request.originalIdempotencyKey);
    return this.#serial(() => this.#transact({ type: 'void', ref, originalRef }, 0));
  }

  /**
   * One step of a card hold (core/devices.ts `CardHoldRequest`): `preauthorize` sends PREAUTH, `increment` INCREMENT,
   * `adjustTip` TIPADJUST, `capture` CAPTURE, `release` RELEASE — each under the reference of its own idempotency key,
   * the hold named by the reference of `holdIdempotencyKey`. Same guarantees as `charge`: STATUS first, a lost answer
   * resolved by STATUS, the frame sent again only after NOT_FOUND, so a capture retried after a crash (same key) is
   * answered with the stored result and never taken twice. The result's `amountCents`: the hold (preauthorize,
   * increment), the tip (adjustTip), the total taken (capture), the hold released (release).
   * Throws `DeviceError('invalid_input')` for a request failing `cardHoldRequestSchema`, `disconnected` when the port
   * is gone; declines (a capture over the tolerance, a hold already captured or released) are results.
   */
  hold(request: CardHoldRequest): Promise<TerminalReply> {
    const parsed = cardHoldRequestSchema.safeParse(request);
    if (!parsed.success) return Promise.reject(new DeviceError('invalid_input', 'invalid card hold request', { issues: parsed.error.issues }));
    const step = parsed.data;
    const ref = refForIdempotencyKey(step.idempotencyKey);
    let ecr: Exclude<EcrRequest, { type: 'status' }>;
    let amountCents: number;
    if (step.action === 'preauthorize') {
      ecr = { type: 'preauth', ref, amountCents: step.amountCents, currency: step.currency };
      amountCents = step.amountCents;
    } else {
      const holdRef = refForIdempotencyKey(step.holdIdempotencyKey);
      if (step.action === 'increment') {
        ecr = { type: 'increment', ref, holdRef, amountCents: step.amountCents };
        amountCents = step.amountCents;
      } else if (step.action === 'adjustTip') {
        ecr = { type: 'tip_adjust', ref, holdRef, tipCents: step.tipCents };
        amountCents = step.tipCents;
      } else if (step.action === 'capture') {
        ecr = { type: 'capture', ref, holdRef, amountCents: step.amountCents, ...(step.tipCents !== undefined ? { tipCents: step.tipCents } : {}) };
        amountCents = step.amountCents + (step.tipCents ?? 0);
      } else {
        ecr = { type: 'release', ref, holdRef };
        amountCents = 0;
      }
    }
    return this.#serial(() => this.#transact(ecr, amountCents));
  }

  /**
   * Asks the terminal about the transaction made under `idempotencyKey`: its result, `not_found`, `in_progress`, or
   * `undefined` when the terminal does not answer.
   */
  lookup(idempotencyKey: string): Promise<TerminalReply | 'not_found' | 'in_progress' | undefined> {
    const ref = refForIdempotencyKey(idempotencyKey);
    return this.#serial(async () => {
      const status = await this.#status(ref);
      if (!status) return undefined;
      if (status.type === 'result') return { ...status.result, ref };
      return status.state === 'not_found' ? 'not_found' : 'in_progress';
    });
  }

  /** Polls the terminal (STATUS with an empty ref) and emits/returns its device status. */
  async queryDeviceStatus(): Promise<DeviceStatus> {
    const status = await this.#serial(() => this.#status('').catch(() => undefined));
    const result: DeviceStatus =
      status?.type === 'status' && (status.state === 'ready' || status.state === 'busy')
        ? { device: 'terminal', state: status.state }
        : { device: 'terminal', state: 'offline', detail: 'no answer' };
    this.emit('status', result);
    return result;
  }

  /** Closes the serial port. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#link.connection.close();
  }
}
