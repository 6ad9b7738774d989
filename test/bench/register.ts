/**
 * Register bench: the built register in Debian's Chromium, driven in ONE run
 * against the demo catalog (14 items: the same-work baseline) and then a large catalog (REGISTER_ITEMS, default
 * 50,000 generated items, test/support/large-catalog.ts) imported the way a merchant imports one: a Shopify product CSV
 * posted to the import job API and polled until done (its duration is a line of the table), each on a fresh browser
 * context (a new register, an empty local database). The generated GTINs carry a GS1 check digit (the importer keeps
 * no other barcode) and are the codes the barcode measurements scan.
 *
 * Measured in the page with `performance.now()`, for each interaction two figures:
 * - **input → painted**: from the action until the frame that shows the change has been rendered. The change is
 *   noticed the moment it reaches the DOM (a MutationObserver: `done()` checked after every mutation), then the next
 *   animation frame's callback marks the frame's start and a message posted from it runs once that frame's style,
 *   layout and paint are done (the rAF-then-message way of timing a paint). This is the figure the aims are read on:
 *   what the cashier waits for (docs/decisions/0082-register-interactions-within-a-frame.md).
 * - **work** (a diagnostic): the same less the wait for the display's next frame (vsync) once the change was in the
 *   DOM, counted at most one frame interval (16.7 ms at 60 Hz). It is a lower bound: it also subtracts any main-thread
 *   work that ran before that frame, so an interaction whose change waits behind other work looks cheaper than it is.
 *   (Until 2026-11 the bench waited two frames after the change instead, counting an extra frame interval of idle
 *   time in every figure; until 2026-11-28 the aims were read on work.)
 * The interactions:
 * - tap → cart painted (a tile's click until the cart's total changed);
 * - barcode → cart painted (Enter in the scan box holding a GTIN);
 * - search keystroke → results painted (one character typed into the scan box, until the grid shows that query:
 *   `.catalog-panel[data-query]`);
 * - charge → tender dialog; cash complete (exact) → stored → receipt painted, which the register shows only once the
 *   sale is stored (docs/decisions/0015-receipt-after-stored.md), and within it complete → stored (the write alone, the
 *   app's own `register:sale-stored` measure); new sale → ready (scan box and tiles back);
 * - reload → usable (navigation start until a tile is on screen, the page's own clock), then until the stored items
 *   were read and indexed (page marks);
 * - first catalog download (page opened until every item is in the local database; wall clock);
 * - JS heap used after a forced GC (CDP), after the interactions.
 * Medians and p95 are printed beside the aims, on input → painted: p95 ≤ 16.7 ms at the large catalog and ≤ 2× the
 * demo figure (cash complete, which holds the sale's write: p95 ≤ 50 ms); reload ≤ 2× demo; download < 30 s; heap
 * < 150 MB. No assertion: figures only (tests never assert wall-clock time).
 *
 * Where the time went: after each interaction's measured repetitions, a separate pass of TRACE_ROUNDS more (search: one
 * more of every keystroke; a sale's three interactions in one pass) runs under a Chromium trace (CDP `Tracing`, the
 * DevTools timeline categories, V8, IndexedDB) — tracing slows the page, so the figures are never taken from it. Each
 * traced repetition marks its window with `console.timeStamp` (a `TimeStamp` event in trace time on the renderer
 * main thread); for the traced repetitions at or above their p95, that thread's time inside the window is summed by
 * phase (script, style, layout, paint, IndexedDB, other; self time, so nested events count once: test/bench/
 * trace-phases.ts) and averaged. Only the large catalog is traced (the aims are its); under an interaction whose aim
 * is missed the table prints that line.
 *
 * `npm run bench:register` (or `BENCH_ONLY=register npm run bench`). REGISTER_ITEMS sets the large catalog's size;
 * REGISTER_ROUNDS the repetitions per interaction (default 30, sales too — a p95 of 10 samples is their maximum; search:
 * every keystroke of SEARCH_QUERIES; reloads: 3).
 */
