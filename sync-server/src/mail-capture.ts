/**
 * `npm run mail:capture`: a local mail server that receives what the sync server sends and keeps it, for trying e-mail
 * without a real mail server. Listens on 127.0.0.1:`MAIL_CAPTURE_PORT` (default 2525; plain SMTP, any credentials
 * accepted), prints one line per message (From, To, Subject, parts, attachments) and writes each message as received to
 * `DATA_DIR/mail/<time>-<Message-ID>.eml` (default ./data/mail). Run the server with
 * `SMTP_URL=smtp://dev:dev@127.0.0.1:2525 SMTP_FROM=receipts@localhost.example`. Stops on Ctrl-C.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

async function main(): Promise<void> {
  const port = Number(process.env.MAIL_CAPTURE_PORT ?? 2525);
  const dir = join(resolve(process.env.DATA_DIR ?? './data'), 'mail');
  await mkdir(dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks);
        simpleParser(bytes)
          .then(async (mail) => {
            const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${(mail.messageId ?? 'no-id').replace(/[^A-Za-z0-9@._-]/g, '')}.eml`;
            await writeFile(join(dir, name), bytes);
            const to = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(', ') : (mail.to?.text ?? '');
            const parts = [mail.text ? 'text' : '', mail.html ? 'html' : '', ...mail.attachments.map((a) => a.filename ?? a.contentType)].filter(
              Boolean,
            );
            console.log(`${mail.from?.text ?? '?'} → ${to}: ${mail.subject ?? ''} [${parts.join(', ')}] ${join(dir, name)}`);
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  server.listen(port, '127.0.0.1', () => console.log(`Capturing mail on smtp://127.0.0.1:${port} into ${dir}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
