/**
 * The page's device client, chosen ONCE at start-up: `IpcTransport` when the Electron preload put
 * `window.registerDevices` there, else `BridgeTransport` (the web hardware bridge). One contract
 * (`DeviceClient`, core/device-transport.ts), two implementations — nothing branches on the transport at call time.
 */
import { DeviceClient } from './device-client.ts';
import { BridgeTransport, adoptTokenFromUrl } from './bridge-transport.ts';
import { IpcTransport } from './ipc-transport.ts';

export { DeviceCallFailure, DeviceClient, type DeviceClientState } from './device-client.ts';
export { BridgeTransport } from './bridge-transport.ts';
export { IpcTransport } from './ipc-transport.ts';

/**
 * A new device client for this page: over IPC when `window.registerDevices` is present, else over the hardware bridge
 * (after taking a `#bridge-token=…` from the address). Use `getDeviceClient()` in the app; this is for start-up and tests.
 */
export function createDeviceClient(): DeviceClient {
  const host = window.registerDevices;
  if (host) return new IpcTransport(host);
  adoptTokenFromUrl();
  return new BridgeTransport();
}

let client: DeviceClient | undefined;

/** The page's device client (created on first use by `createDeviceClient`). */
export function getDeviceClient(): DeviceClient {
  client ??= createDeviceClient();
  return client;
}
