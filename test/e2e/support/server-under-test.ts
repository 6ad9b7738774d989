/**
 * The sync server the end-to-end tests drive: the real server on an in-memory database seeded with the demo store
 * (test/support/server.ts), listening on 127.0.0.1 and serving the built register from renderer/dist.
 */
import { RateLimit } from '../../../sync-server/src/platform/rate-limit.ts';
import type { CatalogItem, TaxRate } from '../../../core/index.ts';
import type { Db } from '../../../sync-server/src/platform/db/db.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalSmtpServer } from '../../../sync-server/src/dev/local-smtp-server.ts';
import { startDemoSmsProvider } from '../../../sync-server/src/dev/local-sms-provider.ts';
import { startTestServer } from '../../support/server.ts';

export interface ServerUnderTest {
  baseUrl: string;
  staffToken: string;
  /** The demo owner's PIN: staff sign in with it on a register (the back office asks for it). */
  ownerPin: string;
  /** The seeded demo catalog, as the seed defines it (the tests' source of expected prices). */
  catalog: { items: readonly CatalogItem[]; taxRates: readonly TaxRate[] };
  /** The server's database and the demo store's id (for suites that seed rows directly, e.g. a large catalog). */
  db: Db;
  merchantId: string;
  close(): Promise<void>;
}

/**
 * `demoSelfPair: false` starts it without demo mode: registers then pair with a code only. `demoOutbox: true` sends
 * e-mail and texts as `npm start` does in demo mode: to a local mail server and a local SMS provider (in a temporary
 * folder, removed on close), read back by the back office's Demo outbox.
 */
export async function startServerUnderTest(options: { demoSelfPair?: boolean; demoOutbox?: boolean } = {}): Promise<ServerUnderTest> {
  // Browser suites sign staff in many times a minute (each test opens the register and the back office); the PIN
  // quota itself (5 a minute per register) is tested in test/server/enrollment.test.ts.
  const pin = new RateLimit({ name: 'pin-sign-in', quota: 1_000, windowSeconds: 60 });
  const dir = options.demoOutbox ? await mkdtemp(join(tmpdir(), 'register-e2e-outbox-')) : null;
  const mail = dir ? await startLocalSmtpServer({ dir: join(dir, 'mail') }) : null;
  const sms = dir ? await startDemoSmsProvider(join(dir, 'sms.jsonl')) : null;
  const server = await startTestServer({
    listen: true,
    pairingRateLimits: { pin },
    ...(options.demoSelfPair === false ? { demoSelfPair: false } : {}),
    ...(dir && mail && sms
      ? {
          emailDelivery: { smtp: { url: mail.url, from: 'receipts@demo.register.localhost' }, pollIntervalMs: 50 },
          smsDelivery: {
            twilio: { apiBase: sms.url, accountSid: sms.accountSid, authToken: sms.authToken, from: '+15555550100' },
            pollIntervalMs: 50,
          },
          demoOutbox: { mailDir: join(dir, 'mail'), smsFile: join(dir, 'sms.jsonl') },
        }
      : {}),
  });
  return {
    baseUrl: server.baseUrl.replace(/\/$/, ''),
    staffToken: server.credentials.staffToken,
    ownerPin: server.credentials.ownerPin,
    catalog: server.catalog,
    db: server.db,
    merchantId: server.credentials.merchantId,
    close: async () => {
      await server.close();
      await mail?.close();
      await sms?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
