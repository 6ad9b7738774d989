/**
 * The receipt of an order: send it by SMS or e-mail, or show it in a printable block. The send form is a React Hook
 * Form checked by the receipt body's own rule (core `receiptSendSchema`); its request and the receipt's read run as
 * the section's actions.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { receiptSendSchema } from '../../../../core/index.ts';
import type { ApiOrder, OrderReceipt } from '../../common/back-office-api.ts';
import { Field } from '../../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../../common/back-office-query.ts';
import { LatestMessage } from '../message-state.tsx';
import { showProblem } from '../../common/forms.ts';

/** The recipient typed: trimmed; empty is no value (the order's customer), else checked by the channel's `to` rule. */
const recipient = <S extends z.ZodType<unknown, string | undefined>>(rule: S) =>
  z
    .string()
    .transform((t) => (t.trim() === '' ? undefined : t.trim()))
    .pipe(rule);
const [smsBody, emailBody] = receiptSendSchema.options;
/** The send form: the channel, and the recipient checked by that channel's rule in the receipt body. */
const sendForm = z.discriminatedUnion('channel', [
  z.object({ channel: z.literal('sms'), to: recipient(smsBody.shape.to) }),
  z.object({ channel: z.literal('email'), to: recipient(emailBody.shape.to) }),
]);
type SendTyped = z.input<typeof sendForm>;

/** The customer on an order's receipt (`null` when there is none), read for its phone and e-mail. */
export function useOrderCustomer(customerId: string | null | undefined) {
  return useBackOfficeData('order-customer', [customerId], (api) => (customerId ? api.orderCustomer(customerId) : Promise.resolve(null))).data;
}

/**
 * Send the receipt (SMS or e-mail, to the order's customer or a typed phone / address) and show the re-print data in
 * a printable block; `window.print()` runs only when the Print button is pressed.
 */
export function ReceiptPanel({ order }: { order: ApiOrder }) {
  const id = useId();
  const { register, handleSubmit, setError, clearErrors, watch, formState } = useForm<SendTyped, unknown, z.output<typeof sendForm>>({
    resolver: zodResolver(sendForm),
    defaultValues: { channel: 'email', to: '' },
  });
  const errors = formState.errors;
  const channel = watch('channel');
  // A receipt sent: the state of the latest one (below the form) reads again.
  const sending = useBackOfficeActions(['latest-message']);
  const printing = useBackOfficeActions([]);
  const customer = useOrderCustomer(order.customerId);
  const [sent, setSent] = useState<string | undefined>();
  const [receipt, setReceipt] = useState<OrderReceipt | undefined>();

  // The printed receipt follows the order (a refund changes it): drop a stale copy.
  useEffect(() => setReceipt(undefined), [order.state, order.refundedCents]);

  const fallback = channel === 'sms' ? customer?.phone : customer?.email;

  // A national number is read in the store's country by the server, as for customers.
  const send = handleSubmit(async (body) => {
    setSent(undefined);
    const result = await sending.run(
      (api) => api.sendOrderReceipt(order.id, body),
      (err) => showProblem(err, setError, ['to']),
    );
    if (result) setSent(`Receipt ${result.channel === 'sms' ? 'texted' : 'e-mailed'} to ${result.to}.`);
  });

  const showReceipt = async () => {
    const read = await printing.run((api) => api.orderReceipt(order.id));
    if (read) setReceipt(read);
  };

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-receipt">
      <h3 id={`${id}-title`}>Receipt</h3>
      <form className="bo-form" onSubmit={(event) => void send(event)} noValidate>
        <fieldset className="bo-segmented">
          <legend>Send by</legend>
          <label className="bo-check">
            <input type="radio" value="email" {...register('channel', { onChange: () => clearErrors() })} data-testid="order-receipt-channel-email" />{' '}
            E-mail
          </label>
          <label className="bo-check">
            <input type="radio" value="sms" {...register('channel', { onChange: () => clearErrors() })} data-testid="order-receipt-channel-sms" /> SMS
          </label>
        </fieldset>
        {sending.error ? (
          <p className="form-error" role="alert">
            {sending.error}
          </p>
        ) : null}
        <div className="bo-row bo-receipt-send">
          <Field
            id={`${id}-to`}
            label={channel === 'sms' ? 'Phone number' : 'E-mail address'}
            error={errors.to?.message}
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
                {...register('to', { onChange: () => setSent(undefined) })}
                data-testid="order-receipt-to"
              />
            )}
          </Field>
          <button type="submit" className="button button-primary bo-inline-button" disabled={formState.isSubmitting} data-testid="order-receipt-send">
            {formState.isSubmitting ? 'Sending…' : 'Send receipt'}
          </button>
        </div>
        {sent ? (
          <p className="bo-saved bo-flush" role="status" data-testid="order-receipt-sent">
            {sent}
          </p>
        ) : null}
        <LatestMessage subjectRef={`order:${order.id}`} />
      </form>
      <div className="bo-actions">
        <button type="button" className="button" onClick={() => void showReceipt()} disabled={printing.pending} data-testid="order-receipt-show">
          {printing.pending ? 'Loading…' : receipt ? 'Reload receipt' : 'Show receipt to print'}
        </button>
        {receipt ? (
          <button type="button" className="button button-primary" onClick={() => window.print()} data-testid="order-receipt-print">
            Print
          </button>
        ) : null}
      </div>
      {printing.error ? (
        <p className="form-error" role="alert">
          {printing.error}
        </p>
      ) : null}
      {receipt ? (
        <pre className="bo-receipt-print" aria-label={`Receipt ${receipt.receiptNumber}`} data-testid="order-receipt-text">
          {receipt.text}
        </pre>
      ) : null}
    </section>
  );
}
