/**
 * Customers at the register: the store's customers as registers pull them (by sync sequence, like the
 * catalog), customers a register created — online or offline — as it pushes them, and their de-duplication.
 *
 * The merge rule (docs/decisions/0016-customers-created-at-the-register.md): a pushed customer whose E.164 phone, or
 * else whose normalised e-mail, an existing customer of the store already has is merged into that customer — the
 * existing customer survives with its own fields; a field it lacks (name, phone, e-mail) is taken from the pushed one
 * when no other customer has it; the pushed id becomes an alias of the survivor (`customer_aliases`, written here
 * only). A pushed customer matching nobody is stored under the register's id. Pushes are idempotent by id.
 */
import { normalizeEmail, registerCustomerSchema, type CustomerSyncDocument } from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { findUnstorable, isStorableTimestamp } from '../../platform/http/input-guard.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { storePhoneToE164, toRecord, type CustomerRow } from './service.ts';

/** What became of one pushed customer. */
export type RegisterCustomerOutcome =
  /** Stored as a new customer under the register's id. */
  | { kind: 'stored' }
  /** Already stored under this id (a customer is created once; later pushes of it change nothing). */
  | { kind: 'unchanged' }
  /**
   * Merged into an existing customer (now or by an earlier push of the same id): `alias` is answered as the master
   * state, so the register learns the surviving id at once. `isNew`: merged by this push.
   */
  | { kind: 'merged'; aliasId: string; customerId: string; isNew: boolean; alias: CustomerSyncDocument & { updatedAt: string; syncSeq: number } }
  /** Refused: `reason` says why (the caller quarantines it). */
  | { kind: 'rejected'; reason: string; registerId: string | null };

interface AliasRow {
  alias_id: string;
  merchant_id: string;
  customer_id: string;
  matched_on: 'phone' | 'email';
  created_at: Date;
  sync_seq: number | string;
}

const aliasDocument = (a: AliasRow) => ({
  id: a.alias_id,
  mergedInto: a.customer_id,
  matchedOn: a.matched_on,
  createdAt: new Date(a.created_at).toISOString(),
  updatedAt: new Date(a.created_at).toISOString(),
  syncSeq: Number(a.sync_seq),
});

/**
 * Stores the customers a register pushed (client fields already stripped) for `m`'s merchant, in `m.tx`, one by one
 * in push order (a later document sees the earlier ones). Marks `customers` changed. Never throws for a document's
 * content: what cannot be stored is `rejected` with its reason.
 * @returns one outcome per document, in the order given
 */
export async function storeRegisterCustomers(m: Mutation, documents: readonly Record<string, unknown>[]): Promise<RegisterCustomerOutcome[]> {
  const outcomes: RegisterCustomerOutcome[] = [];
  for (const doc of documents) outcomes.push(await storeOne(m, doc));
  if (outcomes.some((o) => o.kind === 'stored' || (o.kind === 'merged' && o.isNew))) m.changed('customers');
  return outcomes;
}

