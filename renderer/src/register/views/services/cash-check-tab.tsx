/** "Cash a check" in the register's Services area. Routes: `POST /api/pos/check-cashings`, `…/{id}/complete`. */
import { useState, type FormEvent } from 'react';
import { formatMoney, type CheckScan } from '../../../../../core/index.ts';
import { errorMessage } from '../../../common/back-office-api.ts';
import { getDeviceClient } from '../../../platform/devices/index.ts';
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
  const [record, setRecord] = useState<CheckCashing | undefined>();
  // Printed once the check is paid.
  const { busy, error, setError, run, printNote, setPrintNote } = useServiceAction(record, (r) => (r.status === 'paid' ? r.receipt : undefined));

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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!scan || !amountCents) return;
    void run(async () => {
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
    });
  };
  const complete = () => {
    if (!record) return;
    void run(async () => {
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
    });
  };
  const reset = () => {
    setScan(undefined);
    setAmount('');
    setIdPayload('');
    setRecord(undefined);
    setPrintNote(undefined);
    setError(undefined);
  };
  return (
    <section className="bo-section" data-testid="cash-check">
      <h2>Cash a check</h2>
      {notice}
      {overview?.moneyMovement === 'enabled' && !record ? (
        <form className="bo-form" onSubmit={submit}>
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
      <ServiceError error={error} testId="cash-check-error" />
      {record?.status === 'held' ? (
        <HoldPanel api={api} HoldBanner={HoldBanner} testId="cash-check-held" screeningIds={record.screeningId ? [record.screeningId] : []}>
          <button type="button" className="button button-primary" onClick={complete} data-testid="cash-check-complete">
            Cleared by a manager — pay out {formatMoney(record.payoutCents)}
          </button>
        </HoldPanel>
      ) : null}
      {record?.status === 'paid' ? (
        <div role="status" data-testid="cash-check-paid">
          <p>
            Hand the customer <strong data-testid="cash-check-payout">{formatMoney(record.payoutCents)}</strong> from the drawer.
          </p>
          <Receipt lines={record.receipt} testId="cash-check-receipt" />
          <PrintNote note={printNote} testId="cash-check-print-note" />
          <button type="button" className="button" onClick={reset}>
            Next check
          </button>
        </div>
      ) : null}
    </section>
  );
}
