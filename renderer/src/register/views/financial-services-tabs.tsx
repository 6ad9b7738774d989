/**
 * The money tabs of the register's Services area: "Cash a check", "Send money", "Pay a bill". Each reads
 * `GET /api/pos/financial-services` first: in the demo store (money movement disabled) the tab says so before the
 * cashier starts and offers no form. A potential sanctions match holds the check, the transfer or the bill: the tab
 * shows the hold plainly (the Services area's hold banner, handed in as `HoldBanner` so this file does not import the
 * view), polls the screening, and once a manager has cleared it the cashier completes the payout, transfer or payment.
 * Routes: `POST /api/pos/check-cashings`, `…/{id}/complete`; `POST /api/pos/transfers/quote`, `POST /api/pos/transfers`,
 * `…/{id}/complete`, `…/{id}/cancel`; `GET /api/pos/billers`, `POST /api/pos/bill-payments/validate`,
 * `POST /api/pos/bill-payments`, `…/{id}/complete`.
 *
 * The drawer side of every service: the request names the register's open shift (`shiftId`; one is opened
 * with an empty float when none is, as for a sale), and the answer's cash — a check's payout out, a transfer's or a
 * bill's amount + fee in, a canceled transfer's refund out — is stored as a cash movement of that shift
 * (shifts/shift-store.ts `recordServiceCash`), so the register's own X/Z report counts it offline and agrees with the
 * server's.
 */
import { useEffect, useRef, useState, type ComponentType, type FormEvent, type ReactNode } from 'react';
import { formatMoney, type CheckScan } from '../../../../core/index.ts';
import type { Screening } from '../../../../core/screening.ts';
import { errorMessage, type BackOfficeApi } from '../../common/back-office-api.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { useRegister } from '../register-context.ts';
import type { RegisterDatabase } from '../db/database.ts';
import type { RegisterSession } from '../../common/session.ts';
import { ensureShiftForSale, recordServiceCash } from '../shifts/shift-store.ts';
import { currentRegisterStaff } from '../../common/staff-session.ts';

/** The hold banner of the Services area (services-view.tsx `ScreeningHoldBanner`). */
export type HoldBannerComponent = ComponentType<{ api: BackOfficeApi; screening: Screening; onChange: (s: Screening) => void }>;

interface TabProps {
  api: BackOfficeApi;
  HoldBanner: HoldBannerComponent;
}

interface Overview {
  moneyMovement: 'enabled' | 'disabled';
  message: string | null;
  settings: { checkFee: { basisPoints: number; fixedCents: number; minimumCents: number }; billPaymentFeeCents: number };
  corridors: { country: string; currency: string; rate: string }[];
  payoutMethods: string[];
}

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
  /** Null while held (nothing taken yet). */
  receipt: string[] | null;
}

const dollarsToCents = (text: string): number | undefined => {
  const m = /^\s*\$?(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
};

/** The register's open shift for a service's cash (opened with an empty float when none is, as for a sale). */
function serviceShift(db: RegisterDatabase, session: RegisterSession) {
  const staffId = currentRegisterStaff()?.staff.id;
  return ensureShiftForSale(db, session, staffId);
}

/** The store's overview, and the "money movement disabled" notice the cashier sees before starting. */
function useOverview(api: BackOfficeApi): { overview: Overview | undefined; notice: ReactNode } {
  const [overview, setOverview] = useState<Overview | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api.request<Overview>('GET', '/api/pos/financial-services').then(setOverview, (err: unknown) => setError(errorMessage(err)));
  }, [api]);
  if (error)
    return {
      overview,
      notice: (
        <p className="form-error" role="alert">
          {error}
        </p>
      ),
    };
  if (overview?.moneyMovement === 'disabled') {
    return {
      overview,
      notice: (
        <p className="banner banner-error" role="alert" data-testid="money-movement-disabled">
          {overview.message}
        </p>
      ),
    };
  }
  return { overview, notice: null };
}

