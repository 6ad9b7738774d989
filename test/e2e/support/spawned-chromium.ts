/**
 * Chromium spawned as a process of its own on a given profile and driven over CDP, so a test can SIGKILL it mid-flight
 * (no shutdown, no flush) and relaunch it on the same profile — what a crash or a pulled plug does to a register.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.ts';

/** Starts Chromium on `profile` with a DevTools port; resolves with the process and a CDP connection to it. */
export async function spawnChromium(profile: string): Promise<{ child: ChildProcess; browser: Browser }> {
  const child = spawn(CHROMIUM, [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${buffered}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}): ${buffered}`)));
  });
  return { child, browser: await chromium.connectOverCDP(wsUrl, { timeout: 30_000 }) };
}

/**
 * SIGKILLs the browser (no shutdown, no flush) and waits until it is gone: its whole process group (it was spawned
 * detached), so no renderer or utility process outlives it still writing to the profile.
 */
export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
  // Never wait forever on an 'exit' that a loaded machine delays: the group was SIGKILLed, 10 s is plenty.
  await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())]);
}
