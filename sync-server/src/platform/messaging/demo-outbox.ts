/**
 * The demo outbox as the back office reads it (docs/decisions/0095-messages-view-and-demo-outbox.md): what the local
 * mail server (`<mailDir>/<n>.eml`) and the local SMS provider (`<smsFile>`, one JSON line a text) of demo mode
 * received. Those files carry no store, so a message is shown to a store only when its own outbox sent it: an e-mail by
 * its Message-ID (`email_outbox.message_id`), a text by the provider's message id (`sms_outbox.provider_message_id`).
 * A file that matches no row of the store is never shown to it.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { DemoMail, DemoOutboxEntry, DemoText } from '../../../../core/index.ts';
import type { Queryable } from '../db/db.ts';

/** Where demo mode keeps what its local servers received; a null part is sent by a real provider instead. */
export interface DemoOutboxConfig {
  /** The local mail server's folder of `<n>.eml` files, or null when `SMTP_URL` is set. */
  mailDir: string | null;
  /** The local SMS provider's JSON lines file (`at`, `sid`, `from`, `to`, `body`), or null when `SMS_PROVIDER` is set. */
  smsFile: string | null;
}

interface MailSummary {
  file: string;
  messageId: string;
  receivedAt: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  attachments: number;
}

const PREVIEW = 160;

/** Reads the demo outbox's files for one store at a time (see the file's comment); parsed e-mails are cached by file. */
export class DemoOutbox {
  /** Parsed `.eml` files by name, with the modification time and size they were parsed at. */
  private readonly mails = new Map<string, { mtimeMs: number; size: number; summary: MailSummary }>();

  constructor(readonly config: DemoOutboxConfig) {}

