/**
 * The repository explains itself: no source, test or document points a reader at something they cannot open from a
 * clone — a section of a design document kept elsewhere, or an issue number. What such a reference meant is written
 * here instead: in the comment itself, or in a decision record (docs/decisions/README.md is the index).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIRS = ['core', 'sync-server', 'renderer', 'electron', 'scripts', 'build', 'test', 'docs'];
const FILES = ['README.md'];
/** Generated output, installed packages and third-party data (test/fixtures holds other people's files as they are). */
const SKIP = new Set(['node_modules', '.git', 'dist', 'dist-electron', 'data', 'test-results', 'fixtures']);
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|sql|css|html|json|ya?ml|sh|txt)$/;

/** What may not appear, and why. Built from parts so this file does not match itself. */
const OUTSIDE_REFERENCES: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: new RegExp(['DESIGN', '(?:\\.md)?', ' ?§'].join('')), what: 'a section of a design document outside the repository' },
  { pattern: new RegExp(['\\b', '(?:DESIGN|ARCHITECTURE|STYLE)', '\\.md\\b'].join('')), what: 'a document outside the repository' },
  { pattern: new RegExp(['\\b[Ii]ssues?', ' #?\\d+'].join('')), what: 'an issue number' },
];

function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...textFiles(path));
    else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

/** Every `file:line: text (what)` of `text` that names something outside the repository. */
function outsideReferences(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const { pattern, what } of OUTSIDE_REFERENCES) {
      if (pattern.test(line)) found.push(`${file}:${index + 1}: ${line.trim().slice(0, 160)} (${what})`);
    }
  });
  return found;
}

describe('no reference outside the repository', () => {
  it('finds a design-document section and an issue number, with file and line', () => {
    // Spelt in parts, so that this file does not hold what it looks for.
    const [design, issue] = ['DESIGN', 'issue'];
    const lines = [`ok line`, ` * Money (${design} §4).`, `// see ${issue} 13`, `I${issue.slice(1)}s #12 and 14`, `RFC 9110 §15.5.6`];
    expect(outsideReferences('x.ts', lines.join('\n'))).toEqual([
      `x.ts:2: ${lines[1]!.trim()} (a section of a design document outside the repository)`,
      `x.ts:3: ${lines[2]} (an issue number)`,
      `x.ts:4: ${lines[3]} (an issue number)`,
    ]);
  });

  it('no source, test or document names a design-document section or an issue number', () => {
    const files = [...DIRS.flatMap((dir) => textFiles(join(ROOT, dir))), ...FILES.map((name) => join(ROOT, name))];
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => outsideReferences(relative(ROOT, file), readFileSync(file, 'utf8')));
    expect(offenders, `references a reader cannot open:\n${offenders.join('\n')}`).toEqual([]);
  });
});

describe('decision records', () => {
  const dir = join(ROOT, 'docs/decisions');
  const records = readdirSync(dir).filter((name) => name !== 'README.md');

  it('are numbered, each with its context, decision and consequences, and all in the index', () => {
    const index = readFileSync(join(dir, 'README.md'), 'utf8');
    const numbers = new Set<string>();
    for (const name of records) {
      expect(name, name).toMatch(/^\d{4}-[a-z0-9]+(-[a-z0-9]+)*\.md$/);
      numbers.add(name.slice(0, 4));
      const text = readFileSync(join(dir, name), 'utf8');
      for (const section of ['## Context', '## Decision', '## Consequences']) expect(text, `${name}: ${section}`).toContain(`\n${section}\n`);
      expect(index, `docs/decisions/README.md lists ${name}`).toContain(`(${name})`);
    }
    expect(numbers.size, 'one record per number').toBe(records.length);
  });

  it('every docs/decisions path named in the repository exists', () => {
    const files = [...DIRS.flatMap((d) => textFiles(join(ROOT, d))), ...FILES.map((name) => join(ROOT, name))];
    const missing = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/docs\/decisions(?:\/[\w.-]+\.md|\.md)/g)]
        .map((match) => match[0])
        .filter((path) => !records.includes(path.slice('docs/decisions/'.length)) && path !== 'docs/decisions/README.md')
        .map((path) => `${relative(ROOT, file)}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
