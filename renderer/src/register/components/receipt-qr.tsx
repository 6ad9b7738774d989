/**
 * The receipt's QR code on screen: the same payload as the printed one (devices/receipt-job.ts
 * `receiptQrData`, `urn:register:order:<id>:<receipt>`), so a scan at the Returns screen finds the sale. Drawn as SVG
 * by `uqr` (pure JS), shown as an image with a text alternative naming the receipt.
 */
import { useEffect, useState } from 'react';
import { renderSVG } from 'uqr';
import type { Order } from '../../../../core/index.ts';
import { receiptQrData } from '../devices/receipt-job.ts';
import '../views/returns-view.css';

/** An empty image holding the QR code's place until it is drawn. */
const BLANK = 'data:image/svg+xml;charset=utf-8,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E';

const qrImage = (data: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(data, { border: 2 }))}`;

/**
 * The QR code of `order`'s receipt (order id and receipt number). Drawn when the page is next idle, after the
 * receipt's first frame (a few ms of encoding the cashier need not wait for: the receipt itself shows in the frame after the
 * tap); its place is kept (112 × 112 CSS px) meanwhile.
 */
export function ReceiptQr({ order }: { order: Pick<Order, 'id' | 'receiptNumber'> }) {
  const data = receiptQrData(order);
  const [drawn, setDrawn] = useState<{ data: string; src: string } | undefined>();
  useEffect(() => {
    // When the page is idle (within 300 ms at most), so the encoding never delays a frame.
    const draw = () => setDrawn({ data, src: qrImage(data) });
    if (typeof requestIdleCallback !== 'function') {
      const timer = setTimeout(draw, 0);
      return () => clearTimeout(timer);
    }
    const idle = requestIdleCallback(draw, { timeout: 300 });
    return () => cancelIdleCallback(idle);
  }, [data]);
  const src = drawn?.data === data ? drawn.src : BLANK;
  return (
    <img
      className="receipt-qr"
      src={src}
      width={112}
      height={112}
      alt={`QR code of receipt ${order.receiptNumber}`}
      data-testid="receipt-qr"
      data-qr={data}
    />
  );
}
