/**
 * The cart line's tools: quantity typed or by keypad, a line discount (percent or amount), a price override
 * with a reason and a manager's PIN, and voiding the line. Keyboard: the quantity field has focus on open (type the
 * digits, Enter applies), Escape closes, Delete (outside a field) voids the line; every control is a touch target.
 */
import { useEffect, useState } from 'react';
import { formatMoney, newId, type OrderLine } from '../../../../core/index.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { MAX_LINE_QUANTITY, parseAmount, type CartLine, type LineDiscount, type LinePriceOverride } from '../sale/cart.ts';
import { approvePriceOverride } from '../sale/approval.ts';
import { listSignInStaff, type SignInStaff } from '../../common/staff-session.ts';

/** What the line becomes when the cashier applies the dialog. */
export interface LineChange {
  quantity: number;
  discount: LineDiscount | undefined;
  priceOverride: LinePriceOverride | undefined;
}

interface LineDialogProps {
  line: CartLine;
  /** The line as priced now (undefined when it no longer prices). */
  priced: OrderLine | undefined;
  /** The catalog's unit price (before any override), for the override field's hint. */
  catalogUnitCents: number | undefined;
  currency: string;
  registerToken: string;
  onApply: (change: LineChange) => void;
  onVoid: () => void;
  onClose: () => void;
}

