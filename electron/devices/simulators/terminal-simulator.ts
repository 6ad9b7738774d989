/**
 * Card-terminal simulator: speaks the ECR protocol (STX payload ETX LRC, ACK/NAK, retransmission) on the far end of a
 * socat pseudo-terminal pair. It approves or declines by test amount (the cents of the amount, see
 * `TEST_AMOUNT_RULES` and docs/devices.md), remembers every transaction by reference (a repeated SALE for a known
 * reference answers the stored result and charges nothing), answers STATUS, and can be told to drop a response, send
 * a corrupt LRC, NAK or ignore incoming frames, or go silent.
 *
 * Offline approval (store and forward): a SALE marked `OFFLINE` by the register, or any SALE while the simulator's host
 * is unreachable (`setHostReachable(false)`), is approved offline (`APPROVED_OFFLINE`) with a store-and-forward token
 * `saf_<brand>_<last4>_<letters>` — except the cancelled / no-card amounts. A sale whose amount would be declined online
 * (cents 01, 02) is approved offline as VISA 0002, the sandbox card the issuer declines when it is forwarded.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { SerialSettingsInput, TerminalResult } from '../../../core/devices.ts';
import { EcrLink } from '../ecr/link.ts';
import { decodeRequest, encodeResponse, type EcrHoldRequest, type EcrRequest, type EcrResponse } from '../ecr/messages.ts';
import { DeviceError } from '../errors.ts';
import { createPtyPair, type PtyPair } from '../serial/pty-pair.ts';
import { openSerialPort, type SerialConnection } from '../serial/transport.ts';

/** What the simulator does for a sale, by `amountCents % 100`. Anything not listed is approved by chip (VISA 4242). */
export const TEST_AMOUNT_RULES: Record<number, Omit<TerminalResult, 'amountCents'>> = {
  1: { outcome: 'declined', message: 'insufficient funds' },
  2: { outcome: 'declined', message: 'card expired' },
  3: { outcome: 'cancelled', message: 'cancelled by customer' },
  4: { outcome: 'timed_out', message: 'no card presented' },
  5: { outcome: 'approved', brand: 'VISA', last4: '4242', entryMode: 'contactless' },
  6: { outcome: 'approved', brand: 'MASTERCARD', last4: '5454', entryMode: 'swipe' },
  7: { outcome: 'approved', brand: 'AMEX', last4: '0005', entryMode: 'manual' },
};

/** A card hold (pre-authorisation) the simulator keeps under its PREAUTH reference. */
export interface SimulatedHold {
  currency: string;
  /** What is held now (the pre-authorisation plus its approved increments). */
  amountCents: number;
  /** The tip set by TIPADJUST (used by a CAPTURE that names none). */
  tipCents: number;
  state: 'held' | 'captured' | 'released';
  /** What the capture took (check + tip). */
  capturedCents?: number;
  token: string;
}

/** One transaction the simulator has finished. */
export interface SimulatedTransaction {
  request: Exclude<EcrRequest, { type: 'status' }>;
  result: TerminalResult;
  /** True when the transaction moved money (an approved sale or refund, not yet voided). */
  charged: boolean;
  voided: boolean;
  /** For an approved PREAUTH: its hold (raised, tipped, captured or released by later requests). */
  hold?: SimulatedHold;
}

/** Simulator settings. */
export interface TerminalSimulatorOptions {
  /** Where to create the pty links (a fresh temp dir when omitted). */
  dir?: string;
  /** Link base name. Default `terminal`. */
  name?: string;
  /** Serial settings (besides the path) of the simulated terminal. Default 9600 8N1. */
  serial?: Omit<SerialSettingsInput, 'path'>;
  /** Time the "customer" takes at the terminal before the result is sent. Default 20 ms. */
  processingMs?: number;
  /** ACK wait of the simulator's own link. Default 500 ms. */
  ackTimeoutMs?: number;
  /**
   * How far a capture (check + tip) may go over the hold, in basis points of the hold: the tip tolerance. Default
   * 2000 (20 %, the card networks' tolerance for restaurants and bars). The check alone may never exceed the hold.
   */
  tipToleranceBps?: number;
}

type SimulatorEvents = { request: [EcrRequest]; response: [EcrResponse]; frameError: [DeviceError] };

