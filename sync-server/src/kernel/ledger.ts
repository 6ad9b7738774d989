import {
  chartAccountOf,
  canonicalJson,
  CHART_OF_ACCOUNTS,
  isBalanced,
  type AccountDefinition,
  type JournalTransaction,
} from '../../../core/index.ts';
import { ulid } from '../../../core/index.ts';
import { jsonValue, lockMerchant, prepared, readTogether, transactionMemo, type Queryable, type ReadPart } from '../platform/db/db.ts';
import { appendAudit, journalPostedEntry, sha256hex } from './audit.ts';

/**
 * The merchant ledger: journal transactions whose postings sum to zero, immutable once written (the
 * database refuses UPDATE/DELETE and checks the balance at commit). Accounts follow core's CHART_OF_ACCOUNTS;
 * per-register and per-rail accounts (`cash_drawer:R2`, `card_clearing:card_present`) are created on first use.
 */
export class LedgerConflictError extends Error {
  override name = 'LedgerConflictError';
}

export class LedgerValidationError extends Error {
  override name = 'LedgerValidationError';
}

/**
 * Creates the base chart of accounts of a merchant (idempotent); `chart` defaults to a store's (core
 * `CHART_OF_ACCOUNTS`), the platform ledger passes core `PLATFORM_CHART_OF_ACCOUNTS`.
 */
export async function ensureChartOfAccounts(
  tx: Queryable,
  merchantId: string,
  chart: readonly AccountDefinition[] = CHART_OF_ACCOUNTS,
): Promise<void> {
  for (const a of chart) {
    await tx.query(
      `INSERT INTO accounts (id, merchant_id, code, name, type) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (merchant_id, code) DO NOTHING`,
      [`acc_${ulid()}`, merchantId, a.code, a.name, a.type],
    );
  }
}

async function accountId(tx: Queryable, merchantId: string, code: string): Promise<string> {
  const memo = transactionMemo(tx);
  const key = `account:${merchantId}:${code}`;
  const known = memo?.get(key);
  if (typeof known === 'string') return known;
  const id = await findOrCreateAccount(tx, merchantId, code);
  memo?.set(key, id);
  return id;
}

async function findOrCreateAccount(tx: Queryable, merchantId: string, code: string): Promise<string> {
  const found = await tx.query<{ id: string }>('SELECT id FROM accounts WHERE merchant_id = $1 AND code = $2', [merchantId, code]);
  if (found.rows[0]) return found.rows[0].id;
  const base = chartAccountOf(code);
  if (!base || base.code === code) throw new LedgerValidationError(`account ${code} is not in the chart of accounts`);
  const suffix = code.slice(base.code.length + 1);
  await tx.query(`INSERT INTO accounts (id, merchant_id, code, name, type) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (merchant_id, code) DO NOTHING`, [
    `acc_${ulid()}`,
    merchantId,
    code,
    `${base.name} ${suffix}`,
    base.type,
  ]);
  const created = await tx.query<{ id: string }>('SELECT id FROM accounts WHERE merchant_id = $1 AND code = $2', [merchantId, code]);
  return created.rows[0]!.id;
}

/** The comparable content of a journal transaction: core fields, timestamps normalised, server stamps dropped. */
export function journalContent(jt: JournalTransaction): string {
  return canonicalJson({
    id: jt.id,
    kind: jt.kind,
    sourceType: jt.sourceType,
    sourceId: jt.sourceId,
    registerId: jt.registerId,
    currency: jt.currency,
    occurredAt: new Date(jt.occurredAt).toISOString(),
    memo: jt.memo,
    postings: jt.postings.map((p) => ({ accountCode: p.accountCode, amountCents: p.amountCents })),
  });
}

/**
 * The tamper-evidence hash of a journal transaction, postings included: SHA-256 (hex) of {@link journalContent}. Every
 * journal transaction posted through this module has it recorded in the audit entry of the change that posted it
 * (`journal_hashes`, inside the chained hash), so an edited posting no longer matches the audit trail (kernel/verify.ts).
 */
export function journalHash(jt: JournalTransaction): string {
  return sha256hex(journalContent(jt));
}

