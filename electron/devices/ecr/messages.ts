/**
 * The ECR payload format (ours; documented in docs/devices.md §"Card terminal"). A payload is printable ASCII, fields
 * separated by `|`, the first field naming the message. Amounts are integer minor units, currencies ISO 4217.
 *
 * Host → terminal:
 *   SALE|ref|amountCents|currency[|OFFLINE]   (OFFLINE: the host is unreachable; the terminal may approve offline)
 *   REFUND|ref|amountCents|currency|token
 *   VOID|ref|originalRef
 *   STATUS|ref            (ref empty: the terminal's own state)
 *   PREAUTH|ref|amountCents|currency           hold an amount (pre-authorisation); the hold is named by this ref
 *   INCREMENT|ref|holdRef|amountCents          raise the hold by amountCents (incremental authorisation)
 *   TIPADJUST|ref|holdRef|tipCents             set the tip the capture adds (before the capture)
 *   CAPTURE|ref|holdRef|amountCents|tipCents   take amountCents + tip (tip empty: the adjusted tip, else 0)
 *   RELEASE|ref|holdRef                        void the hold, nothing taken
 * Terminal → host:
 *   RESULT|ref|outcome|amountCents|authCode|token|brand|last4|entryMode|message
 *     outcome: APPROVED | APPROVED_OFFLINE | DECLINED | CANCELLED | TIMED_OUT; entryMode: CHIP | CONTACTLESS | SWIPE | MANUAL | (empty)
 *   STATUS|ref|state      state: NOT_FOUND | IN_PROGRESS (for a ref), READY | BUSY (empty ref)
 *
 * `ref` is the sale's reference (the register's idempotency key), 1–64 printable characters without `|` or space.
 * A terminal answers a STATUS for a finished ref with the RESULT it gave. No field may carry a card number: the
 * decoder refuses any non-amount field holding a run of 12 or more digits.
 */
import type { TerminalResult } from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';

/** A request from the register to the terminal. */
export type EcrRequest =
  | { type: 'sale'; ref: string; amountCents: number; currency: string; offline?: boolean }
  | { type: 'refund'; ref: string; amountCents: number; currency: string; token: string }
  | { type: 'void'; ref: string; originalRef: string }
  | { type: 'status'; ref: string }
  | { type: 'preauth'; ref: string; amountCents: number; currency: string }
  | { type: 'increment'; ref: string; holdRef: string; amountCents: number }
  | { type: 'tip_adjust'; ref: string; holdRef: string; tipCents: number }
  | { type: 'capture'; ref: string; holdRef: string; amountCents: number; tipCents?: number }
  | { type: 'release'; ref: string; holdRef: string };

/** The requests that act on a hold made by a PREAUTH. */
export type EcrHoldRequest = Extract<EcrRequest, { type: 'increment' | 'tip_adjust' | 'capture' | 'release' }>;

/** A message from the terminal to the register. */
export type EcrResponse =
  { type: 'result'; ref: string; result: TerminalResult } | { type: 'status'; ref: string; state: 'not_found' | 'in_progress' | 'ready' | 'busy' };

const REF = /^[\x21-\x7b\x7d\x7e]{1,64}$/;
const AMOUNT = /^\d{1,8}$/;
const CURRENCY = /^[A-Z]{3}$/;
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
const AUTH = /^[A-Za-z0-9]{0,20}$/;
const BRAND = /^[A-Za-z0-9 ]{0,20}$/;
const LAST4 = /^(\d{4})?$/;
const PAN_LIKE = /\d{12,}/;

const OUTCOMES = {
  APPROVED: 'approved',
  APPROVED_OFFLINE: 'approved_offline',
  DECLINED: 'declined',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timed_out',
} as const;
const ENTRY_MODES = { CHIP: 'chip', CONTACTLESS: 'contactless', SWIPE: 'swipe', MANUAL: 'manual' } as const;
const STATES = { NOT_FOUND: 'not_found', IN_PROGRESS: 'in_progress', READY: 'ready', BUSY: 'busy' } as const;

function invalid(detail: string): never {
  throw new DeviceError('invalid_input', `cannot encode ECR message: ${detail}`);
}

function malformed(detail: string, payload: string): never {
  throw new DeviceError('malformed_frame', `malformed ECR payload: ${detail}`, { payload: payload.slice(0, 120) });
}

/** True when `ref` can be sent as an ECR reference. */
export function isValidRef(ref: string): boolean {
  return REF.test(ref);
}

/** Makes a free-text message safe for a payload: printable ASCII, no `|`, at most 200 characters. */
export function sanitizeMessage(message: string): string {
  return message
    .normalize('NFD')
    .replace(/[^\x20-\x7b\x7d\x7e]/g, '')
    .slice(0, 200);
}

