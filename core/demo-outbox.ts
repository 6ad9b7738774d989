/**
 * The demo outbox as the back office reads it (docs/decisions/0095-messages-view-and-demo-outbox.md): what demo mode's
 * local mail server and local SMS provider received from a store's outboxes. The server answers in these shapes
 * (`GET /api/pos/demo-outbox`, `…/mail/{id}`, `…/sms/{id}`; sync-server/src/platform/messaging/demo-outbox.ts) and the
 * back office reads them (renderer/src/common/back-office-api.ts).
 */
import { z } from 'zod';

const demoStatus = z.string().describe('The state of the outbox row that sent it, now');

/** What an opened e-mail and an opened text both carry first. */
const opened = {
  id: z.string(),
  outboxId: z.string(),
  status: demoStatus,
  receivedAt: z.iso.datetime(),
  from: z.string(),
  to: z.string(),
};

/** One message of the demo outbox list, newest first. */
export const demoOutboxEntrySchema = z.strictObject({
  channel: z.enum(['email', 'sms']),
  id: z.string().describe("The e-mail's number, or the text's provider message id: opens it"),
  outboxId: z.string().describe('The outbox row that sent it (`eml_…`, `sms_…`)'),
  status: demoStatus,
  receivedAt: z.iso.datetime(),
  from: z.string(),
  to: z.string(),
  subject: z.string().nullable().describe("The e-mail's subject; null for a text"),
  preview: z.string().describe('The first 160 characters of the text'),
  attachments: z.int().min(0),
});
export type DemoOutboxEntry = z.infer<typeof demoOutboxEntrySchema>;

/** The demo outbox list: which channels demo mode keeps locally, and what they received. */
export const demoOutboxListSchema = z.strictObject({
  email: z.boolean().describe('E-mail goes to the local mail server (no SMTP_URL)'),
  sms: z.boolean().describe('Texts go to the local SMS provider (no SMS_PROVIDER)'),
  data: z.array(demoOutboxEntrySchema),
});
export type DemoOutboxList = z.infer<typeof demoOutboxListSchema>;

/** One e-mail as received, for reading: its headers as sent, its text and HTML parts, its attachments (not their bytes). */
export const demoMailSchema = z.strictObject({
  ...opened,
  subject: z.string(),
  headers: z.array(z.strictObject({ name: z.string(), value: z.string() })).describe('As received, in order'),
  text: z.string(),
  html: z.string().nullable().describe('The HTML part as sent (show it where no script runs), or null'),
  attachments: z.array(z.strictObject({ filename: z.string(), contentType: z.string(), bytes: z.int() })),
});
export type DemoMail = z.infer<typeof demoMailSchema>;

/** One text as the local SMS provider received it. */
export const demoTextSchema = z.strictObject({
  ...opened,
  body: z.string(),
});
export type DemoText = z.infer<typeof demoTextSchema>;
