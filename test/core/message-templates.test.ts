/** Message templates (core/message-templates.ts): the Mustache subset, the checks before saving, the defaults. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MESSAGE_TEMPLATES,
  formatStoreMoney,
  MESSAGE_KIND_SPECS,
  MESSAGE_KINDS,
  renderMessage,
  sampleMessageValues,
  smsSegments,
  STORE_LANGUAGES,
  templateProblems,
} from '../../core/index.ts';

const sms = (body: string) => ({ subject: null, body });

describe('renderMessage', () => {
  it('inserts values and keeps a section only when its value is not empty', () => {
    const template = sms('{{store}}: {{amount}}{{#memo}} ({{memo}}){{/memo}}. Pay: {{payLink}}');
    expect(renderMessage('pay_request_sms', template, { store: 'Café', amount: '$5.00', memo: 'Table 4', payLink: 'https://x/pay/1' }).body).toBe(
      'Café: $5.00 (Table 4). Pay: https://x/pay/1',
    );
    expect(renderMessage('pay_request_sms', template, { store: 'Café', amount: '$5.00', memo: '', payLink: 'https://x/pay/1' }).body).toBe(
      'Café: $5.00. Pay: https://x/pay/1',
    );
  });

  it('inserts values as they are: no escaping, no second expansion of braces in a value', () => {
    const out = renderMessage('pay_request_sms', sms('{{memo}} {{payLink}}'), { memo: '<b>{{store}}</b> & co', payLink: 'L' });
    expect(out.body).toBe('<b>{{store}}</b> & co L');
  });

  it('the English defaults say what the server said before templates, character for character', () => {
    const receipt = renderMessage('receipt_sms', DEFAULT_MESSAGE_TEMPLATES.en.receipt_sms, {
      store: 'Corner',
      receiptNumber: 'R1-000001',
      total: '$10.00',
      tip: '$2.00',
      paid: '$12.00',
      refunded: '',
    });
    expect(receipt.body).toBe('Corner: receipt R1-000001, total $10.00 + tip $2.00, paid $12.00. Thank you!');
    const invoice = renderMessage('invoice_email', DEFAULT_MESSAGE_TEMPLATES.en.invoice_email, {
      store: 'Corner',
      invoiceNumber: 'INV-1',
      lines: '  1 x Tray  $10.00',
      subtotal: '$10.00',
      tax: '$0.70',
      total: '$10.70',
      paid: '',
      balanceDue: '$10.70',
      dueDate: '2026-12-31',
      memo: 'Thanks',
      payLink: 'https://x/pay/1',
    });
    expect(invoice.subject).toBe('Invoice INV-1 from Corner');
    expect(invoice.body).toBe(
      [
        'Corner sent you invoice INV-1.',
        '',
        '  1 x Tray  $10.00',
        '',
        'Subtotal: $10.00',
        'Tax: $0.70',
        'Total: $10.70',
        'Balance due: $10.70 by 2026-12-31',
        '',
        'Thanks',
        '',
        'Pay online: https://x/pay/1',
      ].join('\n'),
    );
  });

  it('puts an e-mail subject on one line and turns the no-break spaces of amounts into spaces in texts', () => {
    expect(
      renderMessage('receipt_email', { subject: '{{store}}\n{{receiptNumber}}', body: '{{receipt}}' }, { store: 'A', receiptNumber: 'R1' }).subject,
    ).toBe('A R1');
    const amount = formatStoreMoney(1250, 'EUR', 'fr');
    expect(amount).toMatch(/12,50\s€/);
    const text = renderMessage('pay_request_sms', DEFAULT_MESSAGE_TEMPLATES.fr.pay_request_sms, {
      store: 'Chez Léa',
      amount,
      payLink: 'https://x/pay/1',
    });
    expect(text.body).toBe('Chez Léa : demande de paiement de 12,50 €. Payer ici : https://x/pay/1');
    expect(smsSegments(text.body).encoding).toBe('GSM-7');
  });
});

describe('formatStoreMoney', () => {
  it("formats in the store's language and currency; English stays en-US", () => {
    expect(formatStoreMoney(1250, 'USD', 'en')).toBe('$12.50');
    expect(formatStoreMoney(123456, 'EUR', 'es').replace(/\s/g, ' ')).toBe('1234,56 €');
    expect(formatStoreMoney(123456, 'EUR', 'fr').replace(/\s/g, ' ')).toBe('1 234,56 €');
    expect(formatStoreMoney(1250, 'JPY', 'en')).toBe('¥1,250');
  });
});

describe('templateProblems', () => {
  it('accepts every built-in default in every language', () => {
    for (const language of STORE_LANGUAGES) {
      for (const kind of MESSAGE_KINDS) expect(templateProblems(kind, DEFAULT_MESSAGE_TEMPLATES[language][kind]), `${language} ${kind}`).toEqual([]);
    }
  });

  it('names the field of an unknown placeholder and lists the allowed ones', () => {
    const problems = templateProblems('pay_request_sms', sms('{{store}} {{total}} {{payLink}}'));
    expect(problems).toEqual([{ path: 'body', message: expect.stringContaining('unknown placeholder {{total}}') }]);
    expect(problems[0]!.message).toContain('{{payLink}}');
    expect(templateProblems('invoice_email', { subject: 'Hi {{customer}}', body: '{{payLink}}' })).toEqual([
      { path: 'subject', message: expect.stringContaining('unknown placeholder {{customer}}') },
    ]);
  });

  it('refuses a required placeholder missing or only inside a section', () => {
    expect(templateProblems('pay_request_sms', sms('{{store}} wants {{amount}}'))).toEqual([
      { path: 'body', message: expect.stringContaining('must contain {{payLink}}') },
    ]);
    expect(templateProblems('pay_request_sms', sms('{{#memo}}{{payLink}}{{/memo}}'))).toEqual([
      { path: 'body', message: expect.stringContaining('must contain {{payLink}}') },
    ]);
  });

  it('refuses malformed syntax: stray braces, unclosed or crossed sections', () => {
    for (const body of [
      '{{payLink}} {{ store',
      '{{payLink}} }}',
      '{{payLink}} {{#memo}}x',
      '{{payLink}} {{/memo}}',
      '{{#memo}}{{#amount}}{{/memo}}{{/amount}}{{payLink}}',
      '{{payLink}} {{#memo}}{{#memo}}{{/memo}}{{/memo}}',
      '{{payLink}} {{pay-link}}',
    ]) {
      expect(templateProblems('pay_request_sms', sms(body)), body).toEqual([{ path: 'body', message: expect.any(String) }]);
    }
  });

  it('wants a subject on e-mails and none on texts, and nothing blank or too long', () => {
    expect(templateProblems('receipt_email', { subject: ' ', body: '{{receipt}}' })).toEqual([
      { path: 'subject', message: expect.stringContaining('blank') },
    ]);
    expect(templateProblems('receipt_sms', { subject: 'x', body: '{{receiptNumber}}' })).toEqual([
      { path: 'subject', message: expect.stringContaining('no subject') },
    ]);
    expect(templateProblems('receipt_sms', sms('  '))).toEqual([{ path: 'body', message: 'must not be blank' }]);
    expect(templateProblems('receipt_sms', sms(`{{receiptNumber}}${'x'.repeat(5_000)}`))).toEqual([
      { path: 'body', message: expect.stringContaining('at most') },
    ]);
  });
});

describe('sampleMessageValues', () => {
  it('fills every placeholder of the kind, amounts in the language and currency, and renders each default', () => {
    for (const kind of MESSAGE_KINDS) {
      const values = sampleMessageValues(kind, { name: 'Corner', currency: 'EUR', language: 'es', baseUrl: 'https://pos.example' });
      expect(Object.keys(values).sort()).toEqual([...MESSAGE_KIND_SPECS[kind].placeholders].sort());
      const out = renderMessage(kind, DEFAULT_MESSAGE_TEMPLATES.es[kind], values);
      expect(out.body).not.toMatch(/\{\{|\}\}/);
      if (values.payLink) expect(out.body).toContain('https://pos.example/pay/');
    }
    expect(sampleMessageValues('pay_request_sms', { name: 'C', currency: 'EUR', language: 'es', baseUrl: '' }).amount).toMatch(/^12,50\s€$/);
  });
});
