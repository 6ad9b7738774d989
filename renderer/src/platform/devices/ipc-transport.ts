/**
 * The desktop app's device transport: the Electron preload's `window.registerDevices` (electron/preload/preload.ts),
 * one IPC channel per method. The main process validates what it receives; this side validates what comes back — every
 * result with the method's zod schema (in `DeviceClient`) and every pushed status event with `deviceStatusSchema` —
 * so an answer of the wrong shape is a `DeviceCallFailure('malformed_message')`, never trusted.
 */
import { deviceStatusSchema } from '../../../../core/devices.ts';
import type { DeviceHostApi, DeviceMethod } from '../../../../core/device-transport.ts';
import { DeviceCallFailure, DeviceClient } from './device-client.ts';

/** The Electron preload's object (electron/preload/preload.ts). */
declare global {
  interface Window {
    registerDevices?: DeviceHostApi;
  }
}

/** Parses the `[code] message` form in which the preload's errors cross the context bridge. */
function failureFromIpc(error: unknown): DeviceCallFailure {
  const text = error instanceof Error ? error.message : String(error);
  const match = /\[([a-z_]+)\] (.*)$/s.exec(text);
  return match ? new DeviceCallFailure(match[1]!, match[2]!) : new DeviceCallFailure('internal', text);
}

/** Device calls over Electron IPC. Always `connection: 'ready'`: the devices run in the app itself. */
export class IpcTransport extends DeviceClient {
  readonly transport = 'electron';
  protected readonly peerName = 'the desktop app';
  readonly #host: DeviceHostApi;

  /** `host` is the preload's `window.registerDevices`. */
  constructor(host: DeviceHostApi) {
    super({ transport: 'electron', connection: 'ready', devices: [] });
    this.#host = host;
    host.onStatus((status: unknown) => {
      const checked = deviceStatusSchema.safeParse(status);
      if (checked.success) this.onStatusEvent(checked.data);
    });
    void this.refreshStatus();
  }

  protected async send(method: DeviceMethod, params: unknown): Promise<unknown> {
    const call = this.#host[method] as ((params?: unknown) => Promise<unknown>) | undefined;
    if (typeof call !== 'function') throw new DeviceCallFailure('unknown_method', `the desktop app has no device method ${method}`);
    try {
      return await call.call(this.#host, params);
    } catch (error) {
      throw failureFromIpc(error);
    }
  }
}
