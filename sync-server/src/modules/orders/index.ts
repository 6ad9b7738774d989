/**
 * Orders: create, pay, cancel, refund, receipts; register-pushed orders written in batches.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Register orders written in batches (replication push).
export { pushContextPart, receiptKey, registerOrderEvents, type PushContext, type StoredRegisterOrder } from './register-orders.ts';

// Orders.
export {
  cancelOrder,
  createOrder,
  getOrderView,
  insertOrders,
  listOrders,
  openBalanceDue,
  openOrderForTenders,
  orderExists,
  payLinkBalance,
  paymentJournal,
  reattachCustomerOrders,
  recordBalanceCollection,
  recordDeclinedPayment,
  recordExternalPayment,
  recordPayments,
  refundOrder,
  sendReceipt,
  type CapturedTender,
  type ExternalPayment,
  type OrderListQuery,
  type PaymentDeclinedError,
  type RecordedPayments,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerOrderRoutes } from './routes.ts';
