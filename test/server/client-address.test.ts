/**
 * The client's address behind (or without) a reverse proxy: every per-address limit is keyed on it, so a client must
 * not be able to choose it. As shipped the server believes no `X-Forwarded-For`; `TRUST_PROXY` names the proxies it
 * believes (a hop count or their addresses), and "trust everyone" is refused at start. Over HTTP (app.inject) with the
 * real pairing quota (10 per minute per address).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { parseTrustProxy } from '../../sync-server/src/platform/http/trust-proxy.ts';

describe('client address and per-address limits', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** 12 pairing guesses from one TCP peer, each claiming a new address in X-Forwarded-For: the statuses answered. */
  async function guessesWithRotatingForwardedFor(peer: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await server!.app.inject({
        method: 'POST',
        url: '/api/register/pair',
        payload: { code: 'AAAA-AAAA' },
        remoteAddress: peer,
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
      });
      statuses.push(res.statusCode);
    }
    return statuses;
  }

  it('as shipped, rotating X-Forwarded-For does not escape the pairing limit', async () => {
    server = await startTestServer({ staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
    const statuses = await guessesWithRotatingForwardedFor('198.51.100.23');
    expect(statuses).toEqual([...Array(10).fill(400), 429, 429]);
  });

  it('behind a named proxy the forwarded address is the client (each guess its own quota); a stranger naming itself is not believed', async () => {
    server = await startTestServer({
      staticDir: null,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      trustProxy: ['10.0.0.0/8'],
    });
    // Through the proxy: twelve clients, one guess each — none limited.
    expect(await guessesWithRotatingForwardedFor('10.1.2.3')).toEqual(Array(12).fill(400));
    // Straight from an address that is not the proxy: the header is ignored, the peer is limited.
    expect(await guessesWithRotatingForwardedFor('198.51.100.99')).toEqual([...Array(10).fill(400), 429, 429]);
  });

  it('TRUST_PROXY takes a hop count or addresses and refuses to trust everyone', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8 ,::1')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
    expect(() => parseTrustProxy('true')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('*')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('proxy.example')).toThrow(/TRUST_PROXY: "proxy.example"/);
    expect(() => parseTrustProxy('10.0.0.0/99')).toThrow(/TRUST_PROXY/);
  });
});
