/**
 * RxDB JSON schemas of the register's collections, generated from the core zod shapes (core/schemas.ts, shifts.ts,
 * returns.ts) by {@link rxSchemaFromZod}: only what RxDB needs beyond the shape is written here. Each schema is pinned
 * to the one stored databases were created with (test/renderer/rx-schemas.test.ts): a change to a shape that changes
 * a collection's schema needs a new version and a migration strategy (database.ts).
 *
 * `required` lists, where given, and `maxLength` on fields that are not indexed are the ones the collections were
 * created with at their version (RxDB validates nothing here: they only keep the stored schema); widening `required`
 * to all zod requires is a new version.
 */
import type { RxJsonSchema } from 'rxdb';
import {
  cashMovementSchema,
  catalogItemSchema,
  checkHeaderDocumentSchema,
  checkLineDocumentSchema,
  checkPaymentDocumentSchema,
  journalTransactionSchema,
  orderSchema,
  registerReturnSchema,
  shiftCloseoutSchema,
  shiftSchema,
  taxRateSchema,
  type CashMovement,
  type CatalogItem,
  type CheckHeader,
  type CheckLine,
  type CheckPayment,
  type JournalTransaction,
  type Order,
  type RegisterReturn,
  type Shift,
  type ShiftCloseout,
  type TaxRate,
} from '../../../../core/index.ts';
import { rxSchemaFromZod } from './rx-schema-from-zod.ts';

/** Fields the server stamps on every replicated document. */
const serverStampProperties = {
  updatedAt: { type: 'string', maxLength: 40 },
  syncSeq: { type: 'integer', minimum: 0 },
} as const;

/** The quarantine marker of a register-authored document (see {@link Rejectable}). */
const rejectionProperty = {
  type: 'object',
  properties: { reason: { type: 'string' }, at: { type: 'string' } },
} as const;

const idProperty = { type: 'string', maxLength: 64 } as const;

/**
 * A register-authored document as the server may hand it back: with a quarantine marker. `by: 'register'` marks a
 * document this register refused to send (too large to push; kept locally) — set locally only, never by the server.
 */
export type Rejectable<T> = T & { rejection?: { reason: string; at: string; by?: 'register' } };

export const catalogItemRxSchema: RxJsonSchema<CatalogItem> = rxSchemaFromZod<CatalogItem>(catalogItemSchema, {
  title: 'catalog item',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64 },
  enums: ['kind'],
  extra: serverStampProperties,
});

export const taxRateRxSchema: RxJsonSchema<TaxRate> = rxSchemaFromZod<TaxRate>(taxRateSchema, {
  title: 'tax rate',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64 },
  extra: serverStampProperties,
});

export const orderRxSchema: RxJsonSchema<Rejectable<Order>> = rxSchemaFromZod<Rejectable<Order>>(orderSchema, {
  title: 'order',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64, registerId: 64, createdAt: 40 },
  required: ['id', 'registerId', 'receiptNumber', 'createdAt', 'lines', 'totalCents'],
  indexes: ['createdAt'],
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});

export const journalTransactionRxSchema: RxJsonSchema<Rejectable<JournalTransaction>> = rxSchemaFromZod<Rejectable<JournalTransaction>>(
  journalTransactionSchema,
  {
    title: 'journal transaction',
    version: 0,
    primaryKey: 'id',
    maxLength: { id: 64 },
    required: ['id', 'kind', 'sourceType', 'sourceId', 'postings'],
    extra: { rejection: rejectionProperty, ...serverStampProperties },
  },
);

// ── Shifts: append-only documents born on the register (core/shifts.ts), pushed like orders. ──

export const shiftRxSchema: RxJsonSchema<Rejectable<Shift>> = rxSchemaFromZod<Rejectable<Shift>>(shiftSchema, {
  title: 'shift',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64, registerId: 64, openedAt: 40 },
  required: ['id', 'registerId', 'openedAt', 'openingFloatCents'],
  indexes: ['openedAt'],
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});

export const cashMovementRxSchema: RxJsonSchema<Rejectable<CashMovement>> = rxSchemaFromZod<Rejectable<CashMovement>>(cashMovementSchema, {
  title: 'cash movement',
  // 1: financial services' drawer movements (`serviceRef`, `feeCents`); documents of 0 migrate as they are.
  version: 1,
  primaryKey: 'id',
  maxLength: { id: 64, shiftId: 64, registerId: 64, createdAt: 40 },
  required: ['id', 'shiftId', 'kind', 'amountCents', 'createdAt'],
  indexes: ['shiftId', 'createdAt'],
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});

