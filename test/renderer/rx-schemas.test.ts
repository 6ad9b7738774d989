/**
 * The RxDB schemas generated from the core zod shapes (renderer/src/register/db/schemas.ts) are the very schemas the
 * register's stored databases were created with: RxDB refuses to open a collection whose schema changed at the same
 * version (DB6). The fixtures below are the hand-written schemas as they were committed before the generator; a change
 * to a core shape that breaks this test needs a new schema version and a migration strategy, and a new fixture.
 */
import 'fake-indexeddb/auto';
import { createRxDatabase, createRxSchema, type RxJsonSchema } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { defaultHashSha256 } from 'rxdb/plugins/utils';
import { describe, expect, it } from 'vitest';
import { openRegisterDatabase } from '../../renderer/src/register/db/database.ts';
import {
  cashMovementRxSchema,
  catalogItemRxSchema,
  closeoutRxSchema,
  journalTransactionRxSchema,
  orderRxSchema,
  returnRxSchema,
  shiftRxSchema,
  taxRateRxSchema,
} from '../../renderer/src/register/db/schemas.ts';
import { rxSchemaFromZod } from '../../renderer/src/register/db/rx-schema-from-zod.ts';
import { z } from 'zod';

// ── The hand-written schemas, as stored databases hold them. ──

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

const catalogItemFixture: RxJsonSchema<any> = {
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

const taxRateFixture: RxJsonSchema<any> = {
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

const orderFixture: RxJsonSchema<any> = {
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

const journalTransactionFixture: RxJsonSchema<any> = {
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

const shiftFixture: RxJsonSchema<any> = {
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

const cashMovementFixture: RxJsonSchema<any> = {
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
const closeoutFixture: RxJsonSchema<any> = {
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
const returnFixture: RxJsonSchema<any> = {
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

const pinned: [string, RxJsonSchema<any>, RxJsonSchema<any>][] = [
  ['catalog_items', catalogItemRxSchema, catalogItemFixture],
  ['tax_rates', taxRateRxSchema, taxRateFixture],
  ['orders', orderRxSchema, orderFixture],
  ['journal_transactions', journalTransactionRxSchema, journalTransactionFixture],
  ['shifts', shiftRxSchema, shiftFixture],
  ['cash_movements', cashMovementRxSchema, cashMovementFixture],
  ['closeouts', closeoutRxSchema, closeoutFixture],
  ['returns', returnRxSchema, returnFixture],
];

describe('RxDB schemas generated from the core zod shapes', () => {
  it.each(pinned)('%s: the same normalized schema and hash as the hand-written one', async (_name, generated, fixture) => {
    const now = createRxSchema(generated, defaultHashSha256);
    const before = createRxSchema(fixture, defaultHashSha256);
    expect(now.jsonSchema).toEqual(before.jsonSchema);
    // RxDB compares arrays (required, indexes) in order: equal JSON, not just equal sets.
    expect(JSON.stringify(now.jsonSchema)).toBe(JSON.stringify(before.jsonSchema));
    expect(await now.hash).toBe(await before.hash);
  });

  it('opens a database created with the hand-written schemas, documents and all (no DB6, no migration)', async () => {
    const name = `rxs${Date.now()}`;
    const storage = getRxStorageDexie();
    const old = await createRxDatabase({ name, storage, multiInstance: false });
    await old.addCollections(
      Object.fromEntries(
        pinned.map(([collection, , fixture]) => [
          collection,
          { schema: fixture, ...(fixture.version > 0 ? { migrationStrategies: { 1: (d: any) => d } } : {}) },
        ]),
      ),
    );
    await old.collections.tax_rates!.insert({ id: 'tax_ny', name: 'NY', basisPoints: 875, inclusive: false });
    await old.close();
    const db = await openRegisterDatabase({ name, storage, multiInstance: false });
    try {
      expect((await db.tax_rates.findOne('tax_ny').exec())?.name).toBe('NY');
    } finally {
      await db.remove();
    }
  });
});

describe('rxSchemaFromZod', () => {
  const shape = z.strictObject({
    id: z.string().regex(/^x_/),
    at: z.string().max(40),
    who: z.string().nullable(),
    tags: z.array(z.string()).max(3),
    items: z.array(z.union([z.strictObject({ a: z.int() }), z.strictObject({ b: z.string() })])),
    kind: z.enum(['a', 'b']),
    nested: z.strictObject({ n: z.int() }).optional(),
  });

  it('keeps the top level: types, nullable, array items, enums asked for; maxLength only where given', () => {
    const schema = rxSchemaFromZod<z.infer<typeof shape>>(shape, {
      title: 'x',
      version: 0,
      primaryKey: 'id',
      maxLength: { id: 32 },
      enums: ['kind'],
      indexes: ['at'],
    });
    expect(schema).toEqual({
      title: 'x',
      version: 0,
      primaryKey: 'id',
      type: 'object',
      properties: {
        id: { type: 'string', maxLength: 32 },
        at: { type: 'string' },
        who: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' } },
        items: { type: 'array', items: { type: 'object' } },
        kind: { type: 'string', enum: ['a', 'b'] },
        nested: { type: 'object' },
      },
      required: ['id', 'at', 'who', 'tags', 'items', 'kind'],
      indexes: ['at'],
    });
  });

  it('refuses a required field the core shape does not require, and maxLength on a non-string', () => {
    expect(() => rxSchemaFromZod<z.infer<typeof shape>>(shape, { title: 'x', version: 0, primaryKey: 'id', required: ['id', 'nested'] })).toThrow(
      /nested not required/,
    );
    expect(() => rxSchemaFromZod<any>(shape, { title: 'x', version: 0, primaryKey: 'id', maxLength: { tags: 3 } })).toThrow(/not a string/);
  });
});
