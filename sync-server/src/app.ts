import type { KeyObject } from 'node:crypto';
import { AuditSigner, generateAuditSigningKey } from './platform/auth/audit-signing-key.ts';
import { AuditWitness } from './platform/auth/audit-witness.ts';
import { writeDueCheckpoints } from './kernel/checkpoints.ts';
import { existsSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { IdentityProvider, sealLegacyAppWebhookSecrets, sealLegacySigningKeys } from './platform/auth/identity.ts';
import type { AppContext, ServerConfig, SmsProvider } from './platform/context.ts';
import type { Db } from './platform/db/db.ts';
import { findUnstorable, findUnstorableText } from './platform/http/input-guard.ts';
import { findCardNumberField, maskFreeTextCardNumbers } from '../../core/index.ts';
import { serverLoggerOptions } from './platform/http/log.ts';
import { REGISTER_PAGE_HEADERS } from './platform/http/register-csp.ts';
import { installProblemHandlers, problem, ProblemError, sendFrameworkProblem, sendProblem } from './platform/http/problem.ts';
import {
  registerDevRoutes,
  registerEnrollmentRoutes,
  registerStaffRoutes,
  registerSignUpRoutes,
  registerSettingsRoutes,
} from './modules/merchants/index.ts';
import { registerRegisterConfigRoutes } from './sync/register-config.ts';
import { developerGuard, registerAppRoutes } from './modules/apps/index.ts';
import { registerAppBillingRoutes, type AppBillingOptions } from './modules/app-billing/index.ts';
import {
  registerAppInstallationRoutes,
  createAuthorizationServer,
  oauthAccessTokenPrincipal,
  registerOAuthRoutes,
} from './modules/app-installations/index.ts';
import { installApp, launchApp, uninstallApp } from './workflows/app-installation.ts';
import { secretBox } from './platform/secrets.ts';
import { ExternalIssuer } from './platform/auth/external-oidc.ts';
import { recordRoutes } from './platform/http/route-doc.ts';
import { allowedMethods, trackAllowedMethods } from './platform/http/allowed-methods.ts';
import { registerImageRoutes, type ImageOptions } from './modules/images/index.ts';
import { registerPayPage, registerPayRequestRoutes } from './modules/pay-links/index.ts';
import { registerInvoiceRoutes, getInvoice, INVOICE_PDF_ATTACHMENT, invoicePdfAttachment } from './modules/invoices/index.ts';
import { createOrder } from './workflows/create-order.ts';
import { payOrder } from './workflows/order-payment.ts';
import { cancelOrder } from './workflows/cancel-order.ts';
import { refundOrder } from './workflows/refund-order.ts';
import { sendReceipt } from './workflows/send-receipt.ts';
import { signUpMerchant } from './workflows/merchant-signup.ts';
import { createPayRequest, payPayRequest } from './workflows/pay-link-payment.ts';
import { createInvoice, createSeries, updateInvoice } from './workflows/invoice-drafts.ts';
import { sendInvoice } from './workflows/invoice-issue.ts';
import { recordInvoicePayment, refundInvoice } from './workflows/invoice-payment.ts';
import { voidInvoice } from './workflows/invoice-void.ts';
import { HOUSEKEEPING_INTERVAL_MS, HousekeepingScheduler, runHousekeeping, type HousekeepingSchedulerOptions } from './workflows/housekeeping.ts';
import { registerPosRoutes } from './modules/ledger/index.ts';
import { registerReportRoutes } from './modules/reports/index.ts';
import { registerOpenApiRoutes } from './platform/http/openapi-routes.ts';
import { registerOrderRoutes } from './modules/orders/index.ts';
import { registerOfflineCardRoutes } from './modules/offline-cards/index.ts';
import { registerCustomerRoutes } from './modules/customers/index.ts';
import { registerSyncRoutes } from './sync/routes.ts';
import { registerCloseoutRoutes } from './modules/closeout/index.ts';
import { closeStoreDay, dayStatus, shiftView, storeDayOf } from './workflows/shift-closeout.ts';
import { registerCatalogRoutes } from './modules/catalog/index.ts';
import { registerFloorPlanRoutes } from './modules/floor-plans/index.ts';
import { registerKitchenRoutes } from './modules/kitchen/index.ts';
import { kitchenTicketTimes, markTicket, stationTickets } from './workflows/kitchen-tickets.ts';
import { registerCheckRoutes } from './modules/checks/index.ts';
import { saveFloorPlanKeepingOpenChecks } from './workflows/floor-plan-save.ts';
import { registerAppointmentRoutes } from './modules/appointments/index.ts';
import { registerInventoryRoutes } from './modules/inventory/index.ts';
import { cancelImportJob, importCatalog, startImportJob, stopImportJobs } from './workflows/catalog-import.ts';
import { changeStock, connectSaleStockToCatalog } from './workflows/stock-change.ts';
import { customerPurchaseHistory } from './workflows/customer-history.ts';
import { registerWebhookRoutes, sealLegacyWebhookSecrets, WebhookWorker, type WebhookWorkerOptions } from './modules/webhooks/index.ts';
import { registerPaymentRoutes, type PaymentProcessor, type PayoutAdapter } from './modules/payments/index.ts';
import { registerSanctionsRoutes } from './modules/sanctions/index.ts';
import { registerIdVerificationRoutes } from './modules/id-verification/index.ts';
import { registerBillPaymentRoutes, sandboxBillPartner, type BillPartner } from './modules/bill-payments/index.ts';
import { registerCheckCashingRoutes } from './modules/check-cashing/index.ts';
import { registerTransferRoutes, SANDBOX_CORRIDORS, sandboxTransferPartner, type TransferPartner } from './modules/transfers/index.ts';
import {
  cashCheck,
  completeHeldBillPayment,
  completeHeldCheck,
  completeHeldTransfer,
  financialServicesOverview,
  financialServicesOverviewSchema,
  payBill,
  refuseHeldBillPayment,
  refuseHeldCheck,
  refuseHeldTransfer,
  sendTransfer,
} from './workflows/financial-services.ts';
import { registerFinancialServiceSettingsRoutes } from './modules/financial-services/index.ts';
import {
  OutboxSmsProvider,
  registerSmsRoutes,
  SmsDeliveryWorker,
  TwilioCarrier,
  VonageCarrier,
  type SmsDeliveryWorkerOptions,
  type TwilioConfig,
  type VonageConfig,
} from './modules/sms/index.ts';
import { OutboxEmailProvider, type EmailProvider } from './platform/messaging/email.ts';
import { EmailDeliveryWorker, type EmailDeliveryOptions, type SmtpConfig } from './platform/messaging/smtp.ts';
import { BounceListener, type BounceConfig } from './platform/messaging/bounces.ts';
import { recordEmailReport } from './kernel/email-reports.ts';
import { CHANGE_CHANNEL, ChangeFeed } from './platform/change-feed.ts';
import { rateLimitFor, type RateLimit } from './platform/rate-limit.ts';

/** docs/api.md "Rate limit (apps)": 120 requests per minute per merchant per app on the POS endpoints. */
export const POS_APP_RATE_LIMIT = { name: 'app', quota: 120, windowSeconds: 60 } as const;

export type { ServerConfig, SmsProvider } from './platform/context.ts';

/** The built register, served at `/` when present. */
export const DEFAULT_STATIC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../renderer/dist');
/** Largest accepted request body. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Register schema version this server speaks; older registers get 426. */
export const SERVER_SCHEMA_VERSION = 1;

export interface BuildAppOptions {
  /** A migrated database (see `migrate`). */
  db: Db;
  config: ServerConfig;
  /** Injected clock for tests (token expiry, pay-request expiry, idempotency age). */
  clock?: () => Date;
  sms?: SmsProvider;
  /**
   * SMS delivery (modules/sms): `twilio`, the deployment's Twilio-compatible account (main.ts reads it from
   * `SMS_PROVIDER=twilio`, `SMS_API_BASE`, `SMS_ACCOUNT_SID`, `SMS_AUTH_TOKEN`, `SMS_FROM`), or `vonage`, its Vonage
   * account (`SMS_PROVIDER=vonage`, `SMS_API_KEY`, `SMS_API_SECRET`, `SMS_SIGNATURE_SECRET`, `SMS_SIGNATURE_METHOD`,
   * `SMS_FROM`, `SMS_API_BASE`; Twilio wins if both are given), and the worker's poll
   * interval and backoff. Without an account texts stay queued in `sms_outbox` (said once in the log at build) and
   * the carrier's callback routes do not exist; `enabled: false` runs no delivery worker in this instance.
   */
  smsDelivery?: SmsDeliveryWorkerOptions & { twilio?: TwilioConfig | null; vonage?: VonageConfig | null; enabled?: boolean };
  email?: EmailProvider;
  /**
   * Fastify's pino logger at info, with query values, credentials headers and card numbers redacted
   * (platform/http/log.ts): `true` writes to stdout, a stream (`{ write(line) }`) receives the JSON lines; off by
   * default (tests).
   */
  logger?: boolean | { write(line: string): void };
  /** Quota of app tokens on the POS API; default 120 per minute per merchant per app, shared through PostgreSQL (in memory on PGlite). */
  appRateLimit?: RateLimit;
  /** Image generation: generator, store, credits, purge interval (defaults from the environment; docs/images.md). */
  images?: ImageOptions;
  /** Webhook delivery worker: poll interval, retry delays, timeout; `{ enabled: false }` to not run it here. */
  webhooks?: WebhookWorkerOptions;
  /**
   * E-mail delivery over SMTP (platform/messaging/smtp.ts): `smtp` is the mail server and sender (main.ts reads them
   * from `SMTP_URL` and `SMTP_FROM`); without it e-mails stay queued in `email_outbox`. Poll interval, backoff, attempts;
   * `{ enabled: false }` to not run the worker here.
   */
  emailDelivery?: EmailDeliveryOptions & { smtp?: SmtpConfig | null };
  /**
   * Bounces and complaints by mail (platform/messaging/bounces.ts; main.ts reads `BOUNCE_DOMAIN`, `BOUNCE_SMTP_PORT`,
   * `BOUNCE_SMTP_HOST`): e-mail is sent with VERP envelope senders of `domain`, and with a `port` this instance
   * listens for the reports. The MAC key is derived from the KEK. `onListening` is told the port bound.
   */
  emailBounces?: (BounceConfig & { onListening?: (port: number) => void }) | null;
  /**
   * Ed25519 private key that signs audit checkpoints (main.ts reads it from `AUDIT_SIGNING_KEY` or
   * `DATA_DIR/audit-signing.key`). Omitted: a key generated for this process (tests, in-memory servers).
   */
  auditSigningKey?: KeyObject;
  /**
   * The checkpoint witness file: every signed checkpoint is also appended here, fsync'd, and the verifier reads it
   * (main.ts: `AUDIT_WITNESS_FILE`, else `DATA_DIR/audit-checkpoints.jsonl` beside the key). Omitted: no witness, and
   * `GET /api/pos/audit/verify` warns that checkpoints deleted from the database would go unseen.
   */
  auditWitnessFile?: string;
  /** The housekeeping tick (workflows/housekeeping.ts: recurring invoices, expiries, checkpoints, settlements…): interval; `{ enabled: false }` to not run here. */
  recurringInvoices?: HousekeepingSchedulerOptions;
  /** Quotas of `POST /api/register/pair` (default 10 per minute per client address, 60 per minute for the server). */
  pairingRateLimits?: { perClient?: RateLimit; global?: RateLimit; pin?: RateLimit };
  /**
   * An external OpenID Connect issuer whose ID tokens sign staff in beside the built-in identity provider
   * (platform/auth/external-oidc.ts); main.ts sets it from `OIDC_ISSUER` and `OIDC_AUDIENCE`.
   */
  oidc?: { issuer: string; audience: string };
  /** Quotas of `POST /api/signup` (default 5 an hour per client address, 100 an hour for the server). */
  signUpRateLimits?: { perClient?: RateLimit; global?: RateLimit };
  /** Quotas of developer sign-up, `POST /api/developers` (default 5 an hour per address, 100 an hour in all). */
  developerSignUpRateLimits?: { perClient?: RateLimit; global?: RateLimit };
  /**
   * The payment processor of stores that are not the demo (pay page, invoice card payments); default the sandbox.
   * The demo store runs on the sandbox whatever is given here (modules/payments/processors.ts `processorFor`).
   */
  paymentProcessor?: PaymentProcessor;
  /** The payout adapter of `POST /api/pos/payouts`; default the sandbox's. Never reached for the demo store. */
  payouts?: PayoutAdapter;
  /** The money-transfer partner; default the deterministic sandbox (modules/transfers/partner.ts). */
  transferPartner?: TransferPartner;
  /** The bill-payment partner; default the deterministic sandbox (modules/bill-payments/partner.ts). */
  billPartner?: BillPartner;
  /**
   * App billing: the billing processor of app subscriptions, the payment-connect adapter of developer
   * payouts and the payout minimum; default the sandboxes and 2 500 minor units (modules/app-billing/adapters.ts).
   */
  appBilling?: AppBillingOptions;
}

const stopListening = new WeakMap<ChangeFeed, () => Promise<void>>();

/** In-process feed on PGlite; on PostgreSQL, NOTIFY/LISTEN so every instance's streams hear every write. */
async function changeFeedFor(db: Db): Promise<ChangeFeed> {
  if (!db.listen) return new ChangeFeed();
  const feed = new ChangeFeed(async (merchantId, collections) => {
    await db.query('SELECT pg_notify($1, $2) AS sent', [CHANGE_CHANNEL, JSON.stringify({ merchantId, collections })]);
  });
  const stop = await db.listen(CHANGE_CHANNEL, (payload) => {
    try {
      const { merchantId, collection, collections } = JSON.parse(payload) as { merchantId: unknown; collection?: unknown; collections?: unknown };
      if (typeof merchantId !== 'string') return;
      // `collection`: a notification from an instance of the previous version.
      for (const c of Array.isArray(collections) ? collections : [collection]) if (typeof c === 'string') feed.deliver(merchantId, c);
    } catch {
      // Not ours: ignore.
    }
  });
  stopListening.set(feed, stop);
  return feed;
}

/**
 * Seals, with the process's KEK (platform/secrets.ts), every secret still stored in clear by a server older than
 * migration 0095 — app webhook secrets, webhook subscription secrets, the identity provider's private key — and
 * empties the clear columns. Idempotent; main.ts runs it before the seed, buildApp on every build.
 */
export async function sealLegacySecrets(db: Db): Promise<void> {
  await sealLegacyAppWebhookSecrets(db);
  await sealLegacyWebhookSecrets(db);
  await sealLegacySigningKeys(db);
}

/**
 * Builds the sync server: POS API, replication, dev pairing, the hosted pay page, JWKS and the built register.
 * The database must already be migrated; the app does not close it (the caller owns it).
 */
/** Fastify's `trustProxy` for a hop count: the nearest `hops` proxies are believed (its types take no number). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const config: Required<ServerConfig> = {
    baseUrl: opts.config.baseUrl.replace(/\/+$/, ''),
    staticDir: opts.config.staticDir === undefined ? DEFAULT_STATIC_DIR : opts.config.staticDir,
    minRegisterSchemaVersion: opts.config.minRegisterSchemaVersion ?? SERVER_SCHEMA_VERSION,
    streamKeepAliveMs: opts.config.streamKeepAliveMs ?? 15_000,
    allowPrivateWebhookReceivers: opts.config.allowPrivateWebhookReceivers ?? false,
    demoSelfPair: opts.config.demoSelfPair ?? false,
    deviceBridgeUrl: opts.config.deviceBridgeUrl ?? null,
    demoOutbox: opts.config.demoOutbox ?? null,
    trustProxy: opts.config.trustProxy ?? false,
  };
  const clock = opts.clock ?? (() => new Date());
  await sealLegacySecrets(opts.db);
  const idp = await IdentityProvider.load(opts.db, config.baseUrl);
  const ctx: AppContext = {
    db: opts.db,
    config,
    clock,
    idp,
    sms: opts.sms ?? new OutboxSmsProvider(),
    email: opts.email ?? new OutboxEmailProvider(),
    feed: await changeFeedFor(opts.db),
    appRateLimit: opts.appRateLimit ?? rateLimitFor(opts.db, POS_APP_RATE_LIMIT),
    auditSigner: new AuditSigner(opts.auditSigningKey ?? generateAuditSigningKey()),
    auditWitness: opts.auditWitnessFile ? new AuditWitness(opts.auditWitnessFile) : null,
    auditCheckpointIntervalMs: opts.recurringInvoices?.enabled === false ? null : (opts.recurringInvoices?.intervalMs ?? HOUSEKEEPING_INTERVAL_MS),
    ...(opts.oidc ? { externalIssuer: new ExternalIssuer(opts.oidc.issuer, opts.oidc.audience) } : {}),
  };

  const app = Fastify({
    logger: opts.logger ? serverLoggerOptions(opts.logger === true ? undefined : opts.logger) : false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    frameworkErrors: sendFrameworkProblem,
  });
  installProblemHandlers(app);
  recordRoutes(app);
  trackAllowedMethods(app);
  app.addHook('onClose', async () => {
    await stopListening.get(ctx.feed)?.();
  });
  // JSON only: anything else is 415, not a string handed to the routes.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const raw = request.headers['x-register-schema-version'];
    if (raw === undefined) return;
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (!value || !/^\d{1,6}$/.test(value)) {
      throw new ProblemError(400, 'validation_error', 'Invalid x-register-schema-version: send a positive integer.', [
        { path: 'x-register-schema-version', message: 'must be a positive integer' },
      ]);
    }
    if (Number(value) < config.minRegisterSchemaVersion) {
      throw new ProblemError(
        426,
        'register_too_old',
        `This register speaks schema version ${value}; the server needs ${config.minRegisterSchemaVersion} or newer. Update the register app.`,
        undefined,
        { Upgrade: `register-schema/${config.minRegisterSchemaVersion}` },
      );
    }
  });

  // Bodies and query strings PostgreSQL could not store are a 400, never a 500. Replication pushes check each
  // document themselves, so one bad document is quarantined instead of failing the push.
  // The same boundary keeps card numbers out (core/card-number-guard.ts, docs/api.md "Card numbers"): every string of
  // the body, query and path is scanned after Unicode normalisation; free-text fields are masked here, any other field
  // holding a card number is a 400 naming it (a pushed document is quarantined by its collection's push instead).
  app.addHook('preValidation', async (request) => {
    request.query = maskFreeTextCardNumbers(request.query);
    if (typeof request.body === 'object' && request.body !== null) request.body = maskFreeTextCardNumbers(request.body);
    const inPath = findCardNumberField(request.params);
    const inQuery = findUnstorable(request.query);
    const isPush = request.method === 'POST' && /^\/api\/sync\/[^/]+\/push(\?|$)/.test(request.url);
    // A text/csv body is read cell by cell by its route (catalog import), with the same rule.
    const inBody = isPush ? undefined : typeof request.body === 'string' ? findUnstorableText(request.body) : findUnstorable(request.body);
    const found = inPath ?? inQuery ?? inBody;
    if (found) throw new ProblemError(400, 'validation_error', `Invalid ${found.path}: ${found.message}.`, [found]);
  });

  // Unknown query parameters are a 400, on routes that take none as on those that do: a route that declares
  // its query in its RouteDoc parses it with that strict schema itself; here the others refuse any parameter.
  app.addHook('preValidation', async (request) => {
    if (!/^\/api\/(pos|v1)\//.test(request.url)) return;
    const doc = request.routeOptions.config.openapi;
    // Files (generated images) are fetched by browsers, which may add a cache-busting query: those pass.
    if (doc?.query || doc?.produces?.every((type) => type.startsWith('image/'))) return;
    const unknown = Object.keys((request.query ?? {}) as Record<string, unknown>);
    if (unknown.length > 0) {
      throw new ProblemError(
        400,
        'validation_error',
        `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. This route takes none.`,
        unknown.map((path) => ({ path, message: 'is not a parameter of this route' })),
      );
    }
  });

  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return idp.jwks;
  });
  app.get('/health', async () => ({ ok: true }));

  registerPosRoutes(app, ctx);
  registerReportRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerOpenApiRoutes(app, ctx);
  registerOrderRoutes(app, ctx, { createOrder, payOrder, cancelOrder, refundOrder, sendReceipt });
  registerCustomerRoutes(app, ctx, { customerPurchaseHistory });
  registerSyncRoutes(app, ctx);
  registerCloseoutRoutes(app, ctx, { shiftView, dayStatus, closeStoreDay, storeDayOf });
  registerOfflineCardRoutes(app, ctx);
  connectSaleStockToCatalog();
  registerCatalogRoutes(app, ctx, { importCatalog, startImportJob, cancelImportJob });
  app.addHook('onClose', async () => stopImportJobs(ctx));
  registerInventoryRoutes(app, ctx, { changeStock });
  registerKitchenRoutes(app, ctx, { stationTickets, markTicket, kitchenTicketTimes });
  registerFloorPlanRoutes(app, ctx, { saveFloorPlan: saveFloorPlanKeepingOpenChecks });
  registerCheckRoutes(app, ctx);
  registerAppointmentRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerPaymentRoutes(app, ctx, opts.payouts);
  registerBillPaymentRoutes(app, ctx, { payBill, completeHeldBillPayment, refuseHeldBillPayment }, opts.billPartner);
  registerFinancialServiceSettingsRoutes(app, ctx);
  registerCheckCashingRoutes(app, ctx, {
    cashCheck,
    completeHeldCheck,
    refuseHeldCheck,
    overview: (db, merchantId) => financialServicesOverview(db, merchantId, SANDBOX_CORRIDORS),
    overviewSchema: financialServicesOverviewSchema,
  });
  registerTransferRoutes(app, ctx, { sendTransfer, completeHeldTransfer, refuseHeldTransfer }, opts.transferPartner);
  registerSanctionsRoutes(app, ctx);
  registerIdVerificationRoutes(app, ctx);
  if (opts.webhooks?.enabled !== false) {
    const webhookWorker = new WebhookWorker(opts.db, clock, {
      onError: (err) => app.log.error({ err }, 'webhook worker'),
      allowPrivateNetworks: config.allowPrivateWebhookReceivers,
      ...opts.webhooks,
    });
    app.addHook('onReady', async () => webhookWorker.start());
    app.addHook('onClose', async () => webhookWorker.stop());
  }
  const twilio = opts.smsDelivery?.twilio ?? null;
  const vonage = twilio ? null : (opts.smsDelivery?.vonage ?? null);
  if (twilio || vonage) {
    registerSmsRoutes(app, ctx, twilio ? { twilio } : { vonage: vonage! });
    if (opts.smsDelivery?.enabled !== false) {
      const smsWorker = new SmsDeliveryWorker(
        opts.db,
        clock,
        twilio ? new TwilioCarrier(twilio) : new VonageCarrier(vonage!),
        (twilio ?? vonage)!.from,
        // Vonage signs the receipt's parameters, not its URL: our id travels as its signed `client-ref` instead.
        twilio
          ? (id) => `${config.baseUrl}/api/sms/status/twilio?message=${encodeURIComponent(id)}`
          : () => `${config.baseUrl}/api/sms/status/vonage`,
        { onError: (err) => app.log.error({ err }, 'sms delivery worker'), ...opts.smsDelivery },
      );
      app.addHook('onReady', async () => smsWorker.start());
      app.addHook('onClose', async () => smsWorker.stop());
    }
  } else {
    app.log.info('SMS: no carrier configured (set SMS_PROVIDER=twilio or vonage and its SMS_* variables): texts stay queued in sms_outbox');
  }
  const { smtp, ...emailDelivery } = opts.emailDelivery ?? {};
  const bounceConfig = opts.emailBounces ?? null;
  const bounces = bounceConfig ? { domain: bounceConfig.domain, key: secretBox().derive('email-bounces:v1') } : undefined;
  if (bounceConfig && bounces && bounceConfig.port !== null) {
    const listener = new BounceListener(
      bounceConfig,
      async (raw, envelopeTo) => {
        const result = await recordEmailReport(ctx, raw, envelopeTo, bounces);
        // Addresses and ids only: never what a message says.
        if (result.recorded) app.log.info({ emailId: result.emailId, effect: result.outcome.effect }, 'e-mail report recorded');
        else app.log.warn({ envelopeTo, why: result.why }, 'e-mail report ignored');
      },
      { onError: (err) => app.log.error({ err }, 'bounce listener') },
    );
    app.addHook('onReady', async () => {
      const port = await listener.start();
      app.log.info(`bounces and complaints: listening for reports on SMTP port ${port} for ${bounceConfig.domain}`);
      bounceConfig.onListening?.(port);
    });
    app.addHook('onClose', async () => listener.stop());
  }
  if (!smtp) {
    app.log.info('SMTP_URL is not set: e-mails stay queued in email_outbox (GET /api/pos/email-outbox), none is sent');
  } else if (emailDelivery.enabled !== false) {
    const emailWorker = new EmailDeliveryWorker(opts.db, clock, smtp, {
      onError: (err) => app.log.error({ err }, 'e-mail delivery worker'),
      attachments: { [INVOICE_PDF_ATTACHMENT]: (merchantId, invoiceId) => invoicePdfAttachment(ctx, merchantId, invoiceId) },
      ...(bounces ? { bounces } : {}),
      ...emailDelivery,
    });
    app.addHook('onReady', async () => emailWorker.start());
    app.addHook('onClose', async () => emailWorker.stop());
  }
  registerEnrollmentRoutes(app, ctx, opts.pairingRateLimits);
  registerRegisterConfigRoutes(app, ctx);
  registerStaffRoutes(app, ctx);
  registerSignUpRoutes(app, ctx, { signUpMerchant }, opts.signUpRateLimits);
  registerAppRoutes(app, ctx, opts.developerSignUpRateLimits);
  registerAppBillingRoutes(app, ctx, { developerGuard: developerGuard(ctx) }, opts.appBilling);
  registerAppInstallationRoutes(app, ctx, {
    installApp: (c, p, input) => installApp(c, p, input, opts.appBilling),
    uninstallApp: (c, p, id) => uninstallApp(c, p, id, opts.appBilling),
    launchApp,
  });
  ctx.oauthAccessToken = (token, now) => oauthAccessTokenPrincipal(opts.db, token, now);
  registerOAuthRoutes(app, ctx, await createAuthorizationServer(ctx, [secretBox().derive('oauth-cookies:v1')]));
  registerDevRoutes(app, ctx);
  registerPayPage(app, ctx, { payPayRequest: (c, id, charge) => payPayRequest(c, id, charge, opts.paymentProcessor), getInvoice });
  registerPayRequestRoutes(app, ctx, { createPayRequest });
  registerInvoiceRoutes(app, ctx, {
    createInvoice,
    updateInvoice,
    sendInvoice,
    recordInvoicePayment: (c, p, id, input) => recordInvoicePayment(c, p, id, input, opts.paymentProcessor),
    refundInvoice,
    voidInvoice,
    createSeries,
  });
  const servicePartners = { transfer: opts.transferPartner ?? sandboxTransferPartner, bill: opts.billPartner ?? sandboxBillPartner };
  const recurringInvoices = new HousekeepingScheduler(() => runHousekeeping(ctx, servicePartners, opts.appBilling), {
    onError: (err) => app.log.error({ err }, 'recurring invoices'),
    ...opts.recurringInvoices,
  });
  app.decorate('recurringInvoices', recurringInvoices);
  if (opts.recurringInvoices?.enabled !== false) app.addHook('onReady', async () => recurringInvoices.start());
  app.addHook('onClose', async () => {
    await recurringInvoices.stop();
    // Where the tick runs, the last entries are checkpointed on the way out too, so a verifier run while the server is
    // stopped (`npm run audit:verify` on PGlite) finds no stale head.
    if (opts.recurringInvoices?.enabled !== false) {
      await writeDueCheckpoints(ctx.db, ctx.auditSigner, ctx.clock(), ctx.auditWitness).catch((err: unknown) =>
        app.log.error({ err }, 'audit checkpoints at close'),
      );
    }
  });
  registerImageRoutes(app, ctx, opts.images);

  const staticDir = config.staticDir;
  const hasRegister = staticDir !== null && existsSync(join(staticDir, 'index.html'));
  if (hasRegister) {
    await app.register(fastifyStatic, {
      root: staticDir,
      wildcard: true,
      // The service worker and the shell must be revalidated, or a deploy never reaches an installed register.
      setHeaders(res, path) {
        if (path.endsWith('sw.js') || path.endsWith('index.html') || path.endsWith('.webmanifest')) res.header('Cache-Control', 'no-cache');
        // The example in-platform app's pages run sandboxed even when opened outside the register's frame (an opaque
        // origin: none of the register's storage, cookies or service worker), as its frame's `sandbox` attribute does.
        if (path.includes(`${sep}example-app${sep}`) && path.endsWith('.html'))
          res.header('Content-Security-Policy', 'sandbox allow-scripts allow-forms');
        else if (path.endsWith('.html')) for (const [name, value] of Object.entries(REGISTER_PAGE_HEADERS)) res.header(name, value);
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const isApi = path.startsWith('/api/') || path === '/api' || path.startsWith('/.well-known/') || path.startsWith('/oauth/');
    if (hasRegister && !isApi && (request.method === 'GET' || request.method === 'HEAD')) {
      reply.header('Cache-Control', 'no-cache').headers(REGISTER_PAGE_HEADERS);
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    // A path that exists with another method: 405 with Allow (RFC 9110 §15.5.6), not 404. The register's catch-all
    // (`/*`, GET and HEAD) does not count for API paths, which it does not serve.
    const allowed = allowedMethods(app, path, { ignoreCatchAll: isApi });
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendProblem(reply, problem(405, 'method_not_allowed', `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`), {
        Allow: allowed.join(', '),
      });
    }
    return sendProblem(reply, problem(404, 'not_found', `No route ${request.method} ${path}.`));
  });

  return app;
}
