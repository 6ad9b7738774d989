/**
 * The repository explains itself: no source, test or document points a reader at something they cannot open from a
 * clone — a section of a design document kept elsewhere, the service's specification (kept outside the repository), or
 * an issue number. What such a reference meant is written here instead: in the comment itself, in docs/api.md (the
 * API contract), or in a decision record (docs/decisions/README.md is the index).
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

/** The word of the service's specification, kept outside the repository; spelt in parts like every pattern here. */
const SPEC = ['sp', 'ec'].join('');

/**
 * A citation of that specification: "(${SPEC}: Events)", "(${SPEC} app rule 2)", "(${SPEC})", "${SPEC}'s four",
 * "the ${SPEC}", "${SPEC} rule 3", "${SPEC} Limits:", ${SPEC} "Events" rule 2, "service ${SPEC}ification". Not: a
 * variable of that name (`(${SPEC}: DocSpec) =>`, `${SPEC}.params`), a URL (`ulid/${SPEC}`) or an element id
 * (`url(#${SPEC})`).
 */
const SPEC_CITATION = new RegExp(
  [
    `\\(${SPEC}(?:\\)|,| app\\b| rule| "| [A-Z]|: (?!\\w+(?:\\[\\])?\\)\\s*(?::|=>)))`,
    `^\\s*(?:\\*|/\\*|//|--).*\\(${SPEC}: `,
    `\\b[Ss]${SPEC.slice(1)} "`,
    `\\b[Ss]${SPEC.slice(1)}'s\\b`,
    `\\b[Tt]he ${SPEC}\\b(?!\\.\\w|-)`,
    `\\b[Ss]${SPEC.slice(1)} (?:app )?rules?\\b`,
    `\\b[Ss]${SPEC.slice(1)} (?:Limits|Events|Authentication|Versioning)\\b`,
    `(?<![\\w/.#(-])[Ss]${SPEC.slice(1)}: `,
    `\\b(?:service|product) ${SPEC}ification\\b`,
    `\\bservice-${SPEC}\\b`,
  ].join('|'),
);

/** What may not appear, and why. Built from parts so this file does not match itself. */
const OUTSIDE_REFERENCES: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: new RegExp(['DESIGN', '(?:\\.md)?', ' ?§'].join('')), what: 'a section of a design document outside the repository' },
  { pattern: new RegExp(['\\b', '(?:DESIGN|ARCHITECTURE|STYLE)', '\\.md\\b'].join('')), what: 'a document outside the repository' },
  { pattern: new RegExp(['\\b[Ii]ssues?', ' #?\\d+'].join('')), what: 'an issue number' },
  { pattern: SPEC_CITATION, what: 'a citation of the specification kept outside the repository' },
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

  it('finds a citation of the outside specification, and not the same word as a name, a URL or an id', () => {
    const cited = [
      ` * Webhook events (${SPEC}: Events).`,
      ` * never a price (${SPEC} app rule 2).`,
      ` * Signature (${SPEC} rule 2): hex HMAC.`,
      `/** Every event kind: the ${SPEC}'s four. */`,
      `/** ${SPEC[0]!.toUpperCase()}${SPEC.slice(1)} Limits: 120 requests per minute. */`,
      `- **Versioning** — no version segment (${SPEC}) and additive changes.`,
      `as ${SPEC} rule 3 asks of receivers.`,
      ` * Text-to-Pay (${SPEC} "Pay request"): create.`,
      `(a welcome grant; the ${SPEC} is silent on how credits are bought)`,
      `Images are served for 7 days (${SPEC}, Limits).`,
      `The platform API's image endpoint (docs; ${SPEC}: *Limits*).`,
      `The service ${SPEC}ification shows no field.`,
      ` * Webhooks (${SPEC}: Events): subscriptions and the delivery worker.`,
      ` *    \`x-service-signature\` (hex HMAC-SHA256 of the raw body, ${SPEC} "Events" rule 2).`,
      ` * terminals answer with a token, brand, last four and entry mode (${SPEC} app`,
    ];
    const uncited = [
      `  const makeDoc = (${SPEC}: DocSpec): { doc: Record<string, unknown> } => {`,
      `  const parsed = ${SPEC}.params.safeParse(params);`,
      ` * A new ULID (https://github.com/ulid/${SPEC}: 48-bit ms time).`,
      `<ellipse fill="url(#${SPEC})"/>`,
      `the OpenAPI ${SPEC} of the server, a specific case; specify it; x.${SPEC}.ts`,
    ];
    const found = outsideReferences('x.ts', [...cited, ...uncited].join('\n'));
    expect(found).toEqual(
      cited.map((line, index) => `x.ts:${index + 1}: ${line.trim()} (a citation of the specification kept outside the repository)`),
    );
  });

  it('no source, test or document names a design-document section, an issue number or the outside specification', () => {
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
