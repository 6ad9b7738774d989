import type { TrustProxy } from '../../sync-server/src/platform/http/trust-proxy.ts';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../sync-server/src/app.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { resetStaffPin } from '../../sync-server/src/modules/merchants/staff-pins.ts';
import { databaseTargets, type DatabaseTarget } from './databases.ts';

export interface TestServerOptions {
  /** Database to run on; default: PGlite in memory. */
  target?: DatabaseTarget;
  /** Proxies believed about `X-Forwarded-For` (ServerConfig.trustProxy); default none, as shipped. */
  trustProxy?: TrustProxy;
  /** Listen on 127.0.0.1 with a random port (needed for SSE, browsers and e2e); default false (use `app.inject`). */
  listen?: boolean;
  /** Folder of the built register to serve at `/`; default `renderer/dist` when it exists; `null` to disable. */
  staticDir?: string | null;
  clock?: () => Date;
  sms?: BuildAppOptions['sms'];
  /** SMS delivery through a carrier (account, worker poll interval and backoff); default none: texts stay queued. */
  smsDelivery?: BuildAppOptions['smsDelivery'];
  /** App-token quota on the POS API (default 120 per minute). */
  appRateLimit?: BuildAppOptions['appRateLimit'];
  /** SSE keep-alive interval in ms (default 15 000). */
  streamKeepAliveMs?: number;
  /** Image routes' options (generator, store, staff and app rate limits). */
  images?: BuildAppOptions['images'];
  /** Recurring invoices scheduler options (`{ enabled: false }` to not run it). */
  recurringInvoices?: BuildAppOptions['recurringInvoices'];
  /** Webhook delivery worker options (poll interval, retry delays, timeout). */
  webhooks?: BuildAppOptions['webhooks'];
  /** E-mail delivery over SMTP: the mail server and sender, poll interval, backoff (none: e-mails stay queued). */
  emailDelivery?: BuildAppOptions['emailDelivery'];
  /** Bounces and complaints by mail: VERP senders of a domain and, with a port, the report listener (default none). */
  emailBounces?: BuildAppOptions['emailBounces'];
  /** Audit checkpoint signing key (default: one generated for the server). */
  auditSigningKey?: BuildAppOptions['auditSigningKey'];
  auditWitnessFile?: BuildAppOptions['auditWitnessFile'];
  /** Webhook receivers on 127.0.0.1 (the suites' own receivers): allowed unless false (ServerConfig). */
  allowPrivateWebhookReceivers?: boolean;
  /** The server's request log (platform/http/log.ts): a stream receiving its JSON lines; default none. */
  logger?: BuildAppOptions['logger'];
  /** Demo mode's local mail folder and SMS file read by the Demo outbox (ServerConfig.demoOutbox); default none. */
  demoOutbox?: BuildAppOptions['config']['demoOutbox'];
  /** Demo mode's loopback self-pairing of registers (`POST /api/dev/pair-register`): on unless false (ServerConfig). */
  demoSelfPair?: boolean;
  /** Quotas of the pairing-code exchange (default 10 per minute per address, 60 per minute in all). */
  pairingRateLimits?: BuildAppOptions['pairingRateLimits'];
  /** Quotas of sign-up (default 5 an hour per address, 100 an hour in all). */
  signUpRateLimits?: BuildAppOptions['signUpRateLimits'];
  developerSignUpRateLimits?: BuildAppOptions['developerSignUpRateLimits'];
  /** An external OpenID Connect issuer whose ID tokens sign staff in (default none). */
  oidc?: BuildAppOptions['oidc'];
  /** The payment processor of stores that are not the demo (default the sandbox; the demo store always runs on it). */
  paymentProcessor?: BuildAppOptions['paymentProcessor'];
  /** The payout adapter (default the sandbox's). */
  payouts?: BuildAppOptions['payouts'];
  /** App billing's adapters and payout minimum (default the sandboxes, 2 500). */
  appBilling?: BuildAppOptions['appBilling'];
}

export interface TestCredentials {
  merchantId: string;
  merchantName: string;
  currency: string;
  staffId: string;
  /** Owner staff ID token (12 h). */
  staffToken: string;
  /** The demo owner's PIN (sign-in on a paired register: `POST /api/register/sign-in`). */
  ownerPin: string;
  /** Demo app token with every scope: catalog:read orders:read pay:create webhooks. */
  appToken: string;
  appId: string;
  appScopes: readonly string[];
  webhookSecret: string;
}

