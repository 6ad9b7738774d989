/**
 * Child process for the kitchen printers' restart test: starts the web hardware bridge (`startDeviceBridge`, what
 * `npm run bridge` runs) on a free loopback port with the data folder in argv[2] and the pairing token in argv[3], no
 * simulators of its own (the test's printer simulators are set in `devices.json`), and prints `{ url }` as one JSON
 * line. The test ends it with SIGKILL — no close, locks left behind — like a register losing power.
 */
import { startDeviceBridge } from '../../../electron/bridge/start-bridge.ts';

const [dataDir, token] = process.argv.slice(2);
const bridge = await startDeviceBridge({
  dataDir: dataDir!,
  token: token!,
  port: 0,
  allowedOrigins: ['http://localhost:8787'],
  simulators: 'never',
  printerRetryIntervalMs: 50,
});
process.stdout.write(`${JSON.stringify({ url: bridge.url })}\n`);
process.on('disconnect', () => process.exit(0));
