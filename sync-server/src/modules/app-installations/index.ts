/**
 * App installations: a merchant's installations of listed apps with their approved scopes, connect tickets, and the
 * OAuth 2.0 authorization server of external integrations.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The OAuth 2.0 authorization server.
export { createAuthorizationServer, oauthAccessTokenPrincipal, registerOAuthRoutes } from './oauth.ts';

// Installations and connect tickets.
export { getInstallation, insertInstallation, issueConnectTicket, markUninstalled, type Installation, type InstallBody } from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerAppInstallationRoutes } from './routes.ts';
