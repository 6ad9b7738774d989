/**
 * Which reverse proxies the server believes about the client's address (`X-Forwarded-For`). Every per-address limit —
 * pairing guesses, sign-up, the pay page — is keyed on `request.ip`; trusting the header from anyone would let a
 * client pick a fresh address per request and never be limited. Off by default: `request.ip` is the TCP peer.
 *
 * `TRUST_PROXY` takes what Fastify's `trustProxy` takes, minus "trust everyone": a hop count (`1`: the nearest proxy
 * is trusted, so the address it saw is used) or a comma-separated list of proxy addresses and CIDR ranges
 * (`127.0.0.1,10.0.0.0/8`). `true`, `*` and anything unparsable are refused at start with a message naming the variable.
 */
import ipaddr from 'ipaddr.js';

/** The parsed setting: `false` (off), a hop count (≥ 1), or proxy addresses / CIDR ranges. */
export type TrustProxy = false | number | string[];

/**
 * Parses `TRUST_PROXY`. Empty, missing, `0` or `false` → `false`.
 * @throws Error naming `TRUST_PROXY` for `true`, `*`, a negative or fractional count, or an entry that is neither an
 *   IP address nor a CIDR range.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === '0' || text.toLowerCase() === 'false') return false;
  if (text.toLowerCase() === 'true' || text === '*') {
    throw new Error(
      "TRUST_PROXY=true would let any client choose its address (and so escape every per-address limit): give the hop count (e.g. 1) or the proxies' addresses (e.g. 127.0.0.1,10.0.0.0/8).",
    );
  }
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const ok = entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry);
    if (!ok) throw new Error(`TRUST_PROXY: "${entry}" is neither a hop count nor an IP address or CIDR range (e.g. 1, or 127.0.0.1,10.0.0.0/8).`);
  }
  return entries;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}
