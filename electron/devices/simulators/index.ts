/**
 * All three device simulators at once (for `npm start`, the demo and e2e tests): each on its own socat pty pair in
 * `dir`, with link names `printer`, `terminal`, `check-scanner` (drivers open those paths; `listPorts({ linkDirs:
 * [dir] })` lists them).
 */
import { startCheckScannerSimulator, type CheckScannerSimulator, type SimulatedCheck } from './check-scanner-simulator.ts';
import { startPrinterSimulator, type PrinterSimulator } from './printer-simulator.ts';
import { startTerminalSimulator, type TerminalSimulator } from './terminal-simulator.ts';

/** The running simulators. */
export interface DeviceSimulators {
  printer: PrinterSimulator;
  terminal: TerminalSimulator;
  checkScanner: CheckScannerSimulator;
  /** Device paths for the drivers. */
  paths: { printer: string; terminal: string; checkScanner: string };
  /** Stops all three and removes their pty pairs. */
  stop(): Promise<void>;
}

/** A few demo checks (valid routing numbers from the MICR samples) loaded into the scanner simulator's feeder. */
export const DEMO_CHECKS: SimulatedCheck[] = [
  { micr: 'c706001c d075901231d    456327c  0101   b0000039275b' },
  { micr: '     d123456780d   123-456-7c  5431             ' },
];

/**
 * Starts the printer, terminal and check-scanner simulators (baud 9600 8N1 unless `serial` says otherwise).
 * `dir` defaults to a fresh temporary directory per simulator. Throws `DeviceError('port_open_failed')` without socat.
 */
export async function startDeviceSimulators(
  options: { dir?: string; checks?: SimulatedCheck[]; processingMs?: number } = {},
): Promise<DeviceSimulators> {
  const where = options.dir ? { dir: options.dir } : {};
  const printer = await startPrinterSimulator(where);
  const terminal = await startTerminalSimulator({
    ...where,
    ...(options.processingMs !== undefined ? { processingMs: options.processingMs } : {}),
  }).catch(async (error: unknown) => {
    await printer.stop();
    throw error;
  });
  const checkScanner = await startCheckScannerSimulator({ ...where, checks: options.checks ?? DEMO_CHECKS }).catch(async (error: unknown) => {
    await Promise.all([printer.stop(), terminal.stop()]);
    throw error;
  });
  return {
    printer,
    terminal,
    checkScanner,
    paths: { printer: printer.devicePath, terminal: terminal.devicePath, checkScanner: checkScanner.devicePath },
    async stop() {
      await Promise.all([printer.stop(), terminal.stop(), checkScanner.stop()]);
    },
  };
}

export * from './check-scanner-simulator.ts';
export * from './printer-simulator.ts';
export * from './terminal-simulator.ts';
