/**
 * Invoices: drafts, sending with a pay link, payments, overdue, void; recurring invoice series.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Recurring invoice series and their scheduler.
export { createSeries, dueSeriesIds, generateDueInvoices, unsentAutoSendDrafts, type RecurringInvoicesReport } from './recurring.ts';

// Invoices.
export {
  applyInvoicePayment,
  checkInvoicePayable,
  createInvoice,
  deliverInvoice,
  getInvoice,
  INVOICE_PDF_ATTACHMENT,
  invoicePdfAttachment,
  markInvoiceSent,
  markOverdueInvoices,
  offlinePaymentAccount,
  recordDeclinedInvoicePayment,
  refundInvoice,
  reopenInvoiceBalance,
  updateInvoice,
  voidInvoice,
  type AppliedInvoicePayment,
  type InvoicePaymentInput,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerInvoiceRoutes } from './routes.ts';
