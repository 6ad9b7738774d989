/**
 * Random bytes into every device parser (fast-check): none may throw anything but a typed `DeviceError`, none may
 * hang (each call returns; the streaming ones keep bounded state), and splitting a stream differently never changes
 * what a streaming parser reports.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEscPos, EscPosDecoder } from '../../electron/devices/escpos/decoder.ts';
import { parsePrinterStatus } from '../../electron/devices/escpos/status.ts';
import { encodeFrame, FrameReader } from '../../electron/devices/ecr/frame.ts';
import { decodeRequest, decodeResponse } from '../../electron/devices/ecr/messages.ts';
import { DeviceError } from '../../electron/devices/errors.ts';
import { MICR_SCHEMES, parseMicrLine, type MicrScheme } from '../../electron/devices/micr/micr.ts';
import { ScannerRecordReader } from '../../electron/devices/micr/scanner-protocol.ts';

/** Runs `fn`; passes when it returns or throws a DeviceError. */
function onlyTypedErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DeviceError);
  }
}

/** Bytes biased towards the interesting control characters of each protocol. */
const protocolBytes = fc.uint8Array({ maxLength: 600 }).chain((noise) =>
  fc
    .array(fc.constantFrom(0x02, 0x03, 0x06, 0x15, 0x0a, 0x0d, 0x10, 0x04, 0x1b, 0x1d, 0x28, 0x6b, 0x7c, 0x56, 0x40), { maxLength: 80 })
    .map((controls) => {
      const mixed = [...noise];
      controls.forEach((byte, index) => mixed.splice((index * 7919) % (mixed.length + 1), 0, byte));
      return Uint8Array.from(mixed);
    }),
);

const splits = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 });

function chunked(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  let i = 0;
  while (at < bytes.length) {
    const size = sizes[i % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
    i += 1;
  }
  return chunks;
}

describe('device parsers under random bytes', () => {
  it('ESC/POS decoder: never throws, same events whatever the split', () => {
    fc.assert(
      fc.property(protocolBytes, splits, (bytes, sizes) => {
        const whole = decodeEscPos(bytes, { maxLineChars: 64, maxCommandBytes: 256 }).events;
        const decoder = new EscPosDecoder({ maxLineChars: 64, maxCommandBytes: 256 });
        const events = chunked(bytes, sizes).flatMap((chunk) => decoder.push(chunk));
        events.push(...decoder.end());
        expect(events).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('ESC/POS decoder: a declared 64 KiB raster image is skipped without buffering it', () => {
    const decoder = new EscPosDecoder({ maxCommandBytes: 1024 });
    const header = Uint8Array.of(0x1d, 0x76, 0x30, 0x00, 0xff, 0x00, 0xff, 0x00); // 255 × 255 bytes follow
    const events = [...decoder.push(header), ...decoder.push(new Uint8Array(255 * 255).fill(0x41)), ...decoder.push(Buffer.from('after\n'))];
    expect(events.map((event) => event.type)).toEqual(['unknown', 'line']);
    expect(events[1]).toMatchObject({ type: 'line', line: { text: 'after' } });
  });

  it('ESC/POS decoder: an endless line is cut with a line_too_long error, nothing lost', () => {
    const decoded = decodeEscPos(Buffer.from('x'.repeat(2500)), { maxLineChars: 1000 });
    expect(decoded.events.filter((event) => event.type === 'error')).toHaveLength(2);
    expect(decoded.lines.map((line) => line.text.length)).toEqual([1000, 1000, 500]);
  });

  it('ECR frame reader: never throws, frames survive any split, good frames inside noise are found', () => {
    fc.assert(
      fc.property(protocolBytes, splits, fc.stringMatching(/^[A-Z0-9|]{1,40}$/), (noise, sizes, payload) => {
        const stream = Buffer.concat([noise, Buffer.of(0x03, 0x00), encodeFrame(payload)]);
        const reader = new FrameReader();
        const events = chunked(stream, sizes).flatMap((chunk) => reader.push(chunk));
        const last = events.filter((event) => event.type === 'frame').at(-1);
        expect(last && Buffer.from((last as { payload: Uint8Array }).payload).toString('latin1')).toBe(payload);
      }),
      { numRuns: 300 },
    );
  });

  it('ECR payload decoders: only typed errors', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.array(fc.string({ maxLength: 30 }), { maxLength: 12 }), (text, fields) => {
        for (const payload of [text, fields.join('|'), `RESULT|${fields.join('|')}`, `SALE|${fields.join('|')}`, `STATUS|${fields.join('|')}`]) {
          onlyTypedErrors(() => decodeResponse(payload));
          onlyTypedErrors(() => decodeRequest(payload));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('MICR parser: only typed errors, in every scheme and with detection', () => {
    const symbols = Object.values(MICR_SCHEMES).flatMap((set) => [set.transit, set.onUs, set.amount, set.dash, set.space, set.unreadable ?? '']);
    const micrish = fc
      .array(fc.oneof(fc.constantFrom(...symbols, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ' '), fc.string({ maxLength: 2 })), {
        maxLength: 160,
      })
      .map((parts) => parts.join(''));
    const schemes = [...(Object.keys(MICR_SCHEMES) as MicrScheme[]), 'auto' as const];
    fc.assert(
      fc.property(micrish, fc.constantFrom(...schemes), (raw, scheme) => {
        onlyTypedErrors(() => {
          const fields = parseMicrLine(raw, { scheme });
          expect(fields.routingNumber).toMatch(/^\d{9}$/);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('scanner record reader and status parser: never throw, bounded', () => {
    fc.assert(
      fc.property(protocolBytes, splits, (bytes, sizes) => {
        const reader = new ScannerRecordReader({ maxImageBytes: 64 });
        for (const chunk of chunked(bytes, sizes)) reader.push(chunk);
        reader.push(Buffer.from('\r\nERR JAM\r\n'));
        for (const byte of bytes.subarray(0, 8)) onlyTypedErrors(() => parsePrinterStatus({ 1: byte }));
      }),
      { numRuns: 300 },
    );
  });
});
