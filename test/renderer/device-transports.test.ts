import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeviceStatus } from '../../core/devices.ts';
import type { DeviceHostApi, DeviceOverview } from '../../core/device-transport.ts';
import { BridgeTransport, createDeviceClient, DeviceCallFailure, IpcTransport } from '../../renderer/src/platform/devices/index.ts';

const printer: DeviceOverview = { device: 'printer', mode: 'simulator', status: { device: 'printer', state: 'simulated' } };
const terminal: DeviceOverview = { device: 'terminal', mode: 'serial', status: { device: 'terminal', state: 'ready' }, path: '/dev/ttyUSB0' };

/** A fake `window.registerDevices`: every method answers what `answers` holds (anything, as a buggy preload might). */
function fakePreload(answers: Partial<Record<keyof DeviceHostApi, () => Promise<unknown>>>) {
  let statusListener: ((status: DeviceStatus) => void) | undefined;
  const reject = () => Promise.reject(new Error('[device_not_configured] not answered by this fake'));
  const host = {
    print: answers.print ?? reject,
    openDrawer: answers.openDrawer ?? reject,
    charge: answers.charge ?? reject,
    refund: answers.refund ?? reject,
    scanCheck: answers.scanCheck ?? reject,
    listPorts: answers.listPorts ?? reject,
    getSettings: answers.getSettings ?? reject,
    saveSettings: answers.saveSettings ?? reject,
    getStatus: answers.getStatus ?? (() => Promise.resolve([printer, terminal])),
    testPrint: answers.testPrint ?? reject,
    onStatus: (listener: (status: DeviceStatus) => void) => {
      statusListener = listener;
      return () => undefined;
    },
  } as unknown as DeviceHostApi;
  return { host, push: (status: unknown) => statusListener?.(status as DeviceStatus) };
}

/** The client the factory picks for a page whose preload exposed `host`. */
function ipcClient(host: DeviceHostApi) {
  vi.stubGlobal('window', { registerDevices: host });
  const client = createDeviceClient();
  expect(client).toBeInstanceOf(IpcTransport);
  return client;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('IPC device transport (window.registerDevices)', () => {
  it('refuses an answer of the wrong shape with a malformed_message failure', async () => {
    const { host } = fakePreload({
      getStatus: () => Promise.resolve([{ device: 'printer', mode: 'laser', status: { device: 'printer', state: 'ready' } }]),
      charge: () => Promise.resolve({ outcome: 'approved', amountCents: 1250, last4: '42', pan: '4111111111111111' }),
      openDrawer: () => Promise.resolve({ opened: true }),
    });
    const client = ipcClient(host);
    const failure = await client.getStatus().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeviceCallFailure);
    expect(failure).toMatchObject({ code: 'malformed_message', message: 'the desktop app answered an invalid getStatus result' });
    await expect(client.charge({ idempotencyKey: 'tnd_1', amountCents: 1250, currency: 'USD' })).rejects.toMatchObject({ code: 'malformed_message' });
    await expect(client.openDrawer()).rejects.toMatchObject({ code: 'malformed_message' });
    // The bad status answer at start-up left no devices behind.
    expect(client.state$.value).toMatchObject({ transport: 'electron', connection: 'ready', devices: [] });
  });

  it('passes a good answer through and keeps the device state', async () => {
    const approved = { outcome: 'approved', amountCents: 1250, brand: 'visa', last4: '4242', authCode: 'A1B2C3', entryMode: 'chip' };
    const { host } = fakePreload({
      charge: () => Promise.resolve(approved),
      openDrawer: () => Promise.resolve(undefined),
      print: () => Promise.resolve({ queued: true }),
    });
    const client = ipcClient(host);
    await expect(client.charge({ idempotencyKey: 'tnd_1', amountCents: 1250, currency: 'USD' })).resolves.toEqual(approved);
    await expect(client.openDrawer()).resolves.toBeUndefined();
    await expect(client.getStatus()).resolves.toEqual([printer, terminal]);
    await vi.waitFor(() => expect(client.state$.value.devices).toEqual([printer, terminal]));
    expect(client.isReady).toBe(true);
  });

  it('turns a preload error into the driver code it carries', async () => {
    const { host } = fakePreload({
      print: () => Promise.reject(new Error("Error invoking remote method 'devices:print': Error: [printer_offline] the printer does not answer")),
    });
    const client = ipcClient(host);
    await expect(client.print({ lines: [] } as never)).rejects.toMatchObject({ code: 'printer_offline', message: 'the printer does not answer' });
  });

  it('applies a well-formed status event and ignores a malformed one', async () => {
    const { host, push } = fakePreload({});
    const client = ipcClient(host);
    await vi.waitFor(() => expect(client.state$.value.devices).toHaveLength(2));
    const heard: DeviceStatus[] = [];
    client.onStatus((status) => heard.push(status));
    push({ device: 'printer', state: 'on_fire' });
    push({ device: 'printer', state: 'paper_out', detail: 'roll empty' });
    expect(heard).toEqual([{ device: 'printer', state: 'paper_out', detail: 'roll empty' }]);
    expect(client.device('printer')?.status).toEqual({ device: 'printer', state: 'paper_out', detail: 'roll empty' });
  });
});

describe('device client factory', () => {
  it('picks the hardware bridge when there is no preload, unpaired until a token is given', async () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('location', { hash: '', pathname: '/', search: '' });
    vi.stubGlobal('localStorage', { getItem: () => null, setItem: () => undefined });
    const client = createDeviceClient();
    expect(client).toBeInstanceOf(BridgeTransport);
    expect(client.state$.value).toMatchObject({ transport: 'bridge', connection: 'unpaired', url: 'ws://127.0.0.1:8790' });
    await expect(client.openDrawer()).rejects.toMatchObject({ code: 'bridge_unavailable', message: 'Not paired with a hardware bridge' });
  });
});
