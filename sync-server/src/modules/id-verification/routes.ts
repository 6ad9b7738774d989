import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageQueryFields, pageSchema, patchBody, queryBoolean, utcDateTime } from '../../../../core/index.ts';
import { idVerificationSchema, idVerificationSettingsSchema } from '../../../../core/screening.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { AppContext } from '../../platform/context.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { readPdf417 } from './barcode-image.ts';
import { getIdVerification, getIdVerificationSettings, listIdVerifications, updateIdVerificationSettings, verifyId } from './service.ts';

/** Largest body of `POST /api/pos/id-verifications` (a phone photo in base64). */
export const ID_IMAGE_MAX_BYTES = 12 * 1024 * 1024;

const SERVICE = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a service name such as check_cashing, money_transfer or bill_payment');
const verifyBody = z
  .strictObject({
    service: SERVICE.describe('The service asking: its minimum age applies (store setting)'),
    payload: z.string().min(1).max(20_000).optional().describe('The PDF417 text as a keyboard-wedge scanner types it, control characters included'),
    imageBase64: z
      .string()
      .min(1)
      .max(ID_IMAGE_MAX_BYTES)
      .regex(/^[A-Za-z0-9+/=\s]+$/, 'must be base64')
      .optional()
      .describe('A photo of the back of the card (PNG, JPEG…) in base64; its PDF417 barcode is decoded (zxing-wasm)'),
  })
  .refine((b) => (b.payload === undefined) !== (b.imageBase64 === undefined), {
    message: 'give exactly one of payload and imageBase64',
    path: ['payload'],
  });
const idParams = z.strictObject({ id: z.string().regex(/^idv_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an ID verification id (idv_…)') });
const listQuery = z.strictObject({
  service: SERVICE.optional(),
  ok: queryBoolean.optional(),
  from: utcDateTime.optional(),
  to: utcDateTime.optional(),
  ...pageQueryFields,
});
const settingsPatch = patchBody(idVerificationSettingsSchema.partial().shape);

/**
 * ID verification (docs/api.md "ID verification"): verify a card (cashiers), the verifications with filters
 * (managers), the minimum ages per service (owners change them).
 */
export function registerIdVerificationRoutes(app: FastifyInstance, ctx: AppContext): void {
  const staff = guard(ctx, 'staff');

  app.post(
    '/api/pos/id-verifications',
    {
      onRequest: staff,
      bodyLimit: ID_IMAGE_MAX_BYTES + 4096,
      config: {
        openapi: {
          summary: 'Verify a driver licence or ID card',
          description:
            "Reads the card's AAMVA PDF417 barcode — typed by a keyboard-wedge scanner (`payload`) or decoded from a photo of the back (`imageBase64`) — " +
            "and checks expiry and the service's minimum age. Answers the holder's photo-free summary, the document number masked, and `problems` " +
            '(`ok: false` is a stored result, not an error). A payload that is not an AAMVA barcode, is cut short or is malformed → 400 `invalid_id_barcode`; ' +
            'a photo with no readable PDF417 → 400 `no_barcode_found`.',
          tags: ['screening'],
          access: 'staff',
          body: verifyBody,
          response: idVerificationSchema,
          status: 201,
          idempotent: true,
        } satisfies RouteDoc,
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(verifyBody, request.body);
      let payload = body.payload;
      if (body.imageBase64 !== undefined) {
        const image = Buffer.from(body.imageBase64.replace(/\s+/g, ''), 'base64');
        let text: string | null = null;
        try {
          text = await readPdf417(new Uint8Array(image));
        } catch {
          text = null;
        }
        if (text === null)
          throw new ProblemError(
            400,
            'no_barcode_found',
            'No readable PDF417 barcode on this image: photograph the back of the card, flat and sharp, or scan it.',
            [{ path: 'imageBase64', message: 'holds no readable PDF417 barcode' }],
          );
        payload = text;
      }
      const source = body.imageBase64 !== undefined ? 'image' : 'scanner';
      const verification = await mutation(ctx, actorOf(principalOf(request)), async (m) => {
        const result = await verifyId(m.tx, m.merchantId, { payload: payload!, service: body.service, source }, m);
        return (await getIdVerification(m.tx, m.merchantId, result.verificationId))!;
      });
      return { status: 201, body: verification };
    }),
  );

  app.get(
    '/api/pos/id-verifications',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'List ID verifications',
          description: 'Newest first, filtered by service, result and time.',
          tags: ['screening'],
          access: 'staff',
          query: listQuery,
          response: pageSchema(idVerificationSchema),
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const q = parseOrThrow(listQuery, request.query, '(query)');
      return listIdVerifications(ctx.db, principalOf(request).merchantId, q);
    },
  );

  app.get(
    '/api/pos/id-verifications/:id',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get an ID verification',
          tags: ['screening'],
          access: 'staff',
          params: idParams,
          response: idVerificationSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const { id } = parseOrThrow(idParams, request.params, '(path)');
      const v = await getIdVerification(ctx.db, principalOf(request).merchantId, id);
      if (!v) throw new ProblemError(404, 'not_found', `ID verification ${id} does not exist.`);
      return v;
    },
  );

  app.get(
    '/api/pos/id-verification-settings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Get the minimum ages per service',
          tags: ['screening'],
          access: 'staff',
          response: idVerificationSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => getIdVerificationSettings(ctx.db, principalOf(request).merchantId),
  );

  app.patch(
    '/api/pos/id-verification-settings',
    {
      onRequest: staff,
      config: {
        openapi: {
          summary: 'Change the minimum ages per service',
          description: 'Owners only; `minimumAges` replaces the whole map; audited.',
          tags: ['screening'],
          access: 'staff',
          body: settingsPatch,
          response: idVerificationSettingsSchema,
        } satisfies RouteDoc,
      },
    },
    async (request) => {
      const patch = parseOrThrow(settingsPatch, request.body);
      return mutation(ctx, actorOf(principalOf(request)), (m) => updateIdVerificationSettings(m, patch));
    },
  );
}
