/**
 * Financial-services settings: check-cashing and bill-payment fees and the limits of the three services.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The store's financial-services settings.
export { getFinancialServiceSettings } from './settings.ts';

// HTTP routes, mounted by app.ts.
export { registerFinancialServiceSettingsRoutes } from './routes.ts';
