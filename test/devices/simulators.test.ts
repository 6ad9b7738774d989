/**
 * The three simulators started together (as `npm start` and the e2e tests do), found by `listPorts`, and driven
 * through the public entry point `electron/devices/index.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardTerminal, CheckScanner, listPorts, ReceiptPrinter, startDeviceSimulators, type DeviceSimulators } from '../../electron/devices/index.ts';

describe('device simulators together', () => {
  let dir: string;
  let simulators: DeviceSimulators;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'devices-'));
    simulators = await startDeviceSimulators({ dir: join(dir, 'ports') });
  });

  afterAll(async () => {
    await simulators.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the simulator ports and serves all three drivers', async () => {
    const ports = await listPorts({ linkDirs: [join(dir, 'ports')] });
    const links = ports.filter((port) => port.source === 'link').map((port) => port.path);
    expect(links).toEqual(expect.arrayContaining(Object.values(simulators.paths)));
    expect(ports.find((port) => port.path === simulators.paths.printer)?.target).toMatch(/^\/dev\/pts\/\d+$/);

    const printer = await ReceiptPrinter.open({ port: { path: simulators.paths.printer }, queueDir: join(dir, 'queue'), retryIntervalMs: 50 });
    const terminal = await CardTerminal.open({ port: { path: simulators.paths.terminal } });
    const scanner = await CheckScanner.open({ port: { path: simulators.paths.checkScanner } });
    try {
      await printer.print({ jobId: 'demo-1', blocks: [{ kind: 'text', text: 'Demo', bold: true }] });
      await printer.whenIdle();
      expect(simulators.printer.receipts.map((receipt) => receipt.text)).toEqual(['Demo']);
      expect(await terminal.charge({ idempotencyKey: 'demo-sale', amountCents: 999, currency: 'USD' })).toMatchObject({ outcome: 'approved' });
      expect(await scanner.scanCheck()).toMatchObject({ routingNumber: '075901231', amountCents: 39275 });
    } finally {
      await Promise.all([printer.close(), terminal.close(), scanner.close()]);
    }
  });
});
