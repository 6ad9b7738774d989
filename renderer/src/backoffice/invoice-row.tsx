/**
 * One row of the invoice list, with its actions (send, record a payment, refund, void, PDF). Each change goes through
 * the section's actions (TanStack Query), which read the list again; the payment and refund amounts are small React
 * Hook Form forms checked by their bodies' rules (core `invoicePaymentCreateSchema`, `invoiceRefundCreateSchema`).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { formatMoney, invoicePaymentCreateSchema, invoiceRefundCreateSchema } from '../../../core/index.ts';
import { useRegisterSession } from '../common/session-context.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import type { BackOfficeApi, Invoice, InvoiceStatus } from '../common/back-office-api.ts';
import { downloadBlob } from './download.ts';
import { copyText } from './pay-requests-view.tsx';
import { useCurrency } from '../common/back-office-kit.tsx';
import { useBackOfficeActions } from '../common/back-office-query.ts';
import { LatestMessage } from './message-state.tsx';
import { typed } from '../common/forms.ts';

export const STATUS_TEXT: Record<InvoiceStatus, string> = {
  draft: 'Draft',
  sent: 'Sent',
  partially_paid: 'Partly paid',
  overdue: 'Overdue',
  paid: 'Paid',
  void: 'Void',
};

/** The inline payment form: the amount typed → the payment body's `amountCents`, checked by its rule; the method. */
function paymentForm(currency: string) {
  const f = invoicePaymentCreateSchema.shape;
  return z.object({
    amountCents: typed((t) => parseCashInput(t, currency) || undefined, 'Enter the amount received, like 40.00', f.amountCents),
    method: f.method,
  });
}
type PaymentForm = ReturnType<typeof paymentForm>;

/** The inline refund form: the amount typed → the refund body's `amountCents`, at most what is still refundable. */
function refundForm(currency: string, refundable: number) {
  const notAmount = `Enter an amount up to ${formatMoney(refundable, currency)}`;
  const rule = invoiceRefundCreateSchema.shape.amountCents.unwrap().max(refundable, notAmount);
  return z.object({ amountCents: typed((t) => parseCashInput(t, currency) || undefined, notAmount, rule) });
}
type RefundForm = ReturnType<typeof refundForm>;

