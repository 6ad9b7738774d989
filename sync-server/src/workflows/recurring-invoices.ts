/**
 * Recurring invoices, the first job of the housekeeping tick (workflows/housekeeping.ts): due occurrences of every
 * active series become drafts (invoices module, priced against the catalog module), and the drafts of auto-send series
 * are sent (invoice-issue workflow).
 */
import type { AppContext } from '../platform/context.ts';
import { loadCatalog } from '../modules/catalog/index.ts';
import { dueSeriesIds, generateDueInvoices, unsentAutoSendDrafts, type RecurringInvoicesReport } from '../modules/invoices/index.ts';
import { sendInvoiceAs } from './invoice-issue.ts';

/**
 * One pass over the recurring invoices on `today` (YYYY-MM-DD, UTC): due occurrences of every active series, then
 * the auto-send drafts not sent yet. Fills `report` (`generated`, `ended`, `sent` ids); an error of one series or draft
 * does not stop the others (it is in `report.errors`, by `seriesId` or `invoiceId`).
 */
export async function runRecurringInvoices(ctx: AppContext, today: string, report: RecurringInvoicesReport): Promise<void> {
  for (const id of await dueSeriesIds(ctx.db, today)) {
    try {
      await generateDueInvoices(ctx, id, today, report, loadCatalog);
    } catch (err) {
      report.errors.push({ seriesId: id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  for (const d of await unsentAutoSendDrafts(ctx.db)) {
    try {
      await sendInvoiceAs(ctx, { merchantId: d.merchantId, actor: 'system' }, d.id, d.channels ? { channels: d.channels } : {});
      report.sent.push(d.id);
    } catch (err) {
      report.errors.push({ invoiceId: d.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
}