/**
 * A running, migrated and seeded sync server (the demo store) for tests:
 * - `app` — the Fastify instance (`app.inject(...)` works whether or not it listens);
 * - `db` — the database (query it to count rows);
 * - `baseUrl` — `http://127.0.0.1:<port>` when `listen: true`, else `http://localhost` (the configured base URL);
 * - `credentials` — see {@link TestCredentials};
 * - `catalog` — the seeded demo catalog `{ items, taxRates }` (core shapes);
 * - `issueStaffToken(options)` — another staff token for the demo owner (e.g. expired: `{ ttlSeconds: -60 }`);
 * - `close()` — closes the app and the database (drops a PostgreSQL test database).
 */
export interface TestServer {
  app: FastifyInstance;
  db: Db;
  baseUrl: string;
  credentials: TestCredentials;
  catalog: { items: typeof DEMO_CATALOG_ITEMS; taxRates: typeof DEMO_TAX_RATES };
  issueStaffToken(options?: { ttlSeconds?: number; now?: Date }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const target = options.target ?? databaseTargets()[0]!;
  const db = await (target.openMigrated ? target.openMigrated() : target.open());
  try {
    await migrate(db);
    const seed = await seedDemoStore(db);
    let baseUrl = 'http://localhost';
    // The base URL (token issuer, pay links) must name the real port, so a free port is picked before building.
    let app: FastifyInstance;
    // Built once the base URL is known (listening needs the real port first).
    const build = () =>
      buildApp({
        db,
        config: {
          baseUrl,
          staticDir: options.staticDir,
          streamKeepAliveMs: options.streamKeepAliveMs,
          allowPrivateWebhookReceivers: options.allowPrivateWebhookReceivers ?? true,
          demoSelfPair: options.demoSelfPair ?? true,
          trustProxy: options.trustProxy ?? false,
          demoOutbox: options.demoOutbox ?? null,
        },
        clock: options.clock,
        sms: options.sms,
        smsDelivery: options.smsDelivery,
        appRateLimit: options.appRateLimit,
        webhooks: options.webhooks,
        emailDelivery: options.emailDelivery,
        emailBounces: options.emailBounces,
        images: options.images,
        recurringInvoices: options.recurringInvoices,
        pairingRateLimits: options.pairingRateLimits,
        signUpRateLimits: options.signUpRateLimits,
        developerSignUpRateLimits: options.developerSignUpRateLimits,
        ...(options.oidc ? { oidc: options.oidc } : {}),
        auditSigningKey: options.auditSigningKey,
        auditWitnessFile: options.auditWitnessFile,
        logger: options.logger,
        paymentProcessor: options.paymentProcessor,
        payouts: options.payouts,
        appBilling: options.appBilling,
      });
    if (options.listen) {
      const { createServer } = await import('node:net');
      const port = await new Promise<number>((resolvePort, rejectPort) => {
        const probe = createServer();
        probe.once('error', rejectPort);
        probe.listen(0, '127.0.0.1', () => {
          const address = probe.address();
          probe.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
        });
      });
      baseUrl = `http://127.0.0.1:${port}`;
      app = await build();
      await app.listen({ port, host: '127.0.0.1' });
    } else {
      app = await build();
      await app.ready();
    }
    const idp = await IdentityProvider.load(db, baseUrl);
    const issueStaffToken = (opts: { ttlSeconds?: number; now?: Date } = {}) =>
      idp.issueStaffToken(
        { staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole },
        { now: opts.now ?? options.clock?.(), ...(opts.ttlSeconds !== undefined ? { ttlSeconds: opts.ttlSeconds } : {}) },
      );
    return {
      app,
      db,
      baseUrl,
      credentials: {
        merchantId: seed.merchantId,
        merchantName: seed.merchantName,
        currency: seed.currency,
        staffId: seed.staffId,
        staffToken: await issueStaffToken(),
        ownerPin: await resetStaffPin(db, seed.merchantId, seed.staffId),
        appToken: seed.appToken!,
        appId: seed.appId,
        appScopes: seed.appScopes,
        webhookSecret: seed.webhookSecret,
      },
      catalog: { items: DEMO_CATALOG_ITEMS, taxRates: DEMO_TAX_RATES },
      issueStaffToken,
      async close() {
        await app.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}
