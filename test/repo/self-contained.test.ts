/**
 * The clone tests itself: no test, support file or source reads data from outside the repository (the team's
 * `../shared` folder is not beside a plain `git clone`). Test data lives in test/fixtures with a SOURCE.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'dist', 'dist-electron', 'data', 'test-results', 'fixtures']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|js|mjs|cjs)$/.test(name)) out.push(path);
  }
  return out;
}

describe('a plain clone tests itself', () => {
  it('no code or test reads ../shared', () => {
    const offenders = ['core', 'sync-server', 'renderer', 'electron', 'scripts', 'build', 'test']
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .filter((file) => !file.endsWith('self-contained.test.ts'))
      .filter((file) => /\.\.\/shared\//.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });

  it('every fixture folder names its source', () => {
    const fixtures = join(ROOT, 'test/fixtures');
    const folders = readdirSync(fixtures).filter((name) => statSync(join(fixtures, name)).isDirectory());
    expect(folders.length).toBeGreaterThan(0);
    for (const folder of folders) expect(statSync(join(fixtures, folder, 'SOURCE.md')).isFile(), folder).toBe(true);
  });
});
