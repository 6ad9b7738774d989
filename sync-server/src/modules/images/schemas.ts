import { z } from 'zod';
import { IMAGE_ASPECTS, IMAGE_STYLES } from './generator.ts';

/**
 * The app scope that allows image generation. None of the four POS app scopes (docs/api.md) fits a credit-spending
 * endpoint, so this is a fifth one (docs/images.md).
 */
export const IMAGES_SCOPE = 'images:generate';

/** Bounds of the image request (`n` 1 … 4, `prompt` 1 … 1000 characters). */
export const MAX_IMAGES_PER_REQUEST = 4;
export const MAX_PROMPT_LENGTH = 1000;

/**
 * `POST /api/v1/images/generate` body (docs/images.md "Request"). Strict: unknown fields are a 400 naming the
 * field. `prompt` length counts Unicode code points, so an emoji is one character; a prompt of only whitespace is
 * refused. `n` defaults to 1.
 */
export const imageGenerateRequestSchema = z.strictObject({
  prompt: z
    .string()
    .refine((s) => [...s].length >= 1, { message: 'must be at least 1 character' })
    .refine((s) => [...s].length <= MAX_PROMPT_LENGTH, { message: `must be at most ${MAX_PROMPT_LENGTH} characters` })
    .refine((s) => s.trim().length > 0, { message: 'must not be blank' })
    .meta({ description: 'What to draw, 1 … 1000 characters.', minLength: 1, maxLength: MAX_PROMPT_LENGTH }),
  style: z.enum(IMAGE_STYLES).describe('Visual style.'),
  aspect: z.enum(IMAGE_ASPECTS).describe('1:1 → 1024×1024, 16:9 → 1792×1008, 9:16 → 1008×1792.'),
  n: z.int().min(1).max(MAX_IMAGES_PER_REQUEST).default(1).describe('Number of images, 1 … 4; 1 credit each.'),
});

/** The image API's answers (generate, credit balance, kept copy): core/images.ts (shared with the back office). */
export { creditBalanceSchema, imageGenerateResponseSchema, type ImageGenerateResponse } from '../../../../core/index.ts';
