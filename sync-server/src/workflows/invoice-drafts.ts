/**
 * Invoice drafts and recurring series priced against the catalog module's live catalog: the invoices
 * module prices and stores them; this hands it the catalog reader.
 */
import type { Invoice, InvoiceCreate, InvoiceSeries, InvoiceSeriesCreate, InvoiceUpdate } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { loadCatalog } from '../modules/catalog/index.ts';
import * as recurring from '../modules/invoices/index.ts';
import * as invoices from '../modules/invoices/index.ts';

/** Creates a draft invoice (see invoices' `createInvoice`). @throws ProblemError 400 naming the field. */
export async function createInvoice(ctx: AppContext, principal: Principal, input: InvoiceCreate): Promise<Invoice> {
  return invoices.createInvoice(ctx, principal, input, loadCatalog);
}

/** Changes a draft (see invoices' `updateInvoice`). @throws ProblemError 400 naming the field; 404; 409 `currentState`. */
export async function updateInvoice(ctx: AppContext, principal: Principal, id: string, input: InvoiceUpdate): Promise<Invoice> {
  return invoices.updateInvoice(ctx, principal, id, input, loadCatalog);
}

/** Creates an active recurring series (see recurring's `createSeries`). @throws ProblemError 400 naming the field. */
export async function createSeries(ctx: AppContext, principal: Principal, input: InvoiceSeriesCreate): Promise<InvoiceSeries> {
  return recurring.createSeries(ctx, principal, input, loadCatalog);
}
