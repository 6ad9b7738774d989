import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { formatMoney, type Invoice } from '../../../../core/index.ts';

/**
 * A printable PDF of an invoice (`GET /api/pos/invoices/{id}/pdf`), drawn with pdf-lib (pure JS) on US Letter pages in
 * the standard Helvetica fonts: merchant, invoice number and state, bill-to, dates, one row per line (quantity,
 * description, unit price, amount), subtotal, tax lines, total, paid, balance due, memo and the pay link. Text the
 * standard fonts cannot encode (WinAnsi) is replaced by `?`, so any customer name prints. Long tables continue on new
 * pages. Returns the PDF bytes.
 */
export async function renderInvoicePdf(invoice: Invoice, merchant: { name: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${invoice.number}`);
  doc.setAuthor(clean(merchant.name));
  doc.setSubject(`Invoice ${invoice.number} from ${clean(merchant.name)}`);
  doc.setCreator('Register');
  doc.setProducer('Register (pdf-lib)');
  doc.setCreationDate(new Date(invoice.createdAt));
  doc.setModificationDate(new Date(invoice.updatedAt));
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const encodable = new Set([...regular.getCharacterSet(), ...bold.getCharacterSet()]);
  const safe = (text: string) => [...clean(text)].map((c) => (encodable.has(c.codePointAt(0)!) ? c : '?')).join('');
  const money = (cents: number) => formatMoney(cents, invoice.currency).replace(/\u00a0/g, ' ');

  const width = 612;
  const height = 792;
  const margin = 54;
  let page: PDFPage = doc.addPage([width, height]);
  let y = height - margin;

  const text = (value: string, x: number, size = 10, font: PDFFont = regular, align: 'left' | 'right' = 'left') => {
    const s = safe(value);
    const w = font.widthOfTextAtSize(s, size);
    page.drawText(s, { x: align === 'right' ? x - w : x, y, size, font, color: rgb(0.1, 0.1, 0.1) });
  };
  const fit = (value: string, maxWidth: number, size: number) => {
    const s = safe(value);
    if (regular.widthOfTextAtSize(s, size) <= maxWidth) return s;
    let cut = s;
    while (cut.length > 1 && regular.widthOfTextAtSize(`${cut}...`, size) > maxWidth) cut = cut.slice(0, -1);
    return `${cut}...`;
  };
  const newPageIfNeeded = (needed: number) => {
    if (y - needed > margin) return;
    page = doc.addPage([width, height]);
    y = height - margin;
    text(`${merchant.name} — Invoice ${invoice.number} (continued)`, margin, 9);
    y -= 24;
  };

  text(merchant.name, margin, 18, bold);
  text('INVOICE', width - margin, 18, bold, 'right');
  y -= 22;
  text(invoice.number, width - margin, 12, regular, 'right');
  y -= 16;
  text(`Status: ${invoice.status.replace('_', ' ')}`, width - margin, 10, regular, 'right');
  y -= 28;

  text('Bill to', margin, 10, bold);
  text(`Issued: ${invoice.sentAt ? invoice.sentAt.slice(0, 10) : 'not yet sent (draft)'}`, width - margin, 10, regular, 'right');
  y -= 14;
  text(invoice.billTo.name ?? invoice.billTo.email ?? invoice.billTo.phone ?? invoice.customerId, margin);
  text(`Due: ${invoice.dueDate}`, width - margin, 10, regular, 'right');
  y -= 14;
  for (const contact of [invoice.billTo.email, invoice.billTo.phone]) {
    if (!contact) continue;
    text(contact, margin);
    y -= 14;
  }
  y -= 18;

  const cols = { qty: margin, desc: margin + 40, unit: width - margin - 90, amount: width - margin };
  text('Qty', cols.qty, 10, bold);
  text('Description', cols.desc, 10, bold);
  text('Unit price', cols.unit, 10, bold, 'right');
  text('Amount', cols.amount, 10, bold, 'right');
  y -= 6;
  page.drawLine({ start: { x: margin, y }, end: { x: width - margin, y }, thickness: 0.5, color: rgb(0.6, 0.6, 0.6) });
  y -= 14;
  for (const line of invoice.lines) {
    newPageIfNeeded(16);
    text(String(line.quantity), cols.qty);
    page.drawText(fit(line.description, cols.unit - cols.desc - 70, 10), { x: cols.desc, y, size: 10, font: regular });
    text(money(line.unitPriceCents), cols.unit, 10, regular, 'right');
    text(money(line.grossCents), cols.amount, 10, regular, 'right');
    y -= 16;
  }
  y -= 4;
  page.drawLine({ start: { x: margin, y: y + 10 }, end: { x: width - margin, y: y + 10 }, thickness: 0.5, color: rgb(0.6, 0.6, 0.6) });

  const totals: [string, string, boolean][] = [['Subtotal', money(invoice.subtotalCents), false]];
  for (const t of invoice.taxLines)
    totals.push([`${t.name} (${(t.basisPoints / 100).toFixed(2)}%${t.inclusive ? ', included' : ''})`, money(t.taxCents), false]);
  totals.push(['Total', money(invoice.totalCents), true]);
  if (invoice.paidCents > 0) totals.push(['Paid', `-${money(invoice.paidCents)}`, false]);
  totals.push(['Balance due', money(invoice.balanceDueCents), true]);
  for (const [label, value, strong] of totals) {
    newPageIfNeeded(16);
    text(label, cols.unit - 60, 10, strong ? bold : regular, 'right');
    text(value, cols.amount, 10, strong ? bold : regular, 'right');
    y -= 16;
  }

  if (invoice.memo) {
    y -= 12;
    newPageIfNeeded(30);
    text('Memo', margin, 10, bold);
    y -= 14;
    for (const chunk of safe(invoice.memo).match(/.{1,95}(\s|$)|\S+/g) ?? []) {
      newPageIfNeeded(14);
      text(chunk.trim(), margin);
      y -= 14;
    }
  }
  if (invoice.payUrl && invoice.balanceDueCents > 0) {
    y -= 12;
    newPageIfNeeded(30);
    text('Pay online', margin, 10, bold);
    y -= 14;
    text(invoice.payUrl, margin);
  }
  return doc.save();
}

/** Control characters out; the rest kept for the encodability check. */
function clean(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f]/g, ' ');
}
