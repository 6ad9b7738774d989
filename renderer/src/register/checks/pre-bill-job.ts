/**
 * The pre-bill: an open check printed on the receipt printer for the guests to read before paying — its lines by
 * seat, the tax and the total, marked as not a receipt. It does not close the check. Each printing is a job of its
 * own (`pb-<check>-<stamp>`), so the persistent print queue prints a second pre-bill too.
 */
import { computeOrderTotals, formatMoney, linesOfCheck, type CheckBook, type CheckHeader } from '../../../../core/index.ts';
import type { PrintJob } from '../../../../core/devices.ts';
import { RECEIPT_COLUMNS, twoColumns } from '../devices/receipt-job.ts';

/**
 * The print job of `check`'s pre-bill (its live lines, priced as added; tax computed as the sale will).
 * @param at the instant it is printed (ISO 8601): in the job id and, as local time, on the paper
 */
export function preBillPrintJob(book: CheckBook, check: CheckHeader, merchantName: string, currency: string, at: string): PrintJob {
  const lines = linesOfCheck(book, check.id);
  const totals = computeOrderTotals(
    lines.map((l) => l.line),
    [],
  );
  const money = (cents: number) => formatMoney(cents, currency);
  const text = (value: string, extra: { align?: 'center'; bold?: boolean; doubleSize?: boolean } = {}) => ({
    kind: 'text' as const,
    text: value,
    ...extra,
  });
  const blocks: PrintJob['blocks'] = [
    text(merchantName, { align: 'center', bold: true, doubleSize: true }),
    text(check.name, { align: 'center', bold: true, doubleSize: true }),
    text(`Guests: ${check.guests}   ${new Date(at).toLocaleString('en-US')}`, { align: 'center' }),
    text('-'.repeat(RECEIPT_COLUMNS)),
  ];
  for (const line of totals.lines) blocks.push(text(twoColumns(`${line.quantity} x ${line.name}`, money(line.grossCents))));
  blocks.push(text('-'.repeat(RECEIPT_COLUMNS)));
  blocks.push(text(twoColumns('Subtotal', money(totals.subtotalCents))));
  for (const tax of totals.taxLines) blocks.push(text(twoColumns(`${tax.name}${tax.inclusive ? ' (incl.)' : ''}`, money(tax.taxCents))));
  blocks.push(text(twoColumns('TOTAL', money(totals.totalCents)), { bold: true }));
  blocks.push({ kind: 'feed', lines: 1 });
  blocks.push(text('*** NOT A RECEIPT ***', { align: 'center', bold: true }));
  blocks.push({ kind: 'feed', lines: 2 });
  blocks.push({ kind: 'cut' });
  return { jobId: `pb-${check.id}-${Date.parse(at)}`, blocks };
}
