/**
 * The register's identity (its pairing: register id and number, store, register credential, last receipt sequence
 * known to the server) kept where its sales are: the `register_identity` collection of the local database (IndexedDB). It is
 * written, and the write awaited, before the register can take its first sale, so a crash right after pairing never
 * leaves sales without the register they belong to. (localStorage, where it used to live, is written to disk by
 * Chromium seconds later; it only keeps a copy now — see session.ts.)
 */
import type { RxJsonSchema } from 'rxdb';
import { loadSession, type RegisterSession } from '../../common/session.ts';
import type { RegisterDatabase } from './database.ts';

/** The one identity document's primary key. */
export const IDENTITY_ID = 'this-register';

/**
 * A stored identity: the session, under {@link IDENTITY_ID}. The credential is stored as `staffToken` (schema
 * version 0, from when registers held a staff token); what an older version stored there is no credential, and the
 * register pairs again (boot.ts).
 */
export type StoredIdentity = Omit<RegisterSession, 'registerToken' | 'registerName'> & { id: string; staffToken: string };

export const registerIdentityRxSchema: RxJsonSchema<StoredIdentity> = {
  title: 'register identity',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 32 },
    staffToken: { type: 'string' },
    merchantId: { type: 'string' },
    merchantName: { type: 'string' },
    currency: { type: 'string' },
    registerId: { type: 'string' },
    registerNumber: { type: 'integer' },
    lastReceiptSequence: { type: 'integer' },
    pairedAt: { type: 'string' },
  },
  required: ['id', 'staffToken', 'merchantId', 'registerId', 'registerNumber'],
};

/** The identity stored in the local database, or undefined when this register was never paired here. */
export async function loadIdentity(db: RegisterDatabase): Promise<RegisterSession | undefined> {
  const doc = await db.register_identity.findOne(IDENTITY_ID).exec();
  if (!doc) return undefined;
  const stored = doc.toJSON() as StoredIdentity;
  // The register's enrollment name is display only: kept in the localStorage copy (no schema change for it here).
  const copy = loadSession();
  const registerName = copy?.registerId === stored.registerId ? copy.registerName : undefined;
  return {
    ...(registerName ? { registerName } : {}),
    registerToken: stored.staffToken,
    merchantId: stored.merchantId,
    merchantName: stored.merchantName,
    currency: stored.currency,
    registerId: stored.registerId,
    registerNumber: stored.registerNumber,
    lastReceiptSequence: stored.lastReceiptSequence ?? 0,
    pairedAt: stored.pairedAt ?? '',
  };
}

/** Stores (replaces) the identity; resolves once IndexedDB has committed it. */
export async function storeIdentity(db: RegisterDatabase, session: RegisterSession): Promise<void> {
  const { registerToken, registerName: _displayOnly, ...rest } = session;
  await db.register_identity.upsert({ ...rest, staffToken: registerToken, id: IDENTITY_ID });
}
