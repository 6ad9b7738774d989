import { AsyncLocalStorage } from 'node:async_hooks';
import { Worker } from 'node:worker_threads';
import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * The server's database handle: PostgreSQL dialect everywhere. Two engines fill it — embedded PGlite
 * (default, data in DATA_DIR) and node-postgres over a real PostgreSQL (DATABASE_URL). Services only see
 * {@link Queryable}, so the same SQL runs on both.
 *
 * Conventions: JSON parameters are passed as strings and cast (`$1::jsonb`) because node-postgres would turn a JS array
 * into a PostgreSQL array; `bigint` columns come back as numbers from PGlite and strings from node-postgres, so read
 * them through `Number(...)`.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Runs one or more statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. With `options.lockMerchant`
   * on PostgreSQL the transaction starts holding that merchant's write lock ({@link lockMerchant}), taken in the same
   * round trip as BEGIN, so `lockMerchant` inside it costs nothing; PGlite (no round trips) leaves it to `lockMerchant`.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
  /**
   * PostgreSQL only: LISTEN on `channel` over a dedicated connection (re-established after a failure); resolves to a
   * function that stops listening. Absent on PGlite, which has one process and needs no fan-out.
   */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
}

/** How a transaction starts (see {@link Db.transaction}). */
export interface TransactionOptions {
  /** A merchant id whose write lock ({@link lockMerchant}) the transaction takes as it begins. */
  lockMerchant?: string;
}

/**
 * Work that every transaction opened in the current async context runs just before it commits, inside it: set with
 * `commitHooks.run(hook, fn)`. The idempotency layer uses it to mark a key as carried out in the same transaction as
 * the effect (http/idempotency.ts), so a crash between commit and the stored answer can never let a retry run twice.
 */
export const commitHooks = new AsyncLocalStorage<(tx: Queryable) => Promise<void>>();

/** SQL texts registered with {@link prepared}: text → statement name. */
const preparedStatements = new Map<string, string>();

/**
 * Marks `sql` — a fixed text run often with parameters, such as a replication push's statements — as a prepared
 * statement: on PostgreSQL it runs as a named statement (node-postgres `{ name, text, values }`), parsed once per
 * connection and then only bound and executed (PostgreSQL's plan cache: custom plans, then a generic one when it costs
 * no more); PGlite runs it as any other. Returns `sql` itself, so callers write `tx.query(prepared('…', sql), params)`
 * and every wrapper of a {@link Queryable} passes it on unchanged. The statement's name is `name` plus a hash of the
 * text, so two texts never share a name. Never use it for text built from data (each text stays registered).
 */
export function prepared(name: string, sql: string): string {
  if (!preparedStatements.has(sql)) preparedStatements.set(sql, `${name}_${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`);
  return sql;
}

/**
 * One part of a read made together with others ({@link readTogether}): a scalar SQL expression — typically a
 * subquery aggregating to one `json` value — with its own parameters numbered from `$1`, and `parse`, which turns the
 * value the database answers into what its owner needs. Modules build the parts of their own tables, so a workflow
 * can read what several modules need before a write in one round trip without any of them writing another's SQL.
 */
export interface ReadPart<T> {
  sql: string;
  params: readonly unknown[];
  parse(value: unknown): T;
}

/** The parsed values of a tuple of {@link ReadPart}s, in the same order. */
export type ReadResults<P extends readonly ReadPart<unknown>[]> = { -readonly [K in keyof P]: P[K] extends ReadPart<infer T> ? T : never };

/**
 * Runs `parts` as one statement — `SELECT (part 1), (part 2), …`, each part's parameters renumbered after the
 * previous parts' (every `$<digits>` in a part's text is taken for a parameter: write none inside a literal) — and
 * returns each part's parsed value, in order. Every part sees the same snapshot. The statement
 * is {@link prepared} under `name` (the text is fixed when the parts' texts are: never build a part's text from data).
 */
