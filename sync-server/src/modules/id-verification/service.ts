/**
 * ID verification (docs/api.md "ID verification"): reads the AAMVA DL/ID barcode (core/aamva.ts),
 * checks expiry and the service's minimum age (store setting, 18 by default), stores the result with the document
 * number masked (last four characters) and audits it. Other modules' workflows (check cashing, transfers) call
 * {@link verifyId} inside their mutation and keep the `verificationId`.
 */
import { AamvaError, issuerProblem, parseAamva } from '../../../../core/aamva.ts';
import { ulid } from '../../../../core/index.ts';
import {
  ageOn,
  DEFAULT_MINIMUM_AGE,
  maskDocumentNumber,
  type IdHolder,
  type IdProblem,
  type IdVerification,
  type IdVerificationSettings,
} from '../../../../core/screening.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/** What a verification needs of its caller's mutation: the actor, the time and the audit trail (a kernel `Mutation` fits). */
export type IdVerificationContext = Pick<Mutation, 'actor' | 'now' | 'audit'>;

/** Input of {@link verifyId}. */
export interface VerifyIdInput {
  /** The PDF417 payload as the scanner typed it (or as decoded from a photo). */
  payload: string;
  /** The service asking: check_cashing, money_transfer, bill_payment, … (its minimum age applies). */
  service: string;
  /** Where the payload came from; default `scanner`. */
  source?: 'scanner' | 'image';
}

/** Result of {@link verifyId}: ok when no problem was found. */
export interface VerifyIdResult {
  verificationId: string;
  ok: boolean;
  problems: IdProblem[];
  minimumAge: number;
  holder: IdHolder;
}

/** Default minimum ages per service (18 for check cashing and transfers). */
export const DEFAULT_MINIMUM_AGES: Readonly<Record<string, number>> = { check_cashing: 18, money_transfer: 18 };

/** The store's ID settings (defaults when never changed). */
export async function getIdVerificationSettings(db: Queryable, merchantId: string): Promise<IdVerificationSettings> {
  const { rows } = await db.query<{ default_minimum_age: number; minimum_ages: Record<string, number> | string }>(
    'SELECT default_minimum_age, minimum_ages FROM id_verification_settings WHERE merchant_id = $1',
    [merchantId],
  );
  const row = rows[0];
  if (!row) return { defaultMinimumAge: DEFAULT_MINIMUM_AGE, minimumAges: { ...DEFAULT_MINIMUM_AGES } };
  return {
    defaultMinimumAge: Number(row.default_minimum_age),
    minimumAges: typeof row.minimum_ages === 'string' ? (JSON.parse(row.minimum_ages) as Record<string, number>) : row.minimum_ages,
  };
}

