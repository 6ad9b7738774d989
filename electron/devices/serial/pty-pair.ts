/**
 * A pair of connected pseudo-terminals made by socat (`socat -d -d pty,raw,echo=0,link=A pty,raw,echo=0,link=B`):
 * bytes written to one end come out of the other, exactly like a null-modem cable. Drivers open `devicePath`, the
 * simulator opens `simulatorPath`. `unplug()`/`close()` ends socat, which closes both ends (a pulled cable).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceError } from '../errors.ts';

/** Options for `createPtyPair`. */
export interface PtyPairOptions {
  /** Directory for the two symlinks (created if missing); a fresh temporary directory (removed on close) when omitted. */
  dir?: string;
  /** Base name of the links: `<dir>/<name>` (driver side) and `<dir>/<name>.sim` (simulator side). Default `device`. */
  name?: string;
  /** socat binary. Default `/usr/bin/socat`, or `SOCAT` from the environment. */
  socatPath?: string;
  /** How long to wait for socat to create both ends. Default 5000 ms. */
  startTimeoutMs?: number;
}

/** A running socat pty pair. */
export interface PtyPair {
  /** The path a driver opens (a symlink to /dev/pts/N). */
  readonly devicePath: string;
  /** The path the simulator opens. */
  readonly simulatorPath: string;
  /** socat's process id. */
  readonly pid: number;
  /** Ends socat (both ends see the device go away) and removes the temporary directory if it made one. Idempotent. */
  close(): Promise<void>;
  /** Resolves when socat has exited (for whatever reason). */
  readonly exited: Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // socat is not killed with its parent: end every pair this process made when it exits.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGTERM');
  });
}

/**
 * Starts socat and waits until both pseudo-terminals exist. Throws `DeviceError('port_open_failed')` when socat is
 * missing or does not come up within `startTimeoutMs`.
 */
export async function createPtyPair(options: PtyPairOptions = {}): Promise<PtyPair> {
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'register-pty-')));
  if (!ownsDir) await mkdir(dir, { recursive: true });
  const name = options.name ?? 'device';
  const devicePath = join(dir, name);
  const simulatorPath = join(dir, `${name}.sim`);
  const socat = options.socatPath ?? process.env.SOCAT ?? '/usr/bin/socat';
  const child = spawn(socat, ['-d', '-d', `pty,raw,echo=0,link=${devicePath}`, `pty,raw,echo=0,link=${simulatorPath}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  live.add(child);
  installExitHook();
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child);
      resolve();
    });
    child.once('error', () => {
      live.delete(child);
      resolve();
    });
  });

  let log = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new DeviceError('port_open_failed', `socat did not start a pty pair: ${log.trim()}`)),
        options.startTimeoutMs ?? 5000,
      );
      child.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString('utf8');
        if (log.includes('starting data transfer loop')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new DeviceError('port_open_failed', `cannot run ${socat}: ${error.message}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new DeviceError('port_open_failed', `socat exited with ${code}: ${log.trim()}`));
      });
    });
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    if (ownsDir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // Keep draining stderr so socat never blocks on a full pipe.
  child.stderr?.resume();

  let closing: Promise<void> | undefined;
  return {
    devicePath,
    simulatorPath,
    pid: child.pid ?? -1,
    exited,
    close() {
      closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
        if (ownsDir) await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
