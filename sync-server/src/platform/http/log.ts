import type { FastifyServerOptions } from 'fastify';
import { maskCardNumbers } from '../../../../core/index.ts';

/**
 * The request log (Fastify's pino logger) keeps no card number, CVC, token or secret:
 * - a request is logged as method, URL, host and remote address only — no headers; the URL's query values are
 *   replaced by `[redacted]` (`/pay/x?card=[redacted]&cvc=[redacted]`, names kept) and card numbers in its path masked;
 * - should headers ever be logged, `authorization`, `cookie`, `idempotency-key` and `x-device-token` are censored
 *   (pino `redact`);
 * - error messages and stacks, and every string message, have query values redacted and card numbers masked
 *   (core/card-numbers.ts), whatever code logs them.
 */

/** What a redacted value becomes in the log. */
export const REDACTED = '[redacted]';

/** `name=value` pairs of a query string inside any text (a URL, an error message). */
const QUERY_PAIR = /([?&][^=&\s#?]*)=([^&\s#]*)/g;

/** Runs of percent-encoded bytes (`%E2%80%8B`): decoded before the scan, so an encoded spelling cannot hide a PAN. */
const PERCENT_ENCODED = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * `text` (a URL, a message) with every query value replaced by `[redacted]`, percent-encoded bytes decoded (a path
 * parameter `4242%0A4242…` or `%EF%BC%94…` is scanned as what it spells) and card numbers masked in any spelling the
 * scan normalises (core/card-numbers.ts).
 */
export function redactForLog(text: string): string {
  const decoded = text.replace(QUERY_PAIR, `$1=${REDACTED}`).replace(PERCENT_ENCODED, (encoded) => {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return encoded; // not UTF-8: left as sent
    }
  });
  return maskCardNumbers(decoded);
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
