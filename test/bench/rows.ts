/**
 * The rows-baseline of the sync bench: what it costs the database alone to store exactly the rows a synced sale
 * writes. {@link snapshotTables} reads every table of the server's schema before and after a synced run;
 * {@link gainedRows} keeps the rows that appeared (by primary key; whole-row multiset for a table without one). Then
 * {@link openReplica} makes a fresh database of the same engine holding the "before" state, and
 * {@link insertRowsInBatches} re-inserts the gained rows there in as many transactions as the run had push requests,
 * one multi-row INSERT per table per transaction, parents before children. Constraints, indexes and triggers stay on
 * (the database's own share of the work); rows a trigger already wrote (stock levels) are skipped by
 * `ON CONFLICT DO NOTHING`, and the per-table counts are checked afterwards.
 *
 * Values travel as text and are cast back to each column's declared type, so every type round-trips exactly.
 */
import { performance } from 'node:perf_hooks';
import type { Db, Queryable } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import type { DatabaseTarget } from '../support/databases.ts';

interface Column {
  name: string;
  /** `format_type` of the column: what a text parameter is cast to. */
  type: string;
  isIdentityAlways: boolean;
}

export interface TableInfo {
  name: string;
  columns: Column[];
  /** Indexes into `columns` of the primary key; empty when the table has none. */
  key: number[];
  /** This table's foreign keys: indexes into `columns`, and the referenced table and its column names. */
  references: { columns: number[]; parent: string; parentColumns: string[] }[];
}

/** One row: each column's value as text (NULL stays null), in `TableInfo.columns` order. */
export type Row = (string | null)[];

export interface TableRows {
  table: TableInfo;
  rows: Row[];
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Every base table of the current schema, with insertable columns (generated columns left out) and primary key,
 * ordered so a table comes after the tables its foreign keys reference.
 */
export async function describeTables(db: Queryable): Promise<TableInfo[]> {
  const { rows: cols } = await db.query<{ table_name: string; column_name: string; type: string; identity: string; is_key: boolean }>(
    `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attidentity AS identity,
            EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS is_key
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relkind = 'r' AND n.nspname = current_schema() AND a.attgenerated = ''
      ORDER BY c.relname, a.attnum`,
  );
  const tables = new Map<string, TableInfo>();
  for (const c of cols) {
    let t = tables.get(c.table_name);
    if (!t) tables.set(c.table_name, (t = { name: c.table_name, columns: [], key: [], references: [] }));
    if (c.is_key) t.key.push(t.columns.length);
    t.columns.push({ name: c.column_name, type: c.type, isIdentityAlways: c.identity === 'a' });
  }
  const { rows: fks } = await db.query<{ child: string; parent: string; child_columns: string[]; parent_columns: string[] }>(
    `SELECT ch.relname AS child, pa.relname AS parent,
            ARRAY(SELECT attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i) JOIN pg_attribute ON attrelid = k.conrelid AND attnum = u.n ORDER BY i) AS child_columns,
            ARRAY(SELECT attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i) JOIN pg_attribute ON attrelid = k.confrelid AND attnum = u.n ORDER BY i) AS parent_columns
       FROM pg_constraint k
       JOIN pg_class ch ON ch.oid = k.conrelid
       JOIN pg_class pa ON pa.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = ch.relnamespace
      WHERE k.contype = 'f' AND n.nspname = current_schema() AND ch.oid <> pa.oid
      ORDER BY ch.relname, k.conname`,
  );
  for (const fk of fks) {
    const child = tables.get(fk.child);
    if (!child || !tables.has(fk.parent)) continue;
    child.references.push({
      columns: fk.child_columns.map((name) => child.columns.findIndex((c) => c.name === name)),
      parent: fk.parent,
      parentColumns: fk.parent_columns,
    });
  }
  const ordered: TableInfo[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string) => {
    if (state.get(name)) return; // done, or a cycle: keep the order found so far
    state.set(name, 'visiting');
    for (const ref of tables.get(name)!.references) visit(ref.parent);
    state.set(name, 'done');
    ordered.push(tables.get(name)!);
  };
  for (const name of [...tables.keys()].sort()) visit(name);
  return ordered;
}

/** Every row of every table, as text, in physical order. */
export async function snapshotTables(db: Queryable, tables: readonly TableInfo[]): Promise<TableRows[]> {
  const out: TableRows[] = [];
  for (const table of tables) {
    const list = table.columns.map((c, i) => `${ident(c.name)}::text AS c${i}`).join(', ');
    const { rows } = await db.query<Record<string, string | null>>(`SELECT ${list} FROM ${ident(table.name)} ORDER BY ctid`);
    out.push({ table, rows: rows.map((r) => table.columns.map((_, i) => r[`c${i}`] ?? null)) });
  }
  return out;
}

const keyOf = (table: TableInfo, row: Row): string => JSON.stringify(table.key.length > 0 ? table.key.map((i) => row[i]) : row);

/** Rows of `after` that `before` did not hold (rows that were only updated are not gained). */
export function gainedRows(before: readonly TableRows[], after: readonly TableRows[]): TableRows[] {
  const out: TableRows[] = [];
  for (const a of after) {
    const b = before.find((t) => t.table.name === a.table.name);
    const seen = new Map<string, number>();
    for (const row of b?.rows ?? []) seen.set(keyOf(a.table, row), (seen.get(keyOf(a.table, row)) ?? 0) + 1);
    const rows: Row[] = [];
    for (const row of a.rows) {
      const k = keyOf(a.table, row);
      const n = seen.get(k) ?? 0;
      if (n > 0) seen.set(k, n - 1);
      else rows.push(row);
    }
    if (rows.length > 0) out.push({ table: a.table, rows });
  }
  return out;
}

/** PostgreSQL's limit is 65 535 parameters per statement; a multi-row INSERT is split only beyond this. */
const MAX_PARAMETERS = 60_000;

/** Multi-row INSERT of `rows` into `table` (one statement unless the parameter limit splits it). */
async function insertRows(tx: Queryable, table: TableInfo, rows: readonly Row[], onConflict: string): Promise<void> {
  const width = table.columns.length;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / width));
  const overriding = table.columns.some((c) => c.isIdentityAlways) ? ' OVERRIDING SYSTEM VALUE' : '';
  const head = `INSERT INTO ${ident(table.name)} (${table.columns.map((c) => ident(c.name)).join(', ')})${overriding} VALUES `;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values = chunk.map((_, r) => `(${table.columns.map((c, i) => `$${r * width + i + 1}::${c.type}`).join(', ')})`);
    await tx.query(`${head}${values.join(', ')}${onConflict}`, chunk.flat());
  }
}