import type { CDPSession, Page } from 'playwright-core';
import { RegisterPage } from '../e2e/pages/register-page.ts';
import { launchChromium, requireBuiltRegister } from '../e2e/support/browser.ts';
import { CATALOG_IMPORT_JOB_MAX_BYTES, type ImportJob } from '../../core/index.ts';
import { bulkValidGtin, largeCatalogCsv } from '../support/large-catalog.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fmt, median, percentile, printTable } from './report.ts';
import { benchWindows, tailPhases, type PhaseTimes, type TraceEvent } from './trace-phases.ts';

/** The register's measure of its last sale's write (renderer/src/register/sale/ring-up.ts `SALE_STORED_MEASURE`). */
const SALE_STORED_MEASURE = 'register:sale-stored';

/** One measured repetition of an interaction, ms (see the file's comment). */
export interface InteractionSample {
  /** From the action until the frame showing the change was rendered. */
  painted: number;
  /** `painted` less the wait for the display's next frame once the change was ready (at most one frame interval). */
  work: number;
}

/** What the page measures: ms until painted, ms the ready change waited for its frame. */
type RawSample = { painted: number; wait: number };

/** The work of a page measurement: the wait for the frame counted at most one frame interval (see the file's comment). */
function toSample({ painted, wait }: RawSample): InteractionSample {
  return { painted, work: painted - Math.min(wait, FRAME_MS) };
}

/** Display frame interval at 60 Hz, ms: the longest a ready change waits for the next vsync on an idle main thread. */
export const FRAME_MS = 1000 / 60;

/** The aim of cash complete → stored → receipt painted, p95 ms (the sale's write is inside it). */
const COMPLETE_AIM_MS = 50;

/** Measured repetitions of each interaction, and the load figures. */
export interface RegisterFigures {
  items: number;
  tap: InteractionSample[];
  barcode: InteractionSample[];
  search: InteractionSample[];
  charge: InteractionSample[];
  /** Cash complete until the receipt of the stored sale is painted (the register shows none before the write). */
  complete: InteractionSample[];
  /** ms from the complete until the sale's write resolved (the app's `register:sale-stored` measure; ring-up.ts). */
  stored: number[];
  newSale: InteractionSample[];
  /** ms from navigation start until a tile is on screen. */
  reload: number[];
  /**
   * At each reload, ms from navigation start until the catalog's stored items were read / indexed (page marks; the
   * grid shows the remembered first tiles before, barcodes wait for the index).
   */
  reloadDocsRead: number[];
  reloadIndexed: number[];
  /** Seconds from opening the page until every item is in the register's local database. */
  downloadSeconds: number;
  heapMb: number;
  /** Where the slowest traced repetitions' time went, per interaction (a separate traced pass, the large catalog only). */
  phases: Partial<Record<InteractionKey, PhaseTimes>>;
  /** Seconds the catalog's import took (the large catalog only: imported through the import job API). */
  importSeconds?: number;
}

/** The interactions measured with {@link InteractionSample}s. */
type InteractionKey = 'tap' | 'barcode' | 'search' | 'charge' | 'complete' | 'newSale';

/** Repetitions of each interaction in the traced pass (a search pass types every keystroke of SEARCH_QUERIES). */
const TRACE_ROUNDS = 10;

/** The trace's categories: the DevTools timeline (tasks, script, style, layout, paint, time stamps), V8, IndexedDB. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'IndexedDB'];

/**
 * Runs `run` (repetitions measured with `__bench.traced` set, so each marks its window) under a Chromium trace;
 * returns its result and the trace's events.
 */
async function traced<T>(cdp: CDPSession, page: Page, run: () => Promise<T>): Promise<{ result: T; events: TraceEvent[] }> {
  const events: TraceEvent[] = [];
  const collect = (e: { value: object[] }) => {
    for (const v of e.value) events.push(v as TraceEvent);
  };
  cdp.on('Tracing.dataCollected', collect);
  const setTraced = (on: boolean) => page.evaluate((v) => ((window as unknown as { __bench: { traced: boolean } }).__bench.traced = v), on);
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: 'ReportEvents' });
  try {
    await setTraced(true);
    const result = await run();
    await setTraced(false);
    return { result, events };
  } finally {
    const complete = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
    await cdp.send('Tracing.end');
    await complete;
    cdp.off('Tracing.dataCollected', collect);
  }
}

/**
 * Where the time of the traced repetitions at or above their p95 (input → painted) went; `every`/`offset` pick this
 * interaction's windows when a pass measures several in turn (a sale: charge, complete, new sale).
 */
