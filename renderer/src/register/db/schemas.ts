/**
 * RxDB JSON schemas of the register's collections, mirroring the zod shapes in core/schemas.ts. RxDB needs a type
 * on every top-level property; nested shapes are described loosely because the register validates every record it
 * writes with the core zod schema first, and pulled records were validated by the server.
 */
import type { RxJsonSchema } from 'rxdb';
import type { CashMovement, CatalogItem, JournalTransaction, Order, RegisterReturn, Shift, ShiftCloseout, TaxRate } from '../../../../core/index.ts';

/** Fields the server stamps on every replicated document. */
const serverStampProperties = {
  updatedAt: { type: 'string', maxLength: 40 },
  syncSeq: { type: 'integer', minimum: 0 },
} as const;

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

export const catalogItemRxSchema: RxJsonSchema<CatalogItem> = {
  title: 'catalog item',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    name: { type: 'string' },
    description: { type: 'string' },
    category: { type: 'string' },
    kind: { type: 'string', enum: ['product', 'service'] },
    variations: { type: 'array', items: { type: 'object' } },
    modifierLists: { type: 'array', items: { type: 'object' } },
    taxRateIds: { type: 'array', items: { type: 'string' } },
    imageUrl: { type: 'string' },
    ...serverStampProperties,
  },
  required: ['id', 'name', 'category', 'kind', 'variations', 'modifierLists', 'taxRateIds'],
};

export const taxRateRxSchema: RxJsonSchema<TaxRate> = {
  title: 'tax rate',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    name: { type: 'string' },
    basisPoints: { type: 'integer' },
    inclusive: { type: 'boolean' },
    ...serverStampProperties,
  },
  required: ['id', 'name', 'basisPoints', 'inclusive'],
};

export const orderRxSchema: RxJsonSchema<Rejectable<Order>> = {
  title: 'order',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    registerId: { type: 'string', maxLength: 64 },
    registerNumber: { type: 'integer' },
    receiptNumber: { type: 'string' },
    state: { type: 'string' },
    currency: { type: 'string' },
    createdAt: { type: 'string', maxLength: 40 },
    staffId: { type: 'string' },
    customerId: { type: 'string' },
    lines: { type: 'array', items: { type: 'object' } },
    discounts: { type: 'array', items: { type: 'object' } },
    taxLines: { type: 'array', items: { type: 'object' } },
    subtotalCents: { type: 'integer' },
    discountCents: { type: 'integer' },
    taxCents: { type: 'integer' },
    totalCents: { type: 'integer' },
    tipCents: { type: 'integer' },
    paidCents: { type: 'integer' },
    tenders: { type: 'array', items: { type: 'object' } },
    journalTransactionId: { type: ['string', 'null'] },
    note: { type: 'string' },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id', 'registerId', 'receiptNumber', 'createdAt', 'lines', 'totalCents'],
  indexes: ['createdAt'],
};

export const journalTransactionRxSchema: RxJsonSchema<Rejectable<JournalTransaction>> = {
  title: 'journal transaction',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    kind: { type: 'string' },
    sourceType: { type: 'string' },
    sourceId: { type: 'string' },
    registerId: { type: ['string', 'null'] },
    currency: { type: 'string' },
    occurredAt: { type: 'string' },
    memo: { type: 'string' },
    postings: { type: 'array', items: { type: 'object' } },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id', 'kind', 'sourceType', 'sourceId', 'postings'],
};

// ── Shifts: append-only documents born on the register (core/shifts.ts), pushed like orders. ──

export const shiftRxSchema: RxJsonSchema<Rejectable<Shift>> = {
  title: 'shift',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    registerId: { type: 'string', maxLength: 64 },
    registerNumber: { type: 'integer' },
    currency: { type: 'string' },
    openedAt: { type: 'string', maxLength: 40 },
    staffId: { type: 'string' },
    openingFloatCents: { type: 'integer' },
    openingCount: { type: 'array', items: { type: 'object' } },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id', 'registerId', 'openedAt', 'openingFloatCents'],
  indexes: ['openedAt'],
};

export const cashMovementRxSchema: RxJsonSchema<Rejectable<CashMovement>> = {
  title: 'cash movement',
  // 1: financial services' drawer movements (`serviceRef`, `feeCents`); documents of 0 migrate as they are.
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    shiftId: { type: 'string', maxLength: 64 },
    registerId: { type: 'string', maxLength: 64 },
    registerNumber: { type: 'integer' },
    kind: { type: 'string' },
    amountCents: { type: 'integer' },
    reason: { type: 'string' },
    serviceRef: { type: 'string' },
    feeCents: { type: 'integer' },
    createdAt: { type: 'string', maxLength: 40 },
    staffId: { type: 'string' },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id', 'shiftId', 'kind', 'amountCents', 'createdAt'],
  indexes: ['shiftId', 'createdAt'],
};

/** A closeout: pushed, and pulled back for the server's stamp (`syncSeq`: on the server). */
export const closeoutRxSchema: RxJsonSchema<Rejectable<ShiftCloseout>> = {
  title: 'shift closeout',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    shiftId: { type: 'string', maxLength: 64 },
    registerId: { type: 'string', maxLength: 64 },
    registerNumber: { type: 'integer' },
    currency: { type: 'string' },
    closedAt: { type: 'string', maxLength: 40 },
    staffId: { type: 'string' },
    counted: { type: 'array', items: { type: 'object' } },
    countedCashCents: { type: 'integer' },
    report: { type: 'object' },
    note: { type: 'string' },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id', 'shiftId', 'closedAt', 'counted', 'countedCashCents', 'report'],
  indexes: ['shiftId'],
};

/** A return made at this register (core/returns.ts): pushed, and pulled back for the server's stamp and refund id. */
export const returnRxSchema: RxJsonSchema<Rejectable<RegisterReturn>> = {
  title: 'register return',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: idProperty,
    registerId: { type: 'string', maxLength: 64 },
    orderId: { type: 'string', maxLength: 64 },
    receiptNumber: { type: 'string', maxLength: 40 },
    createdAt: { type: 'string', maxLength: 40 },
    staffId: { type: 'string' },
    shiftId: { type: 'string', maxLength: 64 },
    lines: { type: 'array', items: { type: 'object' } },
    restock: { type: 'boolean' },
    amountCents: { type: 'integer' },
    tender: { type: 'object' },
    approval: { type: 'string' },
    exchangeOrderId: { type: 'string', maxLength: 64 },
    reason: { type: 'string' },
    refundId: { type: 'string' },
    rejection: rejectionProperty,
    ...serverStampProperties,
  },
  required: ['id', 'registerId', 'orderId', 'receiptNumber', 'createdAt', 'lines', 'restock', 'amountCents', 'tender'],
  indexes: ['orderId', 'createdAt'],
};

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
