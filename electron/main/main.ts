/**
 * The desktop register's main process. Thin on purpose: it
 * - keeps one instance (a second start focuses the first window);
 * - loads the built register from `app://register/` (GET-only protocol over `renderer/dist`, strict CSP; `/api/*`
 *   forwarded to the sync server at REGISTER_SERVER_URL, default http://localhost:8787);
 * - opens one hardened window (isolated, sandboxed, no Node, no navigation away, no new windows, no permissions);
 * - serves the device API over IPC from the same `DeviceHub` as the web bridge (settings, print queue and simulator
 *   ports under `<userData>/devices`);
 * - writes crashes to a local log (`<userData>/logs/register.log`, minidumps kept locally, never uploaded);
 * - has a kiosk / full-screen option (`--kiosk` or REGISTER_KIOSK=1) and an auto-start option (`--auto-start` /
 *   `--no-auto-start`, remembered by the OS login items).
 *
 * Bundled by `build/bundle-desktop.ts` to `dist-electron/main.cjs` (+ `preload.cjs`); `npm run desktop` starts it.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, crashReporter, ipcMain, net, protocol, session } from 'electron';
import { DeviceHub } from '../bridge/device-hub.ts';
import { APP_ORIGIN, APP_SCHEME, createAppProtocolHandler } from './app-protocol.ts';
import { registerDeviceIpc } from './device-ipc.ts';
import { guardWebContents, refusePermissions, secureWebPreferences } from './hardening.ts';

const argv = new Set(process.argv.slice(1));
const isKiosk = argv.has('--kiosk') || process.env.REGISTER_KIOSK === '1';
const serverUrl = process.env.REGISTER_SERVER_URL ?? 'http://localhost:8787';

function logLine(message: string): void {
  try {
    const dir = join(app.getPath('userData'), 'logs');
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, 'register.log'), `${new Date().toISOString()} ${message}\n`);
  } catch {
    // the log is best effort; never crash while reporting a crash
  }
}

crashReporter.start({ uploadToServer: false, compress: true });
process.on('uncaughtException', (error) => logLine(`uncaughtException ${error.stack ?? error.message}`));
process.on('unhandledRejection', (reason) =>
  logLine(`unhandledRejection ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`),
);

// Must happen before `ready`: app:// is a standard, secure origin (IndexedDB, localStorage, fetch, streams).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } }]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let window: BrowserWindow | undefined;
  let hub: DeviceHub | undefined;

  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));
  app.on('render-process-gone', (_event, _contents, details) => logLine(`render-process-gone ${details.reason} exit=${details.exitCode}`));
  app.on('child-process-gone', (_event, details) => logLine(`child-process-gone ${details.type} ${details.reason} exit=${details.exitCode}`));

  if (argv.has('--auto-start') || argv.has('--no-auto-start')) {
    app.setLoginItemSettings({ openAtLogin: argv.has('--auto-start'), args: isKiosk ? ['--kiosk'] : [] });
  }

  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void hub?.close();
  });

  void app.whenReady().then(async () => {
    refusePermissions(session.defaultSession);
    protocol.handle(
      APP_SCHEME,
      createAppProtocolHandler({
        // The bundle lives in <app>/dist-electron, in the repository as in the asar; `electron <file>` would make
        // app.getAppPath() that folder itself, so the app root is taken from the bundle's own place.
        root: join(__dirname, '..', 'renderer', 'dist'),
        serverUrl,
        forward: (input, init) => net.fetch(input, init),
      }),
    );

    hub = await DeviceHub.start({
      dataDir: join(app.getPath('userData'), 'devices'),
      simulators: process.env.REGISTER_DEVICE_SIMULATORS === 'never' ? 'never' : 'auto',
      log: logLine,
    });

    window = new BrowserWindow({
      width: 1280,
      height: 800,
      minWidth: 1024,
      minHeight: 640,
      show: false,
      kiosk: isKiosk,
      fullscreen: isKiosk,
      autoHideMenuBar: true,
      backgroundColor: '#f4f5f7',
      title: 'Register',
      webPreferences: secureWebPreferences(join(__dirname, 'preload.cjs')),
    });
    registerDeviceIpc(ipcMain, hub, () => window?.webContents);
    window.once('ready-to-show', () => window?.show());
    window.on('closed', () => {
      window = undefined;
    });
    await window.loadURL(`${APP_ORIGIN}/`);
  });
}
