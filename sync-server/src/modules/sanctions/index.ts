/**
 * Sanctions screening: names screened against the store's SDN list version, decisions stored and audited.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Screening.
export { assertScreeningCleared, decideScreening, ensureSampleList, getScreening, screenParty, type ScreenPartyResult } from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerSanctionsRoutes } from './routes.ts';
