/** The open in-platform app: a sandboxed frame that reaches the API only through the message bridge. */
import { useEffect, useRef, useState } from 'react';
import type { BackOfficeApi } from '../common/back-office-api.ts';
import { createAppBridge } from './app-bridge.ts';
import { explainScope, launchApp, type AppInstallation } from './apps-api.ts';

/** The app open in the frame: its installation, the page and the app token of its launch. */
export interface OpenApp {
  installation: AppInstallation;
  launchUrl: string;
  accessToken: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** Permissions-Policy of the frame: none of the register's devices or payment features. */
const FRAME_ALLOW = "camera 'none'; microphone 'none'; geolocation 'none'; usb 'none'; serial 'none'; hid 'none'; bluetooth 'none'; payment 'none'";

/**
 * An in-platform app in its sandboxed frame, with the message bridge. The app token lives here (memory only) and is
 * renewed by a new launch a minute before it expires; the frame never sees it.
 */
export function AppFrame({ api, app, onClose }: { api: BackOfficeApi; app: OpenApp; onClose: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const token = useRef<{ accessToken: string; expiresAt: number } | undefined>(undefined);
  const [calls, setCalls] = useState<{ n: number; method: string; path: string; status: number }[]>([]);
  const installationId = app.installation.id;
  const { accessToken, expiresAt } = app;
  const title = useRef<HTMLHeadingElement>(null);
  // The Open button is gone: focus lands on the app's name, just before the frame.
  useEffect(() => title.current?.focus(), []);

  useEffect(() => {
    token.current = { accessToken, expiresAt: Date.parse(expiresAt) };
    let counter = 0;
    let launching: Promise<string> | undefined;
    const appToken = async (): Promise<string> => {
      const held = token.current;
      if (held && held.expiresAt - 60_000 > Date.now()) return held.accessToken;
      launching ??= launchApp(api, installationId)
        .then((launch) => {
          token.current = { accessToken: launch.accessToken, expiresAt: Date.parse(launch.expiresAt) };
          return launch.accessToken;
        })
        .finally(() => {
          launching = undefined;
        });
      return launching;
    };
    const bridge = createAppBridge({
      frame: () => frame.current?.contentWindow,
      appToken,
      onCall: (call) => {
        counter += 1;
        const n = counter;
        setCalls((prev) => [{ n, ...call }, ...prev].slice(0, 5));
      },
    });
    window.addEventListener('message', bridge);
    return () => {
      window.removeEventListener('message', bridge);
      token.current = undefined;
    };
  }, [api, installationId, accessToken, expiresAt]);

  return (
    <section className="bo-section app-frame-view" data-testid="app-frame-view" data-installation-id={installationId}>
      <div className="bo-toolbar">
        <h2 ref={title} tabIndex={-1}>
          {app.installation.appName}
        </h2>
        <span className="muted app-frame-note">
          Runs apart from the register, with only what you approved: {app.installation.grantedScopes.map(explainScope).join(' ')}
        </span>
        <button type="button" className="button app-frame-close" onClick={onClose} data-testid="app-frame-close">
          Close app
        </button>
      </div>
      <iframe
        ref={frame}
        className="app-frame"
        title={app.installation.appName}
        src={app.launchUrl}
        sandbox="allow-scripts allow-forms"
        allow={FRAME_ALLOW}
        referrerPolicy="no-referrer"
        data-testid="app-frame"
      />
      {calls.length > 0 ? (
        <details className="app-bridge-log" data-testid="app-bridge-log">
          <summary>Requests the app made ({calls.length === 5 ? 'last 5' : calls.length})</summary>
          <ul>
            {calls.map((c) => (
              <li key={c.n} data-status={c.status}>
                {c.method} {c.path} → {c.status === 0 ? 'no connection' : c.status}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
