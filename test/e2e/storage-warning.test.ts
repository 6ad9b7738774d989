/**
 * The persistent-storage warning: shown in full when the browser refuses `navigator.storage.persist()`, once; then —
 * dismissed, in the next tab, after a reload — a small badge in the header, which opens it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';

describe('persistent-storage warning', () => {
  let suite: BrowserSuite;

  beforeAll(async () => {
    suite = await startBrowserSuite();
    // This browser refuses persistent storage, as a browser under storage pressure or in a plain tab may.
    await suite.context.addInitScript(() => {
      Object.defineProperty(navigator, 'storage', {
        configurable: true,
        value: {
          persisted: () => Promise.resolve(false),
          persist: () => {
            (window as unknown as { persistAsked: boolean }).persistAsked = true;
            return Promise.resolve(false);
          },
          estimate: () => Promise.resolve({}),
        },
      });
    });
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('warns when storage is not persistent, and a dismissal holds in the next tab and after a reload', { timeout: 120_000 }, async () => {
    const page = suite.page;
    await RegisterPage.open(page, suite.server.baseUrl, suite.server.ownerPin);
    const warning = page.getByTestId('storage-warning');
    await warning.waitFor();
    await warning.getByRole('button', { name: 'Dismiss' }).click();
    expect(await warning.count()).toBe(0);
    await page.getByTestId('storage-badge').waitFor();

    // A new tab of the same register (its own sessionStorage, the same localStorage): the browser is asked again and
    // refuses again, and the warning stays dismissed.
    const next = await suite.context.newPage();
    await RegisterPage.open(next, suite.server.baseUrl, suite.server.ownerPin);
    await next.waitForFunction(() => (window as unknown as { persistAsked?: boolean }).persistAsked === true);
    await next.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200))); // the refusal has been rendered
    expect(await next.getByTestId('storage-warning').count()).toBe(0);
    await next.reload();
    await RegisterPage.open(next, suite.server.baseUrl, suite.server.ownerPin);
    await next.waitForFunction(() => (window as unknown as { persistAsked?: boolean }).persistAsked === true);
    await next.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(await next.getByTestId('storage-warning').count()).toBe(0);
    await next.getByTestId('storage-badge').click();
    await next.getByTestId('storage-warning').waitFor();
    await next.close();
  });
});