function phasesOf(events: TraceEvent[], samples: readonly InteractionSample[], every = 1, offset = 0): PhaseTimes | undefined {
  const windows = benchWindows(events).filter((_, i) => i % every === offset);
  const painted = samples.map((x) => x.painted);
  return tailPhases(events, windows, painted, percentile(painted, 95));
}

/**
 * In-page helpers: `__bench.measure(action, done)` → `{ painted, wait }`: ms from `action()` until the frame showing
 * the change was rendered, and ms the ready change waited for that frame to start. With `__bench.traced` set, each
 * measure marks its window in the trace (`console.timeStamp`, test/bench/trace-phases.ts).
 */
const PAGE_HELPERS = `
window.__bench = {
  traced: false,
  frame: () => new Promise((r) => requestAnimationFrame(() => r())),
  async measure(action, done) {
    let ready = 0;
    const check = () => { if (!ready && done()) ready = performance.now(); };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    if (this.traced) console.timeStamp('bench:start');
    const t0 = performance.now();
    action();
    // The action's microtasks first (React commits a click's or a keystroke's update in one).
    await Promise.resolve();
    check();
    while (!ready) { await this.frame(); check(); }
    observer.disconnect();
    // The frame that shows the change: its rAF callback marks its start; a message posted there runs once the frame's
    // rendering (style, layout, paint) is done.
    return new Promise((resolve) => requestAnimationFrame(() => {
      const frameStart = performance.now();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const painted = performance.now() - t0;
        if (this.traced) console.timeStamp('bench:end');
        resolve({ painted, wait: Math.max(0, frameStart - ready) });
      };
      channel.port2.postMessage(0);
    }));
  },
  total: () => document.querySelector('[data-testid="cart-total"]')?.textContent ?? '',
  setScan(value) {
    const input = document.querySelector('[data-testid="scan-input"]');
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  },
};`;

async function installHelpers(page: Page): Promise<void> {
  await page.evaluate(PAGE_HELPERS);
}

const settle = (page: Page) => page.evaluate(() => new Promise((r) => setTimeout(r, 50)));

/** Taps `rounds` visible tiles without choices in turn; the cart is cleared every 10 taps. */
async function measureTaps(page: Page, rounds: number): Promise<InteractionSample[]> {
  const out: InteractionSample[] = [];
  for (let i = 0; i < rounds; i += 1) {
    out.push(
      toSample(
        await page.evaluate(async (k) => {
          const tiles = [...document.querySelectorAll<HTMLButtonElement>('.item-tile:not(.item-has-options)')];
          const tile = tiles[k % tiles.length]!;
          const b = (window as unknown as { __bench: { measure: (a: () => void, d: () => boolean) => Promise<RawSample>; total: () => string } })
            .__bench;
          const before = b.total();
          return b.measure(
            () => tile.click(),
            () => b.total() !== before,
          );
        }, i),
      ),
    );
    if (i % 10 === 9) await clearCart(page);
    await settle(page);
  }
  await clearCart(page);
  return out;
}

async function clearCart(page: Page): Promise<void> {
  const clear = page.locator('[data-testid="cart"] .cart-header button');
  if ((await clear.count()) > 0) await clear.click();
}

/** Scans `codes` in turn (value set as a scanner types it, then Enter measured). */
async function measureBarcodes(page: Page, codes: readonly string[]): Promise<InteractionSample[]> {
  const out: InteractionSample[] = [];
  for (const [i, code] of codes.entries()) {
    out.push(
      toSample(
        await page.evaluate(async (c) => {
          const b = (
            window as unknown as {
              __bench: {
                measure: (a: () => void, d: () => boolean) => Promise<RawSample>;
                total: () => string;
                setScan: (v: string) => void;
                frame: () => Promise<void>;
              };
            }
          ).__bench;
          b.setScan(c);
          await b.frame();
          const before = b.total();
          const input = document.querySelector('[data-testid="scan-input"]')!;
          return b.measure(
            () => input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })),
            () => b.total() !== before,
          );
        }, code),
      ),
    );
    if (i % 10 === 9) await clearCart(page);
    await settle(page);
  }
  await clearCart(page);
  return out;
}

