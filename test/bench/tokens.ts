/**
 * Token bench: what authentication costs per request, in µs — a request through the route guard
 * (platform/auth/guard.ts) with a built-in staff JWT (ES256 signature check), with an app token (SHA-256, one
 * database lookup, one quota unit), with an installed in-platform app's launch token (the same, joined to its
 * installation's status) and with an external integration's OAuth 2.0 access token (SHA-256, one lookup of
 * `oauth_models` joined to the installation, one quota unit) — beside the same request to the same handler with no auth, measured right before
 * and after each figure in the same process (Fastify `inject`, no network). Per database engine (the app token's lookup
 * and quota are database reads/writes).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../sync-server/src/platform/context.ts';
import { guard } from '../../sync-server/src/platform/auth/guard.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { reissueDemoAppToken } from '../../sync-server/src/modules/merchants/seed.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import { EXAMPLE_APP_ID } from '../../sync-server/src/modules/apps/service.ts';
import { oauthAccessTokenPrincipal, oauthAdapter } from '../../sync-server/src/modules/app-installations/oauth.ts';
import { installApp, launchApp } from '../../sync-server/src/workflows/app-installation.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import {
  anchoredRate,
  bracketed,
  bracketedDifference,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  medianInterval,
  pct,
  printTable,
  type MedianInterval,
} from './report.ts';

/** One kind of token: µs per request with it, and what it adds over the no-auth request measured around it. */
export interface TokenFigures {
  /** µs per request with the token, median over rounds with its interval. */
  micros: MedianInterval;
  /** Per round, µs with the token − mean(no-auth before, after): median with its interval. */
  costMicros: MedianInterval;
  /** Per round, µs with the token / mean(no-auth before, after): median with its interval. */
  ratio: MedianInterval;
}

/** One engine's token figures. */
export interface TokenBenchResult {
  engine: string;
  requests: number;
  rounds: number;
  staff: TokenFigures;
  app: TokenFigures;
  launch: TokenFigures;
  oauth: TokenFigures;
  /** µs per request with no auth: per round the mean of before/after (all four kinds' rounds), and the largest gap. */
  none: MedianInterval & { spread: number };
}

function tokenFigures(run: { figures: number[]; baselines: number[] }): TokenFigures {
  return {
    micros: medianInterval(run.figures),
    costMicros: bracketedDifference(run.figures, run.baselines),
    ratio: bracketedRatio(run.figures, run.baselines),
  };
}

