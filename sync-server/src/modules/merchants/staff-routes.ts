/**
 * Staff management over HTTP (staff.ts): `GET`/`POST /api/pos/staff`, `PATCH /api/pos/staff/{id}`,
 * `POST /api/pos/staff/{id}/pin`. Roles per the permission table (`platform/auth/permissions.ts`): managers list and add
 * cashiers, owners do everything.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  idnEmail,
  nonBlankText,
  pageQueryFields,
  pageSchema,
  patchBody,
  staffCreateSchema,
  staffPinText,
  staffRoleSchema,
} from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { changeStaffPin, createStaff, listStaff, updateStaff } from './staff.ts';

const staffParams = z.strictObject({ id: z.string().regex(/^stf_[A-Za-z0-9_-]{1,40}$/, 'must be a staff id') });
const staffMemberSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: staffRoleSchema,
  hasPin: z.boolean().describe('A PIN is set'),
  disabled: z.boolean().describe('Disabled by an owner: cannot sign in on a register (registers sign them out once online)'),
  createdAt: z.string(),
});
export const staffUpdateSchema = patchBody({
  name: nonBlankText(80).optional(),
  email: idnEmail.nullable().optional(),
  role: staffRoleSchema.optional(),
  disabled: z
    .boolean()
    .optional()
    .describe('true: cannot sign in on any register; registers sign them out and drop their offline sign-in once online'),
});
const staffPinSchema = z.strictObject({ pin: staffPinText });
const pageQuery = z.strictObject(pageQueryFields);

/** Registers the staff management routes. */
export function registerStaffRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/pos/staff',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List the staff',
          description: 'By id: name, email, role and whether a PIN is set (never the PIN). Managers and owners.',
          tags: ['staff'],
          access: 'staff',
          query: pageQuery,
          response: pageSchema(staffMemberSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(pageQuery, request.query, '(query)');
      const afterId = q.cursor ? String(decodeCursor(q.cursor, ['string'])[0]) : undefined;
      const rows = await listStaff(ctx.db, principalOf(request).merchantId, { ...(afterId ? { afterId } : {}), limit: q.limit + 1 });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.id]);
      return { data: page, nextCursor };
    },
  );

  app.post(
    '/api/pos/staff',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Add a staff member',
          description:
            'With their PIN when given (they can then sign in on a register). Owners add any role; managers add cashiers only (else 403 `role_not_allowed`). Audited `staff.created`.',
          tags: ['staff'],
          access: 'staff',
          body: staffCreateSchema,
          response: staffMemberSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const principal = principalOf(request);
      const body = parseOrThrow(staffCreateSchema, request.body === undefined ? {} : request.body);
      const created = await mutation(ctx, actorOf(principal), (m) => createStaff(m, principal.kind === 'staff' ? principal.role : 'owner', body));
      return { status: 201, body: created };
    }),
  );

  app.patch(
    '/api/pos/staff/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Rename a staff member, change their role, or disable them',
          description:
            "Owners only. The store keeps at least one enabled owner (409 `last_owner`). A new role applies from the staff member's next sign-in. " +
            '`disabled: true` refuses their PIN at once; a register signs them out and drops their offline sign-in as soon as it is online. Audited `staff.updated`.',
          tags: ['staff'],
          access: 'staff',
          params: staffParams,
          body: staffUpdateSchema,
          response: staffMemberSchema,
          errors: { 404: 'No such staff member (`not_found`)', 409: 'The last owner would stop being one (`last_owner`)' },
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(staffParams, request.params, '(path)');
      const body = parseOrThrow(staffUpdateSchema, request.body === undefined ? {} : request.body);
      return mutation(ctx, actorOf(principalOf(request)), (m) => updateStaff(m, id, body));
    },
  );

  app.post(
    '/api/pos/staff/:id/pin',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: "Set or reset a staff member's PIN",
          description:
            'Owners only. Stored as a scrypt hash; the old PIN stops working at once (signed-in shifts keep their token). Audited `staff.pin_set` without the PIN.',
          tags: ['staff'],
          access: 'staff',
          params: staffParams,
          body: staffPinSchema,
          response: staffMemberSchema,
          status: 200,
          idempotent: true,
          errors: { 404: 'No such staff member (`not_found`)' },
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const { id } = parseOrThrow(staffParams, request.params, '(path)');
      const body = parseOrThrow(staffPinSchema, request.body === undefined ? {} : request.body);
      const member = await mutation(ctx, actorOf(principalOf(request)), (m) => changeStaffPin(m, id, body.pin));
      return { status: 200, body: member };
    }),
  );
}
