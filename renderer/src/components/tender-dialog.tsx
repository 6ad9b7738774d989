import { useState } from 'react';
import { formatMoney, type Cents } from '../../../core/index.ts';
import { centsToInput, parseCashInput, quickTenders } from '../sale/cash.ts';
import { Dialog } from './dialog.tsx';

interface TenderDialogProps {
  totalCents: Cents;
  currency: string;
  isBusy: boolean;
  error: string | undefined;
  onComplete: (tenderedCents: Cents) => void;
  onClose: () => void;
}

/** Cash tender: what the customer hands over, the change due live, and "Complete sale" once it covers the total. */
export function TenderDialog({ totalCents, currency, isBusy, error, onComplete, onClose }: TenderDialogProps) {
  const [text, setText] = useState('');
  const tendered = parseCashInput(text, currency);
  const isValid = tendered !== undefined;
  const covers = tendered !== undefined && tendered >= totalCents;
  const changeCents = covers ? tendered - totalCents : 0;

  const complete = () => {
    if (covers && !isBusy) onComplete(tendered);
  };

  return (
    <Dialog
      title="Cash payment"
      onClose={onClose}
      footer={
        <button
          type="button"
          className="button button-primary button-large"
          disabled={!covers || isBusy}
          onClick={complete}
          data-testid="complete-sale"
        >
          {isBusy ? 'Saving…' : 'Complete sale'}
        </button>
      }
    >
      <form
        className="tender"
        onSubmit={(e) => {
          e.preventDefault();
          complete();
        }}
      >
        <div className="tender-due">
          <span>Total due</span>
          <strong data-testid="tender-total">{formatMoney(totalCents, currency)}</strong>
        </div>
        <label className="field">
          <span>Cash tendered</span>
          <input
            data-testid="cash-tendered"
            data-autofocus
            inputMode="decimal"
            autoComplete="off"
            placeholder="0.00"
            value={text}
            aria-invalid={text !== '' && !isValid}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <div className="quick-tenders" role="group" aria-label="Quick amounts">
          {quickTenders(totalCents, currency).map((amount, i) => (
            <button key={amount} type="button" className="button" onClick={() => setText(centsToInput(amount, currency))}>
              {i === 0 && amount === totalCents ? `Exact ${formatMoney(amount, currency)}` : formatMoney(amount, currency)}
            </button>
          ))}
        </div>
        <div className={covers ? 'tender-change' : 'tender-change tender-change-short'} aria-live="polite">
          <span>Change due</span>
          <strong data-testid="change-due">{formatMoney(changeCents, currency)}</strong>
        </div>
        {isValid && !covers ? <p className="tender-short">Still due {formatMoney(totalCents - tendered, currency)}</p> : null}
        {text !== '' && !isValid ? <p className="form-error">Enter an amount like 20 or 20.50</p> : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
      </form>
    </Dialog>
  );
}
