/**
 * Noticing sales lost with the local database (its browser storage cleared before they synced). The register's
 * receipt counter in localStorage (the witness, sale/ring-up.ts) says which numbers it handed out; the local database
 * says which sales it still holds; the server says the last receipt number it received from this register
 * (`GET /api/sync/registers/{id}`). A number above the server's last that the register handed out but no longer
 * holds is a lost sale: reported to the server (`POST /api/sync/registers/{id}/missing-receipts`, audited, listed in
 * the back office) and named to the cashier.
 */
import { formatReceiptNumber, parseReceiptNumber } from '../../../../core/index.ts';
import type { RegisterDatabase } from '../db/database.ts';
import { sequenceKey } from '../sale/ring-up.ts';
import { HttpError, REGISTER_SCHEMA_VERSION, type RegisterSession } from '../../common/session.ts';

/** Numbers in one report at most (the server's limit); a larger gap is reported from its newest numbers. */
export const MAX_REPORTED = 1000;

/** The last receipt sequence this register handed out, as its localStorage witness says (0 when unknown). */
export function witnessedSequence(registerId: string): number {
  return Number(localStorage.getItem(sequenceKey(registerId)) ?? '0') || 0;
}

/**
 * Sequences in (`serverLast`, `witnessed`] that are not in `held`, ascending; the newest {@link MAX_REPORTED} at most.
 * Pure: `serverLast` is the highest sequence the server holds from the register, `held` those in the local database.
 */
export function missingSequences(witnessed: number, serverLast: number, held: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (let n = witnessed; n > serverLast && out.length < MAX_REPORTED; n -= 1) if (!held.has(n)) out.push(n);
  return out.reverse();
}

interface RegisterReceipts {
  lastReceiptSequence: number;
  missingReceiptNumbers: string[];
}

/**
 * Compares the witness, the local database and the server; reports lost receipt numbers to the server.
 * Resolves with every receipt number of this register known lost (found now or reported before), ascending.
 * @throws TypeError when the server cannot be reached; HttpError when it refuses.
 */
export async function checkMissingReceipts(db: RegisterDatabase, session: RegisterSession): Promise<string[]> {
  const witnessed = witnessedSequence(session.registerId);
  // The local database first: a sale pushed meanwhile is still held here.
  const held = new Set(
    (await db.orders.find({ selector: { registerId: session.registerId } }).exec()).map((d) => parseReceiptNumber(d.receiptNumber)?.sequence ?? 0),
  );
  const call = async (init: RequestInit & { path: string }): Promise<RegisterReceipts> => {
    const response = await fetch(init.path, {
      ...init,
      headers: {
        authorization: `Bearer ${session.registerToken}`,
        'x-register-schema-version': REGISTER_SCHEMA_VERSION,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });
    if (!response.ok) throw new HttpError(response.status, `${init.path}: HTTP ${response.status}`);
    return (await response.json()) as RegisterReceipts;
  };
  const path = `/api/sync/registers/${encodeURIComponent(session.registerId)}`;
  let server = await call({ path });
  const missing = missingSequences(witnessed, server.lastReceiptSequence, held).map((n) => formatReceiptNumber(session.registerNumber, n));
  const fresh = missing.filter((n) => !server.missingReceiptNumbers.includes(n));
  if (fresh.length > 0) server = await call({ path: `${path}/missing-receipts`, method: 'POST', body: JSON.stringify({ receiptNumbers: fresh }) });
  return [...new Set([...server.missingReceiptNumbers, ...missing])].sort(
    (a, b) => (parseReceiptNumber(a)?.sequence ?? 0) - (parseReceiptNumber(b)?.sequence ?? 0),
  );
}
