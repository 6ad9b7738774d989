/**
 * Developers and apps: developer accounts, platform admins (reviewers), apps and their review.
 * Platform-wide data — no merchant owns it — so writes run in one transaction with an append-only row in
 * `app_review_events` for every edit and transition (merchants' `audit_log` is per merchant and does not apply).
 * The review state machine is core/apps.ts.
 *
 * An app row holds two versions: the developer's working copy (the plain columns) and the approved version of the
 * reviewed fields (`approved_scopes`, `approved_price_cents`, `approved_currency`, `approved_redirect_uris`,
 * `approved_launch_url`, `approved_form`), set only by a reviewer's approval. Everything stores and the OAuth server
 * see of those fields — the directory, installs, subscriptions, redirect URI checks, launches — is the approved
 * version, so a listed app's revision waits for review while the listed version keeps serving.
 */
import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import { z } from 'zod';
import {
  APP_FORMS,
  APP_REQUEST_SCOPES,
  APP_SCOPE_EXPLANATIONS,
  IllegalTransitionError,
  newId,
  reviewedChanges,
  nextAppStatus,
  nonBlankText,
  patchBody,
  uniqueList,
  redirectUriProblem,
  statusAfterEdit,
  type AppRequestScope,
  type AppReviewedField,
  type AppReviewedVersion,
  type AppReviewAction,
  type AppStatus,
} from '../../../../core/index.ts';
import { sha256Hex } from '../../platform/auth/identity.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { ProblemError, StateConflictError } from '../../platform/http/problem.ts';
import { likeContains } from '../../platform/db/sql-filter.ts';

/** Developer tokens: `rpd_<32 random bytes, base64url>`; platform admin tokens: `rpp_…`. Stored only as SHA-256. */
export const DEVELOPER_TOKEN_PREFIX = 'rpd_';
export const PLATFORM_ADMIN_TOKEN_PREFIX = 'rpp_';

const newToken = (prefix: string): string => `${prefix}${randomBytes(32).toString('base64url')}`;
const text = nonBlankText;
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** `POST /api/developers`. */
export const developerSignUpSchema = z.strictObject({
  name: text(120).describe('The developer or company name shown on its apps.'),
  email: z
    .email()
    .max(254)
    .transform((v) => v.toLowerCase()),
});
export type DeveloperSignUpInput = z.infer<typeof developerSignUpSchema>;

const webUrl = z
  .string()
  .max(2048)
  .refine((v) => redirectUriProblem(v) === null, { message: 'must be an https URL (http only on a loopback address)' })
  .meta({ format: 'uri' });

/** Pricing: free, or a monthly subscription price in minor units of `currency` (ISO 4217). */
export const pricingSchema = z.discriminatedUnion('model', [
  z.strictObject({ model: z.literal('free') }),
  z.strictObject({
    model: z.literal('monthly'),
    amountCents: z.number().int().positive().max(100_000_00).describe('Monthly price in minor units (cents).'),
    currency: z
      .string()
      .transform((v) => v.toUpperCase())
      .refine((v) => /^[A-Z]{3}$/.test(v) && KNOWN_CURRENCIES.has(v), 'must be an ISO 4217 currency code, e.g. USD'),
  }),
]);

const appFields = {
  name: text(80),
  description: text(4000),
  form: z.enum(APP_FORMS).describe('`in_platform`: served inside the register; `external`: hosted by the developer, authorised over OAuth 2.0.'),
  redirectUris: uniqueList(
    z
      .string()
      .max(2048)
      .superRefine((v, c) => {
        const why = redirectUriProblem(v);
        if (why) c.addIssue({ code: 'custom', message: why });
      })
      .meta({ format: 'uri' }),
    { max: 10 },
  ).describe('External integrations: OAuth 2.0 redirect URIs, matched exactly (https, or http on loopback).'),
  webhookUrl: webUrl.nullable().describe('External integrations: where the app receives signed webhooks (https).'),
  scopes: uniqueList(z.enum(APP_REQUEST_SCOPES), { min: 1, max: 4 }).describe(
    'Requested scopes, only from catalog:read, orders:read, pay:create, webhooks.',
  ),
  pricing: pricingSchema,
  iconUrl: webUrl.nullable(),
  category: text(40),
  launchUrl: webUrl
    .nullable()
    .describe(
      "In-platform apps: the page served inside the register's sandboxed frame; external integrations: the page that starts the connection (the install answers it with `?installation=…&ticket=…`).",
    ),
};

