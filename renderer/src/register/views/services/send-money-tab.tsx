/**
 * "Send money" in the register's Services area. Routes: `POST /api/pos/transfers/quote`, `POST /api/pos/transfers`,
 * `…/{id}/complete`, `…/{id}/cancel`.
 */
import { useState, type FormEvent } from 'react';
import { formatMoney } from '../../../../../core/index.ts';
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

interface Transfer {
  id: string;
  status: string;
  quote: { sendAmountCents: number; feeCents: number };
  senderName: string;
  receiverName: string;
  senderScreeningId: string | null;
  receiverScreeningId: string | null;
  receipt: { lines: string[]; cancelUntil: string | null } | null;
}

interface Disclosure {
  lines: string[];
  totalCents: number;
}

/** "Send money": amount, destination, payout method, receiver; the disclosure; the sender's licence; send. */
export function SendMoneyTab({ api, HoldBanner }: TabProps) {
  const { db, session } = useRegister();
  const { overview, notice } = useOverview(api);
  const [amount, setAmount] = useState('');
  const [country, setCountry] = useState('MX');
  const [payoutMethod, setPayoutMethod] = useState('cash_pickup');
  const [receiverName, setReceiverName] = useState('');
  const [idPayload, setIdPayload] = useState('');
  const [disclosure, setDisclosure] = useState<Disclosure | undefined>();
  const [transfer, setTransfer] = useState<Transfer | undefined>();
  // Printed once the transfer is sent.
  const { busy, error, run, printNote } = useServiceAction(transfer, (t) => (t.status === 'sent' ? t.receipt?.lines : undefined));
  const amountCents = dollarsToCents(amount);

  const quote = (event: FormEvent) => {
    event.preventDefault();
    if (!amountCents) return;
    void run(async () =>
      setDisclosure(
        (await api.request<{ disclosure: Disclosure }>('POST', '/api/pos/transfers/quote', { amountCents, country, payoutMethod })).disclosure,
      ),
    );
  };
  /** Sends the request naming the open shift, then stores the cash the answer moved through the drawer. */
  const withShift = (request: (shiftId: string) => Promise<Transfer>, moved: (t: Transfer) => 'transfer_in' | 'transfer_canceled' | undefined) =>
    run(async () => {
      const shift = await serviceShift(db, session);
      const answer = await request(shift.id);
      const kind = moved(answer);
      if (kind)
        await recordServiceCash(db, shift, {
          kind,
          amountCents: answer.quote.sendAmountCents + answer.quote.feeCents,
          feeCents: answer.quote.feeCents,
          serviceRef: answer.id,
        });
      setTransfer(answer);
    });
  const sent = (t: Transfer) => (t.status === 'held' ? undefined : 'transfer_in');
  const send = () =>
    withShift(
      (shiftId) =>
        api.request<Transfer>('POST', '/api/pos/transfers', {
          amountCents,
          country,
          payoutMethod,
          receiverName,
          idPayload,
          registerNumber: session.registerNumber,
          shiftId,
        }),
      sent,
    );
  const complete = () => withShift((shiftId) => api.request<Transfer>('POST', `/api/pos/transfers/${transfer!.id}/complete`, { shiftId }), sent);
  const cancel = () =>
    withShift(
      (shiftId) => api.request<Transfer>('POST', `/api/pos/transfers/${transfer!.id}/cancel`, { shiftId }),
      (t) => (t.status === 'canceled' ? 'transfer_canceled' : undefined),
    );

  return (
    <section className="bo-section" data-testid="send-money">
      <h2>Send money</h2>
      {notice}
      {overview?.moneyMovement === 'enabled' && !transfer ? (
        <form className="bo-form" onSubmit={quote}>
          <label className="bo-field">
            Amount to send ($)
            <input
              className="bo-input"
              inputMode="decimal"
              value={amount}
              onChange={(e) => {
                setAmount(e.target.value);
                setDisclosure(undefined);
              }}
              data-testid="send-amount"
            />
          </label>
          <label className="bo-field">
            Country
            <select
              className="bo-input"
              value={country}
              onChange={(e) => {
                setCountry(e.target.value);
                setDisclosure(undefined);
              }}
              data-testid="send-country"
            >
              {overview.corridors.map((c) => (
                <option key={c.country} value={c.country}>
                  {c.country} ({c.currency})
                </option>
              ))}
            </select>
          </label>
          <label className="bo-field">
            Payout
            <select
              className="bo-input"
              value={payoutMethod}
              onChange={(e) => {
                setPayoutMethod(e.target.value);
                setDisclosure(undefined);
              }}
              data-testid="send-payout"
            >
              {overview.payoutMethods.map((m) => (
                <option key={m} value={m}>
                  {m.replace('_', ' ')}
                </option>
              ))}
            </select>
          </label>
          <label className="bo-field">
            Receiver&apos;s full name
            <input
              className="bo-input"
              value={receiverName}
              onChange={(e) => setReceiverName(e.target.value)}
              data-testid="send-receiver"
              autoComplete="off"
            />
          </label>
          <button type="submit" className="button" disabled={busy || !amountCents} data-testid="send-quote">
            Get the quote
          </button>
          {disclosure ? (
            <>
              <Receipt lines={disclosure.lines} testId="send-disclosure" />
              <label className="bo-field">
                Sender&apos;s licence (scan the barcode on the back)
                <textarea
                  className="bo-input id-scan"
                  rows={3}
                  value={idPayload}
                  onChange={(e) => setIdPayload(e.target.value)}
                  data-testid="send-id"
                  spellCheck={false}
                  autoComplete="off"
                />
              </label>
              <button
                type="button"
                className="button button-primary"
                disabled={busy || !idPayload.trim() || receiverName.trim().length < 2}
                onClick={() => void send()}
                data-testid="send-submit"
              >
                Take {formatMoney(disclosure.totalCents)} and send
              </button>
            </>
          ) : null}
        </form>
      ) : null}
      <ServiceError error={error} testId="send-error" />
      {transfer?.status === 'held' ? (
        <HoldPanel
          api={api}
          HoldBanner={HoldBanner}
          testId="send-held"
          screeningIds={[transfer.senderScreeningId, transfer.receiverScreeningId].filter((x): x is string => !!x)}
        >
          <button type="button" className="button button-primary" onClick={() => void complete()} data-testid="send-complete">
            Cleared by a manager — send now
          </button>
        </HoldPanel>
      ) : null}
      {transfer && transfer.status !== 'held' ? (
        <div role="status" data-testid="send-result" data-status={transfer.status}>
          <p>
            Transfer <strong data-testid="send-status">{transfer.status}</strong> to {transfer.receiverName}.
          </p>
          {transfer.receipt ? <Receipt lines={transfer.receipt.lines} testId="send-receipt" /> : null}
          <PrintNote note={printNote} testId="send-print-note" />
          {transfer.status === 'sent' ? (
            <button type="button" className="button" onClick={() => void cancel()} data-testid="send-cancel">
              Cancel (full refund, 30 minutes)
            </button>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
