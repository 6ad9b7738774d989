/**
 * Webhooks (docs/api.md "Webhooks"): subscriptions, and the delivery worker that drains the transactional outbox
 * (`event_outbox`, written by the kernel in the same transaction as each change; the worker reads and marks it through
 * kernel/outbox.ts). Subscription writes are mutations (kernel/mutation.ts), audited by their caller.
 *
 * Delivery: the worker fans each new event out to one delivery per enabled subscription of the merchant whose
 * `eventTypes` include its type, then POSTs the event's raw JSON to the subscription's URL with
 * - `x-service-signature`: lowercase hex HMAC-SHA256 of the raw body keyed with the subscription's secret,
 * - `x-service-event-id`: the event id (receivers dedupe on it),
 * - `x-service-timestamp`: Unix seconds of the attempt.
 * First attempt at once, then 3 retries after 1, 4 and 16 minutes (configurable), each with a 10 s timeout; a 2xx ends
 * delivery (`succeeded`), anything else — another status, a redirect, a timeout, a refused connection, a receiver
 * address that is not public (services/receiver-network.ts: no connection is made) — is a failed attempt; after the last retry the delivery is `failed`. Every attempt is logged
 * before it is sent (outcome `unknown`) and completed with its answer, so a worker stopped between the two leaves an
 * attempt of unknown outcome, never none, and the retry after it counts as the next attempt; a delivery can be redelivered.
 *
 * Several instances share the work: rows are claimed with `FOR UPDATE SKIP LOCKED` and a lease (`locked_until`), and
 * no HTTP call runs inside a database transaction. (On PGlite there is one connection and the same SQL simply runs.)
 *
 * For other modules: nothing to call — emit events with `m.emit(type, object)` inside a mutation and this worker
 * delivers them. Tests and tools can drive it with {@link WebhookWorker.runOnce}.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  newId,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type EventType,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookEvent,
  type WebhookSubscription,
} from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import { appWebhookSecret, callerOf } from '../../platform/auth/identity.ts';
import { sealClearSecrets, secretBox, type SecretBox } from '../../platform/secrets.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { claimUndispatchedEvents, markEventsDispatched } from '../../kernel/outbox.ts';
import { postToReceiver, RefusedReceiverError } from '../../platform/http/receiver-network.ts';
import { PollingLoop } from '../../platform/polling-loop.ts';

/** Defaults: 3 retries after 1, 4 and 16 minutes; 10 s per attempt. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [60_000, 240_000, 960_000];
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

export interface WebhookWorkerOptions {
  /** Run the worker in this instance (default true). */
  enabled?: boolean;
  /** How often to look for work when idle, ms (default 1000). */
  pollIntervalMs?: number;
  /** Delay before each retry, ms; its length is the number of retries (default 1, 4, 16 minutes). */
  retryDelaysMs?: readonly number[];
  /** Per-attempt timeout, ms (default 10 000). */
  timeoutMs?: number;
  /** Deliveries attempted per round (default 20). */
  batchSize?: number;
  /** Where unexpected worker errors go (default: ignored; the next round retries). */
  onError?: (err: unknown) => void;
  /**
   * Deliver to loopback / private / link-local receivers too (default false: refused at connection time, see
   * services/receiver-network.ts). buildApp sets it from `ServerConfig.allowPrivateWebhookReceivers`.
   */
  allowPrivateNetworks?: boolean;
}