function formRules(v: { form?: string; redirectUris?: string[]; webhookUrl?: string | null }, c: z.RefinementCtx): void {
  if (v.form === 'external' && (v.redirectUris ?? []).length === 0)
    c.addIssue({ code: 'custom', path: ['redirectUris'], message: 'an external integration needs at least one redirect URI' });
  if (v.form === 'in_platform' && (v.redirectUris ?? []).length > 0)
    c.addIssue({ code: 'custom', path: ['redirectUris'], message: 'an in-platform app has no redirect URIs' });
}

/** `POST /api/developer/apps`: a new app (a draft). */
export const appCreateSchema = z
  .strictObject({
    ...appFields,
    redirectUris: appFields.redirectUris.default([]),
    webhookUrl: appFields.webhookUrl.default(null),
    pricing: pricingSchema.default({ model: 'free' }),
    iconUrl: appFields.iconUrl.default(null),
    launchUrl: appFields.launchUrl.default(null),
  })
  .superRefine(formRules);
export type AppCreateInput = z.infer<typeof appCreateSchema>;

/** `PATCH /api/developer/apps/:id`: any of the fields; the result must still be a whole, valid app. */
export const appPatchSchema = patchBody(z.strictObject(appFields).partial().shape);
export type AppPatchInput = z.infer<typeof appPatchSchema>;

const appWholeSchema = z.strictObject(appFields).superRefine(formRules);

export type Pricing = z.infer<typeof pricingSchema>;

/** The approved version of an app's reviewed fields: what the directory, installs and the OAuth server use. */
export interface ApprovedVersion {
  form: 'in_platform' | 'external';
  scopes: AppRequestScope[];
  redirectUris: string[];
  launchUrl: string | null;
  pricing: Pricing;
}

/** An app as its developer and the reviewers see it. */
export interface AppView {
  id: string;
  developerId: string;
  name: string;
  description: string;
  form: 'in_platform' | 'external';
  redirectUris: string[];
  webhookUrl: string | null;
  scopes: AppRequestScope[];
  approvedScopes: AppRequestScope[] | null;
  pricing: Pricing;
  iconUrl: string | null;
  category: string;
  /** See `launchUrl` of the app fields. */
  launchUrl: string | null;
  status: AppStatus;
  listed: boolean;
  listedAt: string | null;
  rejectionReasons: string[] | null;
  /** The approved version (null until the first approval): what stores see while a revision waits for review. */
  approved: ApprovedVersion | null;
  /** Reviewed fields in which the working copy differs from the approved version (they take effect on approval). */
  changesInReview: AppReviewedField[];
  createdAt: string;
  updatedAt: string;
}

/** One entry of an app's review history (append-only). */
export interface AppReviewEvent {
  actor: string;
  action: string;
  fromStatus: string | null;
  toStatus: string;
  data: Record<string, unknown>;
  occurredAt: string;
}

/** A listed app as merchant staff see it in the directory: approved scopes with their plain-words meaning. */
export interface DirectoryEntry {
  id: string;
  name: string;
  description: string;
  developerName: string;
  form: 'in_platform' | 'external';
  scopes: { scope: AppRequestScope; explanation: string }[];
  pricing: Pricing;
  /** Monthly price in minor units (0: free) and its ISO 4217 currency (null when free) — `pricing` flattened. */
  priceCents: number;
  currency: string | null;
  iconUrl: string | null;
  category: string;
  launchUrl: string | null;
}

type Row = Record<string, any>;
const iso = (v: unknown): string => new Date(v as string).toISOString();
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

