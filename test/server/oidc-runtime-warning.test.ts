/**
 * `oidc-provider` prints "Unsupported runtime" when it loads on any Node.js but an LTS from 22 on; the suite runs on
 * Node.js 20 too, where every file that mounted the OAuth server printed it. The server loads the library through
 * `loadOidcProvider`, which leaves out that one line and nothing else. Each case runs in a child process (a module is
 * evaluated once per process) that makes its runtime look unsupported, so the warning is provoked on any Node.js.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs `code` as an ES module with tsx, from the repository root, its runtime not an LTS: answers its stderr. */
function stderrOf(code: string): string {
  const notLts = "Object.defineProperty(process, 'release', { value: { ...process.release, lts: undefined } });";
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `${notLts}\n${code}`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stderr;
}

describe("oidc-provider's runtime warning", () => {
  it('is printed by the library loaded as it is (what the suite showed file after file)', () => {
    expect(stderrOf("await import('oidc-provider'); console.warn('loaded');")).toMatch(/oidc-provider WARNING: Unsupported runtime\.[\s\S]*loaded/);
  });

  it('is left out when the server loads it, and other warnings are still printed', () => {
    const stderr = stderrOf(
      [
        "const { loadOidcProvider } = await import('./sync-server/src/platform/auth/oidc-provider-module.ts');",
        'const { Provider } = await loadOidcProvider();',
        "if (typeof Provider !== 'function') throw new Error('no Provider');",
        "console.warn('another warning');",
      ].join('\n'),
    );
    expect(stderr).not.toContain('Unsupported runtime');
    expect(stderr).toContain('another warning');
  });
});
