/**
 * Register enrollment, the way card-terminal vendors pair devices (Square device codes, Mollie pairing
 * codes): a manager creates a one-time pairing code; a register exchanges it for its own register credential
 * (platform/auth/identity.ts, `rrc_…`), scoped to syncing and selling as that register at the code's location — never a
 * staff token. The back office lists registers and revokes one (every credential it holds stops on its next request).
 *
 * Codes: 8 characters of Crockford base32 (0-9, A-Z without I L O U: 40 bits), shown as `XXXX-XXXX`, typed in any
 * case, with or without the dash (I/L read as 1, O as 0). Stored only as SHA-256. Valid {@link PAIRING_CODE_TTL_MS}
 * (10 minutes), single-use (a conditional UPDATE consumes it, so two registers racing with one code get one register).
 * Tables: `pairing_codes` and `registers` are this module's; `register_credentials` the platform's.
 */
import { randomInt } from 'node:crypto';
import { newId } from '../../../../core/index.ts';
import { issueRegisterCredential, revokeRegisterCredentials, sha256Hex } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { mutation, type Mutation } from '../../kernel/mutation.ts';
import { NO_FEED } from '../../platform/change-feed.ts';
import type { Db } from '../../platform/db/db.ts';
import { lastReceiptSequenceOf } from './pairing.ts';

/** How long a pairing code can be exchanged: 10 minutes, in ms. */
export const PAIRING_CODE_TTL_MS = 10 * 60 * 1000;
/** Crockford base32 alphabet: digits and capitals without I, L, O, U. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 8;

/** A new pairing code as the back office shows it (the code itself only here, once). */
export interface PairingCode {
  /** `XXXX-XXXX`. */
  code: string;
  /** ISO 8601; {@link PAIRING_CODE_TTL_MS} after creation. */
  expiresAt: string;
  locationId: string;
  /** Name the paired register takes; null → `Register <n>`. */
  name: string | null;
}

/** What a register receives for a code (or a demo self-pairing): its credential and who it is. */
export interface EnrolledRegister {
  /** `rrc_…`: send as `Authorization: Bearer`; shown once, only its SHA-256 is stored. */
  registerToken: string;
  merchantId: string;
  merchantName: string;
  currency: string;
  registerId: string;
  registerNumber: number;
  registerName: string;
  locationId: string | null;
  /** Highest receipt sequence the server holds for this register (0 for none), so it never reuses a number. */
  lastReceiptSequence: number;
}

/** A register in the back office's list. */
export interface RegisterListing {
  id: string;
  number: number;
  name: string;
  kind: 'terminal' | 'back_office';
  locationId: string | null;
  locationName: string | null;
  /** ISO 8601: when the register was first paired (created). */
  pairedAt: string;
  /** ISO 8601 of its last authenticated request (at most a minute stale), null when never seen. */
  lastSeenAt: string | null;
  /** ISO 8601 when revoked; null while active. */
  revokedAt: string | null;
  /** It has synced a shift (every sale at a register belongs to one): false for a register never used to sell. */
  hasSold: boolean;
}

/** The canonical form of a typed code: capitals, no dash or spaces, I/L → 1, O → 0. */
export function normalizePairingCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
}

