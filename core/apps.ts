/**
 * The developer program's apps (an app requests only the scopes it needs; the store approves them on install): the scopes an
 * app may request and their plain-words meaning, the redirect-URI rule of external integrations, and the review state
 * machine. Pure: no I/O.
 *
 * Review: `draft → submitted → in_review → approved | rejected`, `approved → listed`. A rejected app is edited and
 * submitted again. An app has two versions: the developer's working copy and the approved one. Everything a store or
 * the OAuth server sees of the fields that decide what an app may take or where it sends a store — its scopes, price,
 * redirect URIs, launch URL and form ({@link APP_REVIEWED_FIELDS}) — comes from the approved version. A listed app
 * whose working copy changes one of those goes back to `submitted` and keeps serving its approved version (its
 * `listed` flag is kept) until a reviewer approves the revision — the approval swaps it in at once — or rejects it (it
 * stays listed with the approved version, status `rejected`). Other edits of a listed app (name, description, icon,
 * category, webhook URL) apply at once.
 */
import { assertTransition, IllegalTransitionError } from './transitions.ts';

/** The four scopes an app may request (docs/api.md "Authentication and scopes"). Anything else is refused. */
export const APP_REQUEST_SCOPES = ['catalog:read', 'orders:read', 'pay:create', 'webhooks'] as const;
export type AppRequestScope = (typeof APP_REQUEST_SCOPES)[number];

/** What each scope lets an app do, in plain words, for the app directory and the install screen. */
export const APP_SCOPE_EXPLANATIONS: Readonly<Record<AppRequestScope, string>> = {
  'catalog:read': 'See your items, prices, tax rates and stock levels.',
  'orders:read': 'See your orders, their payments and refunds.',
  'pay:create': 'Ask your customers for payments (pay links) on your behalf.',
  webhooks: 'Be told at once when orders, payments and stock change in your store.',
};

/** How an app is delivered: served inside the register, or hosted by the developer and authorised over OAuth 2.0. */
export const APP_FORMS = ['in_platform', 'external'] as const;
export type AppForm = (typeof APP_FORMS)[number];

/** Review states of an app (see the module comment). */
export const APP_STATUSES = ['draft', 'submitted', 'in_review', 'approved', 'rejected', 'listed'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];

/** Allowed moves between review states (a transition table, like every state machine of the domain). */
export const APP_TRANSITIONS: Readonly<Record<AppStatus, readonly AppStatus[]>> = {
  draft: ['submitted'],
  submitted: ['in_review'],
  in_review: ['approved', 'rejected', 'listed'],
  approved: ['listed', 'draft'],
  rejected: ['submitted', 'listed'],
  listed: ['submitted'],
};

/** What moves an app: the developer's `submit`, a reviewer's `start_review`, `approve`, `reject` and `list`. */
export type AppReviewAction = 'submit' | 'start_review' | 'approve' | 'reject' | 'list';

const TARGET: Record<AppReviewAction, (from: AppStatus, listed: boolean) => AppStatus> = {
  submit: () => 'submitted',
  start_review: () => 'in_review',
  approve: (_from, listed) => (listed ? 'listed' : 'approved'),
  reject: () => 'rejected',
  list: () => 'listed',
};

const ALLOWED_FROM: Record<AppReviewAction, readonly AppStatus[]> = {
  submit: ['draft', 'rejected'],
  start_review: ['submitted'],
  approve: ['in_review'],
  reject: ['in_review'],
  list: ['approved'],
};

/**
 * The state an app moves to on `action`.
 * @param from the app's status now
 * @param listed whether the app is in the directory now (an approval of a listed app lists the new version at once)
 * @throws IllegalTransitionError (entity `app`) when the action is not allowed from `from`.
 */
export function nextAppStatus(from: AppStatus, action: AppReviewAction, listed: boolean): AppStatus {
  const to = TARGET[action](from, listed);
  if (!ALLOWED_FROM[action].includes(from)) throw new IllegalTransitionError('app', from, to, action.replace('_', ' '));
  assertTransition(APP_TRANSITIONS, 'app', from, to, action.replace('_', ' '));
  return to;
}

/**
 * The status after a developer edits an app.
 * - `submitted` / `in_review`: refused (the reviewer sees a fixed version);
 * - `approved` (not yet listed): back to `draft` — the edited app needs review again;
 * - `listed`, or `rejected` while still listed: `submitted` when the working copy now differs from the approved
 *   version in a reviewed field ({@link reviewedChanges}: back to review, still listed with the approved version),
 *   `listed` when it does not;
 * - `draft`, `rejected` (never listed): unchanged.
 * @param needsReview whether the working copy after the edit differs from the approved version in a reviewed field
 * @throws IllegalTransitionError (entity `app`, action `edit`) for `submitted` and `in_review`.
 */
export function statusAfterEdit(from: AppStatus, listed: boolean, needsReview: boolean): AppStatus {
  if (from === 'submitted' || from === 'in_review') throw new IllegalTransitionError('app', from, from, 'edit');
  if (listed && (from === 'listed' || from === 'rejected')) return needsReview ? 'submitted' : 'listed';
  if (from === 'approved') return 'draft';
  return from;
}

/**
 * The fields of an app that only take effect through review: what it may take from a store (`scopes`, `pricing`),
 * where the store's authorisation goes (`redirectUris`), what the store runs or is sent to (`launchUrl`) and how it
 * is delivered (`form`).
 */
export const APP_REVIEWED_FIELDS = ['scopes', 'pricing', 'redirectUris', 'launchUrl', 'form'] as const;
export type AppReviewedField = (typeof APP_REVIEWED_FIELDS)[number];

/** The reviewed fields of one version of an app. Prices in minor units; `currency` null when free. */
export interface AppReviewedVersion {
  form: AppForm;
  scopes: readonly string[];
  redirectUris: readonly string[];
  launchUrl: string | null;
  priceCents: number;
  currency: string | null;
}

/**
 * The reviewed fields in which `working` differs from `approved` (in {@link APP_REVIEWED_FIELDS} order); every field
 * when nothing was approved yet. Scopes and redirect URIs compare as sets (order and repeats ignored); a price
 * compares amount and currency, any free price equal to any other.
 */
export function reviewedChanges(working: AppReviewedVersion, approved: AppReviewedVersion | null): AppReviewedField[] {
  if (!approved) return [...APP_REVIEWED_FIELDS];
  const free = (v: AppReviewedVersion) => v.priceCents <= 0;
  const samePrice = free(working) && free(approved) ? true : working.priceCents === approved.priceCents && working.currency === approved.currency;
  const changed: Record<AppReviewedField, boolean> = {
    scopes: !sameScopes(working.scopes, approved.scopes),
    pricing: !samePrice,
    redirectUris: !sameScopes(working.redirectUris, approved.redirectUris),
    launchUrl: (working.launchUrl ?? null) !== (approved.launchUrl ?? null),
    form: working.form !== approved.form,
  };
  return APP_REVIEWED_FIELDS.filter((f) => changed[f]);
}

/** Whether two lists (scopes, redirect URIs) hold the same strings (order and repeats ignored). */
export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((s) => y.has(s));
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether `uri` may be an external integration's OAuth 2.0 redirect URI (RFC 6749 §3.1.2, RFC 8252 §7.3 and §8.3):
 * an absolute `https:` URI, or `http:` on a loopback host only; no fragment, no user info. Returns the reason it is
 * refused, or null when it is fine.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.hash || uri.includes('#')) return 'must not have a fragment (RFC 6749 §3.1.2)';
  if (url.username || url.password) return 'must not carry user information';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}