/** A closeout: pushed, and pulled back for the server's stamp (`syncSeq`: on the server). */
export const closeoutRxSchema: RxJsonSchema<Rejectable<ShiftCloseout>> = rxSchemaFromZod<Rejectable<ShiftCloseout>>(shiftCloseoutSchema, {
  title: 'shift closeout',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64, shiftId: 64, registerId: 64, closedAt: 40 },
  required: ['id', 'shiftId', 'closedAt', 'counted', 'countedCashCents', 'report'],
  indexes: ['shiftId'],
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});

/** A return made at this register (core/returns.ts): pushed, and pulled back for the server's stamp and refund id. */
export const returnRxSchema: RxJsonSchema<Rejectable<RegisterReturn>> = rxSchemaFromZod<Rejectable<RegisterReturn>>(registerReturnSchema, {
  title: 'register return',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64, registerId: 64, orderId: 64, receiptNumber: 40, createdAt: 40, shiftId: 64, exchangeOrderId: 64 },
  indexes: ['orderId', 'createdAt'],
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});

/**
 * A customer on the register: the store's customers pulled from the server (core `CustomerRecord` plus
 * `registerId`), customers created here (core `RegisterCustomer`, pushed; no `syncSeq` until the server's copy comes
 * back) — and aliases: a customer created here that the server merged into an existing one comes back as
 * `{ id, mergedInto }`, naming the surviving customer (core `CustomerSyncDocument`).
 */
export interface StoredCustomerFields {
  id: string;
  givenName?: string | null;
  familyName?: string | null;
  email?: string | null;
  phone?: string | null;
  /** The register that created it (null: the back office or the API). */
  registerId?: string | null;
  createdAt?: string;
  marketingConsent?: boolean;
  marketingConsentAt?: string | null;
  note?: string | null;
  /** Set on an alias: the id of the customer this one was merged into. */
  mergedInto?: string;
  matchedOn?: 'phone' | 'email';
}
export type StoredCustomer = Rejectable<StoredCustomerFields> & { updatedAt?: string; syncSeq?: number };

/**
 * Written by hand: a stored customer is one of three core shapes (`CustomerRecord` plus `registerId`,
 * `RegisterCustomer`, the alias of `CustomerSyncDocument`), not one zod schema.
 */
const nullableText = { type: ['string', 'null'] } as const;

export const customerRxSchema: RxJsonSchema<StoredCustomer> = {
  title: 'customer',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    givenName: nullableText,
    familyName: nullableText,
    email: nullableText,
    phone: nullableText,
    registerId: nullableText,
    createdAt: { type: 'string', maxLength: 40 },
    marketingConsent: { type: 'boolean' },
    marketingConsentAt: nullableText,
    note: nullableText,
    mergedInto: { type: 'string', maxLength: 64 },
    matchedOn: { type: 'string' },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id'],
};

// ── Open checks of a restaurant (core/check-documents.ts): edited on every register, joined — never overwritten. ──

/**
 * A check document as the register holds it: the core document, with the server's stamp when it is the server's own
 * copy (no local change since; a document without `syncSeq` is pushed), or the quarantine marker of a refused push.
 */
export type StoredCheckDocument<T> = Rejectable<T> & { updatedAt?: string; syncSeq?: number };

export const checkRxSchema: RxJsonSchema<StoredCheckDocument<CheckHeader>> = rxSchemaFromZod<StoredCheckDocument<CheckHeader>>(
  checkHeaderDocumentSchema,
  {
    title: 'check',
    version: 0,
    primaryKey: 'id',
    maxLength: { id: 64 },
    enums: ['kind'],
    extra: { rejection: rejectionProperty, ...serverStampProperties },
  },
);

export const checkLineRxSchema: RxJsonSchema<StoredCheckDocument<CheckLine & { id: string }>> = rxSchemaFromZod<
  StoredCheckDocument<CheckLine & { id: string }>
>(checkLineDocumentSchema, {
  title: 'check line',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64 },
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});

export const checkPaymentRxSchema: RxJsonSchema<StoredCheckDocument<CheckPayment & { id: string }>> = rxSchemaFromZod<
  StoredCheckDocument<CheckPayment & { id: string }>
>(checkPaymentDocumentSchema, {
  title: 'check payment',
  version: 0,
  primaryKey: 'id',
  maxLength: { id: 64 },
  extra: { rejection: rejectionProperty, ...serverStampProperties },
});
