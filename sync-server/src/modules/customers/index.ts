/**
 * Customers: the store's customers in the back office and at the register (pull, push, de-duplication).
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Customers at the register: pull, push, aliases.
export { maxCustomerSeq, pullCustomers, resolveCustomerAliases, storeRegisterCustomers, type RegisterCustomerOutcome } from './register-customers.ts';

// Customers: read, phone numbers.
export { getCustomer, storePhoneToE164 } from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerCustomerRoutes } from './routes.ts';