/** Changes the store's ID settings (`minimumAges` replaces the whole map); audited with before and after. */
export async function updateIdVerificationSettings(m: Mutation, patch: Partial<IdVerificationSettings>): Promise<IdVerificationSettings> {
  const before = await getIdVerificationSettings(m.tx, m.merchantId);
  const after = { ...before, ...patch };
  await m.tx.query(
    `INSERT INTO id_verification_settings (merchant_id, default_minimum_age, minimum_ages, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id) DO UPDATE SET default_minimum_age = EXCLUDED.default_minimum_age, minimum_ages = EXCLUDED.minimum_ages, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, after.defaultMinimumAge, JSON.stringify(after.minimumAges), m.now],
  );
  await m.audit({ action: 'id_verification_settings.updated', entityType: 'merchant', entityId: m.merchantId, data: { before, after } });
  return after;
}

/**
 * Reads an AAMVA payload, or answers the 400 a cashier can act on.
 * @throws ProblemError 400 `invalid_id_barcode` (the detail says not AAMVA / cut short / which field is wrong; `reason` in errors)
 */
export function readIdPayload(payload: string): ReturnType<typeof parseAamva> {
  try {
    return parseAamva(payload);
  } catch (err) {
    if (err instanceof AamvaError) {
      const lead =
        err.code === 'not_aamva'
          ? 'Not a driver licence or ID card barcode'
          : err.code === 'truncated'
            ? 'The ID barcode was read only in part; scan it again'
            : 'The ID barcode is malformed';
      throw new ProblemError(400, 'invalid_id_barcode', `${lead}: ${err.message}`, [{ path: 'payload', message: err.code }]);
    }
    throw err;
  }
}

/**
 * Verifies an ID for a service: parses the payload, checks expiry (expired the day after its expiry date), the issue
 * date (not in the future), the service's minimum age on today's date (UTC) and the issuer (core `issuerProblem`: an
 * IIN of the AAMVA table, whose jurisdiction is the address's state), stores the verification (document number
 * masked) and audits `id_verification.checked` (service, ok, problems, jurisdiction, masked number, age).
 * A failed check is stored too, `ok: false`, and is no error.
 * @throws ProblemError 400 `invalid_id_barcode` for a payload that is not a readable AAMVA barcode
 */
export async function verifyId(tx: Queryable, merchantId: string, input: VerifyIdInput, ctx: IdVerificationContext): Promise<VerifyIdResult> {
  const record = readIdPayload(input.payload);
  const settings = await getIdVerificationSettings(tx, merchantId);
  const minimumAge = settings.minimumAges[input.service] ?? settings.defaultMinimumAge;
  const today = ctx.now.toISOString().slice(0, 10);
  const h = record.holder;
  const age = h.dateOfBirth ? ageOn(h.dateOfBirth, today) : null;
  const problems: IdProblem[] = [];
  if (h.expiry && h.expiry < today) problems.push('expired');
  if (age === null || age < minimumAge) problems.push('under_minimum_age');
  if (h.issueDate && h.issueDate > today) problems.push('not_yet_issued');
  if (h.nameTruncated) problems.push('name_truncated');
  const issuer = issuerProblem(record);
  if (issuer) problems.push(issuer);
  const holder: IdHolder = {
    firstName: h.firstName,
    middleName: h.middleName,
    lastName: h.lastName,
    dateOfBirth: h.dateOfBirth,
    age,
    expiry: h.expiry,
    sex: h.sex,
    jurisdiction: h.jurisdiction,
    documentType: record.documentType,
    documentNumberMasked: h.documentNumber ? maskDocumentNumber(h.documentNumber) : null,
    address: h.address,
  };
  const id = `idv_${ulid()}`;
  const ok = problems.length === 0;
  await tx.query(
    `INSERT INTO id_verifications (id, merchant_id, service, source, ok, problems, minimum_age, first_name, middle_name, last_name, date_of_birth, age, expiry, sex,
       jurisdiction, document_type, document_number_masked, address, iin, aamva_version, verified_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
    [
      id,
      merchantId,
      input.service,
      input.source ?? 'scanner',
      ok,
      JSON.stringify(problems),
      minimumAge,
      holder.firstName,
      holder.middleName,
      holder.lastName,
      holder.dateOfBirth,
      age,
      holder.expiry,
      holder.sex,
      holder.jurisdiction,
      holder.documentType,
      holder.documentNumberMasked,
      JSON.stringify(holder.address),
      record.iin,
      record.aamvaVersion,
      ctx.actor,
      ctx.now,
    ],
  );
  await ctx.audit({
    action: 'id_verification.checked',
    entityType: 'id_verification',
    entityId: id,
    data: {
      service: input.service,
      ok,
      problems,
      minimumAge,
      age,
      jurisdiction: holder.jurisdiction,
      documentType: holder.documentType,
      documentNumberMasked: holder.documentNumberMasked,
      aamvaVersion: record.aamvaVersion,
    },
  });
  return { verificationId: id, ok, problems, minimumAge, holder };
}

interface VerificationRow {
  id: string;
  service: string;
  source: 'scanner' | 'image';
  ok: boolean;
  problems: string[] | string;
  minimum_age: number;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  date_of_birth: string | null;
  age: number | null;
  expiry: string | null;
  sex: 'M' | 'F' | 'X' | null;
  jurisdiction: string | null;
  document_type: 'DL' | 'ID' | null;
  document_number_masked: string | null;
  address: IdHolder['address'] | string | null;
  iin: string;
  aamva_version: number;
  verified_by: string;
  created_at: Date;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function verificationView(r: VerificationRow): IdVerification {
  return {
    id: r.id,
    verificationId: r.id,
    service: r.service,
    source: r.source,
    ok: r.ok,
    problems: json(r.problems),
    minimumAge: Number(r.minimum_age),
    holder: {
      firstName: r.first_name,
      middleName: r.middle_name,
      lastName: r.last_name,
      dateOfBirth: r.date_of_birth,
      age: r.age === null ? null : Number(r.age),
      expiry: r.expiry,
      sex: r.sex,
      jurisdiction: r.jurisdiction,
      documentType: r.document_type,
      documentNumberMasked: r.document_number_masked,
      address: r.address === null ? null : json(r.address),
    },
    issuer: { iin: r.iin, aamvaVersion: Number(r.aamva_version) },
    verifiedBy: r.verified_by,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

const SELECT = `SELECT id, service, source, ok, problems, minimum_age, first_name, middle_name, last_name, date_of_birth::text AS date_of_birth, age, expiry::text AS expiry, sex,
  jurisdiction, document_type, document_number_masked, address, iin, aamva_version, verified_by, created_at FROM id_verifications`;

/** One verification of the store, or null. */
export async function getIdVerification(db: Queryable, merchantId: string, id: string): Promise<IdVerification | null> {
  const { rows } = await db.query<VerificationRow>(`${SELECT} WHERE merchant_id = $1 AND id = $2`, [merchantId, id]);
  return rows[0] ? verificationView(rows[0]) : null;
}

/** Filters of {@link listIdVerifications}. */
export interface IdVerificationFilters {
  service?: string | undefined;
  ok?: boolean | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The store's verifications, newest first, filtered, one page. */
export async function listIdVerifications(
  db: Queryable,
  merchantId: string,
  f: IdVerificationFilters,
): Promise<{ data: IdVerification[]; nextCursor: string | null }> {
  const where = ['merchant_id = $1'];
  const params: unknown[] = [merchantId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (f.service) add('service = ?', f.service);
  if (f.ok !== undefined) add('ok = ?', f.ok);
  if (f.from) add('created_at >= ?', f.from);
  if (f.to) add('created_at < ?', f.to);
  if (f.cursor) {
    const [at, id] = decodeCursor(f.cursor, ['date', 'string']);
    params.push(at, id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(f.limit + 1);
  const { rows } = await db.query<VerificationRow>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, f.limit, (r) => [new Date(r.created_at).toISOString(), r.id]);
  return { data: page.map(verificationView), nextCursor };
}
