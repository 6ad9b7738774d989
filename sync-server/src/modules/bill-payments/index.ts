/**
 * Bill payments: a customer pays a bill in cash at the register; the bill-payment partner forwards it to the biller.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The bill-payment partner and its sandbox.
export { sandboxBillPartner, type BillPartner } from './partner.ts';

// Bill payments: plan, record, screen, refresh, cash of a shift.
export {
  assertPayerDailyLimit,
  BILL_ID_REQUIRED_FROM_CENTS,
  billCashOfShift,
  billPaymentScreening,
  billPaymentsInFlight,
  finishHeldBillPayment,
  payerNameRef,
  planBillPayment,
  recordBillPayment,
  refreshBillPayment,
  validateBillAccount,
  type BillPayment,
  type BillPaymentCreate,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerBillPaymentRoutes } from './routes.ts';
