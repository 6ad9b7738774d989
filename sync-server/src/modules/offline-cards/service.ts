/**
 * Offline card payments, store and forward (core/offline-cards.ts): the records of card tenders a terminal
 * approved offline, the forward's claim and outcome, the back office's list, and the store's limits. The forward
 * itself (the processor call) is the workflow workflows/offline-card-forward.ts; this module only reads and writes its
 * own tables (`offline_card_payments`, `offline_card_limits`, migration 0120).
 *
 * Exactly once: a payment is recorded under its tender id (`INSERT … ON CONFLICT DO NOTHING`), and `claimForwards`
 * moves `forward_attempts` from 0 to 1 (the column cannot exceed 1) in the caller's transaction under the merchant
 * lock — a re-push, a second push of the same order or a second server instance finds it claimed and never forwards
 * again.
 */
import {
  DEFAULT_OFFLINE_CARD_LIMITS,
  FORWARD_WINDOW_EXPIRED,
  forwardRetryDelayMs,
  OFFLINE_CARD_ACCOUNT,
  OFFLINE_CARD_RECEIVABLE,
  buildJournalTransaction,
  orderJournalHeader,
  type OfflineCardLimits,
  type OfflineCardPayment,
  type Order,
} from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { SqlFilter } from '../../platform/db/sql-filter.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';

interface PaymentRow {
  id: string;
  merchant_id: string;
  order_id: string;
  register_id: string;
  receipt_number: string;
  currency: string;
  amount_cents: number | string;
  token: string;
  card_brand: string | null;
  last4: string | null;
  approved_at: Date;
  state: OfflineCardPayment['state'];
  forward_attempts: number;
  forwarded_at: Date | null;
  forward_failures: number;
  next_forward_at: Date | null;
  decline_code: string | null;
  processor_reference: string | null;
  journal_transaction_id: string | null;
}

/** A recorded offline payment the forward workflow works on (the token stays server-side, never in an answer). */
export interface OfflineCardRecord {
  id: string;
  orderId: string;
  registerId: string;
  receiptNumber: string;
  currency: string;
  amountCents: number;
  token: string;
  cardBrand: string | null;
  last4: string | null;
}

const toRecord = (r: PaymentRow): OfflineCardRecord => ({
  id: r.id,
  orderId: r.order_id,
  registerId: r.register_id,
  receiptNumber: r.receipt_number,
  currency: r.currency,
  amountCents: Number(r.amount_cents),
  token: r.token,
  cardBrand: r.card_brand,
  last4: r.last4,
});

/**
 * Records the offline card tenders of register sales just stored (those without one are skipped), one row per tender
 * id; a tender recorded before is left as it is. One statement.
 * @returns the ids of the tenders recorded now
 */
