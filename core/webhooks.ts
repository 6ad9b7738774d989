/**
 * Webhook subscriptions and signatures (docs/api.md "Webhooks"). Pure: signing uses WebCrypto (`crypto.subtle`),
 * present in browsers and Node 20, so a receiver written against core needs no node: import.
 *
 * Signature: `x-service-signature` = lowercase hex HMAC-SHA256 of the raw request body, keyed with the
 * subscription's secret. We add `x-service-event-id` (the event's `id`) and `x-service-timestamp` (Unix seconds of
 * the attempt) for receivers that want replay protection; the signature stays valid on its own.
 */
import { z } from 'zod';
import { httpUrlSchema } from './catalog.ts';
import { patchBody, uniqueList } from './schemas.ts';
import { maskCardNumbers } from './card-numbers.ts';
import { EVENT_TYPES } from './events.ts';
import { utcDateTime } from './datetime.ts';

export const WEBHOOK_SIGNATURE_HEADER = 'x-service-signature';
export const WEBHOOK_EVENT_ID_HEADER = 'x-service-event-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'x-service-timestamp';

/** Delivery states: `pending` (waiting for its next attempt), `succeeded` (a 2xx), `failed` (4 attempts without a
 * 2xx), `canceled` (its subscription was deleted or disabled before it could succeed). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

const eventTypes = uniqueList(z.enum(EVENT_TYPES), { min: 1, max: EVENT_TYPES.length, message: 'an event type may be listed once' });

/** `POST /api/pos/webhooks` body. */
export const webhookSubscriptionCreateSchema = z.strictObject({
  url: httpUrlSchema,
  eventTypes,
  description: z.string().trim().max(200).overwrite(maskCardNumbers).optional(),
});
/** `PATCH /api/pos/webhooks/{id}` body: at least one field. */
export const webhookSubscriptionUpdateSchema = patchBody({
  url: httpUrlSchema.optional(),
  eventTypes: eventTypes.optional(),
  description: z.string().trim().max(200).overwrite(maskCardNumbers).nullable().optional(),
  enabled: z.boolean().optional(),
});

/** Timestamps: ISO 8601 with an offset within ±14:00, normalised to UTC (core/datetime.ts). */
const isoDate = utcDateTime;

/** A subscription as the API returns it. The secret is returned once, by create (`secret`). */
export const webhookSubscriptionSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.enum(EVENT_TYPES)),
  description: z.string().nullable(),
  enabled: z.boolean(),
  appId: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type WebhookSubscription = z.infer<typeof webhookSubscriptionSchema>;

/**
 * Outcome of one attempt: `unknown` while it is in flight — it is recorded before the request is sent — and forever
 * if the worker stopped between sending it and recording its answer (the receiver may have had it: dedupe on the
 * event id); `succeeded` (a 2xx) or `failed` once recorded.
 */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['unknown', 'succeeded', 'failed'] as const;

/**
 * One HTTP attempt of a delivery. `statusCode` null when no response came (timeout, refused connection) or none was
 * recorded (`outcome` `unknown`); `durationMs` null while the outcome is unknown.
 */
export const webhookAttemptSchema = z.strictObject({
  attempt: z.int().min(1),
  startedAt: isoDate,
  outcome: z.enum(WEBHOOK_ATTEMPT_OUTCOMES),
  durationMs: z.int().min(0).nullable(),
  statusCode: z.int().nullable(),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

/** A delivery of one event to one subscription, with its attempts. */
export const webhookDeliverySchema = z.strictObject({
  id: z.string(),
  subscriptionId: z.string(),
  eventId: z.string(),
  eventType: z.enum(EVENT_TYPES),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.int().min(0),
  nextAttemptAt: isoDate.nullable(),
  lastStatusCode: z.int().nullable(),
  lastError: z.string().nullable(),
  redeliveryOf: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  attemptLog: z.array(webhookAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

const encoder = new TextEncoder();

function toHex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Lowercase hex HMAC-SHA256 of `rawBody` keyed with `secret` (the `x-service-signature` value). */
export async function signWebhookBody(secret: string, rawBody: string | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const data = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  return toHex(await crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>));
}

/**
 * True when `signature` is the signature of `rawBody` under `secret`. Compares every character whatever the first
 * difference (constant time in the length of the expected value), as receivers must compare it (docs/api.md "Webhooks").
 */
export async function verifyWebhookSignature(secret: string, rawBody: string | Uint8Array, signature: string): Promise<boolean> {
  const expected = await signWebhookBody(secret, rawBody);
  let diff = expected.length ^ signature.length;
  for (let i = 0; i < expected.length; i += 1) diff |= expected.charCodeAt(i) ^ (signature.charCodeAt(i) || 0);
  return diff === 0;
}
