/**
 * The register's own replication engine (`renderer/src/register/sync/replication.ts`) run in Node against a real sync server
 * (HTTP on 127.0.0.1), on RxDB with Dexie over fake-indexeddb. The engine reads a handful of browser globals; these
 * shims give it exactly those: `localStorage` (a Map), `navigator.onLine`, `location.origin`, `window` online/offline
 * events, relative `fetch` paths resolved against the server (every push request recorded), and an `EventSource`
 * that never connects (tests drive catch-up through pulls).
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterAll, beforeAll } from 'vitest';
import type { RegisterDatabase } from '../../../renderer/src/register/db/database.ts';
import type { SyncEngine } from '../../../renderer/src/register/sync/replication.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

/** One push request the engine sent: its path, body size in bytes, row count, the answer's status, and when (ms). */
export interface RecordedPush {
  path: string;
  bytes: number;
  rows: number;
  status: number;
  /** When the request was sent and when its answer arrived, ms since the epoch. */
  sentAt: number;
  answeredAt: number;
}

/**
 * Installs the shims for `baseUrl`; returns the push log and a function that restores the previous globals.
 * PGlite takes `window` as a sign that it runs in a browser: start the server before installing the shims.
 */
export function installBrowserShims(baseUrl: string): BrowserShims {
  const store = new Map<string, string>();
  const pushes: RecordedPush[] = [];
  const shims: BrowserShims = { pushes, around: undefined, restore: () => {} };
  const g = globalThis as Record<string, unknown>;
  const names = ['localStorage', 'navigator', 'location', 'window', 'fetch', 'EventSource'] as const;
  const saved = names.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  g.localStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, String(v)),
    removeItem: (k: string) => void store.delete(k),
  };
  Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true, writable: true });
  g.location = { origin: baseUrl };
  const events = new EventTarget();
  // Dexie looks for IndexedDB on `window` when there is one.
  g.window = {
    addEventListener: events.addEventListener.bind(events),
    removeEventListener: events.removeEventListener.bind(events),
    indexedDB: globalThis.indexedDB,
    IDBKeyRange: globalThis.IDBKeyRange,
  };
  const realFetch = globalThis.fetch;
  g.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' && input.startsWith('/') ? `${baseUrl}${input}` : input;
    const sentAt = Date.now();
    const send = () => realFetch(url, init);
    const response = shims.around ? await shims.around(String(url), send) : await send();
    if (typeof url === 'string' && url.includes('/push')) {
      const body = typeof init?.body === 'string' ? init.body : '';
      pushes.push({
        path: new URL(url).pathname,
        bytes: Buffer.byteLength(body),
        rows: body ? (JSON.parse(body) as unknown[]).length : 0,
        status: response.status,
        sentAt,
        answeredAt: Date.now(),
      });
    }
    return response;
  };
  g.EventSource = class {
    onmessage: unknown = null;
    onerror: unknown = null;
    onopen: unknown = null;
    addEventListener(): void {}
    close(): void {}
  };
  shims.restore = () => {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete g[name];
    }
  };
  return shims;
}

/** What {@link installBrowserShims} gives a test. */
export interface BrowserShims {
  /** Every push request the engine sent. */
  pushes: RecordedPush[];
  /**
   * When set, every request goes through it: `send` performs the real request; what it resolves with is the answer
   * the engine reads (a test can hold an answer back, or act between the server's work and the engine's reading it).
   */
  around: ((url: string, send: () => Promise<Response>) => Promise<Response>) | undefined;
  /** Puts the previous globals back. */
  restore: () => void;
}

/**
 * One suite's register in Node: a listening test server (no static files), the browser shims over it, and the
 * register databases and sync engines its tests open — all stopped, removed and restored after the suite. Call it
 * inside `describe`; read `server` and `shims` inside the tests (they are set by the suite's `beforeAll`).
 */
export interface RegisterInNode {
  readonly server: TestServer;
  readonly shims: BrowserShims;
  /** Opens a fresh register database named `<prefix><now>` (Dexie on fake-indexeddb, one instance). */
  openDatabase(prefix: string): Promise<RegisterDatabase>;
  /** Starts the register's sync engine on `db` with the paired register's token, for the server's demo merchant. */
  startSync(db: RegisterDatabase, registerToken: string): Promise<SyncEngine>;
}

/** Registers the suite's `beforeAll`/`afterAll` and returns its {@link RegisterInNode}. */
export function registerInNodeSuite(): RegisterInNode {
  let server: TestServer | undefined;
  let shims: BrowserShims | undefined;
  const databases: RegisterDatabase[] = [];
  const engines: SyncEngine[] = [];
  beforeAll(async () => {
    // PGlite takes `window` as a sign that it runs in a browser: the server starts before the shims.
    server = await startTestServer({ listen: true, staticDir: null });
    shims = installBrowserShims(server.baseUrl);
  });
  afterAll(async () => {
    for (const engine of engines) await engine.stop();
    for (const db of databases) await db.remove();
    shims?.restore();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error("registerInNodeSuite: the server starts in the suite's beforeAll");
      return server;
    },
    get shims() {
      if (!shims) throw new Error("registerInNodeSuite: the shims are installed in the suite's beforeAll");
      return shims;
    },
    async openDatabase(prefix) {
      // Imported once the shims are in place: the register's modules read the browser globals.
      const { openRegisterDatabase } = await import('../../../renderer/src/register/db/database.ts');
      const db = await openRegisterDatabase({ name: `${prefix}${Date.now()}`, storage: getRxStorageDexie(), multiInstance: false });
      databases.push(db);
      return db;
    },
    async startSync(db, registerToken) {
      const { startSync } = await import('../../../renderer/src/register/sync/replication.ts');
      const engine = startSync(db, { getToken: () => registerToken, merchantId: this.server.credentials.merchantId });
      engines.push(engine);
      return engine;
    },
  };
}
