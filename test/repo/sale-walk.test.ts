/**
 * docs/architecture.md walks one register sale through the code, file by file. This keeps the walk true: every file
 * named exists; every function or class a step names (in backticks) is declared in that step's file, imported by it,
 * or declared in core/; the count the section states is the number of steps; and each step's file is reached from one
 * before it — one imports the other (a module's face `index.ts` counts as the files it re-exports), or the step names
 * an HTTP route (`POST /api/...`) that the earlier file calls and this file serves.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Step {
  file: string;
  text: string;
}

/** The numbered steps of the walk: `N. **`path`** — text`, continued on indented lines. */
function walkSteps(doc: string): { stated: number; steps: Step[] } {
  const start = doc.indexOf('## One register sale');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const stated = Number(/The main path of one cash sale, (\d+) files/.exec(section)?.[1]);
  const steps: Step[] = [];
  for (const line of section.split('\n')) {
    const head = /^\d+\. \*\*`([^`]+)`\*\*(.*)$/.exec(line);
    if (head) steps.push({ file: head[1]!, text: head[2]! });
    else if (steps.length > 0 && /^ {3,}\S/.test(line)) steps[steps.length - 1]!.text += ` ${line.trim()}`;
  }
  return { stated, steps };
}

/** Files `file` imports (relative imports only), with a module face expanded to the files it re-exports. */
function importsOf(file: string): Set<string> {
  const out = new Set<string>();
  const add = (target: string) => {
    out.add(target);
    if (target.endsWith('/index.ts') && existsSync(join(ROOT, target))) {
      for (const m of read(target).matchAll(/from '(\.[^']+)'/g)) out.add(normalize(join(dirname(target), m[1]!)));
    }
  };
  for (const m of read(file).matchAll(/(?:import|export)[^;]*?from '(\.[^']+)'/gs)) add(normalize(join(dirname(file), m[1]!)));
  return out;
}

/** The names `file` declares or imports. */
function namesIn(file: string): Set<string> {
  const source = read(file);
  const names = new Set<string>();
  for (const m of source.matchAll(/\b(?:function\*?|class|const|let|interface|type)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1]!);
  for (const m of source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part
        .replace(/\btype\b/, '')
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  }
  return names;
}

/** The sources of core's files (those its index re-exports). */
const coreSource = [...read('core/index.ts').matchAll(/from '\.\/([^']+)'/g)].map((m) => read(`core/${m[1]}`));
const declaredInCore = (name: string) => coreSource.some((s) => new RegExp(`\\b(?:function|class|const|type|interface)\\s+${name}\\b`).test(s));

/** `METHOD /path` routes a step names. */
const routesOf = (text: string) => [...text.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]+)`/g)].map((m) => m[2]!);

/** Whether `file` has a string naming `path`, with `${…}` (a caller's template) or `:param` (a route) standing for one segment. */
function mentionsRoute(file: string, path: string): boolean {
  for (const m of read(file).matchAll(/['`](\/api\/[^'`]*)['`]/g)) {
    const pattern = m[1]!
      .split(/(\$\{[^}]*\}|:[A-Za-z]+)/)
      .map((part) => (part.startsWith('${') || part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    if (new RegExp(`^${pattern}$`).test(path)) return true;
  }
  return false;
}

describe("the sale's walk in docs/architecture.md", () => {
  const { stated, steps } = walkSteps(read('docs/architecture.md'));

  it('lists the number of files it says, each once, each existing', () => {
    expect(steps.length).toBeGreaterThan(5);
    expect(steps.length).toBe(stated);
    expect(new Set(steps.map((s) => s.file)).size).toBe(steps.length);
    for (const step of steps) expect(existsSync(join(ROOT, step.file)), step.file).toBe(true);
    for (const step of steps) {
      for (const m of step.text.matchAll(/`((?:renderer|sync-server|core|electron)\/[^`]+\.tsx?)`/g))
        expect(existsSync(join(ROOT, m[1]!)), m[1]).toBe(true);
    }
  });

  it('credits each function it names to a file that declares or imports it', () => {
    const wrong: string[] = [];
    for (const step of steps) {
      const names = namesIn(step.file);
      for (const m of step.text.matchAll(/`([A-Za-z_$][\w$]*)`/g)) {
        const name = m[1]!;
        if (!names.has(name) && !declaredInCore(name)) wrong.push(`${step.file}: \`${name}\``);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reaches each file from one before it, by an import or the HTTP route the step names', () => {
    const unreached: string[] = [];
    steps.forEach((step, i) => {
      if (i === 0) return;
      const earlier = steps.slice(0, i);
      const byImport = earlier.some((e) => importsOf(e.file).has(step.file) || importsOf(step.file).has(e.file));
      const byRoute = routesOf(earlier[earlier.length - 1]!.text + step.text).some(
        (route) => mentionsRoute(step.file, route) && earlier.some((e) => mentionsRoute(e.file, route)),
      );
      if (!byImport && !byRoute) unreached.push(step.file);
    });
    expect(unreached).toEqual([]);
  });
});
