/**
 * The desktop register's preload: exposes ONE object,
 * `window.registerDevices`, through `contextBridge` — one named IPC channel per device method, the object checked
 * with `satisfies DeviceHostApi`. Nothing else of Electron or Node reaches the page. The main process validates every
 * message; errors cross the bridge as `Error('[code] message')` (the renderer's device client parses the code).
 *
 * Runs sandboxed: bundled to one CommonJS file whose only external import is `electron`.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { CardHoldRequest, ChargeRequest, CheckScan, DeviceStatus, PrintJob, TerminalResult } from '../../core/devices.ts';
import type {
  DeviceHostApi,
  DeviceOverview,
  DeviceSettings,
  KitchenPrinterOverview,
  KitchenPrintRequest,
  PortInfo,
} from '../../core/device-transport.ts';

/* The channel names are spelled out (not imported) so the sandboxed bundle stays free of zod and core. */
const STATUS_CHANNEL = 'devices:status';

type Envelope = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

async function invoke<T>(channel: string, params?: unknown): Promise<T> {
  const answer = (await ipcRenderer.invoke(channel, params)) as Envelope;
  if (!answer || typeof answer !== 'object') throw new Error('[internal] no answer from the device host');
  if (!answer.ok) throw new Error(`[${answer.error.code}] ${answer.error.message}`);
  return answer.result as T;
}

const registerDevices = {
  print: (job: PrintJob) => invoke<{ queued: true }>('devices:print', job),
  openDrawer: async () => {
    await invoke<null>('devices:open-drawer');
  },
  charge: (request: ChargeRequest) => invoke<TerminalResult>('devices:charge', request),
  refund: (request: ChargeRequest & { token: string }) => invoke<TerminalResult>('devices:refund', request),
  scanCheck: () => invoke<CheckScan>('devices:scan-check'),
  listPorts: () => invoke<PortInfo[]>('devices:list-ports'),
  getSettings: () => invoke<DeviceSettings>('devices:get-settings'),
  saveSettings: (settings: DeviceSettings) => invoke<DeviceOverview[]>('devices:save-settings', settings),
  getStatus: () => invoke<DeviceOverview[]>('devices:get-status'),
  testPrint: () => invoke<{ queued: true }>('devices:test-print'),
  cardHold: (request: CardHoldRequest) => invoke<TerminalResult>('devices:card-hold', request),
  printKitchen: (request: KitchenPrintRequest) => invoke<{ queued: true; duplicate: boolean }>('devices:print-kitchen', request),
  kitchenPrinters: () => invoke<KitchenPrinterOverview[]>('devices:kitchen-printers'),
  onStatus: (listener: (status: DeviceStatus) => void) => {
    const forward = (_event: unknown, status: DeviceStatus) => listener(status);
    ipcRenderer.on(STATUS_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(STATUS_CHANNEL, forward);
    };
  },
} satisfies DeviceHostApi;

contextBridge.exposeInMainWorld('registerDevices', registerDevices);
