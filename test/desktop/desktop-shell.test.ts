/**
 * The desktop shell without the Electron binary (it cannot be downloaded here):
 * - the electron-builder configuration passes electron-builder's own schema validation and names the targets, app id,
 *   icons, files and fuses we ship;
 * - main and preload bundle with esbuild, and load against a recording stand-in for the `electron` module: the
 *   preload exposes exactly one object with the device methods on their own channels; the main process registers the
 *   privileged `app` scheme, a hardened sandboxed window, one IPC handler per method, and refuses navigation, new
 *   windows and permissions;
 * - the `app://register/` protocol answers GET/HEAD only, refuses paths that climb out of the build folder, sends
 *   the CSP, and forwards `/api/*` (and only that) to the sync server.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';
import { bundleDesktop } from '../../build/bundle-desktop.ts';
import { DEVICE_METHOD_NAMES, ipcChannel } from '../../core/device-transport.ts';
import { CONTENT_SECURITY_POLICY, createAppProtocolHandler } from '../../electron/main/app-protocol.ts';

const ROOT = resolve(import.meta.dirname, '../..');

function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('electron-builder configuration (build/electron-builder.yml)', () => {
  it('is valid for electron-builder and names targets, app id, icons, files and fuses', async () => {
    const config = await getConfig(ROOT, join(ROOT, 'build/electron-builder.yml'), null);
    await validateConfiguration(config, new DebugLogger(false));
    expect(config.appId).toBe('com.register.pos');
    expect(config.productName).toBe('Register');
    const targets = (platform: { target?: unknown } | null | undefined) => (platform?.target as string[]).map(String);
    expect(targets(config.linux)).toEqual(['AppImage', 'deb']);
    expect(targets(config.win)).toEqual(['nsis']);
    expect(targets(config.mac)).toEqual(['dmg']);
    for (const platform of [config.linux, config.win, config.mac]) {
      const icon = await readFile(join(ROOT, String(platform?.icon)));
      const size = pngSize(icon);
      expect(size.width).toBeGreaterThanOrEqual(512);
      expect(size.height).toBe(size.width);
    }
    const files = (config.files as ({ filter?: string[] } | string)[]).flatMap((entry) =>
      typeof entry === 'string' ? [entry] : (entry.filter ?? []),
    );
    expect(files).toEqual(expect.arrayContaining(['dist-electron/**/*', 'renderer/dist/**/*', 'package.json', '!**/*.map']));
    expect(config.extraMetadata).toMatchObject({ main: 'dist-electron/main.cjs' });
    expect(config.asar).toBe(true);
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
    });
  });

  it('is refused by the same validation when it carries an unknown option (the check can fail)', async () => {
    const config = await getConfig(ROOT, join(ROOT, 'build/electron-builder.yml'), null);
    await expect(validateConfiguration({ ...config, appIdd: 'x' } as typeof config, new DebugLogger(false))).rejects.toThrow(/Invalid configuration/);
  });
});

/** A recording stand-in for the `electron` module. */
function fakeElectron(userData: string) {
  const calls = {
    exposed: [] as [string, Record<string, unknown>][],
    invoked: [] as [string, unknown][],
    handlers: new Map<string, (...args: unknown[]) => unknown>(),
    schemes: [] as unknown[],
    protocolHandlers: new Map<string, (request: Request) => Promise<Response>>(),
    windows: [] as { options: Record<string, unknown>; url?: string }[],
    appEvents: new Map<string, (...args: unknown[]) => void>(),
    permissionRequest: undefined as undefined | ((...args: unknown[]) => void),
    permissionCheck: undefined as undefined | ((...args: unknown[]) => boolean),
    crashReporter: undefined as unknown,
    nextInvokeAnswer: { ok: true, result: { queued: true } } as unknown,
  };
  let ready: () => void = () => undefined;
  const whenReady = new Promise<void>((resolve) => (ready = resolve));
  class BrowserWindow {
    webContents = { send: () => undefined, isDestroyed: () => false };
    constructor(readonly options: Record<string, unknown>) {
      calls.windows.push({ options });
    }
    once() {}
    on() {}
    show() {}
    async loadURL(url: string) {
      calls.windows.at(-1)!.url = url;
    }
  }
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => calls.exposed.push([key, api]) },
    ipcRenderer: {
      invoke: async (channel: string, params: unknown) => {
        calls.invoked.push([channel, params]);
        return calls.nextInvokeAnswer;
      },
      on: () => undefined,
      removeListener: () => undefined,
    },
    ipcMain: {
      handle: (channel: string, handler: (...args: unknown[]) => unknown) => calls.handlers.set(channel, handler),
      removeHandler: () => undefined,
    },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => calls.schemes.push(...schemes),
      handle: (scheme: string, handler: (request: Request) => Promise<Response>) => calls.protocolHandlers.set(scheme, handler),
    },
    crashReporter: { start: (options: unknown) => (calls.crashReporter = options) },
    net: { fetch: (input: string, init: RequestInit) => fetch(input, init) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: (...args: unknown[]) => void) => (calls.permissionRequest = handler),
        setPermissionCheckHandler: (handler: (...args: unknown[]) => boolean) => (calls.permissionCheck = handler),
        setDevicePermissionHandler: () => undefined,
      },
    },
    app: {
      requestSingleInstanceLock: () => true,
      quit: () => undefined,
      on: (event: string, listener: (...args: unknown[]) => void) => calls.appEvents.set(event, listener),
      setLoginItemSettings: () => undefined,
      whenReady: () => whenReady,
      getPath: () => userData,
      getAppPath: () => ROOT,
    },
    BrowserWindow,
  };
  return { electron, calls, ready: () => ready() };
}

