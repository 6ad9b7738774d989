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
 * - score = max(full, composite);
 * - only candidate names are scored: those sharing a part's Soundex code or its first two letters with a part of the
 *   query (blocking, as record linkage does; see `npm run bench` for the cost over a list of the full SDN size).
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
  /** Ids of the name's tokens in the list's vocabulary. */
  tokenIds: number[];
}

/**
 * A list compiled for screening, once per version: every name normalised, its tokens numbered in one vocabulary (with
 * their Soundex codes), and an index from each token's Soundex code and first two letters to the names holding it.
 */
export interface CompiledList {
  names: CompiledName[];
  vocabulary: string[];
  codes: string[];
  /** `s:<soundex>` / `p:<first two letters>` → indexes into `names`. */
  index: Map<string, number[]>;
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

const keysOf = (token: string, code: string): string[] => [`s:${code}`, `p:${token.slice(0, 2)}`];

/** Compiles a list's names for {@link screenName} (done once per list version and kept). */
export function compileList(names: readonly ListedName[]): CompiledList {
  const vocabulary: string[] = [];
  const codes: string[] = [];
  const ids = new Map<string, number>();
  const compiled: CompiledName[] = [];
  const index = new Map<string, number[]>();
  for (const name of names) {
    const individual = name.sdnType === 'individual' || name.orphan === true;
    const tokens = nameTokens(name.name, individual);
    if (tokens.length === 0) continue;
    const tokenIds = tokens.map((t) => {
      let id = ids.get(t);
      if (id === undefined) {
        id = vocabulary.length;
        ids.set(t, id);
        vocabulary.push(t);
        codes.push(soundexOf(t));
      }
      return id;
    });
    const at = compiled.length;
    compiled.push({ ...name, joined: tokens.join(' '), tokenIds });
    for (const id of new Set(tokenIds)) {
      for (const key of keysOf(vocabulary[id]!, codes[id]!)) {
        const list = index.get(key);
        if (!list) index.set(key, [at]);
        else if (list.at(-1) !== at) list.push(at);
      }
    }
  }
  return { names: compiled, vocabulary, codes, index };
}

function partScore(q: string, qCode: string, t: string, tCode: string): number {
  const jw = q === t ? 1 : jaroWinkler(q, t);
  return qCode === tCode ? jw + (1 - jw) / 2 : jw;
}

/**
 * Scores `query` against the list and answers the best `top` entries (one row per entry: its best name), best first,
 * scores rounded to 4 decimals. Candidates are the names sharing a part's Soundex code or first two letters with a
 * part of the query (a blocking step: a name sharing neither with any part cannot come near the threshold); each is
 * scored as the file's comment says, part scores computed once per query and vocabulary token. An empty query (no
 * letters or digits) matches nothing.
 */
export function screenName(list: CompiledList, query: string, top = 5): ScreeningMatch[] {
  const qTokens = nameTokens(query, true);
  if (qTokens.length === 0) return [];
  const qCodes = qTokens.map(soundexOf);
  const qJoined = qTokens.join(' ');
  const candidates = new Set<number>();
  for (let i = 0; i < qTokens.length; i++) for (const key of keysOf(qTokens[i]!, qCodes[i]!)) for (const at of list.index.get(key) ?? []) candidates.add(at);
  const memo = qTokens.map(() => new Map<number, number>());
  const part = (qi: number, id: number): number => {
    let s = memo[qi]!.get(id);
    if (s === undefined) {
      s = partScore(qTokens[qi]!, qCodes[qi]!, list.vocabulary[id]!, list.codes[id]!);
      memo[qi]!.set(id, s);
    }
    return s;
  };
  const best = new Map<number, { name: CompiledName; score: number }>();
  for (const at of candidates) {
    const n = list.names[at]!;
    let score: number;
    if (qJoined === n.joined) score = 1;
    else {
      const bestOfListed = new Array<number>(n.tokenIds.length).fill(0);
      let querySide = 0;
      for (let i = 0; i < qTokens.length; i++) {
        let b = 0;
        for (let j = 0; j < n.tokenIds.length; j++) {
          const s = part(i, n.tokenIds[j]!);
          if (s > b) b = s;
          if (s > bestOfListed[j]!) bestOfListed[j] = s;
        }
        querySide += b;
      }
      const composite = 0.75 * (querySide / qTokens.length) + 0.25 * (bestOfListed.reduce((a, c) => a + c, 0) / n.tokenIds.length);
      score = Math.max(jaroWinkler(qJoined, n.joined), composite);
    }
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
