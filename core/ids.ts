import { ulid } from 'ulid';

/**
 * Prefixed ULIDs (DESIGN §7): `ord_01H…`. Generated where the record is born — on the register for offline sales —
 * so a record keeps its id forever and a repeated push stores it once (DESIGN §8).
 */
export const ID_PREFIXES = {
  order: 'ord',
  orderLine: 'lin',
  tender: 'tnd',
  journalTransaction: 'jtx',
  posting: 'pst',
  catalogItem: 'itm',
  variation: 'var',
  modifierList: 'mdl',
  modifier: 'mod',
  taxRate: 'tax',
  customer: 'cus',
  payRequest: 'pr',
  merchant: 'mer',
  register: 'reg',
  staff: 'stf',
  app: 'app',
  event: 'evt',
  discount: 'dsc',
  sms: 'sms',
  email: 'eml',
  location: 'loc',
  stockMovement: 'stm',
  catalogImport: 'imp',
  webhookSubscription: 'whs',
  webhookDelivery: 'whd',
  payment: 'pmt',
  refund: 'rfd',
  invoice: 'inv',
  invoicePayment: 'ipm',
  invoiceSeries: 'isr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** A new id for `kind`, e.g. `newId('order')` → `ord_01J9…` (26-character ULID after the prefix). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

/** True when `id` is a prefixed ULID of `kind`. */
export function isId(kind: IdKind, id: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`).test(id);
}

/**
 * The journal transaction id of a sale: derived from the order id, so the register and the server compute the same
 * id and a repeated push can never create a second ledger entry for one sale.
 */
export function saleJournalTransactionId(orderId: string): string {
  return `jtx_${orderId.replace(/^ord_/, '')}`;
}
