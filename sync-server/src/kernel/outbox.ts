import { newId, type EventType, type WebhookEvent } from '../../../core/index.ts';
import { prepared, type Queryable } from '../platform/db/db.ts';

/**
 * Writes one webhook event to the transactional outbox (`event_outbox`). Call it with the transaction that
 * makes the change (`tx`), so the event exists exactly when the change commits. Which operation emits which kind
 *: `order.created` — an order is created (register sync or API); `order.paid` — an order becomes fully
 * paid; `payment.refunded` — any refund; `catalog.updated` — any catalog item, price, modifier or inventory change.
 *
 * `object` is the resource as the API returns it. Returns the stored event (`id` is `evt_<ULID>`).
 */
export async function emitEvent(
  tx: Queryable,
  event: { merchantId: string; type: EventType; object: Record<string, unknown>; occurredAt: Date },
): Promise<WebhookEvent> {
  const stored: WebhookEvent = {
    id: newId('event'),
    type: event.type,
    createdAt: event.occurredAt.toISOString(),
    merchantId: event.merchantId,
    data: { object: event.object },
  };
  await tx.query('INSERT INTO event_outbox (id, merchant_id, type, payload, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)', [
    stored.id,
    stored.merchantId,
    stored.type,
    JSON.stringify(stored),
    stored.createdAt,
  ]);
  return stored;
}

/** An outbox event not yet fanned out to webhook subscriptions. */
export interface UndispatchedEvent {
  id: string;
  merchant_id: string;
  type: string;
  created_at: Date;
}

/**
 * Up to `limit` outbox events not yet dispatched, oldest first, locked for `tx` (`FOR UPDATE SKIP LOCKED`, so several
 * workers share the outbox). Mark them with {@link markEventsDispatched} in the same transaction.
 */
export async function claimUndispatchedEvents(tx: Queryable, limit: number): Promise<UndispatchedEvent[]> {
  const { rows } = await tx.query<UndispatchedEvent>(
    'SELECT id, merchant_id, type, created_at FROM event_outbox WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED',
    [limit],
  );
  return rows;
}

/** Stamps outbox events as dispatched at `now` (their deliveries are queued): the kernel is the outbox's only writer. */
export async function markEventsDispatched(tx: Queryable, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length > 0) await tx.query('UPDATE event_outbox SET dispatched_at = $2 WHERE id = ANY($1::text[])', [ids, now.toISOString()]);
}

/**
 * Writes many webhook events to the transactional outbox in one multi-row INSERT (see {@link emitEvent}: same rows,
 * same ids, same payloads, in the order given). An empty list writes nothing. Events given the same `object` (the same
 * JS object, e.g. a sale's `order.created` and `order.paid`) send it to the database once: each payload is built there
 * around its object (`jsonb_build_object`), so the largest part of a push's bytes is not written and parsed twice.
 * @returns the stored events (`id` is `evt_<ULID>`), in the order given
 */
export async function emitEvents(
  tx: Queryable,
  events: readonly { merchantId: string; type: EventType; object: Record<string, unknown>; occurredAt: Date }[],
): Promise<WebhookEvent[]> {
  if (events.length === 0) return [];
  const stored: WebhookEvent[] = events.map((event) => ({
    id: newId('event'),
    type: event.type,
    createdAt: event.occurredAt.toISOString(),
    merchantId: event.merchantId,
    data: { object: event.object },
  }));
  // The distinct objects travel as one JSON array (a jsonb parameter, parsed once), not a text[] the driver would escape;
  // each event names its object by index. The payload is the stored event: { id, type, createdAt, merchantId, data }.
  const objects: Record<string, unknown>[] = [];
  const indexOf = new Map<Record<string, unknown>, number>();
  const objectIndexes = events.map((event) => {
    let i = indexOf.get(event.object);
    if (i === undefined) {
      i = objects.push(event.object) - 1;
      indexOf.set(event.object, i);
    }
    return i;
  });
  await tx.query(
    prepared(
      'outbox_insert_batch',
      `INSERT INTO event_outbox (id, merchant_id, type, payload, created_at)
     SELECT id, merchant_id, type,
            jsonb_build_object('id', id, 'type', type, 'createdAt', created_at, 'merchantId', merchant_id, 'data', jsonb_build_object('object', $6::jsonb -> object_index)),
            created_at::timestamptz
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS t(id, merchant_id, type, created_at, object_index, n)
      ORDER BY n`,
    ),
    [
      stored.map((s) => s.id),
      stored.map((s) => s.merchantId),
      stored.map((s) => s.type),
      stored.map((s) => s.createdAt),
      objectIndexes,
      JSON.stringify(objects),
    ],
  );
  return stored;
}
