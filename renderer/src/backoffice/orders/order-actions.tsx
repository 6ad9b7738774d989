/** Acting on an order: cancel an open one, collect what a `balance_due` one owes. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney, tenderLabel } from '../../../../core/index.ts';
import { centsToInput, parseCashInput } from '../../common/cash.ts';
import type { ApiOrder, Customer } from '../../common/back-office-api.ts';
import { Field, formErrorsOf, NO_ERRORS, useApi, useFocusFirstError, type FormErrors } from '../../common/back-office-kit.tsx';

/** Cancel an open order: a button, then an inline confirmation (with an optional reason) — no window.confirm. */
export function CancelPanel({ order, onCanceled }: { order: ApiOrder; onCanceled: (order: ApiOrder, message: string) => void }) {
  const api = useApi();
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const reasonRef = useRef<HTMLInputElement>(null);
  const money = (cents: number) => formatMoney(cents, order.currency);

  useEffect(() => {
    if (confirming) reasonRef.current?.focus();
  }, [confirming]);

  const cancel = async () => {
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const next = await api.cancelOrder(order.id, reason.trim() || undefined);
      setConfirming(false);
      onCanceled(next, next.refundedCents > 0 ? `Order canceled; ${money(next.refundedCents)} given back.` : 'Order canceled.');
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'reason'));
    } finally {
      setBusy(false);
    }
  };

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
          <Field id={`${id}-reason`} label="Reason (optional)" error={errors.fields.reason}>
            {(p) => (
              <input
                {...p}
                ref={reasonRef}
                className="bo-input"
                value={reason}
                maxLength={500}
                onChange={(e) => setReason(e.target.value)}
                onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), void cancel())}
                data-testid="order-cancel-reason"
              />
            )}
          </Field>
          {errors.form ? (
            <p className="form-error" role="alert">
              {errors.form}
            </p>
          ) : null}
          <div className="bo-actions">
            <button type="button" className="button bo-danger" onClick={cancel} disabled={busy} data-testid="order-cancel-confirm">
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
 * A `balance_due` order: what the customer owes and why (the failed payment: card and decline code, or the
 * bank's return code), the receipt's customer to contact (name, e-mail, phone), and "Collect balance": an amount (the
 * whole balance by default) taken in cash or by card, `POST /api/pos/orders/{id}/payments`; back to Paid at zero.
 */
export function BalanceDuePanel({ order, onCollected }: { order: ApiOrder; onCollected: (order: ApiOrder, message: string) => void }) {
  const api = useApi();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [customer, setCustomer] = useState<Customer | undefined>();
  const [amount, setAmount] = useState(() => centsToInput(order.balanceDueCents));
  const [method, setMethod] = useState<'cash' | 'card'>('cash');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  useFocusFirstError(formRef, errors);
  const money = (cents: number) => formatMoney(cents, order.currency);

  useEffect(() => {
    let current = true;
    if (!order.customerId) return;
    api.orderCustomer(order.customerId).then(
      (c) => current && setCustomer(c),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, order.customerId]);

  const failed = (order.payments ?? []).filter((p) => p.state === 'returned' || (p.state === 'declined' && p.journalTransactionId));
  const contact = customer
    ? [[customer.givenName, customer.familyName].filter(Boolean).join(' '), customer.email, customer.phone].filter(Boolean).join(' · ')
    : order.customerId
      ? '…'
      : 'no customer on the receipt';

  const collect = async (e: FormEvent) => {
    e.preventDefault();
    const cents = parseCashInput(amount, order.currency);
    if (!cents || cents > order.balanceDueCents) {
      setErrors({ fields: { amount: `Type an amount up to ${money(order.balanceDueCents)}.` } });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const next = await api.collectOrderBalance(
        order.id,
        method === 'cash' ? { method, amountCents: cents } : { method, amountCents: cents, cardToken: 'tok_visa' },
      );
      setAmount(centsToInput(next.balanceDueCents));
      onCollected(
        next,
        next.state === 'balance_due'
          ? `${money(cents)} collected; ${money(next.balanceDueCents)} still due.`
          : `${money(cents)} collected: the order is paid.`,
      );
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'amount'));
    } finally {
      setBusy(false);
    }
  };

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
      <form ref={formRef} className="bo-form" onSubmit={collect} noValidate>
        <Field id={`${id}-amount`} label="Amount" error={errors.fields.amount}>
          {(p) => (
            <input
              {...p}
              className="bo-input"
              inputMode="decimal"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              data-testid="order-collect-amount"
            />
          )}
        </Field>
        <fieldset className="bo-fieldset">
          <legend>Taken in</legend>
          {(['cash', 'card'] as const).map((m) => (
            <label key={m} className="bo-check">
              <input
                type="radio"
                name={`${id}-method`}
                value={m}
                checked={method === m}
                onChange={() => setMethod(m)}
                data-testid={`order-collect-${m}`}
              />{' '}
              {m === 'cash' ? 'Cash' : 'Card'}
            </label>
          ))}
        </fieldset>
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
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
