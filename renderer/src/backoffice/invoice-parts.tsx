/**
 * Form parts shared by the draft-invoice form and the recurring-series form (React Hook Form): the customer picker
 * (search, then choose; the matches held by TanStack Query) and the custom lines (description, unit price typed in
 * dollars → integer cents, quantity), each part checked by the body's line rule (core `invoiceCustomLineInputSchema`).
 */
import { useEffect, useState } from 'react';
import { useFieldArray, type UseFormRegisterReturn, type UseFormReturn } from 'react-hook-form';
import { z } from 'zod';
import { invoiceCustomLineInputSchema } from '../../../core/index.ts';
import { parseCashInput } from '../common/cash.ts';
import type { Customer } from '../common/back-office-api.ts';
import { Field } from '../common/back-office-kit.tsx';
import { useBackOfficeData } from '../common/back-office-query.ts';
import { typed } from '../common/forms.ts';

/** A customer's name for lists and pickers (e-mail, phone or id when nameless). */
export const customerName = (c: Customer) => [c.givenName, c.familyName].filter(Boolean).join(' ') || c.email || c.phone || c.id;

/** A date `days` from today as `YYYY-MM-DD` (local calendar). */
export function inDays(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** State of a customer picker: the search text, the customers it matches, the chosen one (first match by default). */
export interface CustomerPickerState {
  q: string;
  setQ: (q: string) => void;
  /** The customers matching the text as typed now; none while that search is on its way (`searching`). */
  matches: Customer[];
  searching: boolean;
  customerId: string;
}

/**
 * Searches customers as the text changes (once typing pauses for 200 ms; the matches are a query keyed by the search)
 * and keeps the form's choice among the matches: `chosen` is the form's `customerId`, `choose` sets it — to the first
 * match when the choice is not one of them, and to '' (none) when nothing matches or while the search for the text
 * typed now is on its way, so a form sent meanwhile never bills a customer of an earlier search.
 */
export function useCustomerPicker(chosen: string, choose: (id: string) => void): CustomerPickerState {
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearch(q.trim()), 200);
    return () => clearTimeout(timer);
  }, [q]);
  const found = useBackOfficeData('customer-picker', [search], (api) => api.listCustomers(search ? { q: search } : {}));
  const matches = q.trim() === search ? found.data?.data : undefined;
  useEffect(() => {
    const next = matches?.some((m) => m.id === chosen) ? chosen : (matches?.[0]?.id ?? '');
    if (next !== chosen) choose(next);
  }, [matches, chosen, choose]);
  return { q, setQ, matches: matches ?? [], searching: matches === undefined, customerId: chosen };
}

/**
 * The search box and the customer select (`field`: the form's `customerId`); `testId` prefixes the test ids
 * (`<testId>-customer-search`, `<testId>-customer`).
 */
export function CustomerPicker({
  id,
  picker,
  field,
  error,
  testId,
  autoFocus,
}: {
  id: string;
  picker: CustomerPickerState;
  field: UseFormRegisterReturn;
  error: string | undefined;
  testId: string;
  autoFocus?: boolean;
}) {
  return (
    <>
      <Field id={`${id}-q`} label="Find customer">
        {(p) => (
          <input
            {...p}
            className="bo-input"
            type="search"
            value={picker.q}
            onChange={(e) => picker.setQ(e.target.value)}
            placeholder="Name, phone or e-mail"
            data-testid={`${testId}-customer-search`}
            {...(autoFocus ? { 'data-autofocus': true, autoFocus: true } : {})}
          />
        )}
      </Field>
      <Field id={`${id}-customer`} label="Customer" error={error}>
        {(p) => (
          <select {...p} className="bo-input" {...field} data-testid={`${testId}-customer`}>
            {picker.matches.length === 0 ? <option value="">{picker.searching ? 'Searching…' : 'No customer found'}</option> : null}
            {picker.matches.map((c) => (
              <option key={c.id} value={c.id}>
                {customerName(c)}
              </option>
            ))}
          </select>
        )}
      </Field>
    </>
  );
}

/** The customer field of a form: a customer must be chosen, then the body's rule (`customerId`) checks the id. */
export function customerIdRule(rule: z.ZodType<string, string>) {
  return z.string().min(1, 'Choose a customer (create one under Customers first)').pipe(rule);
}

/** An optional text field of a body: trimmed, and left out (`undefined`) when empty, then checked by `rule`. */
export function optionalText<S extends z.ZodType<unknown, string | undefined>>(rule: S) {
  return z
    .string()
    .transform((t) => t.trim() || undefined)
    .pipe(rule);
}

/** One custom line as typed. */
export interface LineDraft {
  description: string;
  amountCents: string;
  quantity: string;
}

/** A new, empty line. */
export const newLine = (): LineDraft => ({ description: '', amountCents: '', quantity: '1' });

