/**
 * Typed device errors. Every driver, parser and simulator in `electron/devices/` throws or reports only
 * `DeviceError`, whose `code` says what went wrong in words the register can show; garbage bytes, bad checksums,
 * oversized input and unplugged cables never surface as a bare `Error`.
 */

/** Machine-readable reasons. Grouped by device; each is documented in docs/devices.md. */
export const DEVICE_ERROR_CODES = [
  // serial transport
  'port_open_failed', // the device path cannot be opened (missing, busy, permission)
  'port_closed', // a write or request on a port that is not open
  'disconnected', // the device went away while a request was waiting (cable pulled, pty closed)
  'write_failed',
  // generic protocol
  'timeout', // no answer within the configured time
  'line_too_long', // a line/frame longer than the parser's limit; its bytes were discarded up to the next terminator
  'invalid_input', // a request that fails its zod schema or cannot be encoded
  // receipt printer
  'printer_offline',
  'printer_paper_out',
  'printer_cover_open',
  'queue_io', // the print journal cannot be written (disk full, permissions)
  'station_not_configured', // a kitchen ticket for a station that has no printer in the register's device settings
  // card terminal (ECR)
  'bad_lrc', // a frame whose LRC does not match
  'malformed_frame', // a frame or payload that does not follow the ECR payload format
  'no_ack', // the peer did not ACK a frame after the original send and 3 retransmissions
  'terminal_busy', // a second request while one is in flight
  // check scanner
  'micr_empty',
  'micr_unreadable_character', // the scanner marked a character it could not read ('?' / '!')
  'micr_invalid_character', // a character outside the chosen substitution scheme
  'micr_missing_routing', // no transit field with 9 digits
  'micr_bad_routing_checksum', // the ABA 3-7-1 checksum fails
  'micr_missing_account',
  'micr_bad_amount',
  'scanner_jam', // the scanner reported a jam / double feed / no check
  'image_too_large',
] as const;
export type DeviceErrorCode = (typeof DEVICE_ERROR_CODES)[number];

/** The one error type of the device layer: `code` for programs, `message` for people, `detail` for logs. */
export class DeviceError extends Error {
  override readonly name = 'DeviceError';
  constructor(
    readonly code: DeviceErrorCode,
    message: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** True when `error` is a DeviceError (optionally with the given code). */
export function isDeviceError(error: unknown, code?: DeviceErrorCode): error is DeviceError {
  return error instanceof DeviceError && (code === undefined || error.code === code);
}
