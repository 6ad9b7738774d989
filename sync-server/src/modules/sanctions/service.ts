/**
 * Real-time sanctions screening (docs/api.md "Sanctions screening"): screens a name against the
 * store's current SDN list version, stores the decision (table `screenings`) and audits it (who, list version, top
 * matches, outcome). A potential match is `held` until a manager clears it with a reason or refuses it; other modules'
 * workflows (check cashing, transfers, bill payments) call {@link screenParty} and {@link assertScreeningCleared}.
 */
import { ulid } from '../../../../core/index.ts';
import {
  DEFAULT_BLOCK_THRESHOLD,
  DEFAULT_MATCH_THRESHOLD,
  type SanctionsList,
  type Screening,
  type ScreeningMatch,
  type ScreeningOutcome,
  type ScreeningSettings,
  type ScreeningStatus,
} from '../../../../core/screening.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { likeContains, SqlFilter } from '../../platform/db/sql-filter.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError, StateConflictError } from '../../platform/http/problem.ts';
import { screenName } from './matching.ts';
import {
  compiledList,
  compileStoredList,
  currentList,
  listSha256,
  parseSdnFiles,
  SAMPLE_LIST_VERSION,
  sampleListFiles,
  storeList,
  type SdnFiles,
} from './list.ts';

/** What a screening needs of its caller's mutation: the actor, the time and the audit trail (a kernel `Mutation` fits). */
export type ScreeningContext = Pick<Mutation, 'actor' | 'now' | 'audit'>;

/** Input of {@link screenParty}. */
export interface ScreenPartyInput {
  /** The party's name as typed or read from the ID (1 … 200 characters). */
  name: string;
  /** Whose name: 'check_casher' | 'transfer_sender' | 'transfer_receiver' | 'bill_payer' | 'manual' | … */
  role: string;
  /** The caller's reference of the transaction or party (kept on the screening, filterable). */
  subjectRef?: string | undefined;
}

/** Result of {@link screenParty}. */
export interface ScreenPartyResult {
  screeningId: string;
  outcome: ScreeningOutcome;
  status: ScreeningStatus;
  listVersion: string;
  listId: string;
  topMatches: ScreeningMatch[];
  /** The match threshold used (store setting). */
  threshold: number;
  blockThreshold: number;
  /** Best score (0 … 1). */
  score: number;
}

/** The store's screening settings (defaults when never changed). */
export async function getScreeningSettings(db: Queryable, merchantId: string): Promise<ScreeningSettings> {
  const { rows } = await db.query<{ match_threshold: number; block_threshold: number }>(
    'SELECT match_threshold, block_threshold FROM screening_settings WHERE merchant_id = $1',
    [merchantId],
  );
  return rows[0]
    ? { matchThreshold: Number(rows[0].match_threshold), blockThreshold: Number(rows[0].block_threshold) }
    : { matchThreshold: DEFAULT_MATCH_THRESHOLD, blockThreshold: DEFAULT_BLOCK_THRESHOLD };
}

/**
 * Changes the store's screening settings (audited `screening_settings.updated` with before and after).
 * @throws ProblemError 400 `validation_error` when the block threshold is below the match threshold
 */
