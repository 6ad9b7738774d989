/**
 * The web hardware bridge as a process (`npm start` starts it beside the sync server; `npm run bridge` alone).
 * Environment:
 * - BRIDGE_PORT (default 8790) — WebSocket on 127.0.0.1 only;
 * - DATA_DIR (default ./data) — token in DATA_DIR/device-bridge.json, device settings, print queue and simulator
 *   ports under DATA_DIR/devices/;
 * - REGISTER_ORIGINS — comma-separated origins allowed to connect (default: the register's own origin,
 *   http://localhost:PORT and http://127.0.0.1:PORT, plus BASE_URL's origin);
 * - DEVICE_SIMULATORS=never — devices without settings are "not configured" instead of simulated.
 */
import { resolve } from 'node:path';
import { bridgePortProblem, defaultRegisterOrigins, startDeviceBridge } from './start-bridge.ts';

const port = Number(process.env.BRIDGE_PORT ?? 8790);

async function main(): Promise<void> {
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const allowedOrigins = defaultRegisterOrigins(process.env);
  const bridge = await startDeviceBridge({
    dataDir,
    port,
    allowedOrigins,
    simulators: process.env.DEVICE_SIMULATORS === 'never' ? 'never' : 'auto',
    log: (message) => console.log(`[bridge] ${message}`),
  });
  const devices = await bridge.hub.getStatus();
  const lines = devices.map(
    (device) => `  ${device.device.padEnd(13)} ${device.mode === 'simulator' ? 'SIMULATED' : device.mode}${device.path ? ` on ${device.path}` : ''}`,
  );
  console.log(
    `\nHardware bridge: ${bridge.url}  (127.0.0.1 only; origins ${allowedOrigins.join(', ')})\n` +
      `Pairing token:   in ${bridge.tokenFile} (paste it in the register's Devices view)\n${lines.join('\n')}\n`,
  );

  let isStopping = false;
  const stop = async () => {
    if (isStopping) return;
    isStopping = true;
    await bridge.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  // A busy port is one line naming BRIDGE_PORT, not a stack trace; anything else is shown in full.
  console.error(bridgePortProblem(error, port) ?? error);
  process.exit(1);
});
