/**
 * Locale collation for every list the app sorts by name ("Butter croissant" before "Coca-Cola", whatever the
 * case or accents; "Item 2" before "Item 10"). `Intl.Collator` of the browser's locale, base sensitivity, numeric.
 */
export const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** Compares two names with {@link collator}. */
export const compareNames = (a: string, b: string): number => collator.compare(a, b);
