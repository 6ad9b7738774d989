import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/**
 * A Z-report (or X-report, or a store day) as a PDF (`GET /api/pos/shifts/{id}/report?format=pdf`,
 * `GET /api/pos/closeouts/{day}/report?format=pdf`), drawn with pdf-lib (pure JS) on US Letter pages in Helvetica:
 * the label/value rows of core `reportLines`, section rows in bold, continuing on new pages. Text the standard font
 * cannot encode (WinAnsi) prints as `?`. Returns the PDF bytes.
 */
export async function renderReportPdf(title: string, lines: readonly { label: string; value: string }[], createdAt: Date): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.setCreator('Register');
  doc.setProducer('Register (pdf-lib)');
  doc.setCreationDate(createdAt);
  doc.setModificationDate(createdAt);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const encodable = new Set(regular.getCharacterSet());
  const safe = (text: string) => [...text].map((c) => (encodable.has(c.codePointAt(0)!) ? c : '?')).join('');
  const [width, height, margin] = [612, 792, 54];
  let page = doc.addPage([width, height]);
  let y = height - margin;
  for (const [i, line] of lines.entries()) {
    if (y < margin) {
      page = doc.addPage([width, height]);
      y = height - margin;
    }
    const heading = line.value === '';
    const size = i === 0 ? 16 : heading ? 12 : 10;
    if (heading && i > 0) y -= 6;
    page.drawText(safe(line.label), { x: margin, y, size, font: heading ? bold : regular, color: rgb(0.1, 0.1, 0.1) });
    if (!heading) {
      const v = safe(line.value);
      page.drawText(v, { x: width - margin - regular.widthOfTextAtSize(v, size), y, size, font: regular, color: rgb(0.1, 0.1, 0.1) });
    }
    y -= size + 6;
  }
  return doc.save();
}
