/**
 * The deployment's messaging credentials kept only sealed with the KEK (docs/decisions/0093-deployment-secrets-sealed.md),
 * end to end as an operator runs them: `npm run platform-admin -- secrets set|list|unset` spawned against a fresh
 * PostgreSQL database (the value on standard input), then the server (`sync-server/src/main.ts`) started on that
 * database with that KEK — its e-mail worker logs in to a mail server with the sealed SMTP_URL's password and signs
 * with the sealed DKIM key, its SMS carrier calls the provider with the sealed account and token (an old token left
 * in the environment is ignored, with a warning naming it); its log holds no credential and no message body; a dump
 * of the database holds no credential; another KEK stops the start with one line naming the secret.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dkimVerify } from 'mailauth';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmsProvider, type LocalSmsProvider } from '../../sync-server/src/dev/local-sms-provider.ts';
import { createFreshPostgresDatabase } from '../support/databases.ts';
import { waitFor } from '../support/wait-for.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const TSX = join('node_modules', '.bin', 'tsx');
const execFileAsync = promisify(execFile);

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The CLI with `stdin` on its standard input: exit code, standard output and error. */
function platformAdmin(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['sync-server/src/platform-admin.ts', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A mail server that takes only the one login it is given, and keeps each message's bytes. */
async function startAuthSmtp(user: string, password: string): Promise<{ port: number; logins: string[]; raw: Buffer[]; close(): Promise<void> }> {
  const logins: string[] = [];
  const raw: Buffer[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: false,
    allowInsecureAuth: true,
    closeTimeout: 100,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(`${auth.username}:${auth.password}`);
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        raw.push(Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return { port, logins, raw, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe.skipIf(!TEST_DATABASE_URL)('deployment secrets sealed with the KEK: the CLI and the server on PostgreSQL', () => {
  const kek = randomBytes(32).toString('base64');
  const dataDir = mkdtempSync(join(tmpdir(), 'deployment-secrets-'));
  const smtpUser = 'register-mailer';
  const smtpPassword = `pw-${randomBytes(12).toString('hex')}`;
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = `tok-${randomBytes(16).toString('hex')}`;
  const staleToken = `stale-${randomBytes(8).toString('hex')}`;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dkimPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  /** The PEM's base64 lines: none may appear anywhere. */
  const dkimLines = dkimPem.split('\n').filter((line) => line.length > 0 && !line.startsWith('-----'));
  const selector = 'sealed2026';
  const memo = `Table-${randomBytes(4).toString('hex')}`;
  const resolver = async (name: string, rr: string) => {
    if (rr === 'TXT' && name === `${selector}._domainkey.register.example`)
      return [[`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };

  let database: Awaited<ReturnType<typeof createFreshPostgresDatabase>>;
  let smtp: Awaited<ReturnType<typeof startAuthSmtp>>;
  let sms: LocalSmsProvider;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createFreshPostgresDatabase(TEST_DATABASE_URL!);
    smtp = await startAuthSmtp(smtpUser, smtpPassword);
    sms = await startLocalSmsProvider({ accountSid, authToken });
    cliEnv = { ...process.env, DATABASE_URL: database.url, REGISTER_KEK: kek, DATA_DIR: dataDir };
  }, 60_000);
  afterAll(async () => {
    await smtp?.close();
    await sms?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every credential's spellings the log, the dump and the CLI's output must not hold. */
  const secrets = () => [smtpPassword, authToken, accountSid, staleToken, ...dkimLines];
  const leaked = (text: string) => secrets().filter((secret) => text.includes(secret));

  it(
    'secrets set reads the value from standard input only, allows only credential names, and list shows names and dates only',
    { timeout: 120_000 },
    async () => {
      const set = (name: string, value: string) => platformAdmin(['secrets', 'set', name], cliEnv, value);
      const smtpUrl = `smtp://${smtpUser}:${smtpPassword}@127.0.0.1:${smtp.port}`;
      for (const [name, value] of [
        ['SMTP_URL', `${smtpUrl}\n`],
        ['DKIM_PRIVATE_KEY', dkimPem],
        ['SMS_ACCOUNT_SID', accountSid],
        ['SMS_AUTH_TOKEN', authToken],
      ] as const) {
        const result = await set(name, value);
        expect(result, result.stderr).toMatchObject({ code: 0 });
        expect(result.stdout).toContain(`${name} sealed`);
        expect(leaked(result.stdout + result.stderr)).toEqual([]);
      }

      // The value on the command line is refused (it would stay in shell history and ps).
      const onArgv = await platformAdmin(['secrets', 'set', 'SMS_AUTH_TOKEN', authToken], cliEnv);
      expect(onArgv.code).toBe(2);
      expect(onArgv.stderr).toContain('the value is read from standard input, never from the command line');
      // Settings that are not credentials stay in the environment; an empty value is no secret.
      const notSecret = await set('SMTP_FROM', 'receipts@register.example');
      expect(notSecret.code).toBe(2);
      expect(notSecret.stderr).toContain('"SMTP_FROM" is not a deployment secret');
      expect((await set('SMS_API_SECRET', '\n')).stderr).toContain('the value of SMS_API_SECRET is empty');
      // Without a KEK nothing is sealed (none is made up here: it would not be the server's).
      const noKek = await platformAdmin(['secrets', 'set', 'SMS_API_KEY'], { ...cliEnv, REGISTER_KEK: '', DATA_DIR: join(dataDir, 'none') }, 'k');
      expect(noKek.code).toBe(2);
      expect(noKek.stderr).toContain('no key-encryption key');

      const list = await platformAdmin(['secrets', 'list'], cliEnv);
      expect(list.code).toBe(0);
      const rows = list.stdout.trim().split('\n');
      expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(['DKIM_PRIVATE_KEY', 'SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMTP_URL']);
      for (const row of rows) expect(row).toMatch(/^\S+\s+\d{4}-\d\d-\d\dT\S+Z\s+opens with this KEK$/);
      expect(leaked(list.stdout)).toEqual([]);
      const otherKek = await platformAdmin(['secrets', 'list'], { ...cliEnv, REGISTER_KEK: randomBytes(32).toString('base64') });
      expect(otherKek.stdout).toContain('does NOT open with this KEK');
    },
  );

  it('a dump of the database holds none of the credentials, only their sealed forms and a trail without values', { timeout: 60_000 }, async () => {
    const { stdout: dump } = await execFileAsync('pg_dump', ['--data-only', '--dbname', database.url], { maxBuffer: 64 * 1024 * 1024 });
    expect(dump).toContain('deployment_secrets');
    expect(leaked(dump)).toEqual([]);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; value_sealed: string }>('SELECT name, value_sealed FROM deployment_secrets ORDER BY name');
      expect(rows.map((r) => r.name)).toEqual(['DKIM_PRIVATE_KEY', 'SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMTP_URL']);
      for (const row of rows) expect(row.value_sealed).toMatch(/^kek1\./);
      const events = await client.query<{ name: string; action: string; actor: string }>(
        'SELECT name, action, actor FROM deployment_secret_events ORDER BY seq',
      );
      expect(events.rows.map((e) => `${e.action} ${e.name}`)).toEqual([
        'set SMTP_URL',
        'set DKIM_PRIVATE_KEY',
        'set SMS_ACCOUNT_SID',
        'set SMS_AUTH_TOKEN',
      ]);
      for (const event of events.rows) expect(event.actor).toMatch(/^operator:\S+@\S+$/);
    } finally {
      await client.end();
    }
  });

  it(
    'the server sends e-mail and texts with the sealed credentials (an environment token ignored, with a warning) and logs no credential and no body',
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      let out = '';
      const child: ChildProcess = spawn(TSX, ['sync-server/src/main.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          REGISTER_KEK: kek,
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: '127.0.0.1',
          BASE_URL: baseUrl,
          START_BRIDGE: '0',
          DEMO_MODE: '',
          LOG_FORMAT: '',
          SMTP_FROM: 'receipts@register.example',
          DKIM_SELECTOR: selector,
          SMS_PROVIDER: 'twilio',
          SMS_FROM: '+15555550100',
          SMS_API_BASE: sms.url,
          // Left over from before the credentials were sealed: the sealed token must win.
          SMS_AUTH_TOKEN: staleToken,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      try {
        await waitFor(
          () => `the server's start; output so far:\n${out}`,
          () => {
            if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${out}`);
            return out.includes('Register sync server ready') ? true : undefined;
          },
          120_000,
        );
        const { staffToken } = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as { staffToken: string };
        const call = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`${baseUrl}${path}`, {
            method,
            headers: { authorization: `Bearer ${staffToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          return { status: res.status, json: (await res.json()) as Record<string, unknown> };
        };
        const order = await call('POST', '/api/pos/orders', {
          lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }],
        });
        expect(order.status).toBe(201);
        expect((await call('POST', `/api/pos/orders/${order.json.id as string}/receipts`, { channel: 'email', to: 'ada@example.com' })).status).toBe(
          202,
        );
        expect((await call('POST', '/api/pos/pay-requests', { amountCents: 1250, phone: '+14155552671', memo })).status).toBe(201);

        // The mail server took the sealed login, and the DKIM signature made with the sealed key verifies.
        const bytes = await waitFor(
          () => `the receipt at the mail server; output:\n${out}`,
          () => smtp.raw[0],
          60_000,
        );
        expect(new Set(smtp.logins)).toEqual(new Set([`${smtpUser}:${smtpPassword}`]));
        const verified = await dkimVerify(bytes, { resolver });
        expect(verified.results.map((r) => [r.signingDomain, r.selector, r.status.result])).toEqual([['register.example', selector, 'pass']]);
        // The provider took the sealed account and token (a wrong one is 401 there, and nothing is recorded).
        const text = await waitFor(
          () => `the text at the provider; output:\n${out}`,
          () => sms.messages().find((m) => m.direction === 'outbound'),
          60_000,
        );
        expect(text.body).toContain(memo);
        await waitFor(
          () => `both messages recorded sent; output:\n${out}`,
          async () => {
            const mails = (await call('GET', '/api/pos/email-outbox')).json.data as { status: string }[];
            const texts = (await call('GET', '/api/pos/sms-outbox')).json.data as { status: string }[];
            return mails.some((m) => m.status === 'sent') && texts.some((t) => ['sent', 'delivered'].includes(t.status)) ? true : undefined;
          },
          30_000,
        );
        const mail = await simpleParser(bytes);
        const bodies = [text.body, ...(mail.text ?? '').split('\n').filter((line) => line.trim().length >= 20)].map((line) => line.trim());

        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
        const lines = out
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: number; msg?: string; sealedSecrets?: string[] });
        expect(lines.find((l) => l.sealedSecrets)?.sealedSecrets).toEqual(['DKIM_PRIVATE_KEY', 'SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMTP_URL']);
        expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
          'SMS_AUTH_TOKEN is set in the environment and ignored: the sealed SMS_AUTH_TOKEN is used; remove it from the environment',
        ]);
        expect(leaked(out)).toEqual([]);
        expect(bodies.filter((body) => out.includes(body))).toEqual([]);
        expect(out).not.toContain(memo);
      } finally {
        if (child.exitCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
      }
    },
  );

  it('another KEK stops the start with one line naming the secret that does not open, no stack', { timeout: 120_000 }, async () => {
    const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(TSX, ['sync-server/src/main.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          REGISTER_KEK: randomBytes(32).toString('base64'),
          DATA_DIR: dataDir,
          PORT: '0',
          HOST: '127.0.0.1',
          START_BRIDGE: '0',
          DEMO_MODE: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('exit', (code) => resolve({ code, out }));
    });
    expect(result.code).toBe(1);
    expect(result.out.trim()).toBe(
      'Register cannot start: the sealed deployment secret DKIM_PRIVATE_KEY does not open with this key-encryption key (REGISTER_KEK / DATA_DIR/kek.key): ' +
        'start with the key it was sealed with, or set it again (npm run platform-admin -- secrets set DKIM_PRIVATE_KEY)',
    );
  });

  it('secrets unset removes a secret and records it; unsetting it again is an error', { timeout: 60_000 }, async () => {
    const unset = await platformAdmin(['secrets', 'unset', 'SMS_AUTH_TOKEN'], cliEnv);
    expect(unset, unset.stderr).toMatchObject({ code: 0 });
    const again = await platformAdmin(['secrets', 'unset', 'SMS_AUTH_TOKEN'], cliEnv);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no sealed secret named SMS_AUTH_TOKEN');
    const list = await platformAdmin(['secrets', 'list'], cliEnv);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((row) => row.split(/\s+/)[0]),
    ).toEqual(['DKIM_PRIVATE_KEY', 'SMS_ACCOUNT_SID', 'SMTP_URL']);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; action: string }>(
        "SELECT name, action FROM deployment_secret_events WHERE action = 'unset'",
      );
      expect(rows).toEqual([{ name: 'SMS_AUTH_TOKEN', action: 'unset' }]);
    } finally {
      await client.end();
    }
  });
});
