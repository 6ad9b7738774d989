import type { AuditWitness } from './auth/audit-witness.ts';
import type { ExternalIssuer } from './auth/external-oidc.ts';
import type { Db, Queryable } from './db/db.ts';
import type { IdentityProvider, Principal } from './auth/identity.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { RateLimit } from './rate-limit.ts';
import type { EmailProvider } from './messaging/email.ts';
import type { DemoOutboxConfig } from './messaging/demo-outbox.ts';
import type { AuditSigner } from './auth/audit-signing-key.ts';
import type { TrustProxy } from './http/trust-proxy.ts';

/** Configuration of one server instance. */
export interface ServerConfig {
  /** Public base URL, no trailing slash, e.g. `http://localhost:8787`. Issuer of staff tokens and base of pay links. */
  baseUrl: string;
  /** Folder of the built register (`renderer/dist`); served at `/` when it exists. `null` disables static serving. */
  staticDir?: string | null;
  /** Oldest register schema version the server still accepts (`x-register-schema-version`). Default 1. */
  minRegisterSchemaVersion?: number;
  /** Keep-alive comment interval of the SSE streams, in ms. Default 15 000. */
  streamKeepAliveMs?: number;
  /**
   * Accept and deliver to webhook receivers on loopback, private and link-local addresses (a developer's local
   * receiver). Default false: such URLs are refused (400 naming `url`) and never connected to
   * (services/receiver-network.ts). main.ts sets it from `WEBHOOK_ALLOW_PRIVATE_NETWORKS=1`.
   */
  allowPrivateWebhookReceivers?: boolean;
  /**
   * Demo mode: a register served on loopback may pair itself with the demo store (`POST /api/dev/pair-register`,
   * modules/merchants/dev-routes.ts; the route does not exist otherwise). Default false; `npm start` sets it
   * (main.ts reads `DEMO_MODE=1`).
   */
  demoSelfPair?: boolean;
  /**
   * Address of the web hardware bridge started beside this server (`ws://127.0.0.1:BRIDGE_PORT`), answered to registers
   * by `GET /api/register/device-bridge`. main.ts sets it from `BRIDGE_PORT` (default 8790) unless
   * `START_BRIDGE=0`; omitted → `null` (no bridge known).
   */
  deviceBridgeUrl?: string | null;
  /**
   * Demo mode's local mail server folder and SMS provider file (platform/messaging/demo-outbox.ts), read by
   * `GET /api/pos/demo-outbox`; omitted or null → real providers (or none): that route answers 404. main.ts sets it.
   */
  demoOutbox?: DemoOutboxConfig | null;
  /**
   * Reverse proxies believed about the client's address (`X-Forwarded-For`): `false` (default: the TCP peer is the
   * client), a hop count, or the proxies' addresses / CIDR ranges. main.ts reads `TRUST_PROXY`
   * (platform/http/trust-proxy.ts). Every per-address limit is keyed on the address this yields.
   */
  trustProxy?: TrustProxy;
}

/**
 * What a text is: `receipt` and `pay_request` are asked for at the counter and go at once; `invoice` and
 * `invoice_reminder` can wait, and are held through the store's quiet hours (docs/decisions/0092-vonage-and-quiet-hours.md).
 */
export type SmsKind = 'receipt' | 'pay_request' | 'invoice' | 'invoice_reminder';

/** One text message to send. */
export interface SmsMessage {
  merchantId: string;
  to: string;
  body: string;
  kind: SmsKind;
  /** What the text is about, `invoice:<id>`, `order:<id>` (a receipt), `pay_request:<id>`; none for others. */
  subjectRef?: string;
}

/**
 * Sends SMS. The default ({@link OutboxSmsProvider}) writes to `sms_outbox` inside the caller's transaction, so a
 * message exists exactly when the pay request it announces does; the delivery worker (modules/sms) drains that outbox
 * through the configured carrier.
 */
export interface SmsProvider {
  send(message: SmsMessage, context: { tx: Queryable; now: Date }): Promise<{ id: string }>;
}

/** Everything routes and services share. */
export interface AppContext {
  db: Db;
  config: Required<ServerConfig>;
  clock: () => Date;
  idp: IdentityProvider;
  /** An external OpenID Connect issuer whose ID tokens also sign staff in (`OIDC_ISSUER`, `OIDC_AUDIENCE`); none by default. */
  externalIssuer?: ExternalIssuer;
  sms: SmsProvider;
  /** Outbound e-mail (receipts, invoices); default: the `email_outbox` table. */
  email: EmailProvider;
  feed: ChangeFeed;
  /** Quota of app tokens on `/api/pos/*`: 120 requests per minute per merchant per app. */
  appRateLimit: RateLimit;
  /** Signs the audit chain's checkpoints with a key the database does not hold (kernel/checkpoints.ts). */
  auditSigner: AuditSigner;
  /**
   * The file outside the database that receives a copy of every signed checkpoint (platform/auth/audit-witness.ts;
   * `DATA_DIR/audit-checkpoints.jsonl` by default in main.ts); null: none (tests, in-memory servers), and the verifier warns.
   */
  auditWitness?: AuditWitness | null;
  /** How often the housekeeping tick checkpoints a moved head, in ms; null when no tick runs in this process. */
  auditCheckpointIntervalMs?: number | null;
  /**
   * Verifies an opaque OAuth 2.0 access token of an external integration (modules/app-installations/oauth.ts): the
   * installation's app principal, or null when the token is unknown, expired or its app is no longer installed.
   */
  oauthAccessToken?: (token: string, now: Date) => Promise<Principal | null>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
