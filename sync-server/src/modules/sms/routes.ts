/**
 * The carrier's callbacks (docs/api.md "SMS"): `POST /api/sms/status/twilio` (a message's later states) and
 * `POST /api/sms/inbound/twilio` (a customer's reply: STOP, START, HELP). Both are form-encoded, signed with
 * `X-Twilio-Signature` ({@link isValidTwilioSignature}) over `ServerConfig.baseUrl` + the request's path and query;
 * a missing or wrong signature is 403 and changes nothing. Mounted only when a carrier is configured.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { mutation } from '../../kernel/mutation.ts';
import { isValidTwilioSignature, type TwilioConfig } from './carrier.ts';

/** Order of the delivery states: a callback only moves a message forward. */
const STATES_BEFORE: Record<'sent' | 'delivered' | 'failed', readonly string[]> = {
  sent: ['queued', 'sending'],
  delivered: ['queued', 'sending', 'sent'],
  failed: ['queued', 'sending', 'sent'],
};

/** Twilio's `MessageStatus` values that move a message; the others (queued, accepted, sending, …) are acknowledged only. */
const TWILIO_STATUS: Record<string, keyof typeof STATES_BEFORE> = { sent: 'sent', delivered: 'delivered', failed: 'failed', undelivered: 'failed' };

/** Opt-out and opt-in keywords (the whole reply, any case, surrounding spaces and a final period ignored). */
const STOP_KEYWORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const START_KEYWORDS = new Set(['START', 'UNSTOP', 'YES']);
const HELP_KEYWORDS = new Set(['HELP', 'INFO']);

/** A text as XML character data. */
function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** TwiML answering with one message, or with none. */
function twiml(message: string | null): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${message === null ? '' : `<Message>${xmlText(message)}</Message>`}</Response>`;
}

/** The form parameters of a signed request. @throws ProblemError 403 when the signature is missing or wrong. */
function signedParams(ctx: AppContext, config: TwilioConfig, request: FastifyRequest): URLSearchParams {
  const params = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
  const header = request.headers['x-twilio-signature'];
  const signature = Array.isArray(header) ? header[0] : header;
  if (!isValidTwilioSignature(config.authToken, `${ctx.config.baseUrl}${request.url}`, params, signature))
    throw new ProblemError(403, 'invalid_signature', 'X-Twilio-Signature is missing or does not sign this request.');
  return params;
}

/** Mounts the carrier's signed callbacks (form-encoded bodies are parsed in their own scope only). */
export function registerSmsRoutes(app: FastifyInstance, ctx: AppContext, config: TwilioConfig): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    scope.post('/api/sms/status/twilio', async (request, reply) => {
      const params = signedParams(ctx, config, request);
      const state = TWILIO_STATUS[params.get('MessageStatus') ?? ''];
      const sid = params.get('MessageSid') ?? params.get('SmsSid') ?? '';
      const ours = new URL(request.url, 'http://callback').searchParams.get('message');
      if (state && sid) {
        const code = state === 'failed' ? params.get('ErrorCode') || null : null;
        const now = ctx.clock().toISOString();
        // Our id in the callback URL finds the message even before the worker stored the carrier's sid.
        await ctx.db.query(
          `UPDATE sms_outbox SET status = $3, provider_message_id = COALESCE(provider_message_id, $2), provider_code = COALESCE($4, provider_code),
                  locked_until = NULL, next_attempt_at = NULL, updated_at = $5
            WHERE (($1::text IS NOT NULL AND id = $1 AND (provider_message_id IS NULL OR provider_message_id = $2)) OR ($1::text IS NULL AND provider_message_id = $2))
              AND status = ANY($6::text[])`,
          [ours, sid, state, code, now, STATES_BEFORE[state]],
        );
      }
      return reply.code(204).send();
    });

    scope.post('/api/sms/inbound/twilio', async (request, reply) => {
      const params = signedParams(ctx, config, request);
      const from = params.get('From') ?? '';
      const keyword = (params.get('Body') ?? '').trim().replace(/\.$/, '').toUpperCase();
      // The store a reply answers: the one whose text to this phone is the newest (every store sends from the
      // deployment's one number, so `To` does not tell them apart).
      const { rows } = await ctx.db.query<{ merchant_id: string; name: string }>(
        `SELECT o.merchant_id, m.name FROM sms_outbox o JOIN merchants m ON m.id = o.merchant_id
          WHERE o.to_phone = $1 ORDER BY o.created_at DESC, o.id DESC LIMIT 1`,
        [from],
      );
      const store = rows[0];
      const name = store?.name ?? 'Register';
      // The phone's consent, changed through the kernel: under the store's write lock and in its audit trail (who
      // opted out or back in, with which keyword, when), as a record of consent must be kept.
      const consent = (optedOut: boolean) =>
        store
          ? mutation(ctx, { merchantId: store.merchant_id, actor: 'system' }, async (m) => {
              const now = m.now.toISOString();
              if (optedOut) {
                await m.tx.query(
                  `INSERT INTO sms_opt_outs (merchant_id, phone, keyword, opted_out_at) VALUES ($1, $2, $3, $4)
                   ON CONFLICT (merchant_id, phone) DO UPDATE SET keyword = EXCLUDED.keyword, opted_out_at = EXCLUDED.opted_out_at`,
                  [m.merchantId, from, keyword, now],
                );
                await m.tx.query(
                  `UPDATE sms_outbox SET status = 'opted_out', locked_until = NULL, next_attempt_at = NULL, updated_at = $3
                    WHERE merchant_id = $1 AND to_phone = $2 AND status = 'queued'`,
                  [m.merchantId, from, now],
                );
              } else {
                await m.tx.query('DELETE FROM sms_opt_outs WHERE merchant_id = $1 AND phone = $2', [m.merchantId, from]);
              }
              await m.audit({ action: optedOut ? 'sms.opted_out' : 'sms.opted_in', entityType: 'phone', entityId: from, data: { keyword } });
            })
          : Promise.resolve();
      let answer: string | null = null;
      if (STOP_KEYWORDS.has(keyword)) {
        await consent(true);
        answer = `${name}: you are unsubscribed and will receive no more messages from us. Reply START to resubscribe.`;
      } else if (START_KEYWORDS.has(keyword)) {
        await consent(false);
        answer = `${name}: you are subscribed again to payment links and receipts. Reply STOP to unsubscribe.`;
      } else if (HELP_KEYWORDS.has(keyword)) {
        answer = `${name}: payment links and receipts you asked for. Reply STOP to unsubscribe, START to resubscribe.`;
      }
      return reply.type('text/xml; charset=utf-8').send(twiml(answer));
    });
  });
}