/** Encodes a request payload. Throws `DeviceError('invalid_input')` for fields the format cannot carry. */
export function encodeRequest(request: EcrRequest): string {
  if (!REF.test(request.ref) && !(request.type === 'status' && request.ref === '')) invalid(`bad ref ${JSON.stringify(request.ref)}`);
  switch (request.type) {
    case 'sale':
    case 'refund': {
      if (!Number.isInteger(request.amountCents) || request.amountCents < 1 || request.amountCents > 99_999_999) {
        invalid('amountCents must be an integer 1..99999999');
      }
      if (!CURRENCY.test(request.currency)) invalid('currency must be ISO 4217');
      const head = `${request.type === 'sale' ? 'SALE' : 'REFUND'}|${request.ref}|${request.amountCents}|${request.currency}`;
      if (request.type === 'sale') return request.offline ? `${head}|OFFLINE` : head;
      if (!TOKEN.test(request.token)) invalid('bad token');
      return `${head}|${request.token}`;
    }
    case 'void':
      if (!REF.test(request.originalRef)) invalid('bad originalRef');
      return `VOID|${request.ref}|${request.originalRef}`;
    case 'status':
      return `STATUS|${request.ref}`;
    case 'preauth':
      checkAmount(request.amountCents, 1);
      if (!CURRENCY.test(request.currency)) invalid('currency must be ISO 4217');
      return `PREAUTH|${request.ref}|${request.amountCents}|${request.currency}`;
    case 'increment':
    case 'tip_adjust':
    case 'capture':
    case 'release': {
      if (!REF.test(request.holdRef)) invalid('bad holdRef');
      if (request.type === 'release') return `RELEASE|${request.ref}|${request.holdRef}`;
      if (request.type === 'increment') {
        checkAmount(request.amountCents, 1);
        return `INCREMENT|${request.ref}|${request.holdRef}|${request.amountCents}`;
      }
      if (request.type === 'tip_adjust') {
        checkAmount(request.tipCents, 0);
        return `TIPADJUST|${request.ref}|${request.holdRef}|${request.tipCents}`;
      }
      checkAmount(request.amountCents, 1);
      if (request.tipCents !== undefined) checkAmount(request.tipCents, 0);
      return `CAPTURE|${request.ref}|${request.holdRef}|${request.amountCents}|${request.tipCents ?? ''}`;
    }
  }
}

function checkAmount(cents: number, min: 0 | 1): void {
  if (!Number.isInteger(cents) || cents < min || cents > 99_999_999) invalid(`amounts must be integers ${min}..99999999`);
}

/** Decodes a request payload (the terminal side). Throws `DeviceError('malformed_frame')`. */
export function decodeRequest(payload: string): EcrRequest {
  const fields = payload.split('|');
  const [kind, ref = ''] = fields;
  const want = (count: number): void => {
    if (fields.length !== count) malformed(`${kind} takes ${count} fields, got ${fields.length}`, payload);
  };
  const checkRef = (value: string): string => (REF.test(value) ? value : malformed('bad ref', payload));
  const amountOf = (value: string, min: 0 | 1): number =>
    AMOUNT.test(value) && Number(value) >= min ? Number(value) : malformed('bad amount', payload);
  switch (kind) {
    case 'SALE':
    case 'REFUND': {
      const offline = kind === 'SALE' && fields.length === 5 && fields[4] === 'OFFLINE';
      if (!offline) want(kind === 'SALE' ? 4 : 5);
      const amount = fields[2]!;
      const currency = fields[3]!;
      if (!AMOUNT.test(amount) || Number(amount) < 1) malformed('bad amount', payload);
      if (!CURRENCY.test(currency)) malformed('bad currency', payload);
      if (kind === 'SALE') return { type: 'sale', ref: checkRef(ref), amountCents: Number(amount), currency, ...(offline ? { offline } : {}) };
      const token = fields[4]!;
      if (!TOKEN.test(token)) malformed('bad token', payload);
      return { type: 'refund', ref: checkRef(ref), amountCents: Number(amount), currency, token };
    }
    case 'VOID':
      want(3);
      return { type: 'void', ref: checkRef(ref), originalRef: checkRef(fields[2]!) };
    case 'STATUS':
      want(2);
      return { type: 'status', ref: ref === '' ? '' : checkRef(ref) };
    case 'PREAUTH': {
      want(4);
      const currency = fields[3]!;
      if (!CURRENCY.test(currency)) malformed('bad currency', payload);
      return { type: 'preauth', ref: checkRef(ref), amountCents: amountOf(fields[2]!, 1), currency };
    }
    case 'INCREMENT':
      want(4);
      return { type: 'increment', ref: checkRef(ref), holdRef: checkRef(fields[2]!), amountCents: amountOf(fields[3]!, 1) };
    case 'TIPADJUST':
      want(4);
      return { type: 'tip_adjust', ref: checkRef(ref), holdRef: checkRef(fields[2]!), tipCents: amountOf(fields[3]!, 0) };
    case 'CAPTURE': {
      want(5);
      const tip = fields[4]!;
      return {
        type: 'capture',
        ref: checkRef(ref),
        holdRef: checkRef(fields[2]!),
        amountCents: amountOf(fields[3]!, 1),
        ...(tip === '' ? {} : { tipCents: amountOf(tip, 0) }),
      };
    }
    case 'RELEASE':
      want(3);
      return { type: 'release', ref: checkRef(ref), holdRef: checkRef(fields[2]!) };
    default:
      return malformed(`unknown message ${JSON.stringify(kind?.slice(0, 12))}`, payload);
  }
}

