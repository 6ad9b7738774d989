/**
 * The import rules (`.dependency-cruiser.cjs`, docs/architecture.md) are a check that can fail: dependency-cruiser,
 * run with the repository's own rules over test/fixtures/import-rules (a tree shaped like ours with one deliberate
 * violation per rule), reports each of them. The real tree is checked by `npm run lint:deps` inside `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/import-rules', import.meta.url));

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(cwd: string, paths: string[]): Violation[] {
  let out: string;
  try {
    out = execFileSync(`${ROOT}node_modules/.bin/depcruise`, [...paths, '--config', `${ROOT}.dependency-cruiser.cjs`, '--output-type', 'json'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

/** The names of the configuration's rules. */
const RULES = JSON.parse(
  execFileSync(
    process.execPath,
    ['-e', `console.log(JSON.stringify(require(${JSON.stringify(`${ROOT}.dependency-cruiser.cjs`)}).forbidden.map((r) => r.name)))`],
    { encoding: 'utf8' },
  ),
) as string[];

describe('import rules', () => {
  it('report every deliberate violation of the fixture tree, each under its rule', () => {
    const found = cruise(FIXTURE, ['core', 'sync-server', 'renderer']).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'core-is-pure: core/clock.ts → fs',
        'core-imports-nothing-of-ours: core/leak.ts → sync-server/src/platform/db.ts',
        'platform-knows-no-domain: sync-server/src/platform/db.ts → sync-server/src/modules/catalog/service.ts',
        'modules-do-not-import-each-other: sync-server/src/modules/orders/service.ts → sync-server/src/modules/catalog/service.ts',
        'outside-a-module-only-its-face: sync-server/src/workflows/peek.ts → sync-server/src/modules/catalog/service.ts',
        'a-module-does-not-import-its-own-face: sync-server/src/modules/catalog/price.ts → sync-server/src/modules/catalog/index.ts',
        'apps-do-not-import-each-other: renderer/src/app.ts → sync-server/src/modules/orders/service.ts',
        'renderer-screen-rooms-stay-apart: renderer/src/register/view.ts → renderer/src/backoffice/screen.ts',
        'renderer-common-below-the-rooms: renderer/src/common/header.ts → renderer/src/register/view.ts',
        'renderer-ui-and-platform-at-the-bottom: renderer/src/ui/dialog.ts → renderer/src/common/cash.ts',
        'renderer-top-imported-by-none: renderer/src/apps/apps-view.ts → renderer/src/app.ts',
        'kernel-stands-on-platform: sync-server/src/kernel/ledger.ts → sync-server/src/modules/catalog/index.ts',
        'modules-do-not-import-upward: sync-server/src/modules/orders/events.ts → sync-server/src/workflows/sell.ts',
        'workflows-below-transport: sync-server/src/workflows/push.ts → sync-server/src/sync/routes.ts',
        'sync-speaks-protocol-only: sync-server/src/sync/routes.ts → sync-server/src/app.ts',
      ]),
    );
    // Every rule of the configuration has its deliberate violation here: a rule added without one fails this test.
    const reported = new Set(found.map((v) => v.slice(0, v.indexOf(':'))));
    expect(RULES.filter((name) => !reported.has(name))).toEqual([]);
    expect(found.some((v) => v.startsWith('no-circular: sync-server/src/workflows/'))).toBe(true);
    // The clean module is never reported as the source of a violation.
    expect(found.some((v) => v.includes(': sync-server/src/modules/catalog/service.ts →'))).toBe(false);
    // A workflow importing a module through its face (index.ts) is never reported.
    expect(found.filter((v) => v.includes(': sync-server/src/workflows/sell.ts →'))).toEqual([]);
    // The allowed renderer arrows (a room → common/ → ui/) are never reported.
    expect(found.filter((v) => / renderer\/src\/(backoffice\/screen|common\/cash|ui\/format)\.ts →/.test(v))).toEqual([]);
  });

  it('are each explained in docs/architecture.md', () => {
    const doc = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');
    expect(RULES.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});
