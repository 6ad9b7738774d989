/**
 * Reads the PDF417 barcode on a photo of the back of a licence (PNG, JPEG, BMP, GIF…) with `zxing-wasm` (the ZXing-C++
 * reader compiled to WebAssembly). The WebAssembly binary is loaded from the installed package, never from a CDN.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

let prepared: Promise<void> | undefined;

function prepare(): Promise<void> {
  prepared ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('zxing-wasm/reader/zxing_reader.wasm');
    const wasm = await readFile(wasmPath);
    const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength);
    await prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  })().catch((err: unknown) => {
    prepared = undefined;
    throw err;
  });
  return prepared;
}

/**
 * The text of the first PDF417 barcode found on an encoded image, or null when the image holds none (or is not an
 * image the decoder reads). Bytes are read as Latin-1 so AAMVA's control characters come through unchanged.
 */
export async function readPdf417(image: Uint8Array): Promise<string | null> {
  await prepare();
  const results = await readBarcodes(image, { formats: ['PDF417'], tryHarder: true, tryRotate: true, maxNumberOfSymbols: 1 });
  const found = results.find((r) => r.isValid);
  if (!found) return null;
  return Buffer.from(found.bytes).toString('latin1');
}
