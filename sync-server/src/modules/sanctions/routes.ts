import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageQueryFields, pageSchema, patchBody, utcDateTime } from '../../../../core/index.ts';
import {
  sanctionsListSchema,
  screeningDecisionSchema,
  screeningOutcomeSchema,
  screeningSchema,
  screeningSettingsSchema,
  screeningStatusSchema,
} from '../../../../core/screening.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { listVersions } from './list.ts';
import {
  decideScreening,
  getScreening,
  getScreeningSettings,
  listScreenings,
  screenParty,
  updateScreeningSettings,
  uploadSanctionsList,
} from './service.ts';

/** Largest upload of a list version (the full SDN files are about 5 MB together). */
export const SANCTIONS_UPLOAD_MAX_BYTES = 32 * 1024 * 1024;

const ROLE = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a role name such as check_casher, transfer_sender, transfer_receiver, bill_payer or manual');
const screenBody = z.strictObject({
  name: z.string().trim().min(1).max(200).describe('The name to screen, as written on the ID or typed'),
  role: ROLE.default('manual'),
  subjectRef: z.string().trim().min(1).max(100).optional().describe('Your reference of the transaction or party'),
});
const idParams = z.strictObject({ id: z.string().regex(/^scr_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a screening id (scr_…)') });
const listQuery = z.strictObject({
  status: screeningStatusSchema.optional(),
  outcome: screeningOutcomeSchema.optional(),
  role: ROLE.optional(),
  subjectRef: z.string().max(100).optional(),
  q: z.string().trim().min(1).max(100).optional().describe('Name contains (case-insensitive)'),
  from: utcDateTime.optional().describe('Screened at or after'),
  to: utcDateTime.optional().describe('Screened before'),
  ...pageQueryFields,
});
const uploadBody = z.strictObject({
  version: z.string().trim().min(1).max(100).optional().describe('A label; default `<publishedOn or today>-<sha256 prefix>`'),
  publishedOn: z.iso.date().optional().describe("OFAC's publish date of the files"),
  sdnCsv: z.string().min(1).describe('sdn.csv as published'),
  altCsv: z.string().optional().describe('alt.csv (aliases) as published'),
  addCsv: z.string().optional().describe('add.csv (addresses) as published'),
  commentsCsv: z.string().optional().describe("sdn_comments.csv (the rest of entries' Remarks) as published"),
});
const settingsPatch = patchBody(screeningSettingsSchema.partial().shape);

/**
 * Sanctions screening (docs/api.md "Sanctions screening"): screen a name (cashiers), the screenings with
 * filters and a manager's clear / refuse of a held one, the SDN list versions (owners upload) and the thresholds.
 */
export function registerSanctionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const staff = guard(ctx, 'staff');

  app.post(
    '/api/pos/screenings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Screen a name against the sanctions list',
          description:
            "Finds the names and aliases of the store's current SDN list version that could match (a candidate index of normalised, phonetic and one-edit keys), " +
            "scores each by aligning its name parts with the name's (a single shared name part is not a hit) " +
            'and stores the decision: `clear`; `potential_match` (status `held` until a manager clears or refuses it); `blocked`. ' +
            'Audited with the list version and the top matches.',
          tags: ['screening'],
          access: 'staff',
          body: screenBody,
          response: screeningSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(screenBody, request.body);
      const principal = principalOf(request);
      const screening = await mutation(ctx, actorOf(principal), async (m) => {
        const result = await screenParty(m.tx, m.merchantId, body, m);
        return (await getScreening(m.tx, m.merchantId, result.screeningId))!;
      });
      return { status: 201, body: screening };
    }),
  );

  app.get(
    '/api/pos/screenings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List screenings',
          description: 'Newest first, filtered by status (e.g. `held`), outcome, role, subject reference, name and time.',
          tags: ['screening'],
          access: 'staff',
          query: listQuery,
          response: pageSchema(screeningSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(listQuery, request.query, '(query)');
      return listScreenings(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/screenings/:id',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get a screening',
          description: 'The register polls a held screening until a manager decides.',
          tags: ['screening'],
          access: 'staff',
          params: idParams,
          response: screeningSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const screening = await getScreening(ctx.db, principalOf(request).merchantId, id);
      if (!screening) throw new ProblemError(404, 'not_found', `Screening ${id} does not exist.`);
      return screening;
    },
  );

  for (const decision of ['clear', 'refuse'] as const) {
    app.post(
      `/api/pos/screenings/:id/${decision}`,
      {
        onRequest: staff,
        config: {
          openapi: {
            summary: decision === 'clear' ? 'Clear a held screening (false positive)' : 'Refuse a held screening',
            description:
              decision === 'clear'
                ? 'A manager judges the potential match a false positive: the screening becomes `cleared` and the transaction may go on. Managers and owners; audited with the reason.'
                : 'A manager refuses the transaction: the screening becomes `refused`. Managers and owners; audited with the reason.',
            tags: ['screening'],
            access: 'staff',
            params: idParams,
            body: screeningDecisionSchema,
            response: screeningSchema,
            status: 200,
            idempotent: true,
            errors: { 409: 'The screening is not held (`illegal_state_transition`, naming its status)' },
          } satisfies RouteDoc,
        },
      },
      idempotent(ctx.db, ctx.clock, async (request) => {
        const { id } = parseOrThrow(idParams, request.params, '(path)');
        const { reason } = parseOrThrow(screeningDecisionSchema, request.body);
        const screening = await mutation(ctx, actorOf(principalOf(request)), (m) => decideScreening(m, id, decision, reason));
        return { status: 200, body: screening };
      }),
    );
  }

  app.get(
    '/api/pos/sanctions-lists',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List the sanctions list versions',
          description: 'Every SDN list version the store loaded, newest (current) first.',
          tags: ['screening'],
          access: 'staff',
          response: z.strictObject({ data: z.array(sanctionsListSchema) }),
        } satisfies RouteDoc,
      },
    },
    async (request) => ({ data: await listVersions(ctx.db, principalOf(request).merchantId) }),
  );

  app.post(
    '/api/pos/sanctions-lists',
    {
      onRequest: staff,
      bodyLimit: SANCTIONS_UPLOAD_MAX_BYTES,
      config: {
        openapi: {
          summary: 'Upload a new version of the SDN list',
          description:
            "OFAC's published `sdn.csv` (required), `alt.csv`, `add.csv` and `sdn_comments.csv` as text in JSON; the new version becomes current, earlier ones are kept. " +
            `Owners only; up to ${SANCTIONS_UPLOAD_MAX_BYTES / 1024 / 1024} MiB. A file not in OFAC's format → 400 \`invalid_sanctions_list\` naming the file and line.`,
          tags: ['screening'],
          access: 'staff',
          body: uploadBody,
          response: sanctionsListSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(uploadBody, request.body);
      const list = await mutation(ctx, actorOf(principalOf(request)), (m) => uploadSanctionsList(m, body));
      return { status: 201, body: list };
    }),
  );

  app.get(
    '/api/pos/screening-settings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get the screening thresholds',
          tags: ['screening'],
          access: 'staff',
          response: screeningSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => getScreeningSettings(ctx.db, principalOf(request).merchantId),
  );

  app.patch(
    '/api/pos/screening-settings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Change the screening thresholds',
          description: 'Owners only; audited with before and after.',
          tags: ['screening'],
          access: 'staff',
          body: settingsPatch,
          response: screeningSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const patch = parseOrThrow(settingsPatch, request.body);
      return mutation(ctx, actorOf(principalOf(request)), (m) => updateScreeningSettings(m, patch));
    },
  );
}
