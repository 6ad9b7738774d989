/**
 * AAMVA DL/ID payloads for tests: the samples in test/fixtures/aamva (SOURCE.md there), and payloads of other versions
 * of the standard built with a correct header and subfile directory.
 */
import { readFileSync } from 'node:fs';

/** A sample payload of test/fixtures/aamva, bytes as Latin-1 (control characters kept). */
export function aamvaFixture(name: 'aamva-cds-example-VA.txt' | 'VA-21.txt' | 'VA-U21.txt' | 'VA-REAL-21.txt' | 'VA-REAL-C-21.txt'): string {
  const path = name.startsWith('VA-') ? `va-v10-specimens/${name}` : name;
  return readFileSync(new URL(`../fixtures/aamva/${path}`, import.meta.url), 'latin1');
}

/**
 * A payload of AAMVA `version` (1 … 10) from IIN `iin` with one DL or ID subfile holding `elements` (code, value),
 * elements separated by LF, the subfile ended by CR; the header's offsets and lengths are exact.
 */
export function buildAamvaPayload(version: number, iin: string, type: 'DL' | 'ID', elements: [string, string][]): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const four = (n: number) => String(n).padStart(4, '0');
  const body = `${type}${elements.map(([c, v]) => `${c}${v}`).join('\n')}\r`;
  const headerLength = 4 + 5 + 6 + 2 + (version >= 2 ? 2 : 0) + 2 + 10;
  return `@\n\u001e\rANSI ${iin}${two(version)}${version >= 2 ? '01' : ''}01${type}${four(headerLength)}${four(body.length)}${body}`;
}
