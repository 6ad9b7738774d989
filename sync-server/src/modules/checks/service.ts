/**
 * A restaurant's open checks as registers push them (core/check-documents.ts): each pushed header, line or payment is
 * joined with the stored one by the check book's merge — never overwritten — and stored with a new sync sequence when
 * the join changed it, so every register pulls what the others did. Each change is one audit entry naming the
 * register and staff member of its stamp. This module is the one writer of `checks`, `check_lines` and
 * `check_payments`.
 */
import {
  canonicalJson,
  CHECK_DOCUMENT_SCHEMAS,
  checkDocumentChanges,
  mergeCheckDocument,
  type CheckCollection,
  type CheckDocument,
  type CheckHeader,
  type CheckLine,
  type CheckPayment,
  addServiceCharges,
  chargeTaxesOf,
  computeOrderTotals,
  DEFAULT_SERVICE_CHARGE_SETTINGS,
  linesOfCheck,
  type ServiceChargeSettings,
  overpaymentsOf,
  type Cents,
} from '../../../../core/index.ts';

import type { Mutation } from '../../kernel/mutation.ts';
import { jsonValue, type Queryable } from '../../platform/db/db.ts';

const TABLE: Record<CheckCollection, 'checks' | 'check_lines' | 'check_payments'> = {
  checks: 'checks',
  'check-lines': 'check_lines',
  'check-payments': 'check_payments',
};
const ENTITY: Record<CheckCollection, string> = { checks: 'check', 'check-lines': 'check_line', 'check-payments': 'check_payment' };

/** A stored document as a push answers it (the master state). */
export interface StoredCheckDocument {
  data: Record<string, unknown>;
  syncSeq: number;
  updatedAt: string;
}

/**
 * What became of one pushed document:
 * - `stored`: the join is what was pushed (new here, or newer in every part): stored, nothing to answer;
 * - `unchanged`: the server held it already;
 * - `master`: the server held changes the register had not heard of: the join is stored and answered, and the
 *   register takes it (it contains all of the register's own changes);
 * - `rejected`: not a valid document (quarantined with `reason`).
 */
export type CheckDocumentOutcome =
  | { kind: 'stored' }
  | { kind: 'unchanged' }
  | { kind: 'master'; stored: StoredCheckDocument }
  | { kind: 'rejected'; reason: string; registerId: string | null };

/** The documents of `collection` with these ids, by id. */
async function held(m: Mutation, collection: CheckCollection, ids: string[]): Promise<Map<string, CheckDocument>> {
  if (ids.length === 0) return new Map();
  const { rows } = await m.tx.query<{ id: string; data: unknown }>(
    `SELECT id, data FROM ${TABLE[collection]} WHERE merchant_id = $1 AND id = ANY($2)`,
    [m.merchantId, ids],
  );
  return new Map(rows.map((r) => [r.id, jsonValue<CheckDocument>(r.data)]));
}

/** The check a document belongs to (lines and payments name it; a header is its own). */
function checkIdOf(collection: CheckCollection, doc: CheckDocument): string {
  if (collection === 'checks') return doc.id as string;
  if (collection === 'check-lines') return (doc as { place: { checkId: string } }).place.checkId;
  return (doc as { checkId: string }).checkId;
}

/**
 * Joins pushed documents of `collection` with the stored ones and stores what changed, in the caller's mutation.
 * Documents that fail the collection's schema are `rejected` with the first field's path and message (the push
 * quarantines them); nothing else refuses a document: a check edited on another register meanwhile is a join, not a
 * conflict.
 * @returns one outcome per document, in push order
 */
