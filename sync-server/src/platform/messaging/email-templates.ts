/**
 * The HTML part of each kind of e-mail, made from the same plain text the outbox keeps (one template per kind, so the
 * two parts always say the same): the text is HTML-escaped, then
 * - `receipt`: kept as laid out on the register (monospace `<pre>`: columns of items and amounts line up);
 * - `invoice` and `notice`: one paragraph per blank-line-separated block, line breaks kept, web addresses as links.
 */
import type { EmailKind } from './email.ts';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` with the five HTML-special characters escaped. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Escaped text whose http(s) addresses become links (the address is its own label). */
function linked(text: string): string {
  return escapeHtml(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`);
}

const PAGE = (content: string) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body style="font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111">${content}</body></html>`;

/**
 * The HTML part of an e-mail of kind `kind` whose plain-text body is `text`: a complete document, every character of
 * the text escaped. Pure.
 */
export function emailHtml(kind: EmailKind, text: string): string {
  if (kind === 'receipt') return PAGE(`<pre style="font-family:ui-monospace,Menlo,Consolas,monospace;font-size:14px">${escapeHtml(text)}</pre>`);
  const paragraphs = text
    .split(/\n{2,}/)
    .filter((block) => block.trim() !== '')
    .map((block) => `<p>${linked(block).replace(/\n/g, '<br>')}</p>`);
  return PAGE(paragraphs.join('\n'));
}