export async function updateScreeningSettings(m: Mutation, patch: Partial<ScreeningSettings>): Promise<ScreeningSettings> {
  const before = await getScreeningSettings(m.tx, m.merchantId);
  const after = { ...before, ...patch };
  if (after.blockThreshold < after.matchThreshold) {
    throw new ProblemError(400, 'validation_error', 'Invalid blockThreshold: it must not be below matchThreshold.', [
      { path: 'blockThreshold', message: 'must be at least matchThreshold' },
    ]);
  }
  await m.tx.query(
    `INSERT INTO screening_settings (merchant_id, match_threshold, block_threshold, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id) DO UPDATE SET match_threshold = EXCLUDED.match_threshold, block_threshold = EXCLUDED.block_threshold, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, after.matchThreshold, after.blockThreshold, m.now],
  );
  await m.audit({ action: 'screening_settings.updated', entityType: 'merchant', entityId: m.merchantId, data: { before, after } });
  return after;
}

/**
 * Loads the bundled sample SDN list into a store that has no list yet (demo seed, and a store's first screening).
 * Idempotent: answers the current list when there is one.
 */
export async function ensureSampleList(tx: Queryable, merchantId: string, ctx: ScreeningContext): Promise<SanctionsList> {
  const current = await currentList(tx, merchantId);
  if (current) return current;
  const files = sampleListFiles();
  const list = await storeList(tx, merchantId, parseSdnFiles(files), {
    version: SAMPLE_LIST_VERSION,
    publishedOn: null,
    source: 'sample',
    sha256: listSha256(files),
    loadedBy: ctx.actor,
    now: ctx.now,
  });
  await ctx.audit({
    action: 'sanctions_list.loaded',
    entityType: 'sanctions_list',
    entityId: list.id,
    data: { version: list.version, source: 'sample', entryCount: list.entryCount, aliasCount: list.aliasCount, sha256: list.sha256 },
  });
  return { ...list, current: true };
}

/**
 * Stores an uploaded list as the store's new current version (every version kept), audited `sanctions_list.loaded`.
 * @throws ProblemError 400 `invalid_sanctions_list` for files not in OFAC's format
 */
export async function uploadSanctionsList(
  m: Mutation,
  input: SdnFiles & { version?: string | undefined; publishedOn?: string | undefined },
): Promise<SanctionsList> {
  const parsed = parseSdnFiles(input);
  const sha256 = listSha256(input);
  const version = input.version ?? `${input.publishedOn ?? m.now.toISOString().slice(0, 10)}-${sha256.slice(0, 8)}`;
  const list = await storeList(m.tx, m.merchantId, parsed, {
    version,
    publishedOn: input.publishedOn ?? null,
    source: 'upload',
    sha256,
    loadedBy: m.actor,
    now: m.now,
  });
  compileStoredList(list.id, parsed);
  await m.audit({
    action: 'sanctions_list.loaded',
    entityType: 'sanctions_list',
    entityId: list.id,
    data: {
      version,
      publishedOn: list.publishedOn,
      source: 'upload',
      entryCount: list.entryCount,
      aliasCount: list.aliasCount,
      addressCount: list.addressCount,
      sha256,
    },
  });
  return list;
}

function outcomeOf(score: number, settings: ScreeningSettings): ScreeningOutcome {
  if (score >= settings.blockThreshold) return 'blocked';
  if (score >= settings.matchThreshold) return 'potential_match';
  return 'clear';
}
const STATUS_OF: Record<ScreeningOutcome, ScreeningStatus> = { clear: 'clear', potential_match: 'held', blocked: 'blocked' };

/**
 * Screens one party's name against the store's current SDN list (the sample list is loaded first when the store has
 * none), stores the decision and audits it (`screening.screened`: who, role, list version, threshold, top matches,
 * outcome). Outcome `clear` → status `clear`; `potential_match` → `held` (a manager must clear or refuse it);
 * `blocked` → `blocked` (final). Runs inside the caller's transaction (merchant lock held by its mutation).
 *
 * @param tx the caller's open transaction
 * @param ctx the caller's mutation (actor, time, audit)
 * @throws ProblemError 400 `validation_error` when the name has no letter or digit or is longer than 200 characters
 */
export async function screenParty(tx: Queryable, merchantId: string, input: ScreenPartyInput, ctx: ScreeningContext): Promise<ScreenPartyResult> {
  const name = input.name.trim();
  if (!/[\p{L}\p{N}]/u.test(name) || name.length > 200) {
    throw new ProblemError(400, 'validation_error', 'Invalid name: give the name to screen (1 to 200 characters, with letters).', [
      { path: 'name', message: 'must contain letters (at most 200 characters)' },
    ]);
  }
  const list = await ensureSampleList(tx, merchantId, ctx);
  const settings = await getScreeningSettings(tx, merchantId);
  const topMatches = screenName(await compiledList(tx, list.id), name);
  const score = topMatches[0]?.score ?? 0;
  const outcome = outcomeOf(score, settings);
  const status = STATUS_OF[outcome];
  const id = `scr_${ulid()}`;
  await tx.query(
    `INSERT INTO screenings (id, merchant_id, list_id, name, role, subject_ref, outcome, status, score, threshold, block_threshold, top_matches, screened_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      id,
      merchantId,
      list.id,
      name,
      input.role,
      input.subjectRef ?? null,
      outcome,
      status,
      score,
      settings.matchThreshold,
      settings.blockThreshold,
      JSON.stringify(topMatches),
      ctx.actor,
      ctx.now,
    ],
  );
  await ctx.audit({
    action: 'screening.screened',
    entityType: 'screening',
    entityId: id,
    data: {
      name,
      role: input.role,
      subjectRef: input.subjectRef ?? null,
      listId: list.id,
      listVersion: list.version,
      threshold: settings.matchThreshold,
      blockThreshold: settings.blockThreshold,
      score,
      topMatches,
      outcome,
      status,
    },
  });
  return {
    screeningId: id,
    outcome,
    status,
    listVersion: list.version,
    listId: list.id,
    topMatches,
    threshold: settings.matchThreshold,
    blockThreshold: settings.blockThreshold,
    score,
  };
}

