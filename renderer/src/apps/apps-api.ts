/**
 * The app directory and installations as the register calls them (issue 15), with the signed-in staff member's token
 * (`BackOfficeApi`): `GET /api/pos/app-directory`, `POST /api/pos/app-installations` (owner), `GET
 * /api/pos/app-installations`, `DELETE /api/pos/app-installations/{id}` (owner) and `POST
 * /api/pos/app-installations/{id}/launch` (in-platform apps: a short-lived app token carrying the granted scopes only).
 */
import { APP_SCOPE_EXPLANATIONS, formatMoney, type AppForm, type AppRequestScope } from '../../../core/index.ts';
import type { BackOfficeApi } from '../backoffice/api.ts';

/** An app's price: free, or a monthly subscription in minor units (cents) of `currency`. */
export type AppPricing = { model: 'free' } | { model: 'monthly'; amountCents: number; currency: string };

/** A listed app of the directory (`GET /api/pos/app-directory`). */
export interface DirectoryApp {
  id: string;
  name: string;
  description: string;
  developerName: string;
  form: AppForm;
  /** The approved scopes with their plain-words meaning (core `APP_SCOPE_EXPLANATIONS`). */
  scopes: { scope: AppRequestScope; explanation: string }[];
  pricing: AppPricing;
  iconUrl: string | null;
  category: string;
  /** In-platform: the page served in the register's frame; external: the app's connect URL. */
  launchUrl?: string | null;
}

/** The directory page: listed apps and every category (for the filter). */
export interface AppDirectoryPage {
  data: DirectoryApp[];
  categories: string[];
}

/** An installation of an app in this store (`ins_…`). */
export interface AppInstallation {
  id: string;
  appId: string;
  appName: string;
  form: AppForm;
  grantedScopes: string[];
  status: 'installed' | 'uninstalled' | 'suspended';
  installedAt: string;
  uninstalledAt?: string | null;
  launchUrl?: string | null;
}

/** `POST /api/pos/app-installations` answer: the installation and, for an external integration, where to connect it. */
export interface InstallResult {
  installation: AppInstallation;
  /** External apps: the app's connect URL with a one-time ticket (starts its OAuth 2.0 flow). */
  connectUrl?: string;
}

/** `POST /api/pos/app-installations/{id}/launch` answer: the frame's page and a 1 h app token (granted scopes only). */
export interface AppLaunch {
  launchUrl: string;
  accessToken: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** The plain-words meaning of a scope (core `APP_SCOPE_EXPLANATIONS`), or the scope itself when unknown. */
export function explainScope(scope: string): string {
  return (APP_SCOPE_EXPLANATIONS as Record<string, string>)[scope] ?? scope;
}

/** "Free" or "$9.99 a month" (amounts in minor units). */
export function priceText(pricing: AppPricing): string {
  return pricing.model === 'free' ? 'Free' : `${formatMoney(pricing.amountCents, pricing.currency)} a month`;
}

/** "In the register" or "Connects to an outside service". */
export function formText(form: AppForm): string {
  return form === 'in_platform' ? 'Runs in the register' : 'Connects an outside service';
}

/** The app directory, optionally searched (`q`: name, description, developer) and filtered by category. */
export function listAppDirectory(api: BackOfficeApi, filter: { q?: string; category?: string } = {}): Promise<AppDirectoryPage> {
  const params = new URLSearchParams();
  if (filter.q?.trim()) params.set('q', filter.q.trim());
  if (filter.category) params.set('category', filter.category);
  const query = params.toString();
  return api.request<AppDirectoryPage>('GET', `/api/pos/app-directory${query ? `?${query}` : ''}`);
}

/** The store's installed apps. */
export async function listInstallations(api: BackOfficeApi): Promise<AppInstallation[]> {
  return (await api.request<{ data: AppInstallation[] }>('GET', '/api/pos/app-installations')).data.filter((i) => i.status !== 'uninstalled');
}

/** Installs `appId` granting `scopes` (a non-empty subset of its approved scopes). Owner only. */
export function installApp(api: BackOfficeApi, appId: string, scopes: string[]): Promise<InstallResult> {
  return api.request<InstallResult>('POST', '/api/pos/app-installations', { appId, scopes });
}

/** Uninstalls: revokes the installation's tokens and deletes its webhook subscriptions at once. Owner only. */
export function uninstallApp(api: BackOfficeApi, installationId: string): Promise<AppInstallation> {
  return api.request<AppInstallation>('DELETE', `/api/pos/app-installations/${encodeURIComponent(installationId)}`);
}

/** A fresh app token and the page to load for an installed in-platform app. */
export function launchApp(api: BackOfficeApi, installationId: string): Promise<AppLaunch> {
  return api.request<AppLaunch>('POST', `/api/pos/app-installations/${encodeURIComponent(installationId)}/launch`, {});
}

/**
 * The app frame's page as an absolute URL, or undefined when it is not a web page: only `http:` / `https:` (never
 * `javascript:`, `data:` or `blob:`), a relative path resolved against `base` (this register's address).
 */
export function safeLaunchUrl(launchUrl: string, base: string = location.href): string | undefined {
  try {
    const url = new URL(launchUrl, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
