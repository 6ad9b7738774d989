/**
 * Signed audit checkpoints held by this register: while online the register fetches the store's signed
 * checkpoints of the audit chain, with the public key that verifies them (`GET /api/pos/audit/checkpoints`, its
 * register credential), and keeps them in localStorage — a copy outside the server's database. Handed back to
 * `POST /api/pos/audit/verify`, the held copy catches a trail rewritten and rehashed on the server after it was
 * fetched. Only new checkpoints are fetched (`afterSeq`); the newest {@link MAX_HELD} are kept.
 *
 * The server also hands over its signed head (the newest checkpoint it stores). A head older than the newest one held
 * here — or none at all, or another hash at the same entry — means the server's audit trail went backwards (rolled
 * back, or its checkpoints deleted): the register keeps that finding ({@link HEAD_ROLLBACK_KEY}), shows it to the
 * manager (components/audit-head-banner.tsx) and reports it (`POST /api/sync/audit/head-reports`).
 */

/** localStorage key of the held copy: `{ publicKey, data: SignedCheckpoint[] }` (the server's shapes, as answered). */
export const HELD_CHECKPOINTS_KEY = 'register.auditCheckpoints.v1';
/** At most this many checkpoints are kept (the newest): a few kB. */
export const MAX_HELD = 200;

/** localStorage key of a head older than the one held: {@link HeadRollback}. */
export const HEAD_ROLLBACK_KEY = 'register.auditHeadRollback.v1';
/** Event dispatched on `window` when a head older than the one held is seen. */
export const HEAD_ROLLBACK_EVENT = 'register:audit-head-rollback';

/** A signed checkpoint as the server answers it (only `seq` and `headHash` are read here; the rest is kept verbatim). */
export interface HeldCheckpoint {
  seq: number;
  headHash?: unknown;
  signedAt?: unknown;
  [field: string]: unknown;
}

/** The server told a head older than the newest checkpoint held: both, when it was seen, and whether the server was told. */
export interface HeadRollback {
  held: HeldCheckpoint;
  told: HeldCheckpoint | null;
  seenAt: string;
  reported: boolean;
}

/**
 * True when `told`, the head the server handed over, is older than `held`, the newest checkpoint held: none at all,
 * an earlier entry, or the same entry with another hash. Pure. False when nothing is held.
 */
export function isOlderHead(held: HeldCheckpoint | undefined, told: HeldCheckpoint | null): boolean {
  if (!held) return false;
  if (!told) return true;
  return Number(told.seq) < Number(held.seq) || (Number(told.seq) === Number(held.seq) && told.headHash !== held.headHash);
}

/** The head rollback this register saw, or null. */
export function headRollback(): HeadRollback | null {
  try {
    const parsed = JSON.parse(localStorage.getItem(HEAD_ROLLBACK_KEY) ?? 'null') as HeadRollback | null;
    return parsed && parsed.held ? parsed : null;
  } catch {
    return null;
  }
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
 * answer — that is the point of holding them. When the server's `head` is older than the newest held checkpoint
 * ({@link isOlderHead}), keeps the finding, announces it ({@link HEAD_ROLLBACK_EVENT}) and hands it to `report`
 * (`{ held, told }`, the body of `POST /api/sync/audit/head-reports`); a failed report is tried again on the next refresh.
 * @throws what `request` throws (offline, HTTP errors).
 */
export async function refreshHeldCheckpoints(
  request: (path: string) => Promise<unknown>,
  report?: (body: { held: HeldCheckpoint; told: HeldCheckpoint | null }) => Promise<unknown>,
): Promise<HeldCheckpoints> {
  const held = heldCheckpoints();
  const afterSeq = held.data.reduce((max, c) => Math.max(max, Number(c.seq) || 0), 0);
  const answer = (await request(`/api/pos/audit/checkpoints${afterSeq > 0 ? `?afterSeq=${afterSeq}` : ''}`)) as {
    publicKey: unknown;
    data: HeldCheckpoint[];
    head?: HeldCheckpoint | null;
  };
  const newestHeld = held.data.find((c) => Number(c.seq) === afterSeq);
  if (answer.head !== undefined && isOlderHead(newestHeld, answer.head)) {
    const seen = headRollback();
    const same = seen && Number(seen.held.seq) === afterSeq;
    const finding: HeadRollback = same ? seen : { held: newestHeld!, told: answer.head, seenAt: new Date().toISOString(), reported: false };
    if (!finding.reported && report) {
      try {
        await report({ held: finding.held, told: finding.told });
        finding.reported = true;
      } catch {
        // told again on the next refresh
      }
    }
    localStorage.setItem(HEAD_ROLLBACK_KEY, JSON.stringify(finding));
    window.dispatchEvent(new Event(HEAD_ROLLBACK_EVENT));
  }
  const known = new Set(held.data.map((c) => c.seq));
  const next: HeldCheckpoints = {
    publicKey: held.publicKey ?? answer.publicKey,
    data: [...held.data, ...answer.data.filter((c) => !known.has(c.seq) && c.seq > afterSeq)].slice(-MAX_HELD),
  };
  localStorage.setItem(HELD_CHECKPOINTS_KEY, JSON.stringify(next));
  return next;
}
