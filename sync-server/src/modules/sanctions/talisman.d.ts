// Types of the two talisman functions the sanctions module uses (talisman 1.1.4 ships none).
declare module 'talisman/metrics/jaro-winkler.js' {
  /** Jaro-Winkler similarity of two strings, 0 … 1 (prefix scale 0.1, boost threshold 0.7). */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}
declare module 'talisman/phonetics/soundex.js' {
  /** American Soundex code of a word (letter + three digits). */
  const soundex: (word: string) => string;
  export default soundex;
}
