/**
 * Check-scanner driver against its simulator through a real socat pseudo-terminal pair: MICR line and
 * PNG image on the wire, ABA validation, bad reads refused with typed reasons, an unplugged scanner mid-read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkScanSchema, type CheckScan } from '../../core/devices.ts';
import { CheckScanner } from '../../electron/devices/micr/check-scanner.ts';
import { encodeGreyscalePng, isPng, placeholderCheckPng } from '../../electron/devices/micr/placeholder-png.ts';
import { encodeCheckRecord } from '../../electron/devices/micr/scanner-protocol.ts';
import { startCheckScannerSimulator, type CheckScannerSimulator } from '../../electron/devices/simulators/check-scanner-simulator.ts';

describe('check scanner over a pseudo-terminal', () => {
  let simulator: CheckScannerSimulator;
  let scanner: CheckScanner;

  beforeEach(async () => {
    simulator = await startCheckScannerSimulator({ serial: { baudRate: 115200 } });
    scanner = await CheckScanner.open({ port: { path: simulator.devicePath, baudRate: 115200 }, scanTimeoutMs: 1500 });
  });

  afterEach(async () => {
    await scanner.close();
    await simulator.stop();
  });

  it('reads routing, account, check number, amount and the image of a good check', async () => {
    const image = encodeGreyscalePng(4, 2, (x) => x * 60);
    simulator.load({ micr: 'c706001c d075901231d    456327c  0101   b0000039275b', image });
    const scan = await scanner.scanCheck();
    expect(scan).toEqual({
      routingNumber: '075901231',
      accountNumber: '456327',
      checkNumber: '0101',
      auxOnUs: '706001',
      amountCents: 39275,
      imagePng: Buffer.from(image).toString('base64'),
    });
    expect(checkScanSchema.parse(scan)).toEqual(scan);
    expect(simulator.scans).toBe(1);
  });

  it('sends the documented placeholder image when the check has none of its own, and reads any scheme', async () => {
    simulator.load({ micr: '\u2446123456780\u2446 123\u2449456\u24497\u2448 5431' });
    const scan = await scanner.scanCheck();
    expect(scan).toMatchObject({ routingNumber: '123456780', accountNumber: '123-456-7', checkNumber: '5431' });
    const png = Buffer.from(scan.imagePng!, 'base64');
    expect(isPng(png)).toBe(true);
    expect(png.equals(placeholderCheckPng())).toBe(true);
    expect(png.readUInt32BE(16)).toBe(480); // IHDR width
  });

  it('refuses bad reads with typed reasons and keeps working afterwards', async () => {
    simulator.load(
      { micr: 'd124444706d1021-823215406c' }, // ABA checksum fails
      { micr: 'T1234?6780T 123456U' }, // unreadable character
      { micr: '' },
      { error: 'JAM' },
      { raw: Buffer.from(`MICR ${'1'.repeat(600)}\r\nEND\r\n`) }, // oversized line
      { raw: Buffer.from('\x00\xffgarbage\r\n') },
      { micr: 'd123456780d   123-456-7c  5431', image: Buffer.from('not a png') },
      { micr: 'd123456780d   123-456-7c  5431', image: false },
    );
    const refusals: string[] = [];
    scanner.on('badRead', (error) => refusals.push(error.code));
    const codes: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      codes.push(
        await scanner.scanCheck().then(
          () => 'accepted',
          (error: { code: string }) => error.code,
        ),
      );
    }
    expect(codes).toEqual([
      'micr_bad_routing_checksum',
      'micr_unreadable_character',
      'micr_empty',
      'scanner_jam',
      'line_too_long',
      'malformed_frame',
      'malformed_frame',
    ]);
    // The END left over after the oversized line is reported as a stray too; nothing hangs, nothing is lost.
    expect(refusals).toEqual(expect.arrayContaining(codes));
    const last = await scanner.scanCheck();
    expect(last).toEqual({ routingNumber: '123456780', accountNumber: '123-456-7', checkNumber: '5431' });
    await expect(scanner.scanCheck()).rejects.toMatchObject({ code: 'scanner_jam', message: 'no check in the feeder' });
  });

  it('reports checks fed without a scan request as events', async () => {
    const scans: CheckScan[] = [];
    const arrived = new Promise<void>((resolve) => scanner.once('scan', () => resolve()));
    scanner.on('scan', (scan) => scans.push(scan));
    await simulator.emit({ micr: 'T075901231T 456327O 0101', image: false }); // MagTek format 02 (T O A D)
    await arrived;
    expect(scans).toEqual([{ routingNumber: '075901231', accountNumber: '456327', checkNumber: '0101' }]);
  });

  it('refuses an image larger than the limit without buffering it', async () => {
    await scanner.close();
    scanner = await CheckScanner.open({ port: { path: simulator.devicePath, baudRate: 115200 }, scanTimeoutMs: 1500, maxImageBytes: 1000 });
    simulator.load({ micr: 'd123456780d 1234c', image: Buffer.alloc(5000, 1) }, { micr: 'd123456780d 1234c', image: false });
    await expect(scanner.scanCheck()).rejects.toMatchObject({ code: 'image_too_large' });
    expect(await scanner.scanCheck()).toEqual({ routingNumber: '123456780', accountNumber: '1234' });
  });

  it('rejects a scan in progress when the scanner is unplugged mid-read', async () => {
    // A scan timeout far beyond the unplug: only the unplug may end this scan (on a loaded machine the 1.5 s timeout
    // could fire before the closed port was seen, and the test then read 'timeout').
    await scanner.close();
    scanner = await CheckScanner.open({ port: { path: simulator.devicePath, baudRate: 115200 }, scanTimeoutMs: 15_000 });
    // Half a record, then the cable goes.
    const record = encodeCheckRecord('d123456780d 1234c', placeholderCheckPng());
    simulator.load({ raw: record.subarray(0, 40) });
    const pending = scanner.scanCheck().then(
      () => 'accepted',
      (error: { code: string }) => error.code,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await simulator.unplug();
    expect(await pending).toBe('disconnected');
    await expect(scanner.scanCheck()).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('times out when the scanner does not answer', async () => {
    simulator.load({ raw: new Uint8Array() });
    await expect(scanner.scanCheck()).rejects.toMatchObject({ code: 'timeout' });
  });
});
