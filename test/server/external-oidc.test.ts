/**
 * Staff tokens from an external OpenID Connect issuer: a second, independent issuer (`oidc-provider`) runs
 * on loopback; a staff member signs in through it with the authorization code flow + PKCE (RFC 6749 §4.1, RFC 7636),
 * driven over real HTTP (its development login and consent forms), and the ID token it issues calls the POS API (200)
 * beside the built-in identity provider. Forged, expired, wrong-audience, wrong-issuer and `alg: none` tokens are 401.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { loadOidcProvider } from '../../sync-server/src/platform/auth/oidc-provider-module.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CLIENT_ID = 'register-pos-staff';
const CLIENT_SECRET = 'a-client-secret-of-the-test-issuer-only';
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** A cookie jar for one browser-like session against the issuer. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

describe.each(databaseTargets())('external OpenID Connect issuer on $name', (target) => {
  let issuerServer: Server;
  let issuer: string;
  let server: TestServer;
  let signingKey: { privateKey: CryptoKey; jwk: Record<string, unknown> };

  beforeAll(async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'test-issuer-key', alg: 'RS256', use: 'sig' };
    signingKey = { privateKey, jwk: privateJwk };
    issuerServer = createServer();
    await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const accounts: Record<string, { email: string }> = {
      'alice-at-idp': { email: 'Owner@Demo.Register.Example' },
      'mallory-at-idp': { email: 'nobody@else.example' },
    };
    const { default: Provider } = await loadOidcProvider();
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      jwks: { keys: [privateJwk] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      findAccount: (_ctx: unknown, id: string) =>
        accounts[id] ? { accountId: id, claims: () => ({ sub: id, email: accounts[id]!.email, email_verified: true }) } : undefined,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ['test-cookie-key-0123456789'] },
      // The ID token itself carries the scope's claims (e-mail), as most issuers' do.
      conformIdTokenClaims: false,
    });
    provider.proxy = false;
    const handle = provider.callback();
    issuerServer.on('request', (req, res) => void handle(req, res));
    server = await startTestServer({ target, staticDir: null, oidc: { issuer, audience: CLIENT_ID } });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise<void>((resolve) => issuerServer?.close(() => resolve()));
  });

  /** Signs `login` in at the issuer through the code flow with PKCE; returns the ID token. */
  async function signIn(login: string, verifierOverride?: string): Promise<{ idToken?: string; status: number; body: Record<string, unknown> }> {
    const jar = new Jar();
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const go = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(new URL(url, issuer), {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
      });
      jar.take(res);
      return res;
    };
    const auth = new URL('/auth', issuer);
    for (const [k, v] of Object.entries({
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid email',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      nonce: 'nn',
    }))
      auth.searchParams.set(k, v);
    let res = await go(auth.toString());
    // Login, then consent: each interaction is a form POST, then the provider resumes the authorization.
    const forms: Record<string, string>[] = [{ prompt: 'login', login, password: 'any' }, { prompt: 'consent' }];
    for (const form of forms) {
      const interaction = res.headers.get('location')!;
      expect(interaction, 'the issuer asks for an interaction').toMatch(/\/interaction\//);
      await go(interaction);
      res = await go(interaction, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      res = await go(res.headers.get('location')!);
    }
    const callback = new URL(res.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    const code = callback.searchParams.get('code')!;
    const token = await fetch(new URL('/token', issuer), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifierOverride ?? verifier,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      }).toString(),
    });
    const body = (await token.json()) as Record<string, unknown>;
    return { status: token.status, body, ...(typeof body.id_token === 'string' ? { idToken: body.id_token } : {}) };
  }

  const api = (token: string, url = '/api/pos/staff') => server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('signs a staff member in through the issuer (code + PKCE): the ID token calls the API as that staff member', async () => {
    const { idToken } = await signIn('alice-at-idp');
    expect(idToken).toBeDefined();
    const res = await api(idToken!);
    expect(res.statusCode, res.body).toBe(200);
    // Linked once by the verified e-mail (case-insensitive), then by (issuer, subject).
    const { rows } = await server.db.query<{ staff_id: string }>('SELECT staff_id FROM staff_identities WHERE issuer = $1 AND subject = $2', [
      issuer,
      'alice-at-idp',
    ]);
    expect(rows.map((r) => r.staff_id)).toEqual([server.credentials.staffId]);
    expect((await api((await signIn('alice-at-idp')).idToken!)).statusCode).toBe(200);
    // The built-in identity provider keeps working beside it.
    expect((await api(server.credentials.staffToken)).statusCode).toBe(200);
  });

  it('refuses an identity with no staff member, a wrong PKCE verifier, and forged, expired, wrong-audience, wrong-issuer and alg:none tokens (401)', async () => {
    const stranger = await signIn('mallory-at-idp');
    const res = await api(stranger.idToken!);
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toContain('no staff member');

    const badVerifier = await signIn('alice-at-idp', randomBytes(32).toString('base64url'));
    expect(badVerifier.status).toBe(400);
    expect(badVerifier.body.error).toBe('invalid_grant');

    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'alice-at-idp', email: 'owner@demo.register.example', email_verified: true };
    const sign = (key: CryptoKey, opts: { iss?: string; aud?: string; exp?: number; iat?: number } = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-issuer-key' })
        .setIssuer(opts.iss ?? issuer)
        .setAudience(opts.aud ?? CLIENT_ID)
        .setIssuedAt(opts.iat ?? now)
        .setExpirationTime(opts.exp ?? now + 300)
        .sign(key);
    // Sanity: the issuer's own key, signed here, is accepted (so the refusals below are about what they change).
    expect((await api(await sign(signingKey.privateKey))).statusCode).toBe(200);
    const forger = (await generateKeyPair('RS256')).privateKey;
    const cases: [string, string][] = [
      ['forged (another key)', await sign(forger)],
      ['expired', await sign(signingKey.privateKey, { iat: now - 7200, exp: now - 3600 })],
      ['wrong audience', await sign(signingKey.privateKey, { aud: 'some-other-client' })],
      ['wrong issuer', await sign(signingKey.privateKey, { iss: 'http://127.0.0.1:1' })],
      [
        'alg none',
        new UnsecuredJWT(claims)
          .setIssuer(issuer)
          .setAudience(CLIENT_ID)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .encode(),
      ],
      [
        'tampered payload',
        (await sign(signingKey.privateKey)).replace(
          /\.([^.]+)\./,
          (_, p: string) =>
            `.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.`,
        ),
      ],
    ];
    for (const [name, token] of cases) {
      const refused = await api(token);
      expect(refused.statusCode, `${name}: ${refused.body}`).toBe(401);
      expect(refused.json().code).toBe('invalid_token');
    }
  });
});
