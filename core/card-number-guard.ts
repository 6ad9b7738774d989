/**
 * The one rule the server's input boundary applies to every string of every request body, query string, path
 * parameter and synced document (docs/api.md "Card numbers"; docs/decisions/0041-card-numbers-at-the-boundary.md):
 *
 * - a string holding a card number (core/card-numbers.ts: Luhn-valid 13–19 digits in any spelling the scan
 *   normalises) in a **free-text field** — a field whose name is in {@link FREE_TEXT_FIELDS} (notes, memos,
 *   descriptions, reasons, prompts, comments, messages) — is **masked** (first six, last four; the CVC phrase beside
 *   it, and a code written right after it without a label, masked too);
 * - in **any other field** (ids, tokens, codes, names, e-mail addresses, URLs, search terms, field names themselves)
 *   it is **refused**: 400 naming the field, or a quarantined document on a replication push — such a value cannot be
 *   masked and still mean what it meant;
 * - except three kinds of value that are not card numbers and may pass the Luhn check by chance: a valid E.164 phone
 *   number (`+4915112345678`, any field), a GTIN with a right GS1 check digit in a `gtin` / `barcode` field, and the
 *   hex digests of an audit checkpoint a register hands back: its `headHash` (a SHA-256, 64 lowercase hex digits: a
 *   Luhn-valid run of 13+ digits about once in a few hundred hashes) and its `keyId` (the first 16 hex digits of the
 *   SHA-256 of the signing key: about one server key in 2,000). Neither is stored as sent: a checkpoint is checked
 *   against the server's own key and chain.
 *
 * The rule is decided by the field's own name (the last object key on the path; for an array element, the key of the
 * array), not by the route, so a new route or field is covered without being listed anywhere.
 */
import { containsCardNumber, maskCardNumbers } from './card-numbers.ts';
import { isValidE164 } from './phone.ts';
import { isValidGtin } from './catalog.ts';

/**
 * Names of the free-text fields: a card number typed there is masked, not refused. Compared case-sensitively. Besides
 * prose people type, the published sanctions-list files an owner uploads (`sdnCsv`, …): third-party text whose
 * long ID numbers may pass the Luhn check by chance, masked rather than refusing the whole list.
 */
export const FREE_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'note',
  'notes',
  'memo',
  'description',
  'reason',
  'prompt',
  'comment',
  'comments',
  'message',
  'instructions',
  'sdnCsv',
  'altCsv',
  'addCsv',
  'commentsCsv',
]);

/**
 * Fields whose string is a document its route parses, never stored as sent: the catalog import's `csv` (checked cell
 * by cell with this same rule, as is a `text/csv` body), an ID's AAMVA barcode text (`payload`, `idPayload`: read
 * into its fields; its dates, postal codes and ID numbers may pass Luhn by chance) and base64 images (`imageBase64`,
 * `imagePng`: binary, not text). The boundary leaves them to the route.
 */
export const PARSED_BY_ROUTE_FIELDS: ReadonlySet<string> = new Set(['csv', 'payload', 'idPayload', 'imageBase64', 'imagePng']);

/** Fields that hold a GS1 barcode (GTIN-8/12/13/14): a right GS1 check digit makes the number a barcode, not a card. */
const BARCODE_FIELDS: ReadonlySet<string> = new Set(['gtin', 'barcode']);

/**
 * Fields that hold a hex digest, with its shape: an audit checkpoint's head (`headHash`, a SHA-256) and the id of the
 * key that signed it (`keyId`, the first 16 hex digits of the SHA-256 of the public key). Their digit runs are chance,
 * not a card.
 */
const DIGEST_FIELDS: ReadonlyMap<string, RegExp> = new Map([
  ['headHash', /^[0-9a-f]{64}$/],
  ['keyId', /^[0-9a-f]{16}$/],
]);

/** What a refused value is told (400 naming the field; a synced document's rejection reason). */
export const CARD_NUMBER_REFUSED_MESSAGE =
  'must not contain a card number (a Luhn-valid run of 13–19 digits, in any spelling): send a processor token, never the card';

/**
 * What the boundary does with string `value` of the field named `field` (undefined: a bare value — a string body, a
 * field name): `keep` (no card number, or an exempt phone number, barcode or digest), `mask` (free text holding one) or
 * `refuse`. Pure.
 */
export function cardNumberRule(field: string | undefined, value: string): 'keep' | 'mask' | 'refuse' {
  if (!containsCardNumber(value)) return 'keep';
  if (field !== undefined && FREE_TEXT_FIELDS.has(field)) return 'mask';
  if (/^\+[1-9]\d{1,14}$/.test(value) && isValidE164(value)) return 'keep';
  if (field !== undefined && BARCODE_FIELDS.has(field) && isValidGtin(value)) return 'keep';
  if (field !== undefined && DIGEST_FIELDS.get(field)?.test(value)) return 'keep';
  return 'refuse';
}

/**
 * `value` (parsed JSON) with every free-text string holding a card number masked ({@link cardNumberRule}); other
 * values are left as they are (the refusal is {@link findCardNumberField}'s). Returns `value` itself when nothing
 * changed, else a copy of the changed branches. `field` is the name of the field `value` sits in.
 */
export function maskFreeTextCardNumbers(value: unknown, field?: string, depth = 0): unknown {
  if (typeof value === 'string') return cardNumberRule(field, value) === 'mask' ? maskCardNumbers(value) : value;
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = maskFreeTextCardNumbers(value[i], field, depth + 1);
      if (next !== value[i]) (out ??= [...value])[i] = next;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const next = maskFreeTextCardNumbers(child, key, depth + 1);
    if (next !== child) (out ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return out ?? value;
}

/**
 * The first string of `value` (parsed JSON) that {@link cardNumberRule} refuses — a value, or a field name — as
 * `{ path, message }` with `path` dotted from `path` (`variations.0.id`, `(body)` for a bare string), or undefined.
 * Free-text fields pass (they are masked, not refused).
 */
export function findCardNumberField(value: unknown, path = '', field?: string, depth = 0): { path: string; message: string } | undefined {
  if (typeof value === 'string')
    return field !== undefined && PARSED_BY_ROUTE_FIELDS.has(field)
      ? undefined
      : cardNumberRule(field, value) === 'refuse'
        ? { path: path || '(body)', message: CARD_NUMBER_REFUSED_MESSAGE }
        : undefined;
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findCardNumberField(value[i], path ? `${path}.${i}` : String(i), field, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (containsCardNumber(key))
      return { path: path ? `${path}.${maskCardNumbers(key)}` : maskCardNumbers(key), message: `field names ${CARD_NUMBER_REFUSED_MESSAGE}` };
    const found = findCardNumberField(child, path ? `${path}.${key}` : key, key, depth + 1);
    if (found) return found;
  }
  return undefined;
}
