/**
 * The device host's process (forked by `startDeviceHost` in test/support/device-host.ts, which documents the RPC): starts
 * the web hardware bridge with `startDeviceBridge` — what `npm run bridge` does, with the options in argv[2] as JSON —
 * tells the parent where it listens, keeps the parent's copy of the simulators' state up to date and runs the
 * simulator methods the parent calls. Exits when told to stop, on SIGTERM, or when the parent goes away.
 */
import { startDeviceBridge, type DeviceBridge } from '../../electron/bridge/start-bridge.ts';
import type { DeviceSimulators, SimulatedTransaction } from '../../electron/devices/index.ts';
import { REMOTE_CALLS, type DeviceHostOptions, type HostMessage, type HostRequest, type StateDelta } from './device-host.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as DeviceHostOptions;

function send(message: HostMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });
}

let bridge: DeviceBridge | undefined;
let stopping: Promise<void> | undefined;

/** Closes the bridge (drivers, simulators, socat) and exits. */
function stop(code = 0): Promise<void> {
  stopping ??= (async () => {
    await bridge?.close().catch((error: unknown) => console.error('closing the bridge:', error));
    process.exit(code);
  })();
  return stopping;
}

/** Sends what changed in the simulators since the last call (nothing when nothing did). */
function stateSender(simulators: DeviceSimulators, driverLinkEvents: () => readonly string[]): () => void {
  const { printer, terminal, checkScanner } = simulators;
  const sent = { receipts: 0, torn: 0, requests: 0 };
  let lastCounters = '';
  let lastTransactions = '';
  return () => {
    const counters = [
      printer.receipts.length,
      printer.torn.length,
      printer.drawerKicks,
      printer.bytesReceived,
      printer.bytesDropped,
      terminal.requests.length,
      checkScanner.scans,
      driverLinkEvents().at(-1),
      terminal.recentLinkEvents.at(-1),
    ].join('/');
    const refs = new Set(terminal.requests.flatMap((request) => (request.type === 'status' ? [] : [request.ref])));
    const all = [...refs].flatMap((ref): [string, SimulatedTransaction][] => {
      const transaction = terminal.transaction(ref);
      return transaction ? [[ref, transaction]] : [];
    });
    const transactions = all.map(([ref, t]) => `${ref}:${t.charged ? 1 : 0}${t.voided ? 1 : 0}`).join(',');
    if (counters === lastCounters && transactions === lastTransactions) return;
    const delta: StateDelta = {
      type: 'state',
      receipts: printer.receipts.slice(sent.receipts),
      torn: printer.torn.slice(sent.torn),
      requests: terminal.requests.slice(sent.requests),
      drawerKicks: printer.drawerKicks,
      bytesReceived: printer.bytesReceived,
      bytesDropped: printer.bytesDropped,
      scans: checkScanner.scans,
      terminalLink: { driver: [...driverLinkEvents()], simulator: [...terminal.recentLinkEvents] },
      ...(transactions !== lastTransactions ? { transactions: { all, charges: terminal.charges() } } : {}),
    };
    sent.receipts = printer.receipts.length;
    sent.torn = printer.torn.length;
    sent.requests = terminal.requests.length;
    lastCounters = counters;
    lastTransactions = transactions;
    void send(delta);
  };
}

async function main(): Promise<void> {
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  try {
    bridge = await startDeviceBridge({ ...options, log: (message) => console.log(`[bridge] ${message}`) });
  } catch (error) {
    await send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    return stop(1);
  }
  const simulators = bridge.hub.simulators;
  const hub = bridge.hub;
  const flush = simulators ? stateSender(simulators, () => hub.terminalLinkEvents()) : () => undefined;
  if (simulators) {
    // Sent as things happen (once per turn of the event loop), and checked every 25 ms for changes without an event
    // (a page torn off by a power cut, a response the terminal was told to drop, a scan).
    let queued = false;
    const soon = () => {
      if (queued) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        flush();
      });
    };
    for (const name of ['event', 'receipt', 'drawer'] as const) simulators.printer.on(name, soon);
    for (const name of ['request', 'response', 'frameError'] as const) simulators.terminal.on(name, soon);
    setInterval(flush, 25).unref();
  }

  process.on('message', (message: HostRequest) => {
    void (async () => {
      if (message.type === 'stop') {
        flush();
        await send({ type: 'reply', id: message.id });
        return stop();
      }
      let error: string | undefined;
      try {
        const target = simulators?.[message.target];
        if (!target) throw new Error('the bridge runs without simulators');
        if (!(REMOTE_CALLS[message.target] as readonly string[]).includes(message.method))
          throw new Error(`no method ${message.target}.${message.method}`);
        const method = (target as unknown as Record<string, (...args: unknown[]) => unknown>)[message.method]!;
        await method.apply(target, message.args);
      } catch (caught) {
        error = caught instanceof Error ? caught.message : String(caught);
      }
      // The state first: once the call is answered, the parent's copy already shows what the call changed.
      flush();
      await send({ type: 'reply', id: message.id, ...(error !== undefined ? { error } : {}) });
    })();
  });

  await send({
    type: 'ready',
    url: bridge.url,
    token: bridge.token,
    tokenFile: bridge.tokenFile,
    paths: simulators?.paths,
  });
}

void main();
