/**
 * Device parsers against real sample data in test/fixtures (copied from shared/data, see test/fixtures/SOURCE.md): python-escpos byte streams,
 * ECR LRC vectors, MICR substitution schemes and MICR sample lines with their ABA checksum verdicts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeHighByte, encodeText, type CodePage } from '../../electron/devices/escpos/code-pages.ts';
import { decodeEscPos, EscPosDecoder, type DecodedLine } from '../../electron/devices/escpos/decoder.ts';
import { EscPosBuilder, ean13CheckDigit, encodePrintJob } from '../../electron/devices/escpos/encoder.ts';
import { parsePrinterStatus, statusByteFor } from '../../electron/devices/escpos/status.ts';
import { encodeFrame, ETX, FrameReader, lrc } from '../../electron/devices/ecr/frame.ts';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../electron/devices/ecr/messages.ts';
import { isDeviceError } from '../../electron/devices/errors.ts';
import { isValidAbaRoutingNumber, MICR_SCHEMES, parseMicrLine, type MicrScheme, type MicrSymbolSet } from '../../electron/devices/micr/micr.ts';

const data = (path: string): string => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

type Style = Pick<DecodedLine, 'align' | 'bold' | 'underline' | 'widthScale' | 'heightScale'>;
const plain: Style = { align: 'left', bold: false, underline: false, widthScale: 1, heightScale: 1 };
const line = (text: string, style: Partial<Style> = {}): DecodedLine => ({ text, ...plain, ...style });

describe('ESC/POS decoder on the python-escpos samples (test/fixtures/escpos)', () => {
  it('minimal.bin: two lines, feed 6, full cut (as its SOURCE.md decodes it)', () => {
    const decoded = decodeEscPos(readFileSync(data('escpos/python-escpos-minimal.bin')));
    expect(decoded.lines).toEqual([line('Hello, World!'), line('This is a test.')]);
    expect(decoded.events.filter((event) => event.type !== 'line')).toEqual([
      { type: 'init' },
      { type: 'code_page', n: 0, page: 'pc437' },
      { type: 'feed', lines: 6 },
      { type: 'cut', partial: false },
    ]);
  });

  it('formatting.bin: alignment, bold, underline and character sizes', () => {
    const decoded = decodeEscPos(readFileSync(data('escpos/python-escpos-formatting.bin')));
    expect(decoded.lines).toEqual([
      line('LEFT ALIGNED'),
      line('CENTER ALIGNED', { align: 'center' }),
      line('RIGHT ALIGNED', { align: 'right' }),
      line(''),
      line('Bold text', { bold: true }),
      line('Bold + Underline', { bold: true, underline: true }),
      line('Normal + Underline', { underline: true }),
      line('Normal text'),
      line(''),
      line('Normal size'),
      line('Wide', { widthScale: 2 }),
      line('Tall', { heightScale: 2 }),
      line('Double', { widthScale: 2, heightScale: 2 }),
    ]);
    expect(decoded.events.filter((event) => event.type === 'cut')).toEqual([{ type: 'cut', partial: false }]);
    expect(decoded.events.some((event) => event.type === 'unknown' || event.type === 'error')).toBe(false);
  });

  it('receipt.bin: the whole receipt with its styles and one cut', () => {
    const decoded = decodeEscPos(readFileSync(data('escpos/python-escpos-receipt.bin')));
    const texts = decoded.lines.map((l) => l.text);
    expect(texts.slice(0, 6)).toEqual(['THERMAL PRINTER TEST', 'Netum 80-V-UL', '='.repeat(48), '', 'Order #12345', 'Date: 2025-11-09 14:30:00']);
    expect(decoded.lines[0]).toEqual(line('THERMAL PRINTER TEST', { align: 'center', bold: true }));
    expect(decoded.lines.find((l) => l.text === 'DOUBLE SIZE')).toEqual(line('DOUBLE SIZE', { align: 'center', widthScale: 2, heightScale: 2 }));
    expect(decoded.lines.find((l) => l.text === 'TALL TEXT')).toMatchObject({ widthScale: 1, heightScale: 2 });
    expect(decoded.lines.find((l) => l.text === 'WIDE TEXT')).toMatchObject({ widthScale: 2, heightScale: 1 });
    expect(decoded.lines.find((l) => l.text === 'BOLD TEXT TEST')).toMatchObject({ bold: true, align: 'left' });
    expect(decoded.lines.find((l) => l.text === 'Underlined text example')).toMatchObject({ underline: true, bold: false });
    expect(decoded.lines.find((l) => l.text.startsWith('TOTAL'))).toEqual(line('TOTAL: $41.49', { align: 'right', bold: true }));
    expect(texts).toContain('Item 2 with a long name         $25.50');
    expect(texts).toContain('Special chars: @#$%^&*()');
    expect(decoded.lines.find((l) => l.text === 'Thank you for your purchase!')).toMatchObject({ align: 'center' });
    expect(decoded.lines.filter((l) => l.text !== '')).toHaveLength(21);
    expect(decoded.events.filter((event) => event.type === 'cut')).toHaveLength(1);
    expect(decoded.events.at(-1)).toEqual({ type: 'cut', partial: false });
    expect(decoded.events.some((event) => event.type === 'unknown' || event.type === 'error')).toBe(false);
  });

  it('decodes the same whatever the byte stream is split into', () => {
    const bytes = readFileSync(data('escpos/python-escpos-receipt.bin'));
    const whole = decodeEscPos(bytes).events;
    for (const size of [1, 2, 3, 7, 64]) {
      const decoder = new EscPosDecoder();
      const events = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...decoder.push(bytes.subarray(at, at + size)));
      events.push(...decoder.end());
      expect(events).toEqual(whole);
    }
  });
});

describe('ESC/POS encoder', () => {
  it('round-trips accented text through each code page (ESC t 0 / 16 / 19)', () => {
    const text = 'Crème brûlée, Ærø, Müller, señor, ¿qué?';
    for (const page of ['pc858', 'wpc1252', 'pc437'] as CodePage[]) {
      const bytes = new EscPosBuilder({ codePage: page }).initialise().text(text).bytes();
      const decoded = decodeEscPos(bytes).lines[0]!.text;
      if (page === 'pc437')
        expect(decoded).toBe('Crème brûlée, Ær?, Müller, señor, ¿qué?'); // no ø in PC437 and no decomposition
      else expect(decoded).toBe(text);
    }
    expect([...encodeText('€', 'pc858')]).toEqual([0xd5]);
    expect([...encodeText('€', 'wpc1252')]).toEqual([0x80]);
    expect([...encodeText('€', 'pc437')]).toEqual([0x3f]);
    expect(decodeHighByte(0xd5, 'pc858')).toBe('€');
    expect([...encodeText('a\x1b@b', 'pc858')]).toEqual([0x61, 0x40, 0x62]); // no command injection through text
  });

  it('encodes barcodes and QR codes with the documented byte layouts', () => {
    expect(ean13CheckDigit('400638133393')).toBe(1);
    const ean = new EscPosBuilder().barcode('EAN13', '400638133393').bytes();
    expect([...ean.slice(-17)]).toEqual([0x1d, 0x6b, 67, 13, ...Buffer.from('4006381333931')]);
    const code128 = new EscPosBuilder().barcode('CODE128', 'A{1').bytes();
    expect(Buffer.from(code128.slice(-8)).toString('latin1')).toBe('\x1dkI\x06{BA{{1'.slice(-8));
    const qr = Buffer.from(new EscPosBuilder({ qrModuleSize: 4, qrErrorCorrection: 'Q' }).qr('hi').bytes()).toString('hex');
    expect(qr).toBe(
      [
        '1d286b0400314132' + '00',
        '1d286b03003143' + '04',
        '1d286b03003145' + '32',
        '1d286b0500315030' + Buffer.from('hi').toString('hex'),
        '1d286b0300315130',
      ].join(''),
    );
    expect(() => new EscPosBuilder().barcode('EAN13', '12345')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('encodes a whole job with a cut at the end and the drawer kick after it', () => {
    const bytes = encodePrintJob({ jobId: 'j', blocks: [{ kind: 'text', text: 'x' }], openDrawer: true });
    const events = decodeEscPos(bytes).events.map((event) => event.type);
    expect(events).toEqual(['init', 'code_page', 'line', 'cut', 'drawer']);
  });
});

describe('ESC/POS real-time status (DLE EOT n)', () => {
  it('reads paper out, cover open and offline from the four status bytes', () => {
    expect(parsePrinterStatus({ 1: 0x12, 2: 0x12, 4: 0x12 })).toEqual({
      online: true,
      coverOpen: false,
      paperOut: false,
      paperNearEnd: false,
      drawerSignal: false,
      error: false,
    });
    expect(parsePrinterStatus({ 1: 0x1a, 2: 0x32, 4: 0x7e })).toMatchObject({ online: false, paperOut: true, paperNearEnd: true });
    expect(parsePrinterStatus({ 1: 0x1a, 2: 0x16 })).toMatchObject({ online: false, coverOpen: true, paperOut: false });
    expect(parsePrinterStatus({ 4: 0x1e })).toMatchObject({ paperNearEnd: true, paperOut: false });
    expect(() => parsePrinterStatus({ 1: 0x41 })).toThrow(expect.objectContaining({ code: 'malformed_frame' }));
    const condition = { online: false, coverOpen: true, paperOut: true, paperNearEnd: true, drawerSignal: false, error: false };
    expect(parsePrinterStatus({ 1: statusByteFor(1, condition), 2: statusByteFor(2, condition), 4: statusByteFor(4, condition) })).toEqual(condition);
  });
});

describe('ECR frames against test/fixtures/ecr/lrc-vectors.tsv', () => {
  const rows = readFileSync(data('ecr/lrc-vectors.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .filter((row) => row.trim() !== '')
    .map((row) => row.split('\t'))
    .filter(([, frame, , value]) => frame !== 'n/a' && /^0x[0-9a-f]{2}$/i.test(value ?? ''));

  it('has the worked vectors', () => {
    expect(rows.length).toBeGreaterThanOrEqual(2);
  });

  it.each(rows.map((row) => [row[0]!, row[1]!, row[3]!] as const))('%s: LRC = XOR(DATA + ETX) = %s', (_protocol, frame, value) => {
    const payload = /^<STX>(.*)<ETX><LRC>$/.exec(frame)![1]!;
    const expected = Number.parseInt(value.slice(2), 16);
    expect(lrc(Buffer.concat([Buffer.from(payload, 'latin1'), Buffer.of(ETX)]))).toBe(expected);
    const framed = encodeFrame(payload);
    expect(framed.at(-1)).toBe(expected);
    expect(new FrameReader().push(framed)).toEqual([{ type: 'frame', payload: Uint8Array.from(Buffer.from(payload, 'latin1')) }]);
    const corrupt = Uint8Array.from(framed);
    corrupt[3] = corrupt[3]! ^ 0x01;
    expect(new FrameReader().push(corrupt)).toMatchObject([{ type: 'bad_frame', code: 'bad_lrc' }]);
  });

  it('reads ACK/NAK, skips noise, refuses an overlong frame and resynchronises', () => {
    const reader = new FrameReader();
    const events = reader.push(
      Buffer.concat([Buffer.of(0x06, 0x41, 0x42, 0x15), Buffer.of(0x02), Buffer.alloc(1100, 0x41), Buffer.of(0x03, 0x00), encodeFrame('STATUS|x')]),
    );
    expect(events.map((event) => event.type)).toEqual(['ack', 'garbage', 'nak', 'bad_frame', 'frame']);
    expect(events[3]).toMatchObject({ code: 'line_too_long' });
  });

  it('encodes and decodes the payload format, refusing card-number-like fields', () => {
    const sale = { type: 'sale', ref: 'k-1', amountCents: 1250, currency: 'EUR' } as const;
    expect(encodeRequest(sale)).toBe('SALE|k-1|1250|EUR');
    expect(decodeRequest('SALE|k-1|1250|EUR')).toEqual(sale);
    const result = {
      outcome: 'approved',
      amountCents: 1250,
      authCode: 'A1',
      token: 'tok_1',
      brand: 'VISA',
      last4: '4242',
      entryMode: 'chip',
    } as const;
    const wire = encodeResponse({ type: 'result', ref: 'k-1', result });
    expect(wire).toBe('RESULT|k-1|APPROVED|1250|A1|tok_1|VISA|4242|CHIP|');
    expect(decodeResponse(wire)).toEqual({ type: 'result', ref: 'k-1', result });
    expect(() => decodeResponse('RESULT|k-1|APPROVED|1250|A1|4111111111111111|VISA|1111|CHIP|')).toThrow(
      expect.objectContaining({ code: 'malformed_frame' }),
    );
    expect(() => decodeRequest('SALE|k-1|12.50|EUR')).toThrow(expect.objectContaining({ code: 'malformed_frame' }));
    expect(() => encodeRequest({ ...sale, ref: 'a|b' })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});

/** Reads micr-symbol-substitutions.csv into one symbol set per scheme column. */
function readSchemes(): Record<string, MicrSymbolSet> {
  const [header, ...rows] = readFileSync(data('micr/micr-symbol-substitutions.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((row) => row.split(','));
  const columns = header!.slice(1).filter((name) => name !== 'unicode_formal_alias');
  const cell = (value: string | undefined): string | undefined => {
    if (!value) return undefined;
    const unicode = /^U\+([0-9A-F]{4})/.exec(value);
    if (unicode) return String.fromCodePoint(Number.parseInt(unicode[1]!, 16));
    if (value === "' '") return ' ';
    return value.split(' ')[0];
  };
  const byRow = new Map(rows.map((row) => [row[0]!, row]));
  const sets: Record<string, MicrSymbolSet> = {};
  for (const column of columns) {
    const index = header!.indexOf(column);
    const get = (symbol: string): string | undefined => cell(byRow.get(symbol)?.[index]);
    const unreadable = get('unreadable/error');
    sets[column] = {
      transit: get('transit')!,
      onUs: get('on-us')!,
      amount: get('amount')!,
      dash: get('dash')!,
      ...(unreadable ? { unreadable } : {}),
      space: get('space') ?? ' ',
    };
  }
  return sets;
}

describe('MICR E-13B lines against test/fixtures/micr', () => {
  const schemes = readSchemes();
  const samples = readFileSync(data('micr/micr-samples.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .filter((row) => row.trim() !== '')
    .map((row) => {
      const [raw, encoding, routing, checksum, account, checkNumber, amount, aux] = row.split('\t');
      return { raw: raw!, encoding: encoding!, routing: routing!.split(' ')[0]!, checksum: checksum!, account: account!, checkNumber, amount, aux };
    });

  it('knows every substitution scheme of the CSV, symbol for symbol', () => {
    expect(Object.keys(schemes).sort()).toEqual(Object.keys(MICR_SCHEMES).sort());
    for (const [name, set] of Object.entries(schemes)) expect(MICR_SCHEMES[name as MicrScheme], name).toEqual(set);
  });

  it('checks the ABA checksum column', () => {
    for (const sample of samples.filter((s) => s.checksum !== 'n/a')) {
      expect(isValidAbaRoutingNumber(sample.routing), sample.routing).toBe(sample.checksum === 'yes');
    }
  });

  /** Rewrites a Ranger (d c b -) sample line into another scheme. */
  const transcode = (raw: string, to: MicrSymbolSet): string => {
    const from = MICR_SCHEMES.ranger_bcd;
    const map: Record<string, string> = {
      [from.transit]: to.transit,
      [from.onUs]: to.onUs,
      [from.amount]: to.amount,
      [from.dash]: to.dash,
      ' ': to.space,
    };
    return [...raw].map((char) => map[char] ?? char).join('');
  };

  const cases = samples.flatMap((sample, index) => Object.keys(schemes).map((scheme) => [index + 1, scheme, sample] as const));

  it.each(cases)('sample %i in %s is accepted or refused as its ABA checksum says', (_index, scheme, sample) => {
    const raw = transcode(sample.raw, schemes[scheme]!);
    for (const option of [scheme as MicrScheme, 'auto' as const]) {
      if (sample.checksum === 'yes') {
        const fields = parseMicrLine(raw, { scheme: option });
        // Detection may pick a scheme with the very same symbols (TOAD and MagTek 02 differ only in the unreadable mark).
        const { unreadable: _a, ...detected } = MICR_SCHEMES[fields.scheme];
        const { unreadable: _b, ...wanted } = schemes[scheme]!;
        expect(detected).toEqual(wanted);
        expect(fields.routingNumber).toBe(sample.routing);
        expect(fields.accountNumber).toBe(sample.account);
        expect(fields.checkNumber).toBe(sample.checkNumber || undefined);
        expect(fields.auxOnUs).toBe(sample.aux || undefined);
        expect(fields.amountCents).toBe(sample.amount ? Number(sample.amount) : undefined);
      } else {
        let error: unknown;
        try {
          parseMicrLine(raw, { scheme: option });
        } catch (caught) {
          error = caught;
        }
        expect(isDeviceError(error)).toBe(true);
        // 'NO' rows fail the checksum; the 'n/a' row (non-US: no ⑆routing⑆ field) has no routing number at all.
        expect((error as { code: string }).code).toBe(sample.checksum === 'NO' ? 'micr_bad_routing_checksum' : 'micr_missing_routing');
      }
    }
  });

  it('refuses unreadable characters, foreign characters, empty and oversized lines with their codes', () => {
    for (const [name, set] of Object.entries(schemes)) {
      if (!set.unreadable) continue;
      const raw = `${set.transit}12345${set.unreadable}780${set.transit}${set.space}123${set.onUs}`;
      expect(() => parseMicrLine(raw, { scheme: name as MicrScheme }), name).toThrow(expect.objectContaining({ code: 'micr_unreadable_character' }));
    }
    expect(() => parseMicrLine('d123456780d 12x34c')).toThrow(expect.objectContaining({ code: 'micr_invalid_character' }));
    expect(() => parseMicrLine('   ')).toThrow(expect.objectContaining({ code: 'micr_empty' }));
    expect(() => parseMicrLine(`d123456780d ${'1'.repeat(200)}c`)).toThrow(expect.objectContaining({ code: 'line_too_long' }));
    expect(() => parseMicrLine('d123456780d c')).toThrow(expect.objectContaining({ code: 'micr_missing_account' }));
    expect(() => parseMicrLine('d123456780d 1234c b12b')).toThrow(expect.objectContaining({ code: 'micr_bad_amount' }));
  });
});