/**
 * Where the {@link journalHash}es of the journal transactions a post creates go. `'now'` (the default): one
 * `journal_transaction.posted` audit entry (actor `system`, kernel/audit.ts `journalPostedEntry`) records them at once.
 * `'caller'`: they are only returned with the outcomes, and the caller has an audit entry of its change carry them —
 * kernel/mutation.ts `Mutation.postJournalTransaction(s)` does, which is how code inside a mutation posts.
 */
export type JournalHashesTo = 'now' | 'caller';

/** Records `hashes` (id → hash) in a `journal_transaction.posted` entry unless the caller records them. */
async function recordPosted(tx: Queryable, merchantId: string, hashes: Record<string, string>, to: JournalHashesTo | undefined): Promise<void> {
  if (to !== 'caller' && Object.keys(hashes).length > 0) await appendAudit(tx, journalPostedEntry(merchantId, hashes));
}

/** A stored journal transaction in core shape with its server stamps (`updatedAt`, `syncSeq`). */
export type StoredJournalTransaction = JournalTransaction & { updatedAt: string; syncSeq: number };

interface JtRow {
  id: string;
  kind: JournalTransaction['kind'];
  source_type: JournalTransaction['sourceType'];
  source_id: string;
  register_id: string | null;
  occurred_at: Date;
  memo: string;
  currency: string;
  sync_seq: number | string;
  created_at: Date;
}

/** Loads journal transactions (with postings, in line order) for the given rows. */
export async function hydrateJournalTransactions(db: Queryable, rows: JtRow[]): Promise<StoredJournalTransaction[]> {
  if (rows.length === 0) return [];
  const postings = await db.query<{ journal_transaction_id: string; code: string; amount_cents: number | string }>(
    `SELECT p.journal_transaction_id, a.code, p.amount_cents FROM postings p JOIN accounts a ON a.id = p.account_id
     WHERE p.journal_transaction_id = ANY($1::text[]) ORDER BY p.journal_transaction_id, p.line_no`,
    [rows.map((r) => r.id)],
  );
  const byJt = new Map<string, { accountCode: string; amountCents: number }[]>();
  for (const p of postings.rows) {
    const list = byJt.get(p.journal_transaction_id) ?? [];
    list.push({ accountCode: p.code, amountCents: Number(p.amount_cents) });
    byJt.set(p.journal_transaction_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    sourceType: r.source_type,
    sourceId: r.source_id,
    registerId: r.register_id,
    currency: r.currency,
    occurredAt: new Date(r.occurred_at).toISOString(),
    memo: r.memo,
    postings: byJt.get(r.id) ?? [],
    updatedAt: new Date(r.created_at).toISOString(),
    syncSeq: Number(r.sync_seq),
  }));
}