  /** Every `.eml` file of the folder, parsed (cached while the file is unchanged); none when the folder is missing. */
  private async mailSummaries(): Promise<MailSummary[]> {
    const dir = this.config.mailDir;
    if (!dir) return [];
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => /^\d{1,9}\.eml$/.test(n));
    const out: MailSummary[] = [];
    for (const name of names) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => null);
      if (!info) continue;
      const cached = this.mails.get(name);
      if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) {
        out.push(cached.summary);
        continue;
      }
      const parsed = await simpleParser(await readFile(path));
      const summary: MailSummary = {
        file: name.slice(0, -'.eml'.length),
        messageId: parsed.messageId ?? '',
        receivedAt: info.mtime.toISOString(),
        from: parsed.from?.text ?? '',
        to: (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).map((a) => a.text).join(', '),
        subject: parsed.subject ?? '',
        text: parsed.text ?? '',
        attachments: parsed.attachments.length,
      };
      this.mails.set(name, { mtimeMs: info.mtimeMs, size: info.size, summary });
      out.push(summary);
    }
    return out;
  }

  /** Every line of the texts file that names the provider's message id; none when the file is missing. */
  private async texts(): Promise<{ sid: string; at: string; from: string; to: string; body: string }[]> {
    const file = this.config.smsFile;
    if (!file) return [];
    const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n');
    const out: { sid: string; at: string; from: string; to: string; body: string }[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as Record<string, unknown>;
        if (typeof v.sid === 'string' && typeof v.at === 'string')
          out.push({ sid: v.sid, at: v.at, from: String(v.from ?? ''), to: String(v.to ?? ''), body: String(v.body ?? '') });
      } catch {
        // A line cut short by a crash: skipped.
      }
    }
    return out;
  }

  /** Outbox rows of `merchantId` among the Message-IDs (`email_outbox`) or provider ids (`sms_outbox`) given. */
  private static async owned(
    db: Queryable,
    merchantId: string,
    table: 'email' | 'sms',
    keys: string[],
  ): Promise<Map<string, { id: string; status: string }>> {
    if (keys.length === 0) return new Map();
    const { rows } = await db.query<{ id: string; status: string; key: string }>(
      table === 'email'
        ? 'SELECT id, status, message_id AS key FROM email_outbox WHERE merchant_id = $1 AND message_id = ANY($2::text[])'
        : 'SELECT id, status, provider_message_id AS key FROM sms_outbox WHERE merchant_id = $1 AND provider_message_id = ANY($2::text[])',
      [merchantId, keys],
    );
    return new Map(rows.map((r) => [r.key, { id: r.id, status: r.status }]));
  }

  /** The store's received messages, newest first, at most `limit`. */
  async list(db: Queryable, merchantId: string, limit: number): Promise<DemoOutboxEntry[]> {
    const mails = await this.mailSummaries();
    const texts = await this.texts();
    const ownedMail = await DemoOutbox.owned(db, merchantId, 'email', mails.map((m) => m.messageId).filter(Boolean));
    const ownedTexts = await DemoOutbox.owned(
      db,
      merchantId,
      'sms',
      texts.map((t) => t.sid),
    );
    const entries: DemoOutboxEntry[] = [];
    for (const m of mails) {
      const row = ownedMail.get(m.messageId);
      if (!row) continue;
      entries.push({
        channel: 'email',
        id: m.file,
        outboxId: row.id,
        status: row.status,
        receivedAt: m.receivedAt,
        from: m.from,
        to: m.to,
        subject: m.subject,
        preview: m.text.slice(0, PREVIEW),
        attachments: m.attachments,
      });
    }
    for (const t of texts) {
      const row = ownedTexts.get(t.sid);
      if (!row) continue;
      entries.push({
        channel: 'sms',
        id: t.sid,
        outboxId: row.id,
        status: row.status,
        receivedAt: t.at,
        from: t.from,
        to: t.to,
        subject: null,
        preview: t.body.slice(0, PREVIEW),
        attachments: 0,
      });
    }
    entries.sort((a, b) => b.receivedAt.localeCompare(a.receivedAt) || b.id.localeCompare(a.id, 'en', { numeric: true }));
    return entries.slice(0, limit);
  }

  /** The e-mail in `<id>.eml` when the store sent it, else null (missing, or another store's). */
  async mail(db: Queryable, merchantId: string, id: string): Promise<DemoMail | null> {
    const dir = this.config.mailDir;
    if (!dir || !/^\d{1,9}$/.test(id)) return null;
    const path = join(dir, `${id}.eml`);
    const raw = await readFile(path).catch(() => null);
    if (!raw) return null;
    const parsed = await simpleParser(raw);
    const row = parsed.messageId ? (await DemoOutbox.owned(db, merchantId, 'email', [parsed.messageId])).get(parsed.messageId) : undefined;
    if (!row) return null;
    const info = await stat(path);
    return {
      id,
      outboxId: row.id,
      status: row.status,
      receivedAt: info.mtime.toISOString(),
      from: parsed.from?.text ?? '',
      to: (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).map((a) => a.text).join(', '),
      subject: parsed.subject ?? '',
      headers: parsed.headerLines.map((h) => {
        const colon = h.line.indexOf(':');
        return {
          name: colon > 0 ? h.line.slice(0, colon) : h.key,
          value: (colon > 0 ? h.line.slice(colon + 1) : h.line).replace(/\r?\n[ \t]+/g, ' ').trim(),
        };
      }),
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : null,
      attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? '', contentType: a.contentType, bytes: a.size })),
    };
  }

  /** The text with the provider's message id `sid` when the store sent it, else null. */
  async text(db: Queryable, merchantId: string, sid: string): Promise<DemoText | null> {
    const t = (await this.texts()).find((x) => x.sid === sid);
    if (!t) return null;
    const row = (await DemoOutbox.owned(db, merchantId, 'sms', [sid])).get(sid);
    if (!row) return null;
    return { id: t.sid, outboxId: row.id, status: row.status, receivedAt: t.at, from: t.from, to: t.to, body: t.body };
  }
}
