/**
 * Form parts shared by the draft-invoice form and the recurring-series form: the customer picker (search, then
 * choose) and the custom lines (description, unit price typed in dollars → integer cents, quantity).
 */
import { useEffect, useState } from 'react';
import { parseCashInput } from '../common/cash.ts';
import type { BackOfficeApi, Customer } from '../common/back-office-api.ts';
import { Field, type FormErrors } from '../common/back-office-kit.tsx';

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
  matches: Customer[];
  customerId: string;
  setCustomerId: (id: string) => void;
}

/** Searches customers as the text changes (debounced 200 ms) and keeps the choice among the matches. */
export function useCustomerPicker(api: BackOfficeApi): CustomerPickerState {
  const [q, setQ] = useState('');
  const [matches, setMatches] = useState<Customer[]>([]);
  const [customerId, setCustomerId] = useState('');
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      api.listCustomers(q.trim() ? { q: q.trim() } : {}).then(
        (page) => {
          if (!current) return;
          setMatches(page.data);
          setCustomerId((c) => (page.data.some((m) => m.id === c) ? c : (page.data[0]?.id ?? '')));
        },
        () => undefined,
      );
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, q]);
  return { q, setQ, matches, customerId, setCustomerId };
}

/** The search box and the customer select; `testId` prefixes the test ids (`<testId>-customer-search`, `<testId>-customer`). */
export function CustomerPicker({
  id,
  picker,
  error,
  testId,
  autoFocus,
}: {
  id: string;
  picker: CustomerPickerState;
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
          <select
            {...p}
            className="bo-input"
            value={picker.customerId}
            onChange={(e) => picker.setCustomerId(e.target.value)}
            data-testid={`${testId}-customer`}
          >
            {picker.matches.length === 0 ? <option value="">No customer found</option> : null}
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

/** One custom line as typed. */
export interface LineDraft {
  key: number;
  description: string;
  amount: string;
  quantity: string;
}

export const firstLine = (): LineDraft[] => [{ key: 1, description: '', amount: '', quantity: '1' }];

/**
 * The custom lines of a form, parsed: amounts into integer cents (never through a float), quantities as whole
 * numbers. Local errors go into `local` under the server's paths (`customLines.<i>.amountCents`, `….quantity`).
 */
export function parseLines(
  lines: LineDraft[],
  currency: string,
  local: Record<string, string>,
): { description: string; amountCents: number; quantity: number }[] {
  return lines.map((l, i) => {
    const cents = parseCashInput(l.amount, currency);
    if (cents === undefined || cents === 0) local[`customLines.${i}.amountCents`] = 'Enter an amount like 40.00';
    const quantity = /^\d+$/.test(l.quantity.trim()) ? Number(l.quantity.trim()) : NaN;
    if (!Number.isSafeInteger(quantity) || quantity < 1) local[`customLines.${i}.quantity`] = 'A whole number, 1 or more';
    return { description: l.description.trim(), amountCents: cents ?? 0, quantity };
  });
}

/** True for the server paths a lines fieldset shows next to its fields. */
export const isLinePath = (p: string) => p === 'lineItems' || p === 'customLines' || /^customLines\.\d+\.(description|amountCents|quantity)$/.test(p);

/** The lines fieldset: description, unit price, quantity per line; add and remove lines. */
export function LinesFieldset({
  id,
  lines,
  setLines,
  errors,
  currency,
  testId,
}: {
  id: string;
  lines: LineDraft[];
  setLines: (update: (lines: LineDraft[]) => LineDraft[]) => void;
  errors: FormErrors;
  currency: string;
  testId: string;
}) {
  const setLine = (key: number, patch: Partial<LineDraft>) => setLines((l) => l.map((x) => (x.key === key ? { ...x, ...patch } : x)));
  const listError = errors.fields.lineItems ?? errors.fields.customLines;
  return (
    <fieldset className="bo-fieldset">
      <legend>Lines</legend>
      {listError ? (
        <p className="bo-field-error" role="alert" data-testid="field-error">
          {listError}
        </p>
      ) : null}
      {lines.map((l, i) => (
        <div className="bo-variation" key={l.key} data-testid={`${testId}-line`}>
          <Field id={`${id}-l${l.key}-d`} label="Description" error={errors.fields[`customLines.${i}.description`]}>
            {(p) => (
              <input
                {...p}
                className="bo-input"
                value={l.description}
                onChange={(e) => setLine(l.key, { description: e.target.value })}
                data-testid={`${testId}-line-description`}
              />
            )}
          </Field>
          <Field id={`${id}-l${l.key}-a`} label={`Unit price (${currency})`} error={errors.fields[`customLines.${i}.amountCents`]}>
            {(p) => (
              <input
                {...p}
                className="bo-input bo-money"
                inputMode="decimal"
                placeholder="0.00"
                value={l.amount}
                onChange={(e) => setLine(l.key, { amount: e.target.value })}
                data-testid={`${testId}-line-amount`}
              />
            )}
          </Field>
          <Field id={`${id}-l${l.key}-q`} label="Quantity" error={errors.fields[`customLines.${i}.quantity`]}>
            {(p) => (
              <input
                {...p}
                className="bo-input bo-units"
                inputMode="numeric"
                value={l.quantity}
                onChange={(e) => setLine(l.key, { quantity: e.target.value })}
                data-testid={`${testId}-line-quantity`}
              />
            )}
          </Field>
          <button
            type="button"
            className="button button-ghost"
            disabled={lines.length <= 1}
            onClick={() => setLines((x) => x.filter((y) => y.key !== l.key))}
            aria-label={`Remove line ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button"
        onClick={() => setLines((x) => [...x, { key: Math.max(0, ...x.map((y) => y.key)) + 1, description: '', amount: '', quantity: '1' }])}
      >
        Add line
      </button>
    </fieldset>
  );
}
