/**
 * The refund form of an order: a React Hook Form whose fields are checked by the refund body's own rules (core
 * `refundCreateSchema`), named by the body's paths so the server's field errors land in place; the refund runs as the
 * section's action. Amounts typed by people are parsed with `parseCashInput` into integer cents (never floats); money
 * is shown with core's `formatMoney`. The server stays the authority: the refund preview and "Up to … can still be
 * refunded" come from core's refund rule (`planOrderRefund`, `refundableBalance`, the functions the server plans with)
 * only to label the form, and whatever the server refuses is shown where it belongs.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useState } from 'react';
import { useForm, type Path, type UseFormSetError } from 'react-hook-form';
import { z } from 'zod';
import { formatMoney, planOrderRefund, refundCreateSchema, type RefundRequest } from '../../../../core/index.ts';
import { centsToInput, parseCashInput } from '../../common/cash.ts';
import { ApiError, type ApiOrder, type OrderRefundInput } from '../../common/back-office-api.ts';
import { Field, useCurrency } from '../../common/back-office-kit.tsx';
import { useBackOfficeActions } from '../../common/back-office-query.ts';
import { showProblem, typed } from '../../common/forms.ts';
import { type Line, ORDER_STATE_TEXT, lineDetail, lineTitle, refundableCents, refundedQuantities } from './order-parts.tsx';
import { ManagerApproval } from './manager-approval.tsx';

const rules = refundCreateSchema.shape;
/** A reason typed: trimmed; empty is none, else checked by the body's `reason` rule. */
const reasonText = z
  .string()
  .transform((t) => (t.trim() === '' ? undefined : t.trim()))
  .pipe(rules.reason);
/** A quantity typed: empty or 0 is none (not refunded), else a whole number checked by the body's line `quantity` rule. */
const quantityOf = (text: string): { quantity: number } | { error: string } => {
  const trimmed = text.trim();
  if (!/^\d{0,5}$/.test(trimmed)) return { error: 'Enter a whole number of items' };
  if (Number(trimmed) === 0) return { quantity: 0 };
  const checked = rules.lines.unwrap().element.shape.quantity.safeParse(Number(trimmed));
  return checked.success ? { quantity: checked.data } : { error: checked.error.issues[0]?.message ?? 'Enter a whole number of items' };
};

/**
 * The refund form: by line (one quantity per line of the order, in order) or by amount, each field checked by its
 * rule in the refund body; its output is the body.
 */
function refundForm(currency: string) {
  const amountText = typed((t) => parseCashInput(t, currency) || undefined, 'Enter an amount like 4.50', rules.amountCents.unwrap());
  return z
    .object({
      mode: z.enum(['lines', 'amount']),
      lines: z.array(z.object({ lineId: z.string(), quantity: z.string() })),
      restock: z.boolean(),
      amountCents: z.string(),
      reason: reasonText,
    })
    .transform((form, ctx): OrderRefundInput => {
      const reason = form.reason ? { reason: form.reason } : {};
      if (form.mode === 'amount') {
        const amount = amountText.safeParse(form.amountCents);
        if (amount.success) return { amountCents: amount.data, ...reason };
        for (const issue of amount.error.issues) ctx.addIssue({ code: 'custom', path: ['amountCents'], message: issue.message });
        return z.NEVER;
      }
      const lines: { lineId: string; quantity: number }[] = [];
      let typedWrong = false;
      form.lines.forEach((line, i) => {
        const read = quantityOf(line.quantity);
        if ('error' in read) {
          typedWrong = true;
          ctx.addIssue({ code: 'custom', path: ['lines', i, 'quantity'], message: read.error });
        } else if (read.quantity > 0) lines.push({ lineId: line.lineId, quantity: read.quantity });
      });
      if (typedWrong) return z.NEVER;
      if (lines.length === 0) {
        // Said for the form as a whole (RHF's root error), as nothing typed is wrong.
        ctx.addIssue({ code: 'custom', path: ['root'], message: 'Enter how many items to refund on at least one line.' });
        return z.NEVER;
      }
      return { lines, restock: form.restock, ...reason };
    });
}
type RefundForm = ReturnType<typeof refundForm>;
type RefundTyped = z.input<RefundForm>;

/** The form as it starts: every line at no quantity, "Return to stock" on, nothing typed. */
const blank = (order: ApiOrder, mode: RefundTyped['mode']): RefundTyped => ({
  mode,
  lines: order.lines.map((l) => ({ lineId: l.id, quantity: '' })),
  restock: true,
  amountCents: '',
  reason: '',
});

/**
 * The refund form: by line (quantity per line, at most what is left, "Return to stock" on by default) or by amount,
 * with an optional reason. Server field errors are mapped back to the inputs they name.
 */
