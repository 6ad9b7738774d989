/**
 * What `npm start` shows a newcomer: the server started as `scripts/start.ts` starts it (`LOG_FORMAT=pretty`) prints
 * its banner, keeps the owner's PIN in `DATA_DIR/demo-credentials.json`, and logs one readable line per write or
 * failed request — answered reads (a register's polling) are left out, so the banner is not buried under JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.ts';

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('npm start: the banner and the readable log', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'start-banner-'));
  let child: ChildProcess | undefined;
  let port = 0;
  let out = '';
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the PIN in the credentials file and logs writes and failures as one line each, reads not at all', { timeout: 120_000 }, async () => {
    port = await freePort();
    child = spawn(join('node_modules', '.bin', 'tsx'), ['sync-server/src/main.ts'], {
      // BASE_URL as a person's shell has it: unset (vitest sets it to Vite's '/').
      env: {
        ...process.env,
        BASE_URL: `http://localhost:${port}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DEMO_MODE: '1',
        LOG_FORMAT: 'pretty',
        START_BRIDGE: '0',
        DATABASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(
      () => `the banner; output so far:\n${out}`,
      () => {
        if (child!.exitCode !== null) throw new Error(`the server exited (${child!.exitCode}):\n${out}`);
        return /Owner PIN: +(\d+)/.test(out) ? true : undefined;
      },
      100_000,
    );
    const printedPin = /Owner PIN: +(\d+)/.exec(out)![1];
    const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as { ownerPin: string; appToken: string };
    expect(credentials.ownerPin).toBe(printedPin);

    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${credentials.appToken}` };
    expect((await fetch(`${base}/api/pos/catalog`, { headers: auth })).status).toBe(200);
    const refused = await fetch(`${base}/api/pos/pay-requests`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ amountCents: -5, phone: '+14155552671' }),
    });
    expect(refused.status).toBe(400);

    await waitFor(
      () => `the refused request's line; output:\n${out}`,
      () => (out.includes('POST /api/pos/pay-requests → 400') ? true : undefined),
      10_000,
    );
    expect(out).not.toContain('GET /api/pos/catalog');
    expect(out).not.toMatch(/^\{"level"/m);
    expect(out).not.toContain('incoming request');
  });

  it(
    "keeps the demo store's e-mail and texts on this machine: a receipt e-mail and a pay request text land in the demo outbox",
    { timeout: 60_000 },
    async () => {
      const outbox = join(dataDir, 'demo-outbox');
      expect(out).toContain(`Demo outbox:  ${outbox} (e-mail in mail/*.eml, texts in sms.jsonl; nothing is sent outside)`);
      const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as { staffToken: string };
      const base = `http://127.0.0.1:${port}`;
      const call = async (path: string, body: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${credentials.staffToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, json: (await res.json()) as { id: string } };
      };
      const order = await call('/api/pos/orders', {
        lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }],
      });
      expect(order.status).toBe(201);
      expect((await call(`/api/pos/orders/${order.json.id}/receipts`, { channel: 'email', to: 'ada@example.com' })).status).toBe(202);
      expect((await call('/api/pos/pay-requests', { amountCents: 1250, phone: '+14155552671', memo: 'Table 4' })).status).toBe(201);

      const mail = await waitFor(
        () => `the receipt in ${outbox}/mail; output:\n${out}`,
        () => (existsSync(join(outbox, 'mail', '1.eml')) ? readFileSync(join(outbox, 'mail', '1.eml'), 'utf8') : undefined),
        30_000,
      );
      const parsed = await simpleParser(mail);
      expect(parsed.to).toMatchObject({ text: 'ada@example.com' });
      expect(parsed.subject).toMatch(/^Your receipt R\d+-\d+ from Register Demo Café/);
      expect(parsed.from?.text).toBe('"Register Demo Café & Market" <receipts@demo.register.localhost>');
      const texts = await waitFor(
        () => `the text in ${outbox}/sms.jsonl; output:\n${out}`,
        () => {
          const lines = existsSync(join(outbox, 'sms.jsonl')) ? readFileSync(join(outbox, 'sms.jsonl'), 'utf8').trim().split('\n') : [];
          return lines.length > 0 ? lines.map((l) => JSON.parse(l) as { to: string; body: string }) : undefined;
        },
        30_000,
      );
      expect(texts).toEqual([expect.objectContaining({ to: '+14155552671', body: expect.stringContaining('payment request for $12.50') })]);
      // The console says where each went, and nothing of what they say.
      await waitFor(
        () => `both console lines; output:\n${out}`,
        () => (out.includes('Demo e-mail:') && out.includes('Demo text:') ? true : undefined),
        10_000,
      );
      expect(out).not.toContain('payment request for $12.50');
      expect(out).not.toContain('Your receipt R');
    },
  );
});
