/**
 * Pay links (Text-to-Pay requests): the requests, their hosted pay page, and the pending links of an invoice or order.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The hosted pay page, mounted by app.ts.
export { registerPayPage } from './pay-page.ts';

// Pending pay links of an invoice or an order.
export { cancelPendingPayLinks, pendingInvoiceLinkIds } from './pending.ts';

// Pay requests.
export {
  createPayRequest,
  emailPayRequestReceipt,
  expirePayRequests,
  getPayRequest,
  insertInvoicePayLink,
  lockPayableRequest,
  markPayRequestPaid,
  pendingInvoiceLink,
  postPayRequestSale,
  pricePayRequestLines,
  recordDeclinedPayPageAttempt,
  type PayRequestAmount,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerPayRequestRoutes } from './routes.ts';
