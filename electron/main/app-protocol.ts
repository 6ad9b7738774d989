/**
 * The `app://register/` protocol the desktop window loads the register from: the
 * built files of `renderer/dist`, answered for GET and HEAD only, with a strict Content-Security-Policy header; a
 * path that climbs out of the build folder (`..`, encoded or not, absolute, backslashes, NUL) is refused with 403,
 * and an unknown path without an extension falls back to `index.html` (client-side routes).
 *
 * The register's `/api/*` calls are relative, so they arrive here too: they — and only they — are forwarded to the
 * configured sync server (same path, method, headers and body), the one place the desktop app talks to the network.
 *
 * No Electron import: `createAppProtocolHandler` works on Fetch `Request`/`Response`, so Node tests check it as is.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';

/** The scheme and host of the desktop register: `app://register/`. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'register';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * The desktop window's Content-Security-Policy: only its own files, scripts without eval or inline code, images from
 * itself and data/blob URLs, connections to itself (the `/api` forward) only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Handler settings. */
export interface AppProtocolOptions {
  /** Absolute path of the built register (`renderer/dist`). */
  root: string;
  /** The sync server `/api/*` is forwarded to, e.g. `http://localhost:8787`; none → `/api` answers 503. */
  serverUrl?: string;
  /** The fetch used to forward (Electron's `net.fetch`; Node's `fetch` in tests). */
  forward?: (input: string, init: RequestInit) => Promise<Response>;
}

const securityHeaders = (contentType: string): Record<string, string> => ({
  'content-type': contentType,
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
});

const plain = (status: number, text: string, extra: Record<string, string> = {}) =>
  new Response(`${text}\n`, { status, headers: { ...securityHeaders('text/plain; charset=utf-8'), ...extra } });

/**
 * Resolves the file a URL path names inside `root`, or `undefined` when the path tries to leave it or is not a
 * plain relative path. Decodes percent-escapes once, then refuses `..` segments, backslashes and NUL.
 */
export function resolveInside(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.some((segment) => segment === '..')) return undefined;
  const base = resolve(root);
  const full = resolve(base, ...segments);
  if (full !== base && !full.startsWith(base + sep)) return undefined;
  return full;
}

/** Builds the protocol handler: `(request) => Promise<Response>` (Electron's `protocol.handle` signature). */
export function createAppProtocolHandler(options: AppProtocolOptions): (request: Request) => Promise<Response> {
  const root = resolve(options.root);
  return async (request: Request): Promise<Response> => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return plain(400, 'bad request');
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return plain(404, 'not found');

    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      if (!options.serverUrl || !options.forward) return plain(503, 'no sync server configured');
      const target = new URL(url.pathname + url.search, options.serverUrl);
      const headers = new Headers(request.headers);
      headers.delete('origin'); // the server sees the desktop app as a same-origin client
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      try {
        return await options.forward(target.toString(), {
          method: request.method,
          headers,
          ...(hasBody ? { body: await request.arrayBuffer() } : {}),
          redirect: 'manual',
        });
      } catch {
        return plain(502, 'the sync server is not reachable');
      }
    }

    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed', { allow: 'GET, HEAD' });
    const file = resolveInside(root, url.pathname);
    if (!file) return plain(403, 'forbidden');
    let path = file;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) {
      if (extname(url.pathname) !== '') return plain(404, 'not found');
      path = resolve(root, 'index.html');
    }
    const body = await readFile(path).catch(() => undefined);
    if (!body) return plain(404, 'not found');
    const headers = securityHeaders(MIME[extname(path).toLowerCase()] ?? 'application/octet-stream');
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  };
}
