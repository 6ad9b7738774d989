import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JSONWebKeySet } from 'jose';
import { ulid } from 'ulid';
import type { Queryable } from '../db/db.ts';
import { sealClearSecrets, secretBox, type SecretBox } from '../secrets.ts';

/**
 * Authentication (docs/api.md "Authentication and scopes"). Two kinds of bearer token:
 * - staff ID tokens from the built-in development identity provider: ES256 JWTs (iss = base URL, aud = register-pos,
 *   sub = staff id, claims merchant_id and role), verified against our own JWKS;
 * - app tokens: opaque `rpa_<32 random bytes, base64url>`, stored only as their SHA-256, carrying scopes;
 * - register credentials: opaque `rrc_<32 random bytes, base64url>`, stored only as their SHA-256
 *   (`register_credentials`), handed to a register that exchanged a pairing code; scoped to syncing and selling as
 *   that register at its location, never to staff routes.
 */
export const STAFF_AUDIENCE = 'register-pos';
export const APP_SCOPES = ['catalog:read', 'orders:read', 'pay:create', 'webhooks'] as const;
export type AppScope = (typeof APP_SCOPES)[number];

export type Principal =
  | { kind: 'staff'; merchantId: string; staffId: string; role: string }
  | { kind: 'app'; merchantId: string; appId: string; appName: string; scopes: string[] }
  | { kind: 'register'; merchantId: string; registerId: string; locationId: string | null };

