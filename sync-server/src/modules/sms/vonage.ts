/**
 * The Vonage (formerly Nexmo) SMS API adapter, its signed webhooks' signature (`sig`) and its per-deployment
 * configuration (docs/decisions/0092-vonage-and-quiet-hours.md). Source followed: Vonage's SMS API reference
 * (`POST /sms/json`, its `status` codes, the delivery receipt's `status` and `err-code`) and "Signing Messages"
 * (developer.vonage.com, getting-started/concepts/signing-messages).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { smsSegments } from '../../../../core/index.ts';
import { SmsPermanentError, SmsTemporaryError, type CarrierMessage, type SmsCarrier } from './carrier.ts';
import { smsProviderEnv } from './provider-env.ts';

/** How Vonage signs: the dashboard's "MD5 hash" (the default there), "MD5 HMAC", "SHA1 HMAC", "SHA-256 HMAC", "SHA-512 HMAC". */
export type VonageSignatureMethod = 'md5hash' | 'md5' | 'sha1' | 'sha256' | 'sha512';

const SIGNATURE_METHODS: readonly VonageSignatureMethod[] = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'];

/** A Vonage account: API base (no trailing slash), API key and secret, signature secret and method, sending number. */
export interface VonageConfig {
  /** e.g. `https://rest.nexmo.com` (the default), or a local provider's base. */
  apiBase: string;
  apiKey: string;
  /** Authenticates the API calls (`api_secret`). */
  apiSecret: string;
  /** The account's signature secret: checks the `sig` of the delivery receipts and inbound messages. */
  signatureSecret: string;
  signatureMethod: VonageSignatureMethod;
  /** The sending number, E.164 (sent to Vonage without the `+`). */
  from: string;
}

/** Per-call timeout of the adapter, ms. */
const DEFAULT_CARRIER_TIMEOUT_MS = 10_000;

/** Vonage's send `status` codes worth retrying: 1 throttled, 5 internal error. Any other non-zero code is permanent. */
const TEMPORARY_SEND_STATUS = new Set(['1', '5']);

/**
 * The Vonage SMS API adapter: `POST {apiBase}/sms/json`, form-encoded `api_key`, `api_secret`, `from`, `to` (E.164
 * digits without `+`), `text`, `type` (`unicode` when the text needs UCS-2, core/sms-segments.ts), `callback` (the
 * delivery receipt's URL), `client-ref` (our id, echoed in the receipt) and `status-report-req=1`. Vonage answers
 * 200 with `messages[]`, one per part; a part's `status` "0" is accepted (its `message-id` kept: the first part's),
 * "1" (throttled) and "5" (internal error) are temporary, any other is permanent with that code (e.g. "3" invalid
 * parameters, "4" invalid credentials, "15" invalid sender). HTTP 429 and 5xx, a refused connection and a timeout are
 * temporary; any other HTTP status is permanent.
 */
export class VonageCarrier implements SmsCarrier {
  constructor(
    private readonly config: VonageConfig,
    private readonly timeoutMs = DEFAULT_CARRIER_TIMEOUT_MS,
  ) {}