/** Types each query one character at a time, measuring every keystroke; the box is emptied between queries. */
async function measureSearch(page: Page, queries: readonly string[], rounds: number): Promise<InteractionSample[]> {
  const out: InteractionSample[] = [];
  while (out.length < rounds) {
    for (const query of queries) {
      for (let n = 1; n <= query.length && out.length < rounds; n += 1) {
        out.push(
          toSample(
            await page.evaluate(
              async (text) => {
                const b = (
                  window as unknown as { __bench: { measure: (a: () => void, d: () => boolean) => Promise<RawSample>; setScan: (v: string) => void } }
                ).__bench;
                // Results painted: the grid shows this query (the register renders the grid one render behind the box).
                // (No named function in here: tsx would wrap it in a helper the page does not have.)
                return b.measure(
                  () => b.setScan(text),
                  () => (document.querySelector('.catalog-panel')?.getAttribute('data-query') ?? text) === text,
                );
              },
              query.slice(0, n),
            ),
          ),
        );
        await settle(page);
      }
      await page.evaluate(() => (window as unknown as { __bench: { setScan: (v: string) => void } }).__bench.setScan(''));
      await settle(page);
    }
  }
  return out;
}

/** `rounds` cash sales: tap a tile, charge (measured), exact + complete (measured), new sale (measured). */
async function measureSales(
  page: Page,
  rounds: number,
): Promise<{ charge: InteractionSample[]; complete: InteractionSample[]; stored: number[]; newSale: InteractionSample[] }> {
  const charge: InteractionSample[] = [];
  const complete: InteractionSample[] = [];
  const stored: number[] = [];
  const newSale: InteractionSample[] = [];
  type B = { measure: (a: () => void, d: () => boolean) => Promise<RawSample> };
  for (let i = 0; i < rounds; i += 1) {
    await page.locator('.item-tile:not(.item-has-options)').first().click();
    await page.getByTestId('cart-line').first().waitFor();
    charge.push(
      toSample(
        await page.evaluate(() => {
          const b = (window as unknown as { __bench: B }).__bench;
          return b.measure(
            () => document.querySelector<HTMLButtonElement>('[data-testid="charge"]')!.click(),
            () => document.querySelector('[role="dialog"]') !== null,
          );
        }),
      ),
    );
    await page
      .getByRole('dialog', { name: 'Cash payment' })
      .getByRole('button', { name: /^Exact / })
      .click();
    await settle(page);
    // Until the receipt of the stored sale is painted (a receipt marked `aria-busy` — the draft an older register
    // painted before its write — does not count); the write itself, from the app's own measure.
    complete.push(
      toSample(
        await page.evaluate(() => {
          const b = (window as unknown as { __bench: B }).__bench;
          return b.measure(
            () => document.querySelector<HTMLButtonElement>('[data-testid="complete-sale"]')!.click(),
            () => document.querySelector('[data-testid="receipt"]:not([aria-busy])') !== null,
          );
        }),
      ),
    );
    stored.push(await page.evaluate((name) => performance.getEntriesByName(name, 'measure').at(-1)?.duration ?? Number.NaN, SALE_STORED_MEASURE));
    await settle(page);
    newSale.push(
      toSample(
        await page.evaluate(() => {
          const b = (window as unknown as { __bench: B }).__bench;
          return b.measure(
            () => document.querySelector<HTMLButtonElement>('[data-testid="new-sale"]')!.click(),
            // The register stays mounted under the receipt: ready once the receipt is gone.
            () =>
              document.querySelector('[data-testid="receipt"]') === null &&
              document.querySelector('[data-testid="scan-input"]') !== null &&
              document.querySelector('.item-tile') !== null,
          );
        }),
      ),
    );
    await settle(page);
  }
  return { charge, complete, stored, newSale };
}

