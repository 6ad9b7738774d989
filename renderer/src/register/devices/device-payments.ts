/**
 * Card and check tenders through the store's devices, as React hooks the tender dialog drives.
 *
 * Card: one idempotency key per payment attempt. Approved → the sale is stored (then printed by the caller);
 * declined or cancelled → the sale stays open with the terminal's reason and the next attempt gets a new key; an
 * unknown outcome (the terminal's answer was lost and its STATUS queries went unanswered, or the bridge dropped
 * mid-charge) keeps the key, so "Check again" asks the terminal about *that* payment first and can never charge
 * twice. An approval whose sale could not be stored is kept and stored again without charging again.
 *
 * Offline (store and forward): while the register cannot reach the server, a card sale goes to the terminal
 * marked offline, within the store's offline limits (per payment, and what this register already holds unforwarded);
 * the terminal's offline approval is stored as a `pending_forward` tender with its token, which the server forwards
 * when the sale syncs. An amount over what is left is refused before the terminal is asked.
 *
 * Check: the scanner reads the MICR line; the tender keeps routing number, check number and the account's last four.
 */
import { useRef, useState } from 'react';
import { newId, type SalePayment } from '../../../../core/index.ts';
import { formatMoney } from '../../../../core/index.ts';
import type { CheckScan, TerminalResult } from '../../../../core/devices.ts';
import { DeviceCallFailure, type DeviceClient } from '../../platform/devices/index.ts';
import { rememberCardToken } from '../returns/card-tokens.ts';

/** Where a card payment stands. */
export type CardPhase = 'idle' | 'waiting' | 'declined' | 'unknown' | 'failed' | 'unsaved';

export interface CardPayment {
  phase: CardPhase;
  message: string | undefined;
  /** Charges (or, after an unknown outcome, asks about) the card payment of `amountCents`. */
  charge(amountCents: number): Promise<void>;
  /** Forgets an unknown outcome and starts a new attempt (the cashier checked the terminal: nothing was charged). */
  startOver(): void;
}

/** Failures after which the charge may or may not have reached the terminal. */
const MAYBE_SENT = new Set(['disconnected', 'timeout', 'no_ack', 'write_failed']);

/** A terminal `timed_out` that means "we do not know", as opposed to the terminal's own "no card presented". */
function isUnknownOutcome(result: TerminalResult): boolean {
  return result.outcome === 'timed_out' && /outcome unknown|not reachable/i.test(result.message ?? '');
}

/** The register's offline state for a card sale (see offline-cards.ts). */
export interface CardOffline {
  isOffline: boolean;
  /** The largest card payment that may be approved offline now (minor units). */
  limitLeftCents: number;
}

/** What a card payment needs from the register, read at each step (the latest render's values). */
export interface CardPaymentDeps {
  client: DeviceClient;
  currency: string;
  /** Stores the sale with this tender (and prints); throws when the sale could not be stored. */
  complete: (payment: SalePayment) => Promise<void>;
  offline?: CardOffline | undefined;
}

/**
 * The card tender's states without React (the hook below renders them): `charge` charges or, after an unknown
 * outcome, asks the terminal about that same payment; `onChange` is called after every change of `phase`/`message`.
 *
 * While an earlier attempt's outcome is unknown, its idempotency key is kept through every failure of the call itself
 * (the bridge unreachable, a device error): only the terminal's answer (approved, declined, cancelled) or the cashier's
 * "start over" ends it — a retry under a new key could charge the card a second time.
 */
export class CardPaymentFlow implements CardPayment {
  phase: CardPhase = 'idle';
  message: string | undefined;
  #key: { idempotencyKey: string; amountCents: number } | undefined;
  #approved: SalePayment | undefined;

  constructor(
    private readonly deps: () => CardPaymentDeps,
    private readonly onChange: () => void = () => undefined,
  ) {}

