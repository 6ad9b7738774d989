/** Core rules of the financial services: fees, limits, ABA, MICR key, remittance disclosure, transfer states, billers' check digits. */
import { describe, expect, it } from 'vitest';
import {
  abaRoutingValid,
  billerAccountProblem,
  canTransferMove,
  checkServiceLimits,
  maskAccount,
  micrKey,
  mod10Weights31Valid,
  mod11Valid,
  receiveAmount,
  remittanceDisclosure,
  CFPB_CONTACT,
  serviceFee,
  type TransferQuote,
} from '../../core/index.ts';

describe('financial services rules', () => {
  it('fee: percent + fixed, at least the minimum, never above the amount', () => {
    const s = { basisPoints: 100, fixedCents: 100, minimumCents: 300 };
    expect(serviceFee(25_000, s)).toBe(350);
    expect(serviceFee(10_000, s)).toBe(300); // 100 + 100 < minimum
    expect(serviceFee(150, s)).toBe(150);
    expect(serviceFee(12_345, { basisPoints: 250, fixedCents: 0, minimumCents: 0 })).toBe(309); // 308.625 → 309
    expect(() => serviceFee(-1, s)).toThrow(RangeError);
  });

  it('limits per transaction and per customer per day', () => {
    const l = { perTransactionCents: 500_000, perCustomerPerDayCents: 750_000 };
    expect(checkServiceLimits(500_000, 0, l)).toBeNull();
    expect(checkServiceLimits(500_001, 0, l)?.code).toBe('limit_per_transaction');
    expect(checkServiceLimits(250_001, 500_000, l)?.code).toBe('limit_per_customer_day');
    expect(checkServiceLimits(250_000, 500_000, l)).toBeNull();
  });

  it('ABA checksum on the MICR samples; the MICR key ignores spacing, dashes and leading zeros', () => {
    expect(['123456780', '075901231'].map(abaRoutingValid)).toEqual([true, true]);
    expect(['124444706', '044446110', '123456789', '12345678', '12345678a'].map(abaRoutingValid)).toEqual([false, false, false, false, false]);
    expect(micrKey({ routingNumber: '075901231', accountNumber: '456-327', checkNumber: '0101' })).toBe(
      micrKey({ routingNumber: '075901231', accountNumber: '456327', checkNumber: '101' }),
    );
    expect(micrKey({ routingNumber: '075901231', accountNumber: '456327', auxOnUs: '706001' })).toBe('075901231|456327|706001');
    expect(maskAccount('123-456-7')).toBe('••••4567');
  });

  it('remittance disclosure before payment; the receipt with the parties and rights of 12 CFR 1005.31(b)(2)', () => {
    const q: TransferQuote = {
      sendAmountCents: 20_000,
      sendCurrency: 'USD',
      feeCents: 499,
      rate: '17.05',
      receiveAmountMinor: receiveAmount(20_000, '17.05'),
      receiveCurrency: 'MXN',
      country: 'MX',
      payoutMethod: 'cash_pickup',
      availableOn: '2026-03-06',
    };
    expect(q.receiveAmountMinor).toBe(341_000);
    expect(receiveAmount(333, '56.123456')).toBe(18_689); // 18 689.11… rounded down
    const before = remittanceDisclosure(q);
    expect(before).toMatchObject({ totalCents: 20_499, cancelUntil: null });
    expect(before.lines).toContain('Exchange rate: 1 USD = 17.05 MXN');
    const provider = { name: 'Remit Co', phone: '1-800-555-0199', website: 'remit.example' };
    const regulator = { name: 'State Banking Department', phone: '1-800-555-0142', website: 'banking.example' };
    const receipt = remittanceDisclosure(q, {
      at: new Date('2026-03-06T12:00:00Z'),
      parties: { provider, agent: 'Corner Services', recipientName: 'Ana Lopez', stateRegulator: regulator },
    });
    expect(receipt).toMatchObject({
      cancelUntil: '2026-03-06T12:30:00.000Z',
      transferDate: '2026-03-06',
      provider,
      agent: 'Corner Services',
      recipientName: 'Ana Lopez',
    });
    expect(before).toMatchObject({ provider: null, recipientName: null, regulators: [] });
    // 12 CFR 1005.31(b)(2): provider's name and contact, recipient, regulators' contacts, error-resolution and cancellation rights.
    expect(receipt.regulators).toEqual([regulator, CFPB_CONTACT]);
    expect(receipt.lines).toEqual(
      expect.arrayContaining([
        'Provider: Remit Co · 1-800-555-0199 · remit.example',
        'Recipient: Ana Lopez',
        'State Banking Department · 1-800-555-0142 · banking.example',
        'Consumer Financial Protection Bureau · 855-411-2372 (TTY/TDD 855-729-2372) · www.consumerfinance.gov/sending-money',
      ]),
    );
    expect(receipt.lines.some((l) => l.includes('within 30 minutes'))).toBe(true);
    expect(receipt.lines.some((l) => l.includes('180 days') && l.includes('1-800-555-0199'))).toBe(true);
  });

  it('transfer status machine', () => {
    expect(canTransferMove('held', 'submitted')).toBe(true);
    expect(canTransferMove('sent', 'available')).toBe(true);
    expect(canTransferMove('available', 'canceled')).toBe(false);
    expect(canTransferMove('paid', 'refunded')).toBe(false);
  });

  it("billers' account rules: length and check digits (Luhn, mod 10 weights 3-1, mod 11)", () => {
    const luhn = { minLength: 10, maxLength: 10, checkDigit: 'luhn' as const };
    expect(billerAccountProblem('123 456 7897', luhn)).toBeNull();
    expect(billerAccountProblem('1234567890', luhn)).toMatch(/check digit/);
    expect(billerAccountProblem('123456789', luhn)).toMatch(/10 digits/);
    expect(billerAccountProblem('12345678AB', luhn)).toMatch(/digits only/);
    expect(mod10Weights31Valid('036000291452')).toBe(true); // UPC-A 036000291452
    expect(mod10Weights31Valid('036000291453')).toBe(false);
    // 030640615: from the right 5·2 + 1·3 + 6·4 + 0·5 + 4·6 + 6·7 + 0·2 + 3·3 + 0·4 = 112; 112 mod 11 = 2; 11 − 2 = 9
    expect(mod11Valid('0306406159')).toBe(true);
    expect(mod11Valid('0306406152')).toBe(false);
    expect(billerAccountProblem('1234', { minLength: 4, maxLength: 10, checkDigit: 'none' })).toBeNull();
  });
});
