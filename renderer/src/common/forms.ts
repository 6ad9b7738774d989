/**
 * The back office's forms: React Hook Form holds what is typed, and a form checks each field with the rule the server
 * applies to the same field of the request body (the `…Fields` shapes in core), so a value the server would refuse is
 * named in place before a request is sent, and one it accepts (a national phone number, a lower-case country code) is
 * never refused here. What a person types is text; {@link typed} turns it into the body's value first.
 */
import { z } from 'zod';
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { ApiError, errorMessage } from './back-office-api.ts';

/**
 * A text input checked by a field of a request body: `read(text)` turns what was typed into the body's value
 * (`undefined` when it cannot: then `message` is the field's error), then the body's own rule `rule` checks it.
 *
 * @param read typed text → value for the body, or `undefined` when the text is not one
 * @param message what to say when `read` gives `undefined` ("must be a percentage, e.g. 12.5")
 * @param rule the request body's schema of this field (core)
 */
export function typed<S extends z.ZodType>(read: (text: string) => z.input<S> | undefined, message: string, rule: S) {
  return z.string().transform((text, ctx): z.output<S> => {
    const value = read(text);
    if (value === undefined) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    const checked = rule.safeParse(value);
    if (checked.success) return checked.data;
    for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  });
}

/**
 * Shows a failed request in the form: each field error of the problem (RFC 9457 `errors[]`) next to the field of the
 * same path (focus on the first), and returns the message for the form as a whole — the problem's detail when no
 * field shows it, or the field errors the form has no field for.
 *
 * @param err what the request threw
 * @param setError the form's `setError`
 * @param fields the paths the form has a field for
 */
export function showProblem<V extends FieldValues>(err: unknown, setError: UseFormSetError<V>, fields: readonly Path<V>[]): string | undefined {
  if (!(err instanceof ApiError)) return errorMessage(err);
  const errors = Object.entries(err.fieldErrors());
  const shown = errors.filter(([path]) => (fields as readonly string[]).includes(path));
  shown.forEach(([path, message], i) => setError(path as Path<V>, { type: 'server', message }, { shouldFocus: i === 0 }));
  const rest = errors.filter(([path]) => !(fields as readonly string[]).includes(path));
  if (rest.length > 0) return rest.map(([path, message]) => `${path}: ${message}`).join('; ');
  return shown.length === 0 ? err.message : undefined;
}
