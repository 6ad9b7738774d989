/**
 * Register enrollment over HTTP (enrollment.ts): pairing codes and the register list for staff under
 * `/api/pos/registers`, and the public code exchange `POST /api/register/pair`, rate-limited per client address and
 * server-wide ({@link PAIRING_RATE_LIMIT}, {@link PAIRING_GLOBAL_RATE_LIMIT}).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_AMOUNT_CENTS, nonBlankText, pageQueryFields, pageSchema, PIN_PATTERN } from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { emptyBodySchema, parseEmptyBody, parseOrThrow } from '../../platform/http/problem.ts';
import { callerOf as callerKey } from '../../platform/auth/identity.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import {
  metered,
  perAddressQuota,
  quotaExceededProblem,
  rateLimitFor,
  rateLimitHeaders,
  type RateLimit,
  type RateLimitPolicy,
} from '../../platform/rate-limit.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { checkStaffPin, listSignInStaff, SHIFT_TOKEN_TTL_SECONDS } from './staff-pins.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { APPROVAL_ACTIONS, APPROVAL_TTL_MS, grantApproval } from './approvals.ts';
import { getSettings } from './settings.ts';
import {
  createPairingCode,
  isPairingCodeShape,
  listRegisters,
  redeemPairingCode,
  retireUnusedRegisters,
  revokeRegister,
  PAIRING_CODE_TTL_MS,
  UNUSED_REGISTER_QUIET_MS,
} from './enrollment.ts';

/** Code exchanges per client address: 10 per minute (a typo or two, never a guessing run). */
export const PAIRING_RATE_LIMIT: RateLimitPolicy = { name: 'pairing', quota: 10, windowSeconds: 60 };
/** Code exchanges for the whole server: 60 per minute, so spoofed or many addresses cannot guess either. */
export const PAIRING_GLOBAL_RATE_LIMIT: RateLimitPolicy = { name: 'pairing-global', quota: 60, windowSeconds: 60 };

/** `GET /api/register/return-rules`: what the register needs to know before a return. */
const phoneCountrySchema = z.strictObject({
  defaultCountry: z.string().describe('ISO 3166-1 alpha-2: the country of phone numbers typed without + and a country code'),
});
const returnRulesSchema = z.strictObject({
  cashierRefundLimitCents: z.int().min(0).describe("a cashier's return above this (minor units) needs a manager's approval"),
});

const registerIdSchema = z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/, 'must be a register id');
const locationIdSchema = z.string().regex(/^loc_[A-Za-z0-9_-]{1,40}$/, 'must be a location id');

export const pairingCodeCreateSchema = z.strictObject({
  locationId: locationIdSchema.optional().describe('Where the register sells; default: the default location'),
  name: nonBlankText(60).optional().describe('Name the paired register takes; default `Register <n>`'),
});
const pairingCodeSchema = z.strictObject({
  code: z.string().describe('`XXXX-XXXX`, Crockford base32; shown once'),
  expiresAt: z.string().describe(`ISO 8601, ${PAIRING_CODE_TTL_MS / 60000} minutes after creation`),
  locationId: z.string(),
  name: z.string().nullable(),
});
export const pairBodySchema = z.strictObject({
  code: z.string().max(32).refine(isPairingCodeShape, 'must be a pairing code: 8 characters, e.g. 7KQ4-M2XD'),
  registerId: registerIdSchema.optional().describe("This register's id when it was paired before (keeps its number)"),
});
/** What a register receives when paired (by code, or by the demo's loopback self-pairing). */
export const enrolledRegisterSchema = z.strictObject({
  registerToken: z.string().describe('`rrc_…` register credential: syncing and selling as this register only'),
  merchantId: z.string(),
  merchantName: z.string(),
  currency: z.string(),
  registerId: z.string(),
  registerNumber: z.int(),
  registerName: z.string(),
  locationId: z.string().nullable(),
  lastReceiptSequence: z.int(),
});
const registerListingSchema = z.strictObject({
  id: z.string(),
  number: z.int(),
  name: z.string(),
  kind: z.enum(['terminal', 'back_office']),
  locationId: z.string().nullable(),
  locationName: z.string().nullable(),
  pairedAt: z.string(),
  lastSeenAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  hasSold: z.boolean().describe('The register has synced a shift (every sale at a register belongs to one); false: never used to sell'),
});
const retireUnusedBody = z.strictObject({
  keepRegisterId: registerIdSchema.optional().describe('A register to keep whatever it did (the one the back office is open on)'),
});
const retireUnusedResponse = z.strictObject({ retired: z.array(registerListingSchema) });
const pageQuery = z.strictObject(pageQueryFields);
const registerParams = z.strictObject({ id: registerIdSchema });

