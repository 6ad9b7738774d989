/**
 * The OFAC SDN list in its published CSV files (OFAC `dat_spec.txt`; docs/api.md "Sanctions screening"): parsing,
 * storing a version (append-only tables of migration 0170) and loading a version for screening (compiled once per
 * version, kept in memory: a stored version never changes).
 *
 * Files: no header row; null is `-0-` (often followed by a space); fields comma-delimited, text double-quoted.
 * - sdn.csv: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks
 * - alt.csv: ent_num, alt_num, alt_type, alt_name, alt_remarks
 * - add.csv: ent_num, add_num, Address, City/State/Province/Postal Code, Country, Add_remarks
 * - sdn_comments.csv: ent_num, the rest of the entry's Remarks (sdn.csv cuts Remarks at 1 000 characters); OFAC ends
 *   it, like its other files, with an end-of-file byte (0x1A), which is ignored.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { ulid } from '../../../../core/index.ts';
import type { SanctionsList } from '../../../../core/screening.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { compileList, type CompiledList, type ListedName } from './matching.ts';

/** One sdn.csv row. */
export interface SdnEntry {
  entNum: number;
  name: string;
  sdnType: string | null;
  programs: string | null;
  remarks: string | null;
}
/** One alt.csv row. */
export interface SdnAlias {
  entNum: number;
  altNum: number;
  altType: string | null;
  name: string;
  remarks: string | null;
}
/** One add.csv row. */
export interface SdnAddress {
  entNum: number;
  addNum: number;
  address: string | null;
  city: string | null;
  country: string | null;
  remarks: string | null;
}
/** A parsed list: the three files' rows. */
export interface ParsedSdnList {
  entries: SdnEntry[];
  aliases: SdnAlias[];
  addresses: SdnAddress[];
}

const nullable = (v: string | undefined): string | null => {
  const t = (v ?? '').trim();
  return t === '' || t === '-0-' ? null : t;
};

function rowsOf(file: string, text: string, minColumns: number): string[][] {
  let rows: string[][];
  try {
    rows = parse(text.replace(/\u001a/g, ''), {
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
    }) as string[][];
  } catch (err) {
    throw new ProblemError(400, 'invalid_sanctions_list', `${file} is not CSV in OFAC's format: ${(err as Error).message}`, [
      { path: file, message: 'is not CSV in OFAC format' },
    ]);
  }
  rows.forEach((row, i) => {
    if (row.length < minColumns || !/^\d{1,9}$/.test(row[0] ?? '') || ((file === 'altCsv' || file === 'addCsv') && !/^\d{1,9}$/.test(row[1] ?? ''))) {
      throw new ProblemError(
        400,
        'invalid_sanctions_list',
        `${file} line ${i + 1} is not a row of OFAC's format (at least ${minColumns} fields, numeric ids).`,
        [{ path: file, message: `line ${i + 1} is not an OFAC row` }],
      );
    }
  });
  return rows;
}

/** The list's files as published: sdn.csv (required), alt.csv, add.csv, sdn_comments.csv. */
export interface SdnFiles {
  sdnCsv: string;
  altCsv?: string | undefined;
  addCsv?: string | undefined;
  commentsCsv?: string | undefined;
}

/**
 * Parses the list's files (text as published, CRLF or LF); an entry's continued Remarks (sdn_comments.csv) are
 * appended to its Remarks (a continuation of an entry sdn.csv does not list is ignored).
 * @throws ProblemError 400 `invalid_sanctions_list` naming the file and line of the first bad row, or when sdn.csv has
 *   no entry
 */
