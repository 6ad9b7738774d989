/**
 * `npm start`: the sync server and, beside it, the web hardware bridge with the device simulators.
 * Two child processes, so a device problem can never take the server down and the sync server never imports
 * electron code: the server (`sync-server/src/main.ts`) is the one that matters — when it exits, the launcher stops
 * the bridge and exits with its code; when the bridge exits, the register keeps selling cash-only and the launcher
 * says so. Ctrl-C / SIGTERM stop both. `START_BRIDGE=0` starts the server alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';

function run(file: string): ChildProcess {
  // `--import tsx` runs the TypeScript entry points the way `tsx <file>` does.
  // The demo store is for trying things on this machine: webhooks may go to a receiver on localhost, and the register
  // opened on localhost pairs itself (demo mode), unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=0 / DEMO_MODE=0 say otherwise.
  // Registers on other machines pair with the code the server prints. The log is printed for a person (LOG_FORMAT=pretty:
  // one line a request, answered reads left out), unless LOG_FORMAT says otherwise.
  return spawn(process.execPath, ['--import', 'tsx', file], {
    stdio: 'inherit',
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', DEMO_MODE: '1', LOG_FORMAT: 'pretty', ...process.env },
  });
}

const server = run('sync-server/src/main.ts');
let bridge: ChildProcess | undefined = process.env.START_BRIDGE === '0' ? undefined : run('electron/bridge/main.ts');

bridge?.on('exit', (code, signal) => {
  bridge = undefined;
  if (!isStopping) {
    console.error(`\nThe hardware bridge stopped (${signal ?? `exit ${code}`}): the register keeps selling cash-only.\n`);
  }
});

let isStopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (isStopping) return;
  isStopping = true;
  bridge?.kill(signal);
  server.kill(signal);
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

server.on('exit', (code, signal) => {
  isStopping = true;
  bridge?.kill('SIGTERM');
  process.exitCode = code ?? (signal ? 1 : 0);
});
