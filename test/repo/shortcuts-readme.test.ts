/**
 * The README's table of register shortcuts is the register's own list (renderer/src/register/shortcuts.ts), which the
 * help overlay and the shortcut strip show: one source, so the README can no longer say a key is unused that the
 * register takes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHORTCUTS } from '../../renderer/src/register/shortcuts.ts';

describe('README shortcut table', () => {
  it('lists exactly the register’s shortcuts, in its order, with its words', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = /<!-- shortcuts:[^>]*-->\n([\s\S]*?)\n<!-- \/shortcuts -->/.exec(readme);
    expect(section, 'README.md has the <!-- shortcuts --> table').not.toBeNull();
    const rows = (section?.[1] ?? '')
      .split('\n')
      .slice(2)
      .map((row) =>
        row
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    expect(rows).toEqual(SHORTCUTS.map((s) => [s.label, s.action]));
  });
});
