/**
 * The X-report (mid-shift) and Z-report (close) printed on the receipt printer: core's `ZReport` figures turned into
 * the semantic print blocks of `PrintJob` (core/devices.ts), printed as ESC/POS by the existing driver. The lines are
 * also what the shift screen shows ({@link shiftReportLines}), so screen and paper never disagree.
 */
import { formatMoney, salesFigureLines, serviceCashLines, type ZReport } from '../../../../core/index.ts';
import type { PrintJob } from '../../../../core/devices.ts';
import { RECEIPT_COLUMNS, twoColumns } from './receipt-job.ts';

/** One line of a report: a label and its value, or a section heading (`value` undefined). */
export type ReportLine = [label: string, value?: string];

const RAIL_NAMES: Record<string, string> = {
  cash: 'Cash',
  card_present: 'Card present',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  check: 'Check',
  other: 'Other',
};
const TENDER_NAMES: Record<string, string> = {
  cash: 'Cash',
  card: 'Card',
  check: 'Check',
  other: 'Other',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
};

/** The report's figures as labelled lines, in print order (amounts in the report's currency). */
export function shiftReportLines(report: ZReport): ReportLine[] {
  const money = (cents: number) => formatMoney(cents, report.currency);
  const signed = (cents: number) => (cents > 0 ? `+${money(cents)}` : money(cents));
  // What each sales figure is (gross before discounts and tax, net with and without tax, refunds of the shift's
  // returns): core's wording, shared with the back office's day report.
  const lines: ReportLine[] = [
    ...salesFigureLines(report).map((l): ReportLine => ('count' in l ? [l.label, String(l.count)] : [l.label, money(l.cents)])),
    ['Voids', `${report.voids.count} · ${money(report.voids.amountCents)}`],
  ];
  if (report.taxByRate.length > 0) {
    lines.push(['Tax by rate']);
    for (const t of report.taxByRate) lines.push([`${t.name} ${(t.basisPoints / 100).toFixed(2)}%${t.inclusive ? ' incl.' : ''}`, money(t.taxCents)]);
  }
  lines.push(['By tender']);
  for (const [method, t] of Object.entries(report.byTender)) lines.push([`${TENDER_NAMES[method] ?? method} (${t.count})`, money(t.amountCents)]);
  lines.push(['By rail']);
  for (const [rail, t] of Object.entries(report.byRail)) lines.push([`${RAIL_NAMES[rail] ?? rail} (${t.count})`, money(t.amountCents)]);
  if (Object.keys(report.cardByBrand).length > 0) {
    lines.push(['Cards by brand']);
    for (const [brand, t] of Object.entries(report.cardByBrand)) lines.push([`${brand.toUpperCase()} (${t.count})`, money(t.amountCents)]);
  }
  lines.push(
    ['Cash drawer'],
    ['Opening float', money(report.openingFloatCents)],
    ['Cash sales', money(report.cashSalesCents)],
    ['Paid in', money(report.paidInCents)],
    ['Paid out', money(report.paidOutCents)],
    ['No-sale opens', String(report.noSaleCount)],
    // Financial services: "Checks cashed out", "Transfers in", "Bill payments in", …, "Service fees".
    ...serviceCashLines(report.services).map(([label, cents]): ReportLine => [label, label === 'Service fees' ? money(cents) : signed(cents)]),
    ['Expected cash', money(report.expectedCashCents)],
  );
  if (report.countedCashCents !== null) lines.push(['Counted cash', money(report.countedCashCents)]);
  if (report.overShortCents !== null) lines.push([report.overShortCents >= 0 ? 'Over' : 'Short', signed(report.overShortCents)]);
  lines.push(['First receipt', report.firstReceiptNumber ?? '—'], ['Last receipt', report.lastReceiptNumber ?? '—']);
  return lines;
}

/**
 * The print job of a report. The job id names the closeout (Z: printed once however often it is sent) or the
 * shift and the time of an X-report; `reprint` gives a distinct id.
 */
export function shiftReportPrintJob(report: ZReport, merchantName: string, options: { jobId: string; reprint?: number }): PrintJob {
  const text = (value: string, extra: Partial<Extract<PrintJob['blocks'][number], { kind: 'text' }>> = {}) => ({
    kind: 'text' as const,
    text: value,
    ...extra,
  });
  const blocks: PrintJob['blocks'] = [
    text(merchantName, { align: 'center', bold: true }),
    text(report.kind === 'z' ? 'Z-REPORT' : 'X-REPORT', { align: 'center', bold: true, doubleSize: true }),
    text(`Register ${report.registerNumber}`, { align: 'center' }),
    text(`Opened ${new Date(report.openedAt).toLocaleString('en-US')}`),
    text(
      report.closedAt ? `Closed ${new Date(report.closedAt).toLocaleString('en-US')}` : `Taken ${new Date().toLocaleString('en-US')} (shift open)`,
    ),
  ];
  if (options.reprint) blocks.push(text('*** REPRINT ***', { align: 'center', bold: true }));
  blocks.push(text('-'.repeat(RECEIPT_COLUMNS)));
  for (const [label, value] of shiftReportLines(report))
    blocks.push(value === undefined ? text(label, { bold: true }) : text(twoColumns(label, value)));
  blocks.push({ kind: 'feed', lines: 2 });
  blocks.push({ kind: 'cut' });
  return { jobId: options.reprint ? `${options.jobId}-r${options.reprint}` : options.jobId, blocks };
}
