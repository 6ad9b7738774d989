/**
 * The wire contract of the two device transports: Electron IPC (one named channel per method) and the
 * web hardware bridge (WebSocket on 127.0.0.1). Both carry the methods of `DeviceApi` (core/devices.ts) plus the
 * few administrative methods of the register's Devices view (port list, settings, test print, status), each with a
 * zod schema for its parameters and its result. Every message is validated on both ends with these schemas.
 *
 * No I/O here: the renderer imports it for its bridge client, `electron/` for its handlers.
 */
import { z } from 'zod';
import {
  cardHoldRequestSchema,
  checkScanSchema,
  chargeRequestSchema,
  deviceStatusSchema,
  printJobSchema,
  serialSettingsSchema,
  terminalResultSchema,
  type DeviceApi,
} from './devices.ts';

/** The three store devices, in the order the Devices view lists them. */
export const DEVICE_KINDS = ['printer', 'terminal', 'checkScanner'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/**
 * How one device is reached: `simulator` (the pseudo-terminal simulator of `electron/devices/simulators`, for the
 * demo and tests), `serial` (a real port with `serial` settings), or `none` (not installed).
 */
export const deviceConfigSchema = z
  .strictObject({
    mode: z.enum(['simulator', 'serial', 'none']),
    serial: serialSettingsSchema.optional(),
  })
  .refine((config) => config.mode !== 'serial' || config.serial !== undefined, { message: 'serial settings are required', path: ['serial'] });
export type DeviceConfig = z.infer<typeof deviceConfigSchema>;

/** A kitchen station's id as core/kitchen.ts takes it (letters, digits, `-`, `_`; at most 24). */
export const stationIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,24}$/, { message: 'a station id is 1-24 letters, digits, - or _' });

/** The most kitchen printers one register drives. */
export const MAX_KITCHEN_PRINTERS = 16;

/**
 * The device settings of one register (kept by its Electron shell or its bridge, per machine). `kitchenPrinters`
 * maps a kitchen station id (core/kitchen.ts) to the printer its tickets print on; each printer has a port of its
 * own — no two devices on one serial path (a kitchen whose grill and fryer share a printer routes both to one station).
 */
export const deviceSettingsSchema = z
  .strictObject({
    printer: deviceConfigSchema,
    terminal: deviceConfigSchema,
    checkScanner: deviceConfigSchema,
    kitchenPrinters: z
      .record(stationIdSchema, deviceConfigSchema)
      .refine((printers) => Object.keys(printers).length <= MAX_KITCHEN_PRINTERS, { message: `at most ${MAX_KITCHEN_PRINTERS} kitchen printers` })
      .default({}),
  })
  .superRefine((settings, context) => {
    const seen = new Map<string, string>();
    const configs: [string[], DeviceConfig][] = [
      ...DEVICE_KINDS.map((kind): [string[], DeviceConfig] => [[kind], settings[kind]]),
      ...Object.entries(settings.kitchenPrinters).map(([station, config]): [string[], DeviceConfig] => [['kitchenPrinters', station], config]),
    ];
    for (const [path, config] of configs) {
      if (config.mode !== 'serial' || !config.serial) continue;
      const other = seen.get(config.serial.path);
      if (other !== undefined) {
        context.addIssue({ code: 'custom', path: [...path, 'serial', 'path'], message: `port ${config.serial.path} is already used by ${other}` });
      } else seen.set(config.serial.path, path.join('.'));
    }
  });
export type DeviceSettings = z.infer<typeof deviceSettingsSchema>;

/** One serial port found on the machine (see `listPorts` in electron/devices). */
export const portInfoSchema = z.strictObject({
  path: z.string().max(512),
  source: z.enum(['serialport', 'dev-scan', 'link']),
  manufacturer: z.string().max(200).optional(),
  serialNumber: z.string().max(200).optional(),
  vendorId: z.string().max(20).optional(),
  productId: z.string().max(20).optional(),
  target: z.string().max(512).optional(),
});
export type PortInfo = z.infer<typeof portInfoSchema>;

/** What a device is right now: its mode, its last status, and the port it uses (when any). */
export const deviceOverviewSchema = z.strictObject({
  device: z.enum(DEVICE_KINDS),
  mode: z.enum(['simulator', 'serial', 'none']),
  status: deviceStatusSchema,
  path: z.string().max(512).optional(),
});
export type DeviceOverview = z.infer<typeof deviceOverviewSchema>;

/** What a kitchen printer is right now (`kitchenPrinters` answers one per configured station). */
export const kitchenPrinterOverviewSchema = z.strictObject({
  stationId: stationIdSchema,
  mode: z.enum(['simulator', 'serial', 'none']),
  status: deviceStatusSchema,
  path: z.string().max(512).optional(),
  /** Tickets journaled and not yet printed. */
  pendingJobs: z.int().min(0),
});
export type KitchenPrinterOverview = z.infer<typeof kitchenPrinterOverviewSchema>;

/** A kitchen ticket for one station's printer (`printJob.jobId` is the ticket's idempotency key). */
export const kitchenPrintRequestSchema = z.strictObject({ stationId: stationIdSchema, job: printJobSchema });
export type KitchenPrintRequest = z.infer<typeof kitchenPrintRequestSchema>;

