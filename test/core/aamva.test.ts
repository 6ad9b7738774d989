/**
 * ID verification: core/aamva.ts reads the AAMVA DL/ID PDF417 payload of the samples (test/fixtures/aamva)
 * and of the standard's versions (01 DAA full name and CCYYMMDD dates; 03 DCT given names; 08 DAC/DAD; Canada's
 * CCYYMMDD), and answers a clear AamvaError — never another exception — for foreign, truncated or malformed input.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { AAMVA_IINS, AamvaError, aamvaDate, issuerProblem, parseAamva } from '../../core/aamva.ts';
import { ageOn, maskDocumentNumber } from '../../core/screening.ts';
import { aamvaFixture, buildAamvaPayload } from '../support/aamva.ts';

describe('AAMVA payloads', () => {
  it('reads the CDS example (version 10, control characters exact): header, subfiles, holder', () => {
    const r = parseAamva(aamvaFixture('aamva-cds-example-VA.txt'));
    expect(r).toMatchObject({
      iin: '636000',
      issuer: { jurisdiction: 'VA', country: 'USA' },
      aamvaVersion: 10,
      jurisdictionVersion: 1,
      documentType: 'DL',
    });
    expect(r.subfiles).toEqual([
      { type: 'DL', offset: 41, length: 278 },
      { type: 'ZV', offset: 319, length: 8 },
    ]);
    expect(r.holder).toMatchObject({
      firstName: 'MICHAEL',
      middleName: 'JOHN',
      lastName: 'SAMPLE',
      suffix: 'JR',
      dateOfBirth: '1986-06-06',
      expiry: '2024-12-10',
      issueDate: '2019-06-06',
      sex: 'M',
      documentNumber: 'T64235789',
      jurisdiction: 'VA',
      address: { street: '2300 WEST BROAD STREET', city: 'RICHMOND', state: 'VA', postalCode: '23269', country: 'USA' },
    });
    expect(r.elements.DCA).toBe('D');
  });

  it.each([
    ['VA-21.txt', 'ID', 'SARKO', 'JAMES', '1950-03-23', '2031-03-23'],
    ['VA-U21.txt', 'DL', 'MALDONADO', 'JULIANA', '2007-01-19', '2031-01-19'],
    ['VA-REAL-21.txt', 'DL', null, null, null, null],
    ['VA-REAL-C-21.txt', 'DL', null, null, null, null],
  ] as const)('reads the scanner-typed specimen %s (CR delivered as LF, space-padded fields)', (file, type, last, first, dob, expiry) => {
    const r = parseAamva(aamvaFixture(file));
    expect(r).toMatchObject({ iin: '636000', aamvaVersion: 10, documentType: expect.stringMatching(/^(DL|ID)$/) });
    if (last) expect(r).toMatchObject({ documentType: type, holder: { lastName: last, firstName: first, dateOfBirth: dob, expiry } });
    expect(r.holder.documentNumber).toMatch(/^T\d{8}$/);
    expect(r.holder.lastName).not.toMatch(/\s$/);
  });

  it('reads version 01 (DAA "LAST,FIRST,MIDDLE", dates CCYYMMDD, sex M/F)', () => {
    const r = parseAamva(
      buildAamvaPayload(1, '636026', 'DL', [
        ['DAQ', 'D1234567'],
        ['DAA', 'PUBLIC,JOHN,QUINCY'],
        ['DBB', '19700315'],
        ['DBA', '20300315'],
        ['DBC', 'M'],
        ['DAG', '1 MAIN ST'],
        ['DAI', 'PHOENIX'],
        ['DAJ', 'AZ'],
        ['DAK', '85001'],
      ]),
    );
    expect(r).toMatchObject({ aamvaVersion: 1, jurisdictionVersion: null, issuer: { jurisdiction: 'AZ' } });
    expect(r.holder).toMatchObject({
      lastName: 'PUBLIC',
      firstName: 'JOHN',
      middleName: 'QUINCY',
      dateOfBirth: '1970-03-15',
      expiry: '2030-03-15',
      sex: 'M',
      address: { postalCode: '85001', state: 'AZ' },
    });
  });

  it('reads version 03 (DCS family name, DCT given names, MMDDCCYY)', () => {
    const r = parseAamva(
      buildAamvaPayload(3, '636014', 'ID', [
        ['DCA', 'NONE'],
        ['DCS', 'DOE'],
        ['DCT', 'JANE,ANN'],
        ['DAQ', 'Y1234567'],
        ['DBB', '07041980'],
        ['DBA', '07042029'],
        ['DBC', '2'],
        ['DCG', 'USA'],
      ]),
    );
    expect(r).toMatchObject({ aamvaVersion: 3, documentType: 'ID', issuer: { jurisdiction: 'CA' } });
    expect(r.holder).toMatchObject({
      lastName: 'DOE',
      firstName: 'JANE',
      middleName: 'ANN',
      dateOfBirth: '1980-07-04',
      expiry: '2029-07-04',
      sex: 'F',
    });
  });

  it('reads version 08 (DAC/DAD, truncation flags) and a Canadian card (CCYYMMDD)', () => {
    const us = parseAamva(
      buildAamvaPayload(8, '636015', 'DL', [
        ['DCS', 'GARCIA-LOPEZ'],
        ['DAC', 'MARIA'],
        ['DAD', 'JOSEFINA'],
        ['DDE', 'N'],
        ['DDF', 'T'],
        ['DDG', 'N'],
        ['DAQ', '12345678'],
        ['DBB', '12311999'],
        ['DBA', '12312030'],
        ['DBC', '2'],
        ['DCG', 'USA'],
      ]),
    );
    expect(us.holder).toMatchObject({
      lastName: 'GARCIA-LOPEZ',
      firstName: 'MARIA',
      dateOfBirth: '1999-12-31',
      jurisdiction: 'TX',
      nameTruncated: true,
    });
    const ca = parseAamva(
      buildAamvaPayload(9, '636012', 'DL', [
        ['DCS', 'TREMBLAY'],
        ['DAC', 'LUC'],
        ['DAQ', 'T1234-56789-01234'],
        ['DBB', '19850211'],
        ['DBA', '20280211'],
        ['DBC', '1'],
        ['DCG', 'CAN'],
        ['DAK', 'M5V 2T6'],
      ]),
    );
    expect(ca.holder).toMatchObject({
      lastName: 'TREMBLAY',
      dateOfBirth: '1985-02-11',
      expiry: '2028-02-11',
      jurisdiction: 'ON',
      address: { postalCode: 'M5V 2T6', country: 'CAN' },
    });
  });

  it.each([
    ['a URL (QR code)', 'https://example.com/pay?x=1'],
    ['a UPC', '012345678905'],
    ['JSON', '{"name":"John"}'],
    ['a MICR line', '⑈021000021⑈ 123456789⑆ 1001'],
    ['empty', '   '],
  ])('a foreign payload (%s) is not_aamva', (_case, payload) => {
    expect(() => parseAamva(payload)).toThrow(expect.objectContaining({ name: 'AamvaError', code: 'not_aamva' }));
  });

  it('a truncated payload says it was cut short', () => {
    const full = aamvaFixture('aamva-cds-example-VA.txt');
    for (const length of [3, 12, 19, 30, 50, 60, 120]) {
      expect(() => parseAamva(full.slice(0, length)), `first ${length}`).toThrow(expect.objectContaining({ code: 'truncated' }));
    }
  });

  it('a malformed payload names what is wrong', () => {
    const good = aamvaFixture('aamva-cds-example-VA.txt');
    expect(() => parseAamva(good.replace('DBB06061986', 'DBB13452020'))).toThrow(/DBB \(date of birth\) is not a date/);
    expect(() => parseAamva(good.replace('636000', '63X000'))).toThrow(
      expect.objectContaining({ code: 'malformed', message: expect.stringContaining('issuer identification number') }),
    );
    expect(() => parseAamva(good.replace('DL00410278', 'XX00410278').replace('ZV03190008', 'ZV03190008'))).toThrow(/no DL or ID subfile/);
    expect(() => parseAamva(good.replace('\nDBA12102024', '\nXBA12102024'))).toThrow(/Missing DBA \(expiry\)/);
    expect(() => parseAamva(good.replace(/\nDBA\d+/, ''))).toThrow(/cut short: missing DBA \(expiry\)/);
  });

  it('never throws anything but an AamvaError, whatever is cut or changed', () => {
    const samples = [aamvaFixture('aamva-cds-example-VA.txt'), aamvaFixture('VA-U21.txt')];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const s = samples[i % 2]!;
      const chars = [...s.slice(0, rand(s.length + 1))];
      for (let k = rand(4); k > 0; k--) chars[rand(chars.length || 1)] = String.fromCharCode(rand(256));
      try {
        parseAamva(chars.join(''));
      } catch (err) {
        expect(err).toBeInstanceOf(AamvaError);
      }
    }
  });

  it('dates, ages and masks', () => {
    expect(aamvaDate('02292024', false)).toBe('2024-02-29');
    expect(aamvaDate('02302024', false)).toBeNull();
    expect(aamvaDate('00000000', false)).toBeNull();
    expect(ageOn('2007-01-19', '2025-01-18')).toBe(17);
    expect(ageOn('2007-01-19', '2025-01-19')).toBe(18);
    expect(maskDocumentNumber('T64235789')).toBe('*****5789');
    expect(maskDocumentNumber('T64235789')).not.toContain('6423');
    expect(maskDocumentNumber('1234')).toBe('****34');
    expect(maskDocumentNumber('7')).toBe('****');
  });

  it('the IIN table is the AAMVA list of test/fixtures/aamva/aamva-iin.csv, row for row', () => {
    const rows = readFileSync(new URL('../fixtures/aamva/aamva-iin.csv', import.meta.url), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(Object.fromEntries(rows.map(([iin, , abbr, country]) => [iin, [abbr, country]]))).toEqual(AAMVA_IINS);
  });

  it('the issuer is checked against the IIN table and the address state', () => {
    const va = aamvaFixture('VA-21.txt');
    expect(issuerProblem(parseAamva(va))).toBeNull();
    expect(issuerProblem(parseAamva(va.replace('ANSI 636000', 'ANSI 999999')))).toBe('unknown_issuer');
    const md = parseAamva(va.replace('ANSI 636000', 'ANSI 636003'));
    expect(md.holder.jurisdiction).toBe('MD');
    expect(issuerProblem(md)).toBe('issuer_state_mismatch');
    // No address state to compare, a Newfoundland card written NL, the State Department's cards (no jurisdiction).
    expect(
      issuerProblem(
        parseAamva(
          buildAamvaPayload(3, '636014', 'ID', [
            ['DCS', 'DOE'],
            ['DCT', 'JANE'],
            ['DAQ', 'Y1'],
            ['DBB', '07041980'],
            ['DBA', '07042029'],
          ]),
        ),
      ),
    ).toBeNull();
    expect(
      issuerProblem(
        parseAamva(
          buildAamvaPayload(9, '636016', 'DL', [
            ['DCS', 'DOE'],
            ['DAC', 'JANE'],
            ['DAQ', 'N1'],
            ['DBB', '19800704'],
            ['DBA', '20290704'],
            ['DAJ', 'NL'],
            ['DCG', 'CAN'],
          ]),
        ),
      ),
    ).toBeNull();
    expect(
      issuerProblem(
        parseAamva(
          buildAamvaPayload(9, '636027', 'ID', [
            ['DCS', 'DOE'],
            ['DAC', 'JANE'],
            ['DAQ', 'S1'],
            ['DBB', '07041980'],
            ['DBA', '07042029'],
            ['DAJ', 'DC'],
          ]),
        ),
      ),
    ).toBeNull();
  });
});
