/**
 * The app directory and installations as the register calls them, with the signed-in staff member's token
 * (`BackOfficeApi`): `GET /api/pos/app-directory`, `POST /api/pos/app-installations` (owner), `GET
 * /api/pos/app-installations`, `DELETE /api/pos/app-installations/{id}` (owner), `POST
 * /api/pos/app-installations/{id}/launch` (in-platform apps: a short-lived app token carrying the granted scopes only),
 * and the paid apps' subscriptions: `GET /api/pos/app-subscriptions` (managers and owners) and `POST
 * /api/pos/app-subscriptions/{id}/accept-price` (owner: accepts an app's price rise).
 */
import { APP_SCOPE_EXPLANATIONS, formatMoney, type AppForm, type AppRequestScope } from '../../../core/index.ts';
import type { BackOfficeApi } from '../common/back-office-api.ts';

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

/** What an app's listed price now means for a subscription (`priceChange` of `GET /api/pos/app-subscriptions`). */
export interface AppPriceChange {
  /** `rise`: applies only once the owner accepts; `lower`: applies by itself; `free`: the subscription ends. */
  kind: 'rise' | 'lower' | 'free';
  /** The monthly price the store pays now (minor units). */
  fromCents: number;
  fromCurrency: string;
  /** The app's listed monthly price (0 when free). */
  toCents: number;
  toCurrency: string | null;
  needsAcceptance: boolean;
  /** ISO 8601: the renewal the new price applies from. */
  appliesFrom: string;
}

/** A paid app's subscription in this store (the parts the apps view shows). */
export interface AppSubscription {
  id: string;
  installationId: string;
  appName: string;
  /** The monthly price the store agreed to, minor units of `currency`. */
  priceCents: number;
  currency: string;
  status: 'active' | 'past_due' | 'suspended' | 'canceled';
  nextChargeAt: string | null;
  nextChargeCents: number | null;
  notice: string | null;
  priceChange: AppPriceChange | null;
}

/** The store's app subscriptions (managers and owners). */
export async function listAppSubscriptions(api: BackOfficeApi): Promise<AppSubscription[]> {
  return (await api.request<{ data: AppSubscription[] }>('GET', '/api/pos/app-subscriptions')).data;
}

/**
 * The owner accepts the app's price rise shown to them (`priceChange.toCents` / `toCurrency`): it applies from the
 * next renewal. The server refuses (409 `price_changed`) if the listed price is no longer the one shown.
 */
export function acceptAppPrice(
  api: BackOfficeApi,
  subscriptionId: string,
  change: { toCents: number; toCurrency: string },
): Promise<AppSubscription> {
  return api.request<AppSubscription>('POST', `/api/pos/app-subscriptions/${encodeURIComponent(subscriptionId)}/accept-price`, {
    priceCents: change.toCents,
    currency: change.toCurrency,
  });
}

/** A billing date (periods are calendar months in UTC), e.g. "April 1, 2028": the UTC day, whatever the time zone. */
export function billingDateText(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' });
}

/** "$9.99 a month" of a subscription's price (minor units). */
export function monthlyText(cents: number, currency: string): string {
  return `${formatMoney(cents, currency)} a month`;
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
