/**
 * Kitchen tickets from the register to two stations' printers through the whole device path: `printKitchenTickets`
 * (renderer) → the bridge client over WebSocket → the web hardware bridge in a process of its own → the kitchen
 * printer of each station (device settings `kitchenPrinters`) → a real socat pseudo-terminal → each station's printer
 * simulator, where the bytes are read back. The grill gets the grill ticket once and the cold station its own once —
 * also when the same send is handed over twice, and when the bridge is killed mid-queue (the cold printer off) and
 * started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import {
  addCheckLine,
  EMPTY_CHECK_BOOK,
  kitchenTicketJobs,
  newId,
  openCheck,
  sendCheckLines,
  type KitchenRouting,
  type OrderLine,
  type Stamp,
} from '../../core/index.ts';
import type { DeviceHostApi, DeviceSettings } from '../../core/device-transport.ts';
import { dispatchDeviceCall } from '../../electron/bridge/dispatch.ts';
import { startPrinterSimulator, type PrinterSimulator } from '../../electron/devices/simulators/printer-simulator.ts';
import { BridgeTransport } from '../../renderer/src/platform/devices/bridge-transport.ts';
import { printKitchenTickets, stationOfKitchenJob } from '../../renderer/src/register/devices/kitchen-job.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'kitchen-test-token-0123456789';

/** The browser's WebSocket as the register page has it: the bridge only accepts the register's origin. */
class RegisterPageWebSocket extends NodeWebSocket {
  constructor(url: string) {
    super(url, { origin: 'http://localhost:8787' });
  }
}

function dish(name: string, catalogItemId: string, quantity = 1): OrderLine {
  return {
    id: newId('orderLine'),
    catalogItemId,
    variationId: `var_${catalogItemId}`,
    kind: 'product',
    name,
    variationName: 'Regular',
    modifiers: [],
    quantity,
    unitPriceCents: 1000,
    grossCents: 1000 * quantity,
    discountCents: 0,
    netCents: 1000 * quantity,
    taxCents: 0,
    taxes: [],
  };
}

const at = (minute: number): Stamp => ({ at: new Date(Date.UTC(2026, 10, 28, 19, minute)).toISOString(), by: 'reg_bar' });

const routing: KitchenRouting = {
  stations: [
    { id: 'grill', name: 'Grill' },
    { id: 'cold', name: 'Cold' },
    { id: 'pastry-2', name: 'Pastry' },
  ],
  byItem: { itm_salad: 'cold', itm_tart: 'pastry-2' },
  byCategory: {},
  defaultStationId: 'grill',
};

