/**
 * The carrier's callbacks (docs/api.md "SMS delivery"), mounted for the configured carrier only:
 * - Twilio: `POST /api/sms/status/twilio` (a message's later states) and `POST /api/sms/inbound/twilio` (a customer's
 *   reply), form-encoded, signed with `X-Twilio-Signature` ({@link isValidTwilioSignature}) over
 *   `ServerConfig.baseUrl` + the request's path and query; the answer to a keyword is TwiML.
 * - Vonage: `/api/sms/status/vonage` (delivery receipts) and `/api/sms/inbound/vonage` (inbound messages), as `GET`
 *   query or `POST` form or JSON, signed with the `sig` parameter ({@link isValidVonageSignature}); the answer to a
 *   keyword is a new text (`keyword_reply` in `sms_outbox`), Vonage having no inline answer.
 * A missing or wrong signature is 403 and changes nothing. Both carriers' states and keywords go through the same
 * {@link recordDeliveryState} and {@link answerKeyword} (docs/decisions/0091, 0092).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { mutation } from '../../kernel/mutation.ts';
import { newId } from '../../../../core/index.ts';
import { isValidTwilioSignature, type TwilioConfig } from './carrier.ts';
import { isValidVonageSignature, type VonageConfig } from './vonage.ts';

/** A delivery state a carrier's callback moves a message to. */
type DeliveryState = 'sent' | 'delivered' | 'failed';

/** Order of the delivery states: a callback only moves a message forward. */
const STATES_BEFORE: Record<DeliveryState, readonly string[]> = {
  sent: ['queued', 'sending'],
  delivered: ['queued', 'sending', 'sent'],
  failed: ['queued', 'sending', 'sent'],
};

/** Twilio's `MessageStatus` values that move a message; the others (queued, accepted, sending, …) are acknowledged only. */
const TWILIO_STATUS: Record<string, DeliveryState> = { sent: 'sent', delivered: 'delivered', failed: 'failed', undelivered: 'failed' };

/** Opt-out and opt-in keywords (the whole reply, any case, surrounding spaces and a final period ignored). */
/**
 * Vonage's delivery receipt `status` values that move a message: `accepted` (taken by the network) and `buffered`
 * (waiting for the handset) are `sent`; `expired`, `failed` and `rejected` are `failed` with the receipt's `err-code`;
 * `unknown` is acknowledged only.
 */
const VONAGE_STATUS: Record<string, DeliveryState> = {
  accepted: 'sent',
  buffered: 'sent',
  delivered: 'delivered',
  expired: 'failed',
  failed: 'failed',
  rejected: 'failed',
};

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

/** The form parameters of a request signed by Twilio. @throws ProblemError 403 when the signature is missing or wrong. */
function twilioParams(ctx: AppContext, config: TwilioConfig, request: FastifyRequest): URLSearchParams {
  const params = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
  const header = request.headers['x-twilio-signature'];
  const signature = Array.isArray(header) ? header[0] : header;
  if (!isValidTwilioSignature(config.authToken, `${ctx.config.baseUrl}${request.url}`, params, signature))
    throw new ProblemError(403, 'invalid_signature', 'X-Twilio-Signature is missing or does not sign this request.');
  return params;
}

/**
 * The parameters of a request signed by Vonage: the query of a `GET`, the form or JSON body of a `POST` (JSON scalars
 * as text). @throws ProblemError 403 when `sig` or `timestamp` is missing or wrong.
 */
