// Types of the talisman functions the sanctions module uses (talisman 1.1.4 ships none).
declare module 'talisman/metrics/jaro-winkler.js' {
  /** Jaro-Winkler similarity of two strings, 0 … 1 (prefix scale 0.1, boost threshold 0.7). */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}
declare module 'talisman/metrics/damerau-levenshtein.js' {
  /** Damerau-Levenshtein distance of two strings (edits: insertion, deletion, substitution, adjacent transposition). */
  const damerauLevenshtein: ((a: string, b: string) => number) & {
    /** The distance when at most `max`, else Infinity (stops early). */
    limited: (max: number, a: string, b: string) => number;
  };
  export default damerauLevenshtein;
}
declare module 'talisman/phonetics/double-metaphone.js' {
  /** Double Metaphone codes of a word: [primary, secondary]. */
  const doubleMetaphone: (word: string) => [string, string];
  export default doubleMetaphone;
}
