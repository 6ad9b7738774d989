import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formatMoney, payPageChargeSchema, type Invoice, type PayPageCharge, type PayRequestRecord } from '../../../../core/index.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { getPayRequest } from './service.ts';
import { RateLimit, rateLimitHeaders, type RateLimitDecision } from '../../platform/rate-limit.ts';

/**
 * The hosted pay page a Text-to-Pay SMS or an invoice links to: public, plain HTML with one small
 * same-origin script and style sheet, under a strict Content-Security-Policy (no inline script or style, no other
 * origin, no framing). It shows the merchant, the amount, the memo or the lines, and the state (pending, paid,
 * expired, canceled); a pending request offers card, Apple Pay, Google Pay and bank transfer on the sandbox rails.
 *
 * Card and account numbers never leave the browser: the page's sandbox tokeniser (like a processor's hosted fields)
 * turns them into `tok_sbx_<brand>_<last4>` / `btok_sbx_<routing>_<last4>`; the inputs carry no `name`, so no form
 * submission can send them either. The customer may give an e-mail address for the receipt. `POST /pay/{id}` takes
 * `{ method, token, receiptEmail? }`, honours `Idempotency-Key` (the script
 * sends one per attempt) and answers the public outcome.
 */
export const PAY_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const PAY_ID = /^pr_[0-9A-HJKMNP-TV-Z]{26}$/;
const payParams = z.strictObject({ id: z.string().regex(PAY_ID, 'must be an id starting with pr_') });

/** What the public may learn about a pay request: no phone number, no internal ids beyond its own. */
export const publicPayOutcomeSchema = z.strictObject({
  id: z.string(),
  status: z.enum(['pending', 'paid', 'expired', 'canceled']),
  amountCents: z.int(),
  currency: z.string(),
  paidAt: z.string().nullable(),
  payment: z.strictObject({ method: z.string(), brand: z.string().nullable(), last4: z.string().nullable() }).nullable(),
});

