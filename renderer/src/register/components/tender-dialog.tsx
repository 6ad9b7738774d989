import { useEffect, useId, useRef, useState } from 'react';
import { formatMoney, type Cents } from '../../../../core/index.ts';
import type { CardPayment, CheckPayment } from '../devices/device-payments.ts';
import { centsToInput, parseCashInput, quickTenders } from '../../common/cash.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { tabList } from '../../ui/tabs.ts';

/** A device tender offered in the dialog, or why it is not (no bridge, terminal not configured…). */
export interface DeviceTender<T> {
  payment: T;
  /** Set when the device cannot be used now; the tab then says why. */
  unavailable: string | undefined;
}

interface TenderDialogProps {
  totalCents: Cents;
  currency: string;
  isBusy: boolean;
  error: string | undefined;
  onComplete: (tenderedCents: Cents) => void;
  onClose: () => void;
  /** Card through the terminal; omitted → cash only. */
  card?: DeviceTender<CardPayment>;
  /** While the register is offline: the card payment that may still be approved offline (minor units), shown to the cashier. */
  offlineCardLimitLeftCents?: number | undefined;
  /** Check through the scanner; omitted → cash only. */
  check?: DeviceTender<CheckPayment> & { onComplete: () => void };
}

type Method = 'cash' | 'card' | 'check';
const TITLES: Record<Method, string> = { cash: 'Cash payment', card: 'Card payment', check: 'Check payment' };

/**
 * The tender dialog. Cash: what the customer hands over, the change due live, and "Complete sale" once it covers the
 * total. Card: "Charge card" sends the total to the terminal and shows its answer (declined keeps the sale open).
 * Check: "Scan check" reads the MICR line and shows routing, account and check number before completing.
 */