/** Reloads `rounds` times: ms from navigation start until a tile is on screen (the page's own clock). */
async function measureReloads(page: Page, rounds: number, marks: { docs: number; indexed: number }[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    await page.reload({ waitUntil: 'commit' });
    // The predicate notes the page's clock the first time it holds (no round trip counted).
    const usableAt = await page.waitForFunction(
      () =>
        document.querySelector('.item-tile') !== null && document.querySelector('[data-testid="scan-input"]') !== null ? performance.now() : false,
      undefined,
      { polling: 'raf', timeout: 120_000 },
    );
    out.push((await usableAt.jsonValue()) as number);
    // The grid shows the remembered first tiles before the stored items are read: the read's marks come later.
    await page.waitForFunction(() => performance.getEntriesByName('register:catalog-indexed').length > 0, undefined, {
      polling: 50,
      timeout: 120_000,
    });
    marks.push(
      await page.evaluate(() => ({
        docs: performance.getEntriesByName('register:catalog-docs')[0]?.startTime ?? Number.NaN,
        indexed: performance.getEntriesByName('register:catalog-indexed')[0]?.startTime ?? Number.NaN,
      })),
    );
    await installHelpers(page);
  }
  return out;
}

async function heapMb(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize / 1_048_576;
}

/** One register on a fresh browser context of `browser`, measured against a server holding `items` items; `trace`: also the traced passes. */
async function measureRegister(
  browser: Awaited<ReturnType<typeof launchChromium>>,
  server: { baseUrl: string; pin: string },
  items: number,
  codes: readonly string[],
  queries: readonly string[],
  rounds: number,
  trace: boolean,
): Promise<RegisterFigures> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err));
    const cdp = await context.newCDPSession(page);
    const started = performance.now();
    await page.goto(server.baseUrl);
    const register = new RegisterPage(page);
    await register.signInIfAsked(server.pin);
    await page.waitForFunction((n) => document.querySelector('section.catalog')?.getAttribute('data-item-count') === String(n), items, {
      polling: 100,
      timeout: 600_000,
    });
    const downloadSeconds = (performance.now() - started) / 1000;
    await register.waitForCatalog();
    await installHelpers(page);
    await settle(page);

    // Each interaction's measured repetitions, then a separate traced pass of a few (tracing slows the page).
    const phases: RegisterFigures['phases'] = {};
    const tap = await measureTaps(page, rounds);
    if (trace) phases.tap = await traced(cdp, page, () => measureTaps(page, TRACE_ROUNDS)).then((t) => phasesOf(t.events, t.result));
    const codesOf = (n: number) => Array.from({ length: n }, (_, i) => codes[i % codes.length]!);
    const barcode = await measureBarcodes(page, codesOf(rounds));
    if (trace) phases.barcode = await traced(cdp, page, () => measureBarcodes(page, codesOf(TRACE_ROUNDS))).then((t) => phasesOf(t.events, t.result));
    const keystrokes = queries.reduce((n, q) => n + q.length, 0);
    const search = await measureSearch(page, queries, keystrokes);
    if (trace) phases.search = await traced(cdp, page, () => measureSearch(page, queries, keystrokes)).then((t) => phasesOf(t.events, t.result));
    const sales = await measureSales(page, rounds);
    if (trace) {
      const salesTrace = await traced(cdp, page, () => measureSales(page, TRACE_ROUNDS));
      phases.charge = phasesOf(salesTrace.events, salesTrace.result.charge, 3, 0);
      phases.complete = phasesOf(salesTrace.events, salesTrace.result.complete, 3, 1);
      phases.newSale = phasesOf(salesTrace.events, salesTrace.result.newSale, 3, 2);
    }
    const marks: { docs: number; indexed: number }[] = [];
    const reload = await measureReloads(page, 3, marks);
    return {
      items,
      tap,
      barcode,
      search,
      ...sales,
      reload,
      reloadDocsRead: marks.map((m) => m.docs),
      reloadIndexed: marks.map((m) => m.indexed),
      downloadSeconds,
      heapMb: await heapMb(cdp),
      phases,
    };
  } finally {
    await context.close();
  }
}

/**
 * What the search keystrokes type, the same at both catalog sizes (so the figures differ by the catalog only): demo
 * names, and the large catalog's names, words and numbers ("bulk 4321": 50,000 matches, then 11,111, 1,111…; "paint",
 * "glue": one item in 20; "tape 12": then its numbers). 71 keystrokes, each query typed once (a p95 of 30 samples is their
 * second worst).
 */
const SEARCH_QUERIES = ['latte', 'bulk 4321', 'paint', 'snickers', 'cola', 'croissant', 'tape 12', 'water', 'glue', 'haircut', 'aisle 07'];