function publicOutcome(r: PayRequestRecord): z.infer<typeof publicPayOutcomeSchema> {
  return {
    id: r.id,
    status: r.status,
    amountCents: r.amountCents,
    currency: r.currency,
    paidAt: r.paidAt,
    payment: r.payment ? { method: r.payment.method, brand: r.payment.brand, last4: r.payment.last4 } : null,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', PAY_PAGE_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .header('Cache-Control', 'no-store');
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/pay-assets/pay.css"></head>
<body><main>${body}</main><script src="/pay-assets/pay.js" defer></script></body></html>`;
}

const STATUS_TEXT: Record<PayRequestRecord['status'], string> = {
  pending: 'Waiting for payment',
  paid: 'Paid — thank you',
  expired: 'This payment link has expired. Ask the merchant for a new one.',
  canceled: 'This payment request was canceled by the merchant.',
};

const METHOD_LABEL: Record<string, string> = { card: 'Card', apple_pay: 'Apple Pay', google_pay: 'Google Pay', bank_transfer: 'Bank transfer' };

function linesHtml(record: PayRequestRecord, invoice: Invoice | undefined): string {
  const money = (c: number) => escapeHtml(formatMoney(c, record.currency));
  if (invoice) {
    const rows = invoice.lines
      .map((l) => `<tr><td>${l.quantity} × ${escapeHtml(l.description)}</td><td class="num">${money(l.grossCents)}</td></tr>`)
      .join('');
    const taxes = invoice.taxLines
      .map((t) => `<tr><td>${escapeHtml(t.name)}${t.inclusive ? ' (included)' : ''}</td><td class="num">${money(t.taxCents)}</td></tr>`)
      .join('');
    return `<section aria-label="Invoice"><h2>Invoice ${escapeHtml(invoice.number)}</h2><p class="muted">Due ${escapeHtml(invoice.dueDate)}</p>
<table class="lines"><tbody>${rows}${taxes}<tr class="total"><td>Total</td><td class="num">${money(invoice.totalCents)}</td></tr>
${invoice.paidCents > 0 ? `<tr><td>Already paid</td><td class="num">−${money(invoice.paidCents)}</td></tr>` : ''}</tbody></table>
${invoice.memo ? `<p class="memo">${escapeHtml(invoice.memo)}</p>` : ''}</section>`;
  }
  const lines = record.lineItems ?? [];
  if (lines.length === 0) return '';
  const rows = lines.map((l) => `<tr><td>${l.quantity} × ${escapeHtml(l.name)}</td><td class="num">${money(l.grossCents)}</td></tr>`).join('');
  const tax = lines.reduce((a, l) => a + l.taxCents, 0);
  return `<table class="lines" aria-label="Items"><tbody>${rows}${tax > 0 ? `<tr><td>Tax</td><td class="num">${money(tax)}</td></tr>` : ''}</tbody></table>`;
}

function payFormsHtml(record: PayRequestRecord): string {
  const amount = escapeHtml(formatMoney(record.amountCents, record.currency));
  return `<section id="pay" data-id="${record.id}" aria-label="Pay">
<noscript><p class="error">Paying needs JavaScript: the card is tokenised in your browser and never sent to the merchant.</p></noscript>
<label>E-mail me the receipt (optional)<input id="receipt-email" type="email" inputmode="email" autocomplete="email" maxlength="254" placeholder="you@example.com"></label>
<div role="tablist" aria-label="Payment method">
<button type="button" role="tab" id="tab-card" aria-controls="panel-card" aria-selected="true">Card</button>
<button type="button" role="tab" id="tab-apple_pay" aria-controls="panel-apple_pay" aria-selected="false" tabindex="-1">Apple Pay</button>
<button type="button" role="tab" id="tab-google_pay" aria-controls="panel-google_pay" aria-selected="false" tabindex="-1">Google Pay</button>
<button type="button" role="tab" id="tab-bank_transfer" aria-controls="panel-bank_transfer" aria-selected="false" tabindex="-1">Bank transfer</button>
</div>
<form id="panel-card" role="tabpanel" aria-labelledby="tab-card" data-method="card" novalidate>
<label>Card number<input id="card-number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" maxlength="23" required></label>
<div class="row"><label>Expiry (MM/YY)<input id="card-expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="12/34" maxlength="7" required></label>
<label>CVC<input id="card-cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" maxlength="4" required></label></div>
<button type="submit" class="primary">Pay ${amount}</button>
</form>
<form id="panel-apple_pay" role="tabpanel" aria-labelledby="tab-apple_pay" data-method="apple_pay" hidden>
<p class="muted">Sandbox wallet: pays with its test card Visa •••• 4242.</p>
<button type="submit" class="wallet">Pay ${amount} with Apple Pay</button>
</form>
<form id="panel-google_pay" role="tabpanel" aria-labelledby="tab-google_pay" data-method="google_pay" hidden>
<p class="muted">Sandbox wallet: pays with its test card Visa •••• 4242.</p>
<button type="submit" class="wallet">Pay ${amount} with Google Pay</button>
</form>
<form id="panel-bank_transfer" role="tabpanel" aria-labelledby="tab-bank_transfer" data-method="bank_transfer" hidden novalidate>
<label>Routing number<input id="bank-routing" inputmode="numeric" placeholder="110000000" maxlength="9" required></label>
<label>Account number<input id="bank-account" inputmode="numeric" placeholder="000123456789" maxlength="17" required></label>
<button type="submit" class="primary">Pay ${amount} by bank transfer</button>
</form>
<p id="pay-error" class="error" role="alert" hidden></p>
<p id="pay-progress" class="muted" role="status"></p>
</section>`;
}

/**
 * What the pay page needs from other modules, handed in by app.ts (a module never imports another): paying
 * (workflows/pay-link-payment.ts) and the invoice a link pays, to show its lines (invoices module).
 */
export interface PayPageOperations {
  payPayRequest(ctx: AppContext, id: string, charge: PayPageCharge): Promise<PayRequestRecord>;
  getInvoice(ctx: Pick<AppContext, 'db' | 'clock'>, merchantId: string, id: string): Promise<Invoice>;
}

/** The page for a request (status as of now). */
async function renderPage(ctx: AppContext, ops: PayPageOperations, record: PayRequestRecord & { merchantId: string }): Promise<string> {
  const merchant = await getMerchant(ctx.db, record.merchantId);
  const invoice = record.invoiceId ? await ops.getInvoice(ctx, record.merchantId, record.invoiceId).catch(() => undefined) : undefined;
  const status = record.status;
  const paidLine =
    status === 'paid' && record.payment
      ? `<p class="muted">Paid ${record.paidAt ? escapeHtml(new Date(record.paidAt).toUTCString()) : ''} by ${escapeHtml(METHOD_LABEL[record.payment.method] ?? record.payment.method)}${record.payment.brand ? ` (${escapeHtml(record.payment.brand)} •••• ${escapeHtml(record.payment.last4 ?? '')})` : record.payment.last4 ? ` (account •••• ${escapeHtml(record.payment.last4)})` : ''}.</p>`
      : '';
  return page(
    `Pay ${merchant.name}`,
    `<p class="sandbox"><strong>Sandbox</strong> — a demo payment page on sandbox rails. No real money moves and no card is charged.</p>
<header><h1>${escapeHtml(merchant.name)}</h1>
<div class="amount" id="amount">${escapeHtml(formatMoney(record.amountCents, record.currency))}</div>
${record.memo && !invoice ? `<p class="memo">${escapeHtml(record.memo)}</p>` : ''}</header>
${linesHtml(record, invoice)}
<p id="status" class="status status-${status}" data-status="${status}" role="status">${escapeHtml(STATUS_TEXT[status])} <span class="status-code">(${status})</span></p>
${paidLine}
${status === 'pending' ? `${payFormsHtml(record)}<p class="muted">Link expires ${escapeHtml(new Date(record.expiresAt).toUTCString())}.</p>` : ''}`,
  );
}

/** Payment attempts a pay link takes in an hour (card-testing guard of `POST /pay/{id}`). */
export const PAY_ATTEMPTS_PER_LINK = { name: 'pay_link', quota: 10, windowSeconds: 3600 } as const;
/** Payment attempts one client address may make in an hour, over all links. */
export const PAY_ATTEMPTS_PER_CLIENT = { name: 'pay_client', quota: 60, windowSeconds: 3600 } as const;

/** The 429 of the pay page: the draft's quota-exceeded problem and headers, with words a customer understands. */
function tooManyAttempts(decision: RateLimitDecision): ProblemError {
  const minutes = Math.max(1, Math.ceil(decision.resetSeconds / 60));
  return new ProblemError(
    429,
    'quota_exceeded',
    `Too many payment attempts ${decision.policy.name === 'pay_link' ? 'on this link' : 'from this device'}; try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or contact the store.`,
    undefined,
    rateLimitHeaders(decision),
  );
}

/**
 * Registers `GET /pay/{id}` (the page), `POST /pay/{id}` (pay), and the page's script and style sheet
 * (`/pay-assets/pay.js`, `/pay-assets/pay.css`). All public.
 */
export function registerPayPage(app: FastifyInstance, ctx: AppContext, ops: PayPageOperations): void {
  app.get<{ Params: { id: string } }>(
    '/pay/:id',
    { config: { openapi: { summary: 'Hosted pay page (HTML)', tags: ['pay-requests'], params: payParams, produces: ['text/html'] } } },
    async (request, reply) => {
      const id = request.params.id;
      const record = PAY_ID.test(id) ? await getPayRequest(ctx.db, id, undefined, ctx.clock()) : undefined;
      securityHeaders(reply).type('text/html; charset=utf-8');
      if (!record) {
        return reply.code(404).send(page('Payment link not found', '<h1>Payment link not found</h1><p>Check the link in your message.</p>'));
      }
      // An invoice's link replaced by one for the new balance leads on to it.
      if (record.status === 'canceled' && record.supersededBy) return reply.redirect(`/pay/${record.supersededBy}`, 303);
      return reply.send(await renderPage(ctx, ops, record));
    },
  );

  // Card testing: a public form that answers "declined" or "paid" is what fraudsters use to check stolen cards. Every
  // well-formed attempt counts against the link (10 an hour: more than any real customer needs) and against the client
  // address (60 an hour, for customers sharing one behind a carrier's NAT); past either, 429 with Retry-After, before
  // any card reaches the processor. A malformed request is refused (400) without counting.
  const attemptsPerLink = new RateLimit(PAY_ATTEMPTS_PER_LINK);
  const attemptsPerClient = new RateLimit(PAY_ATTEMPTS_PER_CLIENT);
  const limitAttempts = async (request: FastifyRequest) => {
    const { id } = parseOrThrow(payParams, request.params, '(path)');
    parseOrThrow(payPageChargeSchema, request.body ?? undefined);
    const refused = [await attemptsPerLink.take(id), await attemptsPerClient.take(request.ip)].find((d) => !d.allowed);
    if (refused) throw tooManyAttempts(refused);
  };

  // The payer is nobody's principal: idempotency keys are kept per merchant under the caller `app:pay_page`.
  const payerOf = async (request: FastifyRequest) => {
    const { id } = parseOrThrow(payParams, request.params, '(path)');
    const found = await getPayRequest(ctx.db, id, undefined, ctx.clock());
    if (!found) throw new ProblemError(404, 'not_found', `Pay request ${id} does not exist.`);
    request.principal = { kind: 'app', merchantId: found.merchantId, appId: 'pay_page', appName: 'Hosted pay page', scopes: [] };
  };

  app.post(
    '/pay/:id',
    {
      onRequest: async (request, reply) => {
        securityHeaders(reply);
        await payerOf(request);
      },
      // Before the idempotency layer, so a refusal is not stored as the key's answer (the customer may try later).
      preHandler: limitAttempts,
      config: {
        openapi: {
          summary: 'Pay a pay request from the hosted pay page',
          errors: {
            429: 'Too many payment attempts on this link (10 an hour) or from this address (60 an hour): `quota_exceeded`, with Retry-After',
            402: 'Declined by the sandbox rail (`card_declined`, `insufficient_funds`, `expired_card`, `account_closed`) naming `token`: nothing charged',
            409: 'The request is not pending (`illegal_state_transition`, `currentState`: paid, expired, canceled), or no rail of the store can take this method and amount (`no_rail_available`: disabled, down or outside its limits; nothing charged), or the same Idempotency-Key still in flight (`idempotency_in_flight`)',
          },
          description:
            'Public. `{ method: card | apple_pay | google_pay | bank_transfer, token, receiptEmail? }` with a token from the page’s sandbox tokeniser; with `receiptEmail`, the receipt is e-mailed there once paid. 200 paid; 402 declined (nothing charged); 409 not pending (`currentState`).',
          tags: ['pay-requests'],
          params: payParams,
          body: payPageChargeSchema,
          response: publicPayOutcomeSchema,
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(payParams, request.params, '(path)');
      const body = parseOrThrow(payPageChargeSchema, request.body ?? undefined);
      const record = await ops.payPayRequest(ctx, id, body);
      return { status: 200, body: publicOutcome(record) };
    }),
  );

  app.get(
    '/pay-assets/pay.js',
    { config: { openapi: { summary: 'Pay page script', tags: ['pay-requests'], produces: ['text/javascript'] } } },
    async (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=300')
        .header('X-Content-Type-Options', 'nosniff')
        .send(PAY_PAGE_SCRIPT),
  );
  app.get(
    '/pay-assets/pay.css',
    { config: { openapi: { summary: 'Pay page style sheet', tags: ['pay-requests'], produces: ['text/css'] } } },
    async (_request, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header('Cache-Control', 'public, max-age=300')
        .header('X-Content-Type-Options', 'nosniff')
        .send(PAY_PAGE_STYLE),
  );
}

const PAY_PAGE_STYLE = `body{font-family:system-ui,sans-serif;max-width:30rem;margin:1.5rem auto;padding:0 1rem;color:#1a1a1a}
h1{margin:.5rem 0 0}h2{font-size:1.1rem;margin:1rem 0 .25rem}.amount{font-size:2.5rem;font-weight:700;margin:.25rem 0}
.sandbox{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem .75rem;border-radius:.5rem;font-size:.9rem}
.muted{color:#555;font-size:.9rem}.memo{font-style:italic}
table.lines{width:100%;border-collapse:collapse;margin:.5rem 0}table.lines td{padding:.25rem 0;border-bottom:1px solid #eee}
.num{text-align:right;white-space:nowrap}tr.total td{font-weight:700}
.status{padding:.5rem .75rem;border-radius:.5rem;background:#eef;font-weight:600}.status-paid{background:#d1f2d9}
.status-expired,.status-canceled{background:#f8d7da}.status-code{font-weight:400;color:#555}
[role=tablist]{display:flex;gap:.25rem;flex-wrap:wrap;margin:1rem 0 .5rem}[role=tab]{flex:1;padding:.5rem;border:1px solid #bbb;background:#f7f7f7;border-radius:.4rem;cursor:pointer}
[role=tab][aria-selected=true]{background:#1a1a1a;color:#fff;border-color:#1a1a1a}
form{display:flex;flex-direction:column;gap:.6rem}[hidden]{display:none!important}label{display:flex;flex-direction:column;font-size:.9rem;gap:.2rem;flex:1}
input{font-size:1rem;padding:.5rem;border:1px solid #bbb;border-radius:.4rem}.row{display:flex;gap:.5rem}
button.primary,button.wallet{font-size:1.05rem;padding:.7rem;border:0;border-radius:.5rem;background:#0b5cff;color:#fff;cursor:pointer}
button.wallet{background:#000}button:disabled{opacity:.6;cursor:progress}
.error{color:#a40000;background:#fde8e8;padding:.5rem .75rem;border-radius:.5rem}
button,input{min-height:44px}input[aria-invalid=true]{border-color:#a40000;border-width:2px}`;

/**
 * The pay page's script: tabs, the sandbox tokeniser (Luhn check and brand detection in the browser; only
 * `tok_sbx_<brand>_<last4>` leaves the page) and the POST with an Idempotency-Key kept until a definitive answer, so
 * a retry after a lost response cannot pay twice.
 */
const PAY_PAGE_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('pay');
  if (!root) return;
  var id = root.getAttribute('data-id');
  var errorBox = document.getElementById('pay-error');
  var progress = document.getElementById('pay-progress');
  var pendingKey = null;

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var a = new Uint8Array(16); crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }
  // An error names its field when it has one: aria-invalid + aria-describedby link the field to the message (role=alert
  // announces it) and the field takes focus, so a cashier or customer lands where the fix is typed.
  function showError(text, fieldId) {
    errorBox.textContent = text; errorBox.hidden = false;
    var field = fieldId && document.getElementById(fieldId);
    if (field) { field.setAttribute('aria-invalid', 'true'); field.setAttribute('aria-describedby', 'pay-error'); field.focus(); }
  }
  function clearError() {
    errorBox.textContent = ''; errorBox.hidden = true;
    Array.prototype.forEach.call(root.querySelectorAll('[aria-invalid]'), function (el) { el.removeAttribute('aria-invalid'); el.removeAttribute('aria-describedby'); });
  }

  // Tabs as tabs (WAI-ARIA APG): one Tab stop (roving tabindex), arrow keys / Home / End move and select.
  var tabs = Array.prototype.slice.call(root.querySelectorAll('[role=tab]'));
  function selectTab(tab) {
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute('aria-selected', on ? 'true' : 'false');
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).hidden = !on;
    });
    clearError();
  }
  tabs.forEach(function (tab, i) {
    tab.addEventListener('click', function () { selectTab(tab); });
    tab.addEventListener('keydown', function (event) {
      var next = event.key === 'ArrowRight' || event.key === 'ArrowDown' ? tabs[(i + 1) % tabs.length]
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? tabs[(i - 1 + tabs.length) % tabs.length]
        : event.key === 'Home' ? tabs[0] : event.key === 'End' ? tabs[tabs.length - 1] : null;
      if (!next) return;
      event.preventDefault();
      selectTab(next);
      next.focus();
    });
  });

  function digits(v) { return String(v || '').replace(/[\\s-]/g, ''); }
  function luhn(n) {
    var sum = 0, dbl = false;
    for (var i = n.length - 1; i >= 0; i--) { var d = +n[i]; if (dbl) { d *= 2; if (d > 9) d -= 9; } sum += d; dbl = !dbl; }
    return sum % 10 === 0;
  }
  function brandOf(n) {
    if (/^4/.test(n)) return 'visa';
    if (/^(5[1-5]|2[2-7])/.test(n)) return 'mastercard';
    if (/^3[47]/.test(n)) return 'amex';
    if (/^6(011|5)/.test(n)) return 'discover';
    return null;
  }
  function aba(r) { var w = [3, 7, 1], s = 0; for (var i = 0; i < 9; i++) s += +r[i] * w[i % 3]; return s % 10 === 0; }

  // The sandbox tokeniser: the number stays here; only brand and last four travel, as a token.
  function tokenizeCard() {
    var n = digits(document.getElementById('card-number').value);
    var exp = String(document.getElementById('card-expiry').value || '').replace(/\\s/g, '');
    var cvc = digits(document.getElementById('card-cvc').value);
    if (!/^\\d{12,19}$/.test(n) || !luhn(n)) return { error: 'Check the card number.', field: 'card-number' };
    var brand = brandOf(n);
    if (!brand) return { error: 'This card brand is not accepted.', field: 'card-number' };
    var m = /^(\\d{2})\\/?(\\d{2}|\\d{4})$/.exec(exp);
    if (!m || +m[1] < 1 || +m[1] > 12) return { error: 'Check the expiry date (MM/YY).', field: 'card-expiry' };
    var year = m[2].length === 2 ? 2000 + +m[2] : +m[2];
    var now = new Date();
    if (year < now.getFullYear() || (year === now.getFullYear() && +m[1] < now.getMonth() + 1)) return { error: 'The card has expired.', field: 'card-expiry' };
    if (!/^\\d{3,4}$/.test(cvc)) return { error: 'Check the security code (CVC).', field: 'card-cvc' };
    return { token: 'tok_sbx_' + brand + '_' + n.slice(-4) };
  }
  function tokenizeBank() {
    var r = digits(document.getElementById('bank-routing').value);
    var a = digits(document.getElementById('bank-account').value);
    if (!/^\\d{9}$/.test(r) || !aba(r)) return { error: 'Check the routing number.', field: 'bank-routing' };
    if (!/^\\d{4,17}$/.test(a)) return { error: 'Check the account number.', field: 'bank-account' };
    return { token: 'btok_sbx_' + r + '_' + a.slice(-4) };
  }
  function walletToken() { return { token: 'tok_sbx_visa_4242' }; }

  // Busy disables the form, which drops focus to the page body: when it is enabled again, focus returns to the
  // form's first field (the card number after a decline) or, for a wallet, its Pay button.
  function setBusy(form, busy) {
    Array.prototype.forEach.call(form.querySelectorAll('button, input'), function (el) { el.disabled = busy; });
    progress.textContent = busy ? 'Processing payment…' : '';
    if (!busy) { var first = form.querySelector('input, button'); if (first) first.focus(); }
  }

  Array.prototype.forEach.call(root.querySelectorAll('form[data-method]'), function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearError();
      var method = form.getAttribute('data-method');
      var t = method === 'card' ? tokenizeCard() : method === 'bank_transfer' ? tokenizeBank() : walletToken();
      if (t.error) { showError(t.error, t.field); return; }
      if (!pendingKey) pendingKey = newKey();
      var charge = { method: method, token: t.token };
      var email = String(document.getElementById('receipt-email').value || '').trim();
      if (email) charge.receiptEmail = email;
      setBusy(form, true);
      fetch('/pay/' + encodeURIComponent(id), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': pendingKey },
        body: JSON.stringify(charge)
      }).then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.ok) { pendingKey = null; window.location.reload(); return; }
          setBusy(form, false);
          if (res.status >= 500) { showError('Something went wrong; try again.'); return; }
          pendingKey = null;
          if (res.status === 402) { showError('Payment declined: ' + (body.detail || body.code) + ' (' + body.code + ')'); return; }
          if (res.status === 409) { window.location.reload(); return; }
          var emailRefused = (body.errors || []).some(function (e) { return e.path === 'receiptEmail'; });
          showError(emailRefused ? 'Check the e-mail address for the receipt, or leave it empty.' : body.detail || 'The payment could not be made.', emailRefused ? 'receipt-email' : null);
        });
      }, function () {
        setBusy(form, false);
        showError('No connection; try again (you will not be charged twice).');
      });
    });
  });
})();
`;
