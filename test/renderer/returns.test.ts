/**
 * Returns at the register: what a cashier types or scans finds the sale (receipt number in any case, with or
 * without leading zeros, the receipt's QR payload, an order id); an exchange settles the difference.
 */
import { describe, expect, it } from 'vitest';
import { exchangeBalance } from '../../core/index.ts';
import { receiptQrData } from '../../renderer/src/register/devices/receipt-job.ts';
import { parseSaleQuery } from '../../renderer/src/register/returns/return-store.ts';

describe('finding the sale to return', () => {
  it('reads receipt numbers as typed and the QR printed on the receipt', () => {
    expect(parseSaleQuery('R2-000123')).toEqual({ receiptNumber: 'R2-000123' });
    expect(parseSaleQuery('  r2-123 ')).toEqual({ receiptNumber: 'R2-000123' });
    expect(parseSaleQuery('2-1234567')).toEqual({ receiptNumber: 'R2-1234567' });
    const qr = receiptQrData({ id: 'ord_01J9ZZZZZZZZZZZZZZZZZZZZZZ', receiptNumber: 'R1-000042' });
    expect(parseSaleQuery(qr)).toEqual({ orderId: 'ord_01J9ZZZZZZZZZZZZZZZZZZZZZZ', receiptNumber: 'R1-000042' });
    expect(parseSaleQuery('ord_01J9ZZZZZZZZZZZZZZZZZZZZZZ')).toEqual({ orderId: 'ord_01J9ZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(parseSaleQuery('croissant')).toEqual({});
  });
});

describe('an exchange', () => {
  it('charges the difference, or gives it back', () => {
    expect(exchangeBalance(1200, 450)).toBe(750);
    expect(exchangeBalance(300, 450)).toBe(-150);
  });
});
