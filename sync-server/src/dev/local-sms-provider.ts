/**
 * A local SMS provider speaking both HTTP APIs the server's carrier adapters use (modules/sms), for tests and
 * development without a carrier account:
 * - Twilio-compatible: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` (form-encoded `To`, `From`, `Body`,
 *   `StatusCallback`, HTTP basic auth with the account's SID and auth token) answers 201 with the message's `sid`
 *   (`SM` + 32 hex), then POSTs the signed status callbacks `sent` and `delivered` (`X-Twilio-Signature`) to
 *   `StatusCallback`; a wrong account or auth token is 401 with code 20003, a `To` that is not E.164 is 400 with
 *   code 21211, as Twilio answers;
 * - Vonage SMS API: `POST /sms/json` (form-encoded `api_key`, `api_secret`, `from`, `to`, `text`, `callback`,
 *   `client-ref`) answers 200 with one `messages[]` entry per part (core/sms-segments.ts), each with its
 *   `message-id`, then POSTs for each part the signed delivery receipts (`sig`, the account's signature secret and
 *   method) `accepted` and `delivered` to `callback`, form-encoded; wrong credentials are status "4", a `to` that is
 *   not a phone number status "3", as Vonage answers (HTTP 200 both);
 * - {@link LocalSmsProvider.failNext} makes the next API calls fail as asked (a 500, a 429, a 400 with a code; for
 *   Vonage a 200 with a refusal `status`), {@link LocalSmsProvider.undeliverableNext} makes the next message's last
 *   receipt a failure with a carrier code;
 * - {@link LocalSmsProvider.messages} lists what it received, {@link LocalSmsProvider.reply} sends a customer's
 *   signed reply (e.g. "STOP") to the server's Twilio inbound URL and records the TwiML message it is answered with;
 *   {@link LocalSmsProvider.replyVonage} sends one signed as Vonage does (JSON) to the Vonage inbound URL.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { smsSegments } from '../../../core/index.ts';
import { twilioSignature, vonageSignature } from '../modules/sms/index.ts';

/** The Vonage account of a local provider: what the server is configured with for `SMS_PROVIDER=vonage`. */
export interface LocalVonageAccount {
  apiKey: string;
  apiSecret: string;
  signatureSecret: string;
  signatureMethod: 'md5hash' | 'md5' | 'sha1' | 'sha256' | 'sha512';
}

/** Options of {@link startLocalSmsProvider}. */
export interface LocalSmsProviderOptions {
  /** The account the server is configured with (`SMS_ACCOUNT_SID`). Default `AC` + 32 zeros. */
  accountSid?: string;
  /** Its auth token (`SMS_AUTH_TOKEN`): checks the API calls and signs the callbacks. Default `local-auth-token`. */
  authToken?: string;
  /** Port on 127.0.0.1; default 0 (a free one). */
  port?: number;
  /** Send the `sent` and `delivered` callbacks after accepting a message (default true). */
  deliver?: boolean;
  /** Called with each message accepted from the server (not with replies). */
  onMessage?: (message: LocalSmsMessage) => void;
  /** The Vonage account (default key `localkey`, secret `local-api-secret`, signature secret `local-signature-secret`, sha256). */
  vonage?: Partial<LocalVonageAccount>;
  /** The clock of the receipts' and replies' Vonage `timestamp` (default: the real one). */
  clock?: () => Date;
}

/** A message the provider accepted, or a reply the server's TwiML asked it to send (`direction: 'reply'`). */
export interface LocalSmsMessage {
  /** Which API took it. */
  api: 'twilio' | 'vonage';
  /** Twilio's `sid`, or Vonage's first part's `message-id`. */
  sid: string;
  direction: 'outbound' | 'reply';
  from: string;
  to: string;
  body: string;
  statusCallback: string | null;
  /** Vonage's `client-ref` (the server's id of the message), else null. */
  clientRef: string | null;
  /** Vonage: one `message-id` per part. */
  partIds: string[];
  /** HTTP statuses the server answered each status callback with, in order. */
  callbackAnswers: number[];
}