/** PIN sign-in attempts per register: 5 per minute (a mistyped PIN or two, never a guessing run). */
export const PIN_SIGN_IN_RATE_LIMIT: RateLimitPolicy = { name: 'pin-sign-in', quota: 5, windowSeconds: 60 };

const signInBody = z.strictObject({
  staffId: z.string().regex(/^stf_[A-Za-z0-9_-]{1,40}$/, 'must be a staff id'),
  pin: z.string().regex(PIN_PATTERN, 'must be 4 to 8 digits'),
});
const approvalBody = z.strictObject({
  staffId: z
    .string()
    .regex(/^stf_[A-Za-z0-9_-]{1,40}$/, 'must be a staff id')
    .describe("The approving manager's or owner's staff id."),
  pin: z.string().regex(PIN_PATTERN, 'must be 4 to 8 digits').describe("The approver's PIN."),
  action: z.enum(APPROVAL_ACTIONS),
  orderId: z
    .string()
    .regex(/^ord_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with ord_')
    .optional()
    .describe('Binds the approval to this order.'),
  amountCents: z.int().min(0).max(MAX_AMOUNT_CENTS).optional().describe('Binds the approval to at most this amount (minor units).'),
});
const approvalResponse = z.strictObject({
  approval: z.string().describe(`Single-use approval token, valid ${APPROVAL_TTL_MS / 60000} minutes; send it as the refund's \`approval\`.`),
  approvedBy: z.string(),
  action: z.enum(APPROVAL_ACTIONS),
  orderId: z.string().nullable(),
  amountCents: z.int().nullable(),
  expiresAt: z.string(),
});
const signInStaffSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  role: z.enum(['owner', 'manager', 'cashier']),
  pinSetAt: z.string().describe('When their PIN was last set (ISO 8601): a register drops what it derived from an older PIN'),
});
const offlineSignInDaysField = z
  .int()
  .min(0)
  .max(30)
  .describe(
    "The store's `offlineSignInDays` setting: how long after an online sign-in the register lets that staff member sign in offline (0 = never)",
  );
const signInResponse = z.strictObject({
  staffToken: z.string().describe(`Staff ID token for the shift (${SHIFT_TOKEN_TTL_SECONDS / 3600} h)`),
  expiresAt: z.string(),
  staff: signInStaffSchema,
  offlineSignInDays: offlineSignInDaysField,
});

/**
 * `POST /api/pos/registers/pairing-codes`, `GET /api/pos/registers`, `POST /api/pos/registers/{id}/revoke`,
 * `POST /api/pos/registers/retire-unused`,
 * `POST /api/register/pair`; and staff sign-in on a paired register: `GET /api/register/staff`, `POST /api/register/sign-in`.
 */
