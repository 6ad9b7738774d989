/**
 * Sanctions screening and ID verification: the shapes the API answers
 * (`/api/pos/screenings`, `/api/pos/sanctions-lists`, `/api/pos/screening-settings`, `/api/pos/id-verifications`,
 * `/api/pos/id-verification-settings`), shared by the sync server, the register and the back office. Pure.
 */
import { z } from 'zod';

/** Outcome of one screening at the time it ran: below the threshold, at or above it, at or above the block threshold. */
export const screeningOutcomeSchema = z.enum(['clear', 'potential_match', 'blocked']);
export type ScreeningOutcome = z.infer<typeof screeningOutcomeSchema>;

/**
 * Status of a screening: `clear` (no match), `held` (potential match waiting for a manager), `cleared` (a manager
 * judged it a false positive, with a reason), `refused` (a manager refused it), `blocked` (match at or above the
 * block threshold: final). Only `clear` and `cleared` let the transaction go on.
 */
export const screeningStatusSchema = z.enum(['clear', 'held', 'cleared', 'refused', 'blocked']);
export type ScreeningStatus = z.infer<typeof screeningStatusSchema>;

/**
 * One list entry among a screening's best matches (score 0 … 1: its name parts aligned with the query's, see
 * docs/decisions/0054-sanctions-screening-at-full-list.md).
 */
export const screeningMatchSchema = z.strictObject({
  sdnId: z.int().describe("The SDN entry's ent_num"),
  name: z.string().describe("The entry's primary name as listed (individuals: 'LAST, First')"),
  matchedName: z.string().describe('The name of the entry that scored best: its primary name or one of its aliases'),
  nameType: z.enum(['primary', 'aka', 'fka', 'nka']),
  sdnType: z.string().nullable().describe('individual, vessel, aircraft; null for entities'),
  programs: z.string().nullable(),
  score: z.number().min(0).max(1),
});
export type ScreeningMatch = z.infer<typeof screeningMatchSchema>;

/** A screening as the API answers it. */
export const screeningSchema = z.strictObject({
  id: z.string().describe('scr_<ULID>'),
  name: z.string().describe('The name screened, as typed'),
  role: z.string().describe('Whose name: check_casher, transfer_sender, transfer_receiver, bill_payer, manual …'),
  subjectRef: z.string().nullable().describe("The caller's reference of the transaction or party (e.g. a transfer id)"),
  outcome: screeningOutcomeSchema,
  status: screeningStatusSchema,
  score: z.number().describe('Best score among the list entries (0 … 1)'),
  threshold: z.number().describe("The store's match threshold when screened"),
  blockThreshold: z.number().describe("The store's block threshold when screened"),
  listId: z.string(),
  listVersion: z.string(),
  topMatches: z.array(screeningMatchSchema).describe('Best five entries, best first'),
  screenedBy: z.string().describe('Audit actor (staff:<id> …)'),
  createdAt: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decisionReason: z.string().nullable(),
});
export type Screening = z.infer<typeof screeningSchema>;

/** One stored version of the SDN list. */
export const sanctionsListSchema = z.strictObject({
  id: z.string().describe('sls_<ULID>'),
  version: z.string(),
  publishedOn: z.string().nullable().describe("OFAC's publish date (YYYY-MM-DD) when given"),
  source: z.enum(['sample', 'upload']),
  sha256: z.string(),
  entryCount: z.int(),
  aliasCount: z.int(),
  addressCount: z.int(),
  loadedBy: z.string(),
  createdAt: z.string(),
  current: z.boolean().describe('The newest version: the one screenings use'),
});
export type SanctionsList = z.infer<typeof sanctionsListSchema>;

/** Default match threshold (docs/decisions/0054-sanctions-screening-at-full-list.md: one name left out scores 0.89, two 0.80). */
export const DEFAULT_MATCH_THRESHOLD = 0.85;
/** Default block threshold: an exact match (after normalisation) on a primary name or alias. */
export const DEFAULT_BLOCK_THRESHOLD = 1;

/** The store's screening settings (`GET`/`PATCH /api/pos/screening-settings`). */
export const screeningSettingsSchema = z.strictObject({
  matchThreshold: z
    .number()
    .gt(0)
    .max(1)
    .describe(`A score at or above it holds the transaction as a potential match. Default ${DEFAULT_MATCH_THRESHOLD}.`),
  blockThreshold: z
    .number()
    .gt(0)
    .max(1.01)
    .describe(
      `A score at or above it blocks the transaction outright (no manager can clear it). Default ${DEFAULT_BLOCK_THRESHOLD}; 1.01 never blocks (every match goes to a manager).`,
    ),
});
export type ScreeningSettings = z.infer<typeof screeningSettingsSchema>;