async function storeOne(m: Mutation, doc: Record<string, unknown>): Promise<RegisterCustomerOutcome> {
  const registerId = typeof doc.registerId === 'string' ? doc.registerId.slice(0, 64) : null;
  const unstorable = findUnstorable(doc);
  if (unstorable) return { kind: 'rejected', reason: `invalid customer: ${unstorable.path} ${unstorable.message}`, registerId: null };
  const parsed = registerCustomerSchema.safeParse(doc);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
      .join('; ');
    return { kind: 'rejected', reason: `invalid customer: ${issues}`, registerId };
  }
  const input = parsed.data;
  if (!isStorableTimestamp(input.createdAt)) return { kind: 'rejected', reason: 'invalid customer: createdAt is not a plausible time', registerId };
  const { tx, merchantId } = m;

  // The same id again: this store's customer or alias answers as before; another store's id is a conflict (the same
  // words whoever holds it, so a push never learns that an id exists in another store).
  const taken = await tx.query<{ merchant_id: string }>('SELECT merchant_id FROM customers WHERE id = $1', [input.id]);
  if (taken.rows[0]) {
    return taken.rows[0].merchant_id === merchantId ? { kind: 'unchanged' } : { kind: 'rejected', reason: idConflict(input.id), registerId };
  }
  const aliased = await tx.query<AliasRow>('SELECT * FROM customer_aliases WHERE alias_id = $1', [input.id]);
  if (aliased.rows[0]) {
    const a = aliased.rows[0];
    return a.merchant_id === merchantId
      ? { kind: 'merged', aliasId: a.alias_id, customerId: a.customer_id, isNew: false, alias: aliasDocument(a) }
      : { kind: 'rejected', reason: idConflict(input.id), registerId };
  }

  let phone: string | undefined;
  try {
    phone = input.phone ? await storePhoneToE164(tx, merchantId, input.phone) : undefined;
  } catch (err) {
    if (err instanceof ProblemError && err.status === 400)
      return {
        kind: 'rejected',
        reason: `invalid customer: ${err.errors?.[0]?.path ?? 'phone'} ${err.errors?.[0]?.message ?? err.message}`,
        registerId,
      };
    throw err;
  }
  const email = input.email ? normalizeEmail(input.email) : undefined;

  const match = await findMatch(tx, merchantId, phone, email);
  if (match) {
    const survivor = match.row;
    // The survivor keeps its fields; what it lacks comes from the pushed customer when nobody else has it.
    const hasName = Boolean(survivor.given_name || survivor.family_name);
    const addPhone = !survivor.phone && phone && !(await taken1(tx, merchantId, 'phone', phone)) ? phone : undefined;
    const addEmail = !survivor.email && input.email && email && !(await taken1(tx, merchantId, 'email_normalized', email)) ? input.email : undefined;
    const fill = {
      given_name: hasName ? survivor.given_name : (input.givenName ?? null),
      family_name: hasName ? survivor.family_name : (input.familyName ?? null),
    };
    const filled = [
      !hasName && (input.givenName || input.familyName) ? 'name' : undefined,
      addPhone ? 'phone' : undefined,
      addEmail ? 'email' : undefined,
    ].filter((f): f is string => Boolean(f));
    if (filled.length > 0) {
      await tx.query(
        `UPDATE customers SET given_name = $3, family_name = $4, phone = coalesce(phone, $5), email = coalesce(email, $6),
           email_normalized = coalesce(email_normalized, $7), updated_at = $8, sync_seq = nextval('sync_seq') WHERE id = $1 AND merchant_id = $2`,
        [
          survivor.id,
          merchantId,
          fill.given_name,
          fill.family_name,
          addPhone ?? null,
          addEmail ?? null,
          addEmail ? email : null,
          m.now.toISOString(),
        ],
      );
    }
    const { rows } = await tx.query<AliasRow>(
      `INSERT INTO customer_aliases (alias_id, merchant_id, customer_id, matched_on, register_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [input.id, merchantId, survivor.id, match.on, input.registerId, m.now.toISOString()],
    );
    await m.audit({
      action: 'customer.merged',
      entityType: 'customer',
      entityId: survivor.id,
      data: { aliasId: input.id, matchedOn: match.on, registerId: input.registerId, filled },
    });
    return { kind: 'merged', aliasId: input.id, customerId: survivor.id, isNew: true, alias: aliasDocument(rows[0]!) };
  }

  await tx.query(
    `INSERT INTO customers (id, merchant_id, given_name, family_name, email, email_normalized, phone, marketing_consent, marketing_consent_at, note, created_at, updated_at, register_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, false, NULL, NULL, $8, $9, $10)`,
    [
      input.id,
      merchantId,
      input.givenName ?? null,
      input.familyName ?? null,
      input.email ?? null,
      email ?? null,
      phone ?? null,
      input.createdAt,
      m.now.toISOString(),
      input.registerId,
    ],
  );
  await m.audit({
    action: 'customer.created',
    entityType: 'customer',
    entityId: input.id,
    data: { marketingConsent: false, hasPhone: Boolean(phone), hasEmail: Boolean(email), registerId: input.registerId },
  });
  return { kind: 'stored' };
}

const idConflict = (id: string) => `id conflict: customer ${id} is taken by another document; create the customer again under a new id`;

async function taken1(tx: Queryable, merchantId: string, column: 'phone' | 'email_normalized', value: string): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM customers WHERE merchant_id = $1 AND ${column} = $2 AND deleted_at IS NULL`, [merchantId, value]);
  return rows.length > 0;
}