export function InvoiceRow({ invoice: inv }: { invoice: Invoice }) {
  const currency = useCurrency();
  const { session } = useRegisterSession();
  // Every change reads the invoice list again (the row shows the server's invoice, never an edit of it).
  // Sending (or reminding) writes a message: its state line below reads again.
  const actions = useBackOfficeActions(['invoices', 'latest-message']);
  const downloads = useBackOfficeActions([]);
  const busy = actions.pending;
  const [done, setDone] = useState<string | undefined>();
  const message = actions.error ?? downloads.error ?? done;
  const [paying, setPaying] = useState(false);
  const payButton = useRef<HTMLButtonElement>(null);
  const paymentSchema = useMemo(() => paymentForm(currency), [currency]);
  const payment = useForm<z.input<PaymentForm>, unknown, z.output<PaymentForm>>({
    resolver: zodResolver(paymentSchema),
    defaultValues: { amountCents: '', method: 'check' },
  });
  /** Closes the inline payment form; focus returns to its "Record payment" button. */
  const stopPaying = () => {
    setPaying(false);
    payment.clearErrors();
    requestAnimationFrame(() => payButton.current?.focus());
  };
  const [confirmVoid, setConfirmVoid] = useState(false);
  const [refunding, setRefunding] = useState(false);
  const refundable = inv.status === 'paid' ? inv.paidCents - inv.refundedCents : 0;
  const refundSchema = useMemo(() => refundForm(inv.currency, refundable), [inv.currency, refundable]);
  const refund = useForm<z.input<RefundForm>, unknown, z.output<RefundForm>>({
    resolver: zodResolver(refundSchema),
    defaultValues: { amountCents: '' },
  });
  const stopRefunding = () => {
    setRefunding(false);
    refund.clearErrors();
  };
  // A field error of the inline forms is said in the row's message (no room under the small inputs).
  const fieldError = payment.formState.errors.amountCents?.message ?? refund.formState.errors.amountCents?.message;

  const run = async (action: (api: BackOfficeApi) => Promise<Invoice>, succeeded?: string) => {
    setDone(undefined);
    const changed = await actions.run(action);
    if (changed && succeeded) setDone(succeeded);
    return changed;
  };

  const pay = payment.handleSubmit(async ({ amountCents, method }) => {
    const extra = method === 'cash' ? { registerId: session.registerId } : method === 'card' ? { cardToken: 'tok_visa' } : {};
    await run((api) => api.recordInvoicePayment(inv.id, { amountCents, method, ...extra }), 'Payment recorded');
    setPaying(false);
    payment.reset({ amountCents: '', method });
  });

  const giveBack = refund.handleSubmit(async ({ amountCents }) => {
    await run((api) => api.refundInvoice(inv.id, { amountCents }), 'Refunded');
    setRefunding(false);
  });

  const pdf = async () => {
    setDone(undefined);
    const blob = await downloads.run((api) => api.invoicePdf(inv.id));
    if (blob) downloadBlob(blob, `${inv.number}.pdf`);
  };

  const canSend =
    inv.status === 'draft' || ((inv.status === 'sent' || inv.status === 'partially_paid' || inv.status === 'overdue') && inv.balanceDueCents > 0);
  const canPay = inv.status === 'sent' || inv.status === 'partially_paid' || inv.status === 'overdue';
  const canVoid = (inv.status === 'draft' || inv.status === 'sent' || inv.status === 'overdue') && inv.paidCents === 0;

  return (
    <tr data-testid="invoice-row" data-invoice-id={inv.id} data-status={inv.status}>
      <td>
        {inv.number}
        {inv.seriesId ? (
          <span className="bo-tag" title="Generated by a recurring series">
            recurring
          </span>
        ) : null}
      </td>
      <td>{inv.billTo.name ?? inv.billTo.email ?? inv.billTo.phone ?? inv.customerId}</td>
      <td>{inv.dueDate}</td>
      <td>
        <span className={`bo-status bo-status-${inv.status}`} data-testid="invoice-status">
          {STATUS_TEXT[inv.status]}
        </span>
        {inv.status !== 'draft' ? <LatestMessage subjectRef={`invoice:${inv.id}`} /> : null}
      </td>
      <td className="numeric">{formatMoney(inv.totalCents, inv.currency)}</td>
      <td className="numeric" data-testid="invoice-balance">
        {formatMoney(inv.balanceDueCents, inv.currency)}
        {inv.refundedCents > 0 ? (
          <span className="bo-tag" data-testid="invoice-refunded">
            {formatMoney(inv.refundedCents, inv.currency)} refunded
          </span>
        ) : null}
      </td>
      <td className="bo-actions">
        {canSend ? (
          <button
            type="button"
            className="button button-ghost"
            disabled={busy}
            onClick={() => void run((api) => api.sendInvoice(inv.id), inv.status === 'draft' ? 'Sent' : 'Reminder sent')}
            data-testid="invoice-send"
          >
            {inv.status === 'draft' ? 'Send' : 'Remind'}
          </button>
        ) : null}
        {canPay && !paying ? (
          <button
            ref={payButton}
            type="button"
            className="button button-ghost"
            onClick={() => (setPaying(true), payment.reset({ amountCents: '', method: payment.getValues('method') }))}
            data-testid="invoice-pay"
          >
            Record payment
          </button>
        ) : null}
        {paying ? (
          <form className="bo-actions" onSubmit={(event) => void pay(event)} onKeyDown={(e) => e.key === 'Escape' && stopPaying()} noValidate>
            <label className="visually-hidden" htmlFor={`${inv.id}-amount`}>
              Amount received
            </label>
            <input
              id={`${inv.id}-amount`}
              className="bo-input bo-money"
              inputMode="decimal"
              placeholder="0.00"
              aria-invalid={Boolean(payment.formState.errors.amountCents)}
              {...payment.register('amountCents')}
              data-testid="invoice-pay-amount"
              autoFocus
            />
            <label className="visually-hidden" htmlFor={`${inv.id}-method`}>
              Method
            </label>
            <select id={`${inv.id}-method`} className="bo-input" {...payment.register('method')} data-testid="invoice-pay-method">
              <option value="check">Check</option>
              <option value="cash">Cash (this register)</option>
              <option value="bank_transfer">Bank transfer</option>
              <option value="card">Card (sandbox)</option>
              <option value="other">Other</option>
            </select>
            <button type="submit" className="button button-primary" disabled={busy} data-testid="invoice-pay-submit">
              Record
            </button>
            <button type="button" className="button button-ghost" onClick={stopPaying}>
              Cancel
            </button>
          </form>
        ) : null}
        {refundable > 0 && !refunding ? (
          <button
            type="button"
            className="button button-ghost"
            onClick={() => (setRefunding(true), refund.reset({ amountCents: centsToInput(refundable, inv.currency) }))}
            data-testid="invoice-refund"
          >
            Refund…
          </button>
        ) : null}
        {refunding ? (
          <form className="bo-actions" onSubmit={(event) => void giveBack(event)} onKeyDown={(e) => e.key === 'Escape' && stopRefunding()} noValidate>
            <label className="visually-hidden" htmlFor={`${inv.id}-refund`}>
              Amount to refund
            </label>
            <input
              id={`${inv.id}-refund`}
              className="bo-input bo-money"
              inputMode="decimal"
              aria-invalid={Boolean(refund.formState.errors.amountCents)}
              {...refund.register('amountCents')}
              data-testid="invoice-refund-amount"
              autoFocus
            />
            <button type="submit" className="button bo-danger" disabled={busy} data-testid="invoice-refund-submit">
              Refund
            </button>
            <button type="button" className="button button-ghost" onClick={stopRefunding}>
              Cancel
            </button>
          </form>
        ) : null}
        {canVoid && !confirmVoid ? (
          <button type="button" className="button button-ghost" onClick={() => setConfirmVoid(true)} data-testid="invoice-void">
            Void…
          </button>
        ) : null}
        {confirmVoid ? (
          <>
            <button
              type="button"
              className="button bo-danger"
              disabled={busy}
              onClick={() => void run((api) => api.voidInvoice(inv.id), 'Voided').then(() => setConfirmVoid(false))}
              data-testid="invoice-confirm-void"
            >
              Void invoice
            </button>
            <button type="button" className="button button-ghost" onClick={() => setConfirmVoid(false)}>
              Keep
            </button>
          </>
        ) : null}
        <button type="button" className="button button-ghost" onClick={() => void pdf()} data-testid="invoice-pdf">
          PDF
        </button>
        {inv.payUrl ? (
          <button
            type="button"
            className="button button-ghost"
            onClick={async () => setDone((await copyText(inv.payUrl!)) ? 'Pay link copied' : 'Copy failed')}
          >
            Copy pay link
          </button>
        ) : null}
        {(fieldError ?? message) ? (
          <span role="status" className="bo-hint" data-testid="invoice-message">
            {fieldError ?? message}
          </span>
        ) : null}
      </td>
    </tr>
  );
}