  #set(phase: CardPhase, message: string | undefined): void {
    this.phase = phase;
    this.message = message;
    this.onChange();
  }

  async #store(payment: SalePayment): Promise<void> {
    this.#approved = payment;
    // The terminal has answered: the cashier is no longer asked to follow it while the sale is written.
    this.#set('waiting', 'Card approved. Saving the sale…');
    try {
      await this.deps().complete(payment);
      this.#approved = undefined;
      this.#key = undefined;
      this.#set('idle', undefined);
    } catch (error) {
      this.#set(
        'unsaved',
        `The card was approved but the sale was not saved: ${error instanceof Error ? error.message : String(error)}. Save it again — the card is not charged again.`,
      );
    }
  }

  /** Charges (or, after an unknown outcome, asks about) the card payment of `amountCents` (minor units). Never throws. */
  charge = async (amountCents: number): Promise<void> => {
    if (this.#approved) {
      await this.#store(this.#approved);
      return;
    }
    const { client, currency, offline } = this.deps();
    const isOffline = offline?.isOffline === true;
    if (isOffline && !this.#key && amountCents > offline.limitLeftCents) {
      this.#set(
        'declined',
        `Over the offline card limit: ${formatMoney(offline.limitLeftCents, currency)} can be approved offline now. Take another payment or wait until the register is back online.`,
      );
      return;
    }
    // An unknown outcome for another amount must be settled first: never start a second payment beside it.
    const settling = this.#key !== undefined;
    if (!this.#key) this.#key = { idempotencyKey: newId('tender'), amountCents };
    const attempt = this.#key;
    this.#set(
      'waiting',
      attempt.amountCents === amountCents ? 'Follow the instructions on the card terminal…' : 'Asking the terminal about the earlier payment…',
    );
    let result: TerminalResult;
    try {
      result = await client.charge({
        idempotencyKey: attempt.idempotencyKey,
        amountCents: attempt.amountCents,
        currency,
        ...(isOffline ? { offline: true } : {}),
      });
    } catch (error) {
      const failure = error instanceof DeviceCallFailure ? error : new DeviceCallFailure('internal', String(error));
      if (MAYBE_SENT.has(failure.code)) {
        this.#set(
          'unknown',
          `Lost contact with the card terminal (${failure.message}). Check again before anything else: the payment may have gone through.`,
        );
      } else if (settling) {
        // This call never reached the terminal, but the earlier one may have: still unknown, same key.
        this.#set(
          'unknown',
          `Could not ask the card terminal about the earlier payment (${failure.message}). Check again before anything else: that payment may have gone through.`,
        );
      } else {
        this.#key = undefined;
        this.#set('failed', `The card terminal cannot take payments: ${failure.message}`);
      }
      return;
    }
    if (result.outcome === 'approved') {
      // Kept for a refund to this card at a return: the terminal refunds by the sale's token.
      rememberCardToken(result);
      await this.#store({
        method: 'card',
        ...(result.brand ? { cardBrand: result.brand } : {}),
        ...(result.last4 ? { last4: result.last4 } : {}),
        ...(result.authCode ? { authCode: result.authCode } : {}),
      });
      return;
    }
    if (result.outcome === 'approved_offline' && result.token) {
      // Approved by the terminal without its host: stored with the token; the server forwards it when the sale syncs.
      await this.#store({
        method: 'card',
        ...(result.brand ? { cardBrand: result.brand } : {}),
        ...(result.last4 ? { last4: result.last4 } : {}),
        offline: { token: result.token, approvedAt: new Date().toISOString() },
      });
      return;
    }
    if (isUnknownOutcome(result)) {
      this.#set(
        'unknown',
        'No answer from the card terminal: the outcome is unknown. Check again — the terminal is asked about this payment before anything is charged.',
      );
      return;
    }
    this.#key = undefined;
    const reason = result.message ? `: ${result.message}` : '';
    this.#set(
      'declined',
      result.outcome === 'declined'
        ? `Card declined${reason}`
        : result.outcome === 'cancelled'
          ? `Payment cancelled${reason}`
          : `The terminal timed out${reason}`,
    );
  };

  /** Forgets an unknown outcome and starts a new attempt (the cashier checked the terminal: nothing was charged). */
  startOver = (): void => {
    this.#key = undefined;
    this.#set('idle', undefined);
  };
}

/**
 * The card tender as a hook: `complete` stores the sale (and prints) once the terminal approved — online, or offline
 * within `offline.limitLeftCents` while `offline.isOffline`. See {@link CardPaymentFlow}.
 */
export function useCardPayment(
  client: DeviceClient,
  currency: string,
  complete: (payment: SalePayment) => Promise<void>,
  offline?: CardOffline,
): CardPayment {
  const [, setVersion] = useState(0);
  const deps = useRef<CardPaymentDeps>({ client, currency, complete, offline });
  deps.current = { client, currency, complete, offline };
  const flow = useRef<CardPaymentFlow | undefined>(undefined);
  flow.current ??= new CardPaymentFlow(
    () => deps.current,
    () => setVersion((v) => v + 1),
  );
  const { phase, message, charge, startOver } = flow.current;
  return { phase, message, charge, startOver };
}

/** Where a check scan stands. */
export interface CheckPayment {
  phase: 'idle' | 'scanning' | 'scanned' | 'error';
  scan: CheckScan | undefined;
  message: string | undefined;
  /** The check number shown and stored: the MICR check number, or the business check's auxiliary on-us field. */
  checkNumber: string | undefined;
  scanCheck(): Promise<void>;
  /** The tender for the scanned check (undefined before a good scan). */
  payment(): SalePayment | undefined;
}

/** The check tender: scan, show the MICR fields, then complete. */
export function useCheckPayment(client: DeviceClient): CheckPayment {
  const [phase, setPhase] = useState<CheckPayment['phase']>('idle');
  const [scan, setScan] = useState<CheckScan | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const digits = (value: string | undefined) => value?.replace(/\D/g, '').slice(-15) || undefined;
  const checkNumber = digits(scan?.checkNumber) ?? digits(scan?.auxOnUs);

  const scanCheck = async () => {
    setPhase('scanning');
    setMessage('Insert the check into the scanner…');
    try {
      const result = await client.scanCheck();
      setScan(result);
      setPhase('scanned');
      setMessage(undefined);
    } catch (error) {
      setScan(undefined);
      setPhase('error');
      setMessage(`The check could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const payment = (): SalePayment | undefined => {
    if (!scan) return undefined;
    const accountDigits = scan.accountNumber.replace(/\D/g, '');
    return {
      method: 'check',
      routingNumber: scan.routingNumber,
      ...(accountDigits.length >= 4 ? { last4: accountDigits.slice(-4) } : {}),
      ...(checkNumber ? { checkNumber } : {}),
    };
  };

  return { phase, scan, message, checkNumber, scanCheck, payment };
}
