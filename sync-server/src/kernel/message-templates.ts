/**
 * Composing a store's messages (docs/decisions/0094-message-templates-per-store-and-language.md): the store's own
 * template for the kind and its language (`message_templates`, written by the merchants module alone) or else the
 * built-in default of that language, rendered with the caller's values (core/message-templates.ts). Read-only here.
 */
import {
  DEFAULT_MESSAGE_TEMPLATES,
  renderMessage,
  type MessageKind,
  type MessagePlaceholder,
  type MessageTemplate,
  type StoreLanguage,
} from '../../../core/index.ts';
import type { Queryable } from '../platform/db/db.ts';

/**
 * The template a store sends messages of `kind` in `language` with: its saved override, else the built-in default.
 * @returns the template and whether it is the store's own
 */
export async function storeMessageTemplate(
  db: Queryable,
  merchantId: string,
  kind: MessageKind,
  language: StoreLanguage,
): Promise<MessageTemplate & { overridden: boolean }> {
  const { rows } = await db.query<{ subject: string | null; body: string }>(
    'SELECT subject, body FROM message_templates WHERE merchant_id = $1 AND kind = $2 AND language = $3',
    [merchantId, kind, language],
  );
  const row = rows[0];
  return row ? { subject: row.subject, body: row.body, overridden: true } : { ...DEFAULT_MESSAGE_TEMPLATES[language][kind], overridden: false };
}

/**
 * A message of `kind` as merchant `merchant` sends it: its template in its language rendered with `values` (plain
 * text, formatted by the caller in that language). `subject` is null for SMS kinds.
 */
export async function composeMessage(
  db: Queryable,
  merchant: { id: string; language: StoreLanguage },
  kind: MessageKind,
  values: Partial<Record<MessagePlaceholder, string>>,
): Promise<MessageTemplate> {
  const template = await storeMessageTemplate(db, merchant.id, kind, merchant.language);
  return renderMessage(kind, template, values);
}
