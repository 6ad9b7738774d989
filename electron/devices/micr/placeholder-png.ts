/**
 * A small, valid PNG standing in for a check image when a scanner (or the simulator) has none: 8-bit greyscale,
 * 480 × 216 (a personal check's 6" × 2.7" at 80 dpi), white with a black 3-pixel border and a light-grey band where
 * the MICR line sits (bottom 5/8"). Built with node:zlib (deflate + CRC-32); no image library needed.
 */
import { crc32, deflateSync } from 'node:zlib';

/** PNG file signature (RFC 2083 §12.11). */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

function chunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** Encodes an 8-bit greyscale image (row-major, one byte per pixel) as PNG. */
export function encodeGreyscalePng(width: number, height: number, pixel: (x: number, y: number) => number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y += 1) {
    raw[y * (width + 1)] = 0; // filter: none
    for (let x = 0; x < width; x += 1) raw[y * (width + 1) + 1 + x] = pixel(x, y) & 0xff;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // colour type: greyscale
  return Buffer.concat([Buffer.from(PNG_SIGNATURE), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array())]);
}

/** The documented placeholder check image (see the module comment). */
export function placeholderCheckPng(): Buffer {
  const width = 480;
  const height = 216;
  return encodeGreyscalePng(width, height, (x, y) => {
    if (x < 3 || y < 3 || x >= width - 3 || y >= height - 3) return 0;
    if (y >= height - 50 && y < height - 10) return 0xd8;
    return 0xff;
  });
}

/** True when `bytes` start with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length > PNG_SIGNATURE.length && PNG_SIGNATURE.every((byte, index) => bytes[index] === byte);
}