export async function recordOfflineCardPayments(m: Mutation, orders: readonly Order[]): Promise<string[]> {
  const tenders = orders.flatMap((order) => order.tenders.filter((t) => t.offline).map((tender) => ({ order, tender })));
  if (tenders.length === 0) return [];
  const { rows } = await m.tx.query<{ id: string }>(
    `INSERT INTO offline_card_payments (id, merchant_id, order_id, register_id, receipt_number, currency, amount_cents, token, card_brand, last4, approved_at, state, created_at)
     SELECT id, $1, order_id, register_id, receipt_number, currency, amount_cents, token, card_brand, last4, approved_at, 'pending_forward', $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::timestamptz[])
            AS t(id, order_id, register_id, receipt_number, currency, amount_cents, token, card_brand, last4, approved_at)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      m.merchantId,
      m.now.toISOString(),
      tenders.map(({ tender }) => tender.id),
      tenders.map(({ order }) => order.id),
      tenders.map(({ order }) => order.registerId),
      tenders.map(({ order }) => order.receiptNumber),
      tenders.map(({ order }) => order.currency),
      tenders.map(({ tender }) => tender.amountCents),
      tenders.map(({ tender }) => tender.offline!.token),
      tenders.map(({ tender }) => tender.cardBrand ?? null),
      tenders.map(({ tender }) => tender.last4 ?? null),
      tenders.map(({ tender }) => tender.offline!.approvedAt),
    ],
  );
  return rows.map((r) => r.id);
}

/**
 * Claims the forward of `ids` (this merchant's, never forwarded): `forward_attempts` 0 → 1 in `m.tx`. Only what this
 * call claimed is returned — the caller forwards exactly those, once.
 */
export async function claimForwards(m: Mutation, ids: readonly string[]): Promise<OfflineCardRecord[]> {
  // (Also retries a payment recorded before whose forward was released: its id is passed again by the caller.)
  if (ids.length === 0) return [];
  const { rows } = await m.tx.query<PaymentRow>(
    `UPDATE offline_card_payments SET forward_attempts = forward_attempts + 1, forwarded_at = $3
      WHERE merchant_id = $1 AND id = ANY($2::text[]) AND forward_attempts = 0 AND state = 'pending_forward'
      RETURNING *`,
    [m.merchantId, ids, m.now.toISOString()],
  );
  return rows.map(toRecord);
}

/**
 * Gives a claim back (the processor could not be reached): `forward_attempts` 1 → 0, so the payment stays
 * `pending_forward`; `forward_failures` + 1 and `next_forward_at` = now + core `forwardRetryDelayMs` (1 min, doubling,
 * at most 1 h), when the housekeeping tick retries it ({@link dueForwardRetries}). The processor saw the payment id as
 * its idempotency key, so if the call did reach it, the retry gets its first answer. `error` (no card data) is kept.
 */
export async function releaseForward(m: Mutation, id: string, error = 'processor unreachable'): Promise<void> {
  const { rows } = await m.tx.query<{ forward_failures: number }>(
    `UPDATE offline_card_payments SET forward_attempts = 0, forwarded_at = NULL, forward_failures = forward_failures + 1, last_forward_error = $3
      WHERE merchant_id = $1 AND id = $2 AND state = 'pending_forward' RETURNING forward_failures`,
    [m.merchantId, id, error.slice(0, 200)],
  );
  const failures = rows[0]?.forward_failures;
  if (failures === undefined) return;
  const next = new Date(m.now.getTime() + forwardRetryDelayMs(failures));
  await m.tx.query('UPDATE offline_card_payments SET next_forward_at = $2 WHERE id = $1', [id, next.toISOString()]);
  await m.audit({
    action: 'payment.forward_released',
    entityType: 'payment',
    entityId: id,
    data: { failures, nextForwardAt: next.toISOString(), error: error.slice(0, 200) },
  });
}

/**
 * The released forwards due for a retry at `now` (`next_forward_at` passed, still `pending_forward`, unclaimed), by
 * merchant, oldest first. Read outside any mutation by the housekeeping tick.
 */
export async function dueForwardRetries(db: Queryable, now: Date): Promise<Map<string, string[]>> {
  const { rows } = await db.query<{ merchant_id: string; id: string }>(
    `SELECT merchant_id, id FROM offline_card_payments
      WHERE state = 'pending_forward' AND forward_attempts = 0 AND next_forward_at IS NOT NULL AND next_forward_at <= $1
      ORDER BY next_forward_at, id`,
    [now.toISOString()],
  );
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.merchant_id, [...(out.get(r.merchant_id) ?? []), r.id]);
  return out;
}

/** Merchants holding a `pending_forward`, unclaimed payment whose forward window (their own, default 24 h) has passed at `now`. */
export async function merchantsWithExpiredForwards(db: Queryable, now: Date): Promise<string[]> {
  const { rows } = await db.query<{ merchant_id: string }>(
    `SELECT DISTINCT p.merchant_id FROM offline_card_payments p LEFT JOIN offline_card_limits l ON l.merchant_id = p.merchant_id
      WHERE p.state = 'pending_forward' AND p.forward_attempts = 0
        AND p.approved_at < $1::timestamptz - make_interval(hours => coalesce(l.forward_within_hours, $2))`,
    [now.toISOString(), DEFAULT_OFFLINE_CARD_LIMITS.forwardWithinHours],
  );
  return rows.map((r) => r.merchant_id);
}

/**
 * Enforces the store's forward window in `m`: every unclaimed `pending_forward` payment of the merchant (of `ids` only,
 * when given) approved more than `forwardWithinHours` before `m.now` becomes `expired` — never sent to the processor —
 * with decline code `forward_window_expired`, its amount moved to the customer's receivable (balance due) like a
 * decline, audit `payment.forward_expired` and event `payment.forward_declined` (state `expired`).
 * @returns the expired payments, with the journal transaction that moved each to the receivable
 */
export async function expireStaleForwards(
  m: Mutation,
  ids?: readonly string[],
): Promise<{ record: OfflineCardRecord; journalTransactionId: string }[]> {
  const { forwardWithinHours } = await getOfflineCardLimits(m.tx, m.merchantId);
  const cutoff = new Date(m.now.getTime() - forwardWithinHours * 3_600_000);
  const { rows } = await m.tx.query<PaymentRow>(
    `UPDATE offline_card_payments SET state = 'expired', decline_code = $3, next_forward_at = NULL
      WHERE merchant_id = $1 AND state = 'pending_forward' AND forward_attempts = 0 AND approved_at < $2
        ${ids ? 'AND id = ANY($4::text[])' : ''}
      RETURNING *`,
    ids ? [m.merchantId, cutoff.toISOString(), FORWARD_WINDOW_EXPIRED, ids] : [m.merchantId, cutoff.toISOString(), FORWARD_WINDOW_EXPIRED],
  );
  const expired: { record: OfflineCardRecord; journalTransactionId: string }[] = [];
  for (const row of rows) {
    const record = toRecord(row);
    const journalTransactionId = await recordForwardOutcome(m, record, {
      outcome: 'expired',
      code: FORWARD_WINDOW_EXPIRED,
      message: `Not forwarded within the store's ${forwardWithinHours} h window (approved ${new Date(row.approved_at).toISOString()}).`,
    });
    expired.push({ record, journalTransactionId });
  }
  return expired;
}