export async function readTogether<const P extends readonly ReadPart<unknown>[]>(tx: Queryable, name: string, parts: P): Promise<ReadResults<P>> {
  const params: unknown[] = [];
  const columns = parts.map((part, i) => {
    const offset = params.length;
    params.push(...part.params);
    return `(${part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)}) AS p${i}`;
  });
  const { rows } = await tx.query<Record<string, unknown>>(prepared(name, `SELECT ${columns.join(',\n       ')}`), params);
  const row = rows[0]!;
  return parts.map((part, i) => part.parse(row[`p${i}`])) as ReadResults<P>;
}

/**
 * A `json` object or array as read: node-postgres and PGlite hand it back parsed; text (should a driver give it) is
 * parsed. Not for a `json` string or number, whose parsed value is itself a string or number.
 */
export function jsonValue<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Memo of each open transaction handle (see {@link transactionMemo}). */
const memos = new WeakMap<Queryable, Map<string, unknown>>();

/**
 * A scratch map that lives as long as one transaction handle: facts that cannot change under this transaction once
 * read or written in it (an advisory lock held, an account's id, the merchant's audit-chain head while its lock is
 * held). `undefined` for a handle that is not a transaction (the pool or PGlite itself), so callers then just query.
 * Cleared on `ROLLBACK TO SAVEPOINT`, since what was learnt inside the savepoint may be undone.
 */
export function transactionMemo(tx: Queryable): Map<string, unknown> | undefined {
  return memos.get(tx);
}

/** Registers `handle` as a transaction with an empty memo; `ROLLBACK TO …` through it clears the memo. */
function trackTransaction(handle: Queryable): Queryable {
  const memo = new Map<string, unknown>();
  const tracked: Queryable = {
    query(sql, params) {
      if (/^\s*ROLLBACK\s+TO\b/i.test(sql)) memo.clear();
      return handle.query(sql, params);
    },
    exec: (sql) => handle.exec(sql),
  };
  memos.set(tracked, memo);
  return tracked;
}

/** A request to the PGlite worker (pglite-worker.mjs), without its id. */
type WorkerRequest =
  | { op: 'query'; sql: string; params: unknown[]; tx?: number }
  | { op: 'exec'; sql: string; tx?: number }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'close' };

/** An error as the PGlite worker sends it: message, name and the error's own plain fields (`code`, `detail`, …). */
type WorkerError = { message: string; name: string } & Record<string, string | number | boolean | null>;

type WorkerAnswer = { id: number; ok: true; rows?: unknown[]; tx?: number } | { id: number; ok: false; error: WorkerError };

/** The worker's error as an Error of the same message, name and fields, thrown from the caller's stack. */
function workerError(error: WorkerError): Error {
  const { message, name, ...fields } = error;
  return Object.assign(new Error(message), fields, { name });
}

/**
 * PGlite: one connection, in its own worker thread (pglite-worker.mjs) so that its statements — synchronous
 * WebAssembly, up to 50–100 ms each under load — never hold the server's event loop; each statement is one message
 * there and back. PGlite's own `transaction()` holds a mutex, so transactions are serialised and a plain query waits for
 * a running transaction. Never call the outer `db` from inside `transaction(fn)` — use `tx`.
 * @param dataDir folder for the database files; omitted → in memory.
 * @param options `loadDataDir`: start from this copy of a data directory (a tarball from PGlite's `dumpDataDir`)
 *   instead of an empty database.
 * @throws the worker's error when PGlite cannot open
 */