/** A running card-terminal simulator; `devicePath` is what the driver opens. */
export class TerminalSimulator extends EventEmitter<SimulatorEvents> {
  readonly #pair: PtyPair;
  readonly #link: EcrLink;
  readonly #processingMs: number;
  readonly #tipToleranceBps: number;
  readonly #transactions = new Map<string, SimulatedTransaction>();
  readonly #inProgress = new Set<string>();
  #dropResponses = 0;
  #online = true;
  #hostReachable = true;
  #nextOfflineCard: { brand: string; last4: string } | undefined;
  #authCounter = 0;
  /** Every request received (decoded), in order. */
  readonly requests: EcrRequest[] = [];

  private constructor(pair: PtyPair, connection: SerialConnection, options: TerminalSimulatorOptions) {
    super();
    this.#pair = pair;
    this.#processingMs = options.processingMs ?? 20;
    this.#tipToleranceBps = options.tipToleranceBps ?? 2000;
    this.#link = new EcrLink(connection, { ackTimeoutMs: options.ackTimeoutMs ?? 500 });
    this.#link.on('message', (payload) => void this.#onMessage(payload));
    this.#link.on('frameError', (error) => this.emit('frameError', error));
  }

  /** Creates the pty pair and opens the terminal end. */
  static async start(options: TerminalSimulatorOptions = {}): Promise<TerminalSimulator> {
    const pair = await createPtyPair({ ...(options.dir ? { dir: options.dir } : {}), name: options.name ?? 'terminal' });
    try {
      const connection = await openSerialPort({ ...options.serial, path: pair.simulatorPath });
      return new TerminalSimulator(pair, connection, options);
    } catch (error) {
      await pair.close();
      throw error;
    }
  }

  /** The path the card-terminal driver opens. */
  get devicePath(): string {
    return this.#pair.devicePath;
  }

  /** Link counters of the simulator's end (NAKs sent, retransmissions…). */
  get linkStats(): Readonly<EcrLink['stats']> {
    return this.#link.stats;
  }

  /** The simulator side's last link events (see `EcrLink.recentEvents`), for diagnostics. */
  get recentLinkEvents(): readonly string[] {
    return this.#link.recentEvents;
  }

  /** Finished transactions by reference. */
  transaction(ref: string): SimulatedTransaction | undefined {
    return this.#transactions.get(ref);
  }

  /** How many times money moved for `ref` (0 or 1 — anything else would be a double charge). */
  chargeCount(ref: string): number {
    return this.#transactions.get(ref)?.charged ? 1 : 0;
  }

  /** The hold made by the PREAUTH under `ref` (undefined when there is none). */
  hold(ref: string): SimulatedHold | undefined {
    return this.#transactions.get(ref)?.hold;
  }

  /** The approved captures of the hold under `holdRef` (more than one would be a double capture). */
  captures(holdRef: string): SimulatedTransaction[] {
    return [...this.#transactions.values()].filter(
      (transaction) => transaction.request.type === 'capture' && transaction.request.holdRef === holdRef && transaction.result.outcome === 'approved',
    );
  }

