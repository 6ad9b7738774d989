/**
 * What a failed browser test leaves in the CI log besides its assertion: each page's last requests and console
 * messages. Every page of every context of a browser started by support/browser.ts `launchChromium` is recorded;
 * test/support/setup.ts prints every page recorded in the test file when a test fails (vitest `onTestFailed`).
 */
import type { Page, Request } from 'playwright-core';

/** Entries kept by {@link recordTrail}: enough for the last minute of a register's sync traffic. */
const TRAIL_ENTRIES = 300;

/**
 * Keeps the page's last {@link TRAIL_ENTRIES} requests (method, path, status or failure, ms from the request to its
 * answer) and console messages, for {@link recordedTrails}: what a flaky browser test needs to be understood from a CI
 * log alone.
 */
export function recordTrail(page: Page): { text(): string } {
  const started = Date.now();
  const entries: string[] = [];
  const at = () => `+${((Date.now() - started) / 1000).toFixed(2)}s`;
  const add = (line: string) => {
    entries.push(`${at()} ${line}`);
    if (entries.length > TRAIL_ENTRIES) entries.shift();
  };
  const sent = new WeakMap<Request, number>();
  const path = (url: string) => {
    const { pathname, search } = new URL(url);
    return `${pathname}${search.replace(/ticket=[^&]+/, 'ticket=…')}`;
  };
  /** Requests sent and not yet answered, listed at the end of the trail (a request the page still waits for). */
  const pending = new Set<Request>();
  page.on('request', (request) => {
    if (!request.url().startsWith('http')) return;
    sent.set(request, Date.now());
    pending.add(request);
  });
  page.on('requestfinished', (request) => {
    pending.delete(request);
    const t0 = sent.get(request);
    if (t0 === undefined) return;
    void request.response().then(
      (response) => add(`${request.method()} ${path(request.url())} → ${response?.status() ?? '?'} in ${Date.now() - t0} ms`),
      () => undefined,
    );
  });
  page.on('requestfailed', (request) => {
    pending.delete(request);
    const t0 = sent.get(request);
    if (t0 !== undefined) add(`${request.method()} ${path(request.url())} ✗ ${request.failure()?.errorText ?? 'failed'} after ${Date.now() - t0} ms`);
  });
  page.on('console', (message) => add(`[console.${message.type()}] ${message.text()}`));
  page.on('load', () => add(`[load] ${page.url()}`));
  const trail = {
    text: () => {
      const waiting = [...pending].map(
        (request) => `${at()} still waiting: ${request.method()} ${path(request.url())} sent ${Date.now() - (sent.get(request) ?? started)} ms ago`,
      );
      return [...entries, ...waiting].join('\n');
    },
  };
  recorded.push({ page, trail });
  return trail;
}

const recorded: { page: Page; trail: { text(): string } }[] = [];

/** Every recorded page's trail (oldest page first), headed by its URL; empty when no page was recorded. */
export function recordedTrails(): string {
  return recorded
    .map(({ page, trail }, i) => `[browser trail ${i + 1}/${recorded.length}: ${page.isClosed() ? 'closed page' : page.url()}]\n${trail.text()}`)
    .join('\n');
}
