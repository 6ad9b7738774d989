/**
 * The full 2019 SDN list (test/fixtures/sanctions/ofac-2019-full/) and the labelled names screened against it
 * (test/fixtures/sanctions/labelled-names.csv, written by build-labelled-names.ts beside it): loading both, and
 * measuring recall per variant kind and false holds of ordinary names at a threshold. Shared by
 * test/server/sanctions-recall.test.ts (which asserts the figures) and `npm run bench` (which prints them).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { listedNames, parseSdnFiles, type SdnFiles } from '../../sync-server/src/modules/sanctions/list.ts';
import { compileList, screenName, type CompiledList } from '../../sync-server/src/modules/sanctions/matching.ts';

const fixture = (f: string) => readFileSync(new URL(`../fixtures/sanctions/${f}`, import.meta.url), 'utf8');

/** The full OFAC SDN list of 15 January 2019 as published (7,379 entries, 9,682 aliases, 11,696 addresses). */
export function fullSdnFiles(): Required<SdnFiles> {
  return {
    sdnCsv: fixture('ofac-2019-full/sdn.csv'),
    altCsv: fixture('ofac-2019-full/alt.csv'),
    addCsv: fixture('ofac-2019-full/add.csv'),
    commentsCsv: fixture('ofac-2019-full/sdn_comments.csv'),
  };
}

/** The full list compiled for screening, as the server compiles a stored version. */
export function compileFullList(): CompiledList {
  const parsed = parseSdnFiles(fullSdnFiles());
  return compileList(listedNames(parsed.entries, parsed.aliases));
}

/** The variant kinds of listed names in the labelled set (see build-labelled-names.ts for how each is written). */
export const VARIANT_KINDS = ['exact', 'reordered', 'typo', 'transposition', 'dropped_middle', 'diacritics', 'alias'] as const;

/** One labelled name. */
export interface LabelledName {
  /** A variant kind, `ordinary` (a common US name: must stay clear) or `ordinary_listed` (a common name that is a listed name). */
  kind: string;
  label: 'hit' | 'clear';
  name: string;
  /** The listed entry a `hit` must find. */
  sdnId: number | null;
}

/** The labelled set. */
export function labelledNames(): LabelledName[] {
  const rows = parse(fixture('labelled-names.csv'), { columns: true, skip_empty_lines: true }) as {
    kind: string;
    label: string;
    name: string;
    sdn_id: string;
  }[];
  return rows.map((r) => ({ kind: r.kind, label: r.label === 'hit' ? 'hit' : 'clear', name: r.name, sdnId: r.sdn_id ? Number(r.sdn_id) : null }));
}

/** Figures of one kind: names screened, and those found (variants: the right entry at or above the threshold) or held (ordinary names). */
export interface KindFigures {
  kind: string;
  names: number;
  /** Variants: found; ordinary names: held. */
  count: number;
  /** count / names. */
  rate: number;
  /** Up to five names that missed (variants) or were held (ordinary), with the best score, for a failure message. */
  examples: string[];
}

/**
 * Screens every labelled name against `list` and counts, per kind, the variants whose listed entry is among the
 * matches at or above `threshold` (recall) and the ordinary names held (best score at or above `threshold`).
 * `ordinary_listed` names count in neither.
 */
export function measureLabelled(
  list: CompiledList,
  names: readonly LabelledName[],
  threshold: number,
): { kinds: KindFigures[]; recall: number; falseHoldRate: number } {
  const kinds = new Map<string, KindFigures>();
  for (const n of names) {
    if (n.kind === 'ordinary_listed') continue;
    const top = screenName(list, n.name);
    const k = kinds.get(n.kind) ?? { kind: n.kind, names: 0, count: 0, rate: 0, examples: [] };
    k.names++;
    if (n.label === 'hit') {
      const found = top.find((m) => m.sdnId === n.sdnId);
      if (found && found.score >= threshold) k.count++;
      else if (k.examples.length < 5) k.examples.push(`${n.name} → ${found ? found.score : 'not a candidate'}`);
    } else if ((top[0]?.score ?? 0) >= threshold) {
      k.count++;
      if (k.examples.length < 5) k.examples.push(`${n.name} held by ${top[0]!.matchedName} (${top[0]!.score})`);
    }
    kinds.set(n.kind, k);
  }
  for (const k of kinds.values()) k.rate = k.names === 0 ? 0 : k.count / k.names;
  const variants = [...kinds.values()].filter((k) => k.kind !== 'ordinary');
  const found = variants.reduce((a, k) => a + k.count, 0);
  const total = variants.reduce((a, k) => a + k.names, 0);
  return { kinds: [...kinds.values()], recall: total === 0 ? 0 : found / total, falseHoldRate: kinds.get('ordinary')?.rate ?? 0 };
}