interface SubscriptionRow {
  id: string;
  merchant_id: string;
  app_id: string | null;
  url: string;
  event_types: string[];
  secret_sealed: string;
  description: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** The additional authenticated data of a subscription's sealed secret. */
const subscriptionSecretContext = (id: string) => `webhook_subscriptions:${id}`;

/** A subscription's signing secret as stored: sealed with the KEK (platform/secrets.ts), never in clear. */
function sealSubscriptionSecret(id: string, secret: string): string {
  return secretBox().seal(secret, subscriptionSecretContext(id));
}

/** The signing secret of subscription `id` from its sealed form. @throws SecretBoxError under another KEK. */
function openSubscriptionSecret(id: string, sealed: string): string {
  return secretBox().open(sealed, subscriptionSecretContext(id));
}

/**
 * Seals every subscription secret still stored in clear (rows from before migration 0095) and empties the clear
 * column; run on start (app.ts).
 */
export async function sealLegacyWebhookSecrets(db: Queryable, box: SecretBox = secretBox()): Promise<void> {
  await sealClearSecrets(
    db,
    {
      select: 'SELECT id, secret AS clear FROM webhook_subscriptions WHERE secret IS NOT NULL',
      update: 'UPDATE webhook_subscriptions SET secret_sealed = $2, secret = NULL WHERE id = $1 AND secret IS NOT NULL',
      context: subscriptionSecretContext,
    },
    box,
  );
}

function toSubscription(r: SubscriptionRow): WebhookSubscription {
  return {
    id: r.id,
    url: r.url,
    eventTypes: r.event_types as EventType[],
    description: r.description,
    enabled: r.enabled,
    appId: r.app_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** Apps see their own subscriptions; staff see every subscription of the merchant. */
function ownerFilter(principal: Principal, params: unknown[]): string {
  if (principal.kind !== 'app') return '';
  params.push(principal.appId);
  return ` AND app_id = $${params.length}`;
}

async function loadSubscription(db: Queryable, principal: Principal, id: string): Promise<SubscriptionRow> {
  const params: unknown[] = [principal.merchantId, id];
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT * FROM webhook_subscriptions WHERE merchant_id = $1 AND id = $2 AND deleted_at IS NULL${ownerFilter(principal, params)}`,
    params,
  );
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Webhook subscription ${id} does not exist.`);
  return rows[0];
}

/**
 * Creates a subscription. Its secret: an app that was given a webhook secret when installed (the demo app: the
 * `webhookSecret` of demo-credentials.json) signs with that one; otherwise a new `whsec_…` is generated. The secret is
 * returned here only.
 */
export async function createSubscription(
  m: Mutation,
  principal: Principal,
  input: { url: string; eventTypes: EventType[]; description?: string | undefined },
): Promise<WebhookSubscription & { secret: string }> {
  const { tx, now } = m;
  let secret: string | null = null;
  if (principal.kind === 'app') secret = await appWebhookSecret(tx, principal.appId);
  secret ??= `whsec_${randomBytes(24).toString('base64url')}`;
  const id = newId('webhookSubscription');
  const { rows } = await tx.query<SubscriptionRow>(
    `INSERT INTO webhook_subscriptions (id, merchant_id, app_id, url, event_types, secret_sealed, description, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $9) RETURNING *`,
    [
      id,
      principal.merchantId,
      principal.kind === 'app' ? principal.appId : null,
      input.url,
      input.eventTypes,
      sealSubscriptionSecret(id, secret),
      input.description ?? null,
      callerOf(principal),
      now.toISOString(),
    ],
  );
  await m.audit({
    action: 'webhook_subscription.created',
    entityType: 'webhook_subscription',
    entityId: id,
    data: { url: input.url, eventTypes: input.eventTypes },
  });
  return { ...toSubscription(rows[0]!), secret };
}

export async function getSubscription(db: Queryable, principal: Principal, id: string): Promise<WebhookSubscription> {
  return toSubscription(await loadSubscription(db, principal, id));
}

/** Newest first; keyset cursor `(createdAt, id)`. */
export async function listSubscriptions(
  db: Queryable,
  principal: Principal,
  options: { before?: [string, string]; limit: number },
): Promise<WebhookSubscription[]> {
  const params: unknown[] = [principal.merchantId];
  let where = `merchant_id = $1 AND deleted_at IS NULL${ownerFilter(principal, params)}`;
  if (options.before) {
    params.push(options.before[0], options.before[1]);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(options.limit);
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT * FROM webhook_subscriptions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map(toSubscription);
}

export async function updateSubscription(
  m: Mutation,
  principal: Principal,
  id: string,
  patch: { url?: string | undefined; eventTypes?: EventType[] | undefined; description?: string | null | undefined; enabled?: boolean | undefined },
): Promise<WebhookSubscription> {
  const { tx, now } = m;
  const current = await loadSubscription(tx, principal, id);
  const next = {
    url: patch.url ?? current.url,
    eventTypes: patch.eventTypes ?? current.event_types,
    description: patch.description === undefined ? current.description : patch.description,
    enabled: patch.enabled ?? current.enabled,
  };
  const { rows } = await tx.query<SubscriptionRow>(
    `UPDATE webhook_subscriptions SET url = $3, event_types = $4::text[], description = $5, enabled = $6, updated_at = $7
      WHERE merchant_id = $1 AND id = $2 RETURNING *`,
    [principal.merchantId, id, next.url, next.eventTypes, next.description, next.enabled, now.toISOString()],
  );
  await m.audit({
    action: 'webhook_subscription.updated',
    entityType: 'webhook_subscription',
    entityId: id,
    data: { fields: Object.keys(patch), ...next },
  });
  return toSubscription(rows[0]!);
}

/**
 * Gives a subscription a new signing secret (`whsec_…`, 24 random bytes, base64url) and returns the subscription with
 * it, once. Every delivery attempted from now on — retries of pending ones included — is signed with the new secret;
 * the old one stops verifying at once (the one `x-service-signature` header has no room for two). Audited without
 * the secret. @throws ProblemError 404 for another app's or a deleted subscription.
 */
export async function rotateSecret(m: Mutation, principal: Principal, id: string): Promise<WebhookSubscription & { secret: string }> {
  const { tx, now } = m;
  await loadSubscription(tx, principal, id);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const { rows } = await tx.query<SubscriptionRow>(
    'UPDATE webhook_subscriptions SET secret_sealed = $3, updated_at = $4 WHERE merchant_id = $1 AND id = $2 RETURNING *',
    [principal.merchantId, id, sealSubscriptionSecret(id, secret), now.toISOString()],
  );
  await m.audit({ action: 'webhook_subscription.secret_rotated', entityType: 'webhook_subscription', entityId: id, data: {} });
  return { ...toSubscription(rows[0]!), secret };
}

/** Deletes a subscription: no further deliveries; its pending ones are canceled. The delivery log stays readable by staff. */
export async function deleteSubscription(m: Mutation, principal: Principal, id: string): Promise<void> {
  const { tx, now } = m;
  await loadSubscription(tx, principal, id);
  await tx.query('UPDATE webhook_subscriptions SET deleted_at = $3, enabled = false, updated_at = $3 WHERE merchant_id = $1 AND id = $2', [
    principal.merchantId,
    id,
    now.toISOString(),
  ]);
  await tx.query(
    `UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, updated_at = $2 WHERE subscription_id = $1 AND status = 'pending'`,
    [id, now.toISOString()],
  );
  await m.audit({ action: 'webhook_subscription.deleted', entityType: 'webhook_subscription', entityId: id });
}

/**
 * Deletes every live subscription the app `appId` (for installed apps: the installation id, `ins_…`) made in the
 * mutation's merchant, and cancels their pending deliveries — used when an app is uninstalled. One audit
 * entry per subscription. Returns the ids deleted.
 */
export async function deleteAppSubscriptions(m: Mutation, appId: string): Promise<string[]> {
  const { tx, now } = m;
  const { rows } = await tx.query<{ id: string }>(
    'UPDATE webhook_subscriptions SET deleted_at = $3, enabled = false, updated_at = $3 WHERE merchant_id = $1 AND app_id = $2 AND deleted_at IS NULL RETURNING id',
    [m.merchantId, appId, now.toISOString()],
  );
  for (const { id } of rows) {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, updated_at = $2 WHERE subscription_id = $1 AND status = 'pending'`,
      [id, now.toISOString()],
    );
    await m.audit({ action: 'webhook_subscription.deleted', entityType: 'webhook_subscription', entityId: id, data: { reason: 'app_uninstalled' } });
  }
  return rows.map((r) => r.id);
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: EventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  redelivery_of: string | null;
  created_at: Date;
  updated_at: Date;
}

async function hydrateDeliveries(db: Queryable, rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
  if (rows.length === 0) return [];
  const attempts = await db.query<{
    delivery_id: string;
    attempt: number;
    started_at: Date;
    outcome: WebhookAttemptOutcome;
    duration_ms: number | null;
    status_code: number | null;
    error: string | null;
  }>('SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt', [rows.map((r) => r.id)]);
  return rows.map((r) => ({
    id: r.id,
    subscriptionId: r.subscription_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at ? iso(r.next_attempt_at) : null,
    lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
    lastError: r.last_error,
    redeliveryOf: r.redelivery_of,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    attemptLog: attempts.rows
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        attempt: Number(a.attempt),
        startedAt: iso(a.started_at),
        outcome: a.outcome,
        durationMs: a.duration_ms === null ? null : Number(a.duration_ms),
        statusCode: a.status_code === null ? null : Number(a.status_code),
        error: a.error,
      })),
  }));
}

/** The delivery log of a subscription, newest first, with every attempt. */
export async function listDeliveries(
  db: Queryable,
  principal: Principal,
  subscriptionId: string,
  options: { status?: WebhookDeliveryStatus; eventId?: string; before?: [string, string]; limit: number },
): Promise<WebhookDelivery[]> {
  await loadSubscription(db, principal, subscriptionId);
  const params: unknown[] = [subscriptionId];
  let where = 'subscription_id = $1';
  if (options.status) {
    params.push(options.status);
    where += ` AND status = $${params.length}`;
  }
  if (options.eventId) {
    params.push(options.eventId);
    where += ` AND event_id = $${params.length}`;
  }
  if (options.before) {
    params.push(options.before[0], options.before[1]);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(options.limit);
  const { rows } = await db.query<DeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return hydrateDeliveries(db, rows);
}

/**
 * Queues a new delivery of the same event to the same subscription, attempted at once (manual redelivery). Refused
 * with 409 `delivery_pending` while the delivery is still pending.
 */
export async function redeliver(m: Mutation, principal: Principal, subscriptionId: string, deliveryId: string): Promise<WebhookDelivery> {
  const { tx, now } = m;
  const subscription = await loadSubscription(tx, principal, subscriptionId);
  const { rows } = await tx.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1 AND subscription_id = $2 FOR UPDATE', [
    deliveryId,
    subscriptionId,
  ]);
  const original = rows[0];
  if (!original) throw new ProblemError(404, 'not_found', `Delivery ${deliveryId} of subscription ${subscriptionId} does not exist.`);
  if (original.status === 'pending') {
    throw new ProblemError(
      409,
      'delivery_pending',
      `Delivery ${deliveryId} is still pending (attempt ${Number(original.attempts) + 1} is scheduled); wait for it to end.`,
    );
  }
  const id = newId('webhookDelivery');
  const inserted = await tx.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, merchant_id, subscription_id, event_id, event_type, status, attempts, next_attempt_at, redelivery_of, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7, $6, $6) RETURNING *`,
    [id, subscription.merchant_id, subscriptionId, original.event_id, original.event_type, now.toISOString(), deliveryId],
  );
  await m.audit({
    action: 'webhook_delivery.redelivered',
    entityType: 'webhook_delivery',
    entityId: id,
    data: { redeliveryOf: deliveryId, eventId: original.event_id },
  });
  return (await hydrateDeliveries(tx, inserted.rows))[0]!;
}

/** The raw body sent for an event: its JSON with the fields in the documented order. */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, merchantId: event.merchantId, data: event.data });
}

