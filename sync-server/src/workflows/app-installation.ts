/**
 * Installing, uninstalling and launching apps — spans the apps module
 * (what the app is and which scopes were approved for it), app installations, app tokens (platform/auth/identity.ts)
 * and webhook subscriptions, each write in one {@link mutation} (merchant lock, audit).
 *
 * - install: the owner approves a non-empty subset of the listed app's approved scopes; an external integration also
 *   gets a one-time connect ticket (`connectUrl`) that starts its OAuth 2.0 code + PKCE flow (modules/app-installations/oauth.ts);
 * - uninstall: the installation's app tokens and OAuth grants are revoked and its webhook subscriptions deleted in
 *   the same transaction — its tokens are 401 on their next request;
 * - launch (in-platform apps): a 1-hour app token bound to the installation carrying exactly the granted scopes.
 */
import { actorOf, mutation } from '../kernel/mutation.ts';
import type { AppContext } from '../platform/context.ts';
import { issueAppToken, revokeInstallationTokens, type Principal } from '../platform/auth/identity.ts';
import { ProblemError, StateConflictError } from '../platform/http/problem.ts';
import { installableApp } from '../modules/apps/index.ts';
import {
  getInstallation,
  insertInstallation,
  issueConnectTicket,
  markUninstalled,
  type InstallBody,
  type Installation,
} from '../modules/app-installations/index.ts';
import { deleteAppSubscriptions } from '../modules/webhooks/index.ts';
import { appSubscriptionStatus, endAppSubscription, startAppSubscription, type AppBillingOptions } from '../modules/app-billing/index.ts';

/** Lifetime of an in-platform app's launch token: 1 hour. */
export const LAUNCH_TOKEN_TTL_MS = 60 * 60 * 1000;

/** What `POST /api/pos/app-installations` answers. */
export interface InstallResult {
  installation: Installation;
  /** External integrations: the app's launch URL with `?installation=<id>&ticket=<one-time ticket>` (10 minutes). */
  connectUrl?: string;
}

/**
 * Installs the listed app `input.appId` for the caller's merchant with the approved `input.scopes`.
 * @throws ProblemError 404 (no listed app), 400 `validation_error` naming `scopes` (a scope the app is not approved
 *   for), 409 `already_installed`, 409 `launch_url_missing` (an external integration without a launch URL).
 */
export async function installApp(ctx: AppContext, principal: Principal, input: InstallBody, billing: AppBillingOptions = {}): Promise<InstallResult> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const app = await installableApp(m.tx, input.appId);
    if (!app) throw new ProblemError(404, 'not_found', `No listed app ${input.appId}.`);
    const outside = input.scopes.filter((s) => !app.approvedScopes.includes(s));
    if (outside.length > 0) {
      throw new ProblemError(
        400,
        'validation_error',
        `Invalid scopes: ${app.name} is approved for ${app.approvedScopes.join(', ')} only; not ${outside.join(', ')}.`,
        [{ path: 'scopes', message: `must be a subset of the app's approved scopes (${app.approvedScopes.join(', ')})` }],
      );
    }
    if (app.form === 'external' && !app.launchUrl)
      throw new ProblemError(409, 'launch_url_missing', `${app.name} has no launch URL to connect from; its developer must add one.`);
    const installation = await insertInstallation(m, app, input.scopes);
    // A paid app starts its subscription with the first (prorated) charge; a declined charge is a 402 that rolls the
    // installation back with it (modules/app-billing).
    await startAppSubscription(
      m.tx,
      { merchantId: m.merchantId, appId: app.id, installationId: installation.id, now: m.now, actor: m.actor },
      billing.billing ? { billing: billing.billing } : {},
    );
    if (app.form !== 'external') return { installation };
    const ticket = await issueConnectTicket(m, installation.id);
    const url = new URL(app.launchUrl!);
    url.searchParams.set('installation', installation.id);
    url.searchParams.set('ticket', ticket);
    return { installation, connectUrl: url.toString() };
  });
}

/**
 * Uninstalls: revokes every token of the installation (app tokens and OAuth grants), deletes its webhook
 * subscriptions, marks it `uninstalled` — one transaction, audited.
 * @throws ProblemError 404; 409 when it is uninstalled already.
 */
export async function uninstallApp(ctx: AppContext, principal: Principal, id: string, billing: AppBillingOptions = {}): Promise<Installation> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const installation = await markUninstalled(m, id);
    await revokeInstallationTokens(m.tx, id);
    await deleteAppSubscriptions(m, id);
    // A paid app's subscription ends with the unused days refunded (modules/app-billing).
    await endAppSubscription(m.tx, { installationId: id, now: m.now, actor: m.actor }, billing.billing ? { billing: billing.billing } : {});
    return installation;
  });
}

/**
 * A launch token for an installed in-platform app: 1 hour, bound to the installation, carrying only its granted
 * scopes. Audited (`app.launched`).
 * @throws ProblemError 404; 409 `illegal_state_transition` when not installed; 409 `not_in_platform` for an external integration.
 */
export async function launchApp(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<{ launchUrl: string; accessToken: string; expiresAt: string }> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const installation = await getInstallation(m.tx, m.merchantId, id, true);
    if (installation.status !== 'installed')
      throw new StateConflictError(
        'app_installation',
        id,
        installation.status,
        `App installation ${id} is ${installation.status}: cannot launch it.`,
      );
    if ((await appSubscriptionStatus(m.tx, id)) === 'suspended')
      throw new ProblemError(
        409,
        'app_suspended',
        `${installation.appName} is suspended: its subscription's charges were declined. Change the store's billing method to use it again.`,
      );
    if (installation.form !== 'in_platform' || !installation.launchUrl)
      throw new ProblemError(
        409,
        'not_in_platform',
        `${installation.appName} is an external integration: it connects over OAuth 2.0 and is not launched inside the register.`,
      );
    const expiresAt = new Date(m.now.getTime() + LAUNCH_TOKEN_TTL_MS);
    const issued = await issueAppToken(m.tx, {
      merchantId: m.merchantId,
      appName: installation.appName,
      scopes: installation.grantedScopes,
      installationId: id,
      expiresAt,
    });
    await m.audit({
      action: 'app.launched',
      entityType: 'app_installation',
      entityId: id,
      data: { tokenId: issued.id, expiresAt: expiresAt.toISOString() },
    });
    return { launchUrl: installation.launchUrl, accessToken: issued.token, expiresAt: expiresAt.toISOString() };
  });
}
