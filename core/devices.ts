/**
 * The one typed device API of the register: the renderer calls it, and two transports fill it — Electron
 * IPC through a minimal `contextBridge` preload, and the web hardware bridge (WebSocket on 127.0.0.1). Both validate
 * every message against these schemas. Drivers and simulators live in `electron/devices/`.
 *
 * No card number ever crosses this API: terminals answer with a token, brand, last four and entry mode; nothing
 * outside the terminal sees, stores or transmits a card number (docs/api.md "Card numbers in input").
 */
import { z } from 'zod';
import { MAX_AMOUNT_CENTS } from './money.ts';

/** A receipt or report to print, as semantic blocks (the driver turns them into ESC/POS bytes). */
export const printJobSchema = z.strictObject({
  jobId: z.string().min(1).max(64),
  blocks: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({
          kind: z.literal('text'),
          text: z.string().max(4096),
          align: z.enum(['left', 'center', 'right']).optional(),
          bold: z.boolean().optional(),
          doubleSize: z.boolean().optional(),
          underline: z.boolean().optional(),
        }),
        z.strictObject({ kind: z.literal('barcode'), symbology: z.enum(['EAN13', 'CODE128']), data: z.string().min(1).max(64) }),
        z.strictObject({ kind: z.literal('qr'), data: z.string().min(1).max(1024) }),
        z.strictObject({ kind: z.literal('feed'), lines: z.int().min(1).max(20) }),
        z.strictObject({ kind: z.literal('cut') }),
      ]),
    )
    .min(1)
    .max(500),
  openDrawer: z.boolean().optional(),
});
export type PrintJob = z.infer<typeof printJobSchema>;

/**
 * A card-present charge on the terminal, in minor units; `idempotencyKey` lets a lost response be resolved by a status
 * query. `offline: true` tells the terminal the payment host is unreachable (the register is offline): it may approve
 * offline (store and forward, outcome `approved_offline`) instead of going online.
 */
export const chargeRequestSchema = z.strictObject({
  idempotencyKey: z.string().min(1).max(64),
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  currency: z.string().regex(/^[A-Z]{3}$/),
  offline: z.boolean().optional(),
});
export type ChargeRequest = z.infer<typeof chargeRequestSchema>;

/**
 * A card hold (pre-authorisation) and what follows it, for a restaurant check or a bar tab, in minor units. Each
 * request names itself by `idempotencyKey` (a retried frame after a crash is answered from the terminal's memory,
 * never done twice) and the hold by `holdIdempotencyKey`, the key of its `preauthorize`:
 * - `preauthorize`: hold `amountCents` on the card (no money moves yet);
 * - `increment`: raise the hold by `amountCents` (a tab passing its hold); the result's `amountCents` is the new hold;
 * - `adjustTip`: set the tip the capture will add to `tipCents` (replaces an earlier one), before the capture;
 * - `capture`: take `amountCents` (the check, at most the hold) plus `tipCents` (default: the adjusted tip, else 0);
 *   the total may exceed the hold by the tip tolerance only (docs/devices.md); the rest of the hold is released;
 * - `release`: void the hold without taking anything.
 */
export const cardHoldRequestSchema = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('preauthorize'),
    idempotencyKey: z.string().min(1).max(64),
    amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
    currency: z.string().regex(/^[A-Z]{3}$/),
  }),
  z.strictObject({
    action: z.literal('increment'),
    idempotencyKey: z.string().min(1).max(64),
    holdIdempotencyKey: z.string().min(1).max(64),
    amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  }),
  z.strictObject({
    action: z.literal('adjustTip'),
    idempotencyKey: z.string().min(1).max(64),
    holdIdempotencyKey: z.string().min(1).max(64),
    tipCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
  }),
  z.strictObject({
    action: z.literal('capture'),
    idempotencyKey: z.string().min(1).max(64),
    holdIdempotencyKey: z.string().min(1).max(64),
    amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
    tipCents: z.int().min(0).max(MAX_AMOUNT_CENTS).optional(),
  }),
  z.strictObject({
    action: z.literal('release'),
    idempotencyKey: z.string().min(1).max(64),
    holdIdempotencyKey: z.string().min(1).max(64),
  }),
]);
export type CardHoldRequest = z.infer<typeof cardHoldRequestSchema>;

