/**
 * Answers of the image API (`/api/v1/images/*`, `/api/v1/credits` — sync-server/src/images): generated images are
 * served for 7 days; a kept copy (`/api/v1/media/med_….png`) is permanent.
 */
import { z } from 'zod';

/** `POST /api/v1/images/generate` 200 body (docs/images.md "Response"; `credits_used` keeps its snake_case name). */
export const imageGenerateResponseSchema = z.strictObject({
  images: z
    .array(
      z.strictObject({
        url: z.url().describe('Where the PNG is served for 7 days; no Authorization needed.'),
        width: z.int().describe('Pixels.'),
        height: z.int().describe('Pixels.'),
      }),
    )
    .describe('One per generated image.'),
  credits_used: z.int().describe('Credits charged: the number of images.'),
});
export type ImageGenerateResponse = z.infer<typeof imageGenerateResponseSchema>;

/** `GET /api/v1/credits` 200 body: the merchant's image credit balance. */
export const creditBalanceSchema = z.strictObject({
  balance: z.int().min(0).describe('Image credits left; 1 credit per generated image.'),
});
export type CreditBalance = z.infer<typeof creditBalanceSchema>;

/** `POST /api/v1/images/{id}/keep` 200 body: the permanent copy. */
export const keptImageSchema = z.strictObject({ url: z.url(), width: z.int(), height: z.int() });
export type KeptImage = z.infer<typeof keptImageSchema>;
