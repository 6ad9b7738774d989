import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildApp, sealLegacySecrets } from './app.ts';
import { installSecretBox, loadKek, SecretBox } from './platform/secrets.ts';
import { DeploymentSecretError, deploymentEnvironment } from './platform/deployment-secrets.ts';
import { auditWitnessPath } from './platform/auth/audit-witness.ts';
import { loadAuditSigningKey } from './platform/auth/audit-signing-key.ts';
import { openDb } from './platform/db/db.ts';
import { migrate } from './platform/db/migrate.ts';
import { issueSystemPairingCode, PAIRING_CODE_TTL_MS, resetStaffPin, reissueDemoAppToken } from './modules/merchants/index.ts';
import { IdentityProvider } from './platform/auth/identity.ts';
import { seedDemoStore } from './workflows/demo-seed.ts';
import { prettyLogStream } from './platform/http/pretty-log.ts';
import { parseTrustProxy } from './platform/http/trust-proxy.ts';
import { twilioConfigFromEnv, vonageConfigFromEnv } from './modules/sms/index.ts';
import { smtpConfigFromEnv } from './platform/messaging/smtp.ts';
import { bounceConfigFromEnv } from './platform/messaging/bounces.ts';
import { startDemoOutbox } from './dev/demo-outbox.ts';

/**
 * `npm start` / `npm run serve`. Environment:
 * - PORT (default 8787), HOST (default 0.0.0.0)
 * - DATA_DIR (default ./data): PGlite files in DATA_DIR/pglite, demo credentials in DATA_DIR/demo-credentials.json
 * - DATABASE_URL: use this PostgreSQL instead of PGlite
 * - AUDIT_SIGNING_KEY: Ed25519 private key (PKCS#8 PEM or base64 DER) signing audit checkpoints; default: the file
 *   DATA_DIR/audit-signing.key, generated (mode 0600) on first start. Keep it off the database host's backups.
 * - BASE_URL (default http://localhost:PORT): public address, issuer of staff tokens and base of pay links
 * - REGISTER_KEK: base64 of the 32-byte key-encryption key of the secrets kept in the database (signing key, webhook
 *   secrets, the deployment's messaging credentials); without it DATA_DIR/kek.key is used, and created (mode 0600) on
 *   the first start
 * - The messaging credentials below — SMTP_URL, DKIM_PRIVATE_KEY, SMS_…_SID/_TOKEN/_KEY/_SECRET — are best kept sealed
 *   in the database (`printf %s "$VALUE" | npm run platform-admin -- secrets set <NAME>`): at start they are opened and
 *   overlaid on the environment, a sealed one winning over the same variable; one given in the clear environment still
 *   works, with a warning in the start log (its name only). One that does not open with this KEK stops the start,
 *   naming it (docs/decisions/0093-deployment-secrets-sealed.md)
 * - LOG_FORMAT=pretty (`npm start` sets it): the request log as short readable lines; otherwise one JSON object a line
 * - SMS_PROVIDER=twilio with SMS_ACCOUNT_SID, SMS_AUTH_TOKEN, SMS_FROM (E.164) and optionally SMS_API_BASE (default
 *   https://api.twilio.com): texts are sent through that Twilio-compatible API; unset, they stay queued in sms_outbox
 * - SMS_PROVIDER=vonage with SMS_API_KEY, SMS_API_SECRET, SMS_SIGNATURE_SECRET (the account's signature secret:
 *   checks the signed delivery receipts and inbound messages), SMS_FROM (E.164) and optionally SMS_SIGNATURE_METHOD
 *   (md5hash, md5, sha1, sha256 — default — or sha512, as set in the Vonage dashboard) and SMS_API_BASE (default
 *   https://rest.nexmo.com): texts are sent through the Vonage SMS API. Point the account's delivery receipt and
 *   inbound webhooks at BASE_URL/api/sms/status/vonage and BASE_URL/api/sms/inbound/vonage
 * - SMTP_URL: the mail server e-mails (receipts, invoices, notices) are sent through, `smtp://user:pass@host:587`
 *   (STARTTLS when offered) or `smtps://user:pass@host:465`; without it they stay queued in `email_outbox`
 * - SMTP_FROM (required with SMTP_URL): the sender address; the store's name is its display name
 * - DKIM_PRIVATE_KEY (the PEM, sealed) or DKIM_PRIVATE_KEY_FILE, DKIM_SELECTOR (required with the key), DKIM_DOMAIN
 *   (default: SMTP_FROM's domain): DKIM signing of every e-mail
 * - BOUNCE_DOMAIN (default: SMTP_FROM's domain) and BOUNCE_SMTP_PORT, BOUNCE_SMTP_HOST (default 0.0.0.0): e-mail goes
 *   out with VERP envelope senders `bounces+<id>.<mac>@BOUNCE_DOMAIN`, and this instance takes the delivery status
 *   notifications and feedback-loop complaints sent there over SMTP on BOUNCE_SMTP_PORT (point the domain's MX here)
 * - DEMO_MODE=1 (`npm start` sets it): a register served on loopback pairs itself with the demo store in one step
 *   (`POST /api/dev/pair-register` exists only then, and answers loopback requests only); without SMTP_URL or
 *   SMS_PROVIDER, e-mail and texts go to a local mail server and a local SMS provider, kept in DATA_DIR/demo-outbox
 *   and shown to each store in the back office's Demo outbox (`GET /api/pos/demo-outbox`)
 *
 * On every start: migrations, the demo store seed, a fresh 30-day owner staff token written to the credentials file
 * (mode 0600, on this machine only — no route hands out staff tokens), and a one-time register pairing code printed
 * on the console (valid 10 minutes; the back office makes more), with a new random PIN for the demo owner (staff sign in
 * on a register with it). The demo app token is stored hashed;
 * its plaintext is kept in DATA_DIR/demo-app-token.txt from the first seed so later starts can rewrite the credentials
 * file. When that file is missing (new DATA_DIR against an existing PostgreSQL), a new app token is issued and the old
 * one revoked.
 */