export async function openPgliteDb(dataDir?: string, options: { loadDataDir?: Blob } = {}): Promise<Db> {
  const loadDataDir = options.loadDataDir ? new Uint8Array(await options.loadDataDir.arrayBuffer()) : undefined;
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
    workerData: { dataDir, loadDataDir },
    ...(loadDataDir ? { transferList: [loadDataDir.buffer] } : {}),
  });
  const waiting = new Map<number, { resolve: (answer: WorkerAnswer & { ok: true }) => void; reject: (err: Error) => void }>();
  let failure: Error | undefined;
  const failAll = (err: Error) => {
    failure ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on('message', (answer: WorkerAnswer) => {
    const w = waiting.get(answer.id);
    if (!w) return;
    waiting.delete(answer.id);
    if (waiting.size === 0) worker.unref();
    if (answer.ok) w.resolve(answer);
    else w.reject(workerError(answer.error));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the PGlite worker stopped (exit code ${code})`)));
  let nextId = 1;
  // The worker keeps the process alive only while a statement is waiting for it, as a socket does: an idle database
  // someone forgot to close does not hold a finished process open, and a pending answer is never cut off.
  const call = (request: WorkerRequest) =>
    new Promise<WorkerAnswer & { ok: true }>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      if (waiting.size === 1) worker.ref();
      worker.postMessage({ ...request, id });
    });
  try {
    await new Promise<void>((resolve, reject) => {
      waiting.set(0, { resolve: () => resolve(), reject });
    });
  } catch (err) {
    // PGlite did not open: the worker would stay, ref'd and listening, and hold the process open forever.
    await worker.terminate();
    throw err;
  }
  worker.unref();
  const queryable = (tx?: number): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      return { rows: (await call({ op: 'query', sql, params, ...(tx === undefined ? {} : { tx }) })).rows as T[] };
    },
    async exec(sql: string) {
      await call({ op: 'exec', sql, ...(tx === undefined ? {} : { tx }) });
    },
  });
  let closed = false;
  return {
    engine: 'pglite',
    ...queryable(),
    // PGlite has no round trip to save: `options.lockMerchant` is left to `lockMerchant`, which the transaction's
    // first write calls anyway.
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, _options?: TransactionOptions): Promise<T> {
      const beforeCommit = commitHooks.getStore();
      const { tx } = await call({ op: 'begin' });
      const handle = trackTransaction(queryable(tx!));
      let result: T;
      try {
        result = await fn(handle);
        if (beforeCommit) await beforeCommit(handle);
      } catch (err) {
        // What `fn` threw is the answer; a failed ROLLBACK (the worker gone) adds nothing to it.
        await call({ op: 'end', tx: tx!, commit: false }).catch(() => undefined);
        throw err;
      }
      await call({ op: 'end', tx: tx!, commit: true });
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (!failure) await call({ op: 'close' });
      await worker.terminate();
    },
  };
}

/**
 * A {@link Db} over a PGlite already open in this thread, for tools that need the PGlite object itself (the test run's
 * global setup dumps its data directory). Its statements hold this thread's event loop while they run: the server
 * opens {@link openPgliteDb} instead. Closing the Db closes the PGlite.
 */
export function pgliteDb(pglite: PGlite): Db {
  return {
    engine: 'pglite',
    async query<T>(sql: string, params: unknown[] = []) {
      const result = await pglite.query<T>(sql, params);
      return { rows: result.rows };
    },
    async exec(sql: string) {
      await pglite.exec(sql);
    },
    // PGlite runs in this process (no round trip to save): `options.lockMerchant` is left to `lockMerchant`, which the
    // transaction's first write calls anyway.
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, _options?: TransactionOptions): Promise<T> {
      const beforeCommit = commitHooks.getStore();
      return pglite.transaction(async (tx) => {
        const handle = trackTransaction({
          async query<R>(sql: string, params: unknown[] = []) {
            const result = await tx.query<R>(sql, params);
            return { rows: result.rows };
          },
          async exec(sql: string) {
            await tx.exec(sql);
          },
        });
        const result = await fn(handle);
        if (beforeCommit) await beforeCommit(handle);
        return result;
      });
    },
    async close() {
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** An array element that needs quoting with escapes in an array literal (a backslash or a double quote). */
const NEEDS_ESCAPE = /["\\]/;

/**
 * `value` as the PostgreSQL array literal node-postgres would send for it (`{"a","b\\"c",NULL,"12"}`: every element
 * quoted, backslashes and double quotes escaped, null and undefined as NULL), when it is a flat array of strings,
 * numbers, booleans and nulls — the `unnest` columns of the batch statements. Written in one `join`: node-postgres
 * runs two regular-expression replacements per element and grows the literal by concatenation, which it then has
 * to flatten to measure it — a few milliseconds of a 50-sale push. Any other value (an array holding dates, buffers,
 * objects or arrays; not an array) is returned as it is, for node-postgres to convert.
 */
export function arrayLiteral(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const parts = new Array<string>(value.length);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item === null || item === undefined) parts[i] = 'NULL';
    else if (typeof item === 'string') parts[i] = NEEDS_ESCAPE.test(item) ? `"${item.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${item}"`;
    else if (typeof item === 'number' || typeof item === 'boolean') parts[i] = `"${item.toString()}"`;
    else return value;
  }
  return `{${parts.join(',')}}`;
}

/** node-postgres pool over a real PostgreSQL server. */
export async function openPostgresDb(connectionString: string, options: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      const name = preparedStatements.get(sql);
      const values = params.map(arrayLiteral);
      const result = name === undefined ? await client.query(sql, values) : await client.query({ name, text: sql, values });
      return { rows: result.rows as T[] };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  });
  const outer = wrap(pool);
  let isClosed = false;
  return {
    engine: 'postgres',
    query: outer.query,
    exec: outer.exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const beforeCommit = commitHooks.getStore();
      const client = await pool.connect();
      try {
        const lock = options?.lockMerchant;
        // BEGIN and the merchant's lock in one round trip: two statements of the simple query protocol (which takes no
        // parameters, hence the escaped literal; the same text `lockMerchant` hashes).
        await client.query(
          lock === undefined ? 'BEGIN' : `BEGIN; SELECT pg_advisory_xact_lock(hashtext(${client.escapeLiteral(merchantLockText(lock))}))`,
        );
        const handle = trackTransaction(wrap(client));
        if (lock !== undefined) memos.get(handle)!.set(merchantLockKey(lock), true);
        const result = await fn(handle);
        if (beforeCommit) await beforeCommit(handle);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      await pool.end();
    },
    async listen(channel: string, onPayload: (payload: string) => void) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
      let client: pg.Client | undefined;
      let isStopped = false;
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString });
        c.on('notification', (message) => {
          if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
        });
        c.on('error', () => {
          // The connection broke: listen again shortly (changes in between are caught up by RESYNC + pull).
          if (client === c) client = undefined;
          c.end().catch(() => undefined);
          if (!isStopped) setTimeout(() => void connect().catch(() => undefined), 1000).unref();
        });
        await c.connect();
        await c.query(`LISTEN ${channel}`);
        if (isStopped) await c.end();
        else client = c;
      };
      await connect();
      return async () => {
        isStopped = true;
        await client?.end().catch(() => undefined);
        client = undefined;
      };
    },
  };
}