interface ScreeningRow {
  id: string;
  name: string;
  role: string;
  subject_ref: string | null;
  outcome: ScreeningOutcome;
  status: ScreeningStatus;
  score: number;
  threshold: number;
  block_threshold: number;
  list_id: string;
  list_version: string;
  top_matches: ScreeningMatch[] | string;
  screened_by: string;
  created_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
}

function screeningView(r: ScreeningRow): Screening {
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    subjectRef: r.subject_ref,
    outcome: r.outcome,
    status: r.status,
    score: Number(r.score),
    threshold: Number(r.threshold),
    blockThreshold: Number(r.block_threshold),
    listId: r.list_id,
    listVersion: r.list_version,
    topMatches: typeof r.top_matches === 'string' ? (JSON.parse(r.top_matches) as ScreeningMatch[]) : r.top_matches,
    screenedBy: r.screened_by,
    createdAt: new Date(r.created_at).toISOString(),
    decidedBy: r.decided_by,
    decidedAt: r.decided_at ? new Date(r.decided_at).toISOString() : null,
    decisionReason: r.decision_reason,
  };
}

const SCREENING_SELECT = `SELECT s.id, s.name, s.role, s.subject_ref, s.outcome, s.status, s.score, s.threshold, s.block_threshold, s.list_id,
  l.version AS list_version, s.top_matches, s.screened_by, s.created_at, s.decided_by, s.decided_at, s.decision_reason
  FROM screenings s JOIN sanctions_lists l ON l.id = s.list_id`;

/** One screening of the store, or null. */
export async function getScreening(db: Queryable, merchantId: string, id: string): Promise<Screening | null> {
  const { rows } = await db.query<ScreeningRow>(`${SCREENING_SELECT} WHERE s.merchant_id = $1 AND s.id = $2`, [merchantId, id]);
  return rows[0] ? screeningView(rows[0]) : null;
}

