/** "Cash a check" in the register's Services area. Routes: `POST /api/pos/check-cashings`, `…/{id}/complete`. */
import { useEffect, useState, type FormEvent } from 'react';
import { formatMoney, type CheckScan } from '../../../../../core/index.ts';
import { errorMessage } from '../../../common/back-office-api.ts';
import { getDeviceClient } from '../../../platform/devices/index.ts';
import { useRegister } from '../../register-context.ts';
import { recordServiceCash } from '../../shifts/shift-store.ts';
import { HoldPanel, Receipt, type TabProps, dollarsToCents, printReceipt, serviceShift, useOverview } from './money-service-parts.tsx';

interface CheckCashing {
  id: string;
  status: 'held' | 'paid' | 'refused';
  amountCents: number;
  feeCents: number;
  payoutCents: number;
  customerName: string;
  screeningId: string | null;
  receipt: string[];
}

/** "Cash a check": scan (MICR through the check scanner), amount, the customer's licence, then cash out. */
export function CashCheckTab({ api, HoldBanner }: TabProps) {
  const { db, session } = useRegister();
  const { overview, notice } = useOverview(api);
  const [scan, setScan] = useState<CheckScan | undefined>();
  const [scanning, setScanning] = useState(false);
  const [amount, setAmount] = useState('');
  const [idPayload, setIdPayload] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [record, setRecord] = useState<CheckCashing | undefined>();
  const [cleared, setCleared] = useState(false);
  const [printNote, setPrintNote] = useState<string | undefined>();
  // Printed once per paid check: the record's id and status are the trigger, not each new copy of the record.
  useEffect(() => {
    if (record?.status === 'paid') void printReceipt(record.id, record.receipt).then(setPrintNote);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [record?.id, record?.status]);

  const scanCheck = async () => {
    setScanning(true);
    setError(undefined);
    try {
      const s = await getDeviceClient().scanCheck();
      setScan(s);
      if (s.amountCents !== undefined) setAmount((s.amountCents / 100).toFixed(2));
    } catch (err) {
      setError(`The check could not be read: ${errorMessage(err)}`);
    } finally {
      setScanning(false);
    }
  };
  const amountCents = dollarsToCents(amount);
  const fee =
    overview && amountCents
      ? Math.min(
          amountCents,
          Math.max(
            Math.floor((amountCents * overview.settings.checkFee.basisPoints + 5000) / 10000) + overview.settings.checkFee.fixedCents,
            overview.settings.checkFee.minimumCents,
          ),
        )
      : undefined;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!scan || !amountCents) return;
    setBusy(true);
    setError(undefined);
    try {
      const micr = {
        routingNumber: scan.routingNumber,
        accountNumber: scan.accountNumber,
        ...(scan.checkNumber ? { checkNumber: scan.checkNumber.replace(/\D/g, '') } : {}),
        ...(scan.auxOnUs ? { auxOnUs: scan.auxOnUs.replace(/\D/g, '') } : {}),
      };
      const shift = await serviceShift(db, session);
      const answer = await api.request<CheckCashing>('POST', '/api/pos/check-cashings', {
        micr,
        amountCents,
        idPayload,
        hasImage: !!scan.imagePng,
        ...(scan.imagePng ? { imagePng: scan.imagePng } : {}),
        registerNumber: session.registerNumber,
        shiftId: shift.id,
      });
      if (answer.status === 'paid')
        await recordServiceCash(db, shift, {
          kind: 'check_cashed',
          amountCents: answer.payoutCents,
          feeCents: answer.feeCents,
          serviceRef: answer.id,
        });
      setRecord(answer);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const complete = async () => {
    if (!record) return;
    setError(undefined);
    try {
      const shift = await serviceShift(db, session);
      const answer = await api.request<CheckCashing>('POST', `/api/pos/check-cashings/${record.id}/complete`, { shiftId: shift.id });
      if (answer.status === 'paid')
        await recordServiceCash(db, shift, {
          kind: 'check_cashed',
          amountCents: answer.payoutCents,
          feeCents: answer.feeCents,
          serviceRef: answer.id,
        });
      setRecord(answer);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const reset = () => {
    setScan(undefined);
    setAmount('');
    setIdPayload('');
    setRecord(undefined);
    setCleared(false);
    setPrintNote(undefined);
    setError(undefined);
  };
  return (
    <section className="bo-section" data-testid="cash-check">
      <h2>Cash a check</h2>
      {notice}
      {overview?.moneyMovement === 'enabled' && !record ? (
        <form className="bo-form" onSubmit={(e) => void submit(e)}>
          <div className="bo-actions">
            <button type="button" className="button" onClick={() => void scanCheck()} disabled={scanning} data-testid="cash-check-scan">
              {scanning ? 'Insert the check…' : scan ? 'Scan again' : 'Scan the check'}
            </button>
          </div>
          {scan ? (
            <dl className="check-fields" data-testid="cash-check-micr">
              <dt>Routing</dt>
              <dd data-testid="cash-check-routing">{scan.routingNumber}</dd>
              <dt>Account</dt>
              <dd>{scan.accountNumber}</dd>
              <dt>Check number</dt>
              <dd>{scan.checkNumber ?? scan.auxOnUs ?? '—'}</dd>
              <dt>Image</dt>
              <dd>{scan.imagePng ? 'captured' : 'none'}</dd>
            </dl>
          ) : null}
          <label className="bo-field">
            Check amount ($)
            <input
              className="bo-input"
              inputMode="decimal"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              data-testid="cash-check-amount"
            />
          </label>
          <label className="bo-field">
            Customer&apos;s licence (scan the barcode on the back; the scanner types here)
            <textarea
              className="bo-input id-scan"
              rows={3}
              value={idPayload}
              onChange={(e) => setIdPayload(e.target.value)}
              data-testid="cash-check-id"
              spellCheck={false}
              autoComplete="off"
            />
          </label>
          {fee !== undefined && amountCents ? (
            <p className="muted" data-testid="cash-check-fee">
              Fee {formatMoney(fee)} · cash to hand out {formatMoney(amountCents - fee)}
            </p>
          ) : null}
          <button
            type="submit"
            className="button button-primary"
            disabled={busy || !scan || !amountCents || !idPayload.trim()}
            data-testid="cash-check-submit"
          >
            Verify ID, screen and cash
          </button>
        </form>
      ) : null}
      {error ? (
        <p className="form-error" role="alert" data-testid="cash-check-error">
          {error}
        </p>
      ) : null}
      {record?.status === 'held' ? (
        <div data-testid="cash-check-held">
          <HoldPanel
            api={api}
            HoldBanner={HoldBanner}
            screeningIds={record.screeningId ? [record.screeningId] : []}
            onCleared={() => setCleared(true)}
          />
          {cleared ? (
            <button type="button" className="button button-primary" onClick={() => void complete()} data-testid="cash-check-complete">
              Cleared by a manager — pay out {formatMoney(record.payoutCents)}
            </button>
          ) : null}
        </div>
      ) : null}
      {record?.status === 'paid' ? (
        <div role="status" data-testid="cash-check-paid">
          <p>
            Hand the customer <strong data-testid="cash-check-payout">{formatMoney(record.payoutCents)}</strong> from the drawer.
          </p>
          <Receipt lines={record.receipt} testId="cash-check-receipt" />
          {printNote ? (
            <p className="muted" data-testid="cash-check-print-note">
              {printNote}
            </p>
          ) : null}
          <button type="button" className="button" onClick={reset}>
            Next check
          </button>
        </div>
      ) : null}
    </section>
  );
}
