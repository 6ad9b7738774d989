/**
 * Electron hardening: the window's web preferences, and the guards every web contents gets — no new
 * windows, no navigation or redirect away from `app://register/`, no `<webview>`, every permission request refused.
 * URLs are parsed, never matched as strings.
 */
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { APP_HOST, APP_SCHEME } from './app-protocol.ts';

/** Web preferences of the register window: isolated, sandboxed, no Node anywhere in the renderer. */
export function secureWebPreferences(preload: string): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    devTools: process.env.REGISTER_DEVTOOLS === '1',
  };
}

/** True when `url` is a page of the register itself (`app://register/…`). */
export function isAppUrl(url: string): boolean {
  try {
    // Compared by parts: for a custom scheme Node's URL reports the origin as "null".
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** Refuses new windows, foreign navigation and redirects, and `<webview>` on one web contents. */
export function guardWebContents(contents: WebContents): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Refuses every permission request and check (camera, geolocation, notifications, HID, serial from the web…). */
export function refusePermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}