export async function storeCheckDocuments(
  m: Mutation,
  collection: CheckCollection,
  documents: readonly Record<string, unknown>[],
  flagged: OverpaymentFlag[] = [],
): Promise<CheckDocumentOutcome[]> {
  const schema = CHECK_DOCUMENT_SCHEMAS[collection];
  const parsed = documents.map((doc) => schema.safeParse(doc));
  const ids = parsed.flatMap((p) => (p.success ? [p.data.id] : []));
  const current = await held(m, collection, [...new Set(ids)]);
  const outcomes: CheckDocumentOutcome[] = [];
  const touched = new Set<string>();
  for (const [i, result] of parsed.entries()) {
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const registerId = typeof documents[i]!.registerId === 'string' ? (documents[i]!.registerId as string).slice(0, 64) : null;
      outcomes.push({ kind: 'rejected', reason: `invalid document: ${issue.path.join('.') || '(document)'} ${issue.message}`, registerId });
      continue;
    }
    const pushed = result.data as CheckDocument;
    const id = pushed.id as string;
    const before = current.get(id);
    // A refund flag is the server's to raise (overpayments.ts): a pushed one is only ever an echo of what was pulled.
    const taken = collection === 'check-payments' ? withoutRefund(pushed as CheckPayment & { id: string }) : pushed;
    const joined = before ? mergeCheckDocument(collection, before, taken) : taken;
    const joinedJson = canonicalJson(joined);
    const changedHere = before === undefined || joinedJson !== canonicalJson(before);
    let stored: StoredCheckDocument | undefined;
    if (changedHere) {
      touched.add(checkIdOf(collection, joined));
      const { rows } = await m.tx.query<{ sync_seq: string | number }>(
        `INSERT INTO ${TABLE[collection]} (merchant_id, id, ${collection === 'checks' ? '' : 'check_id, '}data, sync_seq, updated_at)
         VALUES ($1, $2, ${collection === 'checks' ? '' : '$5, '}$3::jsonb, nextval('sync_seq'), $4)
         ON CONFLICT (merchant_id, id) DO UPDATE SET ${collection === 'checks' ? '' : 'check_id = EXCLUDED.check_id, '}data = EXCLUDED.data,
           sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at
         RETURNING sync_seq`,
        [m.merchantId, id, JSON.stringify(joined), m.now.toISOString(), ...(collection === 'checks' ? [] : [checkIdOf(collection, joined)])],
      );
      stored = { data: joined as unknown as Record<string, unknown>, syncSeq: Number(rows[0]!.sync_seq), updatedAt: m.now.toISOString() };
      current.set(id, joined);
      await auditChanges(m, collection, before, joined);
    }
    if (joinedJson === canonicalJson(pushed)) outcomes.push(changedHere ? { kind: 'stored' } : { kind: 'unchanged' });
    else
      outcomes.push({
        kind: 'master',
        stored: stored ?? (await storedOf(m, collection, id)),
      });
  }
  if (outcomes.some((o) => o.kind === 'stored' || o.kind === 'master')) m.changed(collection);
  flagged.push(...(await flagOverpayments(m, [...touched])));
  return outcomes;
}

function withoutRefund(payment: CheckPayment & { id: string }): CheckDocument {
  const { refund: _serverOnly, ...rest } = payment;
  return rest;
}

/**
 * One audit entry per change a join made to a document (core `checkDocumentChanges`), naming the register and staff
 * member of the change's stamp (`server` for a refund flag).
 */
export async function auditChanges(m: Mutation, collection: CheckCollection, before: CheckDocument | undefined, after: CheckDocument): Promise<void> {
  for (const change of checkDocumentChanges(collection, before, after)) {
    await m.audit({
      action: change.action,
      entityType: ENTITY[collection],
      entityId: after.id as string,
      data: {
        ...change.data,
        checkId: checkIdOf(collection, after),
        at: change.stamp.at,
        registerId: change.stamp.by,
        staffId: change.stamp.staffId ?? null,
      },
    });
  }
}

/** The stored document `id` of `collection` as a push answers it. */
async function storedOf(m: Mutation, collection: CheckCollection, id: string): Promise<StoredCheckDocument> {
  const { rows } = await m.tx.query<{ data: unknown; sync_seq: string | number; updated_at: Date }>(
    `SELECT data, sync_seq, updated_at FROM ${TABLE[collection]} WHERE merchant_id = $1 AND id = $2`,
    [m.merchantId, id],
  );
  const row = rows[0]!;
  return { data: jsonValue<Record<string, unknown>>(row.data), syncSeq: Number(row.sync_seq), updatedAt: new Date(row.updated_at).toISOString() };
}

/** A payment the server flagged for refund, for the manager's alert (docs/api.md "Overpaid checks"). */
export interface OverpaymentFlag {
  checkId: string;
  checkName: string;
  tableId: string | null;
  orderId: string;
  amountCents: Cents;
  refundCents: Cents;
  /** The register that took the payment, and the staff member signed in on it. */
  registerId: string;
  staffId: string | null;
}

