/**
 * ESC/POS real-time status (DLE EOT n, Epson): the host sends `10 04 n`, the printer answers one byte at once, even
 * while its buffer is full or it is offline. Every status byte has bit 0 = 0, bit 1 = 1, bit 4 = 1, bit 7 = 0
 * (mask 0x93 must equal 0x12) — which is how an answer is told apart from noise.
 *
 * - n = 1 printer status: bit 2 drawer kick-out connector pin 3 high, bit 3 offline.
 * - n = 2 offline cause: bit 2 cover open, bit 3 paper being fed by the FEED button, bit 5 printing stopped by paper
 *   end, bit 6 error.
 * - n = 3 error cause: bit 2 recoverable error, bit 3 autocutter error, bit 5 unrecoverable error, bit 6
 *   auto-recoverable error.
 * - n = 4 roll paper sensor: bits 2–3 paper near end, bits 5–6 paper end (not present).
 */
import { DeviceError } from '../errors.ts';

/** The printer's condition as the four status bytes tell it. */
export interface PrinterCondition {
  online: boolean;
  coverOpen: boolean;
  paperOut: boolean;
  paperNearEnd: boolean;
  /** Drawer kick-out connector pin 3 (drawer open sensor on most drawers). */
  drawerSignal: boolean;
  /** Autocutter, unrecoverable or auto-recoverable error. */
  error: boolean;
}

/** True when `byte` has the fixed bits of a real-time status byte. */
export function isStatusByte(byte: number): boolean {
  return (byte & 0x93) === 0x12;
}

/**
 * Decodes the answers to DLE EOT 1, 2, 3 and 4 (any of them may be missing: flags they carry default to false).
 * Throws `DeviceError('malformed_frame')` for a byte without the fixed bits.
 */
export function parsePrinterStatus(bytes: { 1?: number; 2?: number; 3?: number; 4?: number }): PrinterCondition {
  for (const [n, byte] of Object.entries(bytes)) {
    if (byte !== undefined && !isStatusByte(byte)) {
      throw new DeviceError('malformed_frame', `DLE EOT ${n} answer 0x${byte.toString(16)} is not a status byte`);
    }
  }
  const printer = bytes[1] ?? 0x12;
  const offline = bytes[2] ?? 0x12;
  const errors = bytes[3] ?? 0x12;
  const paper = bytes[4] ?? 0x12;
  return {
    online: (printer & 0x08) === 0,
    drawerSignal: (printer & 0x04) !== 0,
    coverOpen: (offline & 0x04) !== 0,
    paperOut: (offline & 0x20) !== 0 || (paper & 0x60) === 0x60,
    paperNearEnd: (paper & 0x0c) === 0x0c,
    error: (offline & 0x40) !== 0 || (errors & 0x68) !== 0,
  };
}

/** The status byte a printer in `condition` answers to DLE EOT n (used by the printer simulator). */
export function statusByteFor(n: number, condition: PrinterCondition): number {
  let byte = 0x12;
  switch (n) {
    case 1:
      if (!condition.online) byte |= 0x08;
      if (condition.drawerSignal) byte |= 0x04;
      break;
    case 2:
      if (condition.coverOpen) byte |= 0x04;
      if (condition.paperOut) byte |= 0x20;
      if (condition.error) byte |= 0x40;
      break;
    case 3:
      if (condition.error) byte |= 0x40;
      break;
    case 4:
      if (condition.paperNearEnd || condition.paperOut) byte |= 0x0c;
      if (condition.paperOut) byte |= 0x60;
      break;
    default:
      break;
  }
  return byte;
}