/** A running local provider; see the file's comment. */
export interface LocalSmsProvider {
  /** `http://127.0.0.1:<port>`: the `SMS_API_BASE` to configure the server with. */
  url: string;
  accountSid: string;
  authToken: string;
  /** The Vonage account (`SMS_API_KEY`, `SMS_API_SECRET`, `SMS_SIGNATURE_SECRET`, `SMS_SIGNATURE_METHOD`). */
  vonage: LocalVonageAccount;
  /** Every message received (and reply sent), oldest first. */
  messages(): LocalSmsMessage[];
  /** The next `times` API calls answer `status` with a Twilio error JSON carrying `code` (default 1 call). */
  failNext(failure: { status: number; code?: number; message?: string; times?: number }): void;
  /**
   * A customer's reply `body` from `from` to the provider's number `to`, POSTed signed to `inboundUrl` as Twilio
   * does; resolves to the HTTP status and TwiML answer. A `<Message>` in it is recorded as a reply sent to `from`.
   */
  reply(input: { inboundUrl: string; from: string; to: string; body: string }): Promise<{ status: number; twiml: string }>;
  /**
   * The next message accepted (either API) is not delivered: its last status callback says so with carrier code
   * `code` (Twilio `undelivered` with `ErrorCode`; Vonage `vonageStatus`, default `failed`, with `err-code`).
   */
  undeliverableNext(failure: { code: string; vonageStatus?: 'failed' | 'expired' | 'rejected' }): void;
  /**
   * A customer's message `text` from `from` to the provider's number `to`, POSTed as JSON signed as Vonage signs its
   * inbound webhooks to `inboundUrl`; resolves to the HTTP status answered (Vonage answers a keyword with a new text,
   * which arrives through the API like any other).
   */
  replyVonage(input: { inboundUrl: string; from: string; to: string; text: string }): Promise<{ status: number }>;
  /** Stops listening (pending callbacks finish first). */
  close(): Promise<void>;
}

const newSid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** POSTs `params` signed as Twilio signs its requests; resolves to the status and text answered. */
async function postSigned(authToken: string, url: string, params: Record<string, string>): Promise<{ status: number; text: string }> {
  const form = new URLSearchParams(params);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(authToken, url, form) },
    body: form.toString(),
  });
  return { status: response.status, text: await response.text() };
}

/** POSTs `params` signed as Vonage signs its webhooks (`timestamp`, `nonce`, `sig` added), form-encoded or as JSON. */
async function postVonageSigned(
  account: LocalVonageAccount,
  now: Date,
  url: string,
  params: Record<string, string>,
  as: 'form' | 'json',
): Promise<{ status: number }> {
  const signed: Record<string, string> = { ...params, timestamp: String(Math.floor(now.getTime() / 1000)), nonce: randomBytes(8).toString('hex') };
  signed.sig = vonageSignature(account.signatureSecret, account.signatureMethod, Object.entries(signed));
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': as === 'json' ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: as === 'json' ? JSON.stringify(signed) : new URLSearchParams(signed).toString(),
  });
  await response.text();
  return { status: response.status };
}

/**
 * Starts a local SMS provider on 127.0.0.1 (see the file's comment). Configure the server with
 * `SMS_PROVIDER=twilio`, `SMS_API_BASE=<url>`, `SMS_ACCOUNT_SID=<accountSid>`, `SMS_AUTH_TOKEN=<authToken>`, or with
 * `SMS_PROVIDER=vonage`, `SMS_API_BASE=<url>` and the `vonage` account's key, secret, signature secret and method.
 */
