import { ulid as makeUlid } from 'ulid';

/** Random bytes drawn from the platform's CSPRNG (Web Crypto `getRandomValues`) 4 KiB at a time, handed out one by one. */
const RANDOM_POOL_BYTES = 4096;
let randomPool = new Uint8Array(0);
let randomAt = 0;
function pooledRandom(): number {
  if (randomAt >= randomPool.length) {
    randomPool = globalThis.crypto.getRandomValues(new Uint8Array(RANDOM_POOL_BYTES));
    randomAt = 0;
  }
  return randomPool[randomAt++]! / 256;
}

/**
 * A new ULID (ulid package, https://github.com/ulid/spec: 48-bit ms time + 80 random bits, Crockford base 32). The
 * package's default draws each of the 16 random characters with its own `getRandomValues` call and looks for a
 * random source on every id; this hands it a pooled CSPRNG source instead — the same byte / 256 it would use. A sync
 * push makes about eight ids per sale.
 */
export function ulid(): string {
  return makeUlid(undefined, pooledRandom);
}

/**
 * Prefixed ULIDs: `ord_01H…`. Generated where the record is born — on the register for offline sales —
 * so a record keeps its id forever and a repeated push stores it once.
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
  appInstallation: 'ins',
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
  approval: 'apv',
  invoice: 'inv',
  invoicePayment: 'ipm',
  invoiceRefund: 'irf',
  invoiceSeries: 'isr',
  shift: 'shf',
  cashMovement: 'cmv',
  shiftCloseout: 'clo',
  storeCloseout: 'sdc',
  payout: 'po',
  settlement: 'stl',
  registerReturn: 'ret',
  check: 'chk',
  kitchenSend: 'snd',
  floorArea: 'fla',
  floorTable: 'tbl',
  kitchenTicketEvent: 'kte',
  appointmentService: 'asv',
  appointmentResource: 'ars',
  appointment: 'apt',
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
