/**
 * `npm run bench`: how the sync and the API behave as data grows, each figure printed beside a machine-relative
 * baseline measured just before and just after it in the same run (tests never assert wall-clock time). Every
 * comparison runs baseline, figure, baseline, figure, …, baseline (test/bench/report.ts `bracketed`) and is printed as
 * the per-round ratio (or difference) of the figure to the mean of the baseline around it, as median (low–high): the
 * median over BENCH_ROUNDS rounds with its distribution-free 95 % interval (order statistics, `medianInterval`; a `*`
 * marks an interval short of 95 %, with too few rounds). Both sides of a comparison run at the same concurrency.
 * Tables:
 * - Sync (test/bench/sync.ts): statements per synced sale, the server's sync rate beside the same rows inserted raw
 *   (server rate / rows baseline per round) and beside the earlier 2-document baseline, end to end and register-local
 *   rates; the machine's 1-minute load average at start and end and its CPU count.
 * - Orders (test/bench/orders.ts): POST /api/pos/orders at 1 000 and 10 000 existing orders (seeded through
 *   `createOrder`), with p50/p95/p99 latency at concurrency 32, beside the same service call made directly at the same
 *   concurrency (API ÷ direct per round), and the server's event-loop delay p50 / p99 / max during the load.
 * - Ledger (test/bench/ledger.ts): journal transactions per second with the posting hash (tamper evidence)
 *   beside the same posting without it, batched as a push and one per transaction as the API; with hash / without and
 *   the cost (1 − that) per round.
 * - Closeout (test/bench/closeout.ts): the store closeout of a day of CLOSEOUT_SALES sales (default 10 000), seconds,
 *   beside the raw read of the same rows (closeout / raw read per round).
 * - Images (test/bench/images.ts): local image generation per aspect ratio.
 * - Routing (test/bench/routing.ts): the routing decision per payment (µs) beside a plain lookup of the first rail; what
 *   routing adds (µs) and routing / lookup per round.
 * - Tokens (test/bench/tokens.ts): authentication per request (µs) with a staff JWT and with an app token, beside the
 *   same request with no auth (TOKEN_REQUESTS per measurement, default 2 000); the verification cost per round, µs and
 *   as a multiple.
 * - Screening (test/bench/screening.ts): one sanctions screening at the full SDN list (the 2019 list as published:
 *   7,379 entries, 9,682 aliases) over the 482 labelled names, p50/p95 ms with 95 % confidence intervals, beside an
 *   exact-name hash lookup measured interleaved round by round (SCREEN_ROUNDS, default 5); recall per variant kind and
 *   false holds of ordinary names, and over the 40,000 Census first name × surname pairs (SCREEN_GRID=0 skips it);
 *   then through the API on each engine: the list's upload, SCREEN_REQUESTS (default 100) POST /api/pos/screenings
 *   p50/p95 beside GET of one stored screening.
 * - Catalog import (test/bench/catalog-import.ts): a Shopify CSV of CATALOG_IMPORT_SIZES rows (default "5000,50000")
 *   imported as a job, wall-clock rows/s over the first and the last 10 % (last / first per round), beside the same
 *   rows inserted raw (import ÷ raw per round).
 * BENCH_ROUNDS: rounds (default 6, the fewest whose min–max interval of the median covers ≥ 95 %: 1 − 2·0.5⁶ = 96.9 %).
 * PGlite always; PostgreSQL too when BENCH_DATABASE_URL is set (a superuser URL: each run creates and drops its own
 * databases).
 *
 * Sizes: SALES (offline sales synced, default 5 000), ORDER_SIZES (existing orders, default "1000,10000"),
 * ORDER_REQUESTS (requests per load run, default 500), ORDER_DIRECT (direct calls per baseline, default 200),
 * LEDGER_JTS (journal transactions per batched ledger measurement, default 2 000; a fifth of it one per transaction).
 * ROUTING_PAYMENTS (routing decisions per measurement, default 100 000).
 * - Register (test/bench/register.ts): the built register in Chromium, demo catalog vs REGISTER_ITEMS (default 50 000)
 *   items imported as a CSV import job — tap, barcode, search keystroke, charge, cash complete, new sale (input →
 *   painted, where a missed aim's p95 went), reload (median / p95 ms), the import (s), first catalog
 *   download (s), JS heap (MB); `npm run bench:register` runs this table alone. REGISTER_ROUNDS: repetitions (30).
 * BENCH_ONLY=sync,orders,ledger,closeout,images,routing,tokens,register,screening,catalog-import runs some tables only. Develop with small sizes, e.g.
 * `SALES=200 ORDER_SIZES=100,1000 ORDER_REQUESTS=200 BENCH_ROUNDS=2 npm run bench`.
 */
