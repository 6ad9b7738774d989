/**
 * Message templates (docs/decisions/0094-message-templates-per-store-and-language.md): the text of every e-mail and
 * SMS the server sends to a store's customers or owners, one template per kind of message, with built-in defaults in
 * each store language and per-store overrides.
 *
 * The syntax is a small, logic-less subset of Mustache: `{{name}}` inserts a placeholder's value (plain text, never
 * markup: the e-mail's HTML part escapes it, platform/messaging/email-templates.ts), and `{{#name}}…{{/name}}` keeps
 * its content only when `name` has a non-empty value (e.g. a tip line on a receipt without a tip). Each kind has a
 * fixed list of placeholders; any other name, an unclosed section or a stray `{{` is refused, naming the field.
 * Values are formatted by the caller in the store's language (money with Intl: {@link formatStoreMoney}).
 *
 * Pure: no I/O.
 */
import { formatMoney } from './money.ts';

/** The languages a store may send its messages in (ISO 639-1). */
export const STORE_LANGUAGES = ['en', 'es', 'fr'] as const;
export type StoreLanguage = (typeof STORE_LANGUAGES)[number];
/** Each language as its speakers name it (the settings' language menu). */
export const STORE_LANGUAGE_NAMES: Record<StoreLanguage, string> = { en: 'English', es: 'Español', fr: 'Français' };

/** The Intl locale amounts are formatted in for a store language (`en` keeps the `en-US` the server always used). */
const MONEY_LOCALES: Record<StoreLanguage, string> = { en: 'en-US', es: 'es', fr: 'fr' };

/**
 * Minor units formatted for a store's messages: the currency's own symbol and decimals, the language's separators,
 * e.g. (1250, 'USD', 'en') → `$12.50`, (1250, 'EUR', 'fr') → `12,50 €`.
 * @throws RangeError when `currency` is not an ISO 4217 code Intl knows.
 */
export function formatStoreMoney(cents: number, currency: string, language: StoreLanguage): string {
  return formatMoney(cents, currency, MONEY_LOCALES[language]);
}

