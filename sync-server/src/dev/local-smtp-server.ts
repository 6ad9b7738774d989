/**
 * A local SMTP server for the demo and development — `npm start` runs it in demo mode when no `SMTP_URL` is set, and
 * `npm run mail:capture` runs it alone: it accepts every message on 127.0.0.1 (any credentials, no TLS), keeps it as an
 * `.eml` file in a folder (open it with any mail program) and as a parsed summary in memory, and never relays anything
 * outside. Built on `smtp-server` and `mailparser`, from Nodemailer's authors.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message the local server received, as parsed. */
export interface LocalMail {
  /** `<n>.eml` in the folder, n counting on from the highest number already there (1 in an empty folder). */
  file: string;
  receivedAt: string;
  envelopeFrom: string;
  envelopeTo: string[];
  from: string;
  subject: string;
  text: string;
  hasHtml: boolean;
  attachments: { filename: string; contentType: string; bytes: number }[];
}

/** A running local SMTP server; see the file's comment. */
export interface LocalSmtpServer {
  /** `smtp://127.0.0.1:<port>`: the `SMTP_URL` to configure the server with. */
  url: string;
  /** Every message received, oldest first. */
  messages(): LocalMail[];
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * One line per message, for a log: who to whom, its parts and attachments, the file it is in — nothing of what it says
 * (no subject, no body: those stay in the file).
 */
export function describeLocalMail(mail: LocalMail, path: string): string {
  const parts = ['text', mail.hasHtml ? 'html' : '', ...mail.attachments.map((a) => a.filename || a.contentType)].filter(Boolean);
  return `${mail.from} → ${mail.envelopeTo.join(', ')} [${parts.join(', ')}] ${path}`;
}

/** Largest message accepted, in bytes (an invoice with its PDF is far below). */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Starts the local SMTP server on 127.0.0.1 (no TLS; any user name and password are accepted: loopback only).
 * @param options `dir`: the folder the `.eml` files go to (made if missing); `port`: default 0 (a free one).
 */
export async function startLocalSmtpServer(options: {
  dir: string;
  port?: number;
  /** Called with each message once it is kept (its `.eml` file at `path`). */
  onMessage?: (mail: LocalMail, path: string) => void;
}): Promise<LocalSmtpServer> {
  await mkdir(options.dir, { recursive: true });
  const received: LocalMail[] = [];
  // Numbering goes on after the files of earlier runs, so a restart never writes over a kept message.
  let count = Math.max(
    0,
    ...(await readdir(options.dir))
      .map((n) => /^(\d{1,9})\.eml$/.exec(n)?.[1])
      .filter(Boolean)
      .map(Number),
  );
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const file = `${++count}.eml`;
        void (async () => {
          await writeFile(join(options.dir, file), raw);
          const parsed = await simpleParser(raw);
          const mail: LocalMail = {
            file,
            receivedAt: new Date().toISOString(),
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            from: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            hasHtml: typeof parsed.html === 'string',
            attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? '', contentType: a.contentType, bytes: a.size })),
          };
          received.push(mail);
          options.onMessage?.(mail, join(options.dir, file));
        })().then(
          () => callback(),
          (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages: () => [...received],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