/** Runs a CommonJS bundle with `electron` replaced by the stand-in. */
async function load(file: string, electron: unknown): Promise<void> {
  const code = await readFile(file, 'utf8');
  const realRequire = createRequire(file);
  const module = { exports: {} };
  const run = new Function('require', 'module', 'exports', '__dirname', '__filename', code) as (...args: unknown[]) => void;
  run((name: string) => (name === 'electron' ? electron : realRequire(name)), module, module.exports, dirname(file), file);
}

describe('desktop bundles (esbuild) loaded against a stand-in electron module', () => {
  let dir: string;
  let bundles: { main: string; preload: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'desktop-'));
    // Laid out like the app: <root>/dist-electron beside <root>/renderer/dist.
    bundles = await bundleDesktop(join(dir, 'dist-electron'));
    await mkdir(join(dir, 'renderer', 'dist'), { recursive: true });
    await writeFile(join(dir, 'renderer', 'dist', 'index.html'), '<!doctype html><title>Register desktop</title>');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('preload: one object, the device methods only, each on its own channel; errors carry the code', async () => {
    const source = await readFile(bundles.preload, 'utf8');
    expect([...source.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(['electron']);
    const { electron, calls } = fakeElectron(dir);
    await load(bundles.preload, electron);
    expect(calls.exposed.map(([key]) => key)).toEqual(['registerDevices']);
    const api = calls.exposed[0]![1];
    expect(Object.keys(api).sort()).toEqual([...DEVICE_METHOD_NAMES, 'onStatus'].sort());

    for (const method of DEVICE_METHOD_NAMES) await (api[method] as (p?: unknown) => Promise<unknown>)({ probe: method });
    expect(calls.invoked.map(([channel]) => channel)).toEqual(DEVICE_METHOD_NAMES.map((method) => ipcChannel(method)));

    calls.nextInvokeAnswer = { ok: false, error: { code: 'printer_offline', message: 'the printer does not answer' } };
    await expect((api.openDrawer as () => Promise<void>)()).rejects.toThrow('[printer_offline] the printer does not answer');
  });

  it('main: privileged app scheme, hardened window, IPC per method validated, navigation and permissions refused', async () => {
    const previous = process.env.REGISTER_DEVICE_SIMULATORS;
    process.env.REGISTER_DEVICE_SIMULATORS = 'never';
    const { electron, calls, ready } = fakeElectron(join(dir, 'user-data'));
    try {
      await load(bundles.main, electron);
      expect(calls.schemes).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
      expect(calls.crashReporter).toMatchObject({ uploadToServer: false });
      ready();
      const deadline = Date.now() + 10_000;
      while (calls.windows[0]?.url === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      if (previous === undefined) delete process.env.REGISTER_DEVICE_SIMULATORS;
      else process.env.REGISTER_DEVICE_SIMULATORS = previous;
    }
    expect(calls.windows).toHaveLength(1);
    expect(calls.windows[0]!.url).toBe('app://register/');
    expect(calls.windows[0]!.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      preload: join(dirname(bundles.main), 'preload.cjs'),
    });
    expect([...calls.protocolHandlers.keys()]).toEqual(['app']);
    const appProtocol = calls.protocolHandlers.get('app')!;
    const index = await appProtocol(new Request('app://register/'));
    expect(await index.text()).toContain('Register desktop');
    expect(index.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect((await appProtocol(new Request('app://register/', { method: 'POST', body: 'x' }))).status).toBe(405);
    expect([...calls.handlers.keys()].sort()).toEqual(DEVICE_METHOD_NAMES.map((method) => ipcChannel(method)).sort());

    // Permissions: every request and check refused.
    let granted: boolean | undefined;
    calls.permissionRequest!({}, 'media', (answer: boolean) => (granted = answer));
    expect(granted).toBe(false);
    expect(calls.permissionCheck!({}, 'geolocation')).toBe(false);

    // Every web contents: no new windows, no navigation or redirect off app://register, no <webview>.
    const listeners = new Map<string, (event: { preventDefault(): void }, url?: string) => void>();
    let openHandler: (() => unknown) | undefined;
    calls.appEvents.get('web-contents-created')!(
      {},
      {
        setWindowOpenHandler: (handler: () => unknown) => (openHandler = handler),
        on: (event: string, listener: (event: { preventDefault(): void }, url?: string) => void) => listeners.set(event, listener),
      },
    );
    expect(openHandler!()).toEqual({ action: 'deny' });
    const prevented = (event: string, url?: string) => {
      let isPrevented = false;
      listeners.get(event)!({ preventDefault: () => (isPrevented = true) }, url);
      return isPrevented;
    };
    expect(prevented('will-navigate', 'https://evil.example/')).toBe(true);
    expect(prevented('will-navigate', 'app://register.evil/')).toBe(true);
    expect(prevented('will-navigate', 'app://register/sales')).toBe(false);
    expect(prevented('will-navigate', 'app://user@register/')).toBe(true);
    expect(prevented('will-redirect', 'http://localhost:8787/')).toBe(true);
    expect(prevented('will-attach-webview')).toBe(true);

    // IPC: a call from a foreign frame is refused; malformed parameters are answered with an error.
    const trusted = { senderFrame: { parent: null, url: 'app://register/' } };
    const foreign = { senderFrame: { parent: null, url: 'https://evil.example/' } };
    const charge = calls.handlers.get('devices:charge')!;
    expect(await charge(foreign, { idempotencyKey: 'k', amountCents: 100, currency: 'USD' })).toMatchObject({
      ok: false,
      error: { code: 'unauthorized' },
    });
    expect(await charge(trusted, { idempotencyKey: 'k', amountCents: -1, currency: 'USD' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_params' },
    });
    expect(await calls.handlers.get('devices:get-status')!(trusted)).toMatchObject({
      ok: true,
      result: [{ device: 'printer', mode: 'none' }, { device: 'terminal' }, { device: 'checkScanner' }],
    });
  });
});

describe('app://register/ protocol', () => {
  let dir: string;
  let handler: (request: Request) => Promise<Response>;
  const forwarded: { url: string; method: string; body?: string }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'app-protocol-'));
    await mkdir(join(dir, 'dist', 'assets'), { recursive: true });
    await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><title>Register</title>');
    await writeFile(join(dir, 'dist', 'assets', 'app.js'), 'console.log(1)');
    await writeFile(join(dir, 'secret.txt'), 'TOP SECRET');
    handler = createAppProtocolHandler({
      root: join(dir, 'dist'),
      serverUrl: 'http://127.0.0.1:8787',
      forward: async (url, init) => {
        forwarded.push({ url, method: String(init.method), ...(init.body ? { body: Buffer.from(init.body as ArrayBuffer).toString() } : {}) });
        return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const get = (path: string, init: RequestInit = {}) => handler(new Request(`app://register${path}`, init));

  it('serves the built files with a strict CSP, and index.html for client-side routes', async () => {
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    const script = await get('/assets/app.js');
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await script.text()).toBe('console.log(1)');
    expect(await (await get('/sales')).text()).toContain('<title>Register</title>');
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/', { method: 'HEAD' })).status).toBe(200);
  });

  it('answers GET and HEAD only', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await get('/index.html', { method, ...(method === 'DELETE' ? {} : { body: 'x' }) });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('refuses every path that climbs out of the build folder', async () => {
    for (const path of [
      '/..%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/assets%5c..%5c..%5csecret.txt',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const response = await get(path);
      expect([400, 403, 404]).toContain(response.status);
      expect(await response.text()).not.toContain('TOP SECRET');
    }
    expect((await get('/..%2fsecret.txt')).status).toBe(403);
    // Dot segments the URL parser already resolved stay inside the root.
    expect(await (await get('/../../secret.txt')).text()).not.toContain('TOP SECRET');
    expect((await handler(new Request('app://other/index.html'))).status).toBe(404);
  });

  it('forwards /api/* (method, path, query, body) to the sync server, and nothing else', async () => {
    const response = await get('/api/sync/orders/push?x=1', {
      method: 'POST',
      body: '[{"id":"ord_1"}]',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(forwarded.at(-1)).toEqual({ url: 'http://127.0.0.1:8787/api/sync/orders/push?x=1', method: 'POST', body: '[{"id":"ord_1"}]' });
    const count = forwarded.length;
    await get('/apix/sync');
    await get('/index.html');
    expect(forwarded).toHaveLength(count);
  });
});
