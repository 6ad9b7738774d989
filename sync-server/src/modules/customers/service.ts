/**
 * Customers (staff only): create, read, update, soft-delete, search by name / phone / e-mail, purchase
 * history, marketing consent with the time it was given. A merchant's customers are unique by E.164 phone and by
 * normalised e-mail (core/customers.ts): a duplicate is a 409 `customer_exists` naming `existingCustomerId`.
 * Every change writes an audit row in the same transaction.
 */
import { newId, normalizeEmail, normalizePhone, type CustomerCreate, type CustomerRecord, type CustomerUpdate } from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { problem, ProblemError, type Problem } from '../../platform/http/problem.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { likeContains } from '../../platform/db/sql-filter.ts';

/** 409: another customer of the merchant already has this phone or e-mail. */
export class DuplicateCustomerError extends ProblemError {
  constructor(
    readonly existingCustomerId: string,
    readonly field: 'phone' | 'email',
  ) {
    super(409, 'customer_exists', `Customer ${existingCustomerId} already has this ${field === 'phone' ? 'phone number' : 'e-mail address'}.`, [
      { path: field, message: `belongs to customer ${existingCustomerId}` },
    ]);
  }

  override toProblem(): Problem {
    return { ...problem(this.status, this.code, this.message, this.errors), existingCustomerId: this.existingCustomerId };
  }
}

/** A `customers` row as read by this module. */
export interface CustomerRow {
  id: string;
  given_name: string | null;
  family_name: string | null;
  email: string | null;
  phone: string | null;
  marketing_consent: boolean;
  marketing_consent_at: Date | null;
  note: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at?: Date | null;
  sync_seq?: number | string;
  register_id?: string | null;
}

