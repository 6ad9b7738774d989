/**
 * Single-use tickets for server-sent event streams: `EventSource` cannot send an `Authorization` header, and a
 * long-lived token in the URL ends up in logs and browser history. A caller that authenticated normally asks for a
 * ticket (`POST /api/sync/stream-tickets`) and opens the stream with `?ticket=sst_…` within
 * {@link STREAM_TICKET_TTL_MS}; the stream route redeems it (deleted in the same statement: a replayed or copied URL
 * is refused). Stored as SHA-256 in `stream_tickets`, so every instance on one database accepts it.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';
import { AuthError, sha256Hex, type Principal } from './identity.ts';

/** How long a ticket may wait before the stream opens: 30 seconds, in ms. */
export const STREAM_TICKET_TTL_MS = 30_000;
/** Prefix of stream tickets (`sst_<43 base64url characters>`). */
export const STREAM_TICKET_PREFIX = 'sst_';

/** Issues a ticket standing for `principal`; returns it with its expiry (ISO 8601). Clears expired tickets. */
export async function issueStreamTicket(db: Queryable, principal: Principal, now: Date): Promise<{ ticket: string; expiresAt: string }> {
  const ticket = `${STREAM_TICKET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + STREAM_TICKET_TTL_MS).toISOString();
  await db.query('DELETE FROM stream_tickets WHERE expires_at < $1', [now.toISOString()]);
  await db.query('INSERT INTO stream_tickets (ticket_hash, merchant_id, principal, expires_at) VALUES ($1, $2, $3::jsonb, $4)', [
    sha256Hex(ticket),
    principal.merchantId,
    JSON.stringify(principal),
    expiresAt,
  ]);
  return { ticket, expiresAt };
}

/**
 * Redeems a ticket once: the principal it was issued to.
 * @throws AuthError when the ticket is unknown, already used or expired, or its register was revoked since.
 */
export async function redeemStreamTicket(db: Queryable, ticket: string, now: Date): Promise<Principal> {
  const { rows } = await db.query<{ principal: Principal; expires_at: Date }>(
    'DELETE FROM stream_tickets WHERE ticket_hash = $1 RETURNING principal, expires_at',
    [sha256Hex(ticket)],
  );
  const row = rows[0];
  if (!row || new Date(row.expires_at).getTime() <= now.getTime())
    throw new AuthError('the stream ticket is unknown, used or expired; ask for a new one (POST /api/sync/stream-tickets)');
  // A register revoked since the ticket was issued opens no stream.
  if (row.principal.kind === 'register' && !(await isRegisterLive(db, row.principal.registerId))) throw new AuthError('the register was revoked');
  return row.principal;
}

/** False once the register was revoked (the stream route asks at every keep-alive, and ends the stream then). */
export async function isRegisterLive(db: Queryable, registerId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM registers WHERE id = $1 AND revoked_at IS NULL', [registerId])).rows.length > 0;
}