describe('kitchen printers on the hardware bridge', () => {
  let dir: string;
  let grill: PrinterSimulator;
  let cold: PrinterSimulator;
  let bridge: ChildProcess | undefined;
  let client: BridgeTransport | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kitchen-printers-'));
    grill = await startPrinterSimulator({ dir: join(dir, 'grill') });
    cold = await startPrinterSimulator({ dir: join(dir, 'cold') });
    const settings: DeviceSettings = {
      printer: { mode: 'none' },
      terminal: { mode: 'none' },
      checkScanner: { mode: 'none' },
      kitchenPrinters: {
        grill: { mode: 'serial', serial: { path: grill.devicePath, baudRate: 9600, parity: 'none', dataBits: 8, stopBits: 1 } },
        cold: { mode: 'serial', serial: { path: cold.devicePath, baudRate: 9600, parity: 'none', dataBits: 8, stopBits: 1 } },
      },
    };
    await mkdir(join(dir, 'bridge', 'devices'), { recursive: true });
    await writeFile(join(dir, 'bridge', 'devices', 'devices.json'), JSON.stringify(settings));
    vi.stubGlobal('WebSocket', RegisterPageWebSocket);
    // The client stores the bridge address of its page; here nothing is kept.
    vi.stubGlobal('localStorage', { getItem: () => null, setItem: () => undefined });
  });

  afterEach(async () => {
    client?.configureBridge({ url: 'ws://127.0.0.1:1', token: '' });
    bridge?.kill('SIGKILL');
    await grill.stop();
    await cold.stop();
    vi.unstubAllGlobals();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts the bridge process and connects a register's bridge client to it. */
  async function startBridge(): Promise<BridgeTransport> {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/devices/support/kitchen-bridge.ts'), join(dir, 'bridge'), TOKEN], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    bridge = child;
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const { url } = JSON.parse(line) as { url: string };
    const transport = new BridgeTransport({ url, token: TOKEN });
    await firstValueFrom(transport.state$.pipe(filter((state) => state.connection === 'ready')));
    client = transport;
    return transport;
  }

  /** Kills the bridge like a power cut (SIGKILL: no close, the queues' locks left behind). */
  async function killBridge(): Promise<void> {
    const child = bridge!;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    bridge = undefined;
    client?.configureBridge({ url: 'ws://127.0.0.1:1', token: '' });
    client = undefined;
  }

  const dishes = (receipt: { lines: { text: string }[] }) => receipt.lines.map((l) => l.text).filter((t) => / x /.test(t));

  it('prints each station its own ticket once: the same send handed twice, and the bridge killed mid-queue', async () => {
    let book = EMPTY_CHECK_BOOK;
    const opened = openCheck(book, { kind: 'table', tableId: 'T4', name: 'Table 4', guests: 2, serverStaffId: 'stf_ana' }, at(0));
    book = opened.book;
    book = addCheckLine(book, opened.checkId, dish('Ribeye steak', 'itm_steak', 2), { seat: 1, course: 1 }, at(1));
    book = addCheckLine(book, opened.checkId, dish('Caesar salad', 'itm_salad'), { seat: 2, course: 1 }, at(1));
    const send = sendCheckLines(book, opened.checkId, at(2), { course: 1 });
    const jobs = kitchenTicketJobs(
      {
        kind: 'send',
        id: send.sendId,
        check: send.book.checks[opened.checkId]!,
        serverName: 'Ana',
        lines: send.lineIds.map((id) => send.book.lines[id]!),
        at: at(2).at,
        timeZone: 'UTC',
      },
      routing,
    );
    expect(jobs.map((job) => stationOfKitchenJob(job.jobId, routing.stations))).toEqual(['grill', 'cold']);

    // The cold station's printer is off: its ticket waits in its queue, the grill's prints.
    await cold.setPower(false);
    let register = await startBridge();
    const first = await printKitchenTickets(jobs, { stations: routing.stations, client: register });
    expect(first).toEqual({
      ok: true,
      tickets: [
        { jobId: `kt-${send.sendId}-grill`, stationId: 'grill', state: 'queued' },
        { jobId: `kt-${send.sendId}-cold`, stationId: 'cold', state: 'queued' },
      ],
    });
    await expect
      .poll(() => register.kitchenPrinters(), { timeout: 15_000 })
      .toEqual([
        expect.objectContaining({ stationId: 'grill', mode: 'serial', path: grill.devicePath, pendingJobs: 0 }),
        expect.objectContaining({ stationId: 'cold', mode: 'serial', path: cold.devicePath, pendingJobs: 1 }),
      ]);
    expect(grill.receipts).toHaveLength(1);

    // The check screen hands the same send again: nothing is queued twice.
    const again = await printKitchenTickets(jobs, { stations: routing.stations, client: register });
    expect(again.tickets.map((ticket) => ticket.state)).toEqual(['duplicate', 'duplicate']);

    // The bridge dies mid-queue; the cold printer comes back; the bridge starts again and prints what its queue held.
    await killBridge();
    expect(cold.receipts).toHaveLength(0);
    await cold.setPower(true);
    register = await startBridge();
    await expect
      .poll(() => register.kitchenPrinters(), { timeout: 15_000 })
      .toEqual([expect.objectContaining({ stationId: 'grill', pendingJobs: 0 }), expect.objectContaining({ stationId: 'cold', pendingJobs: 0 })]);
    // …and the register, restarted too, hands the send over once more: both tickets are known, none prints again.
    const afterRestart = await printKitchenTickets(jobs, { stations: routing.stations, client: register });
    expect(afterRestart.tickets.map((ticket) => ticket.state)).toEqual(['duplicate', 'duplicate']);
    expect((await register.kitchenPrinters()).map((printer) => printer.pendingJobs)).toEqual([0, 0]);

    expect(grill.receipts).toHaveLength(1);
    expect(cold.receipts).toHaveLength(1);
    expect(cold.torn).toHaveLength(0);
    expect(dishes(grill.receipts[0]!)).toEqual(['2 x Ribeye steak']);
    expect(dishes(cold.receipts[0]!)).toEqual(['1 x Caesar salad']);
    // Large type: the table and each line in ESC/POS double size (GS ! 0x11), the header in normal type.
    for (const [receipt, station, line] of [
      [grill.receipts[0]!, 'GRILL', '2 x Ribeye steak'],
      [cold.receipts[0]!, 'COLD', '1 x Caesar salad'],
    ] as const) {
      expect(receipt.lines[0]).toMatchObject({ text: station, widthScale: 1, heightScale: 1 });
      expect(receipt.lines.find((l) => l.text === 'Table 4')).toMatchObject({ widthScale: 2, heightScale: 2 });
      expect(receipt.lines.find((l) => l.text === line)).toMatchObject({ widthScale: 2, heightScale: 2 });
    }
  });

  it('names a station without a printer and a job for no station, and still hands the others over', async () => {
    const register = await startBridge();
    const job = (jobId: string) => ({ jobId, blocks: [{ kind: 'text' as const, text: 'Tart', doubleSize: true }] });
    const report = await printKitchenTickets([job('kt-snd_1-pastry-2'), job('receipt-1'), job('kt-snd_1-grill')], {
      stations: routing.stations,
      client: register,
    });
    expect(report.ok).toBe(false);
    expect(report.tickets).toEqual([
      {
        jobId: 'kt-snd_1-pastry-2',
        stationId: 'pastry-2',
        state: 'failed',
        code: 'station_not_configured',
        message: 'no kitchen printer is set up for station pastry-2',
      },
      { jobId: 'receipt-1', stationId: null, state: 'failed', code: 'unrouted', message: 'ticket receipt-1 names no kitchen station' },
      { jobId: 'kt-snd_1-grill', stationId: 'grill', state: 'queued' },
    ]);
    await expect
      .poll(() => register.kitchenPrinters(), { timeout: 15_000 })
      .toEqual([expect.objectContaining({ stationId: 'grill', pendingJobs: 0 }), expect.objectContaining({ stationId: 'cold', pendingJobs: 0 })]);
    expect(grill.receipts).toHaveLength(1);
    expect(cold.receipts).toHaveLength(0);
  });

  it('refuses settings that put two printers on one port, or a station id core/kitchen.ts would refuse', async () => {
    const host = {} as DeviceHostApi; // never reached: the parameters are refused first
    const serial = { mode: 'serial' as const, serial: { path: '/dev/ttyUSB1' } };
    const shared = await dispatchDeviceCall(host, 'saveSettings', {
      printer: serial,
      terminal: { mode: 'none' },
      checkScanner: { mode: 'none' },
      kitchenPrinters: { grill: { mode: 'simulator' }, bar: serial },
    });
    expect(shared).toEqual({
      ok: false,
      error: { code: 'invalid_params', message: 'Invalid kitchenPrinters.bar.serial.path: port /dev/ttyUSB1 is already used by printer' },
    });
    const badStation = await dispatchDeviceCall(host, 'printKitchen', {
      stationId: 'grill line',
      job: { jobId: 'kt-1-grill', blocks: [{ kind: 'cut' }] },
    });
    expect(badStation).toMatchObject({
      ok: false,
      error: { code: 'invalid_params', message: expect.stringMatching(/^Invalid stationId/) as string },
    });
  });
});