function pricingOf(r: Row): Pricing {
  return Number(r.price_cents) > 0 ? { model: 'monthly', amountCents: Number(r.price_cents), currency: r.currency } : { model: 'free' };
}

/** The approved version of a row, or null before the first approval. */
function approvedOf(r: Row): ApprovedVersion | null {
  if (r.approved_scopes == null) return null;
  return {
    form: r.approved_form ?? r.form,
    scopes: json(r.approved_scopes),
    redirectUris: json(r.approved_redirect_uris ?? '[]'),
    launchUrl: r.approved_launch_url ?? null,
    pricing: pricingOf({ price_cents: r.approved_price_cents ?? 0, currency: r.approved_currency }),
  };
}

const reviewedVersion = (v: {
  form: 'in_platform' | 'external';
  scopes: readonly string[];
  redirectUris: readonly string[];
  launchUrl: string | null;
  pricing: Pricing;
}): AppReviewedVersion => ({
  form: v.form,
  scopes: v.scopes,
  redirectUris: v.redirectUris,
  launchUrl: v.launchUrl,
  priceCents: v.pricing.model === 'monthly' ? v.pricing.amountCents : 0,
  currency: v.pricing.model === 'monthly' ? v.pricing.currency : null,
});

function viewOf(r: Row): AppView {
  const approved = approvedOf(r);
  const working = {
    form: r.form,
    scopes: json<string[]>(r.scopes),
    redirectUris: json<string[]>(r.redirect_uris),
    launchUrl: r.launch_url ?? null,
    pricing: pricingOf(r),
  };
  return {
    id: r.id,
    developerId: r.developer_id,
    name: r.name,
    description: r.description,
    form: r.form,
    redirectUris: json(r.redirect_uris),
    webhookUrl: r.webhook_url ?? null,
    scopes: json(r.scopes),
    approvedScopes: r.approved_scopes == null ? null : json(r.approved_scopes),
    pricing: pricingOf(r),
    iconUrl: r.icon_url ?? null,
    category: r.category,
    launchUrl: r.launch_url ?? null,
    status: r.status,
    listed: r.listed_at != null,
    listedAt: r.listed_at == null ? null : iso(r.listed_at),
    rejectionReasons: r.rejection_reasons == null ? null : json(r.rejection_reasons),
    approved,
    changesInReview: approved ? reviewedChanges(reviewedVersion(working), reviewedVersion(approved)) : [],
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/**
 * Creates a developer account and answers its bearer token (shown once; only its SHA-256 is kept).
 * @throws ProblemError 409 `email_taken` when a developer with that e-mail exists.
 */
export async function signUpDeveloper(db: Db, input: DeveloperSignUpInput, now: Date): Promise<{ developerId: string; developerToken: string }> {
  const developerId = `dev_${ulid()}`;
  const developerToken = newToken(DEVELOPER_TOKEN_PREFIX);
  const res = await db.query(
    'INSERT INTO developers (id, name, email, token_hash, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING id',
    [developerId, input.name, input.email, sha256Hex(developerToken), now],
  );
  if (res.rows.length === 0)
    throw new ProblemError(409, 'email_taken', 'A developer account with this e-mail exists already.', [{ path: 'email', message: 'is taken' }]);
  return { developerId, developerToken };
}

/**
 * Adds a platform admin (an app reviewer) and answers their bearer token, shown once. Reviewers are platform staff,
 * never a merchant's: operators seed them per deployment (`npm run platform-admin -- <email> <name>`; tests call
 * this directly).
 */
export async function addPlatformAdmin(
  db: Queryable,
  input: { email: string; name: string },
  now = new Date(),
): Promise<{ adminId: string; token: string }> {
  const adminId = `pla_${ulid()}`;
  const token = newToken(PLATFORM_ADMIN_TOKEN_PREFIX);
  await db.query('INSERT INTO platform_admins (id, name, email, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)', [
    adminId,
    input.name,
    input.email.toLowerCase(),
    sha256Hex(token),
    now,
  ]);
  return { adminId, token };
}

/** The developer whose token this is, or null. */
export async function developerOfToken(db: Queryable, token: string): Promise<{ id: string; name: string } | null> {
  const { rows } = await db.query<{ id: string; name: string }>('SELECT id, name FROM developers WHERE token_hash = $1', [sha256Hex(token)]);
  return rows[0] ?? null;
}

/** The platform admin whose token this is, or null. */
export async function platformAdminOfToken(db: Queryable, token: string): Promise<{ id: string; name: string } | null> {
  const { rows } = await db.query<{ id: string; name: string }>('SELECT id, name FROM platform_admins WHERE token_hash = $1', [sha256Hex(token)]);
  return rows[0] ?? null;
}

async function recordEvent(
  tx: Queryable,
  e: { appId: string; actor: string; action: string; from: string | null; to: string; data?: Record<string, unknown>; now: Date },
): Promise<void> {
  await tx.query(
    'INSERT INTO app_review_events (app_id, actor, action, from_status, to_status, data, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [e.appId, e.actor, e.action, e.from, e.to, JSON.stringify(e.data ?? {}), e.now],
  );
}

/** Registers a new app of `developerId` as a draft. */
export async function createApp(db: Db, developerId: string, input: AppCreateInput, now: Date): Promise<AppView> {
  const id = newId('app');
  // Not mutation(): the platform's app catalog belongs to no merchant; its trail is app_review_events.
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `INSERT INTO apps (id, developer_id, name, description, form, redirect_uris, webhook_url, scopes, price_cents, currency, icon_url, category, status, created_at, updated_at, launch_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'draft', $13, $13, $14) RETURNING *`,
      [
        id,
        developerId,
        input.name,
        input.description,
        input.form,
        JSON.stringify(input.redirectUris),
        input.webhookUrl,
        JSON.stringify([...new Set(input.scopes)]),
        input.pricing.model === 'monthly' ? input.pricing.amountCents : 0,
        input.pricing.model === 'monthly' ? input.pricing.currency : null,
        input.iconUrl,
        input.category,
        now,
        input.launchUrl,
      ],
    );
    await recordEvent(tx, {
      appId: id,
      actor: `developer:${developerId}`,
      action: 'created',
      from: null,
      to: 'draft',
      data: { scopes: input.scopes },
      now,
    });
    return viewOf(rows[0]!);
  });
}