/** Polls held screenings and shows the hold banner of the first one still held; `cleared` once all are cleared. */
function HoldPanel({ api, HoldBanner, screeningIds, onCleared }: TabProps & { screeningIds: string[]; onCleared: () => void }) {
  const [screenings, setScreenings] = useState<Screening[]>([]);
  const screeningKey = screeningIds.join(',');
  // The latest callback, without restarting the poll when a parent re-renders with a new function.
  const onClearedRef = useRef(onCleared);
  onClearedRef.current = onCleared;
  useEffect(() => {
    const ids = screeningKey ? screeningKey.split(',') : [];
    let stop = false;
    const load = async () => {
      const all = await Promise.all(ids.map((id) => api.request<Screening>('GET', `/api/pos/screenings/${id}`)));
      if (stop) return;
      setScreenings(all);
      if (all.every((s) => s.status === 'clear' || s.status === 'cleared')) onClearedRef.current();
    };
    void load().catch(() => undefined);
    const timer = setInterval(() => void load().catch(() => undefined), 2000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [api, screeningKey]);
  const held = screenings.find((s) => s.status === 'held');
  const refused = screenings.find((s) => s.status === 'refused' || s.status === 'blocked');
  if (refused) {
    return (
      <p className="form-error" role="alert" data-testid="hold-refused">
        Refused by a manager: {refused.decisionReason ?? 'sanctions match'}. Do not go ahead.
      </p>
    );
  }
  if (!held) return null;
  return <HoldBanner api={api} screening={held} onChange={(s) => setScreenings((list) => list.map((x) => (x.id === s.id ? s : x)))} />;
}

/**
 * Prints a service receipt on the receipt printer and opens the drawer (cash goes out for a check, in for a transfer or
 * a bill). Best effort: without a printer the receipt stays on screen and the answer says why.
 */
async function printReceipt(jobId: string, lines: string[]): Promise<string> {
  try {
    await getDeviceClient().print({
      jobId,
      blocks: [
        ...lines.map((text, i) => ({
          kind: 'text' as const,
          text: text.replace(/•/g, '*'),
          ...(i === 0 ? { bold: true, align: 'center' as const } : {}),
        })),
        { kind: 'feed', lines: 3 },
        { kind: 'cut' },
      ],
      openDrawer: true,
    });
    return 'Receipt printed; the drawer is open.';
  } catch (err) {
    return `Receipt not printed (${errorMessage(err)}): open the drawer by hand and give the customer the receipt on screen.`;
  }
}

function Receipt({ lines, testId }: { lines: string[]; testId: string }) {
  return (
    <pre className="service-receipt" data-testid={testId}>
      {lines.join('\n')}
    </pre>
  );
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
  const [cleared, setCleared] = useState(false);
  const [printNote, setPrintNote] = useState<string | undefined>();
  // Printed once per sent transfer: its id and its reaching "sent" are the trigger, not each new copy of the record.
  const transferSent = transfer?.status === 'sent';
  useEffect(() => {
    if (transfer?.status === 'sent' && transfer.receipt) void printReceipt(transfer.id, transfer.receipt.lines).then(setPrintNote);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [transfer?.id, transferSent]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const amountCents = dollarsToCents(amount);

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
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
      {error ? (
        <p className="form-error" role="alert" data-testid="send-error">
          {error}
        </p>
      ) : null}
      {transfer?.status === 'held' ? (
        <div data-testid="send-held">
          <HoldPanel
            api={api}
            HoldBanner={HoldBanner}
            screeningIds={[transfer.senderScreeningId, transfer.receiverScreeningId].filter((x): x is string => !!x)}
            onCleared={() => setCleared(true)}
          />
          {cleared ? (
            <button type="button" className="button button-primary" onClick={() => void complete()} data-testid="send-complete">
              Cleared by a manager — send now
            </button>
          ) : null}
        </div>
      ) : null}
      {transfer && transfer.status !== 'held' ? (
        <div role="status" data-testid="send-result" data-status={transfer.status}>
          <p>
            Transfer <strong data-testid="send-status">{transfer.status}</strong> to {transfer.receiverName}.
          </p>
          {transfer.receipt ? <Receipt lines={transfer.receipt.lines} testId="send-receipt" /> : null}
          {printNote ? (
            <p className="muted" data-testid="send-print-note">
              {printNote}
            </p>
          ) : null}
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
  const [cleared, setCleared] = useState(false);
  const [printNote, setPrintNote] = useState<string | undefined>();
  // Printed once per payment and status: not each new copy of the record.
  useEffect(() => {
    if (payment?.receipt) void printReceipt(payment.id, payment.receipt).then(setPrintNote);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [payment?.id, payment?.status]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.request<{ data: Biller[] }>('GET', '/api/pos/billers').then(
      (b) => {
        setBillers(b.data);
        setBillerId((id) => id || (b.data[0]?.id ?? ''));
      },
      (err: unknown) => setError(errorMessage(err)),
    );
  }, [api]);
  const amountCents = dollarsToCents(amount);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
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
      {error ? (
        <p className="form-error" role="alert" data-testid="bill-error">
          {error}
        </p>
      ) : null}
      {payment?.status === 'held' ? (
        <div data-testid="bill-held">
          <HoldPanel
            api={api}
            HoldBanner={HoldBanner}
            screeningIds={payment.screeningId ? [payment.screeningId] : []}
            onCleared={() => setCleared(true)}
          />
          {cleared ? (
            <button type="button" className="button button-primary" disabled={busy} onClick={() => void complete()} data-testid="bill-complete">
              Cleared by a manager — take the cash and pay
            </button>
          ) : null}
        </div>
      ) : null}
      {payment && payment.status !== 'held' && payment.receipt ? (
        <div role="status" data-testid="bill-paid">
          <p>
            Paid — confirmation <strong data-testid="bill-confirmation">{payment.confirmationNumber}</strong>
          </p>
          <Receipt lines={payment.receipt} testId="bill-receipt" />
          {printNote ? (
            <p className="muted" data-testid="bill-print-note">
              {printNote}
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