const noParams = z.strictObject({}).optional();
const refundRequestSchema = z.strictObject({ ...chargeRequestSchema.shape, token: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/) });

/**
 * Every method of both transports: parameters and result schemas. The IPC channel of a method is
 * `devices:<kebab-case name>` (see `ipcChannel`); the bridge names it in `method`.
 */
export const DEVICE_METHODS = {
  print: { params: printJobSchema, result: z.strictObject({ queued: z.literal(true) }) },
  openDrawer: { params: noParams, result: z.null() },
  charge: { params: chargeRequestSchema, result: terminalResultSchema },
  refund: { params: refundRequestSchema, result: terminalResultSchema },
  scanCheck: { params: noParams, result: checkScanSchema },
  listPorts: { params: noParams, result: z.array(portInfoSchema).max(500) },
  getSettings: { params: noParams, result: deviceSettingsSchema },
  saveSettings: { params: deviceSettingsSchema, result: z.array(deviceOverviewSchema) },
  getStatus: { params: noParams, result: z.array(deviceOverviewSchema) },
  testPrint: { params: noParams, result: z.strictObject({ queued: z.literal(true) }) },
  cardHold: { params: cardHoldRequestSchema, result: terminalResultSchema },
  printKitchen: { params: kitchenPrintRequestSchema, result: z.strictObject({ queued: z.literal(true), duplicate: z.boolean() }) },
  kitchenPrinters: { params: noParams, result: z.array(kitchenPrinterOverviewSchema).max(MAX_KITCHEN_PRINTERS) },
} as const;
export type DeviceMethod = keyof typeof DEVICE_METHODS;
export const DEVICE_METHOD_NAMES = Object.keys(DEVICE_METHODS) as DeviceMethod[];

/** The IPC channel of a method, e.g. `openDrawer` → `devices:open-drawer`. */
export function ipcChannel(method: DeviceMethod): string {
  return `devices:${method.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
/** The IPC channel on which the main process pushes `DeviceStatus` events. */
export const STATUS_CHANNEL = 'devices:status';

/**
 * The API a device host serves: the `DeviceApi` of core/devices.ts plus the Devices view's administrative methods.
 * Filled by the Electron preload (`window.registerDevices`) and by the bridge client.
 */
export interface DeviceHostApi extends DeviceApi {
  listPorts(): Promise<PortInfo[]>;
  getSettings(): Promise<DeviceSettings>;
  saveSettings(settings: DeviceSettings): Promise<DeviceOverview[]>;
  getStatus(): Promise<DeviceOverview[]>;
  /** Prints a short test page (with a QR code) on the receipt printer. */
  testPrint(): Promise<{ queued: true }>;
  /**
   * Queues a kitchen ticket on its station's printer (journaled before this resolves). `duplicate`: a job with this id
   * was queued or printed before, and is not printed again.
   */
  printKitchen(request: KitchenPrintRequest): Promise<{ queued: true; duplicate: boolean }>;
  /** The kitchen printers of this register: station, mode, status, port, tickets waiting. */
  kitchenPrinters(): Promise<KitchenPrinterOverview[]>;
}

/** A failed call: `code` is a transport code or a driver `DeviceError` code (e.g. `printer_offline`). */
export const deviceCallErrorSchema = z.strictObject({ code: z.string().min(1).max(64), message: z.string().max(500) });
export type DeviceCallError = z.infer<typeof deviceCallErrorSchema>;

/* ── the web hardware bridge's WebSocket messages (JSON text frames) ── */

/** First message of a connection: the pairing token (the bridge closes the socket with 4401 on a wrong one). */
export const bridgeHelloSchema = z.strictObject({ type: z.literal('hello'), token: z.string().min(1).max(200) });
/** A call. `id` is echoed in the response. */
export const bridgeRequestSchema = z.strictObject({
  type: z.literal('request'),
  id: z.string().min(1).max(64),
  method: z.enum(DEVICE_METHOD_NAMES as [DeviceMethod, ...DeviceMethod[]]),
  params: z.unknown().optional(),
});
export const bridgeClientMessageSchema = z.discriminatedUnion('type', [bridgeHelloSchema, bridgeRequestSchema]);

/** Messages the bridge sends: `ready` after a good hello, call responses, pushed status events, and errors. */
export const bridgeServerMessageSchema = z.union([
  z.strictObject({ type: z.literal('ready'), devices: z.array(deviceOverviewSchema) }),
  z.strictObject({ type: z.literal('response'), id: z.string().max(64), ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ type: z.literal('response'), id: z.string().max(64), ok: z.literal(false), error: deviceCallErrorSchema }),
  z.strictObject({ type: z.literal('status'), status: deviceStatusSchema }),
  /** An error that belongs to no request (a frame that was not JSON or not a known message). */
  z.strictObject({ type: z.literal('error'), error: deviceCallErrorSchema }),
]);
export type BridgeServerMessage = z.infer<typeof bridgeServerMessageSchema>;

/** WebSocket close codes of the bridge. */
export const BRIDGE_CLOSE = { unauthorized: 4401, helloTimeout: 4408, shuttingDown: 1001 } as const;

/** Re-exported for transports that only need the status type. */
