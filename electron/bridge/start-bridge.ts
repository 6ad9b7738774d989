/**
 * Starts the whole web hardware bridge: the device hub (drivers, settings, simulators) and the WebSocket server, with
 * a pairing token kept in `<dataDir>/device-bridge.json` (created on the first start, mode 0600, reused afterwards so
 * a paired register stays paired). Used by `electron/bridge/main.ts` (`npm start`) and, in a process of their own, by
 * the end-to-end tests (test/support/device-host.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { startBridgeServer, type BridgeServer } from './bridge-server.ts';
import { DeviceHub, type DeviceHubOptions } from './device-hub.ts';

/** Bridge start-up settings. */
export interface DeviceBridgeOptions extends Omit<DeviceHubOptions, 'dataDir'> {
  /** Folder of the bridge: `device-bridge.json` (token), `devices/` (settings, print queue, simulator ports). */
  dataDir: string;
  /** Port on 127.0.0.1; 0 picks a free one. Default 8790. */
  port?: number;
  /** Origins of the register allowed to connect. */
  allowedOrigins: readonly string[];
  /** Use this token instead of the stored/generated one (tests). */
  token?: string;
}

/** A running bridge. */
export interface DeviceBridge {
  hub: DeviceHub;
  server: BridgeServer;
  url: string;
  token: string;
  /** Where the token is written. */
  tokenFile: string;
  close(): Promise<void>;
}

/**
 * The one line a person reads when the bridge cannot start on its port (it used to die with a stack trace):
 * for a port already in use (EADDRINUSE) or not allowed (EACCES) it names `BRIDGE_PORT` and what to do; `undefined`
 * for any other error (shown as it is).
 */
export function bridgePortProblem(error: unknown, port: number): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    return `Hardware bridge: port ${port} on 127.0.0.1 is already in use (another bridge still running?). Stop it, or start with BRIDGE_PORT set to a free port, e.g. BRIDGE_PORT=${port + 1} npm start.`;
  }
  if (code === 'EACCES')
    return `Hardware bridge: port ${port} is not allowed for this user. Start with BRIDGE_PORT set to a port above 1023, e.g. BRIDGE_PORT=8790.`;
  return undefined;
}

/** The register origins the bridge accepts when REGISTER_ORIGINS is not set. */
export function defaultRegisterOrigins(env: NodeJS.ProcessEnv): string[] {
  if (env.REGISTER_ORIGINS)
    return env.REGISTER_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean);
  const port = Number(env.PORT ?? 8787);
  const origins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
  if (env.BASE_URL) {
    try {
      origins.push(new URL(env.BASE_URL).origin);
    } catch {
      // a malformed BASE_URL is the sync server's to report
    }
  }
  return [...new Set(origins)];
}

const tokenFileSchema = z.object({ token: z.string().min(16) });

/** Reads the stored pairing token or makes a new one (32 random bytes, base64url). */
export async function loadOrCreateToken(tokenFile: string): Promise<string> {
  const stored = await readFile(tokenFile, 'utf8')
    .then(
      (text) => tokenFileSchema.safeParse(JSON.parse(text)),
      () => undefined,
    )
    .catch(() => undefined);
  if (stored?.success) return stored.data.token;
  return randomBytes(32).toString('base64url');
}

/** Starts the hub and the WebSocket server; writes `device-bridge.json` ({ url, token, allowedOrigins }). */
export async function startDeviceBridge(options: DeviceBridgeOptions): Promise<DeviceBridge> {
  await mkdir(options.dataDir, { recursive: true });
  const tokenFile = join(options.dataDir, 'device-bridge.json');
  const token = options.token ?? (await loadOrCreateToken(tokenFile));
  const { dataDir, port, allowedOrigins, token: _token, ...hubOptions } = options;
  const hub = await DeviceHub.start({ ...hubOptions, dataDir: join(dataDir, 'devices') });
  let server: BridgeServer;
  try {
    server = await startBridgeServer({
      host: hub,
      token,
      allowedOrigins,
      port: port ?? 8790,
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (error) {
    await hub.close();
    throw error;
  }
  await writeFile(tokenFile, `${JSON.stringify({ url: server.url, token, allowedOrigins }, null, 2)}\n`, { mode: 0o600 });
  return {
    hub,
    server,
    url: server.url,
    token,
    tokenFile,
    async close() {
      await server.close();
      await hub.close();
    },
  };
}