/** True when `typed` can be a pairing code (8 Crockford base32 characters once normalised). */
export function isPairingCodeShape(typed: string): boolean {
  return new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`).test(normalizePairingCode(typed));
}

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * Creates a one-time pairing code for a register at `locationId` (default: the merchant's default location), audited
 * `register.pairing_code_created` (the code itself is not in the audit entry).
 * @throws ProblemError 400 naming `locationId` when it is not one of the merchant's locations.
 */
export async function createPairingCode(m: Mutation, input: { locationId?: string | undefined; name?: string | undefined }): Promise<PairingCode> {
  const location = input.locationId
    ? (await m.tx.query<{ id: string }>('SELECT id FROM locations WHERE id = $1 AND merchant_id = $2', [input.locationId, m.merchantId])).rows[0]
    : (
        await m.tx.query<{ id: string }>('SELECT id FROM locations WHERE merchant_id = $1 ORDER BY is_default DESC, created_at, id LIMIT 1', [
          m.merchantId,
        ])
      ).rows[0];
  if (!location) {
    if (input.locationId)
      throw new ProblemError(400, 'validation_error', 'Invalid locationId: not a location of this store.', [
        { path: 'locationId', message: 'is not a location of this store' },
      ]);
    throw new ProblemError(409, 'no_location', 'The store has no location yet: create one (catalog → locations) before pairing registers.');
  }
  const code = newCode();
  const expiresAt = new Date(m.now.getTime() + PAIRING_CODE_TTL_MS);
  await m.tx.query(
    'INSERT INTO pairing_codes (code_hash, merchant_id, location_id, name, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [sha256Hex(code), m.merchantId, location.id, input.name ?? null, m.actor, m.now.toISOString(), expiresAt.toISOString()],
  );
  await m.audit({
    action: 'register.pairing_code_created',
    entityType: 'register',
    entityId: location.id,
    data: { locationId: location.id, name: input.name ?? null, expiresAt: expiresAt.toISOString() },
  });
  return { code: `${code.slice(0, 4)}-${code.slice(4)}`, expiresAt: expiresAt.toISOString(), locationId: location.id, name: input.name ?? null };
}

/** A pairing code made by the system (not a staff member) for `npm start` to print: see {@link createPairingCode}. */
export async function issueSystemPairingCode(db: Db, merchantId: string, now: Date = new Date()): Promise<PairingCode> {
  return mutation({ db, clock: () => now, feed: NO_FEED }, { merchantId, actor: 'system' }, (m) => createPairingCode(m, {}));
}

const INVALID_CODE = () =>
  new ProblemError(400, 'invalid_pairing_code', 'Invalid code: unknown, expired or already used. Ask a manager for a new pairing code.', [
    { path: 'code', message: 'is unknown, expired or already used' },
  ]);

/**
 * Exchanges a pairing code for a register credential: consumes the code (single use), creates the register — or, when
 * `registerId` names one of the merchant's registers (a re-installed register keeping its receipt numbers), pairs
 * that one again (lifting a revocation) — and issues its credential. Audited `register.paired`, actor the code's maker.
 * @throws ProblemError 400 `invalid_pairing_code` naming `code` when the code is unknown, expired or used.
 */
export async function redeemPairingCode(
  ctx: Pick<AppContext, 'db' | 'clock' | 'feed'>,
  typedCode: string,
  registerId: string | undefined,
): Promise<EnrolledRegister> {
  const hash = sha256Hex(normalizePairingCode(typedCode));
  const found = (
    await ctx.db.query<{ merchant_id: string; created_by: string }>('SELECT merchant_id, created_by FROM pairing_codes WHERE code_hash = $1', [hash])
  ).rows[0];
  if (!found) throw INVALID_CODE();
  return mutation(ctx, { merchantId: found.merchant_id, actor: found.created_by }, async (m) => {
    const code = (
      await m.tx.query<{ location_id: string; name: string | null }>(
        'UPDATE pairing_codes SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING location_id, name',
        [hash, m.now.toISOString()],
      )
    ).rows[0];
    if (!code) throw INVALID_CODE();
    const known = registerId
      ? (
          await m.tx.query<{ id: string; number: number; name: string }>(
            `SELECT id, number, name FROM registers WHERE id = $1 AND merchant_id = $2 AND kind = 'terminal'`,
            [registerId, m.merchantId],
          )
        ).rows[0]
      : undefined;
    let register: { id: string; number: number; name: string };
    if (known) {
      await m.tx.query('UPDATE registers SET location_id = $2, revoked_at = NULL, name = COALESCE($3, name) WHERE id = $1', [
        known.id,
        code.location_id,
        code.name,
      ]);
      register = { ...known, name: code.name ?? known.name };
    } else {
      register = await insertRegister(m, code.location_id, code.name);
    }
    await m.tx.query('UPDATE pairing_codes SET register_id = $2 WHERE code_hash = $1', [hash, register.id]);
    await m.audit({
      registerId: register.id,
      action: 'register.paired',
      entityType: 'register',
      entityId: register.id,
      data: { number: register.number, locationId: code.location_id, via: 'pairing_code', requestedId: registerId ?? null },
    });
    return enrolled(m, register, code.location_id);
  });
}

async function insertRegister(
  m: Mutation,
  locationId: string | null,
  name: string | null | ((number: number) => string),
): Promise<{ id: string; number: number; name: string }> {
  const next = (
    await m.tx.query<{ n: number | string }>('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM registers WHERE merchant_id = $1', [m.merchantId])
  ).rows[0]!;
  const number = Number(next.n);
  const created = { id: newId('register'), number, name: (typeof name === 'function' ? name(number) : name) ?? `Register ${number}` };
  await m.tx.query('INSERT INTO registers (id, merchant_id, number, name, location_id) VALUES ($1, $2, $3, $4, $5)', [
    created.id,
    m.merchantId,
    created.number,
    created.name,
    locationId,
  ]);
  return created;
}

async function enrolled(m: Mutation, register: { id: string; number: number; name: string }, locationId: string | null): Promise<EnrolledRegister> {
  const merchant = (await m.tx.query<{ name: string; currency: string }>('SELECT name, currency FROM merchants WHERE id = $1', [m.merchantId]))
    .rows[0]!;
  const registerToken = await issueRegisterCredential(m.tx, { merchantId: m.merchantId, registerId: register.id });
  return {
    registerToken,
    merchantId: m.merchantId,
    merchantName: merchant.name,
    currency: merchant.currency,
    registerId: register.id,
    registerNumber: register.number,
    registerName: register.name,
    locationId,
    lastReceiptSequence: await lastReceiptSequenceOf(m.tx, register.id),
  };
}

/**
 * Demo-mode self-pairing of a register served on loopback (dev-routes.ts): the register `requestedId` when it is one
 * of the merchant's active terminals, else a new one at the default location, with a fresh credential. Audited
 * `register.paired` (`via: demo_loopback`) when a register is created.
 * @throws ProblemError 409 `register_revoked` when `requestedId` was revoked (a revoked register pairs with a code only).
 */
export async function selfPairDemoRegister(
  ctx: Pick<AppContext, 'db' | 'clock' | 'feed'>,
  who: { merchantId: string; actor: string },
  requestedId: string | undefined,
  userAgent?: string,
): Promise<EnrolledRegister> {
  return mutation(ctx, who, async (m) => {
    const known = requestedId
      ? (
          await m.tx.query<{ id: string; number: number; name: string; location_id: string | null; revoked_at: Date | null }>(
            `SELECT id, number, name, location_id, revoked_at FROM registers WHERE id = $1 AND merchant_id = $2 AND kind = 'terminal'`,
            [requestedId, m.merchantId],
          )
        ).rows[0]
      : undefined;
    if (known?.revoked_at)
      throw new ProblemError(409, 'register_revoked', 'This register was revoked in the back office: pair it again with a pairing code.');
    if (known) return enrolled(m, known, known.location_id);
    const location = (
      await m.tx.query<{ id: string }>('SELECT id FROM locations WHERE merchant_id = $1 ORDER BY is_default DESC, created_at, id LIMIT 1', [
        m.merchantId,
      ])
    ).rows[0];
    const register = await insertRegister(m, location?.id ?? null, (n) => `Demo register ${n} (${browserOf(userAgent)})`);
    await m.audit({
      registerId: register.id,
      action: 'register.paired',
      entityType: 'register',
      entityId: register.id,
      data: { number: register.number, locationId: location?.id ?? null, via: 'demo_loopback', requestedId: requestedId ?? null },
    });
    return enrolled(m, register, location?.id ?? null);
  });
}

/** The merchant's registers, by number, with location, pairing time, last request and revocation. */
export async function listRegisters(db: Queryable, merchantId: string): Promise<RegisterListing[]> {
  const { rows } = await db.query<{
    id: string;
    number: number;
    name: string;
    kind: 'terminal' | 'back_office';
    location_id: string | null;
    location_name: string | null;
    created_at: Date;
    last_seen_at: Date | null;
    revoked_at: Date | null;
    has_sold: boolean;
  }>(
    `SELECT r.id, r.number, r.name, r.kind, r.location_id, l.name AS location_name, r.created_at, r.revoked_at,
            (SELECT MAX(c.last_seen_at) FROM register_credentials c WHERE c.register_id = r.id) AS last_seen_at,
            EXISTS (SELECT 1 FROM shifts s WHERE s.merchant_id = r.merchant_id AND s.register_id = r.id) AS has_sold
       FROM registers r LEFT JOIN locations l ON l.id = r.location_id
      WHERE r.merchant_id = $1 ORDER BY r.number`,
    [merchantId],
  );
  return rows.map((r) => ({
    id: r.id,
    number: Number(r.number),
    name: r.name,
    kind: r.kind,
    locationId: r.location_id,
    locationName: r.location_name,
    pairedAt: new Date(r.created_at).toISOString(),
    lastSeenAt: r.last_seen_at ? new Date(r.last_seen_at).toISOString() : null,
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
    hasSold: Boolean(r.has_sold),
  }));
}

/**
 * Revokes a register: every credential it holds fails from its next request (401). Revoking a revoked register
 * changes nothing. Audited `register.revoked`.
 * @throws ProblemError 404 `not_found` for another merchant's or an unknown register; 409 `back_office_register` for
 * the back-office register (it holds no credential: API orders take receipt numbers from it).
 */
export async function revokeRegister(m: Mutation, registerId: string): Promise<RegisterListing> {
  const row = (
    await m.tx.query<{ kind: string; revoked_at: Date | null }>('SELECT kind, revoked_at FROM registers WHERE id = $1 AND merchant_id = $2', [
      registerId,
      m.merchantId,
    ])
  ).rows[0];
  if (!row) throw new ProblemError(404, 'not_found', 'No such register.');
  if (row.kind === 'back_office')
    throw new ProblemError(409, 'back_office_register', 'The back-office register (API orders) holds no credential and cannot be revoked.');
  if (!row.revoked_at) {
    await m.tx.query('UPDATE registers SET revoked_at = $2 WHERE id = $1', [registerId, m.now.toISOString()]);
    await revokeRegisterCredentials(m.tx, m.merchantId, registerId);
    await m.audit({ registerId, action: 'register.revoked', entityType: 'register', entityId: registerId, data: {} });
  }
  return (await listRegisters(m.tx, m.merchantId)).find((r) => r.id === registerId)!;
}

/** A register counts as in use for {@link retireUnusedRegisters} when it made a request this recently: 10 minutes, in ms. */
export const UNUSED_REGISTER_QUIET_MS = 10 * 60 * 1000;

/**
 * Retires, in one step, the registers that were paired but never sold: every active terminal register that has synced
 * no shift and made no request in the last {@link UNUSED_REGISTER_QUIET_MS} — except `keepRegisterId` (the register
 * the back office is open on). Each is revoked as by {@link revokeRegister} (audited `register.revoked`, reason
 * `unused`); a register that turns out to be in use pairs again with a code. In the demo every browser profile pairs
 * itself as a new register, and each would otherwise wait in the day's closeout as a missing register.
 * @returns the registers retired (empty when none)
 */
export async function retireUnusedRegisters(m: Mutation, keepRegisterId?: string): Promise<RegisterListing[]> {
  // Last-seen times are the database's clock (identity.ts writes `now()`): compare with the same clock.
  const dbNow = (await m.tx.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
  const quietSince = new Date(dbNow).getTime() - UNUSED_REGISTER_QUIET_MS;
  const unused = (await listRegisters(m.tx, m.merchantId)).filter(
    (r) =>
      r.kind === 'terminal' &&
      !r.revokedAt &&
      !r.hasSold &&
      r.id !== keepRegisterId &&
      (r.lastSeenAt === null || Date.parse(r.lastSeenAt) < quietSince),
  );
  for (const r of unused) {
    await m.tx.query('UPDATE registers SET revoked_at = $2 WHERE id = $1', [r.id, m.now.toISOString()]);
    await revokeRegisterCredentials(m.tx, m.merchantId, r.id);
    await m.audit({ registerId: r.id, action: 'register.revoked', entityType: 'register', entityId: r.id, data: { reason: 'unused' } });
  }
  return unused.map((r) => ({ ...r, revokedAt: m.now.toISOString() }));
}

/**
 * A short name of the browser and system in a `User-Agent` header ("Chrome on Linux"), to tell apart the registers a
 * demo pairs by itself — one per browser profile. Unknown or missing: "browser".
 */
export function browserOf(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /HeadlessChrome\//.test(ua)
      ? 'Headless Chromium'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Firefox\//.test(ua)
          ? 'Firefox'
          : /Safari\//.test(ua)
            ? 'Safari'
            : 'browser';
  const system = /iPad|iPhone/.test(ua)
    ? 'iOS'
    : /Android/.test(ua)
      ? 'Android'
      : /CrOS/.test(ua)
        ? 'ChromeOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Mac OS X/.test(ua)
            ? 'macOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : '';
  return system ? `${browser} on ${system}` : browser;
}
