/**
 * The narrow message bridge between the register and an in-platform app running in its sandboxed frame (the app
 * talks to the API with its own token, only through this bridge).
 *
 * The frame is `<iframe sandbox="allow-scripts allow-forms">` — no `allow-same-origin`, so the app's document has an
 * opaque origin (`"null"`): it cannot read the register's IndexedDB, localStorage or cookies, nor reach its devices,
 * and it never holds a token. It asks the register for API calls with `postMessage`:
 *
 *   app → register   `{ type: 'register-api', id, method: 'GET' | 'POST', path: '/api/pos/…', body? }`
 *   register → app   `{ type: 'register-api-result', id, status, body }`
 *
 * The register accepts a message only from that frame's `contentWindow` (and only with the opaque origin of a
 * sandboxed document), only of exactly that shape ({@link parseBridgeRequest}), and performs it with the APP's access
 * token (from `POST /api/pos/app-installations/{id}/launch`, carrying only the scopes the owner granted) — never the
 * staff token. Everything else is ignored. Pure parts ({@link parseBridgeRequest}, {@link bridgePathProblem}) are
 * unit-tested in test/renderer/app-bridge.test.ts.
 */

/** `type` of a request from the app. */
export const BRIDGE_REQUEST_TYPE = 'register-api';
/** `type` of the register's answer. */
export const BRIDGE_RESULT_TYPE = 'register-api-result';
/** Longest path (with its query) the bridge forwards, in characters. */
export const MAX_BRIDGE_PATH_CHARS = 2048;
/** Largest POST body the bridge forwards, in characters of its JSON text (64 KiB). */
export const MAX_BRIDGE_BODY_CHARS = 64 * 1024;
/** Requests of one app in flight at once; more are answered 429 at once without reaching the server. */
export const MAX_BRIDGE_IN_FLIGHT = 8;

/** A request the bridge accepted: a JSON API call under `/api/pos/`. */
export interface BridgeRequest {
  type: typeof BRIDGE_REQUEST_TYPE;
  /** The app's correlation id (string of 1–100 characters or a safe integer), echoed in the result. */
  id: string | number;
  method: 'GET' | 'POST';
  /** Absolute path under `/api/pos/`, optionally with a query. */
  path: string;
  /** POST only: the JSON body. */
  body?: unknown;
}

/** The register's answer to a {@link BridgeRequest}: the HTTP status (0 when the server could not be reached) and body. */
export interface BridgeResult {
  type: typeof BRIDGE_RESULT_TYPE;
  id: string | number;
  status: number;
  /** The parsed JSON body (an RFC 9457 problem on errors), the text of a non-JSON answer, or null. */
  body: unknown;
}

const API_PREFIX = '/api/pos/';

/**
 * Why `path` may not go through the bridge, or null when it may: it must be a string of at most
 * {@link MAX_BRIDGE_PATH_CHARS} characters starting with `/api/pos/`, with no `..` (plain or percent-encoded), no
 * backslash, no empty segment (`//`), no fragment, no whitespace or control character, and must stay under
 * `/api/pos/` once a URL parser has normalised it.
 */
export function bridgePathProblem(path: unknown): string | null {
  if (typeof path !== 'string') return 'path must be a string';
  if (path.length > MAX_BRIDGE_PATH_CHARS) return `path longer than ${MAX_BRIDGE_PATH_CHARS} characters`;
  if (!path.startsWith(API_PREFIX)) return `path must start with ${API_PREFIX}`;
  if (path.includes('..')) return 'path must not contain ..';
  if (/%2e/i.test(path)) return 'path must not contain an encoded dot';
  if (/%2f|%5c/i.test(path)) return 'path must not contain an encoded slash';
  if (path.includes('\\')) return 'path must not contain a backslash';
  if (path.includes('#')) return 'path must not carry a fragment';
  if (/[\u0000-\u0020\u007f]/.test(path)) return 'path must not contain whitespace or control characters';
  const pathname = path.split('?')[0]!;
  if (pathname.includes('//')) return 'path must not contain an empty segment';
  let parsed: URL;
  try {
    parsed = new URL(path, 'http://register.invalid');
  } catch {
    return 'path is not a valid URL path';
  }
  if (parsed.origin !== 'http://register.invalid' || !parsed.pathname.startsWith(API_PREFIX) || parsed.pathname !== pathname)
    return 'path must stay under /api/pos/';
  return null;
}

/** Whether `value` is plain JSON (objects of plain prototype, arrays, strings, finite numbers, booleans, null), at most 32 deep. */
function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value as Record<string, unknown>).every((v) => isJsonValue(v, depth + 1));
  }
  return false;
}

const REQUEST_KEYS = new Set(['type', 'id', 'method', 'path', 'body']);

