/**
 * Name screening against the SDN list in two stages, as OpenSanctions' yente does it (docs/decisions/
 * sanctions-screening-at-full-list.md): a candidate index built once per list version finds, for recall, the few
 * listed names that could match; then only those are scored by aligning their name parts with the query's. String
 * metrics from `talisman` (Jaro-Winkler, Damerau-Levenshtein, Double Metaphone).
 *
 * Normalisation (both sides): letters outside NFKD's reach folded (ß → ss, ø → o, ł → l …), accents dropped, lower
 * case, apostrophes removed, other punctuation to spaces; an individual's "LAST, First" turned into "First LAST";
 * legal forms (llc, ltd, co …), honorifics and generational suffixes (mr, dr, jr, iii …) dropped. Particles (al, bin,
 * abu, de, van …) and single letters (initials) are kept but weigh half and never count as an aligned part.
 *
 * Candidate index keys, per distinct word of the list (the "vocabulary"):
 * - the word itself (normalised) and the whole name's key (its words sorted: exact and reordered names);
 * - its phonetic key (Double Metaphone, primary code of two or more letters): Mohammed ~ Muhamad, Hussein ~ Husain;
 * - its one-deletion neighbourhood (words of three letters or more: the word and, from four letters, every form with
 *   one letter deleted): any single substitution, insertion, deletion or transposition of adjacent letters meets it.
 *
 * Word similarity (0 … 1): 1 when equal; else Jaro-Winkler, but only when the words are within the edits their length
 * allows (Damerau-Levenshtein ≤ ⌊shorter length / 4⌋: one edit from four letters, two from eight) or share a phonetic
 * key and the first letter with Jaro-Winkler ≥ 0.8; otherwise 0 (the words do not align).
 *
 * Name score (0 … 1): the query's and the listed name's words are paired greedily, most similar first, each word used
 * once; an initial pairs with a word starting with it (0.9). Score = Σ similarity × weight of the pairs ÷ (Σ weight of
 * the pairs + {@link EXTRA_QUERY_WEIGHT} × the query's unpaired words + {@link EXTRA_LISTED_WEIGHT} × the listed
 * name's unpaired words), a word weighing 1 (particles and initials ½). A name matches only when its parts align: with
 * two or more core words on both sides, fewer than two paired core words halve the score, so one shared given name
 * (or surname) is never a hit. Equal names (the same words in the same order) score exactly 1, the same words in
 * another order {@link REORDERED_SCORE}.
 */
import damerauLevenshtein from 'talisman/metrics/damerau-levenshtein.js';
import jaroWinkler from 'talisman/metrics/jaro-winkler.js';
import doubleMetaphone from 'talisman/phonetics/double-metaphone.js';
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
  /** Ids of the name's words in the list's vocabulary, in order. */
  tokenIds: number[];
  /** Words that are neither particles nor initials. */
  core: number;
}

/**
 * A list compiled for screening, once per version: every name normalised into vocabulary ids, and the candidate index
 * (see the file comment). Read-only once built.
 */
export interface CompiledList {
  names: CompiledName[];
  /** Distinct words of the list. */
  vocabulary: string[];
  /** Double Metaphone primary code of each vocabulary word ('' when none). */
  codes: string[];
  /** Vocabulary word → id. */
  wordIds: Map<string, number>;
  /** Vocabulary id → indexes into `names` holding the word. */
  postings: number[][];
  /** Phonetic key (Double Metaphone primary code) → vocabulary ids. */
  phonetic: Map<string, number[]>;
  /** One-deletion neighbourhood key (32-bit hash of a word, or of a word with one letter deleted) → vocabulary ids. */
  deletions: Map<number, number[]>;
  /** A name's words sorted and joined → indexes into `names`. */
  nameKeys: Map<string, number[]>;
}

/** Weight of a query word no listed word pairs with (an extra given name the list does not carry). */
export const EXTRA_QUERY_WEIGHT = 0.25;
/** Weight of a listed word no query word pairs with (a middle name the customer left out). */
export const EXTRA_LISTED_WEIGHT = 0.25;
/** Score of a name with exactly the query's words in another order (just below an exact match: held, not blocked). */
export const REORDERED_SCORE = 0.99;
/** Most words of a query taken into account (the rest of a 200-character name is ignored). */
export const MAX_QUERY_WORDS = 16;

const LEGAL_FORMS = [
  'ltd',
  'llc',
  'inc',
  'co',
  'corp',
  'sa',
  'srl',
  'sro',
  'gmbh',
  'limited',
  'jsc',
  'pjsc',
  'ooo',
  'llp',
  'plc',
  'ltda',
  'sas',
  'sac',
  'cv',
  'cia',
  'spa',
  'ag',
  'bv',
  'nv',
  'fze',
  'fzco',
  'fzc',
  'pte',
  'pvt',
  'bhd',
  'the',
  'of',
  'and',
];
const HONORIFICS = ['mr', 'mrs', 'ms', 'miss', 'dr', 'jr', 'sr', 'ii', 'iii', 'iv'];
const DROPPED = new Set([...LEGAL_FORMS, ...HONORIFICS]);
/** Name particles: kept, half weight, never a core word. */
const PARTICLES = new Set([
  'al',
  'el',
  'ul',
  'bin',
  'ben',
  'ibn',
  'bint',
  'abu',
  'abou',
  'de',
  'del',
  'della',
  'da',
  'das',
  'do',
  'dos',
  'di',
  'du',
  'la',
  'le',
  'van',
  'von',
  'der',
  'den',
  'y',
]);
/** Letters NFKD does not decompose, folded as a reader of Latin script would type them. */
const FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
};
const FOLD_RE = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'g');

