/**
 * `npm run bench`: throughput figures, each printed beside a machine-relative baseline measured in the same run
 * (tests never assert wall-clock time). PGlite always; PostgreSQL too when BENCH_DATABASE_URL (or TEST_DATABASE_URL)
 * is set. SALES overrides the number of offline sales synced (default 5 000).
 */
import { databaseTargets } from '../support/databases.ts';
import { benchImages } from './images.ts';
import { printOrderBench } from './orders.ts';
import { printSyncBench } from './sync.ts';

async function main(): Promise<void> {
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const sales = Number(process.env.SALES ?? 5_000);
  console.log(`Register benchmark — ${new Date().toISOString()}, node ${process.version}\n`);
  for (const target of databaseTargets()) await printSyncBench(target, sales);
  for (const target of databaseTargets()) await printOrderBench(target);
  await benchImages();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
