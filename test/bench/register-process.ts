/**
 * The register, emulated in its own process so its work never lands in the server's figures: the register's own
 * database code (`renderer/src/register/db/database.ts`, RxDB on Dexie over fake-indexeddb — Node has no IndexedDB) and its own
 * replication engine (`renderer/src/register/sync/replication.ts`), talking HTTP to the bench server.
 *
 * Driven over IPC by test/bench/sync.ts (`fork`):
 *   parent → { type: 'start', ...RegisterStart }  child → { type: 'saved', localSeconds }   (sales stored offline)
 *   parent → { type: 'sync' }                     (the replication engine starts: pushes, pulls)
 *                                                 child → { type: 'synced', lagsMs } (every sale shown synced)
 *   parent → { type: 'stop' }                     child → { type: 'stopped' } and exits
 * Any failure: child → { type: 'error', message } and exit code 1.
 */
import 'fake-indexeddb/auto';
import { performance } from 'node:perf_hooks';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import type { PairedRegister } from '../support/sales.ts';
import { watchShownSynced } from '../renderer/support/shown-synced.ts';
import { benchSales } from './sales.ts';

/** What the parent sends to start: the server, the paired register and how many sales to sell offline. */
export interface RegisterStart {
  baseUrl: string;
  staffToken: string;
  merchantId: string;
  register: PairedRegister;
  sales: number;
  /** The first sale's createdAt, ms since the epoch; one sale per second after it. */
  firstSaleAt: number;
}

export type ParentMessage = ({ type: 'start' } & RegisterStart) | { type: 'sync' } | { type: 'stop' };
export type ChildMessage =
  | { type: 'saved'; localSeconds: number }
  /** Every sale shown synced: per sale, ms from the server's stamp (`updatedAt`) to the register showing it synced. */
  | { type: 'synced'; lagsMs: number[] }
  | { type: 'stopped' }
  | { type: 'error'; message: string };

/**
 * The browser globals the register's modules read, and nothing more: `localStorage` (a Map), `navigator.onLine`,
 * `location.origin`, `window` online/offline events, relative `fetch` paths resolved against the server, and an
 * `EventSource` that never connects (the bench measures push + pull, not the live stream).
 */
function installBrowserShims(baseUrl: string): void {
  const store = new Map<string, string>();
  const g = globalThis as Record<string, unknown>;
  g.localStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, String(v)),
    removeItem: (k: string) => void store.delete(k),
  };
  Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true, writable: true });
  g.location = { origin: baseUrl };
  const events = new EventTarget();
  g.window = { addEventListener: events.addEventListener.bind(events), removeEventListener: events.removeEventListener.bind(events) };
  const realFetch = globalThis.fetch;
  g.fetch = (input: string | URL | Request, init?: RequestInit) =>
    realFetch(typeof input === 'string' && input.startsWith('/') ? `${baseUrl}${input}` : input, init);
  g.EventSource = class {
    onmessage: unknown = null;
    onerror: unknown = null;
    onopen: unknown = null;
    addEventListener(): void {}
    close(): void {}
  };
}

// RxDB's Dexie storage prints an advertisement for its paid storages on every database: not a bench result.
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes('RxDB Open Core RxStorage')) return;
  warn(...args);
};

/** Sends to the parent; resolves once the message is handed to the channel (so exiting after it loses nothing). */
function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => (process.send ? process.send(message, undefined, {}, () => resolve()) : resolve()));
}

async function run(start: RegisterStart, next: (type: ParentMessage['type']) => Promise<void>): Promise<void> {
  installBrowserShims(start.baseUrl);
  // Imported after the shims: the modules read globals when they run.
  const { openRegisterDatabase, saveSale } = await import('../../renderer/src/register/db/database.ts');
  const { startSync } = await import('../../renderer/src/register/sync/replication.ts');
  const register = await openRegisterDatabase({ name: `bench${process.pid}`, storage: getRxStorageDexie(), multiInstance: false });
  const sales = benchSales(start);
  const localStart = performance.now();
  for (const sale of sales) await saveSale(register, sale);
  await send({ type: 'saved', localSeconds: (performance.now() - localStart) / 1000 });

  await next('sync');
  const watch = watchShownSynced(register);
  const engine = startSync(register, { getToken: () => start.staffToken, merchantId: start.merchantId });
  // Every sale shown synced — or, should some never be (a bench bug), what was after two minutes.
  const deadline = Date.now() + 120_000;
  while (watch.shownAt.size < sales.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  watch.stop();
  const stamped = (await register.orders.find().exec()).map((d) => d.toJSON() as { id: string; updatedAt?: string });
  const lagsMs = stamped.flatMap((o) => (watch.shownAt.has(o.id) && o.updatedAt ? [watch.shownAt.get(o.id)! - Date.parse(o.updatedAt)] : []));
  if (lagsMs.length < sales.length) console.error(`register process: ${sales.length - lagsMs.length} sales never shown synced`);
  await send({ type: 'synced', lagsMs });
  await next('stop');
  await engine.stop();
  await register.remove();
  await send({ type: 'stopped' });
}

const waiting = new Map<string, () => void>();
const received = new Set<string>();
let started = false;
const next = (type: ParentMessage['type']) => (received.has(type) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(type, resolve)));

// The parent is gone (killed, crashed): nothing left to do.
process.on('disconnect', () => process.exit(1));
process.on('message', (message: ParentMessage) => {
  if (message.type === 'start') {
    if (started) return;
    started = true;
    run(message, next).then(
      () => process.exit(0),
      (err: unknown) => {
        void send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }).then(() => process.exit(1));
      },
    );
    return;
  }
  received.add(message.type);
  waiting.get(message.type)?.();
});