/**
 * A terminal's answer: never a card number. `approved_offline`: approved by the terminal without the host (store and
 * forward); `token` is then the terminal's store-and-forward token, which the server forwards to the processor later.
 */
export const terminalResultSchema = z.strictObject({
  outcome: z.enum(['approved', 'approved_offline', 'declined', 'cancelled', 'timed_out']),
  amountCents: z.int().min(0),
  authCode: z.string().max(20).optional(),
  token: z.string().max(128).optional(),
  brand: z.string().max(20).optional(),
  last4: z
    .string()
    .regex(/^\d{4}$/)
    .optional(),
  entryMode: z.enum(['chip', 'contactless', 'swipe', 'manual']).optional(),
  message: z.string().max(200).optional(),
});
export type TerminalResult = z.infer<typeof terminalResultSchema>;

/** A check read by the scanner: MICR E-13B fields (ABA routing number checksum validated) and the image. */
export const checkScanSchema = z.strictObject({
  routingNumber: z.string().regex(/^\d{9}$/),
  accountNumber: z.string().min(1).max(17),
  checkNumber: z.string().max(15).optional(),
  /** Auxiliary on-us field (left of the routing number on business checks; often the check serial number). */
  auxOnUs: z.string().max(20).optional(),
  amountCents: z.int().min(0).optional(),
  imagePng: z.string().optional(),
});
export type CheckScan = z.infer<typeof checkScanSchema>;

/** Baud rates a store device may use (standard UART rates). */
export const SERIAL_BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200] as const;

/**
 * How to open one serial device (baud and parity are configurable). Defaults: 9600 baud, 8 data bits, no
 * parity, 1 stop bit (8N1), the factory setting of most receipt printers and ECR terminals.
 */
export const serialSettingsSchema = z.strictObject({
  /** Device path, e.g. `/dev/ttyUSB0`, `COM3`, or a simulator's pseudo-terminal link. */
  path: z.string().min(1).max(256),
  baudRate: z
    .int()
    .refine((rate) => (SERIAL_BAUD_RATES as readonly number[]).includes(rate), { message: 'unsupported baud rate' })
    .default(9600),
  parity: z.enum(['none', 'even', 'odd', 'mark', 'space']).default('none'),
  dataBits: z.union([z.literal(7), z.literal(8)]).default(8),
  stopBits: z.union([z.literal(1), z.literal(2)]).default(1),
});
/** Serial settings after defaults are applied. */
export type SerialSettings = z.infer<typeof serialSettingsSchema>;
/** Serial settings as a caller may write them (everything but `path` optional). */
export type SerialSettingsInput = z.input<typeof serialSettingsSchema>;

/** Status of one device, pushed as events. */
export const deviceStatusSchema = z.strictObject({
  device: z.enum(['printer', 'terminal', 'checkScanner']),
  state: z.enum(['ready', 'busy', 'offline', 'paper_out', 'cover_open', 'error', 'simulated']),
  detail: z.string().max(200).optional(),
});
export type DeviceStatus = z.infer<typeof deviceStatusSchema>;

/** The device API the renderer programs against (filled by the Electron preload or the web hardware bridge). */
export interface DeviceApi {
  /** Queues a print job; resolves when it is accepted by the persistent queue (not when paper comes out). */
  print(job: PrintJob): Promise<{ queued: true }>;
  openDrawer(): Promise<void>;
  charge(request: ChargeRequest): Promise<TerminalResult>;
  refund(request: ChargeRequest & { token: string }): Promise<TerminalResult>;
  scanCheck(): Promise<CheckScan>;
  /** A card hold's step (pre-authorise, raise, tip, capture, release); declines and timeouts are results. */
  cardHold(request: CardHoldRequest): Promise<TerminalResult>;
  /** Subscribes to status events; returns the unsubscribe function. */
  onStatus(listener: (status: DeviceStatus) => void): () => void;
}
