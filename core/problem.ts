/**
 * RFC 9457 problem details as the server answers every error: `application/problem+json` with
 * `{ type, title, status, detail, code }` and, for validation, `errors: [{ path, message }]` naming each field.
 */
import { z } from 'zod';

/** One field error; `path` is dotted (`variations.0.priceCents`) or `(body)` / `(query)` / `(path)`. */
export const fieldErrorSchema = z.object({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof fieldErrorSchema>;

/** A problem body; extension members (e.g. `retryAfterSeconds`, `declineCode`) are kept. */
export const problemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.int().min(100).max(599),
  detail: z.string(),
  /** Machine-readable cause (`validation_error`, `not_found`, `card_declined`, …). */
  code: z.string(),
  errors: z.array(fieldErrorSchema).optional(),
});
export type Problem = z.infer<typeof problemSchema>;