export function RefundPanel({ order, onRefunded }: { order: ApiOrder; onRefunded: (order: ApiOrder, message: string) => void }) {
  const currency = useCurrency();
  const id = useId();
  const cur = order.currency || currency;
  const [schema] = useState(() => refundForm(cur));
  const form = useForm<RefundTyped, unknown, OrderRefundInput>({
    resolver: zodResolver(schema),
    // Both modes' fields are kept while switching (a quantity typed stays when the amount is tried).
    defaultValues: blank(order, 'lines'),
  });
  const { register, handleSubmit, setError, clearErrors, setValue, getValues, reset, watch, formState } = form;
  const errors = formState.errors;
  const actions = useBackOfficeActions(['order']);
  const busy = formState.isSubmitting || actions.pending;
  // A cashier's refund above the store's limit (403 approval_required): the refund waits for a manager's PIN.
  const [pending, setPending] = useState<OrderRefundInput | undefined>(undefined);

  const money = (cents: number) => formatMoney(cents, cur);
  const refunded = refundedQuantities(order);
  const left = (line: Line) => Math.max(0, line.quantity - (refunded.get(line.id) ?? 0));
  const refundable = refundableCents(order);
  const values = watch();
  const mode = values.mode;

  /** A preview of what the server will give back (core's planner); undefined when it would refuse. */
  const preview = (): number | undefined => {
    let request: RefundRequest;
    if (mode === 'lines') {
      const texts = values.lines.map((l) => ({ lineId: l.lineId, text: l.quantity.trim() }));
      if (texts.some((t) => t.text !== '' && !/^\d{1,4}$/.test(t.text))) return undefined;
      const chosen = texts.filter((t) => Number(t.text) > 0).map((t) => ({ lineId: t.lineId, quantity: Number(t.text) }));
      if (chosen.length === 0) return undefined;
      request = { lines: chosen };
    } else {
      const cents = parseCashInput(values.amountCents, cur);
      if (!cents) return undefined;
      request = { amountCents: cents };
    }
    try {
      return planOrderRefund(order, order.payments ?? [], order.refunds ?? [], request).amountCents;
    } catch {
      return undefined;
    }
  };
  const previewCents = preview();

  const step = (index: number, line: Line, delta: number) => {
    const now = Number(getValues(`lines.${index}.quantity`).trim() || '0');
    const next = Math.min(left(line), Math.max(0, (Number.isFinite(now) ? now : 0) + delta));
    setValue(`lines.${index}.quantity`, next === 0 ? '' : String(next));
    clearErrors([`lines.${index}.quantity`, 'lines']);
  };

  /** Sends the refund (with a manager's approval once given); 403 `approval_required` asks for the manager's PIN. */
  const send = async (input: OrderRefundInput) => {
    // The server names sent lines by their place in the body; the form holds every line of the order.
    const place = (input.lines ?? []).map((l) => order.lines.findIndex((x) => x.id === l.lineId));
    const inPlace: UseFormSetError<RefundTyped> = (path, error, options) => {
      const match = /^lines\.(\d+)\.(quantity|lineId)$/.exec(path);
      setError(match ? (`lines.${place[Number(match[1])] ?? 0}.quantity` as Path<RefundTyped>) : path, error, options);
    };
    const fields = [
      ...place.flatMap((_, j) => [`lines.${j}.quantity`, `lines.${j}.lineId`]),
      'lines',
      'amountCents',
      'reason',
      'restock',
    ] as Path<RefundTyped>[];
    const result = await actions.run(
      (api) => api.refundOrder(order.id, input),
      (err) => {
        if (err instanceof ApiError && err.problem.code === 'approval_required') {
          setPending(input);
          return undefined;
        }
        return showProblem(err, inPlace, fields);
      },
    );
    if (!result) return;
    const { refund, order: next } = result;
    setPending(undefined);
    reset(blank(order, getValues('mode')));
    const what =
      refund.lines.length > 0
        ? ` for ${refund.lines.map((l) => `${l.quantity} × ${order.lines.find((x) => x.id === l.lineId)?.name ?? l.lineId}`).join(', ')}${refund.restock ? ', returned to stock' : ''}`
        : '';
    onRefunded(next, `Refunded ${money(refund.amountCents)}${what}. The order is now ${ORDER_STATE_TEXT[next.state].toLowerCase()}.`);
  };

  const onSubmit = handleSubmit((input) => send(input));
  const formError = errors.root?.message ?? actions.error;

  return (
    <section className="bo-panel bo-refund" aria-labelledby={`${id}-title`} data-testid="order-refund">
      <h3 id={`${id}-title`}>Refund</h3>
      <p className="muted bo-flush">Up to {money(refundable)} can still be refunded.</p>
      {pending ? (
        <ManagerApproval orderId={order.id} onApproved={(approval) => void send({ ...pending, approval })} onCancel={() => setPending(undefined)} />
      ) : null}
      <form className="bo-form" onSubmit={(event) => void onSubmit(event)} noValidate data-testid="order-refund-form">
        <fieldset className="bo-segmented">
          <legend>Refund by</legend>
          <label className="bo-check">
            <input type="radio" value="lines" {...register('mode', { onChange: () => clearErrors() })} data-testid="order-refund-mode-lines" /> Items
          </label>
          <label className="bo-check">
            <input type="radio" value="amount" {...register('mode', { onChange: () => clearErrors() })} data-testid="order-refund-mode-amount" />{' '}
            Amount
          </label>
        </fieldset>
        {formError ? (
          <p className="form-error" role="alert" data-testid="order-refund-form-error">
            {formError}
          </p>
        ) : null}
        {mode === 'lines' ? (
          <>
            <table className="orders-table bo-table">
              <thead>
                <tr>
                  <th scope="col">Item</th>
                  <th scope="col" className="numeric">
                    Left to refund
                  </th>
                  <th scope="col">Quantity to refund</th>
                </tr>
              </thead>
              <tbody>
                {order.lines.map((line, index) => {
                  const inputId = `${id}-qty-${line.id}`;
                  const error = errors.lines?.[index]?.quantity?.message;
                  const remaining = left(line);
                  return (
                    <tr key={line.id} data-testid="order-refund-line" data-line-id={line.id}>
                      <td>
                        {lineTitle(line)}
                        {lineDetail(line) ? <span className="muted bo-hint"> · {lineDetail(line)}</span> : null}
                      </td>
                      <td className="numeric" data-testid="order-refund-line-left">
                        {remaining} of {line.quantity}
                      </td>
                      <td>
                        <div className="bo-stepper">
                          <label className="visually-hidden" htmlFor={inputId}>
                            Quantity of {line.name} to refund (at most {remaining})
                          </label>
                          <button
                            type="button"
                            className="button bo-step"
                            onClick={() => step(index, line, -1)}
                            disabled={remaining === 0}
                            aria-label={`One fewer ${line.name}`}
                            aria-controls={inputId}
                          >
                            −
                          </button>
                          <input
                            id={inputId}
                            className="bo-input bo-units"
                            inputMode="numeric"
                            placeholder="0"
                            min={0}
                            max={remaining}
                            {...register(`lines.${index}.quantity`, { onChange: () => clearErrors('lines') })}
                            disabled={remaining === 0}
                            aria-invalid={Boolean(error)}
                            {...(error ? { 'aria-describedby': `${inputId}-error` } : {})}
                            data-testid="order-refund-line-qty"
                          />
                          <button
                            type="button"
                            className="button bo-step"
                            onClick={() => step(index, line, 1)}
                            disabled={remaining === 0}
                            aria-label={`One more ${line.name}`}
                            aria-controls={inputId}
                          >
                            +
                          </button>
                        </div>
                        {error ? (
                          <span className="bo-field-error" id={`${inputId}-error`} role="alert" data-testid="field-error">
                            {error}
                          </span>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {errors.lines?.message ? (
              <p className="bo-field-error" role="alert" data-testid="field-error">
                {errors.lines.message}
              </p>
            ) : null}
            <label className="bo-check">
              <input type="checkbox" {...register('restock')} data-testid="order-refund-restock" /> Return to stock
            </label>
          </>
        ) : (
          <div className="bo-row">
            <Field
              id={`${id}-amount`}
              label={`Amount to refund (${cur})`}
              error={errors.amountCents?.message}
              hint={`At most ${money(refundable)}`}
              className="bo-field-narrow"
            >
              {(p) => (
                <input
                  {...p}
                  className="bo-input bo-money"
                  inputMode="decimal"
                  placeholder="0.00"
                  {...register('amountCents')}
                  data-testid="order-refund-amount"
                />
              )}
            </Field>
            <button
              type="button"
              className="button bo-inline-button"
              onClick={() => (setValue('amountCents', centsToInput(refundable, cur)), clearErrors('amountCents'))}
              data-testid="order-refund-amount-all"
            >
              Everything left
            </button>
          </div>
        )}
        <Field id={`${id}-reason`} label="Reason (optional)" error={errors.reason?.message}>
          {(p) => <input {...p} className="bo-input" maxLength={500} {...register('reason')} data-testid="order-refund-reason" />}
        </Field>
        <div>
          <button type="submit" className="button button-primary" disabled={busy} data-testid="order-refund-submit">
            {busy ? 'Refunding…' : previewCents !== undefined ? `Refund ${money(previewCents)}` : 'Refund'}
          </button>
        </div>
      </form>
    </section>
  );
}
