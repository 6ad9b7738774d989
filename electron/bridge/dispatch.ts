/**
 * One dispatcher for both transports: the Electron IPC handlers and the WebSocket bridge hand it a
 * method name and the raw, untrusted parameters; it validates them with the method's zod schema
 * (core/device-transport.ts), calls the host, validates the result too, and answers a plain envelope — never throws,
 * so a malformed message can only ever produce an error answer.
 */
import { isDeviceError } from '../devices/errors.ts';
import { DEVICE_METHODS, type DeviceCallError, type DeviceHostApi, type DeviceMethod } from '../../core/device-transport.ts';

/** The answer to one call. */
export type DeviceCallOutcome = { ok: true; result: unknown } | { ok: false; error: DeviceCallError };

/** True for a known method name (own property of the method table). */
export function isDeviceMethod(name: unknown): name is DeviceMethod {
  return typeof name === 'string' && Object.hasOwn(DEVICE_METHODS, name);
}

function fail(code: string, message: string): DeviceCallOutcome {
  return { ok: false, error: { code, message: message.slice(0, 500) } };
}

/**
 * Validates and runs one call on `host`. Errors: `unknown_method`, `invalid_params` (naming the first bad field),
 * a driver's `DeviceError` code (e.g. `printer_offline`, `port_open_failed`), or `internal` for anything else.
 */
export async function dispatchDeviceCall(host: DeviceHostApi, method: unknown, params: unknown): Promise<DeviceCallOutcome> {
  if (!isDeviceMethod(method)) return fail('unknown_method', `unknown method ${JSON.stringify(String(method)).slice(0, 80)}`);
  const spec = DEVICE_METHODS[method];
  const parsed = spec.params.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'params';
    return fail('invalid_params', `Invalid ${where}: ${issue?.message ?? 'invalid'}`);
  }
  let result: unknown;
  try {
    result = await call(host, method, parsed.data);
  } catch (error) {
    if (isDeviceError(error)) return fail(error.code, error.message);
    return fail('internal', error instanceof Error ? error.message : String(error));
  }
  const checked = spec.result.safeParse(result ?? null);
  if (!checked.success) return fail('internal', `the device answered an invalid ${method} result`);
  return { ok: true, result: checked.data };
}

async function call(host: DeviceHostApi, method: DeviceMethod, params: unknown): Promise<unknown> {
  // Each branch narrows `params` to what its schema produced.
  switch (method) {
    case 'print':
      return host.print(params as Parameters<DeviceHostApi['print']>[0]);
    case 'openDrawer':
      await host.openDrawer();
      return null;
    case 'charge':
      return host.charge(params as Parameters<DeviceHostApi['charge']>[0]);
    case 'refund':
      return host.refund(params as Parameters<DeviceHostApi['refund']>[0]);
    case 'scanCheck':
      return host.scanCheck();
    case 'listPorts':
      return host.listPorts();
    case 'getSettings':
      return host.getSettings();
    case 'saveSettings':
      return host.saveSettings(params as Parameters<DeviceHostApi['saveSettings']>[0]);
    case 'getStatus':
      return host.getStatus();
    case 'testPrint':
      return host.testPrint();
    case 'cardHold':
      return host.cardHold(params as Parameters<DeviceHostApi['cardHold']>[0]);
    case 'printKitchen':
      return host.printKitchen(params as Parameters<DeviceHostApi['printKitchen']>[0]);
    case 'kitchenPrinters':
      return host.kitchenPrinters();
  }
}
