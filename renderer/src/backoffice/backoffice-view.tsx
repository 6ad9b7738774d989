/**
 * The back office inside the register: catalog (items, pictures, stock), CSV import/export, orders (refunds,
 * cancellations, receipts), customers, Text-to-Pay
 * requests, invoices, messages (e-mail and SMS, and the demo outbox), reports, registers, apps (directory, installs, in-platform apps) and store settings. Online only
 * — it has no local collections and calls the server with the token of the staff member signed in on this register
 * (PIN, staff-sign-in.tsx); offline it shows a "needs a connection" state while the register keeps selling (the
 * register view stays mounted).
 */
import { useState, type ReactNode } from 'react';
import { CatalogView } from './catalog-view.tsx';
import { CustomersView } from './customers-view.tsx';
import { FloorPlanView } from './floor-plan-view.tsx';
import { KitchenView } from './kitchen-view.tsx';
import { CheckOverpayments } from './check-overpayments.tsx';
import { ImportExportView } from './import-export-view.tsx';
import { InvoicesView } from './invoices-view.tsx';
import { OrdersView } from './orders/orders-view.tsx';
import { PayRequestsView } from './pay-requests-view.tsx';
import { MessagesView } from './messages-view.tsx';
import { ReportsView } from './reports-view.tsx';
import { SettingsView } from './settings-view.tsx';
import { PaymentsView } from './payments-view.tsx';
import { NeedsConnection, useOnline } from '../common/back-office-kit.tsx';
import { RegistersView } from './registers-view.tsx';
import { CloseoutView } from './closeout-view.tsx';
import { StaffView } from './staff-view.tsx';
import { ScreeningView } from './screening-view.tsx';
import { FinancialServicesView } from './financial-services-view.tsx';
import { StaffSignIn } from '../common/staff-sign-in.tsx';
import { currentStaffSession, signOut, staffSession$ } from '../common/staff-session.ts';
import { useObservable } from '../ui/hooks.ts';

type Section =
  | 'catalog'
  | 'import'
  | 'orders'
  | 'customers'
  | 'pay-requests'
  | 'invoices'
  | 'messages'
  | 'reports'
  | 'closeout'
  | 'floor-plan'
  | 'kitchen'
  | 'registers'
  | 'staff'
  | 'payments'
  | 'screenings'
  | 'financial-services'
  | 'apps'
  | 'settings';
const SECTIONS: [Section, string][] = [
  ['catalog', 'Catalog'],
  ['import', 'Import & export'],
  ['orders', 'Orders'],
  ['customers', 'Customers'],
  ['pay-requests', 'Pay requests'],
  ['invoices', 'Invoices'],
  ['messages', 'Messages'],
  ['reports', 'Reports'],
  ['closeout', 'Closeout'],
  ['floor-plan', 'Floor plan'],
  ['kitchen', 'Kitchen'],
  ['registers', 'Registers'],
  ['staff', 'Staff'],
  ['payments', 'Payments'],
  ['screenings', 'Screenings'],
  ['financial-services', 'Financial services'],
  ['apps', 'Apps'],
  ['settings', 'Settings'],
];

/** `apps`: the Apps section (apps/apps-view.tsx), handed in by app.tsx so the back office does not import the apps room. */
export function BackOfficeView({ apps }: { apps: ReactNode }) {
  const online = useOnline();
  const [section, setSection] = useState<Section>('catalog');
  useObservable(staffSession$, staffSession$.value);
  const staff = currentStaffSession();
  if (online && !staff) return <StaffSignIn />;
  return (
    <main className="backoffice" data-testid="backoffice">
      <h1 className="visually-hidden">Back office</h1>
      <nav className="bo-nav" aria-label="Back office">
        {SECTIONS.map(([key, label]) => (
          <button
            key={key}
            type="button"
            className={section === key ? 'bo-nav-link bo-nav-link-active' : 'bo-nav-link'}
            aria-current={section === key ? 'page' : undefined}
            onClick={() => setSection(key)}
          >
            {label}
          </button>
        ))}
        {staff ? (
          <button type="button" className="bo-nav-link" onClick={signOut} title={`Signed in: ${staff.staff.name}`}>
            Sign out
          </button>
        ) : null}
      </nav>
      <div className="bo-content">
        {!online ? <NeedsConnection what="The back office" /> : null}
        {online && section === 'catalog' ? <CatalogView /> : null}
        {online && section === 'import' ? <ImportExportView /> : null}
        {online && section === 'orders' ? <OrdersView /> : null}
        {online && section === 'customers' ? <CustomersView /> : null}
        {online && section === 'pay-requests' ? <PayRequestsView /> : null}
        {online && section === 'invoices' ? <InvoicesView /> : null}
        {online && section === 'messages' ? <MessagesView /> : null}
        {online && section === 'reports' ? <ReportsView /> : null}
        {online && section === 'closeout' ? <CloseoutView /> : null}
        {online && section === 'floor-plan' ? (
          <>
            <CheckOverpayments />
            <FloorPlanView />
          </>
        ) : null}
        {online && section === 'kitchen' ? <KitchenView /> : null}
        {online && section === 'registers' ? <RegistersView /> : null}
        {online && section === 'staff' ? <StaffView /> : null}
        {online && section === 'payments' ? <PaymentsView /> : null}
        {online && section === 'screenings' ? <ScreeningView /> : null}
        {online && section === 'financial-services' ? <FinancialServicesView /> : null}
        {online && section === 'apps' ? apps : null}
        {online && section === 'settings' ? <SettingsView /> : null}
      </div>
    </main>
  );
}