/** Life of the owner token written to DATA_DIR/demo-credentials.json for trying the API: 30 days. */
const CREDENTIALS_STAFF_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 8787);
  const host = process.env.HOST ?? '0.0.0.0';
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const baseUrl = (process.env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  await mkdir(dataDir, { recursive: true });

  const db = await openDb(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { pgliteDir: join(dataDir, 'pglite') });
  await migrate(db);
  // The key-encryption key of the secrets kept in the database: REGISTER_KEK, else DATA_DIR/kek.key (created now on
  // the first start). Without it a database dump signs no token and no webhook.
  const kek = await loadKek({ env: process.env, dataDir, create: true });
  installSecretBox(new SecretBox(kek.key));
  // The messaging credentials sealed in the database overlay the environment the configuration below reads.
  const deployment = await deploymentEnvironment(db, process.env);
  await sealLegacySecrets(db);
  const seed = await seedDemoStore(db);

  const appTokenFile = join(dataDir, 'demo-app-token.txt');
  let appToken = seed.appToken;
  if (appToken) {
    await writeFile(appTokenFile, `${appToken}\n`, { mode: 0o600 });
  } else {
    appToken = (await readFile(appTokenFile, 'utf8').catch(() => '')).trim() || undefined;
    if (!appToken) {
      appToken = (await reissueDemoAppToken(db, seed.merchantId)).appToken;
      await writeFile(appTokenFile, `${appToken}\n`, { mode: 0o600 });
    }
  }

  // Webhook receivers on loopback / private networks: refused unless asked for (npm start asks, for local receivers).
  const allowPrivateWebhookReceivers = process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === '1';
  const demoSelfPair = process.env.DEMO_MODE === '1';
  const trustProxy = parseTrustProxy(process.env.TRUST_PROXY);
  // Staff may also sign in with ID tokens of an external OpenID Connect issuer (both variables, or neither).
  if (Boolean(process.env.OIDC_ISSUER) !== Boolean(process.env.OIDC_AUDIENCE))
    throw new Error('Set both OIDC_ISSUER and OIDC_AUDIENCE (the client id registered with the issuer), or neither.');
  const oidc = process.env.OIDC_ISSUER ? { issuer: process.env.OIDC_ISSUER, audience: process.env.OIDC_AUDIENCE! } : undefined;
  // The hardware bridge `npm start` runs beside this server (electron/bridge/main.ts reads the same BRIDGE_PORT):
  // registers learn its address from GET /api/register/device-bridge instead of assuming the default port.
  const deviceBridgeUrl =
    process.env.START_BRIDGE === '0' && !process.env.BRIDGE_PORT ? null : `ws://127.0.0.1:${Number(process.env.BRIDGE_PORT ?? 8790)}`;
  // Read before the app is built so a half-configured carrier stops the start with the variable's name.
  let twilio = twilioConfigFromEnv(deployment.env);
  const vonage = vonageConfigFromEnv(deployment.env);
  // E-mail over SMTP: SMTP_URL (smtp:// or smtps://, credentials in the URL) and SMTP_FROM; without them mail stays queued.
  let smtp = smtpConfigFromEnv(deployment.env);
  // Demo mode: the store's messages never leave this machine. Without a mail server or a carrier configured, e-mail
  // goes to a local mail server and texts to a local Twilio-compatible provider, both kept in DATA_DIR/demo-outbox.
  const demoOutbox = demoSelfPair ? join(dataDir, 'demo-outbox') : null;
  const demo =
    demoOutbox && (!smtp || (!twilio && !vonage)) ? await startDemoOutbox(demoOutbox, { smtp, twilio, otherCarrier: vonage !== null }) : null;
  const demoMail = demo?.mail ?? null;
  const demoSms = demo?.sms ?? null;
  if (demo) ({ smtp, twilio } = demo);
  // Bounces and complaints by mail: VERP envelope senders of BOUNCE_DOMAIN, and the report listener on BOUNCE_SMTP_PORT.
  // Demo mode with its local mail server listens on loopback, on a port the system picks (printed below), so a DSN or
  // a complaint can be tried by hand.
  const bounces =
    bounceConfigFromEnv(deployment.env, smtp?.from ?? null) ??
    (demoMail ? bounceConfigFromEnv({ BOUNCE_SMTP_PORT: '0', BOUNCE_SMTP_HOST: '127.0.0.1' }, smtp?.from ?? null) : null);
  let bouncePort: number | null = null;
  const app = await buildApp({
    db,
    smsDelivery: { twilio, vonage },
    config: {
      baseUrl,
      allowPrivateWebhookReceivers,
      demoSelfPair,
      deviceBridgeUrl,
      trustProxy,
      // The back office's Demo outbox reads what the local servers kept; absent when real providers send everything.
      demoOutbox:
        demoOutbox && (demoMail || demoSms)
          ? { mailDir: demoMail ? join(demoOutbox, 'mail') : null, smsFile: demoSms ? join(demoOutbox, 'sms.jsonl') : null }
          : null,
    },
    logger: process.env.LOG_FORMAT === 'pretty' ? prettyLogStream() : true,
    auditSigningKey: await loadAuditSigningKey(dataDir),
    auditWitnessFile: auditWitnessPath(dataDir),
    ...(oidc ? { oidc } : {}),
    emailDelivery: { smtp },
    emailBounces: bounces ? { ...bounces, onListening: (listening) => (bouncePort = listening) } : null,
  });
  if (deployment.sealed.length > 0) app.log.info({ sealedSecrets: deployment.sealed }, 'messaging credentials opened from the database (sealed)');
  for (const warning of deployment.warnings) app.log.warn(warning);
  const idp = await IdentityProvider.load(db, baseUrl);
  const staffToken = await idp.issueStaffToken(
    { staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole },
    { ttlSeconds: CREDENTIALS_STAFF_TOKEN_TTL_SECONDS },
  );
  // The owner's PIN is new on every start; it is kept in the credentials file too, so it is never lost under the log.
  const ownerPin = await resetStaffPin(db, seed.merchantId, seed.staffId);
  const credentialsPath = join(dataDir, 'demo-credentials.json');
  const credentials = {
    baseUrl,
    merchantId: seed.merchantId,
    staffId: seed.staffId,
    ownerPin,
    staffToken,
    appToken,
    appScopes: seed.appScopes,
    webhookSecret: seed.webhookSecret,
  };
  await writeFile(credentialsPath, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });

  await app.listen({ port, host });
  app.log.info(
    { register: `${baseUrl}/`, api: `${baseUrl}/api/pos`, credentials: credentialsPath, database: db.engine, keyEncryptionKey: kek.source },
    'Register sync server ready',
  );
  const pairing = await issueSystemPairingCode(db, seed.merchantId);
  console.log(
    `\nRegister:     ${baseUrl}/\nAPI base:     ${baseUrl}/api/pos\nCredentials:  ${credentialsPath}\nDatabase:     ${db.engine}\nSecrets key:  ${kek.source}\n` +
      `Pairing code: ${pairing.code}  (one register, valid ${PAIRING_CODE_TTL_MS / 60000} minutes; Back office → Registers makes more)\n` +
      `Owner PIN:    ${ownerPin}  (sign in on a register; a new one on every start; also in ${credentialsPath})\n` +
      (demoSelfPair ? `Demo mode:    a register opened on this machine (localhost) pairs itself\n` : '') +
      (demoOutbox && (demoMail || demoSms)
        ? `Demo outbox:  ${demoOutbox} (${[demoMail ? 'e-mail in mail/*.eml' : '', demoSms ? 'texts in sms.jsonl' : ''].filter(Boolean).join(', ')}; nothing is sent outside)\n`
        : '') +
      (bounces && bouncePort !== null
        ? `Bounces:      smtp://${bounces.host}:${bouncePort} takes delivery status notifications and complaints for @${bounces.domain}\n`
        : ''),
  );

  let isStopping = false;
  const stop = async (signal: string) => {
    if (isStopping) return;
    isStopping = true;
    app.log.info({ signal }, 'shutting down');
    try {
      await app.close();
      await demo?.close();
      await db.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  // A sealed secret that does not open is the operator's to fix: its one line, not a stack.
  console.error(err instanceof DeploymentSecretError ? `Register cannot start: ${err.message}` : err);
  process.exit(1);
});