/** Opens PostgreSQL when `databaseUrl` is set, else PGlite in `pgliteDir` (or in memory). */
export async function openDb(options: { databaseUrl?: string; pgliteDir?: string }): Promise<Db> {
  if (options.databaseUrl) return openPostgresDb(options.databaseUrl);
  return openPgliteDb(options.pgliteDir);
}

/**
 * Serialises writes of one merchant until the end of the transaction, so sequence order equals commit order per
 * merchant (replication checkpoints never skip a row) and the audit chain has one tail. Re-entrant within a transaction.
 */
export async function lockMerchant(tx: Queryable, merchantId: string): Promise<void> {
  const memo = transactionMemo(tx);
  const key = merchantLockKey(merchantId);
  if (memo?.has(key)) return; // held until this transaction ends
  await tx.query(prepared('lock_merchant', `SELECT pg_advisory_xact_lock(hashtext('merchant:' || $1::text)) AS locked`), [merchantId]);
  memo?.set(key, true);
}

/** The text whose `hashtext` is the advisory lock key of a merchant's writes. */
const merchantLockText = (merchantId: string): string => `merchant:${merchantId}`;
/** The memo key telling that this transaction holds a merchant's lock. */
const merchantLockKey = (merchantId: string): string => `lock:merchant:${merchantId}`;
