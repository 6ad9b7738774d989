/**
 * The web hardware bridge and its device simulators in their own process, as `npm run bridge` runs them beside the
 * register: the tests' process (server under test, browser driver) no longer shares its event loop with the bridge,
 * the drivers and the simulators, so a busy test process cannot delay a serial answer past a driver's timeout.
 *
 * `startDeviceHost(options)` forks `node --import tsx test/support/device-host-process.ts`, which calls
 * `startDeviceBridge(options)` (the function `electron/bridge/main.ts` calls) and answers a small RPC over the child's
 * IPC channel. The tests see the simulators through `RemoteDeviceSimulators`: the same fields as the in-process
 * `DeviceSimulators` for what they read (receipts, torn pages, drawer kicks, terminal requests and charges, scans) —
 * a copy the child keeps up to date (it sends what changed as it changes, and before answering any call) — and the
 * same methods for what they do (power the printer off, drop a terminal response, load a check, unplug…), which
 * answer a promise once the child has done it.
 *
 * The child dies with the tests: `close()` stops it (SIGKILL to its process group, socat included, if it does not exit
 * in time); if the tests' process ends first, the child sees its IPC channel close and exits. A child that dies on its
 * own is reported at once on stderr, and every later read, call or `close()` throws that error (exit code or signal,
 * and the child's last output).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DeviceBridgeOptions } from '../../electron/bridge/start-bridge.ts';
import type {
  CheckScannerSimulator,
  EcrRequest,
  PrinterSimulator,
  SimulatedReceipt,
  SimulatedTransaction,
  TerminalSimulator,
} from '../../electron/devices/index.ts';

/** What the bridge is started with: everything `startDeviceBridge` takes but the log (the child keeps it for errors). */
export type DeviceHostOptions = Omit<DeviceBridgeOptions, 'log'>;

/** The methods of each simulator a test may call through the host (each answers once the child has done it). */
export const REMOTE_CALLS = {
  printer: ['setPower', 'setPaper', 'setCover', 'powerOffAfter', 'unplug'],
  terminal: [
    'dropNextResponses',
    'corruptNextLrc',
    'nakNextFrames',
    'ignoreNextFrames',
    'setOnline',
    'setHostReachable',
    'presentCardOffline',
    'writeRaw',
    'unplug',
  ],
  checkScanner: ['load', 'emit', 'unplug'],
} as const satisfies {
  printer: readonly (keyof PrinterSimulator)[];
  terminal: readonly (keyof TerminalSimulator)[];
  checkScanner: readonly (keyof CheckScannerSimulator)[];
};

type Remote<T, K extends keyof T> = { [P in K]: T[P] extends (...args: infer A) => unknown ? (...args: A) => Promise<void> : never };

/** The receipt-printer simulator seen from the tests. */
interface RemotePrinter extends Remote<PrinterSimulator, (typeof REMOTE_CALLS.printer)[number]> {
  readonly receipts: readonly SimulatedReceipt[];
  readonly torn: readonly SimulatedReceipt[];
  readonly drawerKicks: number;
  readonly bytesReceived: number;
  readonly bytesDropped: number;
}

/** The card-terminal simulator seen from the tests. */
interface RemoteTerminal extends Remote<TerminalSimulator, (typeof REMOTE_CALLS.terminal)[number]> {
  readonly requests: readonly EcrRequest[];
  /** The simulator side's last ECR link events (`EcrLink.recentEvents`), for failure messages. */
  readonly recentLinkEvents: readonly string[];
  /** The bridge's card-terminal driver's last ECR link events, for failure messages. */
  readonly driverLinkEvents: readonly string[];
  transaction(ref: string): SimulatedTransaction | undefined;
  chargeCount(ref: string): number;
  charges(): SimulatedTransaction[];
}

/** The check-scanner simulator seen from the tests. */
interface RemoteCheckScanner extends Remote<CheckScannerSimulator, (typeof REMOTE_CALLS.checkScanner)[number]> {
  readonly scans: number;
}

