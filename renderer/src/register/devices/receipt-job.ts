/**
 * The printed receipt: a stored order turned into the semantic print blocks of `PrintJob`
 * (core/devices.ts) — merchant, receipt number, lines, totals, the tender (cash and change, card brand and last four,
 * check number), and a QR code of the order. The job id is the order id, so the persistent print queue never prints
 * the same sale twice however often it is sent; a reprint gets its own id.
 */
import { formatMoney, type Order } from '../../../../core/index.ts';
import type { PrintJob } from '../../../../core/devices.ts';

/** Characters per line of an 80 mm printer in font A at the width most receipt layouts use. */
export const RECEIPT_COLUMNS = 42;

/** `left ........ right` on one line of `width` columns (left side shortened when both do not fit). */
export function twoColumns(left: string, right: string, width = RECEIPT_COLUMNS): string {
  const room = Math.max(1, width - right.length - 1);
  const shown = left.length > room ? `${left.slice(0, room - 1)}~` : left;
  return `${shown}${' '.repeat(Math.max(1, width - shown.length - right.length))}${right}`;
}

/** The QR payload of a receipt: a URN naming the order (scanned at a return counter to find the sale). */
export function receiptQrData(order: Pick<Order, 'id' | 'receiptNumber'>): string {
  return `urn:register:order:${order.id}:${order.receiptNumber}`;
}

/** Tender lines as printed (also reused by the on-screen receipt). */
export function tenderLines(order: Order): [string, string][] {
  const money = (cents: number) => formatMoney(cents, order.currency);
  const out: [string, string][] = [];
  for (const tender of order.tenders) {
    if (tender.method === 'cash') {
      out.push(['Cash', money(tender.tenderedCents ?? tender.amountCents)]);
      out.push(['Change', money(tender.changeCents ?? 0)]);
    } else if (tender.method === 'card') {
      out.push([`${tender.cardBrand ?? 'Card'} **** ${tender.last4 ?? '????'}`, money(tender.amountCents)]);
      if (tender.authCode) out.push(['Auth code', tender.authCode]);
    } else if (tender.method === 'check') {
      out.push([`Check${tender.checkNumber ? ` #${tender.checkNumber}` : ''}`, money(tender.amountCents)]);
      if (tender.routingNumber) out.push(['Routing', tender.routingNumber]);
      if (tender.last4) out.push(['Account', `**** ${tender.last4}`]);
    } else {
      out.push(['Other', money(tender.amountCents)]);
    }
  }
  return out;
}

/** Builds the print job of a stored order. `reprint` (1, 2, …) gives a distinct job id and a REPRINT mark. */
export function receiptPrintJob(order: Order, merchantName: string, options: { reprint?: number } = {}): PrintJob {
  const money = (cents: number) => formatMoney(cents, order.currency);
  const text = (value: string, extra: Partial<Extract<PrintJob['blocks'][number], { kind: 'text' }>> = {}) => ({
    kind: 'text' as const,
    text: value,
    ...extra,
  });
  const blocks: PrintJob['blocks'] = [
    text(merchantName, { align: 'center', bold: true, doubleSize: true }),
    text(`Receipt ${order.receiptNumber}`, { align: 'center' }),
    text(new Date(order.createdAt).toLocaleString('en-US'), { align: 'center' }),
  ];
  if (options.reprint) blocks.push(text('*** REPRINT ***', { align: 'center', bold: true }));
  blocks.push(text('-'.repeat(RECEIPT_COLUMNS)));
  for (const line of order.lines) {
    blocks.push(text(twoColumns(`${line.quantity} x ${line.name}`, money(line.grossCents))));
    if (line.modifiers.length > 0) blocks.push(text(`    ${line.modifiers.map((m) => m.name).join(', ')}`));
  }
  blocks.push(text('-'.repeat(RECEIPT_COLUMNS)));
  blocks.push(text(twoColumns('Subtotal', money(order.subtotalCents))));
  if (order.discountCents > 0) blocks.push(text(twoColumns('Discounts', `-${money(order.discountCents)}`)));
  for (const tax of order.taxLines) blocks.push(text(twoColumns(`${tax.name}${tax.inclusive ? ' (incl.)' : ''}`, money(tax.taxCents))));
  blocks.push(text(twoColumns('TOTAL', money(order.totalCents)), { bold: true }));
  for (const [label, value] of tenderLines(order)) blocks.push(text(twoColumns(label, value)));
  blocks.push({ kind: 'feed', lines: 1 });
  blocks.push({ kind: 'qr', data: receiptQrData(order) });
  blocks.push(text('Thank you!', { align: 'center' }));
  blocks.push({ kind: 'feed', lines: 2 });
  blocks.push({ kind: 'cut' });
  return { jobId: options.reprint ? `${order.id}-r${options.reprint}` : order.id, blocks };
}
