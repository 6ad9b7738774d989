/**
 * Name matching against the SDN list, the way OFAC's Sanctions List Search describes it (OFAC FAQ 249): Jaro-Winkler
 * on the full name and on the name parts, Soundex on the name parts, a composite score of the parts, and the higher of
 * the full-name and composite scores. String metrics from `talisman` (Jaro-Winkler, American Soundex).
 *
 * Scoring of a query against one listed name (primary or alias), all in 0 … 1 (docs/decisions.md "Sanctions screening
 * threshold"):
 * - names are normalised: accents dropped (NFKD), lower case, punctuation to spaces, an individual's "LAST, First"
 *   turned into "First LAST", legal-form words (ltd, llc, inc, co, …) dropped;
 * - full = JaroWinkler(query tokens joined, listed tokens joined);
 * - part(q, t) = JaroWinkler(q, t), raised halfway to 1 when Soundex(q) = Soundex(t);
 * - composite = 0.75 × mean over the query's parts of their best part score + 0.25 × the same from the listed name's
 *   side (a query naming only part of a listed name still scores high; a listed name much longer than the query less);
 * - score = max(full, composite).
 */
import jaroWinkler from 'talisman/metrics/jaro-winkler.js';
import soundex from 'talisman/phonetics/soundex.js';
import type { ScreeningMatch } from '../../../../core/screening.ts';

/** One name of the list, primary or alias, as stored. */
export interface ListedName {
  entNum: number;
  /** The entry's primary name (the alias's own when its entry is missing from sdn.csv). */
  primaryName: string;
  name: string;
  nameType: ScreeningMatch['nameType'];
  sdnType: string | null;
  programs: string | null;
  /** An alias whose entry is not in sdn.csv (its type unknown: read as an individual's "LAST, First"). */
  orphan?: boolean;
}

interface CompiledName extends ListedName {
  joined: string;
  tokens: string[];
  codes: string[];
}

/** A list compiled for screening: every name normalised once. */
export interface CompiledList {
  names: CompiledName[];
}

const LEGAL_FORMS = new Set(['ltd', 'llc', 'inc', 'co', 'corp', 'the', 'of', 'and', 'sa', 'srl', 'sro', 'gmbh', 'limited', 'jsc', 'pjsc', 'ooo', 'llp', 'plc']);

/**
 * The tokens of a name: accents dropped, lower case, punctuation to spaces, "LAST, First" of an individual (exactly
 * one comma) reordered "First LAST", legal-form words dropped.
 */
export function nameTokens(raw: string, individual = true): string[] {
  let text = raw.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/['’`]/g, '');
  const commas = text.split(',');
  if (individual && commas.length === 2) text = `${commas[1]} ${commas[0]}`;
  return text
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((t) => t.length > 0 && !LEGAL_FORMS.has(t));
}

function soundexOf(token: string): string {
  // Soundex is defined on Latin letters; other scripts and digits compare by Jaro-Winkler only.
  return /^[a-z]/.test(token) ? soundex(token) : `#${token}`;
}

function compile(name: ListedName): CompiledName {
  const individual = name.sdnType === 'individual' || name.orphan === true;
  const tokens = nameTokens(name.name, individual);
  return { ...name, tokens, joined: tokens.join(' '), codes: tokens.map(soundexOf) };
}

/** Compiles a list's names for {@link screenName} (done once per list version and kept). */
export function compileList(names: readonly ListedName[]): CompiledList {
  return { names: names.map(compile).filter((n) => n.tokens.length > 0) };
}

function partScore(q: string, qCode: string, t: string, tCode: string): number {
  const jw = q === t ? 1 : jaroWinkler(q, t);
  return qCode === tCode ? jw + (1 - jw) / 2 : jw;
}

/** Score (0 … 1) of the query tokens against one compiled name; see the file's comment. */
function scoreAgainst(qTokens: string[], qCodes: string[], qJoined: string, n: CompiledName): number {
  const full = qJoined === n.joined ? 1 : jaroWinkler(qJoined, n.joined);
  if (full === 1) return 1;
  const bestOfListed = new Array<number>(n.tokens.length).fill(0);
  let querySide = 0;
  for (let i = 0; i < qTokens.length; i++) {
    let best = 0;
    for (let j = 0; j < n.tokens.length; j++) {
      const s = partScore(qTokens[i]!, qCodes[i]!, n.tokens[j]!, n.codes[j]!);
      if (s > best) best = s;
      if (s > bestOfListed[j]!) bestOfListed[j] = s;
    }
    querySide += best;
  }
  const composite = 0.75 * (querySide / qTokens.length) + 0.25 * (bestOfListed.reduce((a, b) => a + b, 0) / n.tokens.length);
  return Math.max(full, composite);
}

/**
 * Scores `query` against every name of the list and answers the best `top` entries (one row per entry: its best
 * name), best first, scores rounded to 4 decimals. An empty query (no letters or digits) matches nothing.
 */
export function screenName(list: CompiledList, query: string, top = 5): ScreeningMatch[] {
  const qTokens = nameTokens(query, true);
  if (qTokens.length === 0) return [];
  const qCodes = qTokens.map(soundexOf);
  const qJoined = qTokens.join(' ');
  const best = new Map<number, { name: CompiledName; score: number }>();
  for (const n of list.names) {
    const score = scoreAgainst(qTokens, qCodes, qJoined, n);
    const seen = best.get(n.entNum);
    if (!seen || score > seen.score) best.set(n.entNum, { name: n, score });
  }
  return [...best.values()]
    .sort((a, b) => b.score - a.score || a.name.entNum - b.name.entNum)
    .slice(0, top)
    .map(({ name, score }) => ({
      sdnId: name.entNum,
      name: name.primaryName,
      matchedName: name.name,
      nameType: name.nameType,
      sdnType: name.sdnType,
      programs: name.programs,
      score: Math.round(score * 10_000) / 10_000,
    }));
}
