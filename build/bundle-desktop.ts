/**
 * Bundles the desktop shell with esbuild: `electron/main/main.ts` → `<outDir>/main.cjs` and
 * `electron/preload/preload.ts` → `<outDir>/preload.cjs` (CommonJS, what Electron's sandboxed preload needs).
 * `electron` and the serial port's native binding stay external (Electron provides the first; the second is loaded
 * from node_modules, which electron-builder packs). Needs no internet.
 *
 * `tsx build/bundle-desktop.ts [outDir]` (default `dist-electron`); `bundleDesktop(outDir)` for tests.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Modules left to the runtime: Electron itself and the native serial binding. */
export const DESKTOP_EXTERNALS = ['electron', 'serialport', '@serialport/*'];

/** Builds main and preload into `outDir`; resolves with the two file paths. */
export async function bundleDesktop(outDir = resolve(ROOT, 'dist-electron')): Promise<{ main: string; preload: string }> {
  const common = {
    bundle: true,
    platform: 'node' as const,
    format: 'cjs' as const,
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning' as const,
    legalComments: 'none' as const,
  };
  const main = resolve(outDir, 'main.cjs');
  const preload = resolve(outDir, 'preload.cjs');
  await build({ ...common, entryPoints: [resolve(ROOT, 'electron/main/main.ts')], outfile: main, external: DESKTOP_EXTERNALS });
  // The preload may import nothing but `electron`: everything else would be a way into the sandbox.
  await build({ ...common, entryPoints: [resolve(ROOT, 'electron/preload/preload.ts')], outfile: preload, external: ['electron'] });
  return { main, preload };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ? resolve(process.argv[2]) : undefined;
  bundleDesktop(out).then(
    (files) => console.log(`desktop bundles: ${files.main}, ${files.preload}`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