export function TenderDialog({
  totalCents,
  currency,
  isBusy,
  error,
  onComplete,
  onClose,
  card,
  check,
  offlineCardLimitLeftCents,
}: TenderDialogProps) {
  const [method, setMethod] = useState<Method>('cash');
  const [text, setText] = useState('');
  const cashInput = useRef<HTMLInputElement>(null);
  const tendered = parseCashInput(text, currency);
  const isValid = tendered !== undefined;
  const covers = tendered !== undefined && tendered >= totalCents;
  const changeCents = covers ? tendered - totalCents : 0;
  const isCardWaiting = card?.payment.phase === 'waiting';
  const ids = useId();
  const methods = (['cash', 'card', 'check'] as const).filter((m) => m === 'cash' || (m === 'card' ? card : check));
  const tabs = tabList(`${ids}-tender`, methods, method, setMethod);
  const cashErrorId = `${ids}-cash-error`;
  const isCashInvalid = text !== '' && !isValid;

  const complete = () => {
    if (covers && !isBusy) onComplete(tendered);
  };

  const footer =
    method === 'cash' ? (
      <button
        type="button"
        className="button button-primary button-large"
        disabled={!covers || isBusy}
        onClick={complete}
        data-testid="complete-sale"
      >
        {isBusy ? 'Saving…' : 'Complete sale'}
      </button>
    ) : method === 'card' && card ? (
      <CardFooter card={card} totalCents={totalCents} currency={currency} isBusy={isBusy} />
    ) : method === 'check' && check ? (
      <button
        type="button"
        className="button button-primary button-large"
        disabled={check.payment.phase !== 'scanned' || isBusy || !!check.unavailable}
        onClick={check.onComplete}
        data-testid="complete-check-sale"
      >
        {isBusy ? 'Saving…' : 'Complete sale'}
      </button>
    ) : null;

  return (
    <Dialog title={TITLES[method]} onClose={isCardWaiting ? () => undefined : onClose} footer={footer}>
      {card || check ? (
        <div className="tender-methods" role="tablist" aria-label="Payment method">
          {methods.map((m) => (
            <button
              key={m}
              type="button"
              {...tabs.tab(m)}
              className={method === m ? 'tab tab-active' : 'tab'}
              data-testid={`tender-method-${m}`}
              disabled={isCardWaiting && m !== 'card'}
            >
              {m === 'cash' ? 'Cash' : m === 'card' ? 'Card' : 'Check'}
            </button>
          ))}
        </div>
      ) : null}
      <div {...(card || check ? tabs.panel() : {})}>
        <div className="tender-due">
          <span>Total due</span>
          <strong data-testid="tender-total">{formatMoney(totalCents, currency)}</strong>
        </div>
        {method === 'cash' ? (
          <form
            className="tender"
            onSubmit={(e) => {
              e.preventDefault();
              complete();
            }}
          >
            <label className="field">
              <span>Cash tendered</span>
              <input
                ref={cashInput}
                data-testid="cash-tendered"
                data-autofocus
                inputMode="decimal"
                autoComplete="off"
                placeholder="0.00"
                value={text}
                aria-invalid={isCashInvalid}
                aria-describedby={isCashInvalid ? cashErrorId : undefined}
                onChange={(e) => setText(e.target.value)}
              />
            </label>
            <div className="quick-tenders" role="group" aria-label="Quick amounts">
              {quickTenders(totalCents, currency).map((amount, i) => (
                <button
                  key={amount}
                  type="button"
                  className="button"
                  onClick={() => {
                    setText(centsToInput(amount, currency));
                    // Back to the amount: Enter now completes the sale ("Exact", then Enter).
                    cashInput.current?.focus();
                  }}
                >
                  {i === 0 && amount === totalCents ? `Exact ${formatMoney(amount, currency)}` : formatMoney(amount, currency)}
                </button>
              ))}
            </div>
            <div className={covers ? 'tender-change' : 'tender-change tender-change-short'} aria-live="polite">
              <span>Change due</span>
              <strong data-testid="change-due">{formatMoney(changeCents, currency)}</strong>
            </div>
            {isValid && !covers ? <p className="tender-short">Still due {formatMoney(totalCents - tendered, currency)}</p> : null}
            {/* Always in the page so the error is announced when it appears; linked to the field by aria-describedby. */}
            <p id={cashErrorId} className="form-error" role="alert" data-testid="cash-error">
              {isCashInvalid ? 'Enter an amount like 20 or 20.50' : ''}
            </p>
            <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
          </form>
        ) : null}
        {method === 'card' && card ? (
          <div className="tender tender-card">
            {card.unavailable ? (
              <p className="form-error" data-testid="device-unavailable">
                {card.unavailable}
              </p>
            ) : (
              <p className="muted">The total is sent to the card terminal; the customer taps, inserts or swipes there.</p>
            )}
            {offlineCardLimitLeftCents !== undefined ? (
              <p className="tender-short" role="status" data-testid="offline-card-limit">
                Offline: the terminal approves cards offline, forwarded when the register is back online. Offline card limit left:{' '}
                <strong>{formatMoney(offlineCardLimitLeftCents, currency)}</strong>
              </p>
            ) : null}
            {card.payment.message ? (
              <p
                className={card.payment.phase === 'waiting' ? 'tender-device-message' : 'form-error'}
                role={card.payment.phase === 'waiting' ? 'status' : 'alert'}
                data-testid="card-message"
                data-phase={card.payment.phase}
              >
                {card.payment.message}
              </p>
            ) : null}
          </div>
        ) : null}
        {method === 'check' && check ? (
          <div className="tender tender-check">
            {check.unavailable ? (
              <p className="form-error" data-testid="device-unavailable">
                {check.unavailable}
              </p>
            ) : null}
            <button
              type="button"
              className="button"
              data-testid="scan-check"
              disabled={!!check.unavailable || check.payment.phase === 'scanning'}
              onClick={() => void check.payment.scanCheck()}
            >
              {check.payment.phase === 'scanning' ? 'Scanning…' : check.payment.scan ? 'Scan another check' : 'Scan check'}
            </button>
            {check.payment.scan ? (
              <dl className="check-fields" data-testid="check-fields">
                <div>
                  <dt>Routing</dt>
                  <dd data-testid="check-routing">{check.payment.scan.routingNumber}</dd>
                </div>
                <div>
                  <dt>Account</dt>
                  <dd data-testid="check-account">{check.payment.scan.accountNumber}</dd>
                </div>
                <div>
                  <dt>Check number</dt>
                  <dd data-testid="check-number">{check.payment.checkNumber ?? '—'}</dd>
                </div>
                {check.payment.scan.amountCents !== undefined ? (
                  <div>
                    <dt>Amount on check</dt>
                    <dd data-testid="check-amount">{formatMoney(check.payment.scan.amountCents, currency)}</dd>
                  </div>
                ) : null}
              </dl>
            ) : null}
            {check.payment.scan?.amountCents !== undefined && check.payment.scan.amountCents !== totalCents ? (
              <p className="tender-short">The amount on the check differs from the total due.</p>
            ) : null}
            {check.payment.message ? (
              <p
                className={check.payment.phase === 'error' ? 'form-error' : 'muted'}
                role={check.payment.phase === 'error' ? 'alert' : 'status'}
                data-testid="check-message"
              >
                {check.payment.message}
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

function CardFooter({
  card,
  totalCents,
  currency,
  isBusy,
}: {
  card: DeviceTender<CardPayment>;
  totalCents: Cents;
  currency: string;
  isBusy: boolean;
}) {
  const { phase } = card.payment;
  // While the terminal works the button is disabled, and the browser drops its focus to the page: when the terminal
  // answers (a decline, an unknown result), focus comes back to the footer's main button, where Enter tries again.
  const footer = useRef<HTMLButtonElement>(null);
  const previous = useRef(phase);
  useEffect(() => {
    const wasWaiting = previous.current === 'waiting';
    previous.current = phase;
    if (wasWaiting && phase !== 'waiting' && (document.activeElement === document.body || document.activeElement === null)) footer.current?.focus();
  }, [phase]);
  if (phase === 'unknown') {
    return (
      <>
        <button type="button" className="button" data-testid="card-start-over" onClick={card.payment.startOver}>
          Nothing was charged — start over
        </button>
        <button
          ref={footer}
          type="button"
          className="button button-primary button-large"
          data-testid="card-check-again"
          onClick={() => void card.payment.charge(totalCents)}
        >
          Check again
        </button>
      </>
    );
  }
  return (
    <button
      ref={footer}
      type="button"
      className="button button-primary button-large"
      data-testid="charge-card"
      disabled={!!card.unavailable || phase === 'waiting' || isBusy}
      onClick={() => void card.payment.charge(totalCents)}
    >
      {phase === 'waiting' ? 'Waiting for the terminal…' : phase === 'unsaved' ? 'Save the sale' : `Charge ${formatMoney(totalCents, currency)}`}
    </button>
  );
}
