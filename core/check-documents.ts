/**
 * Open checks as the documents registers replicate (core/checks.ts holds the rules): a check book is kept as three
 * collections, one document per check header (`checks`), per line (`check-lines`, keyed by the line's id, which says
 * its check in `place.checkId`, so a line moved to another check is still one document) and per payment
 * (`check-payments`, keyed by the order that paid). The server and every register join a pushed document with the one
 * they hold by {@link mergeCheckDocument} — the book's own merge, so replicas converge whatever the order of pushes.
 *
 * {@link checkDocumentChanges} names what a merge changed, for the audit trail (who: the stamp's register and staff
 * member). Pure.
 */
import { z } from 'zod';
import { mergeCheckBooks, type CheckBook, type CheckHeader, type CheckLine, type CheckPayment, type Stamp } from './checks.ts';
import { utcDateTime } from './datetime.ts';
import { ID_PREFIXES } from './ids.ts';
import { amountCentsSchema, freeText, orderLineSchema } from './schemas.ts';

/** The replicated collections of a check book. */
export const CHECK_COLLECTIONS = ['checks', 'check-lines', 'check-payments'] as const;
export type CheckCollection = (typeof CHECK_COLLECTIONS)[number];

const ulid = '[0-9A-HJKMNP-TV-Z]{26}';
const prefixed = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_${ulid}$`), `must be an id starting with ${prefix}_`);
const shortId = z.string().min(1).max(64);

const stampSchema = z.strictObject({
  at: utcDateTime,
  by: shortId.describe('The register that made the change.'),
  staffId: shortId.optional().describe('The staff member signed in on it.'),
});

/** A check's header as replicated (`checks`): core/checks.ts `CheckHeader`. */
export const checkHeaderDocumentSchema = z.strictObject({
  id: prefixed(ID_PREFIXES.check),
  opened: stampSchema,
  kind: z.enum(['table', 'tab']),
  tableId: prefixed(ID_PREFIXES.floorTable).nullable(),
  name: freeText(60),
  guests: z.int().min(1).max(99),
  serverStaffId: shortId,
  stamp: stampSchema,
  preBill: z.strictObject({ stamp: stampSchema }).optional(),
  closed: z.strictObject({ stamp: stampSchema }).optional(),
});

/** A line as replicated (`check-lines`): core/checks.ts `CheckLine` with its id (the priced line's id). */
export const checkLineDocumentSchema = z
  .strictObject({
    id: z.string().min(1).max(64),
    line: orderLineSchema,
    note: freeText(200).optional(),
    added: stampSchema,
    place: z.strictObject({
      checkId: prefixed(ID_PREFIXES.check),
      seat: z.int().min(1).max(99).nullable(),
      course: z.int().min(1).max(9),
      stamp: stampSchema,
    }),
    sent: z.strictObject({ sendId: prefixed(ID_PREFIXES.kitchenSend), stamp: stampSchema }).optional(),
    voided: z.strictObject({ reason: freeText(200).min(1), staffId: shortId, stamp: stampSchema }).optional(),
  })
  .refine((doc) => doc.id === doc.line.id, { message: "must be the line's own id (line.id)", path: ['id'] });

/** A payment as replicated (`check-payments`): core/checks.ts `CheckPayment`, keyed by the order that paid. */
export const checkPaymentDocumentSchema = z
  .strictObject({
    id: prefixed(ID_PREFIXES.order),
    orderId: prefixed(ID_PREFIXES.order),
    checkId: prefixed(ID_PREFIXES.check),
    amountCents: amountCentsSchema.min(1),
    stamp: stampSchema,
    refund: z
      .strictObject({ refundCents: amountCentsSchema.min(1), flagged: stampSchema })
      .optional()
      .describe('Set by the server only: the part of this payment above the check total, flagged for refund.'),
  })
  .refine((doc) => doc.id === doc.orderId, { message: 'must be the paying order id (orderId)', path: ['id'] });

/** The schema of a document of `collection`. */
export const CHECK_DOCUMENT_SCHEMAS = {
  checks: checkHeaderDocumentSchema,
  'check-lines': checkLineDocumentSchema,
  'check-payments': checkPaymentDocumentSchema,
} as const;

/** A document of `checks`, `check-lines` or `check-payments`, with its id. */
export type CheckDocument = CheckHeader | (CheckLine & { id: string }) | (CheckPayment & { id: string });

function bookOf(collection: CheckCollection, doc: CheckDocument): CheckBook {
  const id = doc.id as string;
  if (collection === 'checks') return { checks: { [id]: doc as CheckHeader }, lines: {}, payments: {} };
  if (collection === 'check-lines') {
    const { id: _id, ...line } = doc as CheckLine & { id: string };
    return { checks: {}, lines: { [id]: line }, payments: {} };
  }
  const { id: _id, ...payment } = doc as CheckPayment & { id: string };
  return { checks: {}, lines: {}, payments: { [id]: payment } };
}

/**
 * The document both replicas hold once they have heard of each other's changes to it: `held` and `pushed` (same id,
 * same collection) joined by the check book's merge. Commutative, associative and idempotent.
 */
export function mergeCheckDocument<D extends CheckDocument>(collection: CheckCollection, held: D, pushed: D): D {
  const book = mergeCheckBooks(bookOf(collection, held), bookOf(collection, pushed));
  const id = held.id as string;
  if (collection === 'checks') return book.checks[id] as D;
  if (collection === 'check-lines') return { id, ...book.lines[id]! } as unknown as D;
  return { id, ...book.payments[id]! } as unknown as D;
}

/** One change a merge made, as the audit trail names it: the action, and the stamp of who made it. */
export interface CheckChange {
  action:
    | 'check.opened'
    | 'check.changed'
    | 'check.closed'
    | 'check.pre_billed'
    | 'check.reopened'
    | 'check_line.added'
    | 'check_line.moved'
    | 'check_line.sent'
    | 'check_line.voided'
    | 'check_payment.recorded'
    | 'check_payment.flagged_for_refund';
  stamp: Stamp;
  /** What changed, for the entry's data (no amounts beyond the line's own price). */
  data: Record<string, unknown>;
}

const same = (a: Stamp | undefined, b: Stamp | undefined) => (a === undefined ? b === undefined : b !== undefined && a.at === b.at && a.by === b.by);

/**
 * What became true between `before` (undefined: the document is new here) and `after` of one document of
 * `collection`, each with the stamp of the change. Pure.
 */
export function checkDocumentChanges(collection: CheckCollection, before: CheckDocument | undefined, after: CheckDocument): CheckChange[] {
  const out: CheckChange[] = [];
  if (collection === 'checks') {
    const [b, a] = [before as CheckHeader | undefined, after as CheckHeader];
    if (!b) out.push({ action: 'check.opened', stamp: a.opened, data: { kind: a.kind, tableId: a.tableId, name: a.name, guests: a.guests } });
    else if (!same(b.stamp, a.stamp))
      out.push({
        action: 'check.changed',
        stamp: a.stamp,
        data: { tableId: a.tableId, name: a.name, guests: a.guests, serverStaffId: a.serverStaffId },
      });
    if (a.preBill && !same(b?.preBill?.stamp, a.preBill.stamp)) out.push({ action: 'check.pre_billed', stamp: a.preBill.stamp, data: {} });
    if (b?.preBill && !a.preBill) out.push({ action: 'check.reopened', stamp: a.stamp, data: {} });
    if (a.closed && !same(b?.closed?.stamp, a.closed.stamp)) out.push({ action: 'check.closed', stamp: a.closed.stamp, data: {} });
    return out;
  }
  if (collection === 'check-lines') {
    const [b, a] = [before as CheckLine | undefined, after as CheckLine];
    const where = { checkId: a.place.checkId, seat: a.place.seat, course: a.place.course };
    if (!b)
      out.push({
        action: 'check_line.added',
        stamp: a.added,
        data: { ...where, name: a.line.name, quantity: a.line.quantity, grossCents: a.line.grossCents },
      });
    else if (!same(b.place.stamp, a.place.stamp))
      out.push({ action: 'check_line.moved', stamp: a.place.stamp, data: { from: b.place.checkId, ...where } });
    if (a.sent && !same(b?.sent?.stamp, a.sent.stamp)) out.push({ action: 'check_line.sent', stamp: a.sent.stamp, data: { sendId: a.sent.sendId } });
    if (a.voided && !same(b?.voided?.stamp, a.voided.stamp))
      out.push({ action: 'check_line.voided', stamp: a.voided.stamp, data: { reason: a.voided.reason, staffId: a.voided.staffId } });
    return out;
  }
  const [b, a] = [before as CheckPayment | undefined, after as CheckPayment];
  if (!b)
    out.push({ action: 'check_payment.recorded', stamp: a.stamp, data: { checkId: a.checkId, orderId: a.orderId, amountCents: a.amountCents } });
  if (a.refund && !same(b?.refund?.flagged, a.refund.flagged))
    out.push({
      action: 'check_payment.flagged_for_refund',
      stamp: a.refund.flagged,
      data: { checkId: a.checkId, orderId: a.orderId, amountCents: a.amountCents, refundCents: a.refund.refundCents },
    });
  return out;
}

/** A check book as the documents of its three collections (what a register pushes). Pure. */
export function checkDocumentsOf(book: CheckBook): {
  checks: CheckHeader[];
  'check-lines': (CheckLine & { id: string })[];
  'check-payments': (CheckPayment & { id: string })[];
} {
  return {
    checks: Object.values(book.checks),
    'check-lines': Object.entries(book.lines).map(([id, line]) => ({ id, ...line })),
    'check-payments': Object.entries(book.payments).map(([id, payment]) => ({ id, ...payment })),
  };
}
