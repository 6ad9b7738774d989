/**
 * A statement-counting {@link Db}: the same database, every SQL statement it runs — `query`/`exec` on it or on a
 * transaction it opens — reported to `onStatement` before it is sent. The register-sale test counts a push's
 * statements with it; the bench server counts every request's (test/bench/server.ts).
 *
 * Transaction handles are counted in place (their `query`/`exec` patched on the same object), because the server keys
 * per-transaction memos on the handle's identity (`transactionMemo`): a new wrapper object would lose them and change
 * what the server does. BEGIN and COMMIT/ROLLBACK are issued by the Db itself, not through `query`: `onTransaction`
 * hears of each transaction opened, for callers that count them too.
 */
import type { Db, Queryable } from '../../sync-server/src/platform/db/db.ts';

export interface StatementListener {
  /** Called with each statement's SQL text, before it runs. */
  onStatement(sql: string): void;
  /** Called once per transaction opened (its BEGIN and COMMIT/ROLLBACK are not passed to `onStatement`). */
  onTransaction?(): void;
}

/** `db` with every statement reported to `listener` (see the file's comment). */
export function countingDb(db: Db, listener: StatementListener): Db {
  const counted = <T extends Queryable>(handle: T): T => {
    const query = handle.query.bind(handle);
    const exec = handle.exec.bind(handle);
    handle.query = ((sql: string, params?: unknown[]) => {
      listener.onStatement(sql);
      return query(sql, params);
    }) as Queryable['query'];
    handle.exec = (sql: string) => {
      listener.onStatement(sql);
      return exec(sql);
    };
    return handle;
  };
  return {
    // Anything else the Db offers passes through as it is (and is not counted).
    ...db,
    engine: db.engine,
    query: (sql, params) => {
      listener.onStatement(sql);
      return db.query(sql, params);
    },
    exec: (sql) => {
      listener.onStatement(sql);
      return db.exec(sql);
    },
    transaction: (fn, options) => {
      listener.onTransaction?.();
      return db.transaction((tx) => fn(counted(tx)), options);
    },
    close: () => db.close(),
    ...(db.listen ? { listen: db.listen.bind(db) } : {}),
  };
}

/** Every statement `db` runs, in order, in `statements` (transactions' BEGIN/COMMIT left out). */
export function recordingDb(db: Db): { db: Db; statements: string[] } {
  const statements: string[] = [];
  return { statements, db: countingDb(db, { onStatement: (sql) => statements.push(sql) }) };
}
