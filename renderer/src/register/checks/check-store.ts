/**
 * The register's check book (core/checks.ts) over its local database: the three check collections read as one
 * {@link CheckBook}, and every change made here — open a check, add, move or send lines, pre-bill, re-open — applied to
 * the book by core's pure functions, then the documents it changed written without the server's stamp, so the
 * replication pushes them (sync/replication.ts) and every other register of the store joins them with its own.
 * Every change is stamped with this register and the signed-in staff member (the server's audit trail names both).
 */
import { useEffect, useMemo, useState } from 'react';
import { combineLatest } from 'rxjs';
import {
  canonicalJson,
  checkDocumentsOf,
  EMPTY_CHECK_BOOK,
  type CheckBook,
  type CheckHeader,
  type CheckLine,
  type CheckPayment,
  type Stamp,
} from '../../../../core/index.ts';
import type { RegisterDatabase } from '../db/database.ts';
import { coreCheckDocument } from './check-join.ts';

/** Who makes a change: this register and the staff member signed in on it. */
export interface CheckActor {
  registerId: string;
  staffId: string;
}

/** The stamp of a change made now by `actor`. */
export function stampOf(actor: CheckActor, now: Date = new Date()): Stamp {
  return { at: now.toISOString(), by: actor.registerId, staffId: actor.staffId };
}

type Docs = { toJSON(): unknown }[];

/** The book of the held documents (their server stamps left out). */
function bookOfDocs(checks: Docs, lines: Docs, payments: Docs): CheckBook {
  const byId = <T>(docs: Docs) =>
    Object.fromEntries(
      docs.map((d) => {
        const { id, ...rest } = coreCheckDocument(d.toJSON() as Record<string, unknown>) as unknown as { id: string } & T;
        return [id, rest as T];
      }),
    );
  return {
    checks: Object.fromEntries(checks.map((d) => coreCheckDocument(d.toJSON() as Record<string, unknown>) as CheckHeader).map((c) => [c.id, c])),
    lines: byId<CheckLine>(lines),
    payments: byId<CheckPayment>(payments),
  };
}

/** The book as the local database holds it now. */
export async function readCheckBook(db: RegisterDatabase): Promise<CheckBook> {
  const [checks, lines, payments] = await Promise.all([db.checks.find().exec(), db.check_lines.find().exec(), db.check_payments.find().exec()]);
  return bookOfDocs(checks, lines, payments);
}

/** The held book, kept in step with the local database (changes made here and pulled from the server). */
export function useCheckBook(db: RegisterDatabase): CheckBook {
  const [book, setBook] = useState<CheckBook>(EMPTY_CHECK_BOOK);
  const book$ = useMemo(() => combineLatest([db.checks.find().$, db.check_lines.find().$, db.check_payments.find().$]), [db]);
  useEffect(() => {
    const subscription = book$.subscribe(([checks, lines, payments]) => setBook(bookOfDocs(checks, lines, payments)));
    return () => subscription.unsubscribe();
  }, [book$]);
  return book;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Applies `change` to the book held now and writes every document it changed or added (without the server's stamp:
 * pushed by the replication). Changes run one at a time, each on the book the previous one left.
 * @returns what `change` answered beside the book
 * @throws whatever `change` throws (core CheckError: a closed check, a voided line…): nothing is written then
 */
export function changeCheckBook<R>(db: RegisterDatabase, change: (book: CheckBook) => { book: CheckBook; result: R }): Promise<R> {
  const run = async (): Promise<R> => {
    const before = await readCheckBook(db);
    const { book, result } = change(before);
    const [was, now] = [checkDocumentsOf(before), checkDocumentsOf(book)];
    const changed = <D extends { id: string }>(older: D[], newer: D[]) => {
      const held = new Map(older.map((d) => [d.id, canonicalJson(d)]));
      return newer.filter((d) => held.get(d.id) !== canonicalJson(d));
    };
    const checks = changed(was.checks, now.checks);
    const lines = changed(was['check-lines'], now['check-lines']);
    const payments = changed(was['check-payments'], now['check-payments']);
    await Promise.all([
      checks.length > 0 ? db.checks.bulkUpsert(checks) : undefined,
      lines.length > 0 ? db.check_lines.bulkUpsert(lines) : undefined,
      payments.length > 0 ? db.check_payments.bulkUpsert(payments) : undefined,
    ]);
    return result;
  };
  const next = queue.then(run, run);
  queue = next.catch(() => undefined);
  return next;
}
