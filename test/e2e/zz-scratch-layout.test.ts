import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';

let suite: BrowserSuite | undefined;
beforeAll(async () => { suite = await startBrowserSuite({ width: 1024, height: 768 }); }, 120_000);
afterAll(async () => { await suite?.close(); });

it('shots', { timeout: 300_000 }, async () => {
  const page = suite!.page;
  const server = suite!.server;
  mkdirSync('/tmp/shots', { recursive: true });
  const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
  await register.waitForCatalog();
  for (const vp of [{ width: 1024, height: 768 }, { width: 1280, height: 800 }, { width: 768, height: 1024 }]) {
    await page.setViewportSize(vp);
    await page.screenshot({ path: `/tmp/shots/${vp.width}-empty.png` });
  }
  await page.setViewportSize({ width: 1024, height: 768 });
  const simple = page.locator('.item-tile:not(.item-has-options)');
  for (let i = 0; i < 7; i++) await simple.nth(i).click();
  await page.getByTestId('customer-open').click();
  await page.getByRole('dialog').waitFor();
  await page.screenshot({ path: `/tmp/shots/customer-dialog.png` });
  await page.keyboard.press('Escape');
  for (const vp of [{ width: 1024, height: 768 }, { width: 1280, height: 800 }, { width: 768, height: 1024 }]) {
    await page.setViewportSize(vp);
    await page.screenshot({ path: `/tmp/shots/${vp.width}-cart.png` });
  }
});
