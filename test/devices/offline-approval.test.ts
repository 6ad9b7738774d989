/**
 * Offline card approval (store and forward) on the ECR wire: the register marks a SALE `OFFLINE` when the
 * host is unreachable and the terminal answers `APPROVED_OFFLINE` with a store-and-forward token, brand and last four
 * — bytes checked frame by frame, then driver against simulator over a real pseudo-terminal pair.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { terminalResultSchema } from '../../core/devices.ts';
import { CardTerminal } from '../../electron/devices/ecr/card-terminal.ts';
import { encodeFrame, FrameReader } from '../../electron/devices/ecr/frame.ts';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../electron/devices/ecr/messages.ts';
import { startTerminalSimulator, type TerminalSimulator } from '../../electron/devices/simulators/terminal-simulator.ts';

const fast = { ackTimeoutMs: 500, responseTimeoutMs: 1500, statusTimeoutMs: 800, statusPollMs: 50, statusAttempts: 3 };

describe('offline approval on the wire', () => {
  it('encodes an offline SALE with a trailing OFFLINE field, framed with its LRC', () => {
    const payload = encodeRequest({ type: 'sale', ref: 'k-9', amountCents: 1250, currency: 'USD', offline: true });
    expect(payload).toBe('SALE|k-9|1250|USD|OFFLINE');
    const frame = encodeFrame(payload);
    const body = Buffer.from('SALE|k-9|1250|USD|OFFLINE\x03', 'latin1');
    const lrc = body.reduce((acc, byte) => acc ^ byte, 0);
    expect([...frame]).toEqual([0x02, ...body, lrc]);
    const events = new FrameReader().push(frame);
    expect(events).toHaveLength(1);
    const decoded = decodeRequest(Buffer.from((events[0] as { payload: Uint8Array }).payload).toString('latin1'));
    expect(decoded).toEqual({ type: 'sale', ref: 'k-9', amountCents: 1250, currency: 'USD', offline: true });
    // An online sale is unchanged (four fields), and a fifth field that is not OFFLINE is refused.
    expect(encodeRequest({ type: 'sale', ref: 'k-9', amountCents: 1250, currency: 'USD' })).toBe('SALE|k-9|1250|USD');
    expect(() => decodeRequest('SALE|k-9|1250|USD|ONLINE')).toThrow(expect.objectContaining({ code: 'malformed_frame' }));
  });

  it('round-trips APPROVED_OFFLINE with a token, brand and last four; a card number in the token is refused', () => {
    const result = {
      outcome: 'approved_offline' as const,
      amountCents: 1250,
      token: 'saf_visa_4242_abcdef',
      brand: 'VISA',
      last4: '4242',
      entryMode: 'chip' as const,
      message: 'approved offline',
    };
    const wire = encodeResponse({ type: 'result', ref: 'k-9', result });
    expect(wire).toBe('RESULT|k-9|APPROVED_OFFLINE|1250||saf_visa_4242_abcdef|VISA|4242|CHIP|approved offline');
    expect(decodeResponse(wire)).toEqual({ type: 'result', ref: 'k-9', result });
    expect(terminalResultSchema.parse(result)).toEqual(result);
    expect(() => decodeResponse('RESULT|k-9|APPROVED_OFFLINE|1250||saf_4111111111111111|VISA|1111|CHIP|')).toThrow(
      expect.objectContaining({ code: 'malformed_frame' }),
    );
  });
});

describe('offline approval, driver against the simulator', () => {
  let simulator: TerminalSimulator;
  let terminal: CardTerminal;

  beforeEach(async () => {
    simulator = await startTerminalSimulator();
    terminal = await CardTerminal.open({ port: { path: simulator.devicePath }, ...fast });
  });

  afterEach(async () => {
    await terminal.close();
    await simulator.stop();
  });

  it('approves offline when the register says the host is unreachable: token, brand, last four, no money moved', async () => {
    const result = await terminal.charge({ idempotencyKey: 'saf-1', amountCents: 1250, currency: 'USD', offline: true });
    expect(result).toMatchObject({ outcome: 'approved_offline', amountCents: 1250, brand: 'VISA', last4: '4242', entryMode: 'chip' });
    expect(result.token).toMatch(/^saf_visa_4242_[a-p]{24}$/);
    expect(JSON.stringify(result)).not.toMatch(/\d{12,}/);
    expect(simulator.requests).toContainEqual({ type: 'sale', ref: 'saf-1', amountCents: 1250, currency: 'USD', offline: true });
    expect(simulator.charges()).toHaveLength(0);
    // Asked again under the same key: the same offline approval, no second sale sent.
    const again = await terminal.charge({ idempotencyKey: 'saf-1', amountCents: 1250, currency: 'USD', offline: true });
    expect(again.token).toBe(result.token);
    expect(simulator.requests.filter((r) => r.type === 'sale')).toHaveLength(1);
  });

  it('approves offline when its own host is unreachable; an amount the issuer would decline is approved as VISA 0002', async () => {
    simulator.setHostReachable(false);
    const declinedLater = await terminal.charge({ idempotencyKey: 'saf-2', amountCents: 2001, currency: 'USD' });
    expect(declinedLater).toMatchObject({ outcome: 'approved_offline', brand: 'VISA', last4: '0002' });
    expect(declinedLater.token).toMatch(/^saf_visa_0002_/);
    const amex = await terminal.charge({ idempotencyKey: 'saf-3', amountCents: 907, currency: 'USD' });
    expect(amex).toMatchObject({ outcome: 'approved_offline', brand: 'AMEX', last4: '0005', entryMode: 'manual' });
    const cancelled = await terminal.charge({ idempotencyKey: 'saf-4', amountCents: 703, currency: 'USD' });
    expect(cancelled.outcome).toBe('cancelled');
    simulator.presentCardOffline({ brand: 'MASTERCARD', last4: '0002' });
    const presented = await terminal.charge({ idempotencyKey: 'saf-6', amountCents: 1500, currency: 'USD' });
    expect(presented).toMatchObject({ outcome: 'approved_offline', brand: 'MASTERCARD', last4: '0002' });
    expect(presented.token).toMatch(/^saf_mastercard_0002_/);
    simulator.setHostReachable(true);
    const online = await terminal.charge({ idempotencyKey: 'saf-5', amountCents: 1500, currency: 'USD' });
    expect(online.outcome).toBe('approved');
  });
});