/** What the processor answered to a forward. */
export type ForwardOutcome =
  { outcome: 'captured'; accountCode: string; processorReference: string } | { outcome: 'declined' | 'expired'; code: string; message: string };

/**
 * Records a claimed forward's outcome in `m`: the payment's state, and a journal transaction (kind `payment`) moving the
 * amount out of `card_clearing:store_and_forward` — into the processor's clearing account when captured, into the
 * customer's receivable (balance due) when declined — with an audit entry and the event `payment.forwarded` or
 * `payment.forward_declined`. Returns the journal transaction's id. The order's own balance due is the workflow's
 * (workflows/offline-card-forward.ts).
 */
export async function recordForwardOutcome(m: Mutation, record: OfflineCardRecord, result: ForwardOutcome): Promise<string> {
  const declined = result.outcome !== 'captured';
  const expired = result.outcome === 'expired';
  const state = result.outcome;
  const journal = buildJournalTransaction(
    orderJournalHeader(
      { id: record.orderId, registerId: record.registerId, currency: record.currency },
      'payment',
      m.now.toISOString(),
      expired
        ? `Offline card not forwarded in time ${record.receiptNumber}: balance due`
        : declined
          ? `Offline card declined on forward ${record.receiptNumber}: balance due`
          : `Offline card forwarded ${record.receiptNumber}`,
    ),
    [
      { accountCode: declined ? OFFLINE_CARD_RECEIVABLE : result.accountCode, amountCents: record.amountCents },
      { accountCode: OFFLINE_CARD_ACCOUNT, amountCents: -record.amountCents },
    ],
  );
  await m.postJournalTransaction(journal);
  m.changed('journal-transactions');
  await m.tx.query(
    `UPDATE offline_card_payments SET state = $2, decline_code = $3, processor_reference = $4, journal_transaction_id = $5 WHERE id = $1`,
    [record.id, state, declined ? result.code : null, declined ? null : result.processorReference, journal.id],
  );
  const object = {
    id: record.id,
    orderId: record.orderId,
    receiptNumber: record.receiptNumber,
    state,
    amountCents: record.amountCents,
    balanceDueCents: declined ? record.amountCents : 0,
    currency: record.currency,
    cardBrand: record.cardBrand,
    last4: record.last4,
    ...(declined ? { declineCode: result.code } : {}),
  };
  await m.audit({
    registerId: record.registerId,
    action: expired ? 'payment.forward_expired' : declined ? 'payment.forward_declined' : 'payment.forwarded',
    entityType: 'payment',
    entityId: record.id,
    data: { ...object, journalTransactionId: journal.id },
  });
  await m.emit(declined ? 'payment.forward_declined' : 'payment.forwarded', object);
  return journal.id;
}

/** Filters of `GET /api/pos/offline-cards/payments`. */
export interface OfflineCardListQuery {
  limit: number;
  cursor?: string | undefined;
  state?: OfflineCardPayment['state'] | undefined;
}

