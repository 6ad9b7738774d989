/**
 * One writer per table (docs/architecture.md): every INSERT, UPDATE or DELETE on a table in the sync server's code
 * sits in one place — its module (`modules/<name>/`), the kernel (audit log, outbox, ledger), the platform (tokens,
 * idempotency keys, message outboxes, migrations) or the sync protocol (quarantine). A second writer anywhere else
 * fails this test, naming the table and the files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../sync-server/src', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : files(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** `modules/orders`, `kernel`, `platform`, `sync`, `workflows`, or `app.ts`/`main.ts` (wiring). */
function ownerOf(path: string): string {
  const parts = relative(SRC, path).split(sep);
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts.length > 1 ? parts[0]! : parts[0]!;
}

describe('one writer per table', () => {
  it('each table is written from one module (or the kernel, the platform, the sync protocol) only', () => {
    const writers = new Map<string, Set<string>>();
    const places = new Map<string, Set<string>>();
    for (const file of files(SRC)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_]+)/g)) {
        const table = match[1]!;
        writers.set(table, (writers.get(table) ?? new Set()).add(ownerOf(file)));
        places.set(table, (places.get(table) ?? new Set()).add(relative(SRC, file)));
      }
    }
    expect(writers.size).toBeGreaterThan(20); // the scan finds the server's tables
    const shared = [...writers].filter(([, owners]) => owners.size > 1).map(([table]) => `${table}: ${[...places.get(table)!].sort().join(', ')}`);
    expect(shared).toEqual([]);
    // Workflows and the wiring own no table: they call the modules that do.
    const misplaced = [...writers].filter(([, owners]) => [...owners].some((o) => o === 'workflows' || o.endsWith('.ts'))).map(([table]) => table);
    expect(misplaced).toEqual([]);
    expect([...writers.get('orders')!]).toEqual(['modules/orders']);
  });
});
