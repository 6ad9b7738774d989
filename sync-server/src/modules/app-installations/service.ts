/**
 * App installations: a merchant's installation of a listed app with
 * the scopes its owner approved, and the one-time tickets that let an external integration start its OAuth 2.0
 * connection. This module is the one writer of `app_installations`, `app_install_tickets` and (oauth-adapter.ts)
 * `oauth_models`. Install and uninstall span modules (tokens, webhooks, billing): workflows/app-installation.ts.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { APP_FORMS, APP_REQUEST_SCOPES, newId, uniqueList, type AppRequestScope } from '../../../../core/index.ts';
import { sha256Hex } from '../../platform/auth/identity.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError, StateConflictError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';

/** Installation states: `installed`; `uninstalled` (final); `suspended` (set by billing when charges fail). */
export const INSTALLATION_STATUSES = ['installed', 'uninstalled', 'suspended'] as const;
export type InstallationStatus = (typeof INSTALLATION_STATUSES)[number];

/** How long an external integration's connect ticket stays usable: 10 minutes. */
export const CONNECT_TICKET_TTL_MS = 10 * 60 * 1000;

/** `POST /api/pos/app-installations`. */
export const installBodySchema = z.strictObject({
  appId: z.string().trim().min(1).max(100).describe('A listed app (`app_…`, from the app directory).'),
  scopes: uniqueList(z.enum(APP_REQUEST_SCOPES), { min: 1, max: 4 }).describe(
    "The scopes the owner approves: a non-empty subset of the app's approved scopes.",
  ),
});
export type InstallBody = z.infer<typeof installBodySchema>;

/** `GET /api/pos/app-installations` query. */
export const installationListQuery = z.strictObject({
  status: z.enum(INSTALLATION_STATUSES).optional().describe('Default: installed.'),
});

/** An installation as the API answers it (JSON camelCase). */
export const installationSchema = z.object({
  id: z.string().describe('`ins_…`'),
  appId: z.string(),
  appName: z.string(),
  form: z.enum(APP_FORMS),
  grantedScopes: z.array(z.enum(APP_REQUEST_SCOPES)).describe('What the owner approved at install; tokens carry exactly these.'),
  status: z.enum(INSTALLATION_STATUSES),
  installedAt: z.string(),
  uninstalledAt: z.string().optional(),
  launchUrl: z.string().optional(),
});
export type Installation = z.infer<typeof installationSchema>;

type Row = Record<string, any>;
const iso = (v: unknown): string => new Date(v as string).toISOString();

// The app's approved version: a revision waiting for review never changes what an installation launches or is.
const SELECT = `SELECT i.*, a.name AS app_name, COALESCE(a.approved_form, a.form) AS form, a.approved_launch_url AS launch_url FROM app_installations i JOIN apps a ON a.id = i.app_id`;

function viewOf(r: Row): Installation {
  return {
    id: r.id,
    appId: r.app_id,
    appName: r.app_name,
    form: r.form,
    grantedScopes: r.granted_scopes,
    status: r.status,
    installedAt: iso(r.installed_at),
    ...(r.uninstalled_at ? { uninstalledAt: iso(r.uninstalled_at) } : {}),
    ...(r.launch_url ? { launchUrl: r.launch_url } : {}),
  };
}

const notFound = (id: string) => new ProblemError(404, 'not_found', `No app installation ${id}.`);

/** The merchant's installations in `status` (default `installed`), newest first (up to 500). */
export async function listInstallations(db: Queryable, merchantId: string, status: InstallationStatus = 'installed'): Promise<Installation[]> {
  const { rows } = await db.query(`${SELECT} WHERE i.merchant_id = $1 AND i.status = $2 ORDER BY i.installed_at DESC, i.id DESC LIMIT 500`, [
    merchantId,
    status,
  ]);
  return rows.map(viewOf);
}

/**
 * One installation of the merchant (another merchant's is a 404). `lock` takes a row lock (inside a transaction).
 * @throws ProblemError 404.
 */
export async function getInstallation(db: Queryable, merchantId: string, id: string, lock = false): Promise<Installation> {
  const { rows } = await db.query(`${SELECT} WHERE i.merchant_id = $1 AND i.id = $2${lock ? ' FOR UPDATE OF i' : ''}`, [merchantId, id]);
  if (!rows[0]) throw notFound(id);
  return viewOf(rows[0]);
}

/**
 * Records a new installation of `app` for the mutation's merchant with `scopes`, audited (`app.installed`).
 * @throws ProblemError 409 `already_installed` when the app is installed (or suspended) there already.
 */
