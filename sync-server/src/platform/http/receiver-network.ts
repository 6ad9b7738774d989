/**
 * Where webhooks may be delivered (SSRF defence for the receiver URLs apps and staff register): only to public
 * unicast addresses — never to loopback, RFC 1918 / RFC 4193 private, link-local (including cloud metadata at
 * 169.254.169.254), CGNAT, multicast, unspecified or other reserved ranges, as classified by ipaddr.js (its IANA
 * special-purpose registries). Checked twice:
 *
 * - when a subscription is created or its URL changed ({@link assertPublicReceiverUrl}: IP literals, and every address
 *   the host name resolves to now);
 * - on every delivery, at connection time ({@link postToReceiver} passes a DNS `lookup` that refuses such addresses to
 *   node:http), so a name that later resolves to an internal address (DNS rebinding) still never gets a connection.
 *
 * `allowPrivateNetworks` lifts the rule (a developer's local receiver, the test suites): configuration
 * `ServerConfig.allowPrivateWebhookReceivers`, env `WEBHOOK_ALLOW_PRIVATE_NETWORKS=1`.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import ipaddr from 'ipaddr.js';
import { ProblemError } from './problem.ts';

/** The ipaddr.js range of `address` when it is not a public unicast address; undefined when it may be reached. */
export function refusedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/** Thrown when a receiver's address is not public. */
export class RefusedReceiverError extends Error {
  override name = 'RefusedReceiverError';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}): webhooks are only delivered to public addresses`);
  }
}

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Refuses a receiver URL whose host is (or now resolves to) a non-public address. A name that does not resolve yet
 * is accepted: every delivery checks again when it connects.
 * @throws ProblemError 400 naming `url` (code `receiver_not_public`).
 */
export async function assertPublicReceiverUrl(rawUrl: string, options: { allowPrivateNetworks: boolean }): Promise<void> {
  if (options.allowPrivateNetworks) return;
  const url = new URL(rawUrl);
  const host = hostOf(url);
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = (
        await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found))))
      ).map((a) => a.address);
    } catch {
      return;
    }
  }
  for (const address of addresses) {
    const range = refusedRange(address);
    if (range) {
      const message = `${address === host ? `${host} is` : `${host} resolves to ${address},`} a ${range} address: webhooks are only delivered to public addresses`;
      throw new ProblemError(400, 'receiver_not_public', `Invalid url: ${message}.`, [{ path: 'url', message }]);
    }
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup` for node:http that fails with {@link RefusedReceiverError} on any non-public address. */
function publicOnlyLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, found) => {
    if (err) return callback(err, []);
    for (const a of found) {
      const range = refusedRange(a.address);
      if (range) return callback(Object.assign(new RefusedReceiverError(hostname, a.address, range), { code: 'ERECEIVERNOTPUBLIC' }), []);
    }
    if ((options as LookupAllOptions).all) return callback(null, found);
    const first = found[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** What a receiver answered. */
export interface ReceiverResponse {
  statusCode: number;
}

/**
 * POSTs `body` to `url` with `headers` (node:http / node:https, no redirects followed), within `timeoutMs`; the
 * response body is read and discarded. Unless `allowPrivateNetworks`, IP-literal hosts and every resolved address
 * must be public ({@link refusedRange}).
 * @throws RefusedReceiverError for a non-public address (no connection is made); `TimeoutError` after `timeoutMs`;
 *   network errors as node:http reports them.
 */
export function postToReceiver(
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number; allowPrivateNetworks: boolean },
): Promise<ReceiverResponse> {
  const target = new URL(url);
  const host = hostOf(target);
  if (!init.allowPrivateNetworks && ipaddr.isValid(host)) {
    const range = refusedRange(host);
    if (range) return Promise.reject(new RefusedReceiverError(host, host, range));
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<ReceiverResponse>((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
        signal: AbortSignal.timeout(init.timeoutMs),
        ...(init.allowPrivateNetworks ? {} : { lookup: publicOnlyLookup as never }),
      },
      (res: IncomingMessage) => {
        res.resume();
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('error', (err: Error & { cause?: unknown }) => reject(err.name === 'AbortError' && err.cause instanceof Error ? err.cause : err));
    req.end(init.body);
  });
}
