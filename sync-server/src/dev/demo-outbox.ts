/**
 * Demo mode's outbox (`npm start`): without a mail server or a carrier configured, the store's e-mail goes to the local
 * SMTP server (local-smtp-server.ts, each message an `.eml` file in `<dir>/mail`) and its texts to the local
 * Twilio-compatible SMS provider (local-sms-provider.ts, each text a JSON line of `<dir>/sms.jsonl`); nothing leaves
 * the machine. main.ts and the end-to-end tests start the server's delivery workers with what this returns.
 */
import { join } from 'node:path';
import type { TwilioConfig } from '../modules/sms/index.ts';
import type { SmtpConfig } from '../platform/messaging/smtp.ts';
import { describeLocalMail, startLocalSmtpServer, type LocalMail, type LocalSmtpServer } from './local-smtp-server.ts';
import { startDemoSmsProvider, type LocalSmsMessage, type LocalSmsProvider } from './local-sms-provider.ts';

/** The demo's sending number (the range of numbers reserved for fiction, 555-01xx). */
export const DEMO_SMS_FROM = '+15555550100';

/** The demo's sender address. */
export const DEMO_MAIL_FROM = 'receipts@demo.register.localhost';

/** Options of {@link startDemoOutbox}. */
export interface DemoOutboxOptions {
  /** The mail server configured (`SMTP_URL`); when set, no local one is started and this one is kept. */
  smtp?: SmtpConfig | null;
  /** The carrier configured (`SMS_PROVIDER`); when set, no local provider is started and this one is kept. */
  twilio?: TwilioConfig | null;
  /** Another carrier is configured (`SMS_PROVIDER=vonage`): no local provider is started either. */
  otherCarrier?: boolean;
  /** Where each message is announced, one line without what it says (default `console.log`). */
  log?: (line: string) => void;
  /** Called with each e-mail the local server kept (its `.eml` file at `path`). */
  onMail?: (mail: LocalMail, path: string) => void;
  /** Called with each text the local provider accepted. */
  onSms?: (message: LocalSmsMessage) => void;
}

/** What {@link startDemoOutbox} started, and the delivery configuration to build the app with. */
export interface DemoOutbox {
  /** The mail server the e-mail worker sends through: the configured one, or the local one. */
  smtp: SmtpConfig | null;
  /** The carrier the SMS worker sends through: the configured one, or the local provider. */
  twilio: TwilioConfig | null;
  /** The local mail server, when started. */
  mail: LocalSmtpServer | null;
  /** The local SMS provider, when started. */
  sms: LocalSmsProvider | null;
  /** Stops what was started (pending status callbacks finish first). */
  close(): Promise<void>;
}

/**
 * Starts the local mail server and SMS provider the configuration lacks, keeping what they receive under `dir`
 * (`mail/<n>.eml`, `sms.jsonl`). The text's body is written to the file, never to the log.
 */
export async function startDemoOutbox(dir: string, options: DemoOutboxOptions = {}): Promise<DemoOutbox> {
  const log = options.log ?? ((line: string) => console.log(line));
  const mail = options.smtp
    ? null
    : await startLocalSmtpServer({
        dir: join(dir, 'mail'),
        onMessage: (message, path) => {
          log(`Demo e-mail:  ${describeLocalMail(message, path)}`);
          options.onMail?.(message, path);
        },
      });
  let sms: LocalSmsProvider | null = null;
  if (!options.twilio && !options.otherCarrier) {
    sms = await startDemoSmsProvider(join(dir, 'sms.jsonl'), (m, file) => {
      log(`Demo text:    ${m.from} → ${m.to} (${m.body.length} characters) ${file}`);
      options.onSms?.(m);
    }).catch(async (err: unknown) => {
      await mail?.close();
      throw err;
    });
  }
  return {
    smtp: mail ? { url: mail.url, from: DEMO_MAIL_FROM } : (options.smtp ?? null),
    twilio: sms ? { apiBase: sms.url, accountSid: sms.accountSid, authToken: sms.authToken, from: DEMO_SMS_FROM } : (options.twilio ?? null),
    mail,
    sms,
    async close() {
      await mail?.close();
      await sms?.close();
    },
  };
}
