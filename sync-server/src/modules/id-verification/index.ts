/**
 * ID verification: reads a licence's AAMVA barcode, checks expiry and minimum age, stores the masked result.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// ID verification.
export { verifyId, type VerifyIdResult } from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerIdVerificationRoutes } from './routes.ts';
