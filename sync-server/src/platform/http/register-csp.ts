/**
 * The Content-Security-Policy of the register and back office pages (the built renderer served at `/`). What each
 * directive allows, and why:
 * - scripts and style sheets from this server only (the build has no inline script; React sets element styles through
 *   the CSSOM, and `'unsafe-inline'` for styles only lets markup carry a `style` attribute — no script can run from it);
 * - requests to this server, and WebSockets to the hardware bridge on this machine (`ws://127.0.0.1:*`,
 *   `ws://localhost:*`: its port is a setting);
 * - pictures from this server, `data:`/`blob:` URLs and HTTPS (an item's picture may be a URL on the web);
 * - frames (in-platform apps, sandboxed by their `<iframe sandbox>`) from this server, HTTPS, or a developer's app on
 *   this machine;
 * - no plugins; `<base>` and form targets on this server;
 * - `frame-ancestors 'self'`: no other site may frame the register or the back office (clickjacking a cashier into
 *   a refund). `X-Frame-Options: SAMEORIGIN` says the same to browsers that predate `frame-ancestors`.
 */
export const REGISTER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "frame-src 'self' https: http://127.0.0.1:* http://localhost:*",
  "worker-src 'self'",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** The headers every register or back office page is sent with (see {@link REGISTER_CSP}). */
export const REGISTER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': REGISTER_CSP,
  'X-Frame-Options': 'SAMEORIGIN',
};