/** The simulators of a device host (see the file's docstring). */
export interface RemoteDeviceSimulators {
  printer: RemotePrinter;
  terminal: RemoteTerminal;
  checkScanner: RemoteCheckScanner;
  /** Device paths the bridge's drivers opened. */
  paths: { printer: string; terminal: string; checkScanner: string };
}

/** A running device host. */
export interface DeviceHost {
  url: string;
  token: string;
  tokenFile: string;
  /** The child's process id (the leader of its process group). */
  pid: number;
  /** Undefined when the bridge runs without simulators (`simulators: 'never'`, or socat missing). */
  simulators: RemoteDeviceSimulators | undefined;
  /** Stops the bridge and the child; throws the child's crash if it died on its own. */
  close(): Promise<void>;
}

/** What changed in the simulators since the last state message (arrays: only the new items). */
export interface StateDelta {
  type: 'state';
  receipts: SimulatedReceipt[];
  torn: SimulatedReceipt[];
  requests: EcrRequest[];
  drawerKicks: number;
  bytesReceived: number;
  bytesDropped: number;
  scans: number;
  /** The card terminal's ECR link, both ends: their last events, whole. */
  terminalLink: { driver: string[]; simulator: string[] };
  /** Every transaction by reference, and the charges in the simulator's order: sent whole when one changed. */
  transactions?: { all: [string, SimulatedTransaction][]; charges: SimulatedTransaction[] };
}

/** Messages from the child. */
export type HostMessage =
  | { type: 'ready'; url: string; token: string; tokenFile: string; paths: RemoteDeviceSimulators['paths'] | undefined }
  | { type: 'failed'; error: string }
  | StateDelta
  | { type: 'reply'; id: number; error?: string };

/** Messages to the child. */
export type HostRequest =
  { type: 'call'; id: number; target: keyof typeof REMOTE_CALLS; method: string; args: unknown[] } | { type: 'stop'; id: number };