/** `staff:<id>` / `app:<id>` / `register:<id>` — the caller in audit rows and idempotency keys. */
export function callerOf(p: Principal): string {
  return p.kind === 'staff' ? `staff:${p.staffId}` : p.kind === 'app' ? `app:${p.appId}` : `register:${p.registerId}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class AuthError extends Error {
  override name = 'AuthError';
}

/** The development identity provider: one ES256 key pair kept in `signing_keys`, shared by every instance. */
export class IdentityProvider {
  private constructor(
    readonly issuer: string,
    private readonly kid: string,
    private readonly privateKey: CryptoKey,
    readonly jwks: JSONWebKeySet,
    private readonly keySet: ReturnType<typeof createLocalJWKSet>,
  ) {}

  /**
   * Loads the key pair from the database, generating and storing it on first use. The private key is stored only
   * sealed with the KEK (`private_jwk_sealed`, platform/secrets.ts); a row still holding it in clear (`private_jwk`,
   * before migration 0095) is sealed and its clear column emptied here, on start.
   * @throws SecretBoxError when the stored key does not open with `box`'s KEK.
   */
  static async load(db: Queryable, issuer: string, box: SecretBox = secretBox()): Promise<IdentityProvider> {
    await sealLegacySigningKeys(db, box);
    const select = 'SELECT kid, private_jwk_sealed, public_jwk FROM signing_keys ORDER BY created_at, kid';
    let rows = (await db.query<{ kid: string; private_jwk_sealed: string; public_jwk: JWK }>(select)).rows;
    if (rows.length === 0) {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      const kid = `key_${ulid()}`;
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
      // Two instances racing both insert; both then read the same (oldest) key back.
      await db.query('INSERT INTO signing_keys (kid, alg, private_jwk_sealed, public_jwk) VALUES ($1, $2, $3, $4::jsonb)', [
        kid,
        'ES256',
        box.seal(JSON.stringify(privateJwk), signingKeyContext(kid)),
        JSON.stringify(publicJwk),
      ]);
      rows = (await db.query<{ kid: string; private_jwk_sealed: string; public_jwk: JWK }>(select)).rows;
    }
    const current = rows[0]!;
    const privateJwk = JSON.parse(box.open(current.private_jwk_sealed, signingKeyContext(current.kid))) as JWK;
    const privateKey = (await importJWK(privateJwk, 'ES256')) as CryptoKey;
    const jwks: JSONWebKeySet = { keys: rows.map((r) => r.public_jwk) };
    return new IdentityProvider(issuer, current.kid, privateKey, jwks, createLocalJWKSet(jwks));
  }

  /** Signs a staff ID token. `ttlSeconds` defaults to 12 hours. */
  async issueStaffToken(
    staff: { staffId: string; merchantId: string; role: string },
    options: { ttlSeconds?: number; now?: Date } = {},
  ): Promise<string> {
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    return new SignJWT({ merchant_id: staff.merchantId, role: staff.role })
      .setProtectedHeader({ alg: 'ES256', kid: this.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(STAFF_AUDIENCE)
      .setSubject(staff.staffId)
      .setIssuedAt(now)
      .setExpirationTime(now + (options.ttlSeconds ?? 12 * 3600))
      .setJti(ulid())
      .sign(this.privateKey);
  }

  /** @throws AuthError for a bad signature, wrong issuer/audience, expiry or missing claims. */
  async verifyStaffToken(token: string, now: Date = new Date()): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.keySet, {
        issuer: this.issuer,
        audience: STAFF_AUDIENCE,
        algorithms: ['ES256'],
        currentDate: now,
      });
      if (typeof payload.sub !== 'string' || typeof payload.merchant_id !== 'string' || typeof payload.role !== 'string') {
        throw new AuthError('the token lacks sub, merchant_id or role');
      }
      return { kind: 'staff', staffId: payload.sub, merchantId: payload.merchant_id, role: payload.role };
    } catch (err) {
      if (err instanceof AuthError) throw err;
      throw new AuthError(`the staff token is not valid: ${(err as Error).message}`);
    }
  }
}

/** The additional authenticated data of a signing key's sealed private JWK. */
const signingKeyContext = (kid: string) => `signing_keys:${kid}`;

/** Seals every private signing key still stored in clear (rows from before migration 0095) and empties its clear column. */
export async function sealLegacySigningKeys(db: Queryable, box: SecretBox = secretBox()): Promise<void> {
  await sealClearSecrets(
    db,
    {
      select: 'SELECT kid AS id, private_jwk AS clear FROM signing_keys WHERE private_jwk IS NOT NULL',
      update: 'UPDATE signing_keys SET private_jwk_sealed = $2, private_jwk = NULL WHERE kid = $1 AND private_jwk IS NOT NULL',
      context: signingKeyContext,
    },
    box,
  );
}

/** The additional authenticated data of an app's sealed webhook secret. */
const appWebhookSecretContext = (appId: string) => `app_tokens:${appId}`;

/**
 * The webhook secret given to app `appId` at install (opened from `webhook_secret_sealed`), or null when it has none.
 * @throws SecretBoxError when it does not open with the process's KEK.
 */
export async function appWebhookSecret(tx: Queryable, appId: string): Promise<string | null> {
  const { rows } = await tx.query<{ webhook_secret_sealed: string | null }>('SELECT webhook_secret_sealed FROM app_tokens WHERE id = $1', [appId]);
  const sealed = rows[0]?.webhook_secret_sealed;
  return sealed ? secretBox().open(sealed, appWebhookSecretContext(appId)) : null;
}

/** Seals every app webhook secret still stored in clear (rows from before migration 0095) and empties its clear column. */
export async function sealLegacyAppWebhookSecrets(db: Queryable, box: SecretBox = secretBox()): Promise<void> {
  await sealClearSecrets(
    db,
    {
      select: 'SELECT id, webhook_secret AS clear FROM app_tokens WHERE webhook_secret IS NOT NULL',
      update: 'UPDATE app_tokens SET webhook_secret_sealed = $2, webhook_secret = NULL WHERE id = $1 AND webhook_secret IS NOT NULL',
      context: appWebhookSecretContext,
    },
    box,
  );
}

/** Revokes (now, by the database clock) every live token of the merchant's app named `appName`. */
export async function revokeAppTokens(tx: Queryable, merchantId: string, appName: string): Promise<void> {
  await tx.query('UPDATE app_tokens SET revoked_at = now() WHERE merchant_id = $1 AND app_name = $2 AND revoked_at IS NULL', [merchantId, appName]);
}

/**
 * Issues an app token; returns the plaintext once (only its hash is stored; the webhook secret is stored sealed).
 * `installationId` binds it to an app installation: it then answers as that installation (Principal
 * `appId` = the installation id) and stops working once the installation is no longer `installed`; `expiresAt` ends it.
 */
export async function issueAppToken(
  tx: Queryable,
  input: { merchantId: string; appName: string; scopes: readonly string[]; webhookSecret?: string; installationId?: string; expiresAt?: Date },
): Promise<{ id: string; token: string }> {
  const id = `app_${ulid()}`;
  const token = `rpa_${randomBytes(32).toString('base64url')}`;
  await tx.query(
    'INSERT INTO app_tokens (id, merchant_id, app_name, token_hash, scopes, webhook_secret_sealed, installation_id, expires_at) VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8)',
    [
      id,
      input.merchantId,
      input.appName,
      sha256Hex(token),
      [...input.scopes],
      input.webhookSecret === undefined ? null : secretBox().seal(input.webhookSecret, appWebhookSecretContext(id)),
      input.installationId ?? null,
      input.expiresAt ?? null,
    ],
  );
  return { id, token };
}

/** Revokes (now, by the database clock) every live token bound to the installation; effective on their next request. */
export async function revokeInstallationTokens(tx: Queryable, installationId: string): Promise<number> {
  const { rows } = await tx.query('UPDATE app_tokens SET revoked_at = now() WHERE installation_id = $1 AND revoked_at IS NULL RETURNING id', [
    installationId,
  ]);
  return rows.length;
}

/**
 * The app a token stands for. A token bound to an installation answers as the installation (`appId` = `ins_…`) and
 * only while it is `installed`.
 * @throws AuthError when the token is unknown, revoked, expired or its installation is not installed.
 */
export async function verifyAppToken(db: Queryable, token: string, now: Date = new Date()): Promise<Principal> {
  const { rows } = await db.query<{
    id: string;
    merchant_id: string;
    app_name: string;
    scopes: string[];
    revoked_at: Date | null;
    installation_id: string | null;
    expires_at: Date | null;
    installation_status: string | null;
  }>(
    `SELECT t.id, t.merchant_id, t.app_name, t.scopes, t.revoked_at, t.installation_id, t.expires_at,
            CASE WHEN s.status = 'suspended' THEN 'suspended' ELSE i.status END AS installation_status
       FROM app_tokens t LEFT JOIN app_installations i ON i.id = t.installation_id
       LEFT JOIN app_subscriptions s ON s.installation_id = t.installation_id WHERE t.token_hash = $1`,
    [sha256Hex(token)],
  );
  const row = rows[0];
  if (!row || row.revoked_at) throw new AuthError('the app token is unknown or revoked');
  if (row.expires_at && new Date(row.expires_at).getTime() <= now.getTime()) throw new AuthError('the app token has expired');
  if (row.installation_id && row.installation_status === 'suspended')
    throw new AuthError("the app is suspended: its subscription's charges were declined");
  if (row.installation_id && row.installation_status !== 'installed') throw new AuthError('the app is no longer installed');
  return { kind: 'app', merchantId: row.merchant_id, appId: row.installation_id ?? row.id, appName: row.app_name, scopes: row.scopes };
}

/** Prefix of register credentials (`rrc_<43 base64url characters>`). */
export const REGISTER_CREDENTIAL_PREFIX = 'rrc_';

/** Issues a credential for `registerId`; returns the plaintext once (only its SHA-256 is stored). */
export async function issueRegisterCredential(tx: Queryable, input: { merchantId: string; registerId: string }): Promise<string> {
  const token = `${REGISTER_CREDENTIAL_PREFIX}${randomBytes(32).toString('base64url')}`;
  await tx.query('INSERT INTO register_credentials (token_hash, register_id, merchant_id) VALUES ($1, $2, $3)', [
    sha256Hex(token),
    input.registerId,
    input.merchantId,
  ]);
  return token;
}

/** Revokes (now, by the database clock) every live credential of the register; effective on its next request. */
export async function revokeRegisterCredentials(tx: Queryable, merchantId: string, registerId: string): Promise<void> {
  await tx.query('UPDATE register_credentials SET revoked_at = now() WHERE merchant_id = $1 AND register_id = $2 AND revoked_at IS NULL', [
    merchantId,
    registerId,
  ]);
}

/**
 * The register a credential stands for, recording it as seen (`last_seen_at`, written at most once a minute).
 * @throws AuthError when the credential is unknown or revoked.
 */
export async function verifyRegisterCredential(db: Queryable, token: string): Promise<Principal> {
  const hash = sha256Hex(token);
  const { rows } = await db.query<{ register_id: string; merchant_id: string; location_id: string | null; revoked_at: Date | null; stale: boolean }>(
    `SELECT c.register_id, c.merchant_id, r.location_id, c.revoked_at,
            (c.last_seen_at IS NULL OR c.last_seen_at < now() - interval '60 seconds') AS stale
       FROM register_credentials c JOIN registers r ON r.id = c.register_id
      WHERE c.token_hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (!row || row.revoked_at) throw new AuthError('the register credential is unknown or revoked; pair the register again with a pairing code');
  if (row.stale) await db.query('UPDATE register_credentials SET last_seen_at = now() WHERE token_hash = $1', [hash]);
  return { kind: 'register', merchantId: row.merchant_id, registerId: row.register_id, locationId: row.location_id };
}