function vonageParams(ctx: AppContext, config: VonageConfig, request: FastifyRequest): Map<string, string> {
  const params = new Map<string, string>();
  if (request.method === 'GET') {
    for (const [name, value] of new URL(request.url, 'http://callback').searchParams) params.set(name, value);
  } else if (typeof request.body === 'string') {
    for (const [name, value] of new URLSearchParams(request.body)) params.set(name, value);
  } else if (request.body && typeof request.body === 'object' && !Array.isArray(request.body)) {
    for (const [name, value] of Object.entries(request.body as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') params.set(name, String(value));
    }
  }
  if (!isValidVonageSignature(config, params, ctx.clock()))
    throw new ProblemError(403, 'invalid_signature', 'sig is missing or does not sign this request (or its timestamp is not current).');
  return params;
}

/**
 * Moves message `id` (ours, when the carrier echoes it) or the one with carrier id `providerMessageId` to `state`,
 * forward only, keeping `code` (the carrier's failure code). `anyPart`: the carrier reports each part of a long text
 * under its own id (Vonage), so our id alone finds the message; otherwise the carrier id must be the stored one.
 */
async function recordDeliveryState(
  ctx: AppContext,
  update: { id: string | null; providerMessageId: string; state: DeliveryState; code: string | null; anyPart: boolean },
): Promise<void> {
  const { id, providerMessageId, state, code, anyPart } = update;
  // Relay bookkeeping, as the worker's: no business row, no audit entry.
  await ctx.db.query(
    `UPDATE sms_outbox SET status = $3, provider_message_id = COALESCE(provider_message_id, $2), provider_code = COALESCE($4, provider_code),
            locked_until = NULL, next_attempt_at = NULL, updated_at = $5
      WHERE (($1::text IS NOT NULL AND id = $1 AND ($7 OR provider_message_id IS NULL OR provider_message_id = $2)) OR ($1::text IS NULL AND provider_message_id = $2))
        AND status = ANY($6::text[])`,
    [id, providerMessageId, state, state === 'failed' ? code : null, ctx.clock().toISOString(), STATES_BEFORE[state], anyPart],
  );
}

/**
 * A customer's reply `text` from `from` (E.164), for either carrier: STOP, START, HELP (and their synonyms) answered,
 * anything else not. The store a reply answers is the one whose text to this phone is the newest (every store sends
 * from the deployment's one number, so the number texted does not tell them apart). The phone's consent changes
 * through the kernel: under the store's write lock and in its audit trail (who opted out or back in, with which
 * keyword, when), as a record of consent must be kept. With `queueAnswer` (a carrier with no inline answer) the
 * answer is also written to `sms_outbox` as a `keyword_reply` in the same transaction — the one text an opted-out
 * phone still gets — when a store is found. Returns the answer, or null.
 */
async function answerKeyword(ctx: AppContext, from: string, text: string, queueAnswer: boolean): Promise<string | null> {
  const keyword = text.trim().replace(/\.$/, '').toUpperCase();
  const { rows } = await ctx.db.query<{ merchant_id: string; name: string }>(
    `SELECT o.merchant_id, m.name FROM sms_outbox o JOIN merchants m ON m.id = o.merchant_id
      WHERE o.to_phone = $1 ORDER BY o.created_at DESC, o.id DESC LIMIT 1`,
    [from],
  );
  const store = rows[0];
  const name = store?.name ?? 'Register';
  const consent: boolean | null = STOP_KEYWORDS.has(keyword) ? true : START_KEYWORDS.has(keyword) ? false : null;
  let answer: string | null = null;
  if (consent === true) answer = `${name}: you are unsubscribed and will receive no more messages from us. Reply START to resubscribe.`;
  else if (consent === false) answer = `${name}: you are subscribed again to payment links and receipts. Reply STOP to unsubscribe.`;
  else if (HELP_KEYWORDS.has(keyword)) answer = `${name}: payment links and receipts you asked for. Reply STOP to unsubscribe, START to resubscribe.`;
  if (!store || (consent === null && (answer === null || !queueAnswer))) return answer;
  await mutation(ctx, { merchantId: store.merchant_id, actor: 'system' }, async (m) => {
    const now = m.now.toISOString();
    if (consent === true) {
      await m.tx.query(
        `INSERT INTO sms_opt_outs (merchant_id, phone, keyword, opted_out_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (merchant_id, phone) DO UPDATE SET keyword = EXCLUDED.keyword, opted_out_at = EXCLUDED.opted_out_at`,
        [m.merchantId, from, keyword, now],
      );
      await m.tx.query(
        `UPDATE sms_outbox SET status = 'opted_out', locked_until = NULL, next_attempt_at = NULL, updated_at = $3
          WHERE merchant_id = $1 AND to_phone = $2 AND status = 'queued' AND kind <> 'keyword_reply'`,
        [m.merchantId, from, now],
      );
    } else if (consent === false) {
      await m.tx.query('DELETE FROM sms_opt_outs WHERE merchant_id = $1 AND phone = $2', [m.merchantId, from]);
    }
    if (consent !== null)
      await m.audit({ action: consent ? 'sms.opted_out' : 'sms.opted_in', entityType: 'phone', entityId: from, data: { keyword } });
    if (queueAnswer && answer !== null) {
      await m.tx.query(
        `INSERT INTO sms_outbox (id, merchant_id, to_phone, body, kind, created_at, updated_at, status)
         VALUES ($1, $2, $3, $4, 'keyword_reply', $5, $5, 'queued')`,
        [newId('sms'), m.merchantId, from, answer, now],
      );
    }
  });
  return answer;
}

/** The configured carrier whose callbacks {@link registerSmsRoutes} mounts. */
export type SmsCallbackCarrier = { twilio: TwilioConfig; vonage?: null } | { vonage: VonageConfig; twilio?: null };

/** Mounts the configured carrier's signed callbacks (form-encoded bodies are parsed in their own scope only). */
export function registerSmsRoutes(app: FastifyInstance, ctx: AppContext, carrier: SmsCallbackCarrier): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    const { twilio, vonage } = carrier;
    if (twilio) {
      scope.post('/api/sms/status/twilio', async (request, reply) => {
        const params = twilioParams(ctx, twilio, request);
        const state = TWILIO_STATUS[params.get('MessageStatus') ?? ''];
        const sid = params.get('MessageSid') ?? params.get('SmsSid') ?? '';
        // Our id in the callback URL (signed with it) finds the message even before the worker stored the carrier's sid.
        const ours = new URL(request.url, 'http://callback').searchParams.get('message');
        if (state && sid)
          await recordDeliveryState(ctx, { id: ours, providerMessageId: sid, state, code: params.get('ErrorCode') || null, anyPart: false });
        return reply.code(204).send();
      });

      scope.post('/api/sms/inbound/twilio', async (request, reply) => {
        const params = twilioParams(ctx, twilio, request);
        const answer = await answerKeyword(ctx, params.get('From') ?? '', params.get('Body') ?? '', false);
        return reply.type('text/xml; charset=utf-8').send(twiml(answer));
      });
    }

    if (vonage) {
      const status = async (request: FastifyRequest, reply: FastifyReply) => {
        const params = vonageParams(ctx, vonage, request);
        const state = VONAGE_STATUS[params.get('status') ?? ''];
        const messageId = params.get('messageId') ?? '';
        // `client-ref` (ours, signed with the receipt) finds the message whichever part the receipt is for.
        if (state && messageId)
          await recordDeliveryState(ctx, {
            id: params.get('client-ref') || null,
            providerMessageId: messageId,
            state,
            code: params.get('err-code') || null,
            anyPart: true,
          });
        return reply.code(204).send();
      };
      const inbound = async (request: FastifyRequest, reply: FastifyReply) => {
        const params = vonageParams(ctx, vonage, request);
        const msisdn = (params.get('msisdn') ?? '').replace(/^\+/, '');
        await answerKeyword(ctx, `+${msisdn}`, params.get('text') ?? '', true);
        return reply.code(204).send();
      };
      scope.get('/api/sms/status/vonage', status);
      scope.post('/api/sms/status/vonage', status);
      scope.get('/api/sms/inbound/vonage', inbound);
      scope.post('/api/sms/inbound/vonage', inbound);
    }
  });
}