/** The apps of one developer, newest first. */
export async function listDeveloperApps(db: Queryable, developerId: string): Promise<AppView[]> {
  const { rows } = await db.query('SELECT * FROM apps WHERE developer_id = $1 ORDER BY created_at DESC, id DESC', [developerId]);
  return rows.map(viewOf);
}

const notFound = (id: string) => new ProblemError(404, 'not_found', `No app ${id}.`);

/**
 * One app with its review history. `developerId` restricts it to that developer's apps (another developer's app is a
 * 404, as if it did not exist); null for a reviewer.
 * @throws ProblemError 404.
 */
export async function getApp(db: Queryable, id: string, developerId: string | null): Promise<AppView & { history: AppReviewEvent[] }> {
  const { rows } = await db.query('SELECT * FROM apps WHERE id = $1 AND ($2::text IS NULL OR developer_id = $2)', [id, developerId]);
  if (!rows[0]) throw notFound(id);
  const events = await db.query('SELECT * FROM app_review_events WHERE app_id = $1 ORDER BY seq', [id]);
  return {
    ...viewOf(rows[0]),
    history: events.rows.map((e: Row) => ({
      actor: e.actor,
      action: e.action,
      fromStatus: e.from_status ?? null,
      toStatus: e.to_status,
      data: json(e.data),
      occurredAt: iso(e.occurred_at),
    })),
  };
}