  /** All transactions that moved money, in order. */
  charges(): SimulatedTransaction[] {
    return [...this.#transactions.values()].filter((transaction) => transaction.charged);
  }

  /** Process the next `count` money requests but never send their RESULT (a lost response). */
  dropNextResponses(count = 1): void {
    this.#dropResponses = count;
  }

  /** Send the next `count` frames with a wrong LRC (the driver NAKs, the link retransmits). */
  corruptNextLrc(count = 1): void {
    this.#link.faults.corruptLrc = count;
  }

  /** NAK the next `count` well-formed frames from the driver. */
  nakNextFrames(count = 1): void {
    this.#link.faults.nakFrames = count;
  }

  /** Neither ACK nor process the next `count` frames from the driver. */
  ignoreNextFrames(count = 1): void {
    this.#link.faults.ignoreFrames = count;
  }

  /** Offline: every incoming frame is ignored (no ACK, no answer). */
  setOnline(online: boolean): void {
    this.#online = online;
    this.#link.faults.ignoreFrames = online ? 0 : Number.MAX_SAFE_INTEGER;
  }

  /** Whether the terminal's own payment host answers; unreachable → every sale is approved offline (store and forward). */
  setHostReachable(reachable: boolean): void {
    this.#hostReachable = reachable;
  }

  /**
   * The card the customer presents at the next offline sale (whatever its amount), e.g. `{ brand: 'VISA', last4: '0002' }`
   * — the sandbox card the issuer declines when the approval is forwarded.
   */
  presentCardOffline(card: { brand: string; last4: string }): void {
    this.#nextOfflineCard = card;
  }

  /** Writes raw bytes on the line (line noise, hand-made frames) from the terminal's end. */
  async writeRaw(bytes: Uint8Array): Promise<void> {
    await this.#link.connection.write(bytes);
  }

  /** Pulls the cable: ends socat so both ends see the device go away. */
  async unplug(): Promise<void> {
    await this.#pair.close();
  }

  /** Stops the simulator and removes its pty pair. */
  async stop(): Promise<void> {
    await this.#link.connection.close();
    await this.#pair.close();
  }

  async #onMessage(payload: string): Promise<void> {
    if (!this.#online) return;
    let request: EcrRequest;
    try {
      request = decodeRequest(payload);
    } catch (error) {
      if (error instanceof DeviceError) this.emit('frameError', error);
      return;
    }
    this.requests.push(request);
    this.emit('request', request);
    if (request.type === 'status') {
      if (request.ref === '') {
        await this.#send({ type: 'status', ref: '', state: this.#inProgress.size > 0 ? 'busy' : 'ready' }, false);
        return;
      }
      const known = this.#transactions.get(request.ref);
      if (known) await this.#send({ type: 'result', ref: request.ref, result: known.result }, false);
      else await this.#send({ type: 'status', ref: request.ref, state: this.#inProgress.has(request.ref) ? 'in_progress' : 'not_found' }, false);
      return;
    }
    const known = this.#transactions.get(request.ref);
    if (known) {
      // Idempotent: a repeated reference gets the stored answer and moves no money.
      await this.#send({ type: 'result', ref: request.ref, result: known.result }, true);
      return;
    }
    if (this.#inProgress.has(request.ref)) return;
    this.#inProgress.add(request.ref);
    await new Promise((resolve) => setTimeout(resolve, this.#processingMs));
    const transaction = this.#decide(request);
    this.#transactions.set(request.ref, transaction);
    this.#inProgress.delete(request.ref);
    await this.#send({ type: 'result', ref: request.ref, result: transaction.result }, true);
  }

  #decide(request: Exclude<EcrRequest, { type: 'status' }>): SimulatedTransaction {
    const declined = (amountCents: number, message: string): SimulatedTransaction => ({
      request,
      result: { outcome: 'declined', amountCents, message },
      charged: false,
      voided: false,
    });
    const approved = (amountCents: number, extra: Partial<TerminalResult> = {}): TerminalResult => ({
      outcome: 'approved',
      amountCents,
      authCode: `A${String((this.#authCounter += 1)).padStart(5, '0')}`,
      // Letters for the hex digits, like the offline token: a digit run of 12 or more in any field makes the driver refuse
      // the whole RESULT as card-number-like (messages.ts), which left about one sale in 30 waiting for an answer that
      // had arrived.
      token: `tok_sim_${letters(createHash('sha256').update(request.ref).digest('hex').slice(0, 24))}`,
      brand: 'VISA',
      last4: '4242',
      entryMode: 'chip',
      ...extra,
    });
    switch (request.type) {
      case 'sale': {
        const rule = TEST_AMOUNT_RULES[request.amountCents % 100];
        if (request.offline || !this.#hostReachable) {
          const presented = this.#nextOfflineCard;
          this.#nextOfflineCard = undefined;
          return offlineSale(request, presented ? { outcome: 'approved', entryMode: 'chip', ...presented } : rule);
        }
        if (rule && rule.outcome !== 'approved') {
          return { request, result: { ...rule, amountCents: request.amountCents }, charged: false, voided: false };
        }
        return { request, result: approved(request.amountCents, rule ?? {}), charged: true, voided: false };
      }
      case 'refund': {
        if (!request.token.startsWith('tok_sim_')) {
          return {
            request,
            result: { outcome: 'declined', amountCents: request.amountCents, message: 'unknown token' },
            charged: false,
            voided: false,
          };
        }
        return { request, result: approved(request.amountCents, { entryMode: undefined }), charged: true, voided: false };
      }
      case 'preauth': {
        if (!this.#hostReachable) return declined(request.amountCents, 'host unreachable: a hold needs the card host');
        const rule = TEST_AMOUNT_RULES[request.amountCents % 100];
        if (rule && rule.outcome !== 'approved') {
          return { request, result: { ...rule, amountCents: request.amountCents }, charged: false, voided: false };
        }
        const result = approved(request.amountCents, rule ?? {});
        const hold: SimulatedHold = {
          currency: request.currency,
          amountCents: request.amountCents,
          tipCents: 0,
          state: 'held',
          token: result.token!,
        };
        return { request, result, charged: false, voided: false, hold };
      }
      case 'increment':
      case 'tip_adjust':
      case 'capture':
      case 'release':
        return this.#decideHold(request, declined, approved);
      case 'void': {
        const original = this.#transactions.get(request.originalRef);
        if (!original || !original.charged || original.voided || original.request.type !== 'sale') {
          return { request, result: { outcome: 'declined', amountCents: 0, message: 'nothing to void' }, charged: false, voided: false };
        }
        original.voided = true;
        original.charged = false;
        return { request, result: approved(original.result.amountCents, { entryMode: undefined }), charged: false, voided: false };
      }
    }
  }

  /** A request on a hold: see the rules in docs/devices.md ("Card holds"). */
  #decideHold(
    request: EcrHoldRequest,
    declined: (amountCents: number, message: string) => SimulatedTransaction,
    approved: (amountCents: number, extra?: Partial<TerminalResult>) => TerminalResult,
  ): SimulatedTransaction {
    const original = this.#transactions.get(request.holdRef);
    const hold = original?.hold;
    const asked = request.type === 'tip_adjust' ? request.tipCents : request.type === 'release' ? 0 : request.amountCents;
    if (!hold) return declined(asked, 'no such hold');
    if (hold.state !== 'held') return declined(asked, hold.state === 'captured' ? 'hold already captured' : 'hold already released');
    if (!this.#hostReachable) return declined(asked, 'host unreachable: a hold needs the card host');
    const done = (amountCents: number, charged = false): SimulatedTransaction => ({
      request,
      result: approved(amountCents, { token: hold.token, brand: original.result.brand, last4: original.result.last4, entryMode: undefined }),
      charged,
      voided: false,
    });
    switch (request.type) {
      case 'increment': {
        const rule = TEST_AMOUNT_RULES[request.amountCents % 100];
        if (rule && rule.outcome === 'declined') return declined(hold.amountCents, rule.message ?? 'declined');
        hold.amountCents += request.amountCents;
        return done(hold.amountCents);
      }
      case 'tip_adjust':
        hold.tipCents = request.tipCents;
        return done(request.tipCents);
      case 'capture': {
        const tip = request.tipCents ?? hold.tipCents;
        const total = request.amountCents + tip;
        if (request.amountCents > hold.amountCents) return declined(total, 'over the authorised amount: raise the hold first');
        const ceiling = hold.amountCents + Math.floor((hold.amountCents * this.#tipToleranceBps) / 10_000);
        if (total > ceiling) return declined(total, 'over the tip tolerance: raise the hold first');
        hold.state = 'captured';
        hold.capturedCents = total;
        return done(total, true);
      }
      case 'release':
        hold.state = 'released';
        return done(hold.amountCents);
    }
  }

  async #send(response: EcrResponse, droppable: boolean): Promise<void> {
    if (droppable && this.#dropResponses > 0) {
      this.#dropResponses -= 1;
      return;
    }
    this.emit('response', response);
    try {
      await this.#link.send(encodeResponse(response));
    } catch (error) {
      if (error instanceof DeviceError) this.emit('frameError', error);
    }
  }
}

/** Letters only (a–p for hex digits), so a token never carries a digit run that looks like a card number. */
const letters = (hex: string): string => hex.replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!);

/** An offline (store-and-forward) decision for a sale: see the file's docstring. */
function offlineSale(request: Extract<EcrRequest, { type: 'sale' }>, rule: Omit<TerminalResult, 'amountCents'> | undefined): SimulatedTransaction {
  if (rule && (rule.outcome === 'cancelled' || rule.outcome === 'timed_out')) {
    return { request, result: { ...rule, amountCents: request.amountCents }, charged: false, voided: false };
  }
  const card =
    rule?.outcome === 'approved'
      ? rule
      : rule
        ? { brand: 'VISA', last4: '0002', entryMode: 'chip' as const }
        : { brand: 'VISA', last4: '4242', entryMode: 'chip' as const };
  const brand = card.brand ?? 'VISA';
  const last4 = card.last4 ?? '4242';
  const token = `saf_${brand.toLowerCase()}_${last4}_${letters(createHash('sha256').update(request.ref).digest('hex').slice(0, 24))}`;
  return {
    request,
    result: {
      outcome: 'approved_offline',
      amountCents: request.amountCents,
      token,
      brand,
      last4,
      entryMode: card.entryMode ?? 'chip',
      message: 'approved offline',
    },
    // Nothing moved yet: the money moves when the register's server forwards the token.
    charged: false,
    voided: false,
  };
}

/** Starts a card-terminal simulator (see `TerminalSimulator`). */
export function startTerminalSimulator(options: TerminalSimulatorOptions = {}): Promise<TerminalSimulator> {
  return TerminalSimulator.start(options);
}