export function parseSdnFiles(files: SdnFiles): ParsedSdnList {
  const entries = rowsOf('sdnCsv', files.sdnCsv, 3).map((r) => ({
    entNum: Number(r[0]),
    name: (r[1] ?? '').trim(),
    sdnType: nullable(r[2]),
    programs: nullable(r[3]),
    remarks: nullable(r[11]),
  }));
  if (entries.length === 0)
    throw new ProblemError(400, 'invalid_sanctions_list', 'sdnCsv has no entry.', [{ path: 'sdnCsv', message: 'has no entry' }]);
  const bad = entries.findIndex((e) => nullable(e.name) === null);
  if (bad >= 0)
    throw new ProblemError(400, 'invalid_sanctions_list', `sdnCsv line ${bad + 1} has no name.`, [
      { path: 'sdnCsv', message: `line ${bad + 1} has no name` },
    ]);
  const aliases = files.altCsv
    ? rowsOf('altCsv', files.altCsv, 4)
        .map((r) => ({ entNum: Number(r[0]), altNum: Number(r[1]), altType: nullable(r[2]), name: (r[3] ?? '').trim(), remarks: nullable(r[4]) }))
        .filter((a) => nullable(a.name) !== null)
    : [];
  const addresses = files.addCsv
    ? rowsOf('addCsv', files.addCsv, 2).map((r) => ({
        entNum: Number(r[0]),
        addNum: Number(r[1]),
        address: nullable(r[2]),
        city: nullable(r[3]),
        country: nullable(r[4]),
        remarks: nullable(r[5]),
      }))
    : [];
  if (files.commentsCsv) {
    const byNum = new Map(entries.map((e) => [e.entNum, e]));
    rowsOf('commentsCsv', files.commentsCsv, 2).forEach((r) => {
      // OFAC's own files continue entries sdn.csv no longer lists (as alt.csv has aliases of them): ignored.
      const entry = byNum.get(Number(r[0]));
      const more = nullable(r[1]);
      if (entry && more) entry.remarks = `${entry.remarks ?? ''}${more}`;
    });
  }
  for (const [file, ids] of [
    ['sdnCsv', entries.map((e) => e.entNum)],
    ['altCsv', aliases.map((a) => a.altNum)],
    ['addCsv', addresses.map((a) => a.addNum)],
  ] as const) {
    const d = new Set<number>();
    for (const id of ids) {
      if (d.has(id))
        throw new ProblemError(400, 'invalid_sanctions_list', `${file} lists id ${id} twice.`, [{ path: file, message: `id ${id} listed twice` }]);
      d.add(id);
    }
  }
  return { entries, aliases, addresses };
}

const SAMPLE_DIR = new URL('./sample-list/', import.meta.url);
/** Version label of the bundled sample list (OFAC extract, see sample-list/SOURCE.md). */
export const SAMPLE_LIST_VERSION = 'sample-2025';

/** The bundled sample list's files (every new store and the demo store start with it). */
export function sampleListFiles(): { sdnCsv: string; altCsv: string; addCsv: string } {
  const read = (f: string) => readFileSync(new URL(f, SAMPLE_DIR), 'utf8');
  return { sdnCsv: read('sdn.csv'), altCsv: read('alt.csv'), addCsv: read('add.csv') };
}

interface ListRow {
  id: string;
  version: string;
  published_on: string | Date | null;
  source: 'sample' | 'upload';
  sha256: string;
  entry_count: number;
  alias_count: number;
  address_count: number;
  loaded_by: string;
  created_at: Date;
}

const dateOnly = (v: string | Date | null): string | null =>
  v === null ? null : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10);

function listView(row: ListRow, currentId: string | null): SanctionsList {
  return {
    id: row.id,
    version: row.version,
    publishedOn: dateOnly(row.published_on),
    source: row.source,
    sha256: row.sha256,
    entryCount: Number(row.entry_count),
    aliasCount: Number(row.alias_count),
    addressCount: Number(row.address_count),
    loadedBy: row.loaded_by,
    createdAt: new Date(row.created_at).toISOString(),
    current: row.id === currentId,
  };
}

const LIST_COLUMNS =
  'id, version, published_on::text AS published_on, source, sha256, entry_count, alias_count, address_count, loaded_by, created_at';

