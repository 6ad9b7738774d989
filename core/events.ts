/**
 * Webhook events (docs/api.md "Webhooks"). Each has a unique `id` that receivers dedupe on; the payload shape is:
 * `{ id: "evt_…", type, createdAt (ISO 8601), merchantId, data: { object } }` where `object` is the resource as the
 * API returns it. Signing lives in the sync server (it needs HMAC-SHA256 over the raw body).
 */
import { z } from 'zod';
import { utcDateTime } from './datetime.ts';

/** Every event kind: the four core kinds (docs/api.md "Webhooks"), and the outcome of an offline card payment's forward. */
export const EVENT_TYPES = [
  'order.created',
  'order.paid',
  'payment.refunded',
  'catalog.updated',
  'payment.forwarded',
  'payment.forward_declined',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One webhook event as delivered (the raw JSON body of the POST). */
export const webhookEventSchema = z.strictObject({
  id: z.string().regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/),
  type: z.enum(EVENT_TYPES),
  createdAt: utcDateTime,
  merchantId: z.string().min(1).max(64),
  data: z.strictObject({ object: z.record(z.string(), z.unknown()) }),
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
