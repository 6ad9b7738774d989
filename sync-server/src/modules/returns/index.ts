/**
 * Register returns: the returns registers push, stored with the server's stamps.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Register returns.
export { findReturns, insertReturn, isOrderQuarantined, type StoredReturn } from './store.ts';
