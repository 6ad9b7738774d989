import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { journalTransactionSchema, pageQueryFields, pageSchema } from '../../../../core/index.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { checkpointAt, listCheckpoints, newestCheckpoint, writeCheckpoint } from '../../kernel/checkpoints.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { verifyAuditTrail, type AuditVerifyOptions } from '../../kernel/verify.ts';
import { trialBalance } from '../../kernel/ledger.ts';
import { emailOutboxPage, listJournalTransactions, listQuarantine, smsOutboxPage } from './service.ts';
import { registerMessageRoutes, subjectRefSchema } from './message-routes.ts';

const pageQuery = z.strictObject(pageQueryFields);
const smsStatus = z.enum(['queued', 'sending', 'sent', 'delivered', 'failed', 'opted_out']);
const emailStatus = z.enum(['queued', 'sending', 'sent', 'bounced', 'complained', 'suppressed', 'failed']);
const smsOutboxQuery = z.strictObject({ ...pageQueryFields, status: smsStatus.optional(), subjectRef: subjectRefSchema.optional() });
const emailOutboxQuery = z.strictObject({ ...pageQueryFields, status: emailStatus.optional(), subjectRef: subjectRefSchema.optional() });

const journalQuery = z.strictObject({
  ...pageQueryFields,
  sourceId: z.string().min(1).max(64).optional(),
});

