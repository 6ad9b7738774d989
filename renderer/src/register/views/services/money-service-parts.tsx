/**
 * What the money tabs of the register's Services area share ("Cash a check" cash-check-tab.tsx, "Send money"
 * send-money-tab.tsx, "Pay a bill" pay-bill-tab.tsx). Each reads `GET /api/pos/financial-services` first: in the demo
 * store (money movement disabled) the tab says so before the cashier starts and offers no form. A potential sanctions
 * match holds the check, the transfer or the bill: the tab shows the hold plainly (the Services area's hold banner,
 * handed in as `HoldBanner` so these files do not import the view), polls the screening, and once a manager has
 * cleared it the cashier completes the payout, transfer or payment.
 *
 * The drawer side of every service: the request names the register's open shift (`shiftId`; one is opened
 * with an empty float when none is, as for a sale), and the answer's cash — a check's payout out, a transfer's or a
 * bill's amount + fee in, a canceled transfer's refund out — is stored as a cash movement of that shift
 * (shifts/shift-store.ts `recordServiceCash`), so the register's own X/Z report counts it offline and agrees with the
 * server's.
 *
 * This file holds the tabs' props, the overview, the hold panel, the requests' busy/error wrapper and the receipt
 * (printed once per status, and on screen).
 */
import { useEffect, useRef, useState, type ComponentType, type ReactNode } from 'react';
import type { Screening } from '../../../../../core/screening.ts';
import { errorMessage, type BackOfficeApi } from '../../../common/back-office-api.ts';
import { getDeviceClient } from '../../../platform/devices/index.ts';
import type { RegisterDatabase } from '../../db/database.ts';
import type { RegisterSession } from '../../../common/session.ts';
import { ensureShiftForSale } from '../../shifts/shift-store.ts';
import { currentRegisterStaff } from '../../../common/staff-session.ts';

/** The hold banner of the Services area (views/services-view.tsx `ScreeningHoldBanner`). */
export type HoldBannerComponent = ComponentType<{ api: BackOfficeApi; screening: Screening; onChange: (s: Screening) => void }>;

export interface TabProps {
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

export const dollarsToCents = (text: string): number | undefined => {
  const m = /^\s*\$?(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
};

/** The register's open shift for a service's cash (opened with an empty float when none is, as for a sale). */
export function serviceShift(db: RegisterDatabase, session: RegisterSession) {
  const staffId = currentRegisterStaff()?.staff.id;
  return ensureShiftForSale(db, session, staffId);
}

/** The store's overview, and the "money movement disabled" notice the cashier sees before starting. */
export function useOverview(api: BackOfficeApi): { overview: Overview | undefined; notice: ReactNode } {
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

/**
 * The panel of a held check, transfer or bill (`testId`): polls its screenings and shows the hold banner of the first one
 * still held (or that a manager refused it); once all are cleared, `children` (the button that completes it) as well.
 */
export function HoldPanel({
  api,
  HoldBanner,
  testId,
  screeningIds,
  children,
}: TabProps & { testId: string; screeningIds: string[]; children: ReactNode }) {
  const [cleared, setCleared] = useState(false);
  return (
    <div data-testid={testId}>
      <HoldScreenings api={api} HoldBanner={HoldBanner} screeningIds={screeningIds} onCleared={() => setCleared(true)} />
      {cleared ? children : null}
    </div>
  );
}

/** Polls held screenings and shows the hold banner of the first one still held; `onCleared` once all are cleared. */
function HoldScreenings({ api, HoldBanner, screeningIds, onCleared }: TabProps & { screeningIds: string[]; onCleared: () => void }) {
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

/**
 * What every money tab does around its requests and its receipt. `run(fn)` marks the tab `busy`, clears the error and
 * shows what `fn` throws as `error`. The receipt of `record` is printed once per record and status (its id and status
 * are the trigger, not each new copy of the record) when `receiptOf(record)` gives lines — the status that has a
 * receipt to print; the printer's answer is `printNote`.
 */
export function useServiceAction<T extends { id: string; status: string }>(
  record: T | undefined,
  receiptOf: (record: T) => string[] | null | undefined,
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [printNote, setPrintNote] = useState<string | undefined>();
  useEffect(() => {
    const lines = record ? receiptOf(record) : undefined;
    if (record && lines) void printReceipt(record.id, lines).then(setPrintNote);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [record?.id, record?.status]);
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
  return { busy, error, setError, run, printNote, setPrintNote };
}

/** A money tab's error (`testId`), announced; nothing without one. */
export function ServiceError({ error, testId }: { error: string | undefined; testId: string }) {
  return error ? (
    <p className="form-error" role="alert" data-testid={testId}>
      {error}
    </p>
  ) : null;
}

/** The printer's answer under a service receipt (`testId`); nothing before it answers. */
export function PrintNote({ note, testId }: { note: string | undefined; testId: string }) {
  return note ? (
    <p className="muted" data-testid={testId}>
      {note}
    </p>
  ) : null;
}

export function Receipt({ lines, testId }: { lines: string[]; testId: string }) {
  return (
    <pre className="service-receipt" data-testid={testId}>
      {lines.join('\n')}
    </pre>
  );
}
