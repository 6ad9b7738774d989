/**
 * The hardware bridge started on a busy port (`npm run bridge` while another bridge runs) exits with one
 * line naming `BRIDGE_PORT` — no stack trace. The bridge runs as its own process, as `npm start` runs it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('hardware bridge on a busy port', () => {
  let busy: Server;
  let port: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'bridge-busy-'));

  beforeAll(async () => {
    busy = createServer();
    port = await new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => busy.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 1 with one line naming BRIDGE_PORT', { timeout: 60_000 }, async () => {
    const child = spawn(join('node_modules', '.bin', 'tsx'), ['electron/bridge/main.ts'], {
      env: { ...process.env, BRIDGE_PORT: String(port), DATA_DIR: dataDir, DEVICE_SIMULATORS: 'never' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(timer);
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`port ${port}`);
    expect(lines[0]).toContain('BRIDGE_PORT');
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});