const quarantineQuery = pageQuery.extend({ collection: z.enum(['orders', 'journal-transactions']).optional() });
const noQuery = z.strictObject({});
const smsOutboxEntry = z.strictObject({
  id: z.string(),
  to: z.string(),
  body: z.string(),
  status: smsStatus.describe(
    'Delivery state: queued (waiting for the carrier, or for a retry), sending, sent (the carrier accepted it), delivered (the handset has it), failed (see providerCode), opted_out (the phone replied STOP to this store: never sent)',
  ),
  providerCode: z.string().nullable().describe("The carrier's error code of the last failure (e.g. Twilio 21211), else null"),
  attempts: z.int().min(0).describe('Delivery attempts made so far.'),
  nextAttemptAt: z.iso.datetime().nullable().describe('When a queued text is tried again; null when due at once or no longer queued.'),
  lastError: z.string().nullable().describe("The carrier's message of the last failure, else null"),
  subjectRef: subjectRefSchema.nullable().describe('What the text is about (`invoice:<id>`, `order:<id>`, `pay_request:<id>`); null for others'),
  createdAt: z.iso.datetime(),
  encoding: z.enum(['GSM-7', 'UCS-2']).describe('The alphabet the body is sent in (core/sms-segments.ts)'),
  segments: z.number().int().min(1).describe('Message parts the carrier bills: GSM-7 160 alone / 153 per part, UCS-2 70 / 67'),
});
const emailOutboxEntry = z.strictObject({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  body: z.string().describe('Plain text (the HTML part sent says the same)'),
  kind: z.enum(['receipt', 'invoice', 'notice']).describe('Which template drew it: a receipt, an invoice (or its reminder), a notice'),
  status: emailStatus.describe(
    'queued (waiting, or retrying after a temporary failure: see nextAttemptAt), sending, sent, bounced (the recipient was refused for good — during the SMTP session, or later by a delivery status notification: the address is suppressed for the store), complained (the recipient reported it as spam through a feedback loop: the address is suppressed), suppressed (to an address that bounced or complained before: never sent), failed (attempts spent, or the message refused).',
  ),
  attempts: z.int().min(0).describe('Delivery attempts made so far.'),
  nextAttemptAt: z.iso.datetime().nullable().describe('When a queued message is tried again; null when due at once or no longer queued.'),
  lastError: z
    .string()
    .nullable()
    .describe(
      "The mail server's answer or the connection error of the last failed attempt; null once sent — unless a report came back later by mail: the bounce, the complaint, or a delay (`delayed (not suppressed): 4.2.2 …`).",
    ),
  sentAt: z.iso.datetime().nullable().describe('When the mail server accepted it; null until sent.'),
  messageId: z.string().nullable().describe('The Message-ID header it was sent with (<…@…>); null before the first attempt.'),
  subjectRef: subjectRefSchema.nullable().describe('What the e-mail is about (`invoice:<id>`, `order:<id>`, `pay_request:<id>`); null for notices'),
  createdAt: z.iso.datetime(),
});
const quarantineEntry = z.strictObject({
  id: z.string(),
  collection: z.enum(['orders', 'journal-transactions']),
  documentId: z.string(),
  document: z.unknown().describe('The document as pushed'),
  reason: z.string(),
  createdAt: z.iso.datetime(),
});
const trialBalanceResponse = z.strictObject({
  currency: z.string(),
  accounts: z.array(
    z.strictObject({ code: z.string(), name: z.string(), type: z.string(), balanceCents: z.int().describe('Debit > 0, credit < 0') }),
  ),
  totalCents: z.int().describe('Always 0'),
});
const signedCheckpointSchema = z.strictObject({
  merchantId: z.string().min(1).max(64),
  seq: z.int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Sequence number of the audit entry that was the head'),
  headHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe("That entry's hash, hex"),
  signedAt: z.iso.datetime(),
  keyId: z.string().min(1).max(64).describe('Id of the signing key (`kid` of the public key)'),
  signature: z.string().min(1).max(200).describe('Ed25519 (RFC 8032) signature of the canonical JSON of the other fields, base64url'),
  reason: z.string().min(1).max(32).describe('`periodic`, `on_demand` or `closeout`'),
});
const auditVerifyResponse = z.strictObject({
  ok: z.boolean(),
  checked: z.int().describe('Entries whose chain link and hash check out, from the first'),
  brokenAtSeq: z.int().optional().describe('The first bad entry'),
  reason: z.string().optional(),
  lastGoodCheckpoint: signedCheckpointSchema
    .nullable()
    .describe('The latest validly signed checkpoint before the first bad entry that the log still matches'),
  journalTransactions: z.int().describe('Journal transactions checked against the hash their audit entry recorded'),
  checkpoints: z.strictObject({ checked: z.int(), invalidSignature: z.int().describe("Not signed by the server's key: left out") }),
  witness: z
    .strictObject({
      file: z.string().nullable().describe('The checkpoint witness file read (null: none configured)'),
      checkpoints: z.int().describe("This merchant's checkpoints it holds"),
    })
    .describe('The copy of every signed checkpoint kept outside the database'),
  warnings: z.array(z.string()).describe('What weakens the verdict without being a finding, e.g. no witness file'),
});
const verifyBody = z.strictObject({
  checkpoints: z.array(signedCheckpointSchema).max(10_000).describe("Checkpoints held outside the database (a register's copy, an export)"),
});
const publicJwkSchema = z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string() });
const checkpointsQuery = z.strictObject({
  afterSeq: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Only checkpoints of later entries'),
});
const checkpointsResponse = z.strictObject({
  publicKey: publicJwkSchema.describe('Verifies the signatures; the private key is not in the database'),
  data: z.array(signedCheckpointSchema).describe('Oldest first'),
  head: signedCheckpointSchema
    .nullable()
    .describe(
      'The newest stored checkpoint, whatever `afterSeq` (the signed head): a register holding a newer one reports it (POST /api/sync/audit/head-reports)',
    ),
});
const headReportBody = z.strictObject({
  held: signedCheckpointSchema.describe('The newest checkpoint the register holds'),
  told: signedCheckpointSchema.nullable().describe('The head the server answered (null: none)'),
});
const headReportResponse = z.strictObject({
  rolledBack: z
    .boolean()
    .describe('True when the database no longer holds `held` or its newest checkpoint is older: recorded (`audit.head_rolled_back`)'),
  head: signedCheckpointSchema.nullable().describe('The newest stored checkpoint now'),
});