/** Problems an ID check may find; any makes the verification not ok. */
export const idProblemSchema = z.enum([
  'expired',
  'under_minimum_age',
  'not_yet_issued',
  'name_truncated',
  'unknown_issuer',
  'issuer_state_mismatch',
]);
export type IdProblem = z.infer<typeof idProblemSchema>;

/** The card holder as the register shows it: no photo, document number masked. */
export const idHolderSchema = z.strictObject({
  firstName: z.string().nullable(),
  middleName: z.string().nullable(),
  lastName: z.string().nullable(),
  dateOfBirth: z.string().nullable().describe('YYYY-MM-DD'),
  age: z.int().nullable().describe('Whole years on the day of the check'),
  expiry: z.string().nullable().describe('YYYY-MM-DD'),
  sex: z.enum(['M', 'F', 'X']).nullable(),
  jurisdiction: z.string().nullable().describe('Issuing jurisdiction, e.g. VA'),
  documentType: z.enum(['DL', 'ID']).nullable(),
  documentNumberMasked: z.string().nullable().describe('Last four characters only'),
  address: z
    .strictObject({
      street: z.string().nullable(),
      city: z.string().nullable(),
      state: z.string().nullable(),
      postalCode: z.string().nullable(),
      country: z.string().nullable(),
    })
    .nullable(),
});
export type IdHolder = z.infer<typeof idHolderSchema>;

/** One ID verification as the API answers it. */
export const idVerificationSchema = z.strictObject({
  id: z.string().describe('idv_<ULID>'),
  verificationId: z.string().describe('Same as id'),
  service: z.string(),
  source: z.enum(['scanner', 'image']),
  ok: z.boolean(),
  problems: z
    .array(z.string())
    .describe(
      'Empty when ok: expired, under_minimum_age, not_yet_issued, name_truncated, unknown_issuer (IIN not in the AAMVA table), issuer_state_mismatch (the address is not in the issuing jurisdiction)',
    ),
  minimumAge: z.int(),
  holder: idHolderSchema,
  issuer: z.strictObject({ iin: z.string(), aamvaVersion: z.int() }),
  verifiedBy: z.string(),
  createdAt: z.string(),
});
export type IdVerification = z.infer<typeof idVerificationSchema>;

/** Default minimum age of a service with no age of its own (years). */
export const DEFAULT_MINIMUM_AGE = 18;

/** The store's ID settings (`GET`/`PATCH /api/pos/id-verification-settings`). */
export const idVerificationSettingsSchema = z.strictObject({
  defaultMinimumAge: z.int().min(0).max(125).describe(`Minimum age of a service not listed below. Default ${DEFAULT_MINIMUM_AGE}.`),
  minimumAges: z
    .record(z.string().regex(/^[a-z][a-z0-9_]{0,39}$/), z.int().min(0).max(125))
    .describe('Minimum age per service, e.g. { "check_cashing": 18, "money_transfer": 18 }'),
});
export type IdVerificationSettings = z.infer<typeof idVerificationSettingsSchema>;

/** Whole years between `dateOfBirth` and `on` (both YYYY-MM-DD): the age on that day (birthday counted on the day). */
export function ageOn(dateOfBirth: string, on: string): number {
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [y, m, d] = on.split('-').map(Number) as [number, number, number];
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

/**
 * A document number masked for storage and display: only the last four characters kept (fewer for a short number: at
 * most half of it), the rest replaced by `*` (at least four).
 */
export function maskDocumentNumber(documentNumber: string): string {
  const clean = documentNumber.trim();
  const kept = Math.min(4, Math.floor(clean.length / 2));
  return `${'*'.repeat(Math.max(4, clean.length - kept))}${kept > 0 ? clean.slice(-kept) : ''}`;
}

/**
 * The fields of `POST /api/pos/screenings/{id}/clear` and `/refuse`, each with its own rule (the back office's form
 * checks the typed reason with it before sending).
 */
export const screeningDecisionFields = {
  reason: z.string().trim().min(3).max(500).describe('Why: kept on the screening and in the audit trail'),
};
/** The body of clearing or refusing a held screening. */
export const screeningDecisionSchema = z.strictObject(screeningDecisionFields);