/** The API shape of a customer row. */
export function toRecord(r: CustomerRow): CustomerRecord {
  return {
    id: r.id,
    givenName: r.given_name,
    familyName: r.family_name,
    email: r.email,
    phone: r.phone,
    marketingConsent: r.marketing_consent,
    marketingConsentAt: r.marketing_consent_at ? new Date(r.marketing_consent_at).toISOString() : null,
    note: r.note,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

async function findDuplicate(
  tx: Queryable,
  merchantId: string,
  fields: { phone?: string | null; email?: string | null },
  exceptId?: string,
): Promise<void> {
  if (fields.phone) {
    const { rows } = await tx.query<{ id: string }>(
      'SELECT id FROM customers WHERE merchant_id = $1 AND phone = $2 AND deleted_at IS NULL AND id <> $3',
      [merchantId, fields.phone, exceptId ?? ''],
    );
    if (rows[0]) throw new DuplicateCustomerError(rows[0].id, 'phone');
  }
  if (fields.email) {
    const { rows } = await tx.query<{ id: string }>(
      'SELECT id FROM customers WHERE merchant_id = $1 AND email_normalized = $2 AND deleted_at IS NULL AND id <> $3',
      [merchantId, normalizeEmail(fields.email), exceptId ?? ''],
    );
    if (rows[0]) throw new DuplicateCustomerError(rows[0].id, 'email');
  }
}

async function customerRow(db: Queryable, merchantId: string, id: string): Promise<CustomerRow> {
  const { rows } = await db.query<CustomerRow>('SELECT * FROM customers WHERE id = $1 AND merchant_id = $2 AND deleted_at IS NULL', [id, merchantId]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Customer ${id} does not exist.`);
  return rows[0];
}

/** @throws ProblemError 404 when the customer is not the merchant's (or was deleted). */
export async function getCustomer(db: Queryable, merchantId: string, id: string): Promise<CustomerRecord> {
  return toRecord(await customerRow(db, merchantId, id));
}

/**
 * The phone as typed, in E.164: an international number as is, a national one in the store's default country
 * (`merchants.default_country`, GET/PATCH /api/pos/settings). `path` is the field named in the error.
 * @throws ProblemError 400 naming `path` when it is not a valid number.
 */
export async function storePhoneToE164(tx: Queryable, merchantId: string, phone: string, path = 'phone'): Promise<string> {
  const country =
    (await tx.query<{ default_country: string }>('SELECT default_country FROM merchants WHERE id = $1', [merchantId])).rows[0]?.default_country ??
    'US';
  const e164 = normalizePhone(phone, country);
  if (!e164) {
    const message = phone.trim().startsWith('+')
      ? 'must be a valid phone number, e.g. +14155550123'
      : `must be a valid phone number of the store's country (${country}) or start with + and a country code`;
    throw new ProblemError(400, 'validation_error', `Invalid ${path}: ${message}.`, [{ path, message }]);
  }
  return e164;
}

/**
 * Creates a customer (phone normalised to E.164 here, e-mail trimmed by the schema). Consent given now stamps
 * `marketingConsentAt`. @throws DuplicateCustomerError (409) on a phone or e-mail another customer has.
 */
export async function createCustomer(ctx: AppContext, principal: Principal, input: CustomerCreate): Promise<CustomerRecord> {
  return mutation(ctx, actorOf(principal), async ({ tx, now, audit, changed }) => {
    if (input.phone) input = { ...input, phone: await storePhoneToE164(tx, principal.merchantId, input.phone) };
    await findDuplicate(tx, principal.merchantId, input);
    changed('customers');
    const id = newId('customer');
    const consent = input.marketingConsent ?? false;
    const { rows } = await tx.query<CustomerRow>(
      `INSERT INTO customers (id, merchant_id, given_name, family_name, email, email_normalized, phone, marketing_consent, marketing_consent_at, note, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
      [
        id,
        principal.merchantId,
        input.givenName ?? null,
        input.familyName ?? null,
        input.email ?? null,
        input.email ? normalizeEmail(input.email) : null,
        input.phone ?? null,
        consent,
        consent ? now.toISOString() : null,
        input.note ?? null,
        now.toISOString(),
      ],
    );
    await audit({
      action: 'customer.created',
      entityType: 'customer',
      entityId: id,
      data: { marketingConsent: consent, hasPhone: Boolean(input.phone), hasEmail: Boolean(input.email) },
    });
    return toRecord(rows[0]!);
  });
}

/**
 * Changes the given fields (`null` clears one). Giving consent stamps `marketingConsentAt` now; withdrawing clears it.
 * @throws ProblemError 404; DuplicateCustomerError (409).
 */
export async function updateCustomer(ctx: AppContext, principal: Principal, id: string, input: CustomerUpdate): Promise<CustomerRecord> {
  return mutation(ctx, actorOf(principal), async ({ tx, now, audit, changed }) => {
    const before = await customerRow(tx, principal.merchantId, id);
    changed('customers');
    if (input.phone) input = { ...input, phone: await storePhoneToE164(tx, principal.merchantId, input.phone) };
    await findDuplicate(tx, principal.merchantId, { phone: input.phone, email: input.email }, id);
    const pick = <T>(value: T | null | undefined, current: T | null): T | null => (value === undefined ? current : value);
    const email = pick(input.email, before.email);
    const consent = input.marketingConsent ?? before.marketing_consent;
    const consentAt = consent ? (input.marketingConsent === true && !before.marketing_consent ? now : before.marketing_consent_at) : null;
    const after = {
      given_name: pick(input.givenName, before.given_name),
      family_name: pick(input.familyName, before.family_name),
      phone: pick(input.phone, before.phone),
      note: pick(input.note, before.note),
    };
    if (!after.given_name && !after.family_name && !email && !after.phone) {
      throw new ProblemError(400, 'validation_error', 'Invalid givenName: a customer needs a name, a phone or an e-mail.', [
        { path: 'givenName', message: 'a customer needs a name, a phone or an e-mail' },
      ]);
    }
    const { rows } = await tx.query<CustomerRow>(
      `UPDATE customers SET given_name = $3, family_name = $4, email = $5, email_normalized = $6, phone = $7, marketing_consent = $8,
         marketing_consent_at = $9, note = $10, updated_at = $11, sync_seq = nextval('sync_seq') WHERE id = $1 AND merchant_id = $2 RETURNING *`,
      [
        id,
        principal.merchantId,
        after.given_name,
        after.family_name,
        email,
        email ? normalizeEmail(email) : null,
        after.phone,
        consent,
        consentAt ? new Date(consentAt).toISOString() : null,
        after.note,
        now.toISOString(),
      ],
    );
    await audit({
      action: 'customer.updated',
      entityType: 'customer',
      entityId: id,
      data: { fields: Object.keys(input).sort(), marketingConsent: { from: before.marketing_consent, to: consent } },
    });
    return toRecord(rows[0]!);
  });
}

/** Soft-deletes a customer (their orders keep the id); the phone and e-mail become free again. @throws 404. */
export async function deleteCustomer(ctx: AppContext, principal: Principal, id: string): Promise<void> {
  await mutation(ctx, actorOf(principal), async ({ tx, now, audit, changed }) => {
    await customerRow(tx, principal.merchantId, id);
    changed('customers');
    await tx.query(`UPDATE customers SET deleted_at = $3, updated_at = $3, sync_seq = nextval('sync_seq') WHERE id = $1 AND merchant_id = $2`, [
      id,
      principal.merchantId,
      now.toISOString(),
    ]);
    await audit({ action: 'customer.deleted', entityType: 'customer', entityId: id, data: {} });
  });
}

/**
 * Customers by id (oldest first), optionally matching `q`: a substring of the given, family or full name or the
 * e-mail (case-insensitive), or — when `q` has digits — of the phone's digits. Cursor pagination.
 */
export async function listCustomers(
  db: Queryable,
  merchantId: string,
  q: { limit: number; cursor?: string; q?: string; marketingConsent?: boolean },
): Promise<{ data: CustomerRecord[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  const where = ['merchant_id = $1', 'deleted_at IS NULL'];
  if (q.q) {
    params.push(likeContains(q.q.trim()));
    const text = `$${params.length}`;
    const parts = [
      `given_name ILIKE ${text}`,
      `family_name ILIKE ${text}`,
      `(coalesce(given_name, '') || ' ' || coalesce(family_name, '')) ILIKE ${text}`,
      `email_normalized ILIKE ${text}`,
    ];
    const digits = q.q.replace(/\D/g, '');
    if (digits.length >= 3) {
      params.push(`%${digits}%`);
      parts.push(`phone LIKE $${params.length}`);
    }
    where.push(`(${parts.join(' OR ')})`);
  }
  if (q.marketingConsent !== undefined) {
    params.push(q.marketingConsent);
    where.push(`marketing_consent = $${params.length}`);
  }
  if (q.cursor) {
    params.push(decodeCursor(q.cursor, ['string'])[0]);
    where.push(`id > $${params.length}`);
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<CustomerRow>(`SELECT * FROM customers WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.length}`, params);
  const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.id]);
  return { data: page.map(toRecord), nextCursor };
}