/** The POS REST API (`/api/pos/*`). Scopes per docs/api.md; everything not app-scoped is staff only. */
export function registerPosRoutes(app: FastifyInstance, ctx: AppContext): void {
  // GET /api/pos/catalog and the rest of the catalog API: routes/catalog.ts.

  // GET /api/pos/orders and the rest of the order API: routes/orders.ts.

  // POST/GET /api/pos/pay-requests…: routes/pay-requests.ts.

  app.get(
    '/api/pos/sms-outbox',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'List queued SMS messages',
          description:
            "Newest first, with each text's delivery state. Texts wait here until the delivery worker sends them through the configured carrier (none configured: they stay queued); the register's Messages screen shows them, so registers may read it.",
          tags: ['outbox'],
          access: 'register',
          query: smsOutboxQuery,
          response: pageSchema(smsOutboxEntry),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(smsOutboxQuery, request.query, '(query)');
      return smsOutboxPage(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/email-outbox',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List e-mails and their delivery state',
          description:
            'Newest first: receipts, invoices, reminders and notices, with their delivery state. With SMTP_URL set the server sends them (retrying temporary failures with backoff); without it they stay queued here.',
          tags: ['outbox'],
          access: 'staff',
          query: emailOutboxQuery,
          response: pageSchema(emailOutboxEntry),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(emailOutboxQuery, request.query, '(query)');
      return emailOutboxPage(ctx.db, principalOf(request).merchantId, q);
    },
  );

  registerMessageRoutes(app, ctx, { smsOutboxEntry, emailOutboxEntry });

  app.get(
    '/api/pos/quarantine',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List documents refused on replication',
          description: 'Newest first, with the reason.',
          tags: ['sync'],
          access: 'staff',
          query: quarantineQuery,
          response: pageSchema(quarantineEntry),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const q = parseOrThrow(quarantineQuery, request.query, '(query)');
      return listQuarantine(ctx.db, merchantId, q);
    },
  );

  app.get(
    '/api/pos/ledger/journal-transactions',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List journal transactions',
          description: 'In posting order (server sequence), with postings (debit > 0, credit < 0); filter by `sourceId` (e.g. an order id).',
          tags: ['ledger'],
          access: 'staff',
          query: journalQuery,
          response: pageSchema(journalTransactionSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const q = parseOrThrow(journalQuery, request.query, '(query)');
      return listJournalTransactions(ctx.db, merchantId, q);
    },
  );

  app.get(
    '/api/pos/ledger/trial-balance',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Trial balance of the ledger, all time',
          description:
            'Balance of every account; the total is always 0. Over a period, with opening and closing balances: GET /api/pos/reports/trial-balance.',
          tags: ['ledger'],
          access: 'staff',
          query: noQuery,
          response: trialBalanceResponse,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return trialBalance(ctx.db, principalOf(request).merchantId);
    },
  );

  const verifyDoc = (summary: string, extra: Partial<RouteDoc>): RouteDoc => ({
    summary,
    description:
      "Recomputes hash = SHA-256(prevHash ‖ canonical row) over the merchant's audit log, checks every journal transaction (postings included) against the hash recorded by the audit entry of the change that posted it, and checks the log against the signed checkpoints (Ed25519). Also reads the checkpoint witness file, the copy of every signed checkpoint kept outside the database: a witnessed checkpoint missing from the database or differing, and a head that went backwards, are findings; so are entries past the newest checkpoint older than the housekeeping tick would leave them. Without a witness file the verdict warns. Names the first bad entry and the last good checkpoint. An edited, deleted (middle or tail, up to the last checkpoint), reordered or rewritten-and-rehashed entry and an edited posting are caught, and so is a rewrite whose checkpoints were deleted from the database.",
    tags: ['audit'],
    access: 'staff',
    response: auditVerifyResponse,
    ...extra,
  });

  /** The witness file and the tick's interval, as the verifier's default reads them. */
  const verifyOptions = async (): Promise<AuditVerifyOptions> => ({
    witnessFile: ctx.auditWitness?.path ?? null,
    witnessed: ctx.auditWitness ? await ctx.auditWitness.read() : null,
    checkpointIntervalMs: ctx.auditCheckpointIntervalMs ?? null,
    now: ctx.clock(),
  });

  app.get(
    '/api/pos/audit/verify',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: verifyDoc('Verify the audit trail', { query: noQuery }) },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      return verifyAuditTrail(ctx.db, principalOf(request).merchantId, ctx.auditSigner, [], await verifyOptions());
    },
  );

  app.post(
    '/api/pos/audit/verify',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: verifyDoc('Verify the audit trail against checkpoints held outside the database', {
          body: verifyBody,
          status: 200,
          idempotent: true,
        }),
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(verifyBody, request.body ?? undefined);
      return {
        status: 200,
        body: await verifyAuditTrail(ctx.db, principalOf(request).merchantId, ctx.auditSigner, body.checkpoints, await verifyOptions()),
      };
    }),
  );

  app.get(
    '/api/pos/audit/checkpoints',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Export the signed checkpoints of the audit chain',
          description:
            'With the public key that verifies them. Owners, or a paired register with its register credential: registers fetch and keep them while online (a copy outside the database); hand them back to POST /api/pos/audit/verify.',
          tags: ['audit'],
          access: 'register',
          query: checkpointsQuery,
          response: checkpointsResponse,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(checkpointsQuery, request.query, '(query)');
      const merchantId = principalOf(request).merchantId;
      return {
        publicKey: ctx.auditSigner.publicJwk,
        data: await listCheckpoints(ctx.db, merchantId, q.afterSeq ?? 0),
        head: await newestCheckpoint(ctx.db, merchantId),
      };
    },
  );

  app.post(
    '/api/sync/audit/head-reports',
    {
      onRequest: guard(ctx, 'register'),
      config: {
        openapi: {
          summary: 'Report a signed head older than one held',
          description:
            'A register that holds a signed checkpoint newer than the head the server handed it (GET /api/pos/audit/checkpoints `head`) reports both. ' +
            "When `held` carries the server key's valid signature and the database no longer holds it, or holds only older checkpoints, the audit " +
            'trail was rolled back or its checkpoints deleted: recorded as `audit.head_rolled_back` (once per held checkpoint) and logged as an error. ' +
            'Idempotent by content, so no Idempotency-Key is needed.',
          tags: ['audit'],
          access: 'register',
          body: headReportBody,
          response: headReportResponse,
          idempotent: false,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(headReportBody, request.body);
      const principal = principalOf(request);
      const merchantId = principal.merchantId;
      if (body.held.merchantId !== merchantId || !ctx.auditSigner.verify(body.held)) {
        throw new ProblemError(400, 'validation_error', "Invalid held: not a checkpoint of this store signed by the server's key", [
          { path: 'held.signature', message: "does not verify with the server's key for this store" },
        ]);
      }
      return mutation(ctx, actorOf(principal), async (m) => {
        const tx = m.tx;
        const stored = await checkpointAt(tx, merchantId, body.held.seq);
        const head = await newestCheckpoint(tx, merchantId);
        const rolledBack = !stored || stored.signature !== body.held.signature || (head?.seq ?? 0) < body.held.seq;
        if (rolledBack) {
          const entityId = `${body.held.seq}`;
          const known = await tx.query('SELECT 1 FROM audit_log WHERE merchant_id = $1 AND action = $2 AND entity_id = $3 LIMIT 1', [
            merchantId,
            'audit.head_rolled_back',
            entityId,
          ]);
          if (!known.rows[0]) {
            request.log.error(
              { merchantId, heldSeq: body.held.seq, toldSeq: body.told?.seq ?? null, storedSeq: head?.seq ?? null },
              'audit head rolled back: a register holds a newer signed checkpoint than the database',
            );
            await m.audit({
              action: 'audit.head_rolled_back',
              entityType: 'audit_checkpoint',
              entityId,
              data: { held: body.held, told: body.told, storedHeadSeq: head?.seq ?? null },
            });
          }
        }
        return { rolledBack, head };
      });
    },
  );

  app.post(
    '/api/pos/audit/checkpoints',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Sign a checkpoint of the audit chain now',
          description:
            'Signs the current head (reason `on_demand`); when the head is already checkpointed, answers that checkpoint. 404 when the log is empty.',
          tags: ['audit'],
          access: 'staff',
          body: noQuery,
          response: signedCheckpointSchema,
          status: 201,
          idempotent: true,
          errors: { 404: 'The audit log is empty (`not_found`)' },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      parseOrThrow(noQuery, request.body ?? undefined);
      const cp = await writeCheckpoint(ctx.db, ctx.auditSigner, principalOf(request).merchantId, 'on_demand', ctx.clock(), ctx.auditWitness);
      if (!cp) throw new ProblemError(404, 'not_found', 'The audit log is empty: there is no head to sign.');
      return { status: 201, body: cp };
    }),
  );
}
