/**
 * The back office's Messages routes (docs/decisions/0095-messages-view-and-demo-outbox.md), beside the two outbox
 * lists of routes.ts: the latest e-mail and text sent about one invoice, order or pay request; the store's suppressed
 * addresses (with a manager's audited lifting of one) and opted-out phones; and demo mode's Demo outbox — what the local
 * mail server and SMS provider received, shown to a store only where its own outbox sent it.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { demoMailSchema, demoOutboxListSchema, demoTextSchema, pageQueryFields, pageSchema } from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { liftEmailSuppression } from '../../platform/messaging/email.ts';
import { DemoOutbox } from '../../platform/messaging/demo-outbox.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { emailOutboxPage, listEmailSuppressions, listSmsOptOuts, smsOutboxPage } from './service.ts';

/** What a message is about: `invoice:<id>`, `order:<id>` (a receipt), `pay_request:<id>`. */
export const subjectRefSchema = z
  .string()
  .regex(/^(invoice|order|pay_request):[A-Za-z0-9_]{1,64}$/, 'must be invoice:<id>, order:<id> or pay_request:<id>')
  .describe('What the message is about: `invoice:<id>`, `order:<id>` (a receipt) or `pay_request:<id>`');

const pageQuery = z.strictObject(pageQueryFields);
const latestQuery = z.strictObject({ subjectRef: subjectRefSchema });
const suppressionParams = z.strictObject({ address: z.string().min(3).max(320).describe('The suppressed address (any case)') });
const demoListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('At most this many, newest first (default 100)'),
});
const demoMailParams = z.strictObject({ id: z.string().regex(/^\d{1,9}$/, 'must be the number of the e-mail') });
const demoTextParams = z.strictObject({ id: z.string().regex(/^[A-Za-z0-9]{2,64}$/, "must be the provider's message id") });

const emailSuppression = z.strictObject({
  address: z.string(),
  reason: z
    .string()
    .describe(
      "Why: the mail server's permanent refusal during the session, or a report received later by mail — `bounce: <status> <diagnostic>` (a delivery status notification) or `complaint: abuse …` (a feedback-loop report)",
    ),
  emailId: z.string().describe('The message that bounced or was complained about'),
  createdAt: z.iso.datetime(),
});
const smsOptOut = z.strictObject({
  phone: z.string().describe('E.164'),
  keyword: z.string().describe('What the phone answered (STOP, UNSUBSCRIBE, …); it answers START to receive texts again'),
  optedOutAt: z.iso.datetime(),
});
const DEMO_OFF = 'Demo outbox: this server sends through real providers (SMTP_URL, SMS_PROVIDER); there is no local outbox to read.';

/**
 * Registers the routes of the file's comment. `entries` are the outbox entry schemas of routes.ts (the latest message
 * of a subject is shaped as the lists' rows).
 */