export function registerEnrollmentRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  limits?: { perClient?: RateLimit; global?: RateLimit; pin?: RateLimit },
): void {
  const quota = perAddressQuota(
    limits?.perClient ?? rateLimitFor(ctx.db, PAIRING_RATE_LIMIT),
    limits?.global ?? rateLimitFor(ctx.db, PAIRING_GLOBAL_RATE_LIMIT),
    [PAIRING_RATE_LIMIT, PAIRING_GLOBAL_RATE_LIMIT],
  );
  const pinLimit = limits?.pin ?? rateLimitFor(ctx.db, PIN_SIGN_IN_RATE_LIMIT);
  const registerGuard = guard(ctx, 'register');
  // After the register credential is checked: one unit of the register's PIN quota (429 when used up).
  const pinQuota = metered(
    async (request: FastifyRequest, reply: FastifyReply) => {
      await registerGuard.call(app, request, reply);
      if (reply.sent) return;
      const principal = principalOf(request);
      const decision = await pinLimit.take(principal.kind === 'register' ? `${principal.merchantId}:${principal.registerId}` : callerKey(principal));
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) return reply.code(429).type('application/problem+json').send(quotaExceededProblem(decision));
    },
    [ctx.appRateLimit.policy, PIN_SIGN_IN_RATE_LIMIT],
  );

  app.get(
    '/api/register/staff',
    {
      onRequest: registerGuard,
      config: {
        openapi: {
          summary: 'List the staff who can sign in on this register',
          description:
            "Staff members with a PIN who are not disabled, by name (no PIN or hash is ever answered), and the store's `offlineSignInDays`. " +
            'A register online checks its offline sign-ins against this list: a staff member missing from it is signed out and cannot sign in offline there.',
          tags: ['registers'],
          access: 'register',
          response: z.strictObject({ data: z.array(signInStaffSchema), offlineSignInDays: offlineSignInDaysField }),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      return { data: await listSignInStaff(ctx.db, merchantId), offlineSignInDays: (await getSettings(ctx.db, merchantId)).offlineSignInDays };
    },
  );

  app.get(
    '/api/register/return-rules',
    {
      onRequest: registerGuard,
      config: {
        openapi: {
          summary: "The store's rules for returns at the register",
          description:
            "`cashierRefundLimitCents` (minor units): a cashier's return above it needs a manager's approval (`POST /api/register/approvals`). " +
            'The register keeps the last answer for returns made offline.',
          tags: ['registers'],
          access: 'register',
          response: returnRulesSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => ({ cashierRefundLimitCents: (await getSettings(ctx.db, principalOf(request).merchantId)).cashierRefundLimitCents }),
  );

  app.get(
    '/api/register/phone-country',
    {
      onRequest: registerGuard,
      config: {
        openapi: {
          summary: "The store's phone country",
          description:
            'The country (`defaultCountry`, store settings) in which the register reads a phone typed without + and a country code, ' +
            'e.g. for a customer created at the register. The register keeps the last answer for customers created offline.',
          tags: ['registers'],
          access: 'register',
          response: phoneCountrySchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => ({ defaultCountry: (await getSettings(ctx.db, principalOf(request).merchantId)).defaultCountry }),
  );

  app.post(
    '/api/register/sign-in',
    {
      onRequest: pinQuota,
      config: {
        openapi: {
          summary: 'Sign a staff member in on this register with their PIN',
          description:
            `Answers a staff token for the shift (${SHIFT_TOKEN_TTL_SECONDS / 3600} hours) and the store's \`offlineSignInDays\`. A wrong PIN, an unknown or disabled staff member or one without a PIN ` +
            `are one 401 (\`invalid_pin\`). ${PIN_SIGN_IN_RATE_LIMIT.quota} attempts per minute per register. Audited \`staff.signed_in\`.`,
          tags: ['registers'],
          access: 'register',
          body: signInBody,
          response: signInResponse,
          idempotent: false,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(signInBody, request.body === undefined ? {} : request.body);
      const principal = principalOf(request);
      const staff = await checkStaffPin(ctx.db, principal.merchantId, body.staffId, body.pin);
      if (!staff) throw new ProblemError(401, 'invalid_pin', 'Wrong PIN, or no such staff member.', [{ path: 'pin', message: 'does not match' }]);
      const now = ctx.clock();
      await mutation(
        ctx,
        {
          merchantId: principal.merchantId,
          actor: `staff:${staff.id}`,
          ...(principal.kind === 'register' ? { registerId: principal.registerId } : {}),
        },
        (m) => m.audit({ action: 'staff.signed_in', entityType: 'staff', entityId: staff.id, data: { role: staff.role } }).then(() => undefined),
      );
      const staffToken = await ctx.idp.issueStaffToken(
        { staffId: staff.id, merchantId: principal.merchantId, role: staff.role },
        { ttlSeconds: SHIFT_TOKEN_TTL_SECONDS, now },
      );
      const { offlineSignInDays } = await getSettings(ctx.db, principal.merchantId);
      return { staffToken, expiresAt: new Date(now.getTime() + SHIFT_TOKEN_TTL_SECONDS * 1000).toISOString(), staff, offlineSignInDays };
    },
  );

  app.post(
    '/api/register/approvals',
    {
      onRequest: pinQuota,
      config: {
        openapi: {
          summary: "A manager's approval, with their PIN",
          description:
            "A manager or owner types their PIN to approve a cashier's refund above the store's `cashierRefundLimitCents` (or a price override). " +
            `Answers a single-use token valid ${APPROVAL_TTL_MS / 60000} minutes, bound to the action, the order and at most the amount; only its SHA-256 is stored. ` +
            `A wrong PIN is 401 \`invalid_pin\`; a cashier's PIN is 403 \`approver_not_allowed\`. Shares the sign-in quota (${PIN_SIGN_IN_RATE_LIMIT.quota} PIN attempts per minute per register). Audited \`approval.granted\`.`,
          tags: ['registers'],
          access: 'register',
          body: approvalBody,
          response: approvalResponse,
          status: 201,
          idempotent: false,
          errors: {
            401: 'No or a bad credential, or a wrong PIN / unknown staff member (`invalid_pin`)',
            403: 'The approver is a cashier (`approver_not_allowed`), or an app token (`staff_only`)',
          },
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const body = parseOrThrow(approvalBody, request.body === undefined ? {} : request.body);
      const principal = principalOf(request);
      const granted = await mutation(
        ctx,
        {
          merchantId: principal.merchantId,
          actor: `staff:${body.staffId}`,
          ...(principal.kind === 'register' ? { registerId: principal.registerId } : {}),
        },
        (m) => grantApproval(m, body),
      );
      return reply.code(201).send(granted);
    },
  );

  app.post(
    '/api/pos/registers/pairing-codes',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Create a one-time register pairing code',
          description:
            `A code a new register types to pair (\`POST /api/register/pair\`): 8 characters shown as XXXX-XXXX, valid ${PAIRING_CODE_TTL_MS / 60000} minutes, ` +
            "single use. Owners and managers only (a cashier → 403 `role_not_allowed`). The register it pairs sells at `locationId`. Only the code's SHA-256 is stored; audited `register.pairing_code_created`.",
          tags: ['registers'],
          access: 'staff',
          body: pairingCodeCreateSchema,
          response: pairingCodeSchema,
          status: 201,
          idempotent: true,
          errors: { 409: 'The store has no location (`no_location`)' },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const principal = principalOf(request);
      const body = parseOrThrow(pairingCodeCreateSchema, request.body === undefined ? {} : request.body);
      const created = await mutation(ctx, actorOf(principal), (m) => createPairingCode(m, body));
      return { status: 201, body: created };
    }),
  );

  app.get(
    '/api/pos/registers',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List the registers',
          description: 'By number: name, location, when paired, last request (at most a minute stale) and revocation. Owners and managers only.',
          tags: ['registers'],
          access: 'staff',
          query: pageQuery,
          response: pageSchema(registerListingSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(pageQuery, request.query, '(query)');
      const after = q.cursor ? Number(decodeCursor(q.cursor, ['number'])[0]) : 0;
      const registers = (await listRegisters(ctx.db, principalOf(request).merchantId)).filter((r) => r.number > after);
      const { page, nextCursor } = pageOf(registers.slice(0, q.limit + 1), q.limit, (last) => [last.number]);
      return { data: page, nextCursor };
    },
  );

  app.post(
    '/api/pos/registers/:id/revoke',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Revoke a register',
          description:
            'Every credential the register holds is refused (401) from its next request; it pairs again only with a new code. Revoking twice changes nothing. Owners only (permission table, docs/api.md). Audited `register.revoked`.',
          tags: ['registers'],
          access: 'staff',
          params: registerParams,
          body: emptyBodySchema,
          response: registerListingSchema,
          status: 200,
          idempotent: true,
          errors: { 409: 'The back-office register cannot be revoked (`back_office_register`)' },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const principal = principalOf(request);
      const { id } = parseOrThrow(registerParams, request.params, '(path)');
      parseEmptyBody(request.body);
      const revoked = await mutation(ctx, actorOf(principal), (m) => revokeRegister(m, id));
      return { status: 200, body: revoked };
    }),
  );

  app.post(
    '/api/pos/registers/retire-unused',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Retire the registers never used to sell',
          description:
            `Revokes, in one step, every active register that has synced no shift and made no request in the last ${UNUSED_REGISTER_QUIET_MS / 60000} minutes, ` +
            'except `keepRegisterId`: the registers a demo pairs by itself, one per browser profile, which would otherwise wait in the ' +
            "day's closeout as missing. Each is revoked as by `POST /api/pos/registers/{id}/revoke` (audited `register.revoked`, reason `unused`). Owners only.",
          tags: ['registers'],
          access: 'staff',
          body: retireUnusedBody,
          response: retireUnusedResponse,
          status: 200,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const principal = principalOf(request);
      const body = parseOrThrow(retireUnusedBody, request.body === undefined ? {} : request.body);
      const retired = await mutation(ctx, actorOf(principal), (m) => retireUnusedRegisters(m, body.keepRegisterId));
      return { status: 200, body: { retired } };
    }),
  );

  app.post(
    '/api/register/pair',
    {
      onRequest: quota,
      config: {
        openapi: {
          summary: 'Pair a register with a pairing code',
          description:
            'No token: the one-time code is the authorisation. Consumes the code and answers a register credential (`rrc_…`) scoped to ' +
            'syncing and selling as this register, never a staff token. An unknown, expired or used code is one 400 naming `code`. ' +
            `Rate-limited: ${PAIRING_RATE_LIMIT.quota} per minute per client address and ${PAIRING_GLOBAL_RATE_LIMIT.quota} per minute for the server.`,
          tags: ['registers'],
          body: pairBodySchema,
          response: enrolledRegisterSchema,
          status: 200,
          idempotent: false,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const body = parseOrThrow(pairBodySchema, request.body === undefined ? {} : request.body);
      return redeemPairingCode(ctx, body.code, body.registerId);
    },
  );
}