/** Filters of {@link listScreenings}. */
export interface ScreeningFilters {
  status?: ScreeningStatus | undefined;
  outcome?: ScreeningOutcome | undefined;
  role?: string | undefined;
  subjectRef?: string | undefined;
  /** Name contains (case-insensitive). */
  q?: string | undefined;
  /** createdAt ≥ from, < to (ISO-8601). */
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The store's screenings, newest first, filtered, one page (cursor of `(createdAt, id)`). */
export async function listScreenings(
  db: Queryable,
  merchantId: string,
  f: ScreeningFilters,
): Promise<{ data: Screening[]; nextCursor: string | null }> {
  const q = new SqlFilter(['s.merchant_id = ?'], [merchantId]);
  if (f.status) q.add('s.status = ?', f.status);
  if (f.outcome) q.add('s.outcome = ?', f.outcome);
  if (f.role) q.add('s.role = ?', f.role);
  if (f.subjectRef) q.add('s.subject_ref = ?', f.subjectRef);
  if (f.q) q.add('s.name ILIKE ?', likeContains(f.q));
  if (f.from) q.add('s.created_at >= ?', f.from);
  if (f.to) q.add('s.created_at < ?', f.to);
  if (f.cursor) q.add('(s.created_at, s.id) < (?::timestamptz, ?)', ...decodeCursor(f.cursor, ['date', 'string']));
  const limit = q.param(f.limit + 1);
  const { rows } = await db.query<ScreeningRow>(
    `${SCREENING_SELECT} WHERE ${q.where} ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}`,
    q.params,
  );
  const { page, nextCursor } = pageOf(rows, f.limit, (r) => [new Date(r.created_at).toISOString(), r.id]);
  return { data: page.map(screeningView), nextCursor };
}

/**
 * A manager's decision on a held screening: `clear` (false positive: the transaction may go on) or `refuse`, with a
 * reason; audited `screening.cleared` / `screening.refused` with the list version and top matches.
 * @throws ProblemError 404 `not_found`; 409 `illegal_state_transition` when the screening is not `held`
 */
export async function decideScreening(m: Mutation, id: string, decision: 'clear' | 'refuse', reason: string): Promise<Screening> {
  const { rows } = await m.tx.query<{ status: ScreeningStatus }>('SELECT status FROM screenings WHERE merchant_id = $1 AND id = $2 FOR UPDATE', [
    m.merchantId,
    id,
  ]);
  const row = rows[0];
  if (!row) throw new ProblemError(404, 'not_found', `Screening ${id} does not exist.`);
  if (row.status !== 'held')
    throw new StateConflictError(
      'screening',
      id,
      row.status,
      `Screening ${id} is ${row.status}: only a held screening can be ${decision === 'clear' ? 'cleared' : 'refused'}.`,
    );
  const status: ScreeningStatus = decision === 'clear' ? 'cleared' : 'refused';
  await m.tx.query('UPDATE screenings SET status = $3, decided_by = $4, decided_at = $5, decision_reason = $6 WHERE merchant_id = $1 AND id = $2', [
    m.merchantId,
    id,
    status,
    m.actor,
    m.now,
    reason,
  ]);
  const screening = (await getScreening(m.tx, m.merchantId, id))!;
  await m.audit({
    action: `screening.${status}`,
    entityType: 'screening',
    entityId: id,
    data: {
      reason,
      name: screening.name,
      role: screening.role,
      listVersion: screening.listVersion,
      score: screening.score,
      topMatches: screening.topMatches,
      outcome: screening.outcome,
      status,
    },
  });
  return screening;
}

/**
 * Lets a transaction go on only past a screening that is `clear` or `cleared` (check cashing, transfers, bill payments).
 * @throws ProblemError 404 `screening_not_found` when the store has no such screening; 409 `screening_hold` when it is
 *   held, refused or blocked (the detail names the status)
 */
export async function assertScreeningCleared(tx: Queryable, merchantId: string, screeningId: string): Promise<void> {
  const { rows } = await tx.query<{ status: ScreeningStatus }>('SELECT status FROM screenings WHERE merchant_id = $1 AND id = $2', [
    merchantId,
    screeningId,
  ]);
  const status = rows[0]?.status;
  if (!status) throw new ProblemError(404, 'screening_not_found', `Screening ${screeningId} does not exist.`);
  if (status === 'clear' || status === 'cleared') return;
  const why =
    status === 'held'
      ? 'is a potential sanctions match held for a manager'
      : status === 'refused'
        ? 'was refused by a manager'
        : 'is blocked (sanctions match)';
  throw new ProblemError(409, 'screening_hold', `Screening ${screeningId} ${why}: the transaction cannot go on (status ${status}).`);
}