/**
 * A check's total as the server reckons it: its live lines priced together (core `computeOrderTotals`), with the
 * store's service charge and, for its party, the automatic gratuity (core `addServiceCharges`, taxed at the dishes'
 * exclusive rates when taxable); tips excluded.
 */
export function checkTotalCents(lines: readonly CheckLine[], guests: number, charges: ServiceChargeSettings): Cents {
  const priced = lines.map((l) => l.line);
  const chargeIds = { serviceCharge: 'lin_service_charge', gratuity: 'lin_auto_gratuity' };
  return addServiceCharges(computeOrderTotals(priced, []), guests, charges, chargeTaxesOf(priced), chargeIds).totals.totalCents;
}

/** The store's service charge and automatic gratuity (none until set). */
export async function readServiceCharges(db: Queryable, merchantId: string): Promise<ServiceChargeSettings> {
  const { rows } = await db.query<{
    service_charge_basis_points: number;
    service_charge_taxable: boolean;
    gratuity_basis_points: number;
    gratuity_party_size: number;
    gratuity_taxable: boolean;
  }>('SELECT * FROM service_charge_settings WHERE merchant_id = $1', [merchantId]);
  const r = rows[0];
  if (!r) return { ...DEFAULT_SERVICE_CHARGE_SETTINGS };
  return {
    serviceChargeBasisPoints: Number(r.service_charge_basis_points),
    serviceChargeTaxable: r.service_charge_taxable,
    gratuityBasisPoints: Number(r.gratuity_basis_points),
    gratuityPartySize: Number(r.gratuity_party_size),
    gratuityTaxable: r.gratuity_taxable,
  };
}

/** Stores the service charge settings whole in `m`, audited `service_charges.updated` with before and after. */
export async function saveServiceCharges(m: Mutation, settings: ServiceChargeSettings): Promise<ServiceChargeSettings> {
  const before = await readServiceCharges(m.tx, m.merchantId);
  await m.tx.query(
    `INSERT INTO service_charge_settings (merchant_id, service_charge_basis_points, service_charge_taxable, gratuity_basis_points,
       gratuity_party_size, gratuity_taxable, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (merchant_id) DO UPDATE SET service_charge_basis_points = EXCLUDED.service_charge_basis_points,
       service_charge_taxable = EXCLUDED.service_charge_taxable, gratuity_basis_points = EXCLUDED.gratuity_basis_points,
       gratuity_party_size = EXCLUDED.gratuity_party_size, gratuity_taxable = EXCLUDED.gratuity_taxable, updated_at = EXCLUDED.updated_at`,
    [
      m.merchantId,
      settings.serviceChargeBasisPoints,
      settings.serviceChargeTaxable,
      settings.gratuityBasisPoints,
      settings.gratuityPartySize,
      settings.gratuityTaxable,
      m.now.toISOString(),
    ],
  );
  await m.audit({ action: 'service_charges.updated', entityType: 'merchant', entityId: m.merchantId, data: { before, after: settings } });
  return settings;
}

/**
 * Flags the payments of the closed checks among `checkIds` that went past their check's total (core `overpaymentsOf`,
 * in stamp order: the later payment owes back what it took above the total): each is stored once with its `refund`
 * (stamp `server`, this mutation's time) under a new sync sequence — so every register pulls the flag with the check —
 * and audited `check_payment.flagged_for_refund`. A payment already flagged is left as it is, so pushing the same
 * documents again flags nothing. Open checks are not judged: a register closes a check once it is paid, and the
 * lines it pushes before closing make the total.
 * @returns the payments flagged now (none when pushed again)
 */
