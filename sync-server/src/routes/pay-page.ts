import type { FastifyInstance } from 'fastify';
import { formatMoney } from '../../../core/index.ts';
import type { AppContext } from '../context.ts';
import { getPayRequest } from '../services/pay-requests.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.amount{font-size:2.5rem;font-weight:700;margin:.5rem 0}.sandbox{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem .75rem;border-radius:.5rem}
.status{display:inline-block;padding:.15rem .6rem;border-radius:1rem;background:#eef;font-weight:600}</style></head>
<body>${body}</body></html>`;
}

/**
 * The hosted pay page a Text-to-Pay SMS links to (DESIGN §5). Payment rails are a later issue: the page shows the
 * request and says plainly that it is a sandbox.
 */
export function registerPayPage(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/pay/:id', async (request, reply) => {
    const id = request.params.id;
    const record = /^pr_[0-9A-HJKMNP-TV-Z]{26}$/.test(id) ? await getPayRequest(ctx.db, id) : undefined;
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store');
    if (!record) {
      return reply.code(404).send(page('Payment link not found', '<h1>Payment link not found</h1><p>Check the link in your text message.</p>'));
    }
    const merchant = (await ctx.db.query<{ name: string }>('SELECT name FROM merchants WHERE id = $1', [record.merchantId])).rows[0];
    const status = record.status === 'pending' && new Date(record.expiresAt) <= ctx.clock() ? 'expired' : record.status;
    const lines = (record.lineItems ?? [])
      .map((l) => `<li>${l.quantity} × ${escapeHtml(l.name)} — ${escapeHtml(formatMoney(l.grossCents, record.currency))}</li>`)
      .join('');
    return page(
      `Pay ${merchant?.name ?? ''}`,
      `<p class="sandbox"><strong>Sandbox</strong> — this is a demo payment page. No real money moves and no card is charged.</p>
<h1>${escapeHtml(merchant?.name ?? 'Merchant')}</h1>
<div class="amount">${escapeHtml(formatMoney(record.amountCents, record.currency))}</div>
${record.memo ? `<p>${escapeHtml(record.memo)}</p>` : ''}
${lines ? `<ul>${lines}</ul>` : ''}
<p>Status: <span class="status" data-status="${status}">${status}</span></p>
<p>Link expires ${escapeHtml(new Date(record.expiresAt).toUTCString())}.</p>
<p><small>Apple Pay, Google Pay, card and bank transfer will be offered here once payment rails are connected.</small></p>`,
    );
  });
}
