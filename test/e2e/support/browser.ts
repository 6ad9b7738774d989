/**
 * The browser side of the end-to-end tests, in one place: Debian's Chromium (never `npx playwright install`) with the
 * flags this machine needs, a page that reports its uncaught errors, and a staff fetch helper for the API checks.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium without sandbox, GPU or any background network of its own. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Launches Debian's Chromium. @throws Error naming the package to install when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** @throws Error when the register has not been built into renderer/dist (`npm test` builds it first). */
export function requireBuiltRegister(): void {
  if (!existsSync(new URL('../../../renderer/dist/index.html', import.meta.url))) throw new Error('build the register first: npm run build');
}

/** A new context and page (viewport in CSS px) whose uncaught errors are printed to the test output. */
export async function openPage(browser: Browser, options: { width?: number; height?: number; acceptDownloads?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 }, ...(options.acceptDownloads ? { acceptDownloads: true } : {}) });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('[page error]', err));
  return { context, page };
}

/**
 * A JSON client for the staff API of the server `serverOf()` returns when called (suites start it in `beforeAll`;
 * Bearer staff token): `api(path)` GETs, `api(path, { body })` POSTs `body` as JSON with a fresh Idempotency-Key
 * (`method` for another verb). Resolves with the parsed body.
 * @throws Error with the method, path, status and body on any non-2xx answer.
 */
export function staffApi(serverOf: () => { baseUrl: string; staffToken: string }, extraHeaders: Record<string, string> = {}) {
  return async <T>(path: string, init: { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> => {
    const server = serverOf();
    const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${server.staffToken}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
        ...extraHeaders,
        ...(init.headers ?? {}),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
}