async function timeRequests(app: FastifyInstance, url: string, token: string | undefined, count: number): Promise<number> {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const res = await app.inject({ method: 'GET', url, headers });
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${res.body}`);
  }
  return ((performance.now() - started) * 1000) / count;
}

/** Runs the token bench on `target`: `requests` per measurement, `rounds` rounds, each figure bracketed by the no-auth baseline. */
export async function benchTokens(target: DatabaseTarget, options: { requests: number; rounds: number }): Promise<TokenBenchResult> {
  const db = await target.open();
  try {
    await migrate(db);
    const seed = await seedDemoStore(db);
    const idp = await IdentityProvider.load(db, 'http://localhost');
    const staffToken = await idp.issueStaffToken({ staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole }, { ttlSeconds: 3600 });
    const appToken = (await reissueDemoAppToken(db, seed.merchantId)).appToken;
    const ctx = {
      db,
      idp,
      clock: () => new Date(),
      feed: new ChangeFeed(),
      appRateLimit: new RateLimit({ name: 'bench-app', quota: 1e9, windowSeconds: 60 }),
      oauthAccessToken: (token: string, now: Date) => oauthAccessTokenPrincipal(db, token, now),
    } as unknown as AppContext;
    // The example app installed and launched (a launch token bound to the installation), and an OAuth access token of
    // the same installation stored as the authorization server stores it (modules/app-installations/oauth.ts).
    const owner = { kind: 'staff' as const, merchantId: seed.merchantId, staffId: seed.staffId, role: 'owner' };
    const { installation } = await installApp(ctx, owner, { appId: EXAMPLE_APP_ID, scopes: ['catalog:read'] });
    const launchToken = (await launchApp(ctx, owner, installation.id)).accessToken;
    const oauthToken = randomBytes(32).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    await oauthAdapter(db)('AccessToken').upsert(
      oauthToken,
      {
        jti: oauthToken,
        kind: 'AccessToken',
        accountId: installation.id,
        clientId: EXAMPLE_APP_ID,
        grantId: 'bench-grant',
        scope: 'catalog:read',
        iat: now,
        exp: now + 3600,
      } as never,
      3600,
    );
    const app = Fastify();
    const handler = async () => ({ ok: true });
    app.get('/open', handler);
    app.get('/api/pos/catalog', { onRequest: guard(ctx, { scope: 'catalog:read' }) }, handler);
    await app.ready();
    const count = options.requests;
    await timeRequests(app, '/open', undefined, 200); // warm-up
    await timeRequests(app, '/api/pos/catalog', staffToken, 200);
    await timeRequests(app, '/api/pos/catalog', appToken, 200);
    await timeRequests(app, '/api/pos/catalog', launchToken, 200);
    await timeRequests(app, '/api/pos/catalog', oauthToken, 200);
    const staff = await bracketed(
      options.rounds,
      async () => timeRequests(app, '/api/pos/catalog', staffToken, count),
      async () => timeRequests(app, '/open', undefined, count),
    );
    const apps = await bracketed(
      options.rounds,
      async () => timeRequests(app, '/api/pos/catalog', appToken, count),
      async () => timeRequests(app, '/open', undefined, count),
    );
    const launches = await bracketed(
      options.rounds,
      async () => timeRequests(app, '/api/pos/catalog', launchToken, count),
      async () => timeRequests(app, '/open', undefined, count),
    );
    const oauth = await bracketed(
      options.rounds,
      async () => timeRequests(app, '/api/pos/catalog', oauthToken, count),
      async () => timeRequests(app, '/open', undefined, count),
    );
    await app.close();
    return {
      engine: target.name,
      requests: count,
      rounds: options.rounds,
      staff: tokenFigures(staff),
      app: tokenFigures(apps),
      launch: tokenFigures(launches),
      oauth: tokenFigures(oauth),
      none: {
        ...medianInterval([staff, apps, launches, oauth].flatMap((run) => run.baselines.slice(1).map((after, r) => (run.baselines[r]! + after) / 2))),
        spread: Math.max(...[staff, apps, launches, oauth].map((run) => anchoredRate(run.baselines).spread)),
      },
    };
  } finally {
    await db.close();
  }
}

/** Prints the token table (one column per engine). */
export function printTokenBench(results: readonly TokenBenchResult[]): void {
  const col = (f: (r: TokenBenchResult) => string) => results.map(f);
  const us = (x: MedianInterval) => fmtMedianInterval(x, (n) => fmt(n, 1));
  const kinds: { key: 'staff' | 'app' | 'launch' | 'oauth'; label: string; short: string }[] = [
    { key: 'staff', label: 'staff JWT (ES256, built-in issuer)', short: 'staff JWT' },
    { key: 'app', label: 'app token (SHA-256 lookup + quota)', short: 'app token' },
    { key: 'launch', label: 'launch token (+ installation status)', short: 'launch token' },
    { key: 'oauth', label: 'OAuth access token (oauth_models + installation)', short: 'OAuth access token' },
  ];
  printTable(
    `Tokens — one GET through the route guard, ${fmt(results[0]?.requests ?? 0)} requests per measurement (Fastify inject), ` +
      `median (95 % interval) of ${results[0]?.rounds ?? 0} rounds`,
    results.map((r) => r.engine),
    [
      ...kinds.map((k) => ({ label: `${k.label}, µs per request`, values: col((r) => us(r[k.key].micros)) })),
      { label: '  baseline: same handler, no auth, µs per request', values: col((r) => us(r.none)) },
      { label: '    before/after gap', values: col((r) => pct(r.none.spread)) },
      ...kinds.flatMap((k) => [
        { label: `verification cost: ${k.short}, µs per request, per round`, values: col((r) => us(r[k.key].costMicros)) },
        { label: `  ${k.short} / no auth, per round`, values: col((r) => fmtMedianInterval(r[k.key].ratio, (n) => `${fmt(n, 1)}×`)) },
      ]),
    ],
  );
}
