import { PinoPretty } from 'pino-pretty';

/**
 * The request log in a form a person reads at a terminal (`npm start` sets `LOG_FORMAT=pretty`; `npm run serve`
 * keeps one JSON object a line for log shippers). It receives the JSON lines the server's logger writes — already
 * redacted by `serverLoggerOptions` (no query values, credentials or card numbers) — and:
 * - folds Fastify's two lines of a request ("incoming request", "request completed") into one:
 *   `POST /api/sync/orders/push → 200 (12 ms)`;
 * - leaves out answered reads (GET/HEAD below 400): a register polls and streams all day, and those lines buried the
 *   start-up banner (pairing code, owner PIN) within the hour. Writes, failures and everything else are kept;
 * - prints the rest through pino-pretty (time, level, message; colours on a terminal).
 *
 * Returns a stream for `buildApp({ logger })`.
 */
export function prettyLogStream(out: NodeJS.WritableStream = process.stdout): { write(line: string): void } {
  const pretty = PinoPretty({
    colorize: 'isTTY' in out && Boolean(out.isTTY),
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    singleLine: true,
    destination: out,
    sync: true,
  });
  const pending = new Map<string, { method: string; url: string }>();
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const reqId = typeof entry.reqId === 'string' ? entry.reqId : undefined;
      const req = entry.req as { method?: string; url?: string } | undefined;
      if (reqId && entry.msg === 'incoming request' && req) {
        // A request that never completes (the client went away) must not keep its entry for ever.
        if (pending.size >= 10_000) pending.delete(pending.keys().next().value!);
        pending.set(reqId, { method: req.method ?? '?', url: req.url ?? '?' });
        return;
      }
      if (reqId && entry.msg === 'request completed') {
        const request = pending.get(reqId);
        pending.delete(reqId);
        const status = (entry.res as { statusCode?: number } | undefined)?.statusCode ?? 0;
        if (request && (request.method === 'GET' || request.method === 'HEAD') && status < 400) return;
        const ms = typeof entry.responseTime === 'number' ? Math.round(entry.responseTime) : undefined;
        entry.msg = `${request?.method ?? '?'} ${request?.url ?? '?'} → ${status}${ms === undefined ? '' : ` (${ms} ms)`}`;
      }
      pretty.write(`${JSON.stringify(entry)}\n`);
    },
  };
}