export async function insertInstallation(m: Mutation, app: { id: string; name: string }, scopes: readonly AppRequestScope[]): Promise<Installation> {
  const live = await m.tx.query<{ id: string }>(
    `SELECT id FROM app_installations WHERE merchant_id = $1 AND app_id = $2 AND status <> 'uninstalled'`,
    [m.merchantId, app.id],
  );
  if (live.rows[0])
    throw new ProblemError(
      409,
      'already_installed',
      `${app.name} is installed already (${live.rows[0].id}); uninstall it first to approve other scopes.`,
    );
  const id = newId('appInstallation');
  await m.tx.query(
    `INSERT INTO app_installations (id, merchant_id, app_id, granted_scopes, status, installed_by, installed_at, updated_at) VALUES ($1, $2, $3, $4::text[], 'installed', $5, $6, $6)`,
    [id, m.merchantId, app.id, [...scopes], m.actor, m.now],
  );
  await m.audit({
    action: 'app.installed',
    entityType: 'app_installation',
    entityId: id,
    data: { appId: app.id, appName: app.name, grantedScopes: [...scopes] },
  });
  return getInstallation(m.tx, m.merchantId, id);
}

/**
 * Marks the installation `uninstalled`, audited (`app.uninstalled`); its tickets and OAuth grants and tokens are
 * removed in the same transaction (tokens of app_tokens and webhook subscriptions: the workflow).
 * @throws ProblemError 404; 409 `illegal_state_transition` when it is uninstalled already.
 */
export async function markUninstalled(m: Mutation, id: string): Promise<Installation> {
  const current = await getInstallation(m.tx, m.merchantId, id, true);
  if (current.status === 'uninstalled')
    throw new StateConflictError('app_installation', id, 'uninstalled', `App installation ${id} is uninstalled already.`);
  await m.tx.query(`UPDATE app_installations SET status = 'uninstalled', uninstalled_at = $3, updated_at = $3 WHERE merchant_id = $1 AND id = $2`, [
    m.merchantId,
    id,
    m.now,
  ]);
  await m.tx.query('UPDATE app_install_tickets SET consumed_at = $2 WHERE installation_id = $1 AND consumed_at IS NULL', [id, m.now]);
  const { rows } = await m.tx.query<{ model: string }>('DELETE FROM oauth_models WHERE installation_id = $1 RETURNING model', [id]);
  await m.audit({
    action: 'app.uninstalled',
    entityType: 'app_installation',
    entityId: id,
    data: { appId: current.appId, appName: current.appName, oauthRecordsRevoked: rows.length },
  });
  return getInstallation(m.tx, m.merchantId, id);
}

/** Issues a one-time connect ticket (random, 10 minutes, single use; only its SHA-256 is stored) for the installation. */
export async function issueConnectTicket(m: Mutation, installationId: string): Promise<string> {
  const ticket = `rct_${randomBytes(32).toString('base64url')}`;
  await m.tx.query('INSERT INTO app_install_tickets (ticket_hash, installation_id, merchant_id, expires_at) VALUES ($1, $2, $3, $4)', [
    sha256Hex(ticket),
    installationId,
    m.merchantId,
    new Date(m.now.getTime() + CONNECT_TICKET_TTL_MS),
  ]);
  return ticket;
}

/** A live installation as the OAuth authorization server sees it. */
export interface InstallationGrant {
  installationId: string;
  merchantId: string;
  appId: string;
  appName: string;
  grantedScopes: AppRequestScope[];
}

/** {@link consumeConnectTicket} with the ticket's SHA-256 (hex) instead of the ticket. */
export async function consumeConnectTicketHash(
  db: Queryable,
  input: { installationId: string; appId: string; ticketHash: string; now: Date },
): Promise<InstallationGrant | null> {
  const { rows } = await db.query(
    `UPDATE app_install_tickets t SET consumed_at = $4
       FROM app_installations i JOIN apps a ON a.id = i.app_id
      WHERE t.ticket_hash = $1 AND t.installation_id = $2 AND i.id = t.installation_id AND i.app_id = $3
        AND i.status = 'installed' AND t.consumed_at IS NULL AND t.expires_at > $4
      RETURNING i.id, i.merchant_id, i.app_id, a.name AS app_name, i.granted_scopes`,
    [input.ticketHash, input.installationId, input.appId, input.now],
  );
  const r = rows[0] as Row | undefined;
  return r ? { installationId: r.id, merchantId: r.merchant_id, appId: r.app_id, appName: r.app_name, grantedScopes: r.granted_scopes } : null;
}

/** The installation `id` when it is `installed`, or null (OAuth token checks). */
export async function liveInstallation(db: Queryable, id: string): Promise<InstallationGrant | null> {
  const { rows } = await db.query(`${SELECT} WHERE i.id = $1 AND i.status = 'installed'`, [id]);
  const r = rows[0] as Row | undefined;
  return r ? { installationId: r.id, merchantId: r.merchant_id, appId: r.app_id, appName: r.app_name, grantedScopes: r.granted_scopes } : null;
}
