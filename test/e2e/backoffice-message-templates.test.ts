/**
 * Back office → Settings → Message templates (docs/decisions/0094-message-templates-per-store-and-language.md): the
 * owner edits the pay request text and sees the server's preview and SMS part count change as they type, an unknown
 * placeholder shown under the field, saves the template, and after switching the store to Spanish sees the Spanish
 * default previewed. Real server + built register in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';

const TIMEOUT = 30_000;

describe('back office message templates', () => {
  let suite: BrowserSuite;
  beforeAll(async () => {
    suite = await startBrowserSuite();
  });
  afterAll(async () => {
    await suite?.close();
  });

  it('edits a text with a live preview and its SMS parts, refuses an unknown placeholder, saves, and follows the store language', async () => {
    const { page, server } = suite;
    await page.goto(server.baseUrl);
    await new RegisterPage(page).signInIfAsked(server.ownerPin);
    await new RegisterPage(page).waitForCatalog();
    await BackOfficePage.open(page, server.ownerPin);
    const nav = page.getByRole('navigation', { name: 'Back office' });
    await nav.getByRole('button', { name: 'Settings' }).click();
    const editor = page.getByTestId('message-templates');
    await editor
      .getByTestId('templates-kind')
      .getByRole('option', { name: 'Pay request text (Text-to-Pay)' })
      .waitFor({ state: 'attached', timeout: TIMEOUT });
    await editor.getByTestId('templates-kind').selectOption('pay_request_sms');

    // The built-in English text, rendered by the server from sample data.
    const previewBody = editor.getByTestId('template-preview-body');
    const segments = editor.getByTestId('template-preview-segments');
    await expect
      .poll(() => previewBody.textContent(), { timeout: TIMEOUT })
      .toMatch(/: payment request for \$12\.50 \(Table 4\)\. Pay here: http.*\/pay\//);
    await expect.poll(() => segments.textContent(), { timeout: TIMEOUT }).toContain('1 SMS segment (GSM-7)');

    // Longer than one part: the count follows the text as typed.
    const body = editor.getByTestId('template-body');
    await body.fill(`${'Long text. '.repeat(16)}{{payLink}}`);
    await expect.poll(() => segments.textContent(), { timeout: TIMEOUT }).toContain('2 SMS segments (GSM-7)');

    // An unknown placeholder: the server's 400 shows under the field, no preview.
    await body.fill('{{store}} wants {{total}}: {{payLink}}');
    await expect.poll(() => editor.getByTestId('field-error').first().textContent(), { timeout: TIMEOUT }).toContain('unknown placeholder {{total}}');
    await expect.poll(() => previewBody.count(), { timeout: TIMEOUT }).toBe(0);

    await body.fill('{{store}}: {{amount}} please. {{payLink}}');
    await expect.poll(() => previewBody.textContent(), { timeout: TIMEOUT }).toMatch(/: \$12\.50 please\. http/);
    await editor.getByTestId('template-save').click();
    await editor.getByTestId('template-saved').waitFor({ timeout: TIMEOUT });
    await expect
      .poll(() => editor.getByTestId('templates-kind').getByRole('option', { name: 'Pay request text (Text-to-Pay) (edited)' }).count(), {
        timeout: TIMEOUT,
      })
      .toBe(1);
    const saved = await server.db.query<{ body: string; language: string }>('SELECT body, language FROM message_templates WHERE merchant_id = $1', [
      server.merchantId,
    ]);
    expect(saved.rows).toEqual([{ body: '{{store}}: {{amount}} please. {{payLink}}', language: 'en' }]);

    // The store switches to Spanish: the editor follows it, and the Spanish default is previewed in Spanish money.
    const settings = page.getByTestId('settings');
    await settings.getByTestId('settings-language').selectOption('es');
    await settings.getByTestId('settings-save').click();
    await settings.getByTestId('settings-saved').waitFor({ timeout: TIMEOUT });
    await expect.poll(() => editor.getByTestId('templates-language').inputValue(), { timeout: TIMEOUT }).toBe('es');
    await editor.getByTestId('templates-kind').selectOption('pay_request_sms');
    await expect
      .poll(() => previewBody.textContent(), { timeout: TIMEOUT })
      .toMatch(/: solicitud de pago por 12,50 US\$ \(Table 4\)\. Pague en: http/);
    await expect.poll(() => segments.textContent(), { timeout: TIMEOUT }).toContain('1 SMS segment (GSM-7)');
    await editor.getByTestId('templates-kind').selectOption('receipt_email');
    await expect.poll(() => editor.getByTestId('template-preview-subject').textContent(), { timeout: TIMEOUT }).toMatch(/^Su recibo R1-000042 de /);
    await expect.poll(() => previewBody.textContent(), { timeout: TIMEOUT }).toMatch(/^Gracias por su compra en /);
  });
});
