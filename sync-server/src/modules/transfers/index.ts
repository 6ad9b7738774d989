/**
 * Money transfers: cash in at the register, sent abroad by the transfer partner.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The transfer partner and its sandbox.
export { SANDBOX_CORRIDORS, sandboxTransferPartner, type TransferPartner } from './partner.ts';

// Money transfers: plan, record, screen, refresh, cash of a shift.
export {
  assertSenderDailyLimit,
  finishHeldTransfer,
  planTransfer,
  recordTransfer,
  refreshTransfer,
  transferCashOfShift,
  transferScreenings,
  transfersInFlight,
  type Transfer,
  type TransferCreate,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerTransferRoutes } from './routes.ts';
