/**
 * Acting on an order: cancel an open one, collect what a `balance_due` one owes. Both are React Hook Forms checked by
 * their bodies' own rules (core `orderCancelSchema`, the cash / card tender of `tenderInputSchema`); their requests run
 * as the section's actions.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { formatMoney, orderCancelSchema, tenderInputSchema, tenderLabel } from '../../../../core/index.ts';
import { centsToInput, parseCashInput } from '../../common/cash.ts';
import type { ApiOrder } from '../../common/back-office-api.ts';
import { Field } from '../../common/back-office-kit.tsx';
import { useBackOfficeActions } from '../../common/back-office-query.ts';
import { showProblem, typed } from '../../common/forms.ts';
import { useOrderCustomer } from './receipt-panel.tsx';

/** The cancel form: the reason typed, trimmed; empty is none, else checked by the cancel body's `reason` rule. */
const cancelForm = z.object({
  reason: z
    .string()
    .transform((t) => (t.trim() === '' ? undefined : t.trim()))
    .pipe(orderCancelSchema.shape.reason),
});

/** Cancel an open order: a button, then an inline confirmation (with an optional reason) — no window.confirm. */
export function CancelPanel({ order, onCanceled }: { order: ApiOrder; onCanceled: (order: ApiOrder, message: string) => void }) {
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const { register, handleSubmit, setError, setFocus, formState } = useForm<z.input<typeof cancelForm>, unknown, z.output<typeof cancelForm>>({
    resolver: zodResolver(cancelForm),
    defaultValues: { reason: '' },
  });
  const actions = useBackOfficeActions(['order']);
  const busy = formState.isSubmitting;
  const money = (cents: number) => formatMoney(cents, order.currency);

  useEffect(() => {
    if (confirming) setFocus('reason');
  }, [confirming, setFocus]);

  const cancel = handleSubmit(async ({ reason }) => {
    const next = await actions.run(
      (api) => api.cancelOrder(order.id, reason),
      (err) => showProblem(err, setError, ['reason']),
    );
    if (!next) return;
    setConfirming(false);
    onCanceled(next, next.refundedCents > 0 ? `Order canceled; ${money(next.refundedCents)} given back.` : 'Order canceled.');
  });

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-cancel-panel">
      <h3 id={`${id}-title`}>Cancel</h3>
      {!confirming ? (
        <div>
          <button type="button" className="button bo-danger-ghost" onClick={() => setConfirming(true)} data-testid="order-cancel">
            Cancel order…
          </button>
        </div>
      ) : (
        <div className="bo-form" role="group" aria-labelledby={`${id}-question`}>
          <p id={`${id}-question`} className="bo-delete-question bo-flush">
            Cancel order {order.receiptNumber}?{' '}
            {order.paidCents > 0 ? `The ${money(order.paidCents)} already paid is given back.` : 'Nothing has been paid on it.'} This cannot be
            undone.
          </p>
          <Field id={`${id}-reason`} label="Reason (optional)" error={formState.errors.reason?.message}>
            {(p) => (
              <input
                {...p}
                className="bo-input"
                maxLength={500}
                {...register('reason')}
                onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), void cancel())}
                data-testid="order-cancel-reason"
              />
            )}
          </Field>
          {actions.error ? (
            <p className="form-error" role="alert">
              {actions.error}
            </p>
          ) : null}
          <div className="bo-actions">
            <button type="button" className="button bo-danger" onClick={() => void cancel()} disabled={busy} data-testid="order-cancel-confirm">
              {busy ? 'Canceling…' : 'Cancel order'}
            </button>
            <button
              type="button"
              className="button button-ghost"
              onClick={() => setConfirming(false)}
              disabled={busy}
              data-testid="order-cancel-keep"
            >
              Keep order
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

/** Why a `balance_due` order owes, in words. */
const BALANCE_DUE_TEXT: Record<NonNullable<ApiOrder['balanceDueReason']>, string> = {
  offline_card_declined: 'offline card declined on forward',
  offline_card_expired: "offline card not forwarded within the store's window",
  bank_payment_returned: 'bank payment returned',
};

/**
 * The collect form: the amount typed → the tender's `amountCents`, checked by its rule and at most what is due; the
 * method (cash, or a card by its sandbox token).
 */
