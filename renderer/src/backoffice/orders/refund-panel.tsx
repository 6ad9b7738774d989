/**
 * The refund form of an order. Amounts typed by people are parsed with `parseCashInput` into integer cents (never
 * floats); money is shown with core's `formatMoney`. The server stays the authority: the refund preview and "Up to …
 * can still be refunded" come from core's refund rule (`planOrderRefund`, `refundableBalance`, the functions the server
 * plans with) only to label the form, and whatever the server refuses is shown where it belongs.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney, planOrderRefund, type RefundRequest } from '../../../../core/index.ts';
import { centsToInput, parseCashInput } from '../../common/cash.ts';
import { ApiError, type ApiOrder, type OrderRefundInput } from '../../common/back-office-api.ts';
import { Field, formErrorsOf, NO_ERRORS, useApi, useCurrency, useFocusFirstError, type FormErrors } from '../../common/back-office-kit.tsx';
import { type Line, ORDER_STATE_TEXT, lineDetail, lineTitle, refundableCents, refundedQuantities } from './order-parts.tsx';
import { ManagerApproval } from './manager-approval.tsx';

type RefundMode = 'lines' | 'amount';

const lineKey = (lineId: string) => `line:${lineId}`;

/**
 * The refund form: by line (quantity per line, at most what is left, "Return to stock" on by default) or by amount,
 * with an optional reason. Server field errors are mapped back to the inputs they name.
 */