export async function getJournalTransaction(db: Queryable, merchantId: string, id: string): Promise<StoredJournalTransaction | undefined> {
  const { rows } = await db.query<JtRow>('SELECT * FROM journal_transactions WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  return (await hydrateJournalTransactions(db, rows))[0];
}

/** What {@link postJournalTransaction} did: created (with its {@link journalHash}), or found with the same content. */
export type PostResult = { created: true; syncSeq: number; hash: string } | { created: false; syncSeq: number };

/**
 * Posts a journal transaction inside `tx`. Idempotent by id: the same content again is a no-op (`created: false`);
 * different content under an existing id throws {@link LedgerConflictError}. The hash of a created one is recorded
 * as `options.hashes` says ({@link JournalHashesTo}) and returned.
 * @throws LedgerValidationError when the postings do not balance or name an account outside the chart.
 */
export async function postJournalTransaction(
  tx: Queryable,
  merchantId: string,
  jt: JournalTransaction,
  options: { hashes?: JournalHashesTo } = {},
): Promise<PostResult> {
  if (!isBalanced(jt.postings)) throw new LedgerValidationError(`journal transaction ${jt.id} does not balance`);
  await lockMerchant(tx, merchantId);
  const existing = await tx.query<JtRow & { merchant_id: string }>('SELECT * FROM journal_transactions WHERE id = $1', [jt.id]);
  if (existing.rows[0]) {
    const stored = existing.rows[0];
    const [hydrated] = await hydrateJournalTransactions(tx, [stored]);
    if (stored.merchant_id !== merchantId || journalContent(hydrated!) !== journalContent(jt)) {
      throw new LedgerConflictError(`journal transaction ${jt.id} already exists with other content`);
    }
    return { created: false, syncSeq: Number(stored.sync_seq) };
  }
  const ids: string[] = [];
  for (const p of jt.postings) ids.push(await accountId(tx, merchantId, p.accountCode));
  const seq = await tx.query<{ seq: number | string }>(`SELECT nextval('sync_seq') AS seq`);
  const syncSeq = Number(seq.rows[0]!.seq);
  await tx.query(
    `INSERT INTO journal_transactions (id, merchant_id, kind, source_type, source_id, register_id, occurred_at, memo, currency, sync_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [jt.id, merchantId, jt.kind, jt.sourceType, jt.sourceId, jt.registerId, jt.occurredAt, jt.memo, jt.currency, syncSeq],
  );
  // One statement for all the postings of the transaction.
  const values: string[] = [];
  const params: unknown[] = [];
  for (const [i, p] of jt.postings.entries()) {
    const n = params.length;
    values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5})`);
    params.push(`pst_${ulid()}`, jt.id, i, ids[i], p.amountCents);
  }
  if (values.length > 0)
    await tx.query(`INSERT INTO postings (id, journal_transaction_id, line_no, account_id, amount_cents) VALUES ${values.join(', ')}`, params);
  const hash = journalHash(jt);
  await recordPosted(tx, merchantId, { [jt.id]: hash }, options.hashes);
  return { created: true, syncSeq, hash };
}

export interface TrialBalance {
  currency: string;
  accounts: { code: string; name: string; type: string; balanceCents: number }[];
  totalCents: number;
}

/** Balance of every account with postings (debits positive); the total of a sound ledger is 0. */
export async function trialBalance(db: Queryable, merchantId: string): Promise<TrialBalance> {
  const { rows } = await db.query<{ code: string; name: string; type: string; balance: number | string; currency: string }>(
    `SELECT a.code, a.name, a.type, COALESCE(SUM(p.amount_cents), 0)::bigint AS balance, m.currency
     FROM accounts a JOIN merchants m ON m.id = a.merchant_id LEFT JOIN postings p ON p.account_id = a.id
     WHERE a.merchant_id = $1 GROUP BY a.code, a.name, a.type, m.currency ORDER BY a.code`,
    [merchantId],
  );
  const accounts = rows.map((r) => ({ code: r.code, name: r.name, type: r.type, balanceCents: Number(r.balance) }));
  return { currency: rows[0]?.currency ?? 'USD', accounts, totalCents: accounts.reduce((a, r) => a + r.balanceCents, 0) };
}

/**
 * What {@link postJournalTransactions} did with one journal transaction; a created one carries its {@link journalHash}
 * (left out only with `tamperEvidence: false`).
 */
export type PostOutcome =
  { status: 'created'; hash?: string } | { status: 'unchanged' } | { status: 'conflict'; message: string } | { status: 'invalid'; message: string };

/** What {@link postJournalTransactions} reads before it writes: the stored transactions among its ids, and accounts. */
export interface LedgerRead {
  /** Journal transactions already stored under the ids asked (any merchant's), as rows. */
  existing: (JtRow & { merchant_id: string })[];
  /** The merchant's accounts among the codes asked. */
  accounts: { id: string; code: string }[];
}

/**
 * The read {@link postJournalTransactions} makes before writing `jts`, as a part of a combined read (platform/db
 * `readTogether`): a workflow that reads other things before the same write reads this with them and hands the result
 * to `postJournalTransactions` (`options.read`), one round trip for all.
 */
