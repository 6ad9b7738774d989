/**
 * The register's card tender (renderer/src/register/devices/device-payments.ts `CardPaymentFlow`) over the real
 * device client (IPC transport); only the desktop app's preload — the edge the register cannot reach in Node — is a
 * fake that answers what each step needs.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChargeRequest } from '../../core/devices.ts';
import type { DeviceHostApi, DeviceOverview } from '../../core/device-transport.ts';
import type { SalePayment } from '../../core/index.ts';
import { createDeviceClient } from '../../renderer/src/platform/devices/index.ts';
import { CardPaymentFlow } from '../../renderer/src/register/devices/device-payments.ts';

const terminal: DeviceOverview = { device: 'terminal', mode: 'serial', status: { device: 'terminal', state: 'ready' }, path: '/dev/ttyUSB0' };

/** A preload whose `charge` answers the next of `answers` (a result, or an Error the way Electron's IPC rejects). */
function preloadCharging(answers: (() => Promise<unknown>)[]) {
  const requests: ChargeRequest[] = [];
  const host = {
    getStatus: () => Promise.resolve([terminal]),
    onStatus: () => () => undefined,
    charge: (request: ChargeRequest) => {
      requests.push(request);
      const next = answers.shift();
      return next ? next() : Promise.reject(new Error('[internal] no answer left in the test'));
    },
  } as unknown as DeviceHostApi;
  vi.stubGlobal('window', { registerDevices: host });
  return { client: createDeviceClient(), requests };
}

function flowWith(client: ReturnType<typeof createDeviceClient>) {
  const stored: SalePayment[] = [];
  const flow = new CardPaymentFlow(() => ({ client, currency: 'USD', complete: async (payment) => void stored.push(payment) }));
  /** Charge (or "Check again") for 1250¢, as the tender dialog's button does; answers the phase it ends in. */
  const charge = async () => {
    await flow.charge(1250);
    return flow.phase;
  };
  return { flow, stored, charge };
}

const approved = () => Promise.resolve({ outcome: 'approved', amountCents: 1250, brand: 'VISA', last4: '4242', authCode: 'A1B2C3' });
const lostAnswer = () => Promise.reject(new Error('[no_ack] no ACK after 4 transmissions'));
const portNotOpened = () => Promise.reject(new Error('[port_open_failed] the terminal could not be opened'));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('card tender at the register', () => {
  it('keeps the unknown payment through a check that never reached the terminal, and settles it under the same key', async () => {
    const { client, requests } = preloadCharging([
      lostAnswer,
      portNotOpened,
      () => Promise.reject(new Error('[bridge_unavailable] No hardware bridge connected')),
      approved,
    ]);
    const { flow, stored, charge } = flowWith(client);

    expect(await charge()).toBe('unknown');
    // "Check again" while the terminal cannot be asked: still unknown — never "failed", which would let the next
    // Charge start a second payment beside one that may have gone through.
    expect(await charge()).toBe('unknown');
    expect(flow.message).toContain('Could not ask the card terminal about the earlier payment');
    expect(await charge()).toBe('unknown');
    expect(await charge()).toBe('idle');
    expect(stored).toEqual([{ method: 'card', cardBrand: 'VISA', last4: '4242', authCode: 'A1B2C3' }]);
    expect(new Set(requests.map((r) => r.idempotencyKey)).size).toBe(1);
  });

  it('gives a new key after a failure that ends the attempt, and after a decline', async () => {
    const { client, requests } = preloadCharging([
      portNotOpened,
      () => Promise.resolve({ outcome: 'declined', amountCents: 1250, message: 'insufficient funds' }),
      approved,
    ]);
    const { flow, stored, charge } = flowWith(client);

    expect(await charge()).toBe('failed');
    expect(await charge()).toBe('declined');
    expect(flow.message).toBe('Card declined: insufficient funds');
    expect(await charge()).toBe('idle');
    expect(stored).toHaveLength(1);
    expect(new Set(requests.map((r) => r.idempotencyKey)).size).toBe(3);
  });

  it('after "start over" the next charge is a new payment', async () => {
    const { client, requests } = preloadCharging([lostAnswer, approved]);
    const { flow, charge } = flowWith(client);
    expect(await charge()).toBe('unknown');
    flow.startOver();
    expect(flow.phase).toBe('idle');
    await charge();
    expect(requests[0]!.idempotencyKey).not.toBe(requests[1]!.idempotencyKey);
  });
});