export function RefundPanel({ order, onRefunded }: { order: ApiOrder; onRefunded: (order: ApiOrder, message: string) => void }) {
  const api = useApi();
  const currency = useCurrency();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [mode, setMode] = useState<RefundMode>('lines');
  const [quantities, setQuantities] = useState<Record<string, string>>({});
  const [restock, setRestock] = useState(true);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  // A cashier's refund above the store's limit (403 approval_required): the refund waits for a manager's PIN.
  const [pending, setPending] = useState<OrderRefundInput | undefined>(undefined);
  useFocusFirstError(formRef, errors);

  const cur = order.currency || currency;
  const money = (cents: number) => formatMoney(cents, cur);
  const refunded = refundedQuantities(order);
  const left = (line: Line) => Math.max(0, line.quantity - (refunded.get(line.id) ?? 0));
  const refundable = refundableCents(order);

  /** The lines asked for (quantity typed and not 0), in order; `bad` holds the lines whose text is not a count. */
  const asked = () => {
    const chosen: { line: Line; quantity: number }[] = [];
    const bad: string[] = [];
    for (const line of order.lines) {
      const text = (quantities[line.id] ?? '').trim();
      if (text === '') continue;
      if (!/^\d{1,4}$/.test(text)) {
        bad.push(line.id);
        continue;
      }
      const quantity = Number(text);
      if (quantity > 0) chosen.push({ line, quantity });
    }
    return { chosen, bad };
  };

  /** A preview of what the server will give back (core's planner); undefined when it would refuse. */
  const preview = (): number | undefined => {
    let request: RefundRequest;
    if (mode === 'lines') {
      const { chosen, bad } = asked();
      if (chosen.length === 0 || bad.length > 0) return undefined;
      request = { lines: chosen.map((c) => ({ lineId: c.line.id, quantity: c.quantity })) };
    } else {
      const cents = parseCashInput(amount, cur);
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

  const setQuantity = (lineId: string, text: string) => {
    setQuantities((q) => ({ ...q, [lineId]: text }));
    setErrors((e) => {
      const key = lineKey(lineId);
      if (!(key in e.fields) && !('lines' in e.fields)) return e;
      const fields = { ...e.fields };
      delete fields[key];
      delete fields.lines;
      return { ...e, fields };
    });
  };

  const step = (line: Line, delta: number) => {
    const now = Number((quantities[line.id] ?? '').trim() || '0');
    const next = Math.min(left(line), Math.max(0, (Number.isFinite(now) ? now : 0) + delta));
    setQuantity(line.id, next === 0 ? '' : String(next));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    let input: OrderRefundInput;
    let sentLines: Line[] = [];
    const trimmedReason = reason.trim();
    if (mode === 'lines') {
      const { chosen, bad } = asked();
      if (bad.length > 0) {
        setErrors({ fields: Object.fromEntries(bad.map((lineId) => [lineKey(lineId), 'Enter a whole number of items'])) });
        return;
      }
      if (chosen.length === 0) {
        setErrors({ fields: {}, form: 'Enter how many items to refund on at least one line.' });
        return;
      }
      sentLines = chosen.map((c) => c.line);
      input = {
        lines: chosen.map((c) => ({ lineId: c.line.id, quantity: c.quantity })),
        restock,
        ...(trimmedReason ? { reason: trimmedReason } : {}),
      };
    } else {
      const cents = parseCashInput(amount, cur);
      if (cents === undefined || cents === 0) {
        setErrors({ fields: { amountCents: 'Enter an amount like 4.50' } });
        return;
      }
      input = { amountCents: cents, ...(trimmedReason ? { reason: trimmedReason } : {}) };
    }
    await send(input, sentLines);
  };

  /** Sends the refund (with a manager's approval once given); 403 `approval_required` asks for the manager's PIN. */
  const send = async (input: OrderRefundInput, sentLines: Line[] = []) => {
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const { refund, order: next } = await api.refundOrder(order.id, input);
      setPending(undefined);
      setQuantities({});
      setAmount('');
      setReason('');
      setRestock(true);
      const what =
        refund.lines.length > 0
          ? ` for ${refund.lines.map((l) => `${l.quantity} × ${order.lines.find((x) => x.id === l.lineId)?.name ?? l.lineId}`).join(', ')}${refund.restock ? ', returned to stock' : ''}`
          : '';
      onRefunded(next, `Refunded ${money(refund.amountCents)}${what}. The order is now ${ORDER_STATE_TEXT[next.state].toLowerCase()}.`);
    } catch (err) {
      if (err instanceof ApiError && err.problem.code === 'approval_required') {
        setPending(input);
        return;
      }
      const known = (path: string) => /^lines\.\d+\.(quantity|lineId)$/.test(path) || ['lines', 'amountCents', 'reason', 'restock'].includes(path);
      const found = formErrorsOf(err, known);
      const fields: Record<string, string> = {};
      for (const [path, message] of Object.entries(found.fields)) {
        const match = /^lines\.(\d+)\./.exec(path);
        const line = match ? sentLines[Number(match[1])] : undefined;
        fields[line ? lineKey(line.id) : path] = message;
      }
      setErrors({ fields, ...(found.form ? { form: found.form } : {}) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="bo-panel bo-refund" aria-labelledby={`${id}-title`} data-testid="order-refund">
      <h3 id={`${id}-title`}>Refund</h3>
      <p className="muted bo-flush">Up to {money(refundable)} can still be refunded.</p>
      {pending ? (
        <ManagerApproval orderId={order.id} onApproved={(approval) => void send({ ...pending, approval })} onCancel={() => setPending(undefined)} />
      ) : null}
      <form ref={formRef} className="bo-form" onSubmit={onSubmit} noValidate data-testid="order-refund-form">
        <fieldset className="bo-segmented">
          <legend>Refund by</legend>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-mode`}
              value="lines"
              checked={mode === 'lines'}
              onChange={() => (setMode('lines'), setErrors(NO_ERRORS))}
              data-testid="order-refund-mode-lines"
            />{' '}
            Items
          </label>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-mode`}
              value="amount"
              checked={mode === 'amount'}
              onChange={() => (setMode('amount'), setErrors(NO_ERRORS))}
              data-testid="order-refund-mode-amount"
            />{' '}
            Amount
          </label>
        </fieldset>
        {errors.form ? (
          <p className="form-error" role="alert" data-testid="order-refund-form-error">
            {errors.form}
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
                {order.lines.map((line) => {
                  const inputId = `${id}-qty-${line.id}`;
                  const error = errors.fields[lineKey(line.id)];
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
                            onClick={() => step(line, -1)}
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
                            value={quantities[line.id] ?? ''}
                            onChange={(e) => setQuantity(line.id, e.target.value)}
                            disabled={remaining === 0}
                            aria-invalid={Boolean(error)}
                            {...(error ? { 'aria-describedby': `${inputId}-error` } : {})}
                            data-testid="order-refund-line-qty"
                          />
                          <button
                            type="button"
                            className="button bo-step"
                            onClick={() => step(line, 1)}
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
            {errors.fields.lines ? (
              <p className="bo-field-error" role="alert" data-testid="field-error">
                {errors.fields.lines}
              </p>
            ) : null}
            <label className="bo-check">
              <input type="checkbox" checked={restock} onChange={(e) => setRestock(e.target.checked)} data-testid="order-refund-restock" /> Return to
              stock
            </label>
          </>
        ) : (
          <div className="bo-row">
            <Field
              id={`${id}-amount`}
              label={`Amount to refund (${cur})`}
              error={errors.fields.amountCents}
              hint={`At most ${money(refundable)}`}
              className="bo-field-narrow"
            >
              {(p) => (
                <input
                  {...p}
                  className="bo-input bo-money"
                  inputMode="decimal"
                  placeholder="0.00"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                  data-testid="order-refund-amount"
                />
              )}
            </Field>
            <button
              type="button"
              className="button bo-inline-button"
              onClick={() => setAmount(centsToInput(refundable, cur))}
              data-testid="order-refund-amount-all"
            >
              Everything left
            </button>
          </div>
        )}
        <Field id={`${id}-reason`} label="Reason (optional)" error={errors.fields.reason}>
          {(p) => (
            <input
              {...p}
              className="bo-input"
              value={reason}
              maxLength={500}
              onChange={(e) => setReason(e.target.value)}
              data-testid="order-refund-reason"
            />
          )}
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