export function ledgerReadPart(merchantId: string, jts: readonly JournalTransaction[]): ReadPart<LedgerRead> {
  return {
    sql: `SELECT json_build_object(
              'existing', (SELECT coalesce(json_agg(j), '[]'::json) FROM journal_transactions j WHERE j.id = ANY($1::text[])),
              'accounts', (SELECT coalesce(json_agg(json_build_object('id', a.id, 'code', a.code)), '[]'::json)
                             FROM accounts a WHERE a.merchant_id = $2 AND a.code = ANY($3::text[])))`,
    params: [jts.map((jt) => jt.id), merchantId, [...new Set(jts.flatMap((jt) => jt.postings.map((p) => p.accountCode)))]],
    parse: (value) => jsonValue<LedgerRead>(value),
  };
}

/**
 * Posts many journal transactions of one merchant inside `tx`, in a fixed number of statements whatever their count:
 * one read of those already stored (and their postings), one read of the accounts they name (creating the per-register
 * and per-rail accounts met for the first time in one more statement), and one statement inserting the transactions
 * (sync sequences drawn in it) and all their postings. Idempotent by id like {@link postJournalTransaction}: the same
 * content again is `unchanged`; other content under a stored id is a `conflict` and writes nothing; postings that do
 * not balance or an account outside the chart are `invalid` and write nothing. Ids must be distinct in one call.
 * Each created transaction's {@link journalHash} is returned with its outcome and recorded as `options.hashes` says
 * ({@link JournalHashesTo}; inside a mutation, by the audit entry that names it — no statement more).
 *
 * @param options.tamperEvidence false leaves out the journal hashes: for the bench's baseline only (test/bench/run.ts),
 *   never for real books — a journal transaction whose hash no audit entry carries fails verification.
 * @param options.read the {@link ledgerReadPart} of these `jts` (or of more), read by the caller in this transaction
 *   under the merchant's lock with nothing posted since: the read is then not made again
 * @returns one outcome per journal transaction, in the order given
 */
export async function postJournalTransactions(
  tx: Queryable,
  merchantId: string,
  jts: readonly JournalTransaction[],
  options: { tamperEvidence?: boolean; read?: LedgerRead; hashes?: JournalHashesTo } = {},
): Promise<PostOutcome[]> {
  const outcomes: PostOutcome[] = jts.map((jt) =>
    isBalanced(jt.postings) ? { status: 'created' } : { status: 'invalid', message: `journal transaction ${jt.id} does not balance` },
  );
  if (jts.length === 0) return outcomes;
  await lockMerchant(tx, merchantId);
  // The transactions already stored under these ids and the accounts the postings name, in one round trip (or read
  // by the caller together with what else it needed).
  const memo = transactionMemo(tx);
  const [read] = options.read ? [options.read] : await readTogether(tx, 'ledger_existing_accounts', [ledgerReadPart(merchantId, jts)]);
  // A read made for more transactions than these (a caller's) may hold others: only these are compared.
  const asked = new Set(jts.map((jt) => jt.id));
  const existing = { rows: read.existing.filter((row) => asked.has(row.id)) };
  for (const a of read.accounts) memo?.set(`account:${merchantId}:${a.code}`, a.id);
  if (existing.rows.length > 0) {
    const hydrated = new Map(
      (await hydrateJournalTransactions(tx, existing.rows)).map((h, i) => [h.id, { stored: h, merchantId: existing.rows[i]!.merchant_id }]),
    );
    jts.forEach((jt, i) => {
      const found = hydrated.get(jt.id);
      if (!found || outcomes[i]!.status === 'invalid') return;
      outcomes[i] =
        found.merchantId === merchantId && journalContent(found.stored) === journalContent(jt)
          ? { status: 'unchanged' }
          : { status: 'conflict', message: `journal transaction ${jt.id} already exists with other content` };
    });
  }
  const accounts = await accountIds(
    tx,
    merchantId,
    jts.filter((_, i) => outcomes[i]!.status === 'created').flatMap((jt) => jt.postings.map((p) => p.accountCode)),
  );
  jts.forEach((jt, i) => {
    const unknown = jt.postings.find((p) => !accounts.has(p.accountCode));
    if (outcomes[i]!.status === 'created' && unknown)
      outcomes[i] = { status: 'invalid', message: `account ${unknown.accountCode} is not in the chart of accounts` };
  });
  const toCreate = jts.filter((_, i) => outcomes[i]!.status === 'created');
  if (toCreate.length === 0) return outcomes;
  // The transactions (sync sequences drawn in the order given) and all their postings in one statement: the postings'
  // foreign key is checked at the end of the statement, when both INSERTs are done.
  const postings = toCreate.flatMap((jt) =>
    jt.postings.map((p, line) => ({ jt: jt.id, line, account: accounts.get(p.accountCode)!, amount: p.amountCents })),
  );
  await tx.query(
    prepared(
      'journal_transactions_postings_insert_batch',
      `WITH created AS (
       INSERT INTO journal_transactions (id, merchant_id, kind, source_type, source_id, register_id, occurred_at, memo, currency, sync_seq)
       SELECT id, $1, kind, source_type, source_id, register_id, occurred_at, memo, currency, nextval('sync_seq')
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[]) WITH ORDINALITY
              AS t(id, kind, source_type, source_id, register_id, occurred_at, memo, currency, n)
        ORDER BY n
       RETURNING 1)
     INSERT INTO postings (id, journal_transaction_id, line_no, account_id, amount_cents)
     SELECT * FROM unnest($10::text[], $11::text[], $12::int[], $13::text[], $14::bigint[])`,
    ),
    [
      merchantId,
      toCreate.map((jt) => jt.id),
      toCreate.map((jt) => jt.kind),
      toCreate.map((jt) => jt.sourceType),
      toCreate.map((jt) => jt.sourceId),
      toCreate.map((jt) => jt.registerId),
      toCreate.map((jt) => jt.occurredAt),
      toCreate.map((jt) => jt.memo),
      toCreate.map((jt) => jt.currency),
      postings.map(() => `pst_${ulid()}`),
      postings.map((p) => p.jt),
      postings.map((p) => p.line),
      postings.map((p) => p.account),
      postings.map((p) => p.amount),
    ],
  );
  if (options.tamperEvidence === false) return outcomes;
  const hashes: Record<string, string> = {};
  jts.forEach((jt, i) => {
    if (outcomes[i]!.status !== 'created') return;
    const hash = journalHash(jt);
    outcomes[i] = { status: 'created', hash };
    hashes[jt.id] = hash;
  });
  await recordPosted(tx, merchantId, hashes, options.hashes);
  return outcomes;
}