/** Encodes a response payload (the terminal side). Throws `DeviceError('invalid_input')`. */
export function encodeResponse(response: EcrResponse): string {
  if (response.type === 'status') {
    const state = Object.entries(STATES).find(([, value]) => value === response.state)?.[0];
    if (!state) invalid('bad state');
    return `STATUS|${response.ref}|${state}`;
  }
  const { result } = response;
  const outcome = Object.entries(OUTCOMES).find(([, value]) => value === result.outcome)?.[0] ?? invalid('bad outcome');
  const entry = result.entryMode ? (Object.entries(ENTRY_MODES).find(([, value]) => value === result.entryMode)?.[0] ?? '') : '';
  const fields = [
    'RESULT',
    response.ref,
    outcome,
    String(result.amountCents),
    result.authCode ?? '',
    result.token ?? '',
    result.brand ?? '',
    result.last4 ?? '',
    entry,
    sanitizeMessage(result.message ?? ''),
  ];
  if (!REF.test(response.ref)) invalid('bad ref');
  return fields.join('|');
}

/**
 * Decodes a response payload (the register side) into a `TerminalResult` that satisfies `terminalResultSchema`.
 * Throws `DeviceError('malformed_frame')` for anything off the format, including a card-number-like digit run.
 */
export function decodeResponse(payload: string): EcrResponse {
  const fields = payload.split('|');
  const kind = fields[0];
  if (kind === 'STATUS') {
    if (fields.length !== 3) malformed('STATUS answer takes 3 fields', payload);
    const ref = fields[1]!;
    if (ref !== '' && !REF.test(ref)) malformed('bad ref', payload);
    const state = STATES[fields[2] as keyof typeof STATES];
    if (!state) malformed('bad state', payload);
    return { type: 'status', ref, state };
  }
  if (kind !== 'RESULT') return malformed(`unknown message ${JSON.stringify(kind?.slice(0, 12))}`, payload);
  if (fields.length !== 10) malformed(`RESULT takes 10 fields, got ${fields.length}`, payload);
  const [, ref, outcomeCode, amount, authCode, token, brand, last4, entryCode, message] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!REF.test(ref)) malformed('bad ref', payload);
  const outcome = OUTCOMES[outcomeCode as keyof typeof OUTCOMES];
  if (!outcome) malformed('bad outcome', payload);
  if (!/^\d{1,8}$/.test(amount)) malformed('bad amount', payload);
  if (!AUTH.test(authCode)) malformed('bad auth code', payload);
  if (token !== '' && !TOKEN.test(token)) malformed('bad token', payload);
  if (!BRAND.test(brand)) malformed('bad brand', payload);
  if (!LAST4.test(last4)) malformed('bad last four', payload);
  const entryMode = entryCode === '' ? undefined : ENTRY_MODES[entryCode as keyof typeof ENTRY_MODES];
  if (entryCode !== '' && !entryMode) malformed('bad entry mode', payload);
  if (message.length > 200) malformed('message too long', payload);
  for (const field of [ref, authCode, token, brand, message]) {
    if (PAN_LIKE.test(field)) malformed('a field carries a card-number-like digit run', '[redacted]');
  }
  const result: TerminalResult = {
    outcome,
    amountCents: Number(amount),
    ...(authCode ? { authCode } : {}),
    ...(token ? { token } : {}),
    ...(brand ? { brand } : {}),
    ...(last4 ? { last4 } : {}),
    ...(entryMode ? { entryMode } : {}),
    ...(message ? { message } : {}),
  };
  return { type: 'result', ref, result };
}