/** The customer (not deleted) with this E.164 phone, or else with this normalised e-mail. */
async function findMatch(
  tx: Queryable,
  merchantId: string,
  phone: string | undefined,
  email: string | undefined,
): Promise<{ row: CustomerRow; on: 'phone' | 'email' } | undefined> {
  if (phone) {
    const { rows } = await tx.query<CustomerRow>('SELECT * FROM customers WHERE merchant_id = $1 AND phone = $2 AND deleted_at IS NULL', [
      merchantId,
      phone,
    ]);
    if (rows[0]) return { row: rows[0], on: 'phone' };
  }
  if (email) {
    const { rows } = await tx.query<CustomerRow>('SELECT * FROM customers WHERE merchant_id = $1 AND email_normalized = $2 AND deleted_at IS NULL', [
      merchantId,
      email,
    ]);
    if (rows[0]) return { row: rows[0], on: 'email' };
  }
  return undefined;
}

/**
 * The surviving customer of each of `ids` that is an alias of the merchant (a register's customer merged into an
 * existing one); ids that are no alias are left out. One statement.
 */
export async function resolveCustomerAliases(tx: Queryable, merchantId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ alias_id: string; customer_id: string }>(
    'SELECT alias_id, customer_id FROM customer_aliases WHERE merchant_id = $1 AND alias_id = ANY($2)',
    [merchantId, [...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.alias_id, r.customer_id]));
}

/** A pulled customer document: the sync shape plus the server's stamps. */
export type PulledCustomer = CustomerSyncDocument & { updatedAt: string; syncSeq: number; _deleted: boolean };

/**
 * The merchant's customers and aliases with a sync sequence after `seq`, in sequence order, at most `limit`: customers
 * as {@link CustomerSyncDocument} records (a deleted one with `_deleted: true`), aliases as `{ id, mergedInto }`.
 */
export async function pullCustomers(db: Queryable, merchantId: string, seq: number, limit: number): Promise<PulledCustomer[]> {
  const customers = await db.query<CustomerRow & { sync_seq: number | string }>(
    'SELECT * FROM customers WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3',
    [merchantId, seq, limit],
  );
  const aliases = await db.query<AliasRow>('SELECT * FROM customer_aliases WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3', [
    merchantId,
    seq,
    limit,
  ]);
  const docs: PulledCustomer[] = [
    ...customers.rows.map((r) => ({
      ...toRecord(r),
      registerId: r.register_id ?? null,
      syncSeq: Number(r.sync_seq),
      _deleted: r.deleted_at != null,
    })),
    ...aliases.rows.map((a) => ({ ...aliasDocument(a), _deleted: false })),
  ];
  return docs.sort((a, b) => a.syncSeq - b.syncSeq).slice(0, limit);
}

/** The highest sync sequence of the merchant's customers and aliases (0 when none). */
export async function maxCustomerSeq(db: Queryable, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ seq: number | string | null }>(
    'SELECT GREATEST((SELECT MAX(sync_seq) FROM customers WHERE merchant_id = $1), (SELECT MAX(sync_seq) FROM customer_aliases WHERE merchant_id = $1)) AS seq',
    [merchantId],
  );
  return Number(rows[0]?.seq ?? 0);
}
