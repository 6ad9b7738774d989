/**
 * Nothing is shown as sold that is not stored: the browser is killed (SIGKILL of its whole process group, no shutdown,
 * no flush) at a random moment between "Complete sale" and the receipt, over many runs on one profile. Every receipt
 * number ever seen on screen — recorded the moment it reaches the DOM, by a MutationObserver reporting through
 * `page.exposeFunction` — must be in the register's local database after the restart, under the order id shown with
 * it; no number is stored twice, none is skipped (the stored sequences are 1…n), however the kills fell.
 *
 * The delays are spread over 0–KILL_SPREAD_MS from the click (one per slice, at a seeded random point in it: the
 * seed is printed, so a failing run can be replayed with RECEIPT_CRASH_SEED). RECEIPT_CRASH_RUNS sets the number of
 * kills (default 14). The local database is read straight from IndexedDB (RxDB's Dexie storage), not through the app.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { requireBuiltRegister } from './support/browser.ts';
import { kill, spawnChromium } from './support/spawned-chromium.ts';
import { startServerUnderTest, type ServerUnderTest } from './support/server-under-test.ts';

const RUNS = Number(process.env.RECEIPT_CRASH_RUNS ?? '14');
/** Kills land between 0 and this many ms after the click (a sale is stored well within it). */
const KILL_SPREAD_MS = 300;
const SEED = Number(process.env.RECEIPT_CRASH_SEED ?? String(Date.now() % 1_000_000));

/** mulberry32: a small seeded PRNG, so a run's delays can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A receipt seen on screen: the order id it was shown for and its number. */
interface Shown {
  orderId: string;
  receiptNumber: string;
}

/** Installed before the register's scripts: reports every receipt number the moment it is in the DOM. */
const WATCH_RECEIPTS = `(() => {
  const seen = new Set();
  const check = () => {
    for (const receipt of document.querySelectorAll('[data-testid="receipt"]')) {
      const number = receipt.querySelector('[data-testid="receipt-number"]')?.textContent ?? '';
      const key = (receipt.getAttribute('data-order-id') ?? '') + ' ' + number;
      if (number && !seen.has(key)) { seen.add(key); window.__receiptShown(receipt.getAttribute('data-order-id') ?? '', number); }
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
})();`;

/** The register's orders as stored in IndexedDB (RxDB's Dexie storage: one database per collection, table `docs`). */
async function storedOrders(page: Page): Promise<{ id: string; receiptNumber: string }[]> {
  return page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name ?? '').filter((n) => /^rxdb-dexie-register--\d+--orders$/.test(n));
    const out: { id: string; receiptNumber: string }[] = [];
    for (const name of names) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const docs = await new Promise<{ id: string; receiptNumber: string; _deleted?: boolean | string }[]>((resolve, reject) => {
        const request = db.transaction('docs', 'readonly').objectStore('docs').getAll();
        request.onsuccess = () => resolve(request.result as { id: string; receiptNumber: string; _deleted?: boolean | string }[]);
        request.onerror = () => reject(request.error);
      });
      db.close();
      // RxDB's Dexie storage keeps `_deleted` (an index) as '0' / '1'.
      for (const doc of docs) if (doc._deleted !== true && doc._deleted !== '1') out.push({ id: doc.id, receiptNumber: doc.receiptNumber });
    }
    return out;
  });
}

describe('web register: a receipt is shown only for a stored sale, through crashes', () => {
  let server: ServerUnderTest;
  let profile: string;
  let current: ChildProcess | undefined;

  beforeAll(async () => {
    requireBuiltRegister();
    server = await startServerUnderTest();
    profile = mkdtempSync(join(tmpdir(), 'register-receipt-crash-'));
  });

  afterAll(async () => {
    if (current) await kill(current);
    await server?.close();
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  /** Starts the browser on the profile, the receipt watch installed, and opens the register. */
  async function start(shown: Shown[]): Promise<{ page: Page; register: RegisterPage }> {
    const { child, browser } = await spawnChromium(profile);
    current = child;
    const page = await browser.contexts()[0]!.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    await page.exposeFunction('__receiptShown', (orderId: string, receiptNumber: string) => void shown.push({ orderId, receiptNumber }));
    await page.addInitScript(WATCH_RECEIPTS);
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    return { page, register };
  }

  const log: string[] = [];

  /** Every receipt shown so far is stored under its order id; numbers are unique and run 1…n with none skipped. */
  async function expectEveryShownStored(page: Page, shown: readonly Shown[]): Promise<{ stored: number }> {
    const orders = await storedOrders(page);
    const byId = new Map(orders.map((o) => [o.id, o.receiptNumber]));
    const context = () =>
      `stored: ${orders.map((o) => `${o.receiptNumber} ${o.id}`).join(', ')}; shown: ${shown.map((s) => `${s.receiptNumber} ${s.orderId}`).join(', ')}; ${log.join('; ')}`;
    for (const s of shown)
      expect(byId.get(s.orderId), `receipt ${s.receiptNumber} (order ${s.orderId}) was shown — ${context()}`).toBe(s.receiptNumber);
    const numbers = orders.map((o) => o.receiptNumber);
    expect(new Set(numbers).size, `receipt numbers stored: ${numbers.join(', ')}`).toBe(numbers.length);
    const sequences = numbers.map((n) => Number(/-(\d+)$/.exec(n)?.[1])).sort((a, b) => a - b);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    return { stored: orders.length };
  }

  it(
    `every receipt ever shown is stored with its number after a kill at a random moment after Complete (${RUNS} kills)`,
    { timeout: 900_000 },
    async () => {
      console.info(`register-receipt-crash: seed ${SEED} (RECEIPT_CRASH_SEED to replay)`);
      const next = random(SEED);
      const shown: Shown[] = [];
      const outcomes = log;
      let stored = 0;
      for (let run = 0; run < RUNS; run += 1) {
        const { page, register } = await start(shown);
        // What the last kill left: every receipt seen before it is stored.
        const after = await expectEveryShownStored(page, shown);
        if (run > 0) outcomes.push(after.stored > stored ? 'stored' : 'not stored');
        stored = after.stored;
        const delay = Math.floor(((run + next()) * KILL_SPREAD_MS) / RUNS);
        await page.locator('.item-tile:not(.item-has-options)').first().click();
        const tender = await register.charge();
        await tender.exact();
        await tender.completeButton.click();
        await new Promise((resolve) => setTimeout(resolve, delay));
        await kill(current!);
        current = undefined;
        outcomes.push(`kill ${run + 1} at ${delay} ms: ${shown.length} receipts seen`);
      }
      const { page } = await start(shown);
      const final = await expectEveryShownStored(page, shown);
      outcomes.push(final.stored > stored ? 'stored' : 'not stored');
      console.info(`register-receipt-crash: ${outcomes.join('; ')}; ${final.stored} sales stored, ${shown.length} receipts shown`);
      expect(shown.length).toBeLessThanOrEqual(final.stored);
      await kill(current!);
      current = undefined;
    },
  );
});