/** The store's current list version (the newest), or null when it has none yet. */
export async function currentList(db: Queryable, merchantId: string): Promise<SanctionsList | null> {
  const { rows } = await db.query<ListRow>(
    `SELECT ${LIST_COLUMNS} FROM sanctions_lists WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [merchantId],
  );
  return rows[0] ? listView(rows[0], rows[0].id) : null;
}

/** Every version the store loaded, newest first (the first is current). */
export async function listVersions(db: Queryable, merchantId: string): Promise<SanctionsList[]> {
  const { rows } = await db.query<ListRow>(`SELECT ${LIST_COLUMNS} FROM sanctions_lists WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC`, [
    merchantId,
  ]);
  return rows.map((r) => listView(r, rows[0]?.id ?? null));
}

const CHUNK = 2000;
async function insertChunks<T>(tx: Queryable, rows: T[], sql: string, columns: ((r: T) => unknown)[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await tx.query(
      sql,
      columns.map((col) => chunk.map(col)),
    );
  }
}

/**
 * Stores a parsed list as a new version of the store's list (it becomes current). The caller audits it.
 * @param meta version label, OFAC publish date (YYYY-MM-DD), source, SHA-256 of the files, actor, time
 */
export async function storeList(
  tx: Queryable,
  merchantId: string,
  parsed: ParsedSdnList,
  meta: { version: string; publishedOn: string | null; source: 'sample' | 'upload'; sha256: string; loadedBy: string; now: Date },
): Promise<SanctionsList> {
  const id = `sls_${ulid()}`;
  await tx.query(
    `INSERT INTO sanctions_lists (id, merchant_id, version, published_on, source, sha256, entry_count, alias_count, address_count, loaded_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      id,
      merchantId,
      meta.version,
      meta.publishedOn,
      meta.source,
      meta.sha256,
      parsed.entries.length,
      parsed.aliases.length,
      parsed.addresses.length,
      meta.loadedBy,
      meta.now,
    ],
  );
  await insertChunks(
    tx,
    parsed.entries,
    `INSERT INTO sanctions_entries (list_id, ent_num, name, sdn_type, programs, remarks)
    SELECT '${id}', * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[])`,
    [(e) => e.entNum, (e) => e.name, (e) => e.sdnType, (e) => e.programs, (e) => e.remarks],
  );
  await insertChunks(
    tx,
    parsed.aliases,
    `INSERT INTO sanctions_aliases (list_id, ent_num, alt_num, alt_type, name, remarks)
    SELECT '${id}', * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[])`,
    [(a) => a.entNum, (a) => a.altNum, (a) => a.altType, (a) => a.name, (a) => a.remarks],
  );
  await insertChunks(
    tx,
    parsed.addresses,
    `INSERT INTO sanctions_addresses (list_id, ent_num, add_num, address, city, country, remarks)
    SELECT '${id}', * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [(a) => a.entNum, (a) => a.addNum, (a) => a.address, (a) => a.city, (a) => a.country, (a) => a.remarks],
  );
  const { rows } = await tx.query<ListRow>(`SELECT ${LIST_COLUMNS} FROM sanctions_lists WHERE id = $1`, [id]);
  return listView(rows[0]!, id);
}

/** SHA-256 (hex) of a list's files as received, in the order sdn, alt, add, then comments when given. */
export function listSha256(files: SdnFiles): string {
  const h = createHash('sha256');
  for (const part of [files.sdnCsv, files.altCsv ?? '', files.addCsv ?? '']) h.update(part).update('\u0000');
  if (files.commentsCsv) h.update(files.commentsCsv).update('\u0000');
  return h.digest('hex');
}

/** The names of a parsed list as screening sees them: each primary name and each alias (orphan aliases included). */
export function listedNames(entries: readonly SdnEntry[], aliases: readonly SdnAlias[]): ListedName[] {
  const byNum = new Map(entries.map((e) => [e.entNum, e]));
  const names: ListedName[] = entries.map((e) => ({
    entNum: e.entNum,
    primaryName: e.name,
    name: e.name,
    nameType: 'primary',
    sdnType: e.sdnType,
    programs: e.programs,
  }));
  for (const a of aliases) {
    const e = byNum.get(a.entNum);
    const nameType = a.altType === 'fka' || a.altType === 'nka' ? a.altType : 'aka';
    names.push({
      entNum: a.entNum,
      primaryName: e?.name ?? a.name,
      name: a.name,
      nameType,
      sdnType: e?.sdnType ?? null,
      programs: e?.programs ?? null,
      ...(e ? {} : { orphan: true }),
    });
  }
  return names;
}

const compiled = new Map<string, CompiledList>();
const MAX_CACHED_LISTS = 16;

function remember(listId: string, list: CompiledList): CompiledList {
  if (compiled.size >= MAX_CACHED_LISTS) compiled.delete(compiled.keys().next().value!);
  compiled.set(listId, list);
  return list;
}

/**
 * Compiles a version just stored from its parsed files and keeps it, so that the first screening against it does not
 * compile it (the candidate index of the full list takes about a second). A version whose transaction then rolls back
 * only takes a cache place until it is evicted: its id is never used again.
 */
export function compileStoredList(listId: string, parsed: ParsedSdnList): void {
  remember(listId, compileList(listedNames(parsed.entries, parsed.aliases)));
}

/** The compiled names of a stored list version (loaded from the database once per process; versions never change). */
export async function compiledList(db: Queryable, listId: string): Promise<CompiledList> {
  const hit = compiled.get(listId);
  if (hit) return hit;
  const entries = await db.query<{ ent_num: number; name: string; sdn_type: string | null; programs: string | null }>(
    'SELECT ent_num, name, sdn_type, programs FROM sanctions_entries WHERE list_id = $1',
    [listId],
  );
  const aliases = await db.query<{ ent_num: number; alt_num: number; alt_type: string | null; name: string }>(
    'SELECT ent_num, alt_num, alt_type, name FROM sanctions_aliases WHERE list_id = $1',
    [listId],
  );
  const list = compileList(
    listedNames(
      entries.rows.map((r) => ({ entNum: Number(r.ent_num), name: r.name, sdnType: r.sdn_type, programs: r.programs, remarks: null })),
      aliases.rows.map((r) => ({ entNum: Number(r.ent_num), altNum: Number(r.alt_num), altType: r.alt_type, name: r.name, remarks: null })),
    ),
  );
  return remember(listId, list);
}
