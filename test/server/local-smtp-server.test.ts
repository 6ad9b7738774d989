/**
 * The demo's local SMTP server (sync-server/src/dev/local-smtp-server.ts): what Nodemailer sends to it over real SMTP
 * is kept as an .eml file and listed parsed — sender, recipients, subject, both parts, attachments — and nothing is
 * relayed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmtpServer, type LocalSmtpServer } from '../../sync-server/src/dev/local-smtp-server.ts';

describe('local SMTP server', () => {
  let dir: string;
  let smtp: LocalSmtpServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-smtp-'));
    smtp = await startLocalSmtpServer({ dir: join(dir, 'outbox') });
  });
  afterAll(async () => {
    await smtp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps each message as an .eml file and lists it parsed', async () => {
    // With a user name and password, as SMTP_URL usually has them: any are accepted.
    const transport = createTransport({ url: smtp.url.replace('smtp://', 'smtp://dev:dev@') });
    const pdf = Buffer.from('%PDF-1.7\n% demo invoice\n');
    await transport.sendMail({
      from: '"Demo Café" <receipts@register.local>',
      to: 'ada@example.com',
      subject: 'Your receipt R1-000042',
      text: 'Total $12.34',
      html: '<p>Total <b>$12.34</b></p>',
      attachments: [{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' }],
    });
    transport.close();
    expect(smtp.messages()).toEqual([
      expect.objectContaining({
        file: '1.eml',
        envelopeFrom: 'receipts@register.local',
        envelopeTo: ['ada@example.com'],
        from: '"Demo Café" <receipts@register.local>',
        subject: 'Your receipt R1-000042',
        text: 'Total $12.34',
        hasHtml: true,
        attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', bytes: pdf.length }],
      }),
    ]);
    const eml = await readFile(join(dir, 'outbox', '1.eml'), 'utf8');
    expect(eml).toMatch(/^Subject: Your receipt R1-000042$/m);
    expect(eml).toContain('Content-Type: application/pdf; name=invoice.pdf');
  });
});