  async send(message: CarrierMessage): Promise<{ providerMessageId: string }> {
    const { apiBase, apiKey, apiSecret } = this.config;
    const form = new URLSearchParams({
      api_key: apiKey,
      api_secret: apiSecret,
      from: message.from.replace(/^\+/, ''),
      to: message.to.replace(/^\+/, ''),
      text: message.body,
      type: smsSegments(message.body).encoding === 'UCS-2' ? 'unicode' : 'text',
      callback: message.statusCallbackUrl,
      'client-ref': message.reference,
      'status-report-req': '1',
    });
    let response: Response;
    try {
      response = await fetch(`${apiBase}/sms/json`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new SmsTemporaryError(`no answer from the carrier: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await response.text().catch(() => '');
    let json: { messages?: { status?: unknown; 'message-id'?: unknown; 'error-text'?: unknown }[] } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // Not JSON: judged on the status alone.
    }
    if (response.status === 429 || response.status >= 500) throw new SmsTemporaryError(`carrier answered HTTP ${response.status}`);
    if (response.status < 200 || response.status > 299) throw new SmsPermanentError(`carrier answered HTTP ${response.status}`, null);
    const parts = Array.isArray(json.messages) ? json.messages : [];
    const refused = parts.find((p) => String(p.status) !== '0');
    if (refused) {
      const code = String(refused.status);
      const reason = `carrier refused the message: status ${code}${typeof refused['error-text'] === 'string' ? `: ${refused['error-text'].slice(0, 200)}` : ''}`;
      // A refused first part sent nothing; a refused later part leaves the earlier ones sent: recorded as refused
      // for good, never sent again whole.
      if (TEMPORARY_SEND_STATUS.has(code) && parts.indexOf(refused) === 0) throw new SmsTemporaryError(reason, code);
      throw new SmsPermanentError(reason, code);
    }
    const id = parts[0]?.['message-id'];
    if (typeof id !== 'string' || id === '') throw new SmsPermanentError(`carrier answered HTTP ${response.status} without a message-id`, null);
    return { providerMessageId: id };
  }
}

/**
 * Vonage's signature of a signed request or webhook: the parameters other than `sig`, sorted by name, each written
 * `&name=value` with every `&` and `=` in the value replaced by `_`, concatenated; then for `md5hash` the lower-case
 * hex MD5 of that string followed by the signature secret, for the HMAC methods the upper-case hex HMAC of that string
 * keyed with the signature secret.
 */
export function vonageSignature(secret: string, method: VonageSignatureMethod, params: Iterable<[string, string]>): string {
  const sorted = [...params].filter(([name]) => name !== 'sig').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = sorted.map(([name, value]) => `&${name}=${value.replace(/[&=]/g, '_')}`).join('');
  if (method === 'md5hash')
    return createHash('md5')
      .update(data + secret, 'utf8')
      .digest('hex');
  return createHmac(method, secret).update(data, 'utf8').digest('hex').toUpperCase();
}

/** How far a signed webhook's `timestamp` may be from the server's clock, seconds (a replay defence). */
export const VONAGE_SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * True when `params` carry a `sig` that is {@link vonageSignature} of them (hex compared in constant time, either
 * case) and a `timestamp` (Unix seconds) within {@link VONAGE_SIGNATURE_TOLERANCE_SECONDS} of `now`; false when
 * either is missing or wrong.
 */
export function isValidVonageSignature(
  config: Pick<VonageConfig, 'signatureSecret' | 'signatureMethod'>,
  params: ReadonlyMap<string, string>,
  now: Date,
): boolean {
  const signature = params.get('sig');
  const timestamp = params.get('timestamp');
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > VONAGE_SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(vonageSignature(config.signatureSecret, config.signatureMethod, params).toLowerCase());
  const given = Buffer.from(signature.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The deployment's Vonage account from the environment: `SMS_PROVIDER=vonage` with `SMS_API_KEY`, `SMS_API_SECRET`,
 * `SMS_SIGNATURE_SECRET`, `SMS_FROM` (E.164) and optionally `SMS_SIGNATURE_METHOD` (`md5hash`, `md5`, `sha1`,
 * `sha256` — the default — or `sha512`, as chosen in the Vonage dashboard) and `SMS_API_BASE` (default
 * `https://rest.nexmo.com`). Null when `SMS_PROVIDER` is unset, empty or `twilio` (twilioConfigFromEnv reads that).
 * @throws Error naming the variable for an unknown provider, a missing variable or a malformed value.
 */
export function vonageConfigFromEnv(env: Record<string, string | undefined>): VonageConfig | null {
  const shared = smsProviderEnv(env, 'vonage', { apiBase: 'https://rest.nexmo.com', fromExample: '+447700900100' });
  if (!shared) return null;
  const { apiBase, from, need } = shared;
  const method = env.SMS_SIGNATURE_METHOD?.trim() || 'sha256';
  if (!SIGNATURE_METHODS.includes(method as VonageSignatureMethod))
    throw new Error(`SMS_SIGNATURE_METHOD must be one of ${SIGNATURE_METHODS.join(', ')} (as set in the Vonage dashboard).`);
  return {
    apiBase,
    apiKey: need('SMS_API_KEY'),
    apiSecret: need('SMS_API_SECRET'),
    signatureSecret: need('SMS_SIGNATURE_SECRET'),
    signatureMethod: method as VonageSignatureMethod,
    from,
  };
}