/**
 * A fresh database of `target`'s engine, migrated, whose tables hold exactly `state` (e.g. the server's tables just
 * before the synced run). Written with `session_replication_role = replica` (triggers and foreign-key checks off while
 * copying; needs a superuser on PostgreSQL).
 */
export async function openReplica(target: DatabaseTarget, state: readonly TableRows[]): Promise<Db> {
  const db = await target.open();
  try {
    await migrate(db);
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL session_replication_role = replica`);
      for (const { table } of [...state].reverse()) await tx.query(`DELETE FROM ${ident(table.name)}`);
      for (const { table, rows } of state) if (rows.length > 0) await insertRows(tx, table, rows, '');
    });
    return db;
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * Splits `gained` into `batches` transactions' worth, as a sync would have written them: a row that references a
 * gained row of another table (foreign key) goes in the same batch as that row (a posting with its journal
 * transaction); rows that other gained rows reference but that are fewer than `sales` (e.g. the accounts the first
 * sale opens) go in the first batch; every other table's rows are split evenly, in order.
 */
export function planBatches(gained: readonly TableRows[], batches: number, sales: number): TableRows[][] {
  const plan: TableRows[][] = Array.from({ length: batches }, () => []);
  const referenced = new Set(gained.flatMap((g) => g.table.references.map((r) => r.parent)));
  /** table → JSON of the values of some columns → batch of that row; per referenced column list. */
  const placed = new Map<string, Map<string, number>>();
  const placedKey = (table: string, columns: readonly string[]) => `${table}(${columns.join(',')})`;
  const isSetupTable = (name: string) => referenced.has(name) && (gained.find((g) => g.table.name === name)?.rows.length ?? 0) < sales;
  for (const g of gained) {
    const { table, rows } = g;
    const isSetup = isSetupTable(table.name);
    const parentRefs = table.references.filter((r) => placed.has(placedKey(r.parent, r.parentColumns)));
    const batchOf = rows.map((row, i) => {
      if (isSetup) return 0;
      // Never before any of its parents: the latest batch among them.
      let latest = -1;
      for (const ref of parentRefs) {
        const b = placed.get(placedKey(ref.parent, ref.parentColumns))!.get(JSON.stringify(ref.columns.map((c) => row[c])));
        if (b !== undefined) latest = Math.max(latest, b);
      }
      return latest >= 0 && parentRefs.some((r) => !isSetupTable(r.parent))
        ? latest
        : Math.max(latest, Math.min(batches - 1, Math.floor((i * batches) / rows.length)));
    });
    // Remember where each row went, under every column list a child's foreign key uses.
    for (const child of gained) {
      for (const ref of child.table.references) {
        if (ref.parent !== table.name) continue;
        const indexes = ref.parentColumns.map((name) => table.columns.findIndex((c) => c.name === name));
        const where = new Map<string, number>();
        rows.forEach((row, i) => where.set(JSON.stringify(indexes.map((c) => row[c])), batchOf[i]!));
        placed.set(placedKey(table.name, ref.parentColumns), where);
      }
    }
    const slices: Row[][] = Array.from({ length: batches }, () => []);
    rows.forEach((row, i) => slices[batchOf[i]!]!.push(row));
    slices.forEach((slice, b) => slice.length > 0 && plan[b]!.push({ table, rows: slice }));
  }
  return plan;
}

/**
 * Inserts each batch of `plan` (see {@link planBatches}) in one transaction, one multi-row INSERT per table, and
 * returns the seconds it took. Throws when a table then does not hold `expected[table]` rows (its "before" count plus
 * what was gained).
 */
export async function insertRowsInBatches(db: Db, plan: readonly (readonly TableRows[])[], expected: ReadonlyMap<string, number>): Promise<number> {
  const start = performance.now();
  for (const batch of plan) {
    if (batch.length === 0) continue;
    await db.transaction(async (tx) => {
      for (const { table, rows } of batch) await insertRows(tx, table, rows, ' ON CONFLICT DO NOTHING');
    });
  }
  const seconds = (performance.now() - start) / 1000;
  for (const [name, count] of expected) {
    const { rows } = await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${ident(name)}`);
    if (Number(rows[0]!.n) !== count) throw new Error(`rows baseline: ${name} holds ${rows[0]!.n} rows, expected ${count}`);
  }
  return seconds;
}
