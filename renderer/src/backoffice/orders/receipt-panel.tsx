/** The receipt of an order: send it by SMS or e-mail, or show it in a printable block. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ApiOrder, Customer, OrderReceipt } from '../../common/back-office-api.ts';
import { Field, formErrorsOf, LoadError, NO_ERRORS, useApi, useFocusFirstError, type FormErrors } from '../../common/back-office-kit.tsx';

/**
 * Send the receipt (SMS or e-mail, to the order's customer or a typed phone / address) and show the re-print data in
 * a printable block; `window.print()` runs only when the Print button is pressed.
 */
export function ReceiptPanel({ order }: { order: ApiOrder }) {
  const api = useApi();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [channel, setChannel] = useState<'email' | 'sms'>('email');
  const [to, setTo] = useState('');
  const [customer, setCustomer] = useState<Customer | undefined>();
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string | undefined>();
  const [receipt, setReceipt] = useState<OrderReceipt | undefined>();
  const [receiptError, setReceiptError] = useState<unknown>();
  const [loadingReceipt, setLoadingReceipt] = useState(false);
  useFocusFirstError(formRef, errors);

  useEffect(() => {
    if (!order.customerId) return;
    let current = true;
    api.orderCustomer(order.customerId).then(
      (c) => current && setCustomer(c),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, order.customerId]);

  // The printed receipt follows the order (a refund changes it): drop a stale copy.
  useEffect(() => setReceipt(undefined), [order.state, order.refundedCents]);

  const fallback = channel === 'sms' ? customer?.phone : customer?.email;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setSending(true);
    setErrors(NO_ERRORS);
    setSent(undefined);
    try {
      // A national number is read in the store's country by the server, as for customers.
      const target = to.trim();
      const recipient = target ? { to: target } : {};
      const result = await api.sendOrderReceipt(order.id, channel === 'sms' ? { channel: 'sms', ...recipient } : { channel: 'email', ...recipient });
      setSent(`Receipt ${result.channel === 'sms' ? 'texted' : 'e-mailed'} to ${result.to}.`);
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'to'));
    } finally {
      setSending(false);
    }
  };

  const showReceipt = async () => {
    setLoadingReceipt(true);
    setReceiptError(undefined);
    try {
      setReceipt(await api.orderReceipt(order.id));
    } catch (err) {
      setReceiptError(err);
    } finally {
      setLoadingReceipt(false);
    }
  };

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-receipt">
      <h3 id={`${id}-title`}>Receipt</h3>
      <form ref={formRef} className="bo-form" onSubmit={send} noValidate>
        <fieldset className="bo-segmented">
          <legend>Send by</legend>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-channel`}
              value="email"
              checked={channel === 'email'}
              onChange={() => (setChannel('email'), setErrors(NO_ERRORS))}
              data-testid="order-receipt-channel-email"
            />{' '}
            E-mail
          </label>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-channel`}
              value="sms"
              checked={channel === 'sms'}
              onChange={() => (setChannel('sms'), setErrors(NO_ERRORS))}
              data-testid="order-receipt-channel-sms"
            />{' '}
            SMS
          </label>
        </fieldset>
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
          </p>
        ) : null}
        <div className="bo-row bo-receipt-send">
          <Field
            id={`${id}-to`}
            label={channel === 'sms' ? 'Phone number' : 'E-mail address'}
            error={errors.fields.to}
            hint={
              fallback
                ? `Leave empty to send to the customer (${fallback})`
                : channel === 'sms'
                  ? 'As dialled in the store, or + and the country code'
                  : 'This order has no customer e-mail: type an address'
            }
          >
            {(p) => (
              <input
                {...p}
                className="bo-input"
                type={channel === 'sms' ? 'tel' : 'email'}
                autoComplete="off"
                value={to}
                onChange={(e) => (setTo(e.target.value), setSent(undefined))}
                data-testid="order-receipt-to"
              />
            )}
          </Field>
          <button type="submit" className="button button-primary bo-inline-button" disabled={sending} data-testid="order-receipt-send">
            {sending ? 'Sending…' : 'Send receipt'}
          </button>
        </div>
        {sent ? (
          <p className="bo-saved bo-flush" role="status" data-testid="order-receipt-sent">
            {sent}
          </p>
        ) : null}
      </form>
      <div className="bo-actions">
        <button type="button" className="button" onClick={showReceipt} disabled={loadingReceipt} data-testid="order-receipt-show">
          {loadingReceipt ? 'Loading…' : receipt ? 'Reload receipt' : 'Show receipt to print'}
        </button>
        {receipt ? (
          <button type="button" className="button button-primary" onClick={() => window.print()} data-testid="order-receipt-print">
            Print
          </button>
        ) : null}
      </div>
      {receiptError ? <LoadError error={receiptError} what="The receipt" /> : null}
      {receipt ? (
        <pre className="bo-receipt-print" aria-label={`Receipt ${receipt.receiptNumber}`} data-testid="order-receipt-text">
          {receipt.text}
        </pre>
      ) : null}
    </section>
  );
}
