/**
 * Signed audit checkpoints held by this register (issue 11): while online the register fetches the store's signed
 * checkpoints of the audit chain, with the public key that verifies them (`GET /api/pos/audit/checkpoints`, its
 * register credential), and keeps them in localStorage — a copy outside the server's database. Handed back to
 * `POST /api/pos/audit/verify`, the held copy catches a trail rewritten and rehashed on the server after it was
 * fetched. Only new checkpoints are fetched (`afterSeq`); the newest {@link MAX_HELD} are kept.
 */

/** localStorage key of the held copy: `{ publicKey, data: SignedCheckpoint[] }` (the server's shapes, as answered). */
export const HELD_CHECKPOINTS_KEY = 'register.auditCheckpoints.v1';
/** At most this many checkpoints are kept (the newest): a few kB. */
export const MAX_HELD = 200;

/** A signed checkpoint as the server answers it (only `seq` is read here; the rest is kept verbatim). */
export interface HeldCheckpoint {
  seq: number;
  [field: string]: unknown;
}

/** What the register holds: the public key (a JWK) and the checkpoints, oldest first. */
export interface HeldCheckpoints {
  publicKey: unknown;
  data: HeldCheckpoint[];
}

/** The held copy, or an empty one. */
export function heldCheckpoints(): HeldCheckpoints {
  try {
    const parsed = JSON.parse(localStorage.getItem(HELD_CHECKPOINTS_KEY) ?? 'null') as HeldCheckpoints | null;
    if (parsed && Array.isArray(parsed.data)) return parsed;
  } catch {
    // a damaged copy is replaced by the next fetch
  }
  return { publicKey: null, data: [] };
}

/**
 * Fetches the checkpoints newer than the held ones through `request` (the sync engine's authenticated GET, which
 * records reachability) and adds them to the held copy. Checkpoints already held are never replaced by the server's
 * answer — that is the point of holding them. @throws what `request` throws (offline, HTTP errors).
 */
export async function refreshHeldCheckpoints(request: (path: string) => Promise<unknown>): Promise<HeldCheckpoints> {
  const held = heldCheckpoints();
  const afterSeq = held.data.reduce((max, c) => Math.max(max, Number(c.seq) || 0), 0);
  const answer = (await request(`/api/pos/audit/checkpoints${afterSeq > 0 ? `?afterSeq=${afterSeq}` : ''}`)) as { publicKey: unknown; data: HeldCheckpoint[] };
  const known = new Set(held.data.map((c) => c.seq));
  const next: HeldCheckpoints = {
    publicKey: held.publicKey ?? answer.publicKey,
    data: [...held.data, ...answer.data.filter((c) => !known.has(c.seq) && c.seq > afterSeq)].slice(-MAX_HELD),
  };
  localStorage.setItem(HELD_CHECKPOINTS_KEY, JSON.stringify(next));
  return next;
}
