/**
 * The receipt's QR code on screen (issue 13): the same payload as the printed one (devices/receipt-job.ts
 * `receiptQrData`, `urn:register:order:<id>:<receipt>`), so a scan at the Returns screen finds the sale. Drawn as SVG
 * by `uqr` (pure JS), shown as an image with a text alternative naming the receipt.
 */
import { useMemo } from 'react';
import { renderSVG } from 'uqr';
import type { Order } from '../../../../core/index.ts';
import { receiptQrData } from '../devices/receipt-job.ts';
import '../views/returns-view.css';

/** The QR code of `order`'s receipt (order id and receipt number). */
export function ReceiptQr({ order }: { order: Pick<Order, 'id' | 'receiptNumber'> }) {
  const data = receiptQrData(order);
  const src = useMemo(() => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(data, { border: 2 }))}`, [data]);
  return <img className="receipt-qr" src={src} width={112} height={112} alt={`QR code of receipt ${order.receiptNumber}`} data-testid="receipt-qr" data-qr={data} />;
}
