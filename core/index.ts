/** The POS domain shared by the register and the sync server. No I/O (DESIGN §2). */
export * from './money.ts';
export * from './ids.ts';
export * from './schemas.ts';
export * from './pricing.ts';
export * from './ledger.ts';
export * from './orders.ts';
export * from './receipt.ts';
export * from './canonical-json.ts';
export * from './phone.ts';
export * from './sale.ts';
export * from './devices.ts';
export * from './events.ts';
