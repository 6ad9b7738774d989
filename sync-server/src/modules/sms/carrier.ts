/**
 * The carrier side of SMS: the {@link SmsCarrier} interface the delivery worker sends through, its typed failures, the
 * Twilio-compatible adapter over HTTP, Twilio's request signature (`X-Twilio-Signature`) and the per-deployment
 * configuration read from the environment (docs/decisions/0091-sms-through-a-provider-api.md, docs/api.md "SMS").
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { smsProviderEnv } from './provider-env.ts';

/** One text to hand to a carrier. */
export interface CarrierMessage {
  /** The sending number (E.164) or sender the account owns. */
  from: string;
  /** The recipient, E.164 (`+14155550123`). */
  to: string;
  body: string;
  /** Where the carrier reports the message's later states (sent, delivered, failed). */
  statusCallbackUrl: string;
  /** Our id of the message (`sms_outbox.id`), for carriers that echo a reference in their callbacks (Vonage `client-ref`). */
  reference: string;
}

/**
 * A carrier that accepts texts for delivery. `send` resolves to the carrier's message id once the carrier accepted
 * the text; it rejects with {@link SmsTemporaryError} when trying again later may succeed (network, timeout, 5xx,
 * 429) and with {@link SmsPermanentError} when it never will (the carrier refused this message).
 */
export interface SmsCarrier {
  send(message: CarrierMessage): Promise<{ providerMessageId: string }>;
}

/** A failure worth retrying: no answer, a timeout, a 5xx or a 429. `code` is the carrier's, when it gave one. */
export class SmsTemporaryError extends Error {
  constructor(
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'SmsTemporaryError';
  }
}

/** The carrier refused the message for good (e.g. Twilio 21211, an invalid `To`): `code` is the carrier's. */
export class SmsPermanentError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'SmsPermanentError';
  }
}

/** A Twilio-compatible account: API base (no trailing slash), Account SID, auth token and sending number. */
export interface TwilioConfig {
  /** e.g. `https://api.twilio.com` (the default), or a compatible provider's or a local provider's base. */
  apiBase: string;
  accountSid: string;
  /** Authenticates the API calls (HTTP basic, password) and keys the signature of the callbacks. */
  authToken: string;
  /** The sending number, E.164. */
  from: string;
}

/** Per-call timeout of the adapter, ms. */
const DEFAULT_CARRIER_TIMEOUT_MS = 10_000;

/**
 * The Twilio Programmable Messaging adapter: `POST {apiBase}/2010-04-01/Accounts/{AccountSid}/Messages.json`,
 * form-encoded `To`, `From`, `Body`, `StatusCallback`, HTTP basic auth (Account SID : auth token); a 2xx JSON answer
 * carries the message's `sid`, an error answer a JSON `code` (e.g. 21211) and `message`. 429 and 5xx, a refused
 * connection and a timeout are temporary; any other answer is permanent.
 */
export class TwilioCarrier implements SmsCarrier {
  constructor(
    private readonly config: TwilioConfig,
    private readonly timeoutMs = DEFAULT_CARRIER_TIMEOUT_MS,
  ) {}

  async send(message: CarrierMessage): Promise<{ providerMessageId: string }> {
    const { apiBase, accountSid, authToken } = this.config;
    const url = `${apiBase}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    const form = new URLSearchParams({ To: message.to, From: message.from, Body: message.body, StatusCallback: message.statusCallbackUrl });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new SmsTemporaryError(`no answer from the carrier: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await response.text().catch(() => '');
    let json: { sid?: unknown; code?: unknown; message?: unknown } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // Not JSON: judged on the status alone.
    }
    const code = typeof json.code === 'number' || typeof json.code === 'string' ? String(json.code) : null;
    const reason = `carrier answered HTTP ${response.status}${typeof json.message === 'string' ? `: ${json.message.slice(0, 200)}` : ''}`;
    if (response.status === 429 || response.status >= 500) throw new SmsTemporaryError(reason, code);
    if (response.status < 200 || response.status > 299) throw new SmsPermanentError(reason, code);
    if (typeof json.sid !== 'string' || json.sid === '') throw new SmsPermanentError(`${reason} without a message sid`, null);
    return { providerMessageId: json.sid };
  }
}

/**
 * Twilio's request signature: base64 of HMAC-SHA1 keyed with the auth token over the full URL Twilio requested
 * (scheme, host, path and query as sent) followed by every POST parameter's name and value, sorted by name (then
 * value), concatenated with no separator.
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const data = url + sorted.map(([name, value]) => name + value).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** True when `signature` is {@link twilioSignature} of the request, compared in constant time; false when missing. */
export function isValidTwilioSignature(authToken: string, url: string, params: Iterable<[string, string]>, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The deployment's carrier from the environment: `SMS_PROVIDER=twilio` with `SMS_ACCOUNT_SID`, `SMS_AUTH_TOKEN`,
 * `SMS_FROM` (E.164) and optionally `SMS_API_BASE` (default `https://api.twilio.com`). Null when `SMS_PROVIDER` is
 * unset or empty (texts stay queued) or `vonage` (vonage.ts `vonageConfigFromEnv` reads that).
 * @throws Error naming the variable for an unknown provider, a missing variable or a malformed value.
 */
export function twilioConfigFromEnv(env: Record<string, string | undefined>): TwilioConfig | null {
  const shared = smsProviderEnv(env, 'twilio', { apiBase: 'https://api.twilio.com', fromExample: '+14155550100' });
  if (!shared) return null;
  const { apiBase, from, need } = shared;
  return { apiBase, accountSid: need('SMS_ACCOUNT_SID'), authToken: need('SMS_AUTH_TOKEN'), from };
}