import { databaseTargets } from '../support/databases.ts';
import { benchCatalogImport, printCatalogImportBench, type CatalogImportBenchResult } from './catalog-import.ts';
import { benchCloseout, printCloseoutBench, type CloseoutBenchResult } from './closeout.ts';
import { benchImages } from './images.ts';
import { benchLedger, printLedgerBench, type LedgerBenchResult } from './ledger.ts';
import { benchRegister, printRegisterBench } from './register.ts';
import { benchRouting, printRoutingBench } from './routing.ts';
import { benchTokens, printTokenBench, type TokenBenchResult } from './tokens.ts';
import { benchScreening, printScreeningBench } from './screening.ts';
import { benchOrders, printOrderBench, type OrderBenchResult } from './orders.ts';
import { benchSync, printSyncBench, type SyncBenchResult } from './sync.ts';

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  // databaseTargets() reads TEST_DATABASE_URL: the bench's PostgreSQL only comes from BENCH_DATABASE_URL.
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  else delete process.env.TEST_DATABASE_URL;
  const rounds = positiveInteger('BENCH_ROUNDS', 6);
  const sales = positiveInteger('SALES', 5_000);
  const orderSizes = (process.env.ORDER_SIZES ?? '1000,10000').split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`ORDER_SIZES must be positive integers separated by commas, got "${process.env.ORDER_SIZES}"`);
    return n;
  });
  const only = new Set(
    (process.env.BENCH_ONLY ?? 'sync,orders,ledger,closeout,images,routing,tokens,register,screening,catalog-import').split(',').map((s) => s.trim()),
  );
  const targets = databaseTargets();
  console.log(`Register benchmark — ${new Date().toISOString()}, node ${process.version}, engines: ${targets.map((t) => t.name).join(', ')}`);

  if (only.has('sync')) {
    const results: SyncBenchResult[] = [];
    for (const target of targets) results.push(await benchSync(target, sales, rounds));
    printSyncBench(results);
  }
  if (only.has('orders')) {
    const results: OrderBenchResult[] = [];
    const options = { sizes: orderSizes, requests: positiveInteger('ORDER_REQUESTS', 500), direct: positiveInteger('ORDER_DIRECT', 200), rounds };
    for (const target of targets) results.push(await benchOrders(target, options));
    printOrderBench(results);
  }
  if (only.has('ledger')) {
    const results: LedgerBenchResult[] = [];
    for (const target of targets) results.push(await benchLedger(target, { count: positiveInteger('LEDGER_JTS', 2_000), rounds }));
    printLedgerBench(results);
  }
  if (only.has('closeout')) {
    const results: CloseoutBenchResult[] = [];
    for (const target of targets) results.push(await benchCloseout(target, { sales: positiveInteger('CLOSEOUT_SALES', 10_000), rounds }));
    printCloseoutBench(results);
  }
  if (only.has('routing')) {
    printRoutingBench(await benchRouting({ payments: positiveInteger('ROUTING_PAYMENTS', 100_000), rounds }));
  }
  if (only.has('tokens')) {
    const results: TokenBenchResult[] = [];
    for (const target of targets) results.push(await benchTokens(target, { requests: positiveInteger('TOKEN_REQUESTS', 2_000), rounds }));
    printTokenBench(results);
  }
  if (only.has('register')) {
    printRegisterBench(
      await benchRegister({ largeItems: positiveInteger('REGISTER_ITEMS', 50_000), rounds: positiveInteger('REGISTER_ROUNDS', 30) }),
    );
  }
  if (only.has('screening')) {
    printScreeningBench(
      await benchScreening({
        rounds: positiveInteger('SCREEN_ROUNDS', 5),
        grid: process.env.SCREEN_GRID !== '0',
        targets,
        apiRequests: positiveInteger('SCREEN_REQUESTS', 100),
      }),
    );
  }
  if (only.has('catalog-import')) {
    const sizes = (process.env.CATALOG_IMPORT_SIZES ?? '5000,50000').split(',').map((s) => {
      const n = Number(s.trim());
      if (!Number.isInteger(n) || n < 10)
        throw new Error(`CATALOG_IMPORT_SIZES must be integers ≥ 10 separated by commas, got "${process.env.CATALOG_IMPORT_SIZES}"`);
      return n;
    });
    const results: CatalogImportBenchResult[] = [];
    for (const target of targets) for (const n of sizes) results.push(await benchCatalogImport(target, n, rounds));
    printCatalogImportBench(results);
  }
  if (only.has('images')) {
    console.log('\nImages — local generator, 4 styles in turn, one at a time');
    await benchImages();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
