/**
 * The register's own replication engine (`renderer/src/register/sync/replication.ts`) run in Node against a real sync server
 * (HTTP on 127.0.0.1), on RxDB with Dexie over fake-indexeddb. The engine reads a handful of browser globals; these
 * shims give it exactly those: `localStorage` (a Map), `navigator.onLine`, `location.origin`, `window` online/offline
 * events, relative `fetch` paths resolved against the server (every push request recorded), and an `EventSource`
 * that never connects (tests drive catch-up through pulls).
 */
import 'fake-indexeddb/auto';

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
export function installBrowserShims(baseUrl: string): { pushes: RecordedPush[]; restore: () => void } {
  const store = new Map<string, string>();
  const pushes: RecordedPush[] = [];
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
    const response = await realFetch(url, init);
    if (typeof url === 'string' && url.includes('/push')) {
      const body = typeof init?.body === 'string' ? init.body : '';
      pushes.push({ path: new URL(url).pathname, bytes: Buffer.byteLength(body), rows: body ? (JSON.parse(body) as unknown[]).length : 0, status: response.status, sentAt, answeredAt: Date.now() });
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
  return {
    pushes,
    restore: () => {
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete g[name];
      }
    },
  };
}

