/**
 * `npm run mail:capture`: the local mail server (dev/local-smtp-server.ts) on its own, for trying e-mail without a real
 * mail server outside the demo. Listens on 127.0.0.1:`MAIL_CAPTURE_PORT` (default 2525; plain SMTP, any credentials
 * accepted), prints one line per message (From, To, parts, attachments; nothing of what it says) and writes each message as received to
 * `DATA_DIR/mail/<n>.eml` (default ./data/mail). Run the server with
 * `SMTP_URL=smtp://dev:dev@127.0.0.1:2525 SMTP_FROM=receipts@localhost.example`. Stops on Ctrl-C.
 */
import { join, resolve } from 'node:path';
import { describeLocalMail, startLocalSmtpServer } from './dev/local-smtp-server.ts';

async function main(): Promise<void> {
  const port = Number(process.env.MAIL_CAPTURE_PORT ?? 2525);
  const dir = join(resolve(process.env.DATA_DIR ?? './data'), 'mail');
  const server = await startLocalSmtpServer({ dir, port, onMessage: (mail, path) => console.log(describeLocalMail(mail, path)) });
  console.log(`Capturing mail on ${server.url} into ${dir}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