/**
 * Account ids of `codes` (merchant's chart), reading those not yet known in this transaction in one statement and
 * creating the derived accounts (`cash_drawer:R2`) met for the first time in one more. Codes outside the chart are
 * left out of the answer.
 */
async function accountIds(tx: Queryable, merchantId: string, codes: readonly string[]): Promise<Map<string, string>> {
  const memo = transactionMemo(tx);
  const out = new Map<string, string>();
  const wanted = new Set<string>();
  for (const code of new Set(codes)) {
    const known = memo?.get(`account:${merchantId}:${code}`);
    if (typeof known === 'string') out.set(code, known);
    else wanted.add(code);
  }
  if (wanted.size === 0) return out;
  const read = async () => {
    const { rows } = await tx.query<{ id: string; code: string }>('SELECT id, code FROM accounts WHERE merchant_id = $1 AND code = ANY($2::text[])', [
      merchantId,
      [...wanted],
    ]);
    for (const r of rows) {
      out.set(r.code, r.id);
      memo?.set(`account:${merchantId}:${r.code}`, r.id);
      wanted.delete(r.code);
    }
  };
  await read();
  const derived = [...wanted].flatMap((code) => {
    const base = chartAccountOf(code);
    return base && base.code !== code ? [{ code, name: `${base.name} ${code.slice(base.code.length + 1)}`, type: base.type }] : [];
  });
  if (derived.length === 0) return out;
  await tx.query(
    `INSERT INTO accounts (id, merchant_id, code, name, type) SELECT id, $1, code, name, type FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS t(id, code, name, type)
     ON CONFLICT (merchant_id, code) DO NOTHING`,
    [merchantId, derived.map(() => `acc_${ulid()}`), derived.map((d) => d.code), derived.map((d) => d.name), derived.map((d) => d.type)],
  );
  await read();
  return out;
}