function collectForm(currency: string, dueCents: number) {
  const notAmount = `Type an amount up to ${formatMoney(dueCents, currency)}.`;
  const rule = tenderInputSchema.options[0].shape.amountCents.max(dueCents, notAmount);
  return z.object({
    amountCents: typed((t) => parseCashInput(t, currency) || undefined, notAmount, rule),
    method: z.enum(['cash', 'card']),
  });
}

/**
 * A `balance_due` order: what the customer owes and why (the failed payment: card and decline code, or the
 * bank's return code), the receipt's customer to contact (name, e-mail, phone), and "Collect balance": an amount (the
 * whole balance by default) taken in cash or by card, `POST /api/pos/orders/{id}/payments`; back to Paid at zero.
 */
export function BalanceDuePanel({ order, onCollected }: { order: ApiOrder; onCollected: (order: ApiOrder, message: string) => void }) {
  const id = useId();
  const money = (cents: number) => formatMoney(cents, order.currency);
  const schema = useMemo(() => collectForm(order.currency, order.balanceDueCents), [order.currency, order.balanceDueCents]);
  const { register, handleSubmit, setError, reset, formState } = useForm<z.input<typeof schema>, unknown, z.output<typeof schema>>({
    resolver: zodResolver(schema),
    defaultValues: { amountCents: centsToInput(order.balanceDueCents), method: 'cash' },
  });
  const actions = useBackOfficeActions(['order']);
  const busy = formState.isSubmitting;
  const customer = useOrderCustomer(order.customerId);

  const failed = (order.payments ?? []).filter((p) => p.state === 'returned' || (p.state === 'declined' && p.journalTransactionId));
  const contact = customer
    ? [[customer.givenName, customer.familyName].filter(Boolean).join(' '), customer.email, customer.phone].filter(Boolean).join(' · ')
    : order.customerId
      ? '…'
      : 'no customer on the receipt';

  const collect = handleSubmit(async ({ amountCents, method }) => {
    const next = await actions.run(
      (api) => api.collectOrderBalance(order.id, method === 'cash' ? { method, amountCents } : { method, amountCents, cardToken: 'tok_visa' }),
      (err) => showProblem(err, setError, ['amountCents']),
    );
    if (!next) return;
    reset({ amountCents: centsToInput(next.balanceDueCents), method });
    onCollected(
      next,
      next.state === 'balance_due'
        ? `${money(amountCents)} collected; ${money(next.balanceDueCents)} still due.`
        : `${money(amountCents)} collected: the order is paid.`,
    );
  });

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-balance-due">
      <h3 id={`${id}-title`}>Balance due</h3>
      <p className="bo-flush" data-testid="order-balance-due-text">
        {money(order.balanceDueCents)} due — {order.balanceDueReason ? BALANCE_DUE_TEXT[order.balanceDueReason] : 'a payment failed after the sale'}
        {failed.map((p) => ` · ${p.cardBrand ?? tenderLabel(p.method)}${p.last4 ? ` ···${p.last4}` : ''}: ${p.declineCode ?? p.state}`).join('')}
      </p>
      <p className="muted bo-flush" data-testid="order-balance-due-customer">
        Customer on the receipt: {contact}
      </p>
      <form className="bo-form" onSubmit={(event) => void collect(event)} noValidate>
        <Field id={`${id}-amount`} label="Amount" error={formState.errors.amountCents?.message}>
          {(p) => <input {...p} className="bo-input" inputMode="decimal" {...register('amountCents')} data-testid="order-collect-amount" />}
        </Field>
        <fieldset className="bo-fieldset">
          <legend>Taken in</legend>
          {(['cash', 'card'] as const).map((m) => (
            <label key={m} className="bo-check">
              <input type="radio" value={m} {...register('method')} data-testid={`order-collect-${m}`} /> {m === 'cash' ? 'Cash' : 'Card'}
            </label>
          ))}
        </fieldset>
        {actions.error ? (
          <p className="form-error" role="alert">
            {actions.error}
          </p>
        ) : null}
        <div className="bo-actions">
          <button type="submit" className="button" disabled={busy} data-testid="order-collect">
            {busy ? 'Collecting…' : 'Collect balance'}
          </button>
        </div>
      </form>
    </section>
  );
}
