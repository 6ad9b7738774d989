/**
 * The register and back office are sent with a Content-Security-Policy whose `frame-ancestors 'self'` keeps other
 * sites from framing them (a page on another origin gets Chromium's error page in its frame, not the register), and
 * the policy costs the app nothing: a sale, the back office and Devices run without one violation report. Real server
 * (demo store) and the built register in Debian's Chromium.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';

describe('content security policy of the register', () => {
  let suite: BrowserSuite | undefined;
  let page: Page;

  beforeAll(async () => {
    suite = await startBrowserSuite();
    page = suite.page;
    // Every violation the page reports (securitypolicyviolation events), kept on window for the test to read.
    await suite.context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
  }, 180_000);
  afterAll(async () => {
    await suite?.close();
  });

  it('sends the policy with frame-ancestors, and a sale, the back office and Devices run without a violation', { timeout: 180_000 }, async () => {
    const { server } = suite!;
    const res = await fetch(server.baseUrl);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    // A deep link served by the register's fallback carries it too.
    expect((await fetch(new URL('/backoffice/catalog', server.baseUrl))).headers.get('content-security-policy')).toBe(csp);

    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.tapItem('itm_croissant');
    const tender = await register.charge();
    await tender.exact();
    await tender.complete();
    const bo = await BackOfficePage.open(page, server.ownerPin);
    await bo.catalog();
    await register.goTo('Devices');
    await page.getByTestId('devices-view').waitFor();
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  });

  it('another origin cannot frame the register', { timeout: 60_000 }, async () => {
    const { server } = suite!;
    const stranger = await suite!.context.newPage();
    try {
      // A page of another origin (localhost is not 127.0.0.1) framing the register.
      const other = new URL(server.baseUrl);
      const target =
        other.hostname === '127.0.0.1' ? server.baseUrl.replace('127.0.0.1', 'localhost') : server.baseUrl.replace('localhost', '127.0.0.1');
      await stranger.route('http://attacker.test/', (route) =>
        route.fulfill({ contentType: 'text/html', body: `<iframe id="f" src="${target}/" width="800" height="600"></iframe>` }),
      );
      await stranger.goto('http://attacker.test/');
      await stranger.waitForLoadState('load');
      const frame = stranger.frames().find((f) => f !== stranger.mainFrame());
      expect(frame).toBeDefined();
      // Blocked: Chromium leaves its error page in the frame, never the register's root.
      expect(await frame!.locator('#root').count()).toBe(0);
    } finally {
      await stranger.close();
    }
  });
});
