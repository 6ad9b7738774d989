/**
 * Planner statistics of tables a long job grows (the catalog import). PostgreSQL's autovacuum analyzes a
 * table once a tenth of it changed — about a minute later; PGlite has no autovacuum and never analyzes. A table never
 * analyzed is planned with default guesses: `merchant_id = $1` is taken to match 0.5 % of the rows, so a lookup by key
 * through an index is planned as a read of every row of the merchant, per key (an import's SKU checks: 1 s a chunk at
 * 5,000 items, growing with the catalog). A job that grows tables calls {@link refreshPlannerStatistics} between its
 * steps; each table is analyzed when it has changed by more than its size since its last analysis, so a table growing
 * from nothing to n rows is analyzed about log2(n) times, which costs about two analyses of the final table in all.
 */
import type { Queryable } from './db.ts';

const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

/** Rows that must have changed in a table never analyzed before it is (smaller tables plan well on the guesses). */
const FIRST_ANALYSIS_ROWS = 500;

/**
 * Analyzes those of `tables` (plain table names of the current schema) that changed by more than their size since their
 * last analysis, or by {@link FIRST_ANALYSIS_ROWS} rows when never analyzed (the database's own change counts,
 * `pg_stat_all_tables.n_mod_since_analyze`, which lag the last few transactions). Run it outside any transaction of
 * the job (ANALYZE's lock would be held until that transaction ends). Returns the tables analyzed.
 * @throws Error for a name that is not a plain table name (names are never taken from input)
 */
export async function refreshPlannerStatistics(db: Queryable, tables: readonly string[]): Promise<string[]> {
  for (const t of tables) if (!TABLE_NAME.test(t)) throw new Error(`refreshPlannerStatistics: "${t}" is not a table name`);
  const { rows } = await db.query<{ name: string; analyzed_rows: number | string; changed: number | string | null }>(
    `SELECT t.name, c.reltuples AS analyzed_rows, s.n_mod_since_analyze AS changed
       FROM unnest($1::text[]) AS t(name) JOIN pg_class c ON c.oid = to_regclass(t.name) LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid`,
    [tables],
  );
  const due = rows.filter((r) => {
    const analyzed = Number(r.analyzed_rows); // -1: never analyzed
    const changed = Number(r.changed ?? 0);
    return analyzed < 0 ? changed >= FIRST_ANALYSIS_ROWS : changed > Math.max(FIRST_ANALYSIS_ROWS, analyzed);
  });
  if (due.length > 0) await db.exec(`ANALYZE ${due.map((r) => r.name).join(', ')}`);
  return due.map((r) => r.name);
}

/**
 * The housekeeping tick's refresh of every table of the current schema ({@link refreshPlannerStatistics}'s rule per
 * table), on the embedded database only: PGlite has no autovacuum, so without this an embedded store's tables would
 * be planned on default guesses forever — a push's stock read at 50,000 catalog items took 35 ms through a scan of the
 * merchant's whole index, 7 ms once analyzed. PostgreSQL's autovacuum does this itself (nothing is done there).
 * Returns the tables analyzed.
 */
export async function refreshEmbeddedStatistics(db: Queryable & { readonly engine: 'pglite' | 'postgres' }): Promise<string[]> {
  if (db.engine !== 'pglite') return [];
  const { rows } = await db.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`);
  return refreshPlannerStatistics(
    db,
    rows.map((r) => r.name).filter((name) => TABLE_NAME.test(name)),
  );
}
