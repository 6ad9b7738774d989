/**
 * The device API over Electron IPC: one `ipcMain.handle` per method on its own channel
 * (`devices:print`, `devices:open-drawer`, … — `ipcChannel` in core/device-transport.ts), each message validated by
 * `dispatchDeviceCall` with the method's zod schema, answered as an envelope `{ ok, result | error }` that the preload
 * unwraps. Calls from any frame other than the register's own top frame are refused. Status events go to the window
 * on `devices:status`.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { DEVICE_METHOD_NAMES, STATUS_CHANNEL, ipcChannel, type DeviceHostApi } from '../../core/device-transport.ts';
import { dispatchDeviceCall, type DeviceCallOutcome } from '../bridge/dispatch.ts';
import { isAppUrl } from './hardening.ts';

/** True when the call comes from the register page itself (not a sub-frame, not a foreign page). */
function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  return !!frame && frame.parent === null && isAppUrl(frame.url);
}

/** Registers one handler per device method; returns a function removing them and the status forwarding. */
export function registerDeviceIpc(ipcMain: IpcMain, host: DeviceHostApi, window: () => WebContents | undefined): () => void {
  for (const method of DEVICE_METHOD_NAMES) {
    ipcMain.handle(ipcChannel(method), async (event, params: unknown): Promise<DeviceCallOutcome> => {
      if (!isTrustedSender(event)) return { ok: false, error: { code: 'unauthorized', message: 'device calls are only accepted from the register' } };
      return dispatchDeviceCall(host, method, params);
    });
  }
  const unsubscribe = host.onStatus((status) => {
    const contents = window();
    if (contents && !contents.isDestroyed()) contents.send(STATUS_CHANNEL, status);
  });
  return () => {
    unsubscribe();
    for (const method of DEVICE_METHOD_NAMES) ipcMain.removeHandler(ipcChannel(method));
  };
}