/** Offline card payments newest first (approval time, then id), with the receipt's customer; cursor pagination. */
export async function listOfflineCardPayments(
  db: Queryable,
  merchantId: string,
  q: OfflineCardListQuery,
): Promise<{ data: OfflineCardPayment[]; nextCursor: string | null }> {
  const filter = new SqlFilter(['p.merchant_id = ?'], [merchantId]);
  if (q.state) filter.add('p.state = ?', q.state);
  if (q.cursor) {
    const [approvedAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    filter.add('(p.approved_at, p.id) < (?::timestamptz, ?::text)', approvedAt, id);
  }
  const limit = filter.param(q.limit + 1);
  const { rows } = await db.query<
    PaymentRow & {
      customer_id: string | null;
      given_name: string | null;
      family_name: string | null;
      email: string | null;
      phone: string | null;
      order_state: string;
      order_balance_due: number | string;
    }
  >(
    `SELECT p.*, c.id AS customer_id, c.given_name, c.family_name, c.email, c.phone, o.state AS order_state, o.balance_due_cents AS order_balance_due
       FROM offline_card_payments p
       JOIN orders o ON o.id = p.order_id
       LEFT JOIN customers c ON c.id = o.data->>'customerId' AND c.merchant_id = p.merchant_id
      WHERE ${filter.where} ORDER BY p.approved_at DESC, p.id DESC LIMIT ${limit}`,
    filter.params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, (r) => createdAtKey({ created_at: r.approved_at, id: r.id }));
  const windowHours = (await getOfflineCardLimits(db, merchantId)).forwardWithinHours;
  return {
    nextCursor,
    data: page.map((r) => ({
      id: r.id,
      orderId: r.order_id,
      receiptNumber: r.receipt_number,
      registerId: r.register_id,
      state: r.state,
      amountCents: Number(r.amount_cents),
      // Owed while the order is `balance_due` (migration 0195): collected on the order, it is 0 again.
      balanceDueCents:
        (r.state === 'declined' || r.state === 'expired') && r.order_state === 'balance_due'
          ? Math.min(Number(r.amount_cents), Number(r.order_balance_due))
          : 0,
      currency: r.currency,
      cardBrand: r.card_brand,
      last4: r.last4,
      approvedAt: new Date(r.approved_at).toISOString(),
      forwardedAt: r.forwarded_at ? new Date(r.forwarded_at).toISOString() : null,
      forwardAttempts: Number(r.forward_attempts),
      forwardFailures: Number(r.forward_failures ?? 0),
      nextForwardAt: r.state === 'pending_forward' && r.next_forward_at ? new Date(r.next_forward_at).toISOString() : null,
      forwardDeadline: new Date(new Date(r.approved_at).getTime() + windowHours * 3_600_000).toISOString(),
      declineCode: r.decline_code,
      processorReference: r.processor_reference,
      customer: r.customer_id
        ? { id: r.customer_id, name: [r.given_name, r.family_name].filter(Boolean).join(' ') || null, email: r.email, phone: r.phone }
        : null,
    })),
  };
}

/** The store's offline card limits (the defaults until changed). */
export async function getOfflineCardLimits(db: Queryable, merchantId: string): Promise<OfflineCardLimits> {
  const { rows } = await db.query<{ max_payment_cents: number | string; max_outstanding_cents: number | string; forward_within_hours: number }>(
    'SELECT max_payment_cents, max_outstanding_cents, forward_within_hours FROM offline_card_limits WHERE merchant_id = $1',
    [merchantId],
  );
  const row = rows[0];
  if (!row) return { ...DEFAULT_OFFLINE_CARD_LIMITS };
  return {
    maxPaymentCents: Number(row.max_payment_cents),
    maxOutstandingCents: Number(row.max_outstanding_cents),
    forwardWithinHours: Number(row.forward_within_hours),
  };
}

/** Changes the store's offline card limits in `m` (audited `offline_cards.limits_updated`); returns them. */
export async function updateOfflineCardLimits(m: Mutation, patch: Partial<OfflineCardLimits>): Promise<OfflineCardLimits> {
  const before = await getOfflineCardLimits(m.tx, m.merchantId);
  const after: OfflineCardLimits = { ...before, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  await m.tx.query(
    `INSERT INTO offline_card_limits (merchant_id, max_payment_cents, max_outstanding_cents, forward_within_hours, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (merchant_id) DO UPDATE SET max_payment_cents = $2, max_outstanding_cents = $3, forward_within_hours = $4, updated_at = $5`,
    [m.merchantId, after.maxPaymentCents, after.maxOutstandingCents, after.forwardWithinHours, m.now.toISOString()],
  );
  await m.audit({ action: 'offline_cards.limits_updated', entityType: 'merchant', entityId: m.merchantId, data: { before, after } });
  return after;
}