const CHILD = fileURLToPath(new URL('./device-host-process.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const OUTPUT_KEPT = 8_000;

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills the child's whole process group (the child and its socat processes); quiet when it is gone already. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Forks the device host and waits until its bridge listens. Rejects with the child's output if it cannot start. */
export async function startDeviceHost(options: DeviceHostOptions): Promise<DeviceHost> {
  const child = fork(CHILD, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // Its own process group, so that one kill also ends the socat processes of its simulators.
    detached: true,
  });
  live.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const running of live) killGroup(running);
    });
  }

  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  // The bridge's log (stdout) is kept for the crash message; DEVICE_HOST_LOG=1 shows it as it comes. Errors always show.
  child.stdout!.on('data', (chunk: Buffer) => {
    keep(chunk);
    if (process.env.DEVICE_HOST_LOG === '1') process.stderr.write(`[device host ${child.pid}] ${chunk.toString()}`);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    keep(chunk);
    process.stderr.write(`[device host ${child.pid}] ${chunk.toString()}`);
  });

  let stopping = false;
  let crash: Error | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      killGroup(child);
      if (!stopping) {
        crash = new Error(
          `the device host (bridge and simulators, pid ${child.pid}) exited unexpectedly with ${signal ? `signal ${signal}` : `code ${code}`}; its last output:\n${output}`,
        );
        console.error(crash.message);
      }
      for (const waiter of pending.values()) waiter.reject(crash ?? new Error('the device host stopped'));
      pending.clear();
      resolve();
    }),
  );
  const alive = () => {
    if (crash) throw crash;
  };

  const mirror = {
    receipts: [] as SimulatedReceipt[],
    torn: [] as SimulatedReceipt[],
    requests: [] as EcrRequest[],
    drawerKicks: 0,
    bytesReceived: 0,
    bytesDropped: 0,
    scans: 0,
    terminalLink: { driver: [] as string[], simulator: [] as string[] },
    transactions: new Map<string, SimulatedTransaction>(),
    charges: [] as SimulatedTransaction[],
  };

  const ready = new Promise<Extract<HostMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the device host did not start within ${START_TIMEOUT_MS} ms; its output:\n${output}`)),
      START_TIMEOUT_MS,
    );
    void exited.then(() => reject(crash ?? new Error('the device host exited before it was ready')));
    child.on('message', (message: HostMessage) => {
      switch (message.type) {
        case 'ready':
          clearTimeout(timer);
          resolve(message);
          break;
        case 'failed':
          clearTimeout(timer);
          reject(new Error(`the device host could not start the bridge: ${message.error}`));
          break;
        case 'state':
          mirror.receipts.push(...message.receipts);
          mirror.torn.push(...message.torn);
          mirror.requests.push(...message.requests);
          mirror.drawerKicks = message.drawerKicks;
          mirror.bytesReceived = message.bytesReceived;
          mirror.bytesDropped = message.bytesDropped;
          mirror.scans = message.scans;
          mirror.terminalLink = message.terminalLink;
          if (message.transactions) {
            mirror.transactions = new Map(message.transactions.all);
            mirror.charges = message.transactions.charges;
          }
          break;
        case 'reply': {
          const waiter = pending.get(message.id);
          pending.delete(message.id);
          if (message.error === undefined) waiter?.resolve();
          else waiter?.reject(new Error(`device host: ${message.error}`));
          break;
        }
      }
    });
  });

  const request = (message: Omit<Extract<HostRequest, { type: 'call' }>, 'id'> | { type: 'stop' }): Promise<void> => {
    alive();
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ ...message, id } as HostRequest, (error) => {
        if (error) {
          pending.delete(id);
          reject(crash ?? error);
        }
      });
    });
  };

  const close = async () => {
    if (!stopping && !crash && child.exitCode === null && child.signalCode === null) {
      stopping = true;
      const timer = setTimeout(() => killGroup(child), STOP_TIMEOUT_MS);
      await request({ type: 'stop' }).catch(() => undefined);
      await exited;
      clearTimeout(timer);
    } else {
      stopping = true;
      killGroup(child);
      await exited;
    }
    if (crash) throw crash;
  };

  let started: Extract<HostMessage, { type: 'ready' }>;
  try {
    started = await ready;
  } catch (error) {
    stopping = true;
    killGroup(child);
    await exited;
    throw error;
  }

  const calls = <T extends keyof typeof REMOTE_CALLS>(target: T) =>
    Object.fromEntries(
      REMOTE_CALLS[target].map((method: string) => [method, (...args: unknown[]) => request({ type: 'call', target, method, args })]),
    );
  /** Reads of the copy: each throws the crash once the child has died. */
  const read = <T>(value: () => T) => ({
    get() {
      alive();
      return value();
    },
    enumerable: true,
  });
  const printer = Object.defineProperties(calls('printer'), {
    receipts: read(() => mirror.receipts),
    torn: read(() => mirror.torn),
    drawerKicks: read(() => mirror.drawerKicks),
    bytesReceived: read(() => mirror.bytesReceived),
    bytesDropped: read(() => mirror.bytesDropped),
  }) as unknown as RemotePrinter;
  const terminal = Object.defineProperties(calls('terminal'), {
    requests: read(() => mirror.requests),
    recentLinkEvents: read(() => mirror.terminalLink.simulator),
    driverLinkEvents: read(() => mirror.terminalLink.driver),
    transaction: read(() => (ref: string) => mirror.transactions.get(ref)),
    chargeCount: read(() => (ref: string) => (mirror.transactions.get(ref)?.charged ? 1 : 0)),
    charges: read(() => () => [...mirror.charges]),
  }) as unknown as RemoteTerminal;
  const checkScanner = Object.defineProperties(calls('checkScanner'), { scans: read(() => mirror.scans) }) as unknown as RemoteCheckScanner;

  return {
    url: started.url,
    token: started.token,
    tokenFile: started.tokenFile,
    pid: child.pid!,
    simulators: started.paths ? { printer, terminal, checkScanner, paths: started.paths } : undefined,
    close,
  };
}
