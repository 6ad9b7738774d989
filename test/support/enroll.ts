/**
 * Enrolls a register the way a store does: a staff member creates a one-time pairing code
 * (`POST /api/pos/registers/pairing-codes`) and the register exchanges it (`POST /api/register/pair`) for its register
 * credential. The one helper every suite that needs a paired register uses.
 */
import type { FastifyInstance } from 'fastify';

/** What `POST /api/register/pair` answers. */
export interface EnrolledRegister {
  /** `rrc_…` register credential (Bearer): syncing and selling as this register only. */
  registerToken: string;
  merchantId: string;
  merchantName: string;
  currency: string;
  registerId: string;
  registerNumber: number;
  registerName: string;
  locationId: string | null;
  lastReceiptSequence: number;
}

/** A server reached in-process (`app.inject`) or over HTTP (`baseUrl`, e.g. one instance of several). */
export type EnrollTarget = { app: FastifyInstance } | { baseUrl: string };

async function post(
  target: EnrollTarget,
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown; text: string }> {
  const allHeaders = { 'content-type': 'application/json', ...headers };
  if ('app' in target) {
    const res = await target.app.inject({ method: 'POST', url, headers: allHeaders, payload: JSON.stringify(body) });
    return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : null, text: res.body };
  }
  const res = await fetch(`${target.baseUrl.replace(/\/$/, '')}${url}`, { method: 'POST', headers: allHeaders, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, text };
}

/**
 * Creates a pairing code as `staffToken`'s staff member. @throws Error with the status and body when refused.
 */
export async function createPairingCode(
  target: EnrollTarget,
  staffToken: string,
  options: { locationId?: string; name?: string } = {},
): Promise<{ code: string; expiresAt: string; locationId: string }> {
  const res = await post(target, '/api/pos/registers/pairing-codes', options, { authorization: `Bearer ${staffToken}` });
  if (res.status !== 201) throw new Error(`pairing code: HTTP ${res.status} ${res.text}`);
  return res.body as { code: string; expiresAt: string; locationId: string };
}

/**
 * Pairs a register: a new one, or `registerId` again (a re-installed register keeps its number).
 * @throws Error with the status and body when a step is refused.
 */
export async function enrollRegister(
  target: EnrollTarget,
  staffToken: string,
  options: { registerId?: string; locationId?: string; name?: string } = {},
): Promise<EnrolledRegister> {
  const { code } = await createPairingCode(target, staffToken, {
    ...(options.locationId ? { locationId: options.locationId } : {}),
    ...(options.name ? { name: options.name } : {}),
  });
  const res = await post(target, '/api/register/pair', { code, ...(options.registerId ? { registerId: options.registerId } : {}) }, {});
  if (res.status !== 200) throw new Error(`pairing: HTTP ${res.status} ${res.text}`);
  return res.body as EnrolledRegister;
}
