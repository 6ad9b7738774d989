/**
 * The load generator, in its own process so it never shares the server's event loop: autocannon sends a fixed number
 * of requests at a fixed concurrency and this process measures each answer's latency (request written → answer read,
 * autocannon's `response` event), then reports the percentiles to the parent over IPC.
 *
 *   parent → LoadRequest   child → { type: 'result', ...LoadResult } (or { type: 'error', message }) and exits
 *
 * Each request carries a fresh Idempotency-Key (`<prefix>-<n>`), so every one creates an order.
 *
 * The run's duration is timed here, from the first request to the last answer: autocannon's own `duration` ends at
 * its next 1 s sampling tick after the last answer, so 500 answers in 2.2 s or in 2.9 s both read 3.00 s (166/s).
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { percentile } from './report.ts';

export interface LoadRequest {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  /** Total requests to send. */
  amount: number;
  idempotencyKeyPrefix?: string;
}

export interface LoadResult {
  requests: number;
  non2xx: number;
  errors: number;
  /** First request sent → last answer read, seconds (timed here, not autocannon's tick-rounded duration). */
  seconds: number;
  /** Answers per second over `seconds`. */
  requestsPerSecond: number;
  /** Latency percentiles, ms (nearest rank over every answer). */
  p50: number;
  p95: number;
  p99: number;
}

export type LoadMessage = ({ type: 'result' } & LoadResult) | { type: 'error'; message: string };

/** How long one request may take before it counts as an error. */
const REQUEST_TIMEOUT_SECONDS = 300;

async function run(request: LoadRequest): Promise<LoadResult> {
  let n = 0;
  const latencies: number[] = [];
  let settle: { resolve: (r: autocannon.Result) => void; reject: (err: unknown) => void } | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => (settle = { resolve, reject }));
  const startedAt = performance.now();
  let lastAnswerAt = startedAt;
  const instance = autocannon(
    {
      url: request.url,
      connections: request.connections,
      amount: request.amount,
      // A slow answer is a latency to measure, not an error (autocannon's default gives up after 10 s).
      timeout: REQUEST_TIMEOUT_SECONDS,
      requests: [
        {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          setupRequest: (req) =>
            request.idempotencyKeyPrefix ? { ...req, headers: { ...req.headers, 'idempotency-key': `${request.idempotencyKeyPrefix}-${n++}` } } : req,
        },
      ],
    },
    (err, result) => (err ? settle!.reject(err) : settle!.resolve(result)),
  );
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    lastAnswerAt = performance.now();
    latencies.push(responseTime);
  });
  const result = await done;
  latencies.sort((a, b) => a - b);
  const seconds = (lastAnswerAt - startedAt) / 1000;
  return {
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds,
    requestsPerSecond: result.requests.total / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

process.on('disconnect', () => process.exit(1));
process.once('message', (request: LoadRequest) => {
  const reply = (message: LoadMessage, code: number) => process.send?.(message, undefined, {}, () => process.exit(code));
  run(request).then(
    (result) => reply({ type: 'result', ...result }, 0),
    (err: unknown) => reply({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }, 1),
  );
});
