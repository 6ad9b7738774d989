/**
 * The browser side of the end-to-end tests, in one place: Debian's Chromium (never `npx playwright install`) with the
 * flags this machine needs, a page that reports its uncaught errors, and a staff fetch helper for the API checks.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { recordTrail } from './trail.ts';
import { startServerUnderTest, type ServerUnderTest } from './server-under-test.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium without sandbox, GPU or any background network of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Launches Debian's Chromium; every page of every context it opens is recorded for the failure trail (trail.ts).
 * @throws Error naming the package to install when it is missing.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.on('page', recordTrail);
    return context;
  };
  return browser;
}

/** @throws Error when the register has not been built into renderer/dist (`npm test` builds it first). */
export function requireBuiltRegister(): void {
  if (!existsSync(new URL('../../../renderer/dist/index.html', import.meta.url))) throw new Error('build the register first: npm run build');
}

/** Viewport of a new page in CSS px (default 1280 × 900); `acceptDownloads` for the tests that save files. */
export interface PageOptions {
  width?: number;
  height?: number;
  acceptDownloads?: boolean;
}

/** A new context and page (viewport in CSS px) whose uncaught errors are printed to the test output. */
export async function openPage(browser: Browser, options: PageOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    ...(options.acceptDownloads ? { acceptDownloads: true } : {}),
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('[page error]', err));
  return { context, page };
}

/** What a browser suite drives: the server under test, Chromium, one context and its page. */
export interface BrowserSuite {
  server: ServerUnderTest;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Closes the context, the browser, then the server. */
  close(): Promise<void>;
}

/**
 * The usual suite set-up in one call (for `beforeAll`; `close()` in `afterAll`): checks the register is built, starts
 * the server under test, launches Chromium and opens a page with `options`.
 * @throws Error when the register is not built or Chromium is missing (whatever was started by then is closed).
 */
export async function startBrowserSuite(options: PageOptions = {}): Promise<BrowserSuite> {
  requireBuiltRegister();
  const server = await startServerUnderTest();
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const { context, page } = await openPage(browser, options);
    const opened = browser;
    return {
      server,
      browser,
      context,
      page,
      close: async () => {
        await context.close();
        await opened.close();
        await server.close();
      },
    };
  } catch (err) {
    await browser?.close();
    await server.close();
    throw err;
  }
}

/**
 * A JSON client for the staff API of the server `serverOf()` returns when called (suites start it in `beforeAll`;
 * Bearer staff token): `api(path)` GETs, `api(path, { body })` POSTs `body` as JSON with a fresh Idempotency-Key
 * (`method` for another verb). Resolves with the parsed body.
 * @throws Error with the method, path, status and body on any non-2xx answer.
 */
export function staffApi(serverOf: () => { baseUrl: string; staffToken: string }, extraHeaders: Record<string, string> = {}) {
  return async <T>(
    path: string,
    init: { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<T> => {
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