const centsText = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export function LineDialog({ line, priced, catalogUnitCents, currency, registerToken, onApply, onVoid, onClose }: LineDialogProps) {
  const name = priced?.name ?? 'Line';
  const [quantityText, setQuantityText] = useState(String(line.quantity));
  /** The keypad replaces the prefilled quantity on its first key, then appends. */
  const [keypadFresh, setKeypadFresh] = useState(true);
  const [discountKind, setDiscountKind] = useState<'percentage' | 'fixed'>(line.discount?.kind ?? 'percentage');
  const [discountText, setDiscountText] = useState(
    line.discount ? (line.discount.kind === 'percentage' ? String(line.discount.basisPoints / 100) : centsText(line.discount.amountCents)) : '',
  );
  const [priceText, setPriceText] = useState(line.priceOverride ? centsText(line.priceOverride.unitPriceCents) : '');
  const [reason, setReason] = useState(line.priceOverride?.reason ?? '');
  const [approvers, setApprovers] = useState<SignInStaff[] | undefined>();
  const [approverId, setApproverId] = useState('');
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [isBusy, setBusy] = useState(false);

  const price = parseAmount(priceText);
  const overrideWanted =
    price !== undefined &&
    price !== 'invalid' &&
    !(line.priceOverride && line.priceOverride.unitPriceCents === price && line.priceOverride.reason === reason.trim());
  const keepOverride = line.priceOverride && price === line.priceOverride.unitPriceCents && reason.trim() === line.priceOverride.reason;

  useEffect(() => {
    if (!overrideWanted || approvers) return;
    listSignInStaff(registerToken).then(
      (staff) => {
        const managers = staff.filter((s) => s.role === 'manager' || s.role === 'owner');
        setApprovers(managers);
        setApproverId((id) => id || managers[0]?.id || '');
      },
      () => setError('A price override needs a manager’s approval, which needs the server: the register is offline.'),
    );
  }, [overrideWanted, approvers, registerToken]);

  // Delete outside a text field voids the line (the footer's buttons lie outside the form, so listen on the window).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Delete' && !(e.target instanceof HTMLInputElement) && !(e.target instanceof HTMLSelectElement)) {
        e.preventDefault();
        onVoid();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onVoid]);

  const quantity = /^\d{1,4}$/.test(quantityText.trim()) ? Number(quantityText.trim()) : NaN;
  const quantityInvalid = !(quantity >= 0 && quantity <= MAX_LINE_QUANTITY);

  const parseDiscount = (): LineDiscount | undefined | 'invalid' => {
    if (discountKind === 'fixed') {
      const cents = parseAmount(discountText);
      if (cents === 'invalid') return 'invalid';
      return cents ? { id: line.discount?.id ?? newId('discount'), kind: 'fixed', amountCents: cents } : undefined;
    }
    const t = discountText.trim().replace(/\s*%$/, '');
    if (t === '') return undefined;
    if (!/^\d{1,3}(\.\d{1,2})?$/.test(t)) return 'invalid';
    const basisPoints = Math.round(Number(t) * 100);
    if (basisPoints > 10_000) return 'invalid';
    return basisPoints === 0 ? undefined : { id: line.discount?.id ?? newId('discount'), kind: 'percentage', basisPoints };
  };
  const discount = parseDiscount();

  const apply = async () => {
    setError(undefined);
    if (quantityInvalid) return setError(`Quantity: a whole number from 0 to ${MAX_LINE_QUANTITY}.`);
    if (discount === 'invalid')
      return setError(discountKind === 'fixed' ? 'Discount: an amount such as 2.50.' : 'Discount: a percentage from 0 to 100.');
    if (price === 'invalid') return setError('New price: an amount such as 4.25.');
    let priceOverride: LinePriceOverride | undefined;
    if (price !== undefined) {
      if (keepOverride) priceOverride = line.priceOverride;
      else {
        if (!reason.trim()) return setError('A price override needs a reason.');
        if (!approverId || !/^\d{4,8}$/.test(pin)) return setError('A price override needs a manager and their PIN (4 to 8 digits).');
        setBusy(true);
        try {
          const approvedBy = await approvePriceOverride(registerToken, approverId, pin);
          priceOverride = { unitPriceCents: price, reason: reason.trim(), approvedBy };
        } catch (err) {
          setPin('');
          return setError(
            err instanceof TypeError
              ? 'The register is offline: a price override needs a manager’s approval online.'
              : `Not approved: ${err instanceof Error ? err.message : String(err)}`,
          );
        } finally {
          setBusy(false);
        }
      }
    }
    onApply({ quantity, discount, priceOverride });
  };

  const keypad = (key: string) => {
    setQuantityText((typed) => {
      if (key === 'clear') return '';
      if (key === 'back') return (keypadFresh ? '' : typed).slice(0, -1);
      return ((keypadFresh ? '' : typed) + key).slice(0, 4);
    });
    setKeypadFresh(false);
  };

  return (
    <Dialog
      title={`Edit ${name}`}
      onClose={onClose}
      wide
      footer={
        <>
          <span className="dialog-hint form-error" role="alert" data-testid="line-dialog-error">
            {error ?? ''}
          </span>
          <button type="button" className="button button-danger" onClick={onVoid} data-testid="line-void" aria-keyshortcuts="Delete">
            Void line
          </button>
          <button
            type="button"
            className="button button-primary button-large"
            disabled={isBusy}
            onClick={() => void apply()}
            data-testid="line-apply"
            aria-keyshortcuts="Enter"
          >
            {isBusy ? 'Asking for approval…' : 'Apply'}
          </button>
        </>
      }
    >
      <form
        className="line-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void apply();
        }}
      >
        <p className="muted">
          {priced
            ? `${formatMoney(priced.unitPriceCents, currency)} each · line ${formatMoney(priced.grossCents, currency)}`
            : 'No longer in the catalog'}
          {priced?.priceOverride ? ` · price overridden (${priced.priceOverride.reason})` : ''}
        </p>
        <div className="line-dialog-row">
          <label htmlFor="line-quantity">Quantity</label>
          <input
            id="line-quantity"
            data-autofocus
            data-testid="line-quantity-input"
            inputMode="numeric"
            autoComplete="off"
            value={quantityText}
            aria-invalid={quantityInvalid}
            onFocus={(e) => e.target.select()}
            onChange={(e) => {
              setQuantityText(e.target.value);
              setKeypadFresh(false);
            }}
          />
        </div>
        <div className="pin-keypad line-keypad" role="group" aria-label="Quantity keypad">
          {['1', '2', '3', '4', '5', '6', '7', '8', '9', 'clear', '0', 'back'].map((key) => (
            <button
              key={key}
              type="button"
              className="button pin-key"
              data-testid={`line-key-${key}`}
              aria-label={key === 'clear' ? 'Clear quantity' : key === 'back' ? 'Delete last digit' : `Digit ${key}`}
              onClick={() => keypad(key)}
            >
              {key === 'clear' ? 'C' : key === 'back' ? '⌫' : key}
            </button>
          ))}
        </div>
        <fieldset className="line-dialog-row">
          <legend>Line discount</legend>
          <label className="choice-inline">
            <input
              type="radio"
              name="line-discount-kind"
              checked={discountKind === 'percentage'}
              onChange={() => setDiscountKind('percentage')}
              data-testid="line-discount-percent"
            />{' '}
            %
          </label>
          <label className="choice-inline">
            <input
              type="radio"
              name="line-discount-kind"
              checked={discountKind === 'fixed'}
              onChange={() => setDiscountKind('fixed')}
              data-testid="line-discount-amount"
            />{' '}
            Amount
          </label>
          <label className="visually-hidden" htmlFor="line-discount">
            Line discount {discountKind === 'fixed' ? 'amount' : 'percent'}
          </label>
          <input
            id="line-discount"
            data-testid="line-discount-input"
            inputMode="decimal"
            size={7}
            autoComplete="off"
            value={discountText}
            onChange={(e) => setDiscountText(e.target.value)}
          />
        </fieldset>
        <fieldset className="line-dialog-row">
          <legend>Price override</legend>
          <label htmlFor="line-price">New unit price</label>
          <input
            id="line-price"
            data-testid="line-price-input"
            inputMode="decimal"
            size={8}
            autoComplete="off"
            placeholder={catalogUnitCents !== undefined ? centsText(catalogUnitCents) : ''}
            value={priceText}
            onChange={(e) => setPriceText(e.target.value)}
          />
          {price !== undefined ? (
            <>
              <label htmlFor="line-price-reason">Reason</label>
              <input
                id="line-price-reason"
                data-testid="line-price-reason"
                maxLength={200}
                autoComplete="off"
                value={reason}
                onChange={(e) => setReason(e.target.value)}
              />
              {keepOverride ? null : (
                <>
                  <label htmlFor="line-approver">Manager</label>
                  <select id="line-approver" data-testid="line-approver" value={approverId} onChange={(e) => setApproverId(e.target.value)}>
                    {(approvers ?? []).map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                      </option>
                    ))}
                  </select>
                  <label htmlFor="line-approver-pin">Manager PIN</label>
                  <input
                    id="line-approver-pin"
                    data-testid="line-approver-pin"
                    type="password"
                    inputMode="numeric"
                    autoComplete="off"
                    maxLength={8}
                    value={pin}
                    onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))}
                  />
                </>
              )}
            </>
          ) : null}
        </fieldset>
        <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
      </form>
    </Dialog>
  );
}