/** A typed whole number (digits only), else `undefined`. */
const wholeNumberOf = (text: string) => (/^\s*\d{1,9}\s*$/.test(text) ? Number(text) : undefined);

/**
 * The custom lines as typed → the body's `customLines`: each part checked by the body's line rule (core
 * `invoiceCustomLineInputSchema`) after the typed text is read — amounts into integer cents (never through a float;
 * 0 is no amount), quantities as whole numbers. The paths are the server's (`customLines.<i>.amountCents`, …).
 */
export function customLinesRule(currency: string) {
  const f = invoiceCustomLineInputSchema.shape;
  return z.array(
    z.object({
      description: f.description,
      amountCents: typed((t) => parseCashInput(t, currency) || undefined, 'Enter an amount like 40.00', f.amountCents),
      quantity: typed(wholeNumberOf, 'A whole number, 1 or more', f.quantity),
    }),
  );
}

/** The paths of the server's problem a lines fieldset of `count` lines shows next to its fields. */
export function linePaths(count: number): `customLines.${number}.${keyof LineDraft}`[] {
  return Array.from({ length: count }, (_, i) =>
    (['description', 'amountCents', 'quantity'] as const).map((k) => `customLines.${i}.${k}` as const),
  ).flat();
}

/** The wiring of a lines fieldset to its form: what `useLinesFieldset` gives and `LinesFieldset` takes. */
export interface LinesWiring {
  /** The lines of the form's field array (`id` tells them apart). */
  lines: readonly { id: string }[];
  /** The form's registration of a line's part. */
  field: (index: number, part: keyof LineDraft) => UseFormRegisterReturn;
  /** The error of a line's part, if any. */
  error: (index: number, part: keyof LineDraft) => string | undefined;
  /** An error of the lines as a whole. */
  listError: string | undefined;
  /** Adds an empty line (`newLine`) at the end. */
  add: () => void;
  /** Removes the line at `index`. */
  remove: (index: number) => void;
}

/**
 * Wires a form's `customLines` (a React Hook Form field array of `LineDraft`s) to a `LinesFieldset`: the lines, each
 * part's registration and error, the error of the lines as a whole (the rule's or the server's root message), and
 * adding (an empty line) and removing lines. Spread the result into `LinesFieldset` with its `id`, `currency` and
 * `testId`.
 *
 * @param form the form (`useForm`'s answer) whose typed values hold `customLines: LineDraft[]`
 */
export function useLinesFieldset<T extends { customLines: LineDraft[] }, O>(form: UseFormReturn<T, unknown, O>): LinesWiring {
  // The one field these forms share: the form seen as its lines only (its other fields are not touched here).
  const { control, register, formState } = form as unknown as UseFormReturn<{ customLines: LineDraft[] }>;
  const lines = useFieldArray({ control, name: 'customLines' });
  const errors = formState.errors.customLines;
  return {
    lines: lines.fields,
    field: (i, part) => register(`customLines.${i}.${part}`),
    error: (i, part) => errors?.[i]?.[part]?.message,
    listError: errors?.message ?? errors?.root?.message,
    add: () => lines.append(newLine()),
    remove: lines.remove,
  };
}

/** The lines fieldset: description, unit price, quantity per line; add and remove lines. */
export function LinesFieldset({
  id,
  lines,
  field,
  error,
  listError,
  add,
  remove,
  currency,
  testId,
}: LinesWiring & {
  id: string;
  currency: string;
  testId: string;
}) {
  return (
    <fieldset className="bo-fieldset">
      <legend>Lines</legend>
      {listError ? (
        <p className="bo-field-error" role="alert" data-testid="field-error">
          {listError}
        </p>
      ) : null}
      {lines.map((l, i) => (
        <div className="bo-variation" key={l.id} data-testid={`${testId}-line`}>
          <Field id={`${id}-l${l.id}-d`} label="Description" error={error(i, 'description')}>
            {(p) => <input {...p} className="bo-input" {...field(i, 'description')} data-testid={`${testId}-line-description`} />}
          </Field>
          <Field id={`${id}-l${l.id}-a`} label={`Unit price (${currency})`} error={error(i, 'amountCents')}>
            {(p) => (
              <input
                {...p}
                className="bo-input bo-money"
                inputMode="decimal"
                placeholder="0.00"
                {...field(i, 'amountCents')}
                data-testid={`${testId}-line-amount`}
              />
            )}
          </Field>
          <Field id={`${id}-l${l.id}-q`} label="Quantity" error={error(i, 'quantity')}>
            {(p) => (
              <input {...p} className="bo-input bo-units" inputMode="numeric" {...field(i, 'quantity')} data-testid={`${testId}-line-quantity`} />
            )}
          </Field>
          <button
            type="button"
            className="button button-ghost"
            disabled={lines.length <= 1}
            onClick={() => remove(i)}
            aria-label={`Remove line ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="button" onClick={add}>
        Add line
      </button>
    </fieldset>
  );
}