/**
 * The bridge request in a `message` event's data, or null when it is anything else (the bridge then ignores it):
 * exactly the keys `type: 'register-api'`, `id`, `method` (`GET` or `POST`), `path` (see {@link bridgePathProblem})
 * and, for POST only, an optional plain-JSON `body` of at most {@link MAX_BRIDGE_BODY_CHARS} characters.
 */
export function parseBridgeRequest(data: unknown): BridgeRequest | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const proto = Object.getPrototypeOf(data) as unknown;
  if (proto !== Object.prototype && proto !== null) return null;
  const record = data as Record<string, unknown>;
  if (Object.keys(record).some((k) => !REQUEST_KEYS.has(k))) return null;
  if (record.type !== BRIDGE_REQUEST_TYPE) return null;
  const { id, method, path, body } = record;
  const idOk = (typeof id === 'string' && id.length >= 1 && id.length <= 100) || (typeof id === 'number' && Number.isSafeInteger(id));
  if (!idOk) return null;
  if (method !== 'GET' && method !== 'POST') return null;
  if (bridgePathProblem(path) !== null) return null;
  const hasBody = 'body' in record && body !== undefined;
  if (hasBody) {
    if (method !== 'POST') return null;
    if (!isJsonValue(body)) return null;
    if (JSON.stringify(body).length > MAX_BRIDGE_BODY_CHARS) return null;
  }
  return { type: BRIDGE_REQUEST_TYPE, id: id as string | number, method, path: path as string, ...(hasBody ? { body } : {}) };
}

/** What a message event carries that the bridge looks at. */
export type BridgeMessageEvent = Pick<MessageEvent, 'data' | 'origin' | 'source'>;

/** The window the bridge answers (an iframe's `contentWindow`). */
export interface BridgeTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** What {@link createAppBridge} needs. */
export interface AppBridgeOptions {
  /** The app frame's `contentWindow` now (null when the frame is gone): the only window whose messages count. */
  frame: () => BridgeTarget | null | undefined;
  /** The app's access token (renewing it when it has expired). Never the staff token. */
  appToken: () => Promise<string>;
  /** `fetch` (tests hand in their own). */
  fetch?: typeof fetch;
  /** Called after each request the bridge performed (for a visible log), with the method, path and status. */
  onCall?: (call: { method: string; path: string; status: number }) => void;
}

/**
 * A `message` event listener implementing the bridge for one app frame (add it to `window`, remove it when the frame
 * closes). Messages from any other window, from a non-opaque origin, or not of the request shape are ignored; a valid
 * request is performed with the app's token (`Authorization: Bearer`, no cookies, a fresh `Idempotency-Key` on POST)
 * and answered to the frame with a {@link BridgeResult} — status 0 when the server could not be reached, 429 when the
 * app has {@link MAX_BRIDGE_IN_FLIGHT} requests in flight already.
 */
export function createAppBridge(options: AppBridgeOptions): (event: BridgeMessageEvent) => void {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  let inFlight = 0;
  const reply = (frame: BridgeTarget, result: BridgeResult) => {
    // The frame may have closed, or been replaced by another app, while the request ran: answer only the same window.
    if (options.frame() !== frame) return;
    // A sandboxed document's origin is opaque: "*" is the only target origin that reaches it; the message still goes
    // to this one window only.
    frame.postMessage(result, '*');
  };
  return (event) => {
    const frame = options.frame();
    if (!frame || event.source !== (frame as unknown)) return;
    if (event.origin !== 'null') return;
    const request = parseBridgeRequest(event.data);
    if (!request) return;
    if (inFlight >= MAX_BRIDGE_IN_FLIGHT) {
      reply(frame, {
        type: BRIDGE_RESULT_TYPE,
        id: request.id,
        status: 429,
        body: { title: 'Too many requests in flight', status: 429, code: 'bridge_busy' },
      });
      return;
    }
    inFlight += 1;
    void perform(request)
      .then((result) => {
        options.onCall?.({ method: request.method, path: request.path, status: result.status });
        reply(frame, result);
      })
      .finally(() => {
        inFlight -= 1;
      });
  };

  async function perform(request: BridgeRequest): Promise<BridgeResult> {
    const base = { type: BRIDGE_RESULT_TYPE, id: request.id } as const;
    let response: Response;
    try {
      const token = await options.appToken();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (request.method === 'POST') {
        headers['content-type'] = 'application/json';
        headers['idempotency-key'] = crypto.randomUUID();
      }
      response = await doFetch(request.path, {
        method: request.method,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
        ...(request.method === 'POST' ? { body: JSON.stringify(request.body ?? {}) } : {}),
      });
    } catch {
      return { ...base, status: 0, body: { title: 'The register could not reach the server', status: 0, code: 'offline' } };
    }
    const text = await response.text().catch(() => '');
    let body: unknown = text === '' ? null : text;
    if (text !== '' && /json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        /* keep the text */
      }
    }
    return { ...base, status: response.status, body };
  }
}
