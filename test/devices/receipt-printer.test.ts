/**
 * Receipt-printer driver against its simulator through a real socat pseudo-terminal pair: ESC/POS bytes
 * decoded back into text, styles and events; DLE EOT status; the persistent queue that prints every job exactly once
 * across paper-out, a power cut in the middle of a job, an unplugged cable and a process killed with SIGKILL.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeviceStatus, PrintJob } from '../../core/devices.ts';
import { ReceiptPrinter } from '../../electron/devices/escpos/receipt-printer.ts';
import { startPrinterSimulator, type PrinterSimulator } from '../../electron/devices/simulators/printer-simulator.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const receiptJob: PrintJob = {
  jobId: 'receipt-1001',
  blocks: [
    { kind: 'text', text: 'Café Müller', align: 'center', bold: true, doubleSize: true },
    { kind: 'text', text: 'Crème brûlée      4,50 €' },
    { kind: 'text', text: 'Total            12,00 €', align: 'right', bold: true, underline: true },
    { kind: 'barcode', symbology: 'EAN13', data: '400638133393' },
    { kind: 'barcode', symbology: 'CODE128', data: 'ORD-{1001}' },
    { kind: 'qr', data: 'https://pay.example/o/1001?é' },
    { kind: 'feed', lines: 2 },
    { kind: 'text', text: 'Merci !', align: 'center' },
    { kind: 'cut' },
  ],
  openDrawer: true,
};

function textJob(jobId: string, text: string): PrintJob {
  return { jobId, blocks: [{ kind: 'text', text }, { kind: 'cut' }] };
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('receipt printer over a pseudo-terminal', () => {
  let dir: string;
  let simulator: PrinterSimulator;
  let printer: ReceiptPrinter | undefined;
  const open = (): Promise<ReceiptPrinter> =>
    ReceiptPrinter.open({
      port: { path: simulator.devicePath, baudRate: 38400, parity: 'odd', stopBits: 2 },
      queueDir: join(dir, 'queue'),
      statusTimeoutMs: 500,
      retryIntervalMs: 50,
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'printer-test-'));
    simulator = await startPrinterSimulator({ dir, serial: { baudRate: 38400, parity: 'odd', stopBits: 2 } });
  });

  afterEach(async () => {
    await printer?.close();
    printer = undefined;
    await simulator.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a receipt that decodes back to its text, styles, barcodes, QR code, cut and drawer kick', async () => {
    printer = await open();
    const printed: string[] = [];
    printer.on('printed', ({ jobId }) => printed.push(jobId));
    expect(await printer.print(receiptJob)).toEqual({ queued: true, jobId: 'receipt-1001', duplicate: false });
    await printer.whenIdle();
    expect(printed).toEqual(['receipt-1001']);
    expect(simulator.receipts).toHaveLength(1);
    const receipt = simulator.receipts[0]!;
    expect(receipt.lines.map((line) => line.text)).toEqual(['Café Müller', 'Crème brûlée      4,50 €', 'Total            12,00 €', 'Merci !']);
    expect(receipt.lines[0]).toMatchObject({ align: 'center', bold: true, widthScale: 2, heightScale: 2 });
    expect(receipt.lines[1]).toMatchObject({ align: 'left', bold: false, underline: false, widthScale: 1 });
    expect(receipt.lines[2]).toMatchObject({ align: 'right', bold: true, underline: true });
    const events = receipt.events.filter((event) => event.type !== 'line');
    expect(events).toEqual([
      { type: 'barcode', symbology: 'EAN13', data: '4006381333931' },
      { type: 'barcode', symbology: 'CODE128', data: 'ORD-{1001}' },
      { type: 'qr', data: 'https://pay.example/o/1001?é', model: 2, moduleSize: 6, errorCorrection: 'M' },
      { type: 'feed', lines: 2 },
      { type: 'cut', partial: false },
    ]);
    expect(simulator.drawerKicks).toBe(1);
    expect(printer.status).toEqual({ device: 'printer', state: 'ready' });
  });

  it('refuses a job its barcode cannot carry before queueing it', async () => {
    printer = await open();
    const bad: PrintJob = { jobId: 'bad-ean', blocks: [{ kind: 'barcode', symbology: 'EAN13', data: '4006381333932' }] };
    await expect(printer.print(bad)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(printer.print({ jobId: '', blocks: [] } as PrintJob)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(printer.pendingJobs()).toEqual([]);
  });

  it('holds a job while out of paper and prints it once paper is back', async () => {
    simulator.setPaper('out');
    printer = await open();
    const statuses: DeviceStatus[] = [];
    printer.on('status', (status) => statuses.push(status));
    await printer.print(textJob('paper-1', 'waits for paper'));
    await until(() => statuses.some((status) => status.state === 'paper_out'), 'paper_out status');
    expect(printer.pendingJobs().map((job) => job.jobId)).toEqual(['paper-1']);
    expect(simulator.receipts).toHaveLength(0);

    simulator.setPaper('ok');
    await printer.whenIdle();
    expect(simulator.receipts.map((receipt) => receipt.text)).toEqual(['waits for paper']);
  });

  it('reports a cover open', async () => {
    simulator.setCover(true);
    printer = await open();
    expect(await printer.queryStatus()).toMatchObject({ coverOpen: true });
    expect(printer.status).toEqual({ device: 'printer', state: 'cover_open' });
    simulator.setCover(false);
    expect(await printer.queryStatus()).toMatchObject({ coverOpen: false, online: true, paperOut: false });
  });

  it('a printer switched off in the middle of a job prints it exactly once when back on', async () => {
    printer = await open();
    const printed: { jobId: string; attempts: number }[] = [];
    printer.on('printed', (event) => printed.push(event));
    simulator.powerOffAfter(3 * 3 + 20); // three status answers, then 20 bytes of the job
    await printer.print(textJob('cut-off-1', 'first line\nsecond line\nthird line'));
    await until(() => simulator.torn.length === 1, 'the torn page');
    expect(printer.pendingJobs()).toHaveLength(1);
    await until(() => printer!.status?.state === 'offline', 'offline status');
    await expect(printer.openDrawer()).rejects.toMatchObject({ code: 'printer_offline' });

    simulator.setPower(true);
    await printer.whenIdle();
    expect(printed).toEqual([{ jobId: 'cut-off-1', attempts: 2 }]);
    expect(simulator.receipts.map((receipt) => receipt.text)).toEqual(['first line\nsecond line\nthird line']);
    // Nothing more comes out later.
    await printer.print(textJob('after-1', 'next'));
    await printer.whenIdle();
    expect(simulator.receipts.map((receipt) => receipt.text)).toEqual(['first line\nsecond line\nthird line', 'next']);
  });

  it('keeps a job across a clean restart and never prints it twice', async () => {
    simulator.setPower(false);
    printer = await open();
    await printer.print(textJob('restart-1', 'survives a restart'));
    await printer.close();
    printer = undefined;
    expect(simulator.receipts).toHaveLength(0);

    simulator.setPower(true);
    printer = await open();
    expect(printer.pendingJobs().map((job) => job.jobId)).toEqual(['restart-1']);
    await printer.whenIdle();
    await printer.close();

    printer = await open();
    expect(printer.pendingJobs()).toEqual([]);
    expect(await printer.print(textJob('restart-1', 'survives a restart'))).toMatchObject({ duplicate: true });
    await printer.whenIdle();
    expect(simulator.receipts.map((receipt) => receipt.text)).toEqual(['survives a restart']);
  });

  it('keeps a job journaled by a process killed with SIGKILL', async () => {
    const queueDir = join(dir, 'queue');
    const job = textJob('crash-1', 'journaled before the crash');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'test/devices/support/enqueue-and-crash.ts'), queueDir, JSON.stringify(job)],
      { cwd: repoRoot },
    ).catch((error: { stdout: string; signal: string }) => {
      expect(error.signal).toBe('SIGKILL');
      return error;
    });
    expect(stdout).toBe('queued\n');
    expect(await readFile(join(queueDir, 'print-queue.lock'), 'utf8')).toMatch(/^\d+$/); // stale lock left behind

    printer = await open();
    await printer.whenIdle();
    expect(simulator.receipts.map((receipt) => receipt.text)).toEqual(['journaled before the crash']);
  });

  it('reconnects after the cable is pulled and prints what waited', async () => {
    printer = await open();
    const statuses: DeviceStatus[] = [];
    printer.on('status', (status) => statuses.push(status));
    await simulator.unplug();
    await printer.print(textJob('unplugged-1', 'printed after reconnect'));
    await until(() => statuses.some((status) => status.state === 'offline'), 'offline status');
    expect(printer.pendingJobs()).toHaveLength(1);

    const old = simulator;
    simulator = await startPrinterSimulator({ dir, serial: { baudRate: 38400, parity: 'odd', stopBits: 2 } });
    await old.stop();
    await printer.whenIdle();
    expect(simulator.receipts.map((receipt) => receipt.text)).toEqual(['printed after reconnect']);
  });
});
