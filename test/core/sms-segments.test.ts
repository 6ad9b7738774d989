import { describe, expect, it } from 'vitest';
import { describeSmsSegments, smsSegments } from '../../core/index.ts';

describe('smsSegments (GSM-7 160/153, UCS-2 70/67)', () => {
  it('an empty body is one GSM-7 part with 160 free', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', units: 0, segments: 1, remaining: 160 });
  });

  it('exactly 160 GSM-7 characters fit one part; 161 need two of 153', () => {
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1, remaining: 0 });
    expect(smsSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', units: 161, segments: 2, remaining: 145 });
    expect(smsSegments('a'.repeat(306))).toMatchObject({ segments: 2, remaining: 0 });
    expect(smsSegments('a'.repeat(307))).toMatchObject({ segments: 3, remaining: 152 });
  });

  it('the basic set with accents, Greek capitals and line breaks stays GSM-7', () => {
    expect(smsSegments('Café à 5£ — no').encoding).toBe('UCS-2'); // the em dash is not GSM-7
    expect(smsSegments('Café à 5£\nΔΩ @ ¿¡ ÄÖÑÜ').encoding).toBe('GSM-7');
  });

  it('€ and { are GSM-7 extension characters: two septets each', () => {
    expect(smsSegments('€')).toEqual({ encoding: 'GSM-7', units: 2, segments: 1, remaining: 158 });
    expect(smsSegments('{')).toMatchObject({ encoding: 'GSM-7', units: 2 });
    expect(smsSegments(`${'a'.repeat(158)}€`)).toMatchObject({ units: 160, segments: 1, remaining: 0 });
    expect(smsSegments(`${'a'.repeat(159)}€`)).toMatchObject({ units: 161, segments: 2 });
  });

  it('an escape pair is never split across parts', () => {
    // 152 septets, then € (2) does not fit the first part's last septet: it opens the second part.
    const info = smsSegments(`${'a'.repeat(152)}€${'b'.repeat(10)}`);
    expect(info).toEqual({ encoding: 'GSM-7', units: 164, segments: 2, remaining: 153 - 12 });
  });

  it('exactly 70 UCS-2 units fit one part; 71 need two of 67', () => {
    expect(smsSegments('ж'.repeat(70))).toEqual({ encoding: 'UCS-2', units: 70, segments: 1, remaining: 0 });
    expect(smsSegments('ж'.repeat(71))).toEqual({ encoding: 'UCS-2', units: 71, segments: 2, remaining: 63 });
  });

  it('an emoji is two UTF-16 units, and its pair is never split', () => {
    expect(smsSegments('😀')).toEqual({ encoding: 'UCS-2', units: 2, segments: 1, remaining: 68 });
    expect(smsSegments(`${'ж'.repeat(68)}😀`)).toMatchObject({ units: 70, segments: 1, remaining: 0 });
    // 66 units then the pair: 68 > 67, so the emoji opens the second part.
    expect(smsSegments(`${'ж'.repeat(66)}😀${'ж'.repeat(5)}`)).toEqual({ encoding: 'UCS-2', units: 73, segments: 2, remaining: 67 - 7 });
  });

  it('describes the count for staff', () => {
    expect(describeSmsSegments(smsSegments('Hello'))).toBe('1 SMS segment (GSM-7)');
    expect(describeSmsSegments(smsSegments('😀'.repeat(40)))).toBe('2 SMS segments (UCS-2)');
  });
});
