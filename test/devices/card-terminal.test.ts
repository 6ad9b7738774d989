/**
 * Card-terminal driver against its simulator through a real socat pseudo-terminal pair: ECR frames,
 * ACK/NAK and retransmission on the wire, test amounts, lost responses resolved by STATUS, never a double charge.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { terminalResultSchema, type DeviceStatus } from '../../core/devices.ts';
import { CardTerminal } from '../../electron/devices/ecr/card-terminal.ts';
import { encodeFrame } from '../../electron/devices/ecr/frame.ts';
import { startTerminalSimulator, type TerminalSimulator } from '../../electron/devices/simulators/terminal-simulator.ts';

const fast = { ackTimeoutMs: 500, responseTimeoutMs: 1500, statusTimeoutMs: 800, statusPollMs: 50, statusAttempts: 3 };

describe('card terminal over a pseudo-terminal', () => {
  let simulator: TerminalSimulator;
  let terminal: CardTerminal;

  beforeEach(async () => {
    simulator = await startTerminalSimulator({ serial: { baudRate: 19200, parity: 'even' } });
    terminal = await CardTerminal.open({ port: { path: simulator.devicePath, baudRate: 19200, parity: 'even' }, ...fast });
  });

  afterEach(async () => {
    await terminal.close();
    await simulator.stop();
  });

  it('approves a sale with token, brand, last four and entry mode — never a card number', async () => {
    const result = await terminal.charge({ idempotencyKey: 'sale-approve-1', amountCents: 1250, currency: 'USD' });
    expect(result).toMatchObject({ outcome: 'approved', amountCents: 1250, brand: 'VISA', last4: '4242', entryMode: 'chip', ref: 'sale-approve-1' });
    expect(result.authCode).toMatch(/^A\d{5}$/);
    expect(result.token).toMatch(/^tok_sim_/);
    const { ref: _ref, ...plain } = result;
    expect(terminalResultSchema.parse(plain)).toEqual(plain);
    expect(JSON.stringify(result)).not.toMatch(/\d{12,}/);
    expect(simulator.chargeCount('sale-approve-1')).toBe(1);
    // A STATUS query went out before the SALE.
    expect(simulator.requests.map((request) => request.type)).toEqual(['status', 'sale']);
  });

  it('answers a sale with a token the driver accepts whatever its reference (no digit run that looks like a card number)', async () => {
    // The hex of this reference's SHA-256 begins 4adb3521916874948c66bb21: a token made of those hex digits carries a
    // 13-digit run, and the driver refuses a RESULT with a card-number-like field (the sale then waited for an answer).
    const result = await terminal.charge({ idempotencyKey: 'tnd_digits_40', amountCents: 1250, currency: 'USD' });
    expect(result).toMatchObject({ outcome: 'approved', amountCents: 1250 });
    expect(result.token).toMatch(/^tok_sim_[a-p]{24}$/);
    const refund = await terminal.refund({ idempotencyKey: 'tnd_digits_40-refund', amountCents: 1250, currency: 'USD', token: result.token! });
    expect(refund).toMatchObject({ outcome: 'approved', amountCents: 1250 });
  });

  it('declines, cancels and times out by test amount without moving money', async () => {
    const declined = await terminal.charge({ idempotencyKey: 'sale-decline', amountCents: 2001, currency: 'USD' });
    expect(declined).toMatchObject({ outcome: 'declined', message: 'insufficient funds' });
    expect(declined.token).toBeUndefined();
    const expired = await terminal.charge({ idempotencyKey: 'sale-expired', amountCents: 502, currency: 'USD' });
    expect(expired).toMatchObject({ outcome: 'declined', message: 'card expired' });
    const cancelled = await terminal.charge({ idempotencyKey: 'sale-cancel', amountCents: 703, currency: 'USD' });
    expect(cancelled.outcome).toBe('cancelled');
    const timedOut = await terminal.charge({ idempotencyKey: 'sale-timeout', amountCents: 904, currency: 'USD' });
    expect(timedOut.outcome).toBe('timed_out');
    const contactless = await terminal.charge({ idempotencyKey: 'sale-tap', amountCents: 1005, currency: 'USD' });
    expect(contactless).toMatchObject({ outcome: 'approved', entryMode: 'contactless' });
    expect(simulator.charges().map((charge) => charge.request.ref)).toEqual(['sale-tap']);
  });

  it('resolves a lost sale response with a STATUS query: exactly one charge, also when the register retries', async () => {
    simulator.dropNextResponses(1);
    const result = await terminal.charge({ idempotencyKey: 'sale-lost', amountCents: 4200, currency: 'EUR' });
    expect(result).toMatchObject({ outcome: 'approved', amountCents: 4200 });
    expect(simulator.requests.map((request) => request.type)).toEqual(['status', 'sale', 'status']);
    expect(simulator.chargeCount('sale-lost')).toBe(1);

    const again = await terminal.charge({ idempotencyKey: 'sale-lost', amountCents: 4200, currency: 'EUR' });
    expect(again.authCode).toBe(result.authCode);
    expect(simulator.requests.filter((request) => request.type === 'sale')).toHaveLength(1);
    expect(simulator.charges()).toHaveLength(1);
  });

  it('NAKs a response with a corrupt LRC and takes the retransmission', async () => {
    simulator.corruptNextLrc(1); // the STATUS answer goes out corrupt first
    const result = await terminal.charge({ idempotencyKey: 'sale-lrc', amountCents: 1500, currency: 'USD' });
    expect(result.outcome).toBe('approved');
    expect(terminal.linkStats.naksSent).toBe(1);
    expect(simulator.linkStats.naksReceived).toBe(1);
    expect(simulator.linkStats.retransmissions).toBe(1);
    expect(simulator.chargeCount('sale-lrc')).toBe(1);
  });

  it('retransmits a request the terminal NAKs (up to 3 times)', async () => {
    simulator.nakNextFrames(3);
    const result = await terminal.charge({ idempotencyKey: 'sale-nak', amountCents: 1600, currency: 'USD' });
    expect(result.outcome).toBe('approved');
    expect(terminal.linkStats.naksReceived).toBe(3);
    expect(terminal.linkStats.retransmissions).toBe(3);
    expect(simulator.linkStats.naksSent).toBe(3);
  });

  it('gives up after 3 retransmissions with timed_out, charges nothing, and completes once on retry', async () => {
    simulator.setOnline(false);
    const statuses: DeviceStatus[] = [];
    terminal.on('status', (status) => statuses.push(status));
    const first = await terminal.charge({ idempotencyKey: 'sale-offline', amountCents: 1700, currency: 'USD' });
    expect(first.outcome).toBe('timed_out');
    expect(terminal.linkStats.framesSent).toBe(4);
    expect(statuses.at(-1)).toMatchObject({ device: 'terminal', state: 'offline' });
    expect(simulator.charges()).toHaveLength(0);

    simulator.setOnline(true);
    const second = await terminal.charge({ idempotencyKey: 'sale-offline', amountCents: 1700, currency: 'USD' });
    expect(second.outcome).toBe('approved');
    expect(simulator.chargeCount('sale-offline')).toBe(1);
  });

  it('a sale whose request frame was lost is sent again only after STATUS says NOT_FOUND', async () => {
    // The SALE reaches the wire but the terminal ignores it (and its 3 retransmissions): nothing was processed.
    const seen: string[] = [];
    simulator.on('request', (request) => seen.push(request.type));
    simulator.once('request', () => simulator.ignoreNextFrames(4));
    const result = await terminal.charge({ idempotencyKey: 'sale-resend', amountCents: 1800, currency: 'USD' });
    expect(result.outcome).toBe('approved');
    expect(seen).toEqual(['status', 'status', 'sale']);
    expect(simulator.chargeCount('sale-resend')).toBe(1);
  });

  it('refunds to the sale token and voids a sale', async () => {
    const sale = await terminal.charge({ idempotencyKey: 'sale-for-refund', amountCents: 3000, currency: 'USD' });
    const refund = await terminal.refund({ idempotencyKey: 'refund-1', amountCents: 1000, currency: 'USD', token: sale.token! });
    expect(refund).toMatchObject({ outcome: 'approved', amountCents: 1000 });
    const badRefund = await terminal.refund({ idempotencyKey: 'refund-2', amountCents: 1000, currency: 'USD', token: 'tok_other' });
    expect(badRefund).toMatchObject({ outcome: 'declined', message: 'unknown token' });

    const toVoid = await terminal.charge({ idempotencyKey: 'sale-for-void', amountCents: 2500, currency: 'USD' });
    expect(toVoid.outcome).toBe('approved');
    const voided = await terminal.void({ idempotencyKey: 'void-1', originalIdempotencyKey: 'sale-for-void' });
    expect(voided).toMatchObject({ outcome: 'approved', amountCents: 2500 });
    expect(simulator.chargeCount('sale-for-void')).toBe(0);
    const twice = await terminal.void({ idempotencyKey: 'void-2', originalIdempotencyKey: 'sale-for-void' });
    expect(twice.outcome).toBe('declined');
    expect(await terminal.lookup('sale-for-void')).toMatchObject({ outcome: 'approved' });
    expect(await terminal.lookup('never-sent')).toBe('not_found');
    expect(await terminal.queryDeviceStatus()).toEqual({ device: 'terminal', state: 'ready' });
  });

  it('refuses invalid requests with a typed error', async () => {
    await expect(terminal.charge({ idempotencyKey: '', amountCents: 100, currency: 'USD' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(terminal.charge({ idempotencyKey: 'x', amountCents: 1.5, currency: 'USD' })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('survives garbage bytes and a malformed frame on the line', async () => {
    // Line noise from the terminal's end: stray bytes, a frame cut short by a new STX, an empty frame with a bad LRC.
    const errors: string[] = [];
    terminal.on('frameError', (error) => errors.push(error.code));
    const noise = Buffer.concat([
      Buffer.from([0x41, 0x42, 0x00, 0xff]),
      Buffer.from(encodeFrame('RESULT|x')).subarray(0, 5),
      Buffer.from([0x02, 0x03, 0x55]),
    ]);
    await simulator.writeRaw(noise);
    const result = await terminal.charge({ idempotencyKey: 'sale-after-noise', amountCents: 1900, currency: 'USD' });
    expect(result.outcome).toBe('approved');
    expect(errors).toContain('bad_lrc');
  });

  it('reports a terminal unplugged mid-sale as offline with an unknown outcome', async () => {
    const statuses: DeviceStatus[] = [];
    terminal.on('status', (status) => statuses.push(status));
    simulator.dropNextResponses(1);
    simulator.once('request', (request) => {
      if (request.type === 'status') simulator.once('request', () => void simulator.unplug());
    });
    const result = await terminal.charge({ idempotencyKey: 'sale-unplug', amountCents: 2100, currency: 'USD' });
    expect(result.outcome).toBe('timed_out');
    expect(statuses.some((status) => status.state === 'offline')).toBe(true);
    await expect(terminal.charge({ idempotencyKey: 'sale-unplug-2', amountCents: 100, currency: 'USD' })).rejects.toMatchObject({
      code: 'disconnected',
    });
  });
});