async function lockApp(tx: Queryable, id: string, developerId: string | null): Promise<Row> {
  const { rows } = await tx.query('SELECT * FROM apps WHERE id = $1 AND ($2::text IS NULL OR developer_id = $2) FOR UPDATE', [id, developerId]);
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

function conflict(err: unknown, id: string): never {
  if (err instanceof IllegalTransitionError) throw StateConflictError.fromTransition(err, id);
  throw err;
}

/**
 * A developer edits their app (its working copy). The whole app after the edit is validated (400 naming the field).
 * A listed app whose working copy now differs from its approved version in a reviewed field — scopes, price,
 * redirect URIs, launch URL, form (core/apps.ts `reviewedChanges`) — goes back to review (`submitted`) and keeps
 * serving the approved version until a reviewer approves the revision (core/apps.ts `statusAfterEdit`); the review
 * event names the changed fields.
 * @throws ProblemError 404 (not theirs), 400, 409 `illegal_state_transition` while submitted or in review.
 */
export async function updateApp(db: Db, developerId: string, id: string, patch: AppPatchInput, now: Date): Promise<AppView> {
  // Not mutation(): the platform's app catalog belongs to no merchant; its trail is app_review_events.
  return db.transaction(async (tx) => {
    const row = await lockApp(tx, id, developerId);
    const current = viewOf(row);
    const merged = {
      name: current.name,
      description: current.description,
      form: current.form,
      redirectUris: current.redirectUris,
      webhookUrl: current.webhookUrl,
      scopes: current.scopes,
      pricing: current.pricing,
      iconUrl: current.iconUrl,
      category: current.category,
      launchUrl: current.launchUrl,
      ...patch,
    };
    const parsed = appWholeSchema.safeParse(merged);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
      throw new ProblemError(
        400,
        'validation_error',
        `Invalid ${errors.map((e) => e.path).join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
        errors,
      );
    }
    const next = parsed.data;
    const scopes = [...new Set(next.scopes)];
    const inReview = current.approved
      ? reviewedChanges(reviewedVersion({ ...next, scopes, launchUrl: next.launchUrl ?? null }), reviewedVersion(current.approved))
      : [];
    let status: AppStatus;
    try {
      status = statusAfterEdit(current.status, current.listed, inReview.length > 0);
    } catch (err) {
      conflict(err, id);
    }
    const { rows } = await tx.query(
      `UPDATE apps SET name = $2, description = $3, form = $4, redirect_uris = $5, webhook_url = $6, scopes = $7, price_cents = $8, currency = $9, icon_url = $10, category = $11,
              status = $12, updated_at = $13, launch_url = $14 WHERE id = $1 RETURNING *`,
      [
        id,
        next.name,
        next.description,
        next.form,
        JSON.stringify(next.redirectUris),
        next.webhookUrl,
        JSON.stringify(scopes),
        next.pricing.model === 'monthly' ? next.pricing.amountCents : 0,
        next.pricing.model === 'monthly' ? next.pricing.currency : null,
        next.iconUrl,
        next.category,
        status,
        now,
        next.launchUrl ?? null,
      ],
    );
    await recordEvent(tx, {
      appId: id,
      actor: `developer:${developerId}`,
      action: 'edited',
      from: current.status,
      to: status,
      data: { fields: Object.keys(patch), ...(patch.scopes ? { scopes } : {}), ...(current.listed ? { changesInReview: inReview } : {}) },
      now,
    });
    return viewOf(rows[0]!);
  });
}

/**
 * Moves an app through review (core/apps.ts `nextAppStatus`): the developer `submit`s (only their own app), a
 * reviewer (`developerId` null) `start_review`s, `approve`s (the working copy's reviewed fields — scopes, price,
 * redirect URIs, launch URL, form — become the approved version; an app already listed serves it at once),
 * `reject`s with reasons (a listed app keeps serving its approved version), or `list`s. Audited in
 * `app_review_events` (an approval names what changed).
 * @throws ProblemError 404, 409 `illegal_state_transition`.
 */
export async function transitionApp(
  db: Db,
  id: string,
  action: AppReviewAction,
  by: { actor: string; developerId: string | null },
  now: Date,
  reasons?: string[],
): Promise<AppView> {
  // Not mutation(): the platform's app catalog belongs to no merchant; its trail is app_review_events.
  return db.transaction(async (tx) => {
    const row = await lockApp(tx, id, by.developerId);
    const current = viewOf(row);
    let to: AppStatus;
    try {
      to = nextAppStatus(current.status, action, current.listed);
    } catch (err) {
      conflict(err, id);
    }
    const sets: string[] = ['status = $2', 'updated_at = $3'];
    const params: unknown[] = [id, to, now];
    if (action === 'approve') {
      params.push(JSON.stringify(current.scopes));
      sets.push(`approved_scopes = $${params.length}`, 'rejection_reasons = NULL');
      sets.push(
        'approved_form = form',
        'approved_redirect_uris = redirect_uris',
        'approved_launch_url = launch_url',
        'approved_price_cents = price_cents',
        'approved_currency = currency',
      );
    }
    if (action === 'reject') {
      params.push(JSON.stringify(reasons ?? []));
      sets.push(`rejection_reasons = $${params.length}`);
    }
    if (to === 'listed' && !current.listed) sets.push('listed_at = $3');
    const { rows } = await tx.query(`UPDATE apps SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
    const approval =
      action === 'approve'
        ? {
            approvedScopes: current.scopes,
            changed: current.approved ? current.changesInReview : [],
            ...(current.approved && current.changesInReview.includes('pricing')
              ? { pricing: { from: current.approved.pricing, to: current.pricing } }
              : {}),
          }
        : {};
    await recordEvent(tx, {
      appId: id,
      actor: by.actor,
      action,
      from: current.status,
      to,
      data: { ...(reasons ? { reasons } : {}), ...approval },
      now,
    });
    return viewOf(rows[0]!);
  });
}

/** Apps in review states for reviewers (`status` filter; default: submitted and in_review), oldest first. */
export async function reviewQueue(db: Queryable, status?: AppStatus): Promise<(AppView & { developerName: string })[]> {
  const statuses = status ? [status] : ['submitted', 'in_review'];
  const { rows } = await db.query(
    `SELECT a.*, d.name AS developer_name FROM apps a JOIN developers d ON d.id = a.developer_id WHERE a.status = ANY($1::text[]) ORDER BY a.updated_at, a.id LIMIT 500`,
    [statuses],
  );
  return rows.map((r: Row) => ({ ...viewOf(r), developerName: r.developer_name }));
}

/**
 * The app directory: listed apps only, each as its approved version (scopes explained, price, form, launch URL);
 * `q` searches name, description and developer (case-insensitive), `category` filters (case-insensitive). Also
 * answers every category of listed apps.
 */
export async function appDirectory(
  db: Queryable,
  filter: { q?: string; category?: string },
): Promise<{ data: DirectoryEntry[]; categories: string[] }> {
  const like = filter.q ? likeContains(filter.q) : null;
  const { rows } = await db.query(
    `SELECT a.*, d.name AS developer_name FROM apps a JOIN developers d ON d.id = a.developer_id
      WHERE a.listed_at IS NOT NULL AND a.approved_scopes IS NOT NULL
        AND ($1::text IS NULL OR a.name ILIKE $1 OR a.description ILIKE $1 OR d.name ILIKE $1)
        AND ($2::text IS NULL OR lower(a.category) = lower($2))
      ORDER BY lower(a.name), a.id LIMIT 500`,
    [like, filter.category ?? null],
  );
  const cats = await db.query<{ category: string }>('SELECT DISTINCT category FROM apps WHERE listed_at IS NOT NULL ORDER BY category');
  return {
    data: rows.map(directoryEntryOf),
    categories: cats.rows.map((c) => c.category),
  };
}

function directoryEntryOf(r: Row): DirectoryEntry {
  const approved = approvedOf(r)!;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    developerName: r.developer_name,
    form: approved.form,
    scopes: approved.scopes.map((scope) => ({ scope, explanation: APP_SCOPE_EXPLANATIONS[scope] })),
    pricing: approved.pricing,
    priceCents: approved.pricing.model === 'monthly' ? approved.pricing.amountCents : 0,
    currency: approved.pricing.model === 'monthly' ? approved.pricing.currency : null,
    iconUrl: r.icon_url ?? null,
    category: r.category,
    launchUrl: approved.launchUrl,
  };
}

/**
 * One listed app of the directory (approved scopes explained in plain words).
 * @throws ProblemError 404 when no listed app has this id (drafts and apps in first review are nobody's business).
 */
export async function directoryApp(db: Queryable, id: string): Promise<DirectoryEntry> {
  const { rows } = await db.query(
    'SELECT a.*, d.name AS developer_name FROM apps a JOIN developers d ON d.id = a.developer_id WHERE a.id = $1 AND a.listed_at IS NOT NULL AND a.approved_scopes IS NOT NULL',
    [id],
  );
  if (!rows[0]) throw notFound(id);
  return directoryEntryOf(rows[0]);
}

/** What an installation needs of a listed app — its approved version: form, scopes, launch URL, redirect URIs, price. */
export interface InstallableApp {
  id: string;
  name: string;
  form: 'in_platform' | 'external';
  approvedScopes: AppRequestScope[];
  redirectUris: string[];
  launchUrl: string | null;
  pricing: Pricing;
}

/**
 * The listed app `id` as an installation sees it — its approved version, never a revision waiting for review — or
 * null when it is not listed (or does not exist).
 */
export async function installableApp(db: Queryable, id: string): Promise<InstallableApp | null> {
  const { rows } = await db.query('SELECT * FROM apps WHERE id = $1 AND listed_at IS NOT NULL AND approved_scopes IS NOT NULL', [id]);
  const r = rows[0] as Row | undefined;
  if (!r) return null;
  const approved = approvedOf(r)!;
  return {
    id: r.id,
    name: r.name,
    form: approved.form,
    approvedScopes: approved.scopes,
    redirectUris: approved.redirectUris,
    launchUrl: approved.launchUrl,
    pricing: approved.pricing,
  };
}

/** The platform's own developer account that publishes the example app (no one holds its token). */
export const PLATFORM_DEVELOPER_ID = 'dev_register_platform';
/** The example in-platform app listed on every deployment (app-ui serves its page from renderer/public). */
export const EXAMPLE_APP_ID = 'app_example_shelf_labels';

/**
 * Lists the example in-platform app "Shelf labels" (free, `catalog:read`, launched at `/example-app/index.html`) under
 * the platform's own developer account, once; existing rows are never overwritten. Idempotent (demo seed).
 */
export async function ensureExampleApp(tx: Queryable, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO developers (id, name, email, token_hash, created_at) VALUES ($1, 'Register', 'apps@register.invalid', $2, $3) ON CONFLICT DO NOTHING`,
    [PLATFORM_DEVELOPER_ID, sha256Hex(newToken(DEVELOPER_TOKEN_PREFIX)), now],
  );
  // Someone else holds that e-mail (a sign-up before this seed ran): no example app rather than a failed start.
  const platformDev = await tx.query('SELECT 1 FROM developers WHERE id = $1', [PLATFORM_DEVELOPER_ID]);
  if (platformDev.rows.length === 0) return;
  const { rows } = await tx.query(
    `INSERT INTO apps (id, developer_id, name, description, form, redirect_uris, webhook_url, scopes, approved_scopes, price_cents, currency, icon_url, category, status, listed_at, created_at, updated_at, launch_url,
                       approved_form, approved_redirect_uris, approved_launch_url, approved_price_cents, approved_currency)
     VALUES ($1, $2, 'Shelf labels', 'Prints shelf labels with the name and price of your items, straight from your catalog.', 'in_platform', '[]', NULL, $3, $3, 0, NULL, NULL, 'Inventory', 'listed', $4, $4, $4, '/example-app/index.html',
             'in_platform', '[]', '/example-app/index.html', 0, NULL)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [EXAMPLE_APP_ID, PLATFORM_DEVELOPER_ID, JSON.stringify(['catalog:read']), now],
  );
  if (rows.length > 0)
    await recordEvent(tx, {
      appId: EXAMPLE_APP_ID,
      actor: 'system',
      action: 'seeded',
      from: null,
      to: 'listed',
      data: { scopes: ['catalog:read'] },
      now,
    });
}
