/**
 * "Pay a bill" in the register's Services area. Routes: `GET /api/pos/billers`, `POST /api/pos/bill-payments/validate`,
 * `POST /api/pos/bill-payments`, `…/{id}/complete`.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../../../core/index.ts';
import { errorMessage } from '../../../common/back-office-api.ts';
import { useRegister } from '../../register-context.ts';
import { recordServiceCash } from '../../shifts/shift-store.ts';
import {
  HoldPanel,
  PrintNote,
  Receipt,
  ServiceError,
  type TabProps,
  dollarsToCents,
  serviceShift,
  useOverview,
  useServiceAction,
} from './money-service-parts.tsx';

interface Biller {
  id: string;
  name: string;
  category: string;
  accountRule: { minLength: number; maxLength: number; checkDigit: string };
}

interface BillPayment {
  id: string;
  status: string;
  feeCents: number;
  totalCents: number;
  confirmationNumber: string | null;
  screeningId: string | null;
  /** The typed name's screening when the ID shown names someone else: the hold waits for it too. */
  nameScreeningId: string | null;
  /** Null while held (nothing taken yet). */
  receipt: string[] | null;
}
/**
 * "Pay a bill": biller, account (validated before money is taken), amount, customer (and the customer's licence,
 * optional below $3 000); confirmation and receipt. A payer who is a potential sanctions match holds the payment: the
 * hold banner until a manager clears it, then the cashier pays it (the account number is sent again: the server keeps
 * only its masked form).
 */
export function PayBillTab({ api, HoldBanner }: TabProps) {
  const { db, session } = useRegister();
  const { overview, notice } = useOverview(api);
  const [billers, setBillers] = useState<Biller[]>([]);
  const [billerId, setBillerId] = useState('');
  const [account, setAccount] = useState('');
  const [valid, setValid] = useState<string | undefined>();
  const [amount, setAmount] = useState('');
  const [customerName, setCustomerName] = useState('');
  const [idPayload, setIdPayload] = useState('');
  const [payment, setPayment] = useState<BillPayment | undefined>();
  // Printed once the payment has a receipt (none while held).
  const { busy, error, setError, run, printNote } = useServiceAction(payment, (p) => p.receipt);
  useEffect(() => {
    api.request<{ data: Biller[] }>('GET', '/api/pos/billers').then(
      (b) => {
        setBillers(b.data);
        setBillerId((id) => id || (b.data[0]?.id ?? ''));
      },
      (err: unknown) => setError(errorMessage(err)),
    );
  }, [api, setError]);
  const amountCents = dollarsToCents(amount);
  const validate = () =>
    run(async () =>
      setValid(
        (await api.request<{ accountMasked: string }>('POST', '/api/pos/bill-payments/validate', { billerId, accountNumber: account })).accountMasked,
      ),
    );
  const pay = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const shift = await serviceShift(db, session);
      const answer = await api.request<BillPayment>('POST', '/api/pos/bill-payments', {
        billerId,
        accountNumber: account,
        amountCents,
        customerName,
        ...(idPayload.trim() ? { idPayload } : {}),
        registerNumber: session.registerNumber,
        shiftId: shift.id,
      });
      if (answer.status !== 'held')
        await recordServiceCash(db, shift, {
          kind: 'bill_payment_in',
          amountCents: answer.totalCents,
          feeCents: answer.feeCents,
          serviceRef: answer.id,
        });
      setPayment(answer);
    });
  };
  const complete = () =>
    run(async () => {
      const shift = await serviceShift(db, session);
      const answer = await api.request<BillPayment>('POST', `/api/pos/bill-payments/${payment!.id}/complete`, {
        accountNumber: account,
        shiftId: shift.id,
      });
      await recordServiceCash(db, shift, {
        kind: 'bill_payment_in',
        amountCents: answer.totalCents,
        feeCents: answer.feeCents,
        serviceRef: answer.id,
      });
      setPayment(answer);
    });
  const biller = billers.find((b) => b.id === billerId);
  return (
    <section className="bo-section" data-testid="pay-bill">
      <h2>Pay a bill</h2>
      {notice}
      {overview?.moneyMovement === 'enabled' && !payment ? (
        <form className="bo-form" onSubmit={pay}>
          <label className="bo-field">
            Biller
            <select
              className="bo-input"
              value={billerId}
              onChange={(e) => {
                setBillerId(e.target.value);
                setValid(undefined);
              }}
              data-testid="bill-biller"
            >
              {billers.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.name} ({b.category.replace('_', ' ')})
                </option>
              ))}
            </select>
          </label>
          <label className="bo-field">
            Account number
            {biller
              ? ` (${biller.accountRule.minLength === biller.accountRule.maxLength ? biller.accountRule.minLength : `${biller.accountRule.minLength}–${biller.accountRule.maxLength}`} digits)`
              : ''}
            <input
              className="bo-input"
              value={account}
              onChange={(e) => {
                setAccount(e.target.value);
                setValid(undefined);
              }}
              onBlur={() => account.trim() && void validate()}
              data-testid="bill-account"
              autoComplete="off"
            />
          </label>
          {valid ? (
            <p className="muted" data-testid="bill-account-valid">
              Account {valid} is valid for {biller?.name}.
            </p>
          ) : null}
          <label className="bo-field">
            Amount ($)
            <input className="bo-input" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} data-testid="bill-amount" />
          </label>
          <label className="bo-field">
            Customer name
            <input
              className="bo-input"
              value={customerName}
              onChange={(e) => setCustomerName(e.target.value)}
              data-testid="bill-customer"
              autoComplete="off"
            />
          </label>
          <label className="bo-field">
            Customer&apos;s licence (scan the barcode; required from $3,000)
            <textarea
              className="bo-input id-scan"
              rows={2}
              value={idPayload}
              onChange={(e) => setIdPayload(e.target.value)}
              data-testid="bill-id"
              spellCheck={false}
              autoComplete="off"
            />
          </label>
          {amountCents && overview ? (
            <p className="muted">
              Fee {formatMoney(overview.settings.billPaymentFeeCents)} · total {formatMoney(amountCents + overview.settings.billPaymentFeeCents)}
            </p>
          ) : null}
          <button
            type="submit"
            className="button button-primary"
            disabled={busy || !valid || !amountCents || customerName.trim().length < 2}
            data-testid="bill-submit"
          >
            Take the cash and pay
          </button>
        </form>
      ) : null}
      <ServiceError error={error} testId="bill-error" />
      {payment?.status === 'held' ? (
        <HoldPanel
          api={api}
          HoldBanner={HoldBanner}
          testId="bill-held"
          screeningIds={[payment.screeningId, payment.nameScreeningId].filter((x): x is string => !!x)}
        >
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void complete()} data-testid="bill-complete">
            Cleared by a manager — take the cash and pay
          </button>
        </HoldPanel>
      ) : null}
      {payment && payment.status !== 'held' && payment.receipt ? (
        <div role="status" data-testid="bill-paid">
          <p>
            Paid — confirmation <strong data-testid="bill-confirmation">{payment.confirmationNumber}</strong>
          </p>
          <Receipt lines={payment.receipt} testId="bill-receipt" />
          <PrintNote note={printNote} testId="bill-print-note" />
        </div>
      ) : null}
    </section>
  );
}