/** Rows per import job: a file well under an import job's limit (CATALOG_IMPORT_JOB_MAX_BYTES; ~100 bytes a row). */
const IMPORT_ROWS_PER_JOB = 100_000;

/**
 * Imports generated items 1..`count` (test/support/large-catalog.ts `largeCatalogCsv`) as a merchant does: a Shopify
 * product CSV posted to the import job API (`POST /api/pos/catalog/import-jobs`, one job per {@link IMPORT_ROWS_PER_JOB}
 * rows, in turn), each job polled until done. Returns the seconds it took, from the first post until the last job ended.
 * @throws Error when a job is refused, fails, rejects a row, or an item lost its barcode.
 */
async function importLargeCatalog(server: TestServer, count: number): Promise<number> {
  const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
  const t0 = performance.now();
  for (let from = 1; from <= count; from += IMPORT_ROWS_PER_JOB) {
    const rows = Math.min(IMPORT_ROWS_PER_JOB, count - from + 1);
    const csv = largeCatalogCsv(from, rows);
    if (Buffer.byteLength(csv) > CATALOG_IMPORT_JOB_MAX_BYTES) throw new Error(`an import file of ${rows} rows passes the job limit`);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import-jobs',
      headers: { ...staff, 'content-type': 'text/csv' },
      payload: csv,
    });
    if (res.statusCode !== 202) throw new Error(`import-jobs answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    let job = res.json<ImportJob>();
    while (job.status === 'running' || job.status === 'cancelling') {
      await new Promise((r) => setTimeout(r, 200));
      job = (await server.app.inject({ method: 'GET', url: `/api/pos/catalog/import-jobs/${job.id}`, headers: staff })).json<ImportJob>();
    }
    if (job.status !== 'done' || job.rowsDone !== rows || job.rejectedRows !== 0)
      throw new Error(`import ended ${job.status} with ${job.rowsDone}/${rows} rows, ${job.rejectedRows} rejected: ${job.error}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  // The barcode measurements scan these codes: every imported item must have kept its GTIN.
  const { rows } = await server.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM catalog_items WHERE merchant_id = $1 AND data->'variations'->0->>'sku' LIKE 'BULK-%' AND data->'variations'->0->>'gtin' LIKE '2%'`,
    [server.credentials.merchantId],
  );
  if (Number(rows[0]?.n) !== count) throw new Error(`${rows[0]?.n} of ${count} imported items have their barcode`);
  return seconds;
}

/**
 * Runs the register bench: the demo catalog first, then `largeItems` more items imported into the same server.
 * @throws Error when the register is not built or Chromium is missing.
 */
export async function benchRegister(options: { largeItems: number; rounds: number }): Promise<RegisterFigures[]> {
  requireBuiltRegister();
  const server = await startTestServer({ listen: true });
  const browser = await launchChromium();
  try {
    const target = { baseUrl: server.baseUrl.replace(/\/$/, ''), pin: server.credentials.ownerPin };
    const demoCodes = server.catalog.items.flatMap((i) =>
      i.modifierLists.length === 0 ? i.variations.flatMap((v) => (v.gtin ? [v.gtin] : [])) : [],
    );
    const demoItems = server.catalog.items.length;
    const demo = await measureRegister(browser, target, demoItems, demoCodes, SEARCH_QUERIES, options.rounds, false);
    const importSeconds = await importLargeCatalog(server, options.largeItems);
    const codes = Array.from({ length: 50 }, (_, i) => bulkValidGtin(1 + ((i * 7919) % options.largeItems)));
    const large = await measureRegister(browser, target, demoItems + options.largeItems, codes, SEARCH_QUERIES, options.rounds, true);
    return [demo, { ...large, importSeconds }];
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Prints the figures: median / p95 per catalog, the large catalog's ratio to the demo, and the aim. */
export function printRegisterBench([demo, large]: RegisterFigures[]): void {
  if (!demo || !large) return;
  const ms = (v: number) => fmt(v, 1);
  const pair = (values: number[]) => `${ms(median(values))} / ${ms(percentile(values, 95))}`;
  const interactions = [
    ['tap → cart painted', 'tap'],
    ['barcode → cart painted', 'barcode'],
    ['search keystroke → results painted', 'search'],
    ['charge → tender dialog', 'charge'],
    ['cash complete → stored → receipt painted', 'complete'],
    ['new sale → ready', 'newSale'],
  ] as const;
  const phaseLine = (p: PhaseTimes | undefined) =>
    p
      ? `script ${ms(p.script)} · style ${ms(p.style)} · layout ${ms(p.layout)} · paint ${ms(p.paint)} · IndexedDB ${ms(p.indexedDb)} · other ${ms(p.other)}`
      : '—';
  const rows = interactions.flatMap(([label, key]) => {
    const work = (f: RegisterFigures) => f[key].map((s) => s.work);
    const painted = (f: RegisterFigures) => f[key].map((s) => s.painted);
    const p95 = (f: RegisterFigures) => percentile(painted(f), 95);
    const ratio = p95(large) / p95(demo);
    // Cash complete includes the sale's write (the receipt shows only once it is stored): its own budget.
    const aimMs = key === 'complete' ? COMPLETE_AIM_MS : FRAME_MS;
    const met = key === 'complete' ? p95(large) <= aimMs : p95(large) <= aimMs && ratio <= 2;
    const out: { label: string; values: string[]; aim: string }[] = [
      {
        label: `${label}: input → painted (ms, median / p95)`,
        values: [pair(painted(demo)), pair(painted(large)), `${fmt(ratio, 2)}×`],
        aim: `${key === 'complete' ? 'p95 ≤ 50 ms' : 'p95 ≤ 16.7 ms and ≤ 2× demo'}${met ? ' ✓' : ' ✗'}`,
      },
    ];
    // The aim is the large catalog's: where its slowest traced repetitions' time went (in the last column, which
    // widens no other).
    if (!met) out.push({ label: '  where the p95 went (ms, large catalog)', values: ['', '', ''], aim: phaseLine(large.phases[key]) });
    out.push({
      label: '  work: less the vsync wait (a lower bound)',
      values: [pair(work(demo)), pair(work(large)), `${fmt(percentile(work(large), 95) / percentile(work(demo), 95), 2)}×`],
      aim: '',
    });
    if (key === 'complete') {
      // The write alone, inside "cash complete → receipt": the sale, its journal transaction and its shift stored.
      out.push({
        label: '  of which complete → stored (the write; ms, median / p95)',
        values: [pair(demo.stored), pair(large.stored), `${fmt(percentile(large.stored, 95) / percentile(demo.stored, 95), 2)}×`],
        aim: '',
      });
    }
    return out;
  });
  rows.push({
    label: 'large catalog import, Shopify CSV as import jobs (s)',
    values: ['', fmt(large.importSeconds ?? Number.NaN, 1), ''],
    aim: '',
  });
  const reloadRatio = percentile(large.reload, 95) / percentile(demo.reload, 95);
  rows.push({
    label: 'reload → usable (ms, median / p95)',
    values: [pair(demo.reload), pair(large.reload), `${fmt(reloadRatio, 2)}×`],
    aim: `≤ 2× demo${reloadRatio <= 2 ? ' ✓' : ' ✗'}`,
  });
  rows.push({
    label: '  then: stored items read (ms, median)',
    values: [ms(median(demo.reloadDocsRead)), ms(median(large.reloadDocsRead)), ''],
    aim: '',
  });
  rows.push({
    label: '  then: indexed, barcodes ready (ms, median)',
    values: [ms(median(demo.reloadIndexed)), ms(median(large.reloadIndexed)), ''],
    aim: '',
  });
  rows.push({
    label: 'first catalog download (s)',
    values: [fmt(demo.downloadSeconds, 1), fmt(large.downloadSeconds, 1), ''],
    aim: `< 30 s${large.downloadSeconds < 30 ? ' ✓' : ' ✗'}`,
  });
  rows.push({
    label: 'JS heap after GC (MB)',
    values: [fmt(demo.heapMb, 1), fmt(large.heapMb, 1), ''],
    aim: `< 150 MB${large.heapMb < 150 ? ' ✓' : ' ✗'}`,
  });
  printTable(
    `Register — Chromium, demo catalog (${fmt(demo.items)} items, the baseline) vs ${fmt(large.items)} items`,
    [`${fmt(demo.items)} items`, `${fmt(large.items)} items`, 'p95 ratio'],
    rows,
  );
}
