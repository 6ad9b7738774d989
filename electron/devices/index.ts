/**
 * The store's serial devices: plain Node modules, no Electron import, so they run under Node tests, in
 * the Electron main process and behind the web hardware bridge. See docs/devices.md for the API and wire formats.
 *
 * Drivers: `ReceiptPrinter` (ESC/POS + persistent queue), `CardTerminal` (ECR frames, STATUS before any retry),
 * `CheckScanner` (MICR E-13B + image). Simulators: `startPrinterSimulator`, `startTerminalSimulator`,
 * `startCheckScannerSimulator`, `startDeviceSimulators` (socat pseudo-terminals, same bytes as the real devices).
 */
export * from './errors.ts';
export { listPorts, openSerialPort, SerialConnection, type SerialCloseInfo, type SerialPortInfo } from './serial/transport.ts';
export { createPtyPair, type PtyPair, type PtyPairOptions } from './serial/pty-pair.ts';

export { ReceiptPrinter, type ReceiptPrinterOptions } from './escpos/receipt-printer.ts';
export { PrintQueue, type PrintQueueOptions, type QueuedJob } from './escpos/print-queue.ts';
export {
  EscPosBuilder,
  encodePrintJob,
  ean13CheckDigit,
  DRAWER_KICK,
  INITIALISE,
  statusRequest,
  type EscPosEncoderOptions,
} from './escpos/encoder.ts';
export { EscPosDecoder, decodeEscPos, type DecodedEscPos, type DecodedLine, type EscPosEvent, type LineStyle } from './escpos/decoder.ts';
export { CODE_PAGE_NUMBER, encodeText, type CodePage } from './escpos/code-pages.ts';
export { parsePrinterStatus, statusByteFor, isStatusByte, type PrinterCondition } from './escpos/status.ts';

export { CardTerminal, refForIdempotencyKey, type CardTerminalOptions, type TerminalReply } from './ecr/card-terminal.ts';
export { encodeFrame, FrameReader, lrc, STX, ETX, ACK, NAK, type FrameEvent } from './ecr/frame.ts';
export { EcrLink, type EcrLinkOptions } from './ecr/link.ts';
export { encodeRequest, decodeRequest, encodeResponse, decodeResponse, type EcrRequest, type EcrResponse } from './ecr/messages.ts';

export { CheckScanner, type CheckScannerOptions } from './micr/check-scanner.ts';
export { parseMicrLine, detectMicrScheme, isValidAbaRoutingNumber, MICR_SCHEMES, type MicrFields, type MicrScheme } from './micr/micr.ts';
export { placeholderCheckPng, isPng } from './micr/placeholder-png.ts';

export * from './simulators/index.ts';
