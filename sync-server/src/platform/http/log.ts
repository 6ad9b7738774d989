import type { FastifyServerOptions } from 'fastify';
import { maskCardNumbers } from '../../../../core/index.ts';

/**
 * The request log (Fastify's pino logger) keeps no card number, CVC, token, secret or message body — every line the
 * server logs passes here:
 * - a request is logged as method, URL, host and remote address only — no headers; the URL's query values are
 *   replaced by `[redacted]` (`/pay/x?card=[redacted]&cvc=[redacted]`, names kept) and card numbers in its path masked;
 * - should headers ever be logged, `authorization`, `cookie`, `idempotency-key` and `x-device-token` are censored
 *   (pino `redact`);
 * - error messages and stacks, every string message and every string in a logged plain object have query values
 *   redacted, the password of a URL (`smtp://user:[redacted]@host`) removed, the deployment's credentials
 *   ({@link redactValuesInLog}: the sealed SMTP_URL, DKIM key and SMS tokens, registered at start) replaced and card
 *   numbers masked (core/card-numbers.ts), whatever code logs them;
 * - a logged object's fields named like a message body or a credential (`body`, `text`, `html`, `password`,
 *   `authToken`, `privateKey`, `secret`, …) are `[redacted]` whole: what a customer is told is not the log's.
 */

/** What a redacted value becomes in the log. */
export const REDACTED = '[redacted]';

/** `name=value` pairs of a query string inside any text (a URL, an error message). */
const QUERY_PAIR = /([?&][^=&\s#?]*)=([^&\s#]*)/g;

/** The password of a URL's user info (`scheme://user:password@`): the password is group 2's. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):([^\s/?#@]*)@/gi;

/** Fields of a logged object censored whole: a message's body, or a credential. */
const SENSITIVE_FIELD = /^(?:body|text|html|password|pass|authToken|auth_token|privateKey|private_key|secret|apiSecret|api_secret)$/i;

/** Shortest credential {@link redactValuesInLog} keeps: a shorter string would censor ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** The deployment's credentials, never to appear in the log (see {@link redactValuesInLog}). */
const secretValues = new Set<string>();

/**
 * Adds credentials the log must never show, wherever they appear in a message, an error or a logged field: each
 * value, and each line of a multi-line one (a PEM key's base64 lines; its `-----BEGIN …` lines are not secret).
 * Values shorter than 8 characters are left out. platform/deployment-secrets.ts registers the deployment's messaging
 * credentials at start; for the life of the process.
 */
export function redactValuesInLog(values: Iterable<string>): void {
  for (const value of values) {
    for (const part of [value, ...value.split(/\r?\n/)]) {
      const trimmed = part.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH && !trimmed.startsWith('-----')) secretValues.add(trimmed);
    }
  }
}

function withoutSecretValues(text: string): string {
  let out = text;
  for (const value of secretValues) if (out.includes(value)) out = out.split(value).join(REDACTED);
  return out;
}

/** Runs of percent-encoded bytes (`%E2%80%8B`): decoded before the scan, so an encoded spelling cannot hide a PAN. */
const PERCENT_ENCODED = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * `text` (a URL, a message) with every query value replaced by `[redacted]`, a URL's password removed, the registered
 * credentials ({@link redactValuesInLog}) replaced, percent-encoded bytes decoded (a path parameter `4242%0A4242…` or
 * `%EF%BC%94…` is scanned as what it spells) and card numbers masked in any spelling the scan normalises
 * (core/card-numbers.ts).
 */
export function redactForLog(text: string): string {
  const bare = withoutSecretValues(text.replace(URL_PASSWORD, `$1:${REDACTED}@`));
  const decoded = bare.replace(QUERY_PAIR, `$1=${REDACTED}`).replace(PERCENT_ENCODED, (encoded) => {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return encoded; // not UTF-8: left as sent
    }
  });
  return maskCardNumbers(withoutSecretValues(decoded));
}

/** How deep {@link redactFields} follows nested plain objects and arrays. */
const MAX_DEPTH = 8;

/**
 * A logged object with its plain objects and arrays walked: strings through {@link redactForLog}, fields named like a
 * body or a credential replaced whole. Anything else (a request, a reply, an Error — their serializers above apply)
 * is left as it is.
 */
function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactForLog(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SENSITIVE_FIELD.test(key) && v !== undefined && v !== null ? REDACTED : redactFields(v, depth + 1);
  }
  return out;
}

/** Header paths censored in any logged object (pino redact syntax). */
const REDACT_PATHS = ['authorization', 'cookie', 'idempotency-key', 'x-device-token', 'set-cookie'].flatMap((h) => [
  `req.headers["${h}"]`,
  `headers["${h}"]`,
  `request.headers["${h}"]`,
]);

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

/**
 * Fastify `logger` options for the server: level info, the serializers and redaction above, written to `stream` when
 * given (a test reads the log from it), else to stdout.
 */
export function serverLoggerOptions(stream?: { write(line: string): void }): NonNullable<FastifyServerOptions['logger']> {
  return {
    level: 'info',
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactForLog(request.url ?? ''),
        host: request.host ?? request.hostname,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      err: (err: Error & { code?: unknown; statusCode?: unknown }) => ({
        type: err.name,
        message: redactForLog(String(err.message)),
        stack: redactForLog(String(err.stack ?? '')),
        ...(err.code !== undefined ? { code: err.code } : {}),
        ...(err.statusCode !== undefined ? { statusCode: err.statusCode } : {}),
      }),
    },
    formatters: { log: (object: Record<string, unknown>) => redactFields(object) as Record<string, unknown> },
    hooks: {
      logMethod(args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? redactForLog(a) : a)),
        );
      },
    },
    ...(stream ? { stream } : {}),
  } as NonNullable<FastifyServerOptions['logger']>;
}