/** Every kind of message the server composes from a template. */
export const MESSAGE_KINDS = [
  'receipt_email',
  'receipt_sms',
  'invoice_email',
  'invoice_reminder_email',
  'invoice_sms',
  'invoice_reminder_sms',
  'pay_request_sms',
  'pay_request_receipt_email',
  'app_suspended_email',
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** What each placeholder stands for (the editor's list; the same name means the same thing in every kind). */
export const MESSAGE_PLACEHOLDERS = {
  store: "the store's name",
  receiptNumber: 'the receipt number, e.g. R1-000042',
  receipt: 'the receipt as laid out on the register (items, totals, tenders)',
  total: 'the total',
  tip: 'the tip (empty when there is none)',
  paid: 'the amount paid (empty when nothing is paid, on invoices)',
  refunded: 'the amount refunded (empty when nothing is)',
  invoiceNumber: 'the invoice number',
  lines: "the invoice's lines, one a line",
  subtotal: 'the subtotal before tax',
  tax: 'the tax',
  balanceDue: 'the balance due',
  dueDate: 'the due date (YYYY-MM-DD)',
  memo: 'the memo (empty when there is none)',
  payLink: 'the signed pay link (it expires as always)',
  amount: 'the amount requested',
  app: "the app's name",
  attempts: 'how many times the charge was declined',
  declineCode: "the processor's decline code",
} as const;
export type MessagePlaceholder = keyof typeof MESSAGE_PLACEHOLDERS;

/** How one kind of message is sent and what its template may and must say. */
export interface MessageKindSpec {
  channel: 'email' | 'sms';
  /** What the back office calls it. */
  title: string;
  /** The placeholders its subject and body may use. */
  placeholders: readonly MessagePlaceholder[];
  /** Placeholders its body must use outside any section (e.g. the pay link of a pay request). */
  required: readonly MessagePlaceholder[];
}

const INVOICE_PLACEHOLDERS = [
  'store',
  'invoiceNumber',
  'lines',
  'subtotal',
  'tax',
  'total',
  'paid',
  'balanceDue',
  'dueDate',
  'memo',
  'payLink',
] as const;

/** Each kind's channel, title, placeholders and required placeholders. */
export const MESSAGE_KIND_SPECS: Record<MessageKind, MessageKindSpec> = {
  receipt_email: {
    channel: 'email',
    title: 'Receipt e-mail',
    placeholders: ['store', 'receiptNumber', 'total', 'receipt'],
    required: ['receipt'],
  },
  receipt_sms: {
    channel: 'sms',
    title: 'Receipt text',
    placeholders: ['store', 'receiptNumber', 'total', 'tip', 'paid', 'refunded'],
    required: ['receiptNumber'],
  },
  invoice_email: { channel: 'email', title: 'Invoice e-mail', placeholders: INVOICE_PLACEHOLDERS, required: ['payLink'] },
  invoice_reminder_email: { channel: 'email', title: 'Invoice reminder e-mail', placeholders: INVOICE_PLACEHOLDERS, required: ['payLink'] },
  invoice_sms: { channel: 'sms', title: 'Invoice text', placeholders: INVOICE_PLACEHOLDERS, required: ['payLink'] },
  invoice_reminder_sms: { channel: 'sms', title: 'Invoice reminder text', placeholders: INVOICE_PLACEHOLDERS, required: ['payLink'] },
  pay_request_sms: {
    channel: 'sms',
    title: 'Pay request text (Text-to-Pay)',
    placeholders: ['store', 'amount', 'memo', 'payLink'],
    required: ['payLink'],
  },
  pay_request_receipt_email: {
    channel: 'email',
    title: 'Pay page receipt e-mail',
    placeholders: ['store', 'amount', 'memo', 'receipt'],
    required: ['receipt'],
  },
  app_suspended_email: {
    channel: 'email',
    title: 'App suspended e-mail (to owners)',
    placeholders: ['store', 'app', 'attempts', 'declineCode'],
    required: [],
  },
};

/** A template: the subject (e-mail kinds; null for SMS) and the body, in the syntax above. */
export interface MessageTemplate {
  subject: string | null;
  body: string;
}

/** Longest subject, and longest body, a template may have (characters). */
export const MAX_TEMPLATE_SUBJECT = 200;
export const MAX_TEMPLATE_BODY = 5_000;

const INVOICE_EMAIL_BODY: Record<StoreLanguage, string> = {
  en: [
    '{{store}} sent you invoice {{invoiceNumber}}.',
    '',
    '{{lines}}',
    '',
    'Subtotal: {{subtotal}}',
    'Tax: {{tax}}',
    'Total: {{total}}',
    '{{#paid}}Paid: {{paid}}',
    '{{/paid}}Balance due: {{balanceDue}} by {{dueDate}}',
    '{{#memo}}',
    '{{memo}}',
    '{{/memo}}',
    'Pay online: {{payLink}}',
  ].join('\n'),
  es: [
    '{{store}} le envió la factura {{invoiceNumber}}.',
    '',
    '{{lines}}',
    '',
    'Subtotal: {{subtotal}}',
    'Impuestos: {{tax}}',
    'Total: {{total}}',
    '{{#paid}}Pagado: {{paid}}',
    '{{/paid}}Saldo pendiente: {{balanceDue}} antes del {{dueDate}}',
    '{{#memo}}',
    '{{memo}}',
    '{{/memo}}',
    'Pague en línea: {{payLink}}',
  ].join('\n'),
  fr: [
    '{{store}} vous a envoyé la facture {{invoiceNumber}}.',
    '',
    '{{lines}}',
    '',
    'Sous-total : {{subtotal}}',
    'Taxes : {{tax}}',
    'Total : {{total}}',
    '{{#paid}}Payé : {{paid}}',
    '{{/paid}}Solde dû : {{balanceDue}} avant le {{dueDate}}',
    '{{#memo}}',
    '{{memo}}',
    '{{/memo}}',
    'Payer en ligne : {{payLink}}',
  ].join('\n'),
};

/**
 * The built-in templates, in every store language. English says exactly what the server said before templates
 * existed. SMS defaults keep to the GSM-7 alphabet where the language allows (one part holds 160 characters, not 70).
 */
export const DEFAULT_MESSAGE_TEMPLATES: Record<StoreLanguage, Record<MessageKind, MessageTemplate>> = {
  en: {
    receipt_email: { subject: 'Your receipt {{receiptNumber}} from {{store}}', body: '{{receipt}}' },
    receipt_sms: {
      subject: null,
      body: '{{store}}: receipt {{receiptNumber}}, total {{total}}{{#tip}} + tip {{tip}}{{/tip}}, paid {{paid}}{{#refunded}}, refunded {{refunded}}{{/refunded}}. Thank you!',
    },
    invoice_email: { subject: 'Invoice {{invoiceNumber}} from {{store}}', body: INVOICE_EMAIL_BODY.en },
    invoice_reminder_email: { subject: 'Reminder: invoice {{invoiceNumber}} from {{store}}', body: INVOICE_EMAIL_BODY.en },
    invoice_sms: { subject: null, body: '{{store}}: invoice {{invoiceNumber}} for {{balanceDue}}, due {{dueDate}}. Pay here: {{payLink}}' },
    invoice_reminder_sms: { subject: null, body: '{{store}}: invoice {{invoiceNumber}} for {{balanceDue}}, due {{dueDate}}. Pay here: {{payLink}}' },
    pay_request_sms: { subject: null, body: '{{store}}: payment request for {{amount}}{{#memo}} ({{memo}}){{/memo}}. Pay here: {{payLink}}' },
    pay_request_receipt_email: { subject: 'Your receipt from {{store}}: {{amount}} paid', body: '{{receipt}}' },
    app_suspended_email: {
      subject: '{{app}} is suspended: its subscription could not be charged',
      body: 'Your billing method was declined {{attempts}} times ({{declineCode}}) for the subscription of {{app}}, so the app is suspended. Update the billing method in the back office to reactivate it.',
    },
  },
  es: {
    receipt_email: { subject: 'Su recibo {{receiptNumber}} de {{store}}', body: 'Gracias por su compra en {{store}}.\n\n{{receipt}}' },
    receipt_sms: {
      subject: null,
      body: '{{store}}: recibo {{receiptNumber}}, total {{total}}{{#tip}} + propina {{tip}}{{/tip}}, pagado {{paid}}{{#refunded}}, reembolsado {{refunded}}{{/refunded}}. ¡Gracias!',
    },
    invoice_email: { subject: 'Factura {{invoiceNumber}} de {{store}}', body: INVOICE_EMAIL_BODY.es },
    invoice_reminder_email: { subject: 'Recordatorio: factura {{invoiceNumber}} de {{store}}', body: INVOICE_EMAIL_BODY.es },
    invoice_sms: { subject: null, body: '{{store}}: factura {{invoiceNumber}} por {{balanceDue}}, vence el {{dueDate}}. Pague en: {{payLink}}' },
    invoice_reminder_sms: {
      subject: null,
      body: '{{store}}: recordatorio, factura {{invoiceNumber}} por {{balanceDue}}, vence el {{dueDate}}. Pague en: {{payLink}}',
    },
    pay_request_sms: { subject: null, body: '{{store}}: solicitud de pago por {{amount}}{{#memo}} ({{memo}}){{/memo}}. Pague en: {{payLink}}' },
    pay_request_receipt_email: { subject: 'Su recibo de {{store}}: {{amount}} pagado', body: 'Gracias por su pago a {{store}}.\n\n{{receipt}}' },
    app_suspended_email: {
      subject: '{{app}} está suspendida: no se pudo cobrar su suscripción',
      body: 'Su método de pago fue rechazado {{attempts}} veces ({{declineCode}}) para la suscripción de {{app}}, por lo que la aplicación está suspendida. Actualice el método de pago en la oficina para reactivarla.',
    },
  },
  fr: {
    receipt_email: { subject: 'Votre ticket {{receiptNumber}} de {{store}}', body: 'Merci de votre achat chez {{store}}.\n\n{{receipt}}' },
    receipt_sms: {
      subject: null,
      body: '{{store}} : ticket {{receiptNumber}}, total {{total}}{{#tip}} + pourboire {{tip}}{{/tip}}, payé {{paid}}{{#refunded}}, remboursé {{refunded}}{{/refunded}}. Merci !',
    },
    invoice_email: { subject: 'Facture {{invoiceNumber}} de {{store}}', body: INVOICE_EMAIL_BODY.fr },
    invoice_reminder_email: { subject: 'Rappel : facture {{invoiceNumber}} de {{store}}', body: INVOICE_EMAIL_BODY.fr },
    invoice_sms: { subject: null, body: '{{store}} : facture {{invoiceNumber}} de {{balanceDue}}, due le {{dueDate}}. Payer ici : {{payLink}}' },
    invoice_reminder_sms: {
      subject: null,
      body: '{{store}} : rappel, facture {{invoiceNumber}} de {{balanceDue}}, due le {{dueDate}}. Payer ici : {{payLink}}',
    },
    pay_request_sms: { subject: null, body: '{{store}} : demande de paiement de {{amount}}{{#memo}} ({{memo}}){{/memo}}. Payer ici : {{payLink}}' },
    pay_request_receipt_email: { subject: 'Votre reçu de {{store}} : {{amount}} payé', body: 'Merci de votre paiement à {{store}}.\n\n{{receipt}}' },
    app_suspended_email: {
      subject: '{{app}} est suspendue : son abonnement n’a pas pu être débité',
      body: 'Votre moyen de paiement a été refusé {{attempts}} fois ({{declineCode}}) pour l’abonnement de {{app}}, l’application est donc suspendue. Mettez à jour le moyen de paiement dans le back-office pour la réactiver.',
    },
  },
};

/* ───────────────────────────── syntax ───────────────────────────── */

type Node = { t: 'text'; text: string } | { t: 'var'; name: string } | { t: 'section'; name: string; children: Node[] };

/** `{{name}}`, `{{#name}}`, `{{/name}}` (spaces inside the braces allowed). */
const TAG = /\{\{\s*([#/]?)\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/**
 * Parses a template into nodes, or the reason it is not one (a sentence for a 400 naming the field): a stray `{{` or
 * `}}`, a name not in `allowed`, a section closed by another name or never closed, a section inside the same section.
 */
function parse(text: string, allowed: readonly string[]): { nodes: Node[] } | { problem: string } {
  const root: Node[] = [];
  const stack: { name: string; children: Node[] }[] = [];
  const into = () => stack.at(-1)?.children ?? root;
  const pushText = (chunk: string): string | undefined => {
    if (chunk.includes('{{') || chunk.includes('}}'))
      return `has a malformed placeholder near "${chunk.slice(Math.max(0, chunk.search(/\{\{|\}\}/)), 40)}": write {{name}}`;
    if (chunk) into().push({ t: 'text', text: chunk });
    return undefined;
  };
  let last = 0;
  for (const match of text.matchAll(TAG)) {
    const bad = pushText(text.slice(last, match.index));
    if (bad) return { problem: bad };
    last = match.index + match[0].length;
    const [, sigil, name] = match as unknown as [string, string, string];
    if (!allowed.includes(name)) {
      return { problem: `uses an unknown placeholder {{${name}}}: use ${allowed.map((a) => `{{${a}}}`).join(', ')}` };
    }
    if (sigil === '#') {
      if (stack.some((s) => s.name === name)) return { problem: `opens {{#${name}}} inside itself` };
      const section: Node = { t: 'section', name, children: [] };
      into().push(section);
      stack.push(section);
    } else if (sigil === '/') {
      const open = stack.pop();
      if (open?.name !== name)
        return { problem: open ? `closes {{/${name}}} where {{/${open.name}}} was expected` : `closes {{/${name}}} that was never opened` };
    } else {
      into().push({ t: 'var', name });
    }
  }
  const bad = pushText(text.slice(last));
  if (bad) return { problem: bad };
  if (stack.length > 0) return { problem: `never closes {{#${stack.at(-1)!.name}}}: end it with {{/${stack.at(-1)!.name}}}` };
  return { nodes: root };
}

function renderNodes(nodes: Node[], values: Partial<Record<string, string>>): string {
  let out = '';
  for (const node of nodes) {
    if (node.t === 'text') out += node.text;
    else if (node.t === 'var') out += values[node.name] ?? '';
    else if ((values[node.name] ?? '') !== '') out += renderNodes(node.children, values);
  }
  return out;
}

/** One thing wrong with a template: the field (`subject` or `body`) and why. */
export interface TemplateProblem {
  path: 'subject' | 'body';
  message: string;
}

/**
 * Everything wrong with `template` for messages of `kind` (empty when it may be saved): blank or too long fields, a
 * subject on an SMS or none on an e-mail, syntax errors and unknown placeholders, a required placeholder missing from
 * the body or used only inside a section.
 */
export function templateProblems(kind: MessageKind, template: MessageTemplate): TemplateProblem[] {
  const spec = MESSAGE_KIND_SPECS[kind];
  const problems: TemplateProblem[] = [];
  if (spec.channel === 'sms') {
    if (template.subject !== null) problems.push({ path: 'subject', message: 'must be null: a text message has no subject' });
  } else if (template.subject === null || template.subject.trim() === '') {
    problems.push({ path: 'subject', message: 'must not be blank: an e-mail needs a subject' });
  } else if (template.subject.length > MAX_TEMPLATE_SUBJECT) {
    problems.push({ path: 'subject', message: `must be at most ${MAX_TEMPLATE_SUBJECT} characters` });
  } else {
    const parsed = parse(template.subject, spec.placeholders);
    if ('problem' in parsed) problems.push({ path: 'subject', message: parsed.problem });
  }
  if (template.body.trim() === '') {
    problems.push({ path: 'body', message: 'must not be blank' });
    return problems;
  }
  if (template.body.length > MAX_TEMPLATE_BODY) {
    problems.push({ path: 'body', message: `must be at most ${MAX_TEMPLATE_BODY} characters` });
    return problems;
  }
  const parsed = parse(template.body, spec.placeholders);
  if ('problem' in parsed) {
    problems.push({ path: 'body', message: parsed.problem });
    return problems;
  }
  const topLevel = new Set(parsed.nodes.flatMap((n) => (n.t === 'var' ? [n.name] : [])));
  for (const name of spec.required) {
    if (!topLevel.has(name))
      problems.push({ path: 'body', message: `must contain {{${name}}} (${MESSAGE_PLACEHOLDERS[name]}) outside any {{#…}} section` });
  }
  return problems;
}

/** No-break spaces (Intl puts them in amounts) as plain spaces: they are not in the GSM-7 alphabet. */
const NO_BREAK_SPACES = /[\u00a0\u202f]/g;

/**
 * Renders a template with `values` (already formatted, plain text; a missing value is empty): the subject on one line
 * (e-mail kinds; null for SMS) and the body. An SMS's no-break spaces become spaces, so an amount formatted in French
 * or Spanish does not force the whole text into UCS-2 (70 characters a part instead of 160).
 * @throws Error when the template has problems ({@link templateProblems}): check before saving, not when sending.
 */
export function renderMessage(kind: MessageKind, template: MessageTemplate, values: Partial<Record<MessagePlaceholder, string>>): MessageTemplate {
  const spec = MESSAGE_KIND_SPECS[kind];
  const render = (text: string) => {
    const parsed = parse(text, spec.placeholders);
    if ('problem' in parsed) throw new Error(`template of ${kind} ${parsed.problem}`);
    return renderNodes(parsed.nodes, values);
  };
  const body = render(template.body);
  if (spec.channel === 'sms') return { subject: null, body: body.replace(NO_BREAK_SPACES, ' ') };
  return {
    subject: render(template.subject ?? '')
      .replace(/\s*\n\s*/g, ' ')
      .trim(),
    body,
  };
}

/**
 * Sample values for previewing a `kind` template in a store: its name, amounts in its currency and language, a
 * sample receipt or invoice, a pay link shaped like a real one.
 */
export function sampleMessageValues(
  kind: MessageKind,
  store: { name: string; currency: string; language: StoreLanguage; baseUrl: string },
): Partial<Record<MessagePlaceholder, string>> {
  const money = (cents: number) => formatStoreMoney(cents, store.currency, store.language);
  const all: Record<MessagePlaceholder, string> = {
    store: store.name,
    receiptNumber: 'R1-000042',
    receipt: [store.name, 'Receipt R1-000042', '', `2 × Latte${' '.repeat(24)}${money(900)}`, '', `Total${' '.repeat(28)}${money(900)}`].join('\n'),
    total: money(2_675),
    tip: money(300),
    paid: money(2_975),
    refunded: '',
    invoiceNumber: 'INV-0007',
    lines: `  2 x Catering tray  ${money(2_500)}`,
    subtotal: money(2_500),
    tax: money(175),
    balanceDue: money(2_675),
    dueDate: '2026-12-31',
    memo: 'Table 4',
    payLink: `${store.baseUrl}/pay/pr_01SAMPLE`,
    amount: money(1_250),
    app: 'Loyalty Cards',
    attempts: '3',
    declineCode: 'insufficient_funds',
  };
  if (kind.startsWith('invoice')) all.paid = '';
  return Object.fromEntries(MESSAGE_KIND_SPECS[kind].placeholders.map((p) => [p, all[p]]));
}
