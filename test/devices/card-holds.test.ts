/**
 * Card holds on the terminal — pre-authorisation, incremental authorisation, tip adjust, capture and release — driver
 * against simulator through a real socat pseudo-terminal pair: the frames on the wire, the capture bounded by the hold
 * and the tip tolerance, declines and timeouts as results, and a capture retried after a lost answer or a register
 * crash taken once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CardTerminal } from '../../electron/devices/ecr/card-terminal.ts';
import { encodeFrame } from '../../electron/devices/ecr/frame.ts';
import { decodeRequest, encodeRequest, type EcrRequest } from '../../electron/devices/ecr/messages.ts';
import { startTerminalSimulator, type TerminalSimulator } from '../../electron/devices/simulators/terminal-simulator.ts';

const fast = { ackTimeoutMs: 500, responseTimeoutMs: 1500, statusTimeoutMs: 800, statusPollMs: 50, statusAttempts: 3 };

describe('card hold frames', () => {
  it('encodes each hold request as documented and reads it back', () => {
    const cases: [EcrRequest, string][] = [
      [{ type: 'preauth', ref: 'tab-7', amountCents: 5000, currency: 'USD' }, 'PREAUTH|tab-7|5000|USD'],
      [{ type: 'increment', ref: 'tab-7-i1', holdRef: 'tab-7', amountCents: 2500 }, 'INCREMENT|tab-7-i1|tab-7|2500'],
      [{ type: 'tip_adjust', ref: 'tab-7-t1', holdRef: 'tab-7', tipCents: 0 }, 'TIPADJUST|tab-7-t1|tab-7|0'],
      [{ type: 'capture', ref: 'tab-7-c', holdRef: 'tab-7', amountCents: 6400, tipCents: 1200 }, 'CAPTURE|tab-7-c|tab-7|6400|1200'],
      [{ type: 'capture', ref: 'tab-7-c', holdRef: 'tab-7', amountCents: 6400 }, 'CAPTURE|tab-7-c|tab-7|6400|'],
      [{ type: 'release', ref: 'tab-7-r', holdRef: 'tab-7' }, 'RELEASE|tab-7-r|tab-7'],
    ];
    for (const [request, payload] of cases) {
      expect(encodeRequest(request)).toBe(payload);
      expect(decodeRequest(payload)).toEqual(request);
    }
    // STX payload ETX LRC: the LRC is the XOR of every byte after STX up to and including ETX.
    const frame = encodeFrame('RELEASE|r|h');
    const lrc = [...frame.subarray(1, -1)].reduce((x, b) => x ^ b, 0);
    expect([frame[0], frame.at(-2), frame.at(-1)]).toEqual([0x02, 0x03, lrc]);
    for (const bad of ['CAPTURE|c|h|0|', 'CAPTURE|c|h|100', 'INCREMENT|i|h|-5', 'TIPADJUST|t|h|', 'PREAUTH|p|100|usd', 'RELEASE|r|h|x']) {
      expect(() => decodeRequest(bad)).toThrow(expect.objectContaining({ code: 'malformed_frame' }) as Error);
    }
  });
});

describe('card holds over a pseudo-terminal', () => {
  let simulator: TerminalSimulator;
  let terminal: CardTerminal;
  const open = () => CardTerminal.open({ port: { path: simulator.devicePath, baudRate: 19200, parity: 'even' }, ...fast });

  beforeEach(async () => {
    simulator = await startTerminalSimulator({ serial: { baudRate: 19200, parity: 'even' } });
    terminal = await open();
  });

  afterEach(async () => {
    await terminal.close();
    await simulator.stop();
  });

  it('holds a bar tab, raises the hold as the tab passes it, adjusts the tip and captures once', async () => {
    const hold = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'tab-1', amountCents: 5000, currency: 'USD' });
    expect(hold).toMatchObject({ outcome: 'approved', amountCents: 5000, brand: 'VISA', last4: '4242', ref: 'tab-1' });
    expect(hold.token).toMatch(/^tok_sim_[a-p]{24}$/);
    expect(simulator.hold('tab-1')).toMatchObject({ amountCents: 5000, state: 'held' });
    expect(simulator.charges()).toHaveLength(0); // a hold moves no money

    const raised = await terminal.hold({ action: 'increment', idempotencyKey: 'tab-1-inc-1', holdIdempotencyKey: 'tab-1', amountCents: 3000 });
    expect(raised).toMatchObject({ outcome: 'approved', amountCents: 8000, token: hold.token });
    const tip = await terminal.hold({ action: 'adjustTip', idempotencyKey: 'tab-1-tip-1', holdIdempotencyKey: 'tab-1', tipCents: 1500 });
    expect(tip).toMatchObject({ outcome: 'approved', amountCents: 1500 });

    const captured = await terminal.hold({ action: 'capture', idempotencyKey: 'tab-1-capture', holdIdempotencyKey: 'tab-1', amountCents: 7450 });
    expect(captured).toMatchObject({ outcome: 'approved', amountCents: 8950, token: hold.token });
    expect(simulator.hold('tab-1')).toMatchObject({ state: 'captured', capturedCents: 8950 });
    expect(simulator.requests.filter((r) => r.type !== 'status')).toEqual([
      { type: 'preauth', ref: 'tab-1', amountCents: 5000, currency: 'USD' },
      { type: 'increment', ref: 'tab-1-inc-1', holdRef: 'tab-1', amountCents: 3000 },
      { type: 'tip_adjust', ref: 'tab-1-tip-1', holdRef: 'tab-1', tipCents: 1500 },
      { type: 'capture', ref: 'tab-1-capture', holdRef: 'tab-1', amountCents: 7450 },
    ]);

    // The same capture again (a retry): answered from the terminal's memory by STATUS, no CAPTURE frame, same auth code.
    const again = await terminal.hold({ action: 'capture', idempotencyKey: 'tab-1-capture', holdIdempotencyKey: 'tab-1', amountCents: 7450 });
    expect(again).toEqual(captured);
    // Another capture of the same hold under a new key is declined: a hold is captured once.
    const second = await terminal.hold({ action: 'capture', idempotencyKey: 'tab-1-capture-2', holdIdempotencyKey: 'tab-1', amountCents: 100 });
    expect(second).toMatchObject({ outcome: 'declined', message: 'hold already captured' });
    expect(simulator.requests.filter((r) => r.type === 'capture')).toHaveLength(2);
    expect(simulator.captures('tab-1')).toHaveLength(1);
    expect(simulator.charges().map((c) => c.result.amountCents)).toEqual([8950]);
  });

  it('captures no more than the hold plus the tip tolerance: over it, the hold is raised first', async () => {
    await terminal.hold({ action: 'preauthorize', idempotencyKey: 'chk-2', amountCents: 10000, currency: 'EUR' });
    const overCheck = await terminal.hold({
      action: 'capture',
      idempotencyKey: 'chk-2-c1',
      holdIdempotencyKey: 'chk-2',
      amountCents: 10050,
      tipCents: 0,
    });
    expect(overCheck).toMatchObject({ outcome: 'declined', message: 'over the authorised amount: raise the hold first' });
    // 100.00 held: up to 120.00 with the tip (20 %); one cent more is declined and nothing is taken.
    const overTip = await terminal.hold({
      action: 'capture',
      idempotencyKey: 'chk-2-c2',
      holdIdempotencyKey: 'chk-2',
      amountCents: 9000,
      tipCents: 3001,
    });
    expect(overTip).toMatchObject({ outcome: 'declined', amountCents: 12001, message: 'over the tip tolerance: raise the hold first' });
    expect(simulator.hold('chk-2')).toMatchObject({ state: 'held' });
    await terminal.hold({ action: 'increment', idempotencyKey: 'chk-2-i', holdIdempotencyKey: 'chk-2', amountCents: 1000 });
    const captured = await terminal.hold({
      action: 'capture',
      idempotencyKey: 'chk-2-c3',
      holdIdempotencyKey: 'chk-2',
      amountCents: 9000,
      tipCents: 3001,
    });
    expect(captured).toMatchObject({ outcome: 'approved', amountCents: 12001 });
    // At the tolerance exactly, another hold captures without raising.
    await terminal.hold({ action: 'preauthorize', idempotencyKey: 'chk-3', amountCents: 2500, currency: 'EUR' });
    const atEdge = await terminal.hold({
      action: 'capture',
      idempotencyKey: 'chk-3-c',
      holdIdempotencyKey: 'chk-3',
      amountCents: 2500,
      tipCents: 500,
    });
    expect(atEdge).toMatchObject({ outcome: 'approved', amountCents: 3000 });
  });

  it('declines, cancels and times out a pre-authorisation by test amount, and a declined increment leaves the hold as it was', async () => {
    const declined = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'p-decline', amountCents: 3001, currency: 'USD' });
    expect(declined).toMatchObject({ outcome: 'declined', message: 'insufficient funds' });
    expect(declined.token).toBeUndefined();
    const cancelled = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'p-cancel', amountCents: 3003, currency: 'USD' });
    expect(cancelled.outcome).toBe('cancelled');
    const noCard = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'p-nocard', amountCents: 3004, currency: 'USD' });
    expect(noCard).toMatchObject({ outcome: 'timed_out', message: 'no card presented' });
    const capture = await terminal.hold({ action: 'capture', idempotencyKey: 'p-decline-c', holdIdempotencyKey: 'p-decline', amountCents: 3001 });
    expect(capture).toMatchObject({ outcome: 'declined', message: 'no such hold' });

    const hold = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'p-ok', amountCents: 4006, currency: 'USD' });
    expect(hold).toMatchObject({ outcome: 'approved', brand: 'MASTERCARD', last4: '5454' });
    const refused = await terminal.hold({ action: 'increment', idempotencyKey: 'p-ok-i', holdIdempotencyKey: 'p-ok', amountCents: 2001 });
    expect(refused).toMatchObject({ outcome: 'declined', amountCents: 4006, message: 'insufficient funds' });
    expect(simulator.hold('p-ok')).toMatchObject({ amountCents: 4006, state: 'held' });

    simulator.setHostReachable(false);
    const offline = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'p-offline', amountCents: 1000, currency: 'USD' });
    expect(offline).toMatchObject({ outcome: 'declined', message: 'host unreachable: a hold needs the card host' });
    expect(simulator.charges()).toHaveLength(0);
  });

  it('releases a hold once; a released hold is neither captured nor raised', async () => {
    await terminal.hold({ action: 'preauthorize', idempotencyKey: 'rel-1', amountCents: 6000, currency: 'USD' });
    const released = await terminal.hold({ action: 'release', idempotencyKey: 'rel-1-r', holdIdempotencyKey: 'rel-1' });
    expect(released).toMatchObject({ outcome: 'approved', amountCents: 6000 });
    expect(simulator.hold('rel-1')).toMatchObject({ state: 'released' });
    const captured = await terminal.hold({ action: 'capture', idempotencyKey: 'rel-1-c', holdIdempotencyKey: 'rel-1', amountCents: 6000 });
    expect(captured).toMatchObject({ outcome: 'declined', message: 'hold already released' });
    const raised = await terminal.hold({ action: 'increment', idempotencyKey: 'rel-1-i', holdIdempotencyKey: 'rel-1', amountCents: 100 });
    expect(raised).toMatchObject({ outcome: 'declined', message: 'hold already released' });
    expect(await terminal.hold({ action: 'release', idempotencyKey: 'rel-1-r2', holdIdempotencyKey: 'rel-1' })).toMatchObject({
      outcome: 'declined',
    });
    expect(simulator.charges()).toHaveLength(0);
  });

  it('resolves a lost capture answer by STATUS: taken once', async () => {
    await terminal.hold({ action: 'preauthorize', idempotencyKey: 'lost-1', amountCents: 2000, currency: 'USD' });
    simulator.dropNextResponses(1);
    const captured = await terminal.hold({
      action: 'capture',
      idempotencyKey: 'lost-1-c',
      holdIdempotencyKey: 'lost-1',
      amountCents: 2000,
      tipCents: 300,
    });
    expect(captured).toMatchObject({ outcome: 'approved', amountCents: 2300 });
    expect(simulator.requests.slice(-3).map((r) => r.type)).toEqual(['status', 'capture', 'status']);
    expect(simulator.captures('lost-1')).toHaveLength(1);
  });

  it('a capture whose answer was lost in a register crash is asked about, not taken again, by the restarted register', async () => {
    await terminal.hold({ action: 'preauthorize', idempotencyKey: 'crash-1', amountCents: 4500, currency: 'USD' });
    simulator.dropNextResponses(1);
    await terminal.close();
    terminal = await CardTerminal.open({ port: { path: simulator.devicePath, baudRate: 19200, parity: 'even' }, ...fast, responseTimeoutMs: 60_000 });
    const pending = terminal.hold({
      action: 'capture',
      idempotencyKey: 'crash-1-c',
      holdIdempotencyKey: 'crash-1',
      amountCents: 4500,
      tipCents: 700,
    });
    await vi.waitFor(() => expect(simulator.hold('crash-1')?.state).toBe('captured'), { timeout: 5000 });
    // The register dies while waiting for the RESULT (the terminal has taken the money, its answer never arrived).
    await terminal.close();
    await expect(pending).resolves.toMatchObject({ outcome: 'timed_out' });
    terminal = await open();
    const retried = await terminal.hold({
      action: 'capture',
      idempotencyKey: 'crash-1-c',
      holdIdempotencyKey: 'crash-1',
      amountCents: 4500,
      tipCents: 700,
    });
    expect(retried).toMatchObject({ outcome: 'approved', amountCents: 5200 });
    expect(simulator.requests.filter((r) => r.type === 'capture')).toHaveLength(1);
    expect(simulator.captures('crash-1')).toHaveLength(1);
    expect(simulator.charges().map((c) => c.result.amountCents)).toEqual([5200]);
  });

  it('a silent terminal leaves a pre-authorisation unknown; the same key later holds once', async () => {
    simulator.setOnline(false);
    const first = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'quiet-1', amountCents: 1200, currency: 'USD' });
    expect(first).toMatchObject({ outcome: 'timed_out' });
    expect(first.message).toMatch(/not reachable|outcome unknown/);
    simulator.setOnline(true);
    const second = await terminal.hold({ action: 'preauthorize', idempotencyKey: 'quiet-1', amountCents: 1200, currency: 'USD' });
    expect(second).toMatchObject({ outcome: 'approved', amountCents: 1200 });
    expect(simulator.requests.filter((r) => r.type === 'preauth')).toHaveLength(1);
  });

  it('refuses a hold request that fails its schema with a typed error', async () => {
    await expect(terminal.hold({ action: 'capture', idempotencyKey: 'x', holdIdempotencyKey: '', amountCents: 100 } as never)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(terminal.hold({ action: 'adjustTip', idempotencyKey: 'x', holdIdempotencyKey: 'h', tipCents: -1 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