async function flagOverpayments(m: Mutation, checkIds: readonly string[]): Promise<OverpaymentFlag[]> {
  if (checkIds.length === 0) return [];
  const headers = await m.tx.query<{ data: unknown }>(`SELECT data FROM checks WHERE merchant_id = $1 AND id = ANY($2) AND data ? 'closed'`, [
    m.merchantId,
    checkIds,
  ]);
  const closed = headers.rows.map((r) => jsonValue<CheckHeader>(r.data));
  if (closed.length === 0) return [];
  const closedIds = closed.map((h) => h.id);
  const lines = await m.tx.query<{ id: string; data: unknown }>(`SELECT id, data FROM check_lines WHERE merchant_id = $1 AND check_id = ANY($2)`, [
    m.merchantId,
    closedIds,
  ]);
  const payments = await m.tx.query<{ id: string; data: unknown }>(
    `SELECT id, data FROM check_payments WHERE merchant_id = $1 AND check_id = ANY($2)`,
    [m.merchantId, closedIds],
  );
  const book = {
    checks: Object.fromEntries(closed.map((h) => [h.id, h])),
    lines: Object.fromEntries(lines.rows.map((r) => [r.id, jsonValue<CheckLine>(r.data)])),
    payments: Object.fromEntries(payments.rows.map((r) => [r.id, jsonValue<CheckPayment & { id?: string }>(r.data)])),
  };
  const flagged: OverpaymentFlag[] = [];
  const charges = await readServiceCharges(m.tx, m.merchantId);
  for (const check of closed) {
    const total = checkTotalCents(linesOfCheck(book, check.id), check.guests, charges);
    for (const owed of overpaymentsOf(book, check.id, total)) {
      const payment = book.payments[owed.orderId]!;
      if (payment.refund) continue;
      const before = { ...payment, id: owed.orderId } as CheckDocument;
      const after = { ...before, refund: { refundCents: owed.refundCents, flagged: { at: m.now.toISOString(), by: 'server' } } } as CheckDocument;
      await m.tx.query(
        `UPDATE check_payments SET data = $3::jsonb, sync_seq = nextval('sync_seq'), updated_at = $4 WHERE merchant_id = $1 AND id = $2`,
        [m.merchantId, owed.orderId, JSON.stringify(after), m.now.toISOString()],
      );
      await auditChanges(m, 'check-payments', before, after);
      flagged.push({
        checkId: check.id,
        checkName: check.name,
        tableId: check.tableId,
        orderId: owed.orderId,
        amountCents: payment.amountCents,
        refundCents: owed.refundCents,
        registerId: payment.stamp.by,
        staffId: payment.stamp.staffId ?? null,
      });
    }
  }
  if (flagged.length > 0) m.changed('check-payments');
  return flagged;
}

/** One payment flagged for refund, as the back office lists it (`GET /api/pos/check-overpayments`). */
export interface FlaggedOverpayment extends OverpaymentFlag {
  /** When the register took the payment, and when the server flagged it (ISO 8601). */
  paidAt: string;
  flaggedAt: string;
}

/**
 * The store's payments flagged for refund, newest flag first, at most `limit`.
 */
export async function listFlaggedOverpayments(db: Queryable, merchantId: string, limit: number): Promise<FlaggedOverpayment[]> {
  const { rows } = await db.query<{ data: unknown; header: unknown }>(
    `SELECT p.data, c.data AS header FROM check_payments p LEFT JOIN checks c ON c.merchant_id = p.merchant_id AND c.id = p.check_id
     WHERE p.merchant_id = $1 AND p.data ? 'refund'
     ORDER BY p.data->'refund'->'flagged'->>'at' DESC, p.id LIMIT $2`,
    [merchantId, limit],
  );
  return rows.map((r) => {
    const payment = jsonValue<CheckPayment>(r.data);
    const header = r.header === null ? null : jsonValue<CheckHeader>(r.header);
    return {
      checkId: payment.checkId,
      checkName: header?.name ?? '',
      tableId: header?.tableId ?? null,
      orderId: payment.orderId,
      amountCents: payment.amountCents,
      refundCents: payment.refund!.refundCents,
      registerId: payment.stamp.by,
      staffId: payment.stamp.staffId ?? null,
      paidAt: payment.stamp.at,
      flaggedAt: payment.refund!.flagged.at,
    };
  });
}

/** The open checks (not closed) standing on any of `tableIds`: `{ checkId, tableId, name }` each. */
export async function openChecksOnTables(
  db: Queryable,
  merchantId: string,
  tableIds: readonly string[],
): Promise<{ checkId: string; tableId: string; name: string }[]> {
  if (tableIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; table_id: string; name: string }>(
    `SELECT id, data->>'tableId' AS table_id, data->>'name' AS name FROM checks
     WHERE merchant_id = $1 AND data->>'tableId' = ANY($2) AND NOT data ? 'closed' ORDER BY id`,
    [merchantId, tableIds],
  );
  return rows.map((r) => ({ checkId: r.id, tableId: r.table_id, name: r.name }));
}