/**
 * The words of a name as screening compares them (see the file comment for the normalisation). `individual`: the
 * name is an individual's as OFAC writes it ("LAST, First"): exactly one comma turns it around.
 */
export function nameTokens(raw: string, individual = true): string[] {
  let text = raw.toLowerCase();
  if (!/^[\x00-\x7f]*$/.test(text))
    text = text
      .replace(FOLD_RE, (c) => FOLDS[c] ?? c)
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '');
  text = text.replace(/['’`ʻʼ]/g, '');
  // A dotted legal form is one word ("S.A. de C.V." → "sa de cv"); other dotted letters stay initials ("J.P.").
  text = text.replace(/(?<!\p{L})(?:\p{L}\.){2,}/gu, (m) => (DROPPED.has(m.replace(/\./g, '')) ? ` ${m.replace(/\./g, '')} ` : m));
  const commas = text.split(',');
  if (individual && commas.length === 2) text = `${commas[1]} ${commas[0]}`;
  return text
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((t) => t.length > 0 && !DROPPED.has(t));
}

/** The exact-name key of a name: its words sorted and joined by spaces (equal for the same words in any order). */
export function nameKey(raw: string, individual = true): string {
  return nameTokens(raw, individual).sort().join(' ');
}

const isMinor = (word: string): boolean => word.length === 1 || PARTICLES.has(word);
const weightOf = (word: string): number => (isMinor(word) ? 0.5 : 1);

function phoneticCode(word: string): string {
  if (!/^[a-z]+$/.test(word)) return '';
  const code = doubleMetaphone(word)[0];
  return code.length >= 2 ? code : '';
}

/** FNV-1a hash (32 bits) of `word` without its letter at `skip` (-1: the whole word). */
function hashWithout(word: string, skip: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    if (i === skip) continue;
    h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

/**
 * The one-deletion neighbourhood keys of a word, hashed: the word itself (three letters or more) and, from four
 * letters, each form with one letter deleted. A hash collision only adds a candidate word, which is then verified.
 */
function deletionKeys(word: string): number[] {
  if (word.length < 3) return [];
  const keys = [hashWithout(word, -1)];
  if (word.length >= 4) for (let i = 0; i < word.length; i++) keys.push(hashWithout(word, i));
  return keys;
}

/**
 * Similarity of two words, 0 … 1: 1 when equal; Jaro-Winkler when within ⌊shorter length / 4⌋ Damerau-Levenshtein
 * edits, or sharing a phonetic code and the first letter with Jaro-Winkler ≥ 0.8; else 0.
 */
export function wordSimilarity(a: string, b: string, aCode = phoneticCode(a), bCode = phoneticCode(b)): number {
  if (a === b) return 1;
  const shorter = Math.min(a.length, b.length);
  const edits = Math.floor(shorter / 4);
  if (edits > 0 && (shorter >= 6 || a[0] === b[0]) && Math.abs(a.length - b.length) <= edits && damerauLevenshtein.limited(edits, a, b) <= edits)
    return jaroWinkler(a, b);
  if (aCode !== '' && aCode === bCode && a[0] === b[0] && Math.abs(a.length - b.length) <= 2) {
    const jw = jaroWinkler(a, b);
    return jw >= 0.8 ? jw : 0;
  }
  return 0;
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (list.at(-1) !== value) list.push(value);
}

/** Compiles a list's names for {@link screenName} (done once per list version and kept). */
export function compileList(names: readonly ListedName[]): CompiledList {
  const list: CompiledList = {
    names: [],
    vocabulary: [],
    codes: [],
    wordIds: new Map(),
    postings: [],
    phonetic: new Map(),
    deletions: new Map(),
    nameKeys: new Map(),
  };
  for (const name of names) {
    const words = nameTokens(name.name, name.sdnType === 'individual' || name.orphan === true);
    if (words.length === 0) continue;
    const at = list.names.length;
    const tokenIds = words.map((w) => {
      let id = list.wordIds.get(w);
      if (id === undefined) {
        id = list.vocabulary.length;
        const code = phoneticCode(w);
        list.wordIds.set(w, id);
        list.vocabulary.push(w);
        list.codes.push(code);
        list.postings.push([]);
        if (!PARTICLES.has(w)) {
          for (const key of deletionKeys(w)) push(list.deletions, key, id);
          if (code) push(list.phonetic, code, id);
        }
      }
      const posting = list.postings[id]!;
      if (posting.at(-1) !== at) posting.push(at);
      return id;
    });
    list.names.push({ ...name, tokenIds, core: words.filter((w) => !isMinor(w)).length });
    push(list.nameKeys, [...words].sort().join(' '), at);
  }
  return list;
}

interface QueryWord {
  word: string;
  code: string;
  minor: boolean;
  /** Vocabulary id → similarity (> 0) of the listed words this one may pair with. */
  similar: Map<number, number>;
}

/** The vocabulary words similar to a query word, with their similarity (found through the index keys, then verified). */
function similarWords(list: CompiledList, word: string, code: string, minor: boolean): Map<number, number> {
  const similar = new Map<number, number>();
  const exact = list.wordIds.get(word);
  if (exact !== undefined) similar.set(exact, 1);
  if (minor) return similar;
  const verify = (ids: readonly number[] | undefined) => {
    for (const id of ids ?? []) {
      if (similar.has(id)) continue;
      const s = wordSimilarity(word, list.vocabulary[id]!, code, list.codes[id]!);
      if (s > 0) similar.set(id, s);
    }
  };
  for (const key of deletionKeys(word)) verify(list.deletions.get(key));
  if (code) verify(list.phonetic.get(code));
  return similar;
}

/** The alignment score of the query's words against one listed name (see the file comment). */
function alignmentScore(list: CompiledList, query: readonly QueryWord[], qCore: number, name: CompiledName): number {
  const pairs: { s: number; i: number; j: number; w: number; core: boolean }[] = [];
  for (let i = 0; i < query.length; i++) {
    const q = query[i]!;
    for (let j = 0; j < name.tokenIds.length; j++) {
      const id = name.tokenIds[j]!;
      const listed = list.vocabulary[id]!;
      let s = q.similar.get(id) ?? 0;
      if (s === 0 && (q.word.length === 1 ? listed.startsWith(q.word) : listed.length === 1 && q.word.startsWith(listed))) s = 0.9;
      if (s > 0) pairs.push({ s, i, j, w: (weightOf(q.word) + weightOf(listed)) / 2, core: !q.minor && !isMinor(listed) });
    }
  }
  pairs.sort((a, b) => b.s - a.s || b.w - a.w);
  const usedQ = new Array<boolean>(query.length).fill(false);
  const usedL = new Array<boolean>(name.tokenIds.length).fill(false);
  let num = 0;
  let den = 0;
  let alignedCore = 0;
  for (const p of pairs) {
    if (usedQ[p.i] || usedL[p.j]) continue;
    usedQ[p.i] = true;
    usedL[p.j] = true;
    num += p.s * p.w;
    den += p.w;
    if (p.core) alignedCore++;
  }
  query.forEach((q, i) => {
    if (!usedQ[i]) den += EXTRA_QUERY_WEIGHT * weightOf(q.word);
  });
  name.tokenIds.forEach((id, j) => {
    if (!usedL[j]) den += EXTRA_LISTED_WEIGHT * weightOf(list.vocabulary[id]!);
  });
  const score = den > 0 ? num / den : 0;
  return alignedCore < Math.min(2, qCore, name.core) ? score / 2 : score;
}

/**
 * Screens `query` against the list and answers the best `top` entries (one row per entry: its best name), best first,
 * scores rounded to 4 decimals. Candidates are the names holding a word similar to one of the query's core words (or
 * the query's exact name key); a name is scored only when it holds similar words for as many of the query's core words
 * as must align (two, or one when either side has a single core word). An empty query (no letters or digits) matches
 * nothing.
 */
export function screenName(list: CompiledList, query: string, top = 5): ScreeningMatch[] {
  const words = nameTokens(query, true).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return [];
  const qWords: QueryWord[] = words.map((word) => {
    const code = phoneticCode(word);
    const minor = isMinor(word);
    return { word, code, minor, similar: similarWords(list, word, code, minor) };
  });
  const qCore = qWords.filter((q) => !q.minor).length;
  const masks = new Map<number, number>();
  qWords.forEach((q, i) => {
    if (q.minor) return;
    const bit = 1 << i;
    for (const id of q.similar.keys()) for (const at of list.postings[id]!) masks.set(at, (masks.get(at) ?? 0) | bit);
  });
  const exact = new Set(list.nameKeys.get([...words].sort().join(' ')) ?? []);
  const qIds = words.map((w) => list.wordIds.get(w));
  const best = new Map<number, { name: CompiledName; score: number }>();
  const consider = (at: number, score: number) => {
    const name = list.names[at]!;
    const seen = best.get(name.entNum);
    if (!seen || score > seen.score) best.set(name.entNum, { name, score });
  };
  for (const at of exact) consider(at, list.names[at]!.tokenIds.every((id, k) => id === qIds[k]) ? 1 : REORDERED_SCORE);
  for (const [at, mask] of masks) {
    if (exact.has(at)) continue;
    const name = list.names[at]!;
    let bits = 0;
    for (let m = mask; m !== 0; m &= m - 1) bits++;
    if (bits < Math.min(2, qCore, name.core)) continue;
    consider(at, Math.min(REORDERED_SCORE, alignmentScore(list, qWords, qCore, name)));
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
