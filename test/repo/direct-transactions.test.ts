/**
 * Every write goes through the mutation kernel (docs/architecture.md, "kernel/"): `mutation(app, who, fn)`, or
 * `openMutation(tx, who, now)` inside a transaction someone else opened. So no code in the sync server opens a
 * transaction itself (`db.transaction(…)`) but the few places listed here, each with the number of calls it holds and
 * why it may. A new call anywhere else — or one more in a listed file — fails this test, naming the file and line; one
 * fewer asks for the list to be brought up to date.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../sync-server/src', import.meta.url));

/** The files that may open a transaction themselves, relative to sync-server/src: how many calls each, and why. */
const ALLOWED: Readonly<Record<string, { calls: number; why: string }>> = {
  'platform/db/db.ts': { calls: 1, why: "the database adapter: `transaction()` on PGlite is PGlite's own" },
  'platform/db/migrate.ts': { calls: 1, why: 'schema migrations, under their own advisory lock, before any merchant writes' },
  'kernel/mutation.ts': { calls: 1, why: 'the kernel itself: `mutation()` opens the transaction every write runs in' },
  'kernel/checkpoints.ts': { calls: 1, why: 'signs the audit head under the merchant lock, so it must append no audit entry of its own' },
  'workflows/demo-seed.ts': { calls: 1, why: 'the demo merchant is found or created inside the transaction, then openMutation takes its lock' },
  'modules/images/service.ts': { calls: 1, why: 'purgeExpiredImages: storage clean-up across merchants (SKIP LOCKED claims), no audit entry' },
  'modules/webhooks/service.ts': { calls: 3, why: "the outbox relay's delivery bookkeeping: no business row, no audit entry" },
  'modules/sms/worker.ts': { calls: 1, why: "the SMS relay's claims (SKIP LOCKED, a lease): delivery bookkeeping, no business row, no audit entry" },
  'platform/messaging/smtp.ts': {
    calls: 2,
    why: "the e-mail relay's delivery bookkeeping (claims, outcomes, suppressions): no business row, no audit entry",
  },
  'modules/apps/service.ts': { calls: 3, why: "the platform's app catalog: no merchant's books; its own trail is app_review_events" },
  'modules/app-billing/payouts.ts': {
    calls: 2,
    why: "the developer's lock comes before the platform ledger's, which postOnPlatformLedger's openMutation takes",
  },
};

/** A call of `.transaction(` (also `.transaction<T>(` and with spaces), not `journalTransaction(` or `transaction()` in prose. */
const CALL = /\.transaction\s*(?:<[^>()]*>)?\s*\(/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The `file:line` of every transaction opened in `text`. */
function transactionCalls(file: string, text: string): string[] {
  return [...text.matchAll(CALL)].map((match) => `${file}:${text.slice(0, match.index).split('\n').length}`);
}

describe('transactions are opened by the mutation kernel only', () => {
  it('finds a direct transaction with its line, in any spelling, and not a word that merely contains it', () => {
    const text = [
      'await db.transaction(async (tx) => {',
      'ctx.db.transaction((tx) => read(tx));',
      'this.db.transaction<number>(async (tx) => 1);',
      'const t = pool .transaction (fn);',
      'await m.postJournalTransaction(jt);',
      '// PGlite: its own `transaction()` holds a mutex',
      'export function transaction(fn) {}',
    ].join('\n');
    expect(transactionCalls('x.ts', text)).toEqual(['x.ts:1', 'x.ts:2', 'x.ts:3', 'x.ts:4']);
  });

  it('no file of the sync server opens a transaction unless listed, and each listed file holds the calls listed', () => {
    const found = new Map<string, string[]>();
    for (const file of files(SRC)) {
      const name = relative(SRC, file).split(sep).join('/');
      const calls = transactionCalls(name, readFileSync(file, 'utf8'));
      if (calls.length > 0) found.set(name, calls);
    }
    expect(found.get('kernel/mutation.ts'), 'the scan finds the kernel').toHaveLength(1);
    const unlisted = [...found].filter(([name]) => !(name in ALLOWED)).flatMap(([, calls]) => calls);
    expect(unlisted, `transactions opened outside the kernel (write through mutation() or openMutation()):\n${unlisted.join('\n')}`).toEqual([]);
    const counts = Object.fromEntries(Object.keys(ALLOWED).map((name) => [name, found.get(name)?.length ?? 0]));
    expect(counts, 'calls per allowed file (a new one needs its reason here; a removed one, the list updated)').toEqual(
      Object.fromEntries(Object.entries(ALLOWED).map(([name, { calls }]) => [name, calls])),
    );
    for (const [name, { why }] of Object.entries(ALLOWED)) expect(why.length, `${name} says why`).toBeGreaterThan(20);
  });
});
