/**
 * A local SMS provider speaking the Twilio-compatible HTTP API the server's carrier adapter uses (modules/sms), for
 * tests and development without a carrier account:
 * - `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` (form-encoded `To`, `From`, `Body`, `StatusCallback`,
 *   HTTP basic auth with the account's SID and auth token) answers 201 with the message's `sid` (`SM` + 32 hex), then
 *   POSTs the signed status callbacks `sent` and `delivered` (`X-Twilio-Signature`) to `StatusCallback`;
 * - a wrong account or auth token is 401 with code 20003, a `To` that is not E.164 is 400 with code 21211, as Twilio
 *   answers; {@link LocalSmsProvider.failNext} makes the next calls fail as asked (a 500, a 429, a 400 with a code);
 * - {@link LocalSmsProvider.messages} lists what it received, {@link LocalSmsProvider.reply} sends a customer's
 *   signed reply (e.g. "STOP") to the server's inbound URL and records the TwiML message it is answered with.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { twilioSignature } from '../modules/sms/index.ts';

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
}

/** A message the provider accepted, or a reply the server's TwiML asked it to send (`direction: 'reply'`). */
export interface LocalSmsMessage {
  sid: string;
  direction: 'outbound' | 'reply';
  from: string;
  to: string;
  body: string;
  statusCallback: string | null;
  /** HTTP statuses the server answered each status callback with, in order. */
  callbackAnswers: number[];
}

/** A running local provider; see the file's comment. */
export interface LocalSmsProvider {
  /** `http://127.0.0.1:<port>`: the `SMS_API_BASE` to configure the server with. */
  url: string;
  accountSid: string;
  authToken: string;
  /** Every message received (and reply sent), oldest first. */
  messages(): LocalSmsMessage[];
  /** The next `times` API calls answer `status` with a Twilio error JSON carrying `code` (default 1 call). */
  failNext(failure: { status: number; code?: number; message?: string; times?: number }): void;
  /**
   * A customer's reply `body` from `from` to the provider's number `to`, POSTed signed to `inboundUrl` as Twilio
   * does; resolves to the HTTP status and TwiML answer. A `<Message>` in it is recorded as a reply sent to `from`.
   */
  reply(input: { inboundUrl: string; from: string; to: string; body: string }): Promise<{ status: number; twiml: string }>;
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

/**
 * Starts a local Twilio-compatible SMS provider on 127.0.0.1 (see the file's comment). Configure the server with
 * `SMS_PROVIDER=twilio`, `SMS_API_BASE=<url>`, `SMS_ACCOUNT_SID=<accountSid>`, `SMS_AUTH_TOKEN=<authToken>`.
 */
export async function startLocalSmsProvider(options: LocalSmsProviderOptions = {}): Promise<LocalSmsProvider> {
  const accountSid = options.accountSid ?? `AC${'0'.repeat(32)}`;
  const authToken = options.authToken ?? 'local-auth-token';
  const messages: LocalSmsMessage[] = [];
  const failures: { status: number; code?: number; message?: string }[] = [];
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    const p = work.catch(() => undefined).finally(() => pending.delete(p));
    pending.add(p);
  };

  const callbacks = async (message: LocalSmsMessage) => {
    if (!message.statusCallback) return;
    for (const status of ['sent', 'delivered']) {
      const { status: answered } = await postSigned(authToken, message.statusCallback, {
        AccountSid: accountSid,
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        From: message.from,
        To: message.to,
      });
      message.callbackAnswers.push(answered);
    }
  };

  const server = createServer((request, response) => {
    void (async () => {
      const path = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
      if (request.method !== 'POST' || request.url !== path)
        return sendJson(response, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
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
        sid: newSid('SM'),
        direction: 'outbound',
        from: params.get('From') ?? '',
        to,
        body: params.get('Body') ?? '',
        statusCallback: params.get('StatusCallback'),
        callbackAnswers: [],
      };
      messages.push(message);
      options.onMessage?.(message);
      sendJson(response, 201, {
        sid: message.sid,
        account_sid: accountSid,
        to: message.to,
        from: message.from,
        body: message.body,
        status: 'queued',
      });
      if (options.deliver !== false) track(callbacks(message));
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
    messages: () => messages.map((m) => ({ ...m, callbackAnswers: [...m.callbackAnswers] })),
    failNext({ times = 1, ...failure }) {
      for (let i = 0; i < times; i++) failures.push(failure);
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
        messages.push({ sid: newSid('SM'), direction: 'reply', from: to, to: from, body: unescaped, statusCallback: null, callbackAnswers: [] });
      }
      return { status, twiml: text };
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
