/**
 * Developers and apps: developer accounts, platform admins (reviewers), apps and their review.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Apps and platform admins.
export { addPlatformAdmin, ensureExampleApp, installableApp } from './service.ts';

// HTTP routes, mounted by app.ts; the developer guard.
export { developerGuard, registerAppRoutes } from './routes.ts';