export function registerMessageRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  entries: { smsOutboxEntry: z.ZodType; emailOutboxEntry: z.ZodType },
): void {
  const demo = ctx.config.demoOutbox ? new DemoOutbox(ctx.config.demoOutbox) : null;

  app.get(
    '/api/pos/messages/latest',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'The latest e-mail and text about an invoice, order or pay request',
          description:
            'The newest message of each channel the server sent about `subjectRef` (an invoice and its reminders, a receipt of an order, a pay request), with its delivery state; null where none was sent.',
          tags: ['outbox'],
          access: 'register',
          query: latestQuery,
          response: z.strictObject({ email: entries.emailOutboxEntry.nullable(), sms: entries.smsOutboxEntry.nullable() }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { subjectRef } = parseOrThrow(latestQuery, request.query, '(query)');
      const { merchantId } = principalOf(request);
      const [email, sms] = await Promise.all([
        emailOutboxPage(ctx.db, merchantId, { limit: 1, subjectRef }),
        smsOutboxPage(ctx.db, merchantId, { limit: 1, subjectRef }),
      ]);
      return { email: email.data[0] ?? null, sms: sms.data[0] ?? null };
    },
  );

  app.get(
    '/api/pos/email-suppressions',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List suppressed e-mail addresses',
          description:
            "Addresses the store's mail was refused for for good (a bounce, during the session or reported later by mail) or whose recipient complained (a feedback-loop report), newest first: no e-mail is sent to them (they are written `suppressed`) until a manager lifts the suppression.",
          tags: ['outbox'],
          access: 'staff',
          query: pageQuery,
          response: pageSchema(emailSuppression),
        } satisfies RouteDoc,
      },
    },
    async (request) => listEmailSuppressions(ctx.db, principalOf(request).merchantId, parseOrThrow(pageQuery, request.query, '(query)')),
  );

  app.delete(
    '/api/pos/email-suppressions/:address',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Lift the suppression of an e-mail address',
          description:
            'Later e-mails to the address are sent again (say, the customer fixed their mailbox). Audited (`email.suppression_lifted`, with the bounce it had recorded). Messages already written `suppressed` stay so.',
          tags: ['outbox'],
          access: 'staff',
          params: suppressionParams,
          status: 204,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const { address } = parseOrThrow(suppressionParams, request.params, '(path)');
      const principal = principalOf(request);
      await mutation(ctx, actorOf(principal), async (m) => {
        const lifted = await liftEmailSuppression(m.tx, m.merchantId, address);
        if (!lifted) throw new ProblemError(404, 'not_found', `The address ${address} is not suppressed.`);
        await m.audit({
          action: 'email.suppression_lifted',
          entityType: 'email_address',
          entityId: lifted.address,
          data: { reason: lifted.reason, emailId: lifted.emailId },
        });
      });
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/pos/sms-opt-outs',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List phones that opted out of texts',
          description:
            "Phones that answered STOP (or UNSUBSCRIBE, CANCEL, …) to the store's texts, newest first: texts to them are written `opted_out` and never sent. Only the customer lifts it, by answering START.",
          tags: ['outbox'],
          access: 'staff',
          query: pageQuery,
          response: pageSchema(smsOptOut),
        } satisfies RouteDoc,
      },
    },
    async (request) => listSmsOptOuts(ctx.db, principalOf(request).merchantId, parseOrThrow(pageQuery, request.query, '(query)')),
  );

  const demoOutbox = (): DemoOutbox => {
    if (!demo) throw new ProblemError(404, 'not_found', DEMO_OFF);
    return demo;
  };

  app.get(
    '/api/pos/demo-outbox',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List what the demo outbox received',
          description:
            "Demo mode only (404 when real providers send): the e-mails the local mail server and the texts the local SMS provider received from this store's outboxes, newest first. Nothing in it left the machine.",
          tags: ['outbox'],
          access: 'staff',
          query: demoListQuery,
          response: demoOutboxListSchema,
          errors: { 404: 'Not in demo mode: real providers send (`not_found`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { limit } = parseOrThrow(demoListQuery, request.query, '(query)');
      const outbox = demoOutbox();
      return {
        email: outbox.config.mailDir !== null,
        sms: outbox.config.smsFile !== null,
        data: await outbox.list(ctx.db, principalOf(request).merchantId, limit),
      };
    },
  );

  app.get(
    '/api/pos/demo-outbox/mail/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Open an e-mail of the demo outbox',
          description: 'Its headers, text and HTML parts and the list of its attachments. 404 for a message of another store.',
          tags: ['outbox'],
          access: 'staff',
          params: demoMailParams,
          response: demoMailSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(demoMailParams, request.params, '(path)');
      const mail = await demoOutbox().mail(ctx.db, principalOf(request).merchantId, id);
      if (!mail) throw new ProblemError(404, 'not_found', `No e-mail ${id} of this store in the demo outbox.`);
      return mail;
    },
  );

  app.get(
    '/api/pos/demo-outbox/sms/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Open a text of the demo outbox',
          description: 'As the local SMS provider received it. 404 for a text of another store.',
          tags: ['outbox'],
          access: 'staff',
          params: demoTextParams,
          response: demoTextSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(demoTextParams, request.params, '(path)');
      const text = await demoOutbox().text(ctx.db, principalOf(request).merchantId, id);
      if (!text) throw new ProblemError(404, 'not_found', `No text ${id} of this store in the demo outbox.`);
      return text;
    },
  );
}
