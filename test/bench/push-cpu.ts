/**
 * CPU per replication push, for work on the push's cost (docs/decisions/0073-push-rate-on-postgresql.md): the bench
 * server (test/bench/server.ts) on a fresh database, SALES bench sales (test/bench/sales.ts) pushed as the register
 * pushes them — 50 orders a request — one request at a time through `app.inject`, so nothing else runs in this
 * process meanwhile. Per push it prints the Node CPU time (`process.cpuUsage` around the request), the CPU time of
 * the PostgreSQL backends of the run's database (utime + stime from /proc, 10 ms ticks), the wall time and the
 * statements by first keyword (the bench server's counter). CPU time moves less than wall time on a shared machine,
 * but still moves: compare medians of several rounds, and leave out the first (the JIT is still compiling).
 *
 *     BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres SALES=2000 ROUNDS=5 npx tsx test/bench/push-cpu.ts
 *
 * Without BENCH_DATABASE_URL it runs on PGlite (no backend CPU then: it runs in this process). Options: LOG_SQL=1
 * prints the statements of the fourth push with their parameter sizes; QUERY_COST=1 the Node CPU spent inside
 * node-postgres' `query` (building and sending) per statement text; PROFILE=<file> writes a V8 CPU profile of the pushes.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';
import { median } from './report.ts';
import { benchSales } from './sales.ts';
import { startBenchServer } from './server.ts';

/** CPU ms of the PostgreSQL processes serving `dbName` (their command line names the database). */
function backendCpuMs(dbName: string): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.startsWith('postgres:') || !cmd.includes(dbName)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10;
}

/** Node CPU ms spent inside node-postgres' `Client.query` (building and sending a statement), by statement text. */
const queryCost = new Map<string, number>();
if (process.env.QUERY_COST) {
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text: string };
    const key = (typeof config === 'string' ? config : config.text).replace(/\s+/g, ' ').slice(0, 70);
    const before = process.cpuUsage();
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    const used = process.cpuUsage(before);
    queryCost.set(key, (queryCost.get(key) ?? 0) + (used.user + used.system) / 1000);
    return result;
  } as typeof original;
}

const size = (v: unknown): number =>
  typeof v === 'string' ? v.length : Array.isArray(v) ? v.reduce((a: number, x) => a + size(x) + 1, 0) : String(v).length;
const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').slice(0, 110);

async function main(): Promise<void> {
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const sales = Number(process.env.SALES ?? 1000);
  const rounds = Number(process.env.ROUNDS ?? 3);
  const targets = databaseTargets();
  const target = targets.at(-1)!;
  const perRound: { node: number; backend: number; wall: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const server = await startBenchServer(target);
    try {
      const dbName = target.name === 'postgres' ? (await server.rawDb.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d : null;
      const paired = await enrollRegister({ app: server.app }, server.staffToken);
      const all = benchSales({
        register: { registerId: paired.registerId, registerNumber: paired.registerNumber },
        sales,
        firstSaleAt: Date.now() - sales * 1000,
      });
      const bodies: string[] = [];
      for (let i = 0; i < all.length; i += 50)
        bodies.push(JSON.stringify(all.slice(i, i + 50).map((s) => ({ newDocumentState: { ...s.order, _deleted: false } }))));
      let logging = false;
      if (process.env.LOG_SQL) {
        // The server's Db is a counting wrapper over rawDb: what it sends passes through these.
        const raw = server.rawDb;
        const [query, transaction] = [raw.query.bind(raw), raw.transaction.bind(raw)];
        raw.query = ((sql: string, params?: unknown[]) => {
          if (logging) console.log(`outside: ${oneLine(sql)}`);
          return query(sql, params);
        }) as typeof raw.query;
        raw.transaction = (fn, options) => {
          if (logging) console.log(`BEGIN ${options?.lockMerchant ? '+ merchant lock' : ''}`);
          return transaction((tx) => {
            const inner = tx.query.bind(tx);
            tx.query = ((sql: string, params: unknown[] = []) => {
              if (logging) console.log(`[${params.length} params, ${params.map(size).join('/')} chars] ${oneLine(sql)}`);
              return inner(sql, params);
            }) as typeof tx.query;
            return fn(tx);
          }, options);
        };
      }
      const session = process.env.PROFILE && round === rounds ? new Session() : undefined;
      if (session) {
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      }
      server.counter.reset();
      queryCost.clear();
      let [nodeUs, backendMs, wallMs] = [0, 0, 0];
      for (const [k, payload] of bodies.entries()) {
        logging = Boolean(process.env.LOG_SQL) && k === 3;
        const backendBefore = dbName ? backendCpuMs(dbName) : 0;
        const cpuBefore = process.cpuUsage();
        const start = performance.now();
        const res = await server.app.inject({
          method: 'POST',
          url: '/api/sync/orders/push',
          headers: { authorization: `Bearer ${paired.registerToken}`, 'content-type': 'application/json' },
          payload,
        });
        wallMs += performance.now() - start;
        const cpu = process.cpuUsage(cpuBefore);
        nodeUs += cpu.user + cpu.system;
        backendMs += dbName ? backendCpuMs(dbName) - backendBefore : 0;
        if (res.statusCode !== 200 || res.body !== '[]') throw new Error(`push ${k}: ${res.statusCode} ${res.body.slice(0, 500)}`);
      }
      logging = false;
      if (session) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(process.env.PROFILE!, JSON.stringify(profile));
        session.disconnect();
      }
      const n = bodies.length;
      perRound.push({ node: nodeUs / 1000 / n, backend: backendMs / n, wall: wallMs / n });
      const kinds = [...server.counter.kindsOf('push')].map(([kind, count]) => `${kind} ${(count / n).toFixed(2)}`).join(', ');
      console.log(
        `${target.name} round ${round}: ${n} pushes of 50; per push: Node CPU ${(nodeUs / 1000 / n).toFixed(1)} ms, backend CPU ${(backendMs / n).toFixed(1)} ms, wall ${(wallMs / n).toFixed(1)} ms, statements ${(server.counter.of('push') / n).toFixed(2)} (${kinds})`,
      );
      if (process.env.QUERY_COST)
        for (const [text, ms] of [...queryCost].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${(ms / n).toFixed(3)} ms/push  ${text}`);
    } finally {
      await server.close();
    }
  }
  const warm = perRound.length > 1 ? perRound.slice(1) : perRound;
  console.log(
    `median of rounds 2…${rounds}: Node CPU ${median(warm.map((r) => r.node)).toFixed(1)} ms, backend CPU ${median(warm.map((r) => r.backend)).toFixed(1)} ms, wall ${median(warm.map((r) => r.wall)).toFixed(1)} ms per push`,
  );
}

await main();