export async function startLocalSmsProvider(options: LocalSmsProviderOptions = {}): Promise<LocalSmsProvider> {
  const accountSid = options.accountSid ?? `AC${'0'.repeat(32)}`;
  const authToken = options.authToken ?? 'local-auth-token';
  const vonage: LocalVonageAccount = {
    apiKey: 'localkey',
    apiSecret: 'local-api-secret',
    signatureSecret: 'local-signature-secret',
    signatureMethod: 'sha256',
    ...options.vonage,
  };
  const clock = options.clock ?? (() => new Date());
  const messages: LocalSmsMessage[] = [];
  const failures: { status: number; code?: number; message?: string }[] = [];
  const undeliverable: { code: string; vonageStatus?: 'failed' | 'expired' | 'rejected' }[] = [];
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    const p = work.catch(() => undefined).finally(() => pending.delete(p));
    pending.add(p);
  };

  const twilioCallbacks = async (message: LocalSmsMessage, failure: { code: string } | undefined) => {
    if (!message.statusCallback) return;
    for (const status of ['sent', failure ? 'undelivered' : 'delivered']) {
      const { status: answered } = await postSigned(authToken, message.statusCallback, {
        AccountSid: accountSid,
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        From: message.from,
        To: message.to,
        ...(status === 'undelivered' && failure ? { ErrorCode: failure.code } : {}),
      });
      message.callbackAnswers.push(answered);
    }
  };

  const vonageReceipts = async (message: LocalSmsMessage, failure: { code: string; vonageStatus?: string } | undefined) => {
    if (!message.statusCallback) return;
    for (const partId of message.partIds) {
      for (const status of ['accepted', failure ? (failure.vonageStatus ?? 'failed') : 'delivered']) {
        const { status: answered } = await postVonageSigned(
          vonage,
          clock(),
          message.statusCallback,
          {
            msisdn: message.to.replace(/^\+/, ''),
            to: message.from.replace(/^\+/, ''),
            'network-code': '00101',
            messageId: partId,
            price: '0.00570000',
            status,
            scts: '2601010000',
            'err-code': status === 'accepted' || status === 'delivered' ? '0' : failure!.code,
            'api-key': vonage.apiKey,
            ...(message.clientRef ? { 'client-ref': message.clientRef } : {}),
            'message-timestamp': clock().toISOString().slice(0, 19).replace('T', ' '),
          },
          'form',
        );
        message.callbackAnswers.push(answered);
      }
    }
  };

  const accept = (message: LocalSmsMessage) => {
    messages.push(message);
    options.onMessage?.(message);
    const failure = undeliverable.shift();
    if (options.deliver !== false) track(message.api === 'twilio' ? twilioCallbacks(message, failure) : vonageReceipts(message, failure));
  };

  const twilioApi = async (request: IncomingMessage, response: ServerResponse) => {
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    const params = new URLSearchParams(await readBody(request));
    if (request.headers.authorization !== expected) return sendJson(response, 401, { code: 20003, message: 'Authenticate', status: 401 });
    const failure = failures.shift();
    if (failure)
      return sendJson(response, failure.status, {
        code: failure.code ?? null,
        message: failure.message ?? 'Simulated failure',
        status: failure.status,
      });
    const to = params.get('To') ?? '';
    if (!/^\+[1-9]\d{6,14}$/.test(to))
      return sendJson(response, 400, { code: 21211, message: `The 'To' number ${to} is not a valid phone number.`, status: 400 });
    const message: LocalSmsMessage = {
      api: 'twilio',
      sid: newSid('SM'),
      direction: 'outbound',
      from: params.get('From') ?? '',
      to,
      body: params.get('Body') ?? '',
      statusCallback: params.get('StatusCallback'),
      clientRef: null,
      partIds: [],
      callbackAnswers: [],
    };
    sendJson(response, 201, { sid: message.sid, account_sid: accountSid, to: message.to, from: message.from, body: message.body, status: 'queued' });
    accept(message);
  };

  const vonageApi = async (request: IncomingMessage, response: ServerResponse) => {
    const params = new URLSearchParams(await readBody(request));
    const refuse = (status: number | string, errorText: string) =>
      sendJson(response, 200, { 'message-count': '1', messages: [{ status: String(status), 'error-text': errorText }] });
    if (params.get('api_key') !== vonage.apiKey || params.get('api_secret') !== vonage.apiSecret) return refuse(4, 'Bad Credentials');
    const failure = failures.shift();
    if (failure) {
      if (failure.status === 200) return refuse(failure.code ?? 5, failure.message ?? 'Simulated failure');
      return sendJson(response, failure.status, { type: 'about:blank', title: failure.message ?? 'Simulated failure' });
    }
    const to = params.get('to') ?? '';
    if (!/^[1-9]\d{6,14}$/.test(to)) return refuse(3, 'Invalid to address');
    const text = params.get('text') ?? '';
    const partIds = Array.from({ length: smsSegments(text).segments }, () => randomBytes(9).toString('hex').toUpperCase());
    const message: LocalSmsMessage = {
      api: 'vonage',
      sid: partIds[0]!,
      direction: 'outbound',
      from: `+${params.get('from') ?? ''}`,
      to: `+${to}`,
      body: text,
      statusCallback: params.get('callback'),
      clientRef: params.get('client-ref'),
      partIds,
      callbackAnswers: [],
    };
    sendJson(response, 200, {
      'message-count': String(partIds.length),
      messages: partIds.map((id) => ({
        to,
        'message-id': id,
        status: '0',
        'remaining-balance': '10.00000000',
        'message-price': '0.00570000',
        network: '00101',
        ...(message.clientRef ? { 'client-ref': message.clientRef } : {}),
      })),
    });
    accept(message);
  };

  const server = createServer((request, response) => {
    void (async () => {
      if (request.method === 'POST' && request.url === `/2010-04-01/Accounts/${accountSid}/Messages.json`) return twilioApi(request, response);
      if (request.method === 'POST' && request.url === '/sms/json') return vonageApi(request, response);
      return sendJson(response, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    })().catch(() => {
      if (!response.headersSent) sendJson(response, 500, { code: 20500, message: 'Internal Server Error', status: 500 });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    accountSid,
    authToken,
    vonage,
    messages: () => messages.map((m) => ({ ...m, partIds: [...m.partIds], callbackAnswers: [...m.callbackAnswers] })),
    failNext({ times = 1, ...failure }) {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    undeliverableNext(failure) {
      undeliverable.push(failure);
    },
    async reply({ inboundUrl, from, to, body }) {
      const { status, text } = await postSigned(authToken, inboundUrl, {
        AccountSid: accountSid,
        MessageSid: newSid('SM'),
        From: from,
        To: to,
        Body: body,
      });
      const answer = /<Message>([\s\S]*?)<\/Message>/.exec(text)?.[1];
      if (answer !== undefined) {
        const unescaped = answer.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
        messages.push({
          api: 'twilio',
          sid: newSid('SM'),
          direction: 'reply',
          from: to,
          to: from,
          body: unescaped,
          statusCallback: null,
          clientRef: null,
          partIds: [],
          callbackAnswers: [],
        });
      }
      return { status, twiml: text };
    },
    async replyVonage({ inboundUrl, from, to, text }) {
      return postVonageSigned(
        vonage,
        clock(),
        inboundUrl,
        {
          msisdn: from.replace(/^\+/, ''),
          to: to.replace(/^\+/, ''),
          messageId: randomBytes(9).toString('hex').toUpperCase(),
          text,
          type: 'text',
          keyword: text.trim().split(/\s+/)[0]?.toUpperCase() ?? '',
          'api-key': vonage.apiKey,
          'message-timestamp': clock().toISOString().slice(0, 19).replace('T', ' '),
        },
        'json',
      );
    },
    async close() {
      await Promise.all(pending);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Demo mode's local SMS provider (main.ts; the e2e suites): each text the server sends is appended to `file` as one
 * JSON line — `at` (ISO time), `sid` (the provider's message id, which the server keeps as
 * `sms_outbox.provider_message_id`), `from`, `to`, `body` — before `onText` is told (e.g. to log it without its body).
 * The back office's Demo outbox shows a store the lines whose `sid` its own outbox sent
 * (platform/messaging/demo-outbox.ts).
 */
export async function startDemoSmsProvider(file: string, onText?: (message: LocalSmsMessage, file: string) => void): Promise<LocalSmsProvider> {
  await mkdir(dirname(file), { recursive: true });
  let written = Promise.resolve();
  return startLocalSmsProvider({
    onMessage: (m) => {
      const line = `${JSON.stringify({ at: new Date().toISOString(), sid: m.sid, from: m.from, to: m.to, body: m.body })}\n`;
      // One line after the other, in the order received.
      written = written.then(() => appendFile(file, line)).catch(() => undefined);
      onText?.(m, file);
    },
  });
}
