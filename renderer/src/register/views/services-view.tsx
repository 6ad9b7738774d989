/**
 * The register's Services area: one tab per financial service. "Verify ID" reads a driver licence or ID
 * card (the keyboard-wedge scanner types the PDF417 payload into the scan box, or a photo of the back is sent) and
 * shows the photo-free summary and any problem; "Screen a name" screens a name against the sanctions list and shows
 * the outcome — a potential match is held until a manager clears or refuses it ({@link ScreeningHoldBanner}).
 * Online only, with the token of the staff member signed in on this register (PIN, like the back office).
 * `POST /api/pos/id-verifications`, `POST /api/pos/screenings`, `GET /api/pos/screenings/{id}`,
 * `POST /api/pos/screenings/{id}/clear|refuse`.
 */
import { useState, type ReactNode } from 'react';
import type { BackOfficeApi } from '../../common/back-office-api.ts';
import { NeedsConnection, useApi, useOnline } from '../../common/back-office-kit.tsx';
import { StaffSignIn } from '../../common/staff-sign-in.tsx';
import { useObservable } from '../../ui/hooks.ts';
import { currentStaffSession, staffSession$ } from '../../common/staff-session.ts';
import { CashCheckTab } from './services/cash-check-tab.tsx';
import { PayBillTab } from './services/pay-bill-tab.tsx';
import { SendMoneyTab } from './services/send-money-tab.tsx';
import { ScreenNameTab, ScreeningHoldBanner, VerifyIdTab } from './services/id-screening-tabs.tsx';

/** A tab of the Services area: its key, label and content. Other services add theirs to {@link SERVICE_TABS}. */
export interface ServiceTab {
  key: string;
  label: string;
  render: (props: { api: BackOfficeApi; prefill: ServicePrefill; setPrefill: (p: ServicePrefill) => void; apps: ReactNode }) => ReactNode;
}

/** What one tab hands the next (e.g. the verified holder's name to screen). */
export interface ServicePrefill {
  name?: string;
}

/** The services offered: ID verification, name screening, the money services, and apps. */
export const SERVICE_TABS: ServiceTab[] = [
  { key: 'verify-id', label: 'Verify ID', render: ({ api, setPrefill }) => <VerifyIdTab api={api} onScreen={(name) => setPrefill({ name })} /> },
  { key: 'screen', label: 'Screen a name', render: ({ api, prefill }) => <ScreenNameTab api={api} initialName={prefill.name ?? ''} /> },
  // The money services (services/*-tab.tsx): the hold banner is handed in, so those files do not import this one.
  { key: 'cash-check', label: 'Cash a check', render: ({ api }) => <CashCheckTab api={api} HoldBanner={ScreeningHoldBanner} /> },
  { key: 'send-money', label: 'Send money', render: ({ api }) => <SendMoneyTab api={api} HoldBanner={ScreeningHoldBanner} /> },
  { key: 'pay-bill', label: 'Pay a bill', render: ({ api }) => <PayBillTab api={api} HoldBanner={ScreeningHoldBanner} /> },
  // The app directory, installed apps and in-platform apps (the header has no room for a ninth tab).
  { key: 'apps', label: 'Apps', render: ({ apps }) => apps },
];

/** `apps`: the Apps tab (apps/apps-view.tsx), handed in by app.tsx so the register does not import the apps room. */
export function ServicesView({ apps }: { apps: ReactNode }) {
  const online = useOnline();
  useObservable(staffSession$, staffSession$.value);
  const staff = currentStaffSession();
  const api = useApi();
  const [tab, setTab] = useState(SERVICE_TABS[0]!.key);
  const [prefill, setPrefillState] = useState<ServicePrefill>({});
  if (!online) return <NeedsConnection what="Services" />;
  if (!staff) return <StaffSignIn testId="services-sign-in" message="Services need a staff member signed in with their PIN." />;
  const current = SERVICE_TABS.find((t) => t.key === tab) ?? SERVICE_TABS[0]!;
  const setPrefill = (p: ServicePrefill) => {
    setPrefillState(p);
    if (p.name) setTab('screen');
  };
  return (
    <main className="backoffice services" data-testid="services">
      <h1 className="visually-hidden">Services</h1>
      <nav className="bo-nav" aria-label="Services" role="tablist">
        {SERVICE_TABS.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            aria-selected={t.key === current.key}
            className={t.key === current.key ? 'bo-nav-link bo-nav-link-active' : 'bo-nav-link'}
            onClick={() => setTab(t.key)}
          >
            {t.label}
          </button>
        ))}
      </nav>
      <div className="bo-content" role="tabpanel">
        {current.render({ api, prefill, setPrefill, apps })}
      </div>
    </main>
  );
}
