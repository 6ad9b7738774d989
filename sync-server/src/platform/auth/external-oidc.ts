/**
 * Staff ID tokens from an external OpenID Connect issuer, configured per deployment with `OIDC_ISSUER` and
 * `OIDC_AUDIENCE`; the built-in identity provider (identity.ts) stays the default and keeps working beside it.
 *
 * A token is verified as OpenID Connect Core 1.0 §3.1.3.7 asks of an ID token: the signature against the issuer's JWKS
 * (found through its discovery document, `/.well-known/openid-configuration`, OIDC Discovery 1.0 §4; keys cached and
 * refetched by `jose` when an unknown `kid` appears), `iss` equal to the configured issuer, `aud` containing the
 * configured audience (the client id the deployment registered with the issuer), `exp`/`nbf`/`iat` with 60 s of
 * clock tolerance, and only asymmetric algorithms (RS256/384/512, PS256/384/512, ES256/384/512, EdDSA) — `alg: none`
 * and HMAC are refused.
 *
 * Who the caller is: the pair (`iss`, `sub`) linked to one staff member in `staff_identities`. The first time a
 * subject signs in it is linked by its e-mail: the token must carry `email` with `email_verified: true`, and exactly one
 * staff member (any store) must have that e-mail; the link is then kept, so a later e-mail change at the issuer does
 * not move the account. The role is the staff member's role now (not a claim of the token).
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { Queryable } from '../db/db.ts';
import { AuthError, type Principal } from './identity.ts';

/** Algorithms an external ID token may be signed with: asymmetric only. */
export const EXTERNAL_ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** An external OpenID Connect issuer whose ID tokens sign staff in. */
export class ExternalIssuer {
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  /**
   * @param issuer the issuer identifier exactly as in its tokens' `iss` (no trailing-slash normalisation: OIDC
   *   Discovery §4.3 asks for an exact match)
   * @param audience the client id the tokens must be issued to (`aud`)
   */
  constructor(
    readonly issuer: string,
    readonly audience: string,
    private readonly fetchDiscovery: (url: string) => Promise<{ jwks_uri?: unknown; issuer?: unknown }> = async (url) => {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!res.ok) throw new Error(`discovery document ${url} answered ${res.status}`);
      return (await res.json()) as { jwks_uri?: unknown; issuer?: unknown };
    },
  ) {}

  /** True when `token` is a JWT naming this issuer in `iss` (read unverified, only to choose the verifier). */
  claims(token: string): boolean {
    try {
      return decodeJwt(token).iss === this.issuer;
    } catch {
      return false;
    }
  }

  /**
   * Verifies an ID token of this issuer.
   * @returns its payload (with `sub`)
   * @throws AuthError for any failed check (signature, issuer, audience, expiry, algorithm, missing `sub`) or an
   *   unreachable issuer
   */
  async verify(token: string, now: Date): Promise<JWTPayload & { sub: string }> {
    let keys: ReturnType<typeof createRemoteJWKSet>;
    try {
      keys = await this.keys();
    } catch (err) {
      throw new AuthError(`the identity provider ${this.issuer} cannot be reached: ${(err as Error).message}`);
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: EXTERNAL_ID_TOKEN_ALGORITHMS,
        currentDate: now,
        clockTolerance: 60,
      });
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new AuthError('the ID token lacks sub');
      return payload as JWTPayload & { sub: string };
    } catch (err) {
      if (err instanceof AuthError) throw err;
      throw new AuthError(`the ID token is not valid: ${(err as Error).message}`);
    }
  }

  private async keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.jwks) return this.jwks;
    const discovery = await this.fetchDiscovery(`${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
    if (discovery.issuer !== this.issuer) throw new Error(`the discovery document names the issuer ${String(discovery.issuer)}`);
    if (typeof discovery.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
    this.jwks = createRemoteJWKSet(new URL(discovery.jwks_uri), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
    return this.jwks;
  }
}

/**
 * The staff member a verified external ID token names (see the file's comment for the linking rule).
 * @throws AuthError when no staff member, or more than one, can be linked
 */
export async function staffOfExternalToken(db: Queryable, issuer: string, payload: JWTPayload & { sub: string }, now: Date): Promise<Principal> {
  const linked = await db.query<{ staff_id: string; merchant_id: string; role: string }>(
    `SELECT s.id AS staff_id, s.merchant_id, s.role FROM staff_identities i JOIN staff s ON s.id = i.staff_id AND s.merchant_id = i.merchant_id
      WHERE i.issuer = $1 AND i.subject = $2`,
    [issuer, payload.sub],
  );
  if (linked.rows[0]) return { kind: 'staff', staffId: linked.rows[0].staff_id, merchantId: linked.rows[0].merchant_id, role: linked.rows[0].role };
  const email = typeof payload.email === 'string' ? payload.email.trim().toLowerCase() : '';
  if (!email || payload.email_verified !== true)
    throw new AuthError('this identity is not linked to a staff member, and the token carries no verified e-mail to link it by');
  const matches = await db.query<{ id: string; merchant_id: string; role: string }>(
    'SELECT id, merchant_id, role FROM staff WHERE lower(email) = $1 LIMIT 2',
    [email],
  );
  if (matches.rows.length !== 1) {
    throw new AuthError(
      matches.rows.length === 0
        ? 'no staff member has the e-mail of this identity'
        : 'several staff members have the e-mail of this identity; an owner must link it',
    );
  }
  const staff = matches.rows[0]!;
  await db.query(
    'INSERT INTO staff_identities (issuer, subject, staff_id, merchant_id, linked_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (issuer, subject) DO NOTHING',
    [issuer, payload.sub, staff.id, staff.merchant_id, now.toISOString()],
  );
  return { kind: 'staff', staffId: staff.id, merchantId: staff.merchant_id, role: staff.role };
}