/** Lowercase hex HMAC-SHA256 of `body` keyed with `secret` (the `x-service-signature` value). */
export function webhookSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

type WebhookAttemptOutcome = WebhookAttempt['outcome'];

interface ClaimedDelivery {
  id: string;
  /** Attempts before this one (this one is `attempts + 1`, already recorded with outcome `unknown` when live). */
  attempts: number;
  url: string;
  secret: string;
  live: boolean;
  payload: WebhookEvent;
}

/**
 * The delivery worker: started by buildApp, stopped when the app closes. Each round fans new outbox events out to
 * deliveries, then attempts the deliveries that are due.
 */
export class WebhookWorker {
  private readonly retryDelaysMs: readonly number[];
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly allowPrivateNetworks: boolean;
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
    options: WebhookWorkerOptions = {},
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.batchSize = options.batchSize ?? 20;
    this.allowPrivateNetworks = options.allowPrivateNetworks ?? false;
    this.loop = new PollingLoop(
      async () => {
        const r = await this.runOnce();
        return r.dispatched + r.attempted > 0;
      },
      options.pollIntervalMs ?? 1000,
      options.onError,
    );
  }

  /** Starts polling (idempotent). */
  start(): void {
    this.loop.start();
  }

  /** Stops polling and waits for the round in progress (its HTTP calls end within the timeout). */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One round: fan out new events, then attempt due deliveries. Returns how many of each it handled. */
  async runOnce(): Promise<{ dispatched: number; attempted: number }> {
    const dispatched = await this.dispatch();
    const attempted = await this.attemptDue();
    return { dispatched, attempted };
  }

  /** Creates one delivery per matching subscription for each undispatched event, and marks the events dispatched. */
  private async dispatch(): Promise<number> {
    // Not a mutation: the outbox relay's own bookkeeping (deliveries of committed events), no business row, no audit entry.
    return this.db.transaction(async (tx) => {
      const now = this.clock();
      const rows = await claimUndispatchedEvents(tx, 100);
      for (const event of rows) {
        const subs = await tx.query<{ id: string }>(
          `SELECT id FROM webhook_subscriptions WHERE merchant_id = $1 AND deleted_at IS NULL AND enabled AND $2 = ANY(event_types) AND created_at <= $3`,
          [event.merchant_id, event.type, iso(event.created_at)],
        );
        for (const sub of subs.rows) {
          await tx.query(
            `INSERT INTO webhook_deliveries (id, merchant_id, subscription_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6, $6)
             ON CONFLICT (subscription_id, event_id) WHERE redelivery_of IS NULL DO NOTHING`,
            [newId('webhookDelivery'), event.merchant_id, sub.id, event.id, event.type, now.toISOString()],
          );
        }
      }
      await markEventsDispatched(
        tx,
        rows.map((r) => r.id),
        now,
      );
      return rows.length;
    });
  }

  /**
   * Claims due deliveries with a lease and records each live one's next attempt before anything is sent (attempt
   * `attempts + 1`, outcome `unknown`; the delivery's `attempts` counts it and its retry is already scheduled), then
   * POSTs them outside any transaction and records each outcome. So a worker that stops between sending and recording
   * leaves an attempt with an unknown outcome, and the next worker's retry counts as the following attempt. A delivery
   * whose last allowed attempt ended unknown is `failed` (nothing is sent again).
   */
  private async attemptDue(): Promise<number> {
    // Not a mutation: the outbox relay's own bookkeeping (delivery leases and attempts), no business row, no audit entry.
    const claimed = await this.db.transaction(async (tx) => {
      const now = this.clock();
      const lease = new Date(now.getTime() + this.timeoutMs + 30_000);
      const due = await tx.query<{ id: string }>(
        `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
          ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now.toISOString(), this.batchSize],
      );
      if (due.rows.length === 0) return [];
      const ids = due.rows.map((r) => r.id);
      const { rows } = await tx.query<{
        id: string;
        attempts: number;
        url: string;
        subscription_id: string;
        secret_sealed: string;
        live: boolean;
        payload: WebhookEvent;
      }>(
        `SELECT d.id, d.attempts, s.url, s.id AS subscription_id, s.secret_sealed, (s.deleted_at IS NULL AND s.enabled) AS live, e.payload
           FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id JOIN event_outbox e ON e.id = d.event_id
          WHERE d.id = ANY($1::text[])`,
        [ids],
      );
      const all = rows.map(({ subscription_id, secret_sealed, ...r }): ClaimedDelivery => ({
        ...r,
        secret: openSubscriptionSecret(subscription_id, secret_sealed),
        attempts: Number(r.attempts),
      }));
      // Every allowed attempt was made, the last one's outcome unknown (its worker stopped before recording it).
      const spent = all.filter((d) => d.live && d.attempts > this.retryDelaysMs.length).map((d) => d.id);
      if (spent.length > 0) {
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, last_status_code = NULL,
                  last_error = 'the outcome of the last attempt is unknown (the worker stopped before recording it)', updated_at = $2
            WHERE id = ANY($1::text[])`,
          [spent, now.toISOString()],
        );
      }
      const live = all.filter((d) => d.live && d.attempts <= this.retryDelaysMs.length);
      const stale = all.filter((d) => !d.live).map((d) => d.id);
      if (stale.length > 0)
        await tx.query('UPDATE webhook_deliveries SET locked_until = $2 WHERE id = ANY($1::text[])', [stale, lease.toISOString()]);
      for (const d of live) {
        const attempt = d.attempts + 1;
        // Should this attempt never be recorded, the delivery is retried as if it had failed (a last one: right after the lease).
        const retryAt = attempt > this.retryDelaysMs.length ? lease : new Date(now.getTime() + this.retryDelaysMs[attempt - 1]!);
        await tx.query('UPDATE webhook_deliveries SET attempts = $2, locked_until = $3, next_attempt_at = $4, updated_at = $5 WHERE id = $1', [
          d.id,
          attempt,
          lease.toISOString(),
          new Date(Math.max(retryAt.getTime(), lease.getTime())).toISOString(),
          now.toISOString(),
        ]);
        await tx.query(
          `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, outcome) VALUES ($1, $2, $3, 'unknown') ON CONFLICT DO NOTHING`,
          [d.id, attempt, now.toISOString()],
        );
      }
      return [...live, ...all.filter((d) => !d.live)];
    });
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = this.clock();
    if (!delivery.live) {
      await this.db.query(
        `UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, locked_until = NULL, updated_at = $2 WHERE id = $1 AND status = 'pending'`,
        [delivery.id, startedAt.toISOString()],
      );
      return;
    }
    const body = webhookBody(delivery.payload);
    const began = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await postToReceiver(delivery.url, {
        timeoutMs: this.timeoutMs,
        allowPrivateNetworks: this.allowPrivateNetworks,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Register-Webhooks/1.0',
          [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(delivery.secret, body),
          [WEBHOOK_EVENT_ID_HEADER]: delivery.payload.id,
          [WEBHOOK_TIMESTAMP_HEADER]: String(Math.floor(startedAt.getTime() / 1000)),
          'x-service-event-type': delivery.payload.type,
        },
        body,
      });
      statusCode = res.statusCode;
      if (res.statusCode < 200 || res.statusCode > 299) error = `HTTP ${res.statusCode}`;
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError') error = `no response within ${this.timeoutMs} ms`;
      else if (e instanceof RefusedReceiverError) error = `refused: ${e.message}`;
      else error = `${e.code ?? e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`.slice(0, 500);
    }
    const durationMs = Math.max(0, Math.round(performance.now() - began));
    const attempt = delivery.attempts + 1;
    const now = this.clock();
    const ok = error === null;
    const exhausted = attempt > this.retryDelaysMs.length;
    const status: WebhookDeliveryStatus = ok ? 'succeeded' : exhausted ? 'failed' : 'pending';
    const next = ok || exhausted ? null : new Date(now.getTime() + this.retryDelaysMs[attempt - 1]!).toISOString();
    // Not a mutation: the outbox relay's own bookkeeping (an attempt's outcome), no business row, no audit entry.
    await this.db.transaction(async (tx) => {
      const updated = await tx.query(
        `UPDATE webhook_deliveries SET status = $3, next_attempt_at = $4, locked_until = NULL, last_status_code = $5, last_error = $6, updated_at = $7
          WHERE id = $1 AND attempts = $2 AND status = 'pending' RETURNING id`,
        [delivery.id, attempt, status, next, statusCode, error, now.toISOString()],
      );
      // Another instance took the delivery over after our lease ran out: this attempt stays as recorded (unknown).
      if (updated.rows.length === 0) return;
      await tx.query(
        `UPDATE webhook_attempts SET outcome = $3, duration_ms = $4, status_code = $5, error = $6 WHERE delivery_id = $1 AND attempt = $2 AND outcome = 'unknown'`,
        [delivery.id, attempt, ok ? 'succeeded' : 'failed', durationMs, statusCode, error],
      );
    });
  }
}
