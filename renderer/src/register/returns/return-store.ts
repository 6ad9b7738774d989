/**
 * Returns at the register (core/returns.ts), the data side: finding the sale (receipt number typed, the
 * receipt's QR scanned — `urn:register:order:<id>:<receipt>` —, or the order id), what earlier returns of it left,
 * the store's approval rule (cached for offline use), a manager's approval, and the write of a return to the local
 * database, where the replication pushes it (sync/replication.ts, `returns`): kept through an outage, stored once
 * however often it is sent (its `ret_…` id).
 */
import {
  newId,
  priorOfReturns,
  registerReturnSchema,
  type Order,
  type PriorRefund,
  type RegisterReturn,
  type ReturnTender,
} from '../../../../core/index.ts';
import type { RegisterDatabase, StoredOrder } from '../db/database.ts';
import { HttpError, registerApiCall, type RegisterSession } from '../../common/session.ts';
import { ensureShiftForSale } from '../shifts/shift-store.ts';

/** The default limit before the store's rule is known (the server's default `cashierRefundLimitCents`). */
export const DEFAULT_CASHIER_REFUND_LIMIT_CENTS = 50_00;
const RULES_KEY = 'register.returnRules.v1';

/** What the cashier typed or scanned → the receipt number or order id to look for. */
export function parseSaleQuery(text: string): { orderId?: string; receiptNumber?: string } {
  const t = text.trim();
  const urn = /^urn:register:order:(ord_[0-9A-Za-z]+):(R\d+-\d+)$/i.exec(t);
  if (urn) return { orderId: urn[1]!, receiptNumber: urn[2]!.toUpperCase() };
  if (/^ord_[0-9A-Za-z]{26}$/.test(t)) return { orderId: t };
  const receipt = /^r?(\d{1,4})-(\d{1,})$/i.exec(t);
  if (receipt) return { receiptNumber: `R${receipt[1]}-${receipt[2]!.padStart(6, '0')}` };
  return {};
}

/** The stored sale a scan or a typed receipt number names (any register of the store, as pulled), if any. */
export async function findSale(db: RegisterDatabase, text: string): Promise<StoredOrder | undefined> {
  const q = parseSaleQuery(text);
  if (q.orderId) {
    const doc = await db.orders.findOne(q.orderId).exec();
    if (doc) return doc.toJSON() as StoredOrder;
  }
  if (q.receiptNumber) {
    const doc = await db.orders.findOne({ selector: { receiptNumber: q.receiptNumber } }).exec();
    if (doc) return doc.toJSON() as StoredOrder;
  }
  return undefined;
}

/** Earlier returns of `order` held here (any register's, once pulled; refused ones do not count). */
export async function priorReturnsOf(db: RegisterDatabase, order: Order): Promise<{ prior: PriorRefund[]; returned: Map<string, number> }> {
  const docs = (await db.returns.find({ selector: { orderId: order.id }, sort: [{ createdAt: 'asc' }] }).exec())
    .map((d) => d.toJSON() as RegisterReturn & { rejection?: unknown })
    .filter((r) => !r.rejection);
  const returned = new Map<string, number>();
  for (const r of docs) for (const l of r.lines) returned.set(l.lineId, (returned.get(l.lineId) ?? 0) + l.quantity);
  return { prior: priorOfReturns(order, docs), returned };
}

/** The server's answer to this register; a refused PIN reads "Wrong PIN.". @throws HttpError, TypeError (offline) */
async function call<T>(session: RegisterSession, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  try {
    return await registerApiCall<T>(session, method, path, body);
  } catch (err) {
    if (err instanceof HttpError && err.code === 'invalid_pin') throw new HttpError(err.status, 'Wrong PIN.', err.code);
    throw err;
  }
}

/**
 * The store's limit (minor units) above which a cashier's return needs a manager: asked from the server
 * (`GET /api/register/return-rules`) and kept; offline, the last answer (or {@link DEFAULT_CASHIER_REFUND_LIMIT_CENTS}).
 */
export async function cashierRefundLimit(session: RegisterSession): Promise<number> {
  try {
    const rules = await call<{ cashierRefundLimitCents: number }>(session, 'GET', '/api/register/return-rules');
    localStorage.setItem(RULES_KEY, JSON.stringify(rules));
    return rules.cashierRefundLimitCents;
  } catch {
    const kept = Number((JSON.parse(localStorage.getItem(RULES_KEY) ?? '{}') as { cashierRefundLimitCents?: unknown }).cashierRefundLimitCents);
    return Number.isFinite(kept) && kept >= 0 ? kept : DEFAULT_CASHIER_REFUND_LIMIT_CENTS;
  }
}

/** The managers and owners who can approve (names only). @throws TypeError offline. */
export async function listApprovers(session: RegisterSession): Promise<{ id: string; name: string }[]> {
  const { data } = await call<{ data: { id: string; name: string; role: string }[] }>(session, 'GET', '/api/register/staff');
  return data.filter((s) => s.role === 'manager' || s.role === 'owner');
}

/**
 * A manager's approval of a return of `amountCents` of `orderId` (`POST /api/register/approvals`, the PIN checked by
 * the server): the single-use token the return carries. Online only. @throws TypeError offline; HttpError (wrong PIN…).
 */
export async function requestApproval(
  session: RegisterSession,
  input: { staffId: string; pin: string; orderId: string; amountCents: number },
): Promise<string> {
  return (await call<{ approval: string }>(session, 'POST', '/api/register/approvals', { ...input, action: 'refund' })).approval;
}

/** What a return records (the rest — id, register, shift, time — is filled in by {@link saveReturn}). */
export interface ReturnInput {
  order: Order;
  lines: { lineId: string; quantity: number }[];
  restock: boolean;
  amountCents: number;
  tender: ReturnTender;
  staffId?: string | undefined;
  approval?: string | undefined;
  exchangeOrderId?: string | undefined;
  id?: string;
}

/** A new return id (also the terminal refund's idempotency key, so a retried refund is never paid twice). */
export const newReturnId = () => newId('registerReturn');

/**
 * Writes a return to the local database (checked with core's schema first), in the register's open shift (one is
 * opened as for a sale). Resolves with the stored return. @throws ZodError when it is not valid.
 */
export async function saveReturn(db: RegisterDatabase, session: RegisterSession, input: ReturnInput): Promise<RegisterReturn> {
  const shift = await ensureShiftForSale(db, session, input.staffId);
  const doc = registerReturnSchema.parse({
    id: input.id ?? newReturnId(),
    registerId: session.registerId,
    orderId: input.order.id,
    receiptNumber: input.order.receiptNumber,
    createdAt: new Date().toISOString(),
    ...(input.staffId ? { staffId: input.staffId } : {}),
    shiftId: shift.id,
    lines: input.lines,
    restock: input.restock,
    amountCents: input.amountCents,
    tender: input.tender,
    ...(input.approval ? { approval: input.approval } : {}),
    ...(input.exchangeOrderId ? { exchangeOrderId: input.exchangeOrderId } : {}),
  });
  await db.returns.insert(doc);
  return doc;
}
