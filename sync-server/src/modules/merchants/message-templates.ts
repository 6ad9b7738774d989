/**
 * A store's message templates (docs/decisions/0094-message-templates-per-store-and-language.md; staff only): the
 * template of each kind of message in a language — the store's own (`message_templates`, this module writes it) or
 * the built-in default (core/message-templates.ts) — saved and reset through the mutation kernel with an audit
 * entry, and previewed with sample data exactly as the message would be sent (the SMS's parts, the e-mail's HTML).
 * Sending reads them through kernel/message-templates.ts.
 */
import {
  DEFAULT_MESSAGE_TEMPLATES,
  MESSAGE_KIND_SPECS,
  MESSAGE_KINDS,
  MESSAGE_PLACEHOLDERS,
  renderMessage,
  sampleMessageValues,
  smsSegments,
  templateProblems,
  type MessageKind,
  type MessageTemplate,
  type MessageTemplatePreview,
  type MessageTemplatePreviewRequest,
  type MessageTemplateSave,
  type MessageTemplateView,
  type StoreLanguage,
} from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { EmailKind } from '../../platform/messaging/email.ts';
import { emailHtml } from '../../platform/messaging/email-templates.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { storeMessageTemplate } from '../../kernel/message-templates.ts';

/** Which HTML layout (platform/messaging/email-templates.ts) each e-mail kind is sent with. */
const EMAIL_LAYOUT: Partial<Record<MessageKind, EmailKind>> = {
  receipt_email: 'receipt',
  invoice_email: 'invoice',
  invoice_reminder_email: 'invoice',
  app_suspended_email: 'notice',
};

async function viewOf(db: Queryable, merchantId: string, kind: MessageKind, language: StoreLanguage): Promise<MessageTemplateView> {
  const spec = MESSAGE_KIND_SPECS[kind];
  const current = await storeMessageTemplate(db, merchantId, kind, language);
  const fallback = DEFAULT_MESSAGE_TEMPLATES[language][kind];
  return {
    kind,
    channel: spec.channel,
    title: spec.title,
    language,
    subject: current.subject,
    body: current.body,
    overridden: current.overridden,
    defaultSubject: fallback.subject,
    defaultBody: fallback.body,
    placeholders: spec.placeholders.map((name) => ({ name, description: MESSAGE_PLACEHOLDERS[name], required: spec.required.includes(name) })),
  };
}

/**
 * Every kind's template in `language` (default: the store's language), in {@link MESSAGE_KINDS} order.
 * @throws ProblemError 404 when the merchant is gone.
 */
export async function listMessageTemplates(db: Queryable, merchantId: string, language?: StoreLanguage): Promise<MessageTemplateView[]> {
  const merchant = await getMerchant(db, merchantId);
  const lang = language ?? merchant.language;
  return Promise.all(MESSAGE_KINDS.map((kind) => viewOf(db, merchantId, kind, lang)));
}

/** The template of `input` as core checks it: SMS kinds take no subject (absent reads as null). */
function templateOf(kind: MessageKind, input: Pick<MessageTemplateSave, 'subject' | 'body'>): MessageTemplate {
  return { subject: input.subject ?? (MESSAGE_KIND_SPECS[kind].channel === 'sms' ? null : ''), body: input.body };
}

/** @throws ProblemError 400 naming each field (`subject`, `body`) that core's {@link templateProblems} refuses. */
function checkTemplate(kind: MessageKind, template: MessageTemplate): void {
  const problems = templateProblems(kind, template);
  if (problems.length === 0) return;
  throw new ProblemError(
    400,
    'validation_error',
    problems.map((p) => `Invalid ${p.path}: ${p.message}.`).join(' '),
    problems.map((p) => ({ path: p.path, message: p.message })),
  );
}

/**
 * Saves the store's own template for `kind` in `input.language` (default the store's), replacing any earlier one,
 * with a `message_template.saved` audit entry. The next message of that kind in that language is written with it.
 * @throws ProblemError 400 naming `subject` or `body` (unknown placeholder, a required one missing, syntax, length).
 */
export async function saveMessageTemplate(
  ctx: AppContext,
  principal: Principal,
  kind: MessageKind,
  input: MessageTemplateSave,
): Promise<MessageTemplateView> {
  const template = templateOf(kind, input);
  checkTemplate(kind, template);
  return mutation(ctx, actorOf(principal), async ({ tx, audit, now, actor }) => {
    const language = input.language ?? (await getMerchant(tx, principal.merchantId)).language;
    await tx.query(
      `INSERT INTO message_templates (merchant_id, kind, language, subject, body, updated_at, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (merchant_id, kind, language) DO UPDATE SET subject = EXCLUDED.subject, body = EXCLUDED.body,
         updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
      [principal.merchantId, kind, language, template.subject, template.body, now.toISOString(), actor],
    );
    await audit({
      action: 'message_template.saved',
      entityType: 'merchant',
      entityId: principal.merchantId,
      appId: null,
      data: { kind, language, subject: template.subject, body: template.body },
    });
    return viewOf(tx, principal.merchantId, kind, language);
  });
}

/**
 * Drops the store's own template for `kind` in `language` (default the store's): the built-in default is sent again.
 * Audited (`message_template.reset`) when there was one; resetting a default changes nothing.
 */
export async function resetMessageTemplate(
  ctx: AppContext,
  principal: Principal,
  kind: MessageKind,
  language: StoreLanguage | undefined,
): Promise<MessageTemplateView> {
  return mutation(ctx, actorOf(principal), async ({ tx, audit }) => {
    const lang = language ?? (await getMerchant(tx, principal.merchantId)).language;
    const { rows } = await tx.query('DELETE FROM message_templates WHERE merchant_id = $1 AND kind = $2 AND language = $3 RETURNING kind', [
      principal.merchantId,
      kind,
      lang,
    ]);
    if (rows.length > 0) {
      await audit({
        action: 'message_template.reset',
        entityType: 'merchant',
        entityId: principal.merchantId,
        appId: null,
        data: { kind, language: lang },
      });
    }
    return viewOf(tx, principal.merchantId, kind, lang);
  });
}

/**
 * Renders a template (saved or being edited) with sample data in the store: its name and currency, amounts in the
 * language asked (default the store's), a pay link on this server. Saves nothing. SMS kinds answer their alphabet and
 * parts (core/sms-segments.ts); e-mail kinds the HTML part they would carry (text escaped).
 * @throws ProblemError 400 naming `subject` or `body` exactly as saving would.
 */
export async function previewMessageTemplate(
  ctx: AppContext,
  merchantId: string,
  input: MessageTemplatePreviewRequest,
): Promise<MessageTemplatePreview> {
  const template = templateOf(input.kind, input);
  checkTemplate(input.kind, template);
  const merchant = await getMerchant(ctx.db, merchantId);
  const language = input.language ?? merchant.language;
  const values = sampleMessageValues(input.kind, { name: merchant.name, currency: merchant.currency, language, baseUrl: ctx.config.baseUrl });
  const message = renderMessage(input.kind, template, values);
  const layout = EMAIL_LAYOUT[input.kind];
  return {
    kind: input.kind,
    language,
    subject: message.subject,
    body: message.body,
    html: layout ? emailHtml(layout, message.body) : null,
    sms: MESSAGE_KIND_SPECS[input.kind].channel === 'sms' ? smsSegments(message.body) : null,
  };
}
