/**
 * The back office inside the register: catalog (items, pictures, stock), CSV import/export, orders (refunds,
 * cancellations, receipts), customers, Text-to-Pay
 * requests, invoices, reports and store settings. Online only
 * — it has no local collections and calls the server with the staff token; offline it shows a "needs a connection"
 * state while the register keeps selling (the register view stays mounted).
 */
import { useState } from 'react';
import { CatalogView } from './catalog-view.tsx';
import { CustomersView } from './customers-view.tsx';
import { ImportExportView } from './import-export-view.tsx';
import { InvoicesView } from './invoices-view.tsx';
import { OrdersView } from './orders-view.tsx';
import { PayRequestsView } from './pay-requests-view.tsx';
import { ReportsView } from './reports-view.tsx';
import { SettingsView } from './settings-view.tsx';
import { NeedsConnection, useOnline } from './shared.tsx';

type Section = 'catalog' | 'import' | 'orders' | 'customers' | 'pay-requests' | 'invoices' | 'reports' | 'settings';
const SECTIONS: [Section, string][] = [
  ['catalog', 'Catalog'],
  ['import', 'Import & export'],
  ['orders', 'Orders'],
  ['customers', 'Customers'],
  ['pay-requests', 'Pay requests'],
  ['invoices', 'Invoices'],
  ['reports', 'Reports'],
  ['settings', 'Settings'],
];

export function BackOfficeView() {
  const online = useOnline();
  const [section, setSection] = useState<Section>('catalog');
  return (
    <main className="backoffice" data-testid="backoffice">
      <nav className="bo-nav" aria-label="Back office">
        {SECTIONS.map(([key, label]) => (
          <button key={key} type="button" className={section === key ? 'bo-nav-link bo-nav-link-active' : 'bo-nav-link'} aria-current={section === key ? 'page' : undefined} onClick={() => setSection(key)}>
            {label}
          </button>
        ))}
      </nav>
      <div className="bo-content">
        {!online ? <NeedsConnection what="The back office" /> : null}
        {online && section === 'catalog' ? <CatalogView /> : null}
        {online && section === 'import' ? <ImportExportView /> : null}
        {online && section === 'orders' ? <OrdersView /> : null}
        {online && section === 'customers' ? <CustomersView /> : null}
        {online && section === 'pay-requests' ? <PayRequestsView /> : null}
        {online && section === 'invoices' ? <InvoicesView /> : null}
        {online && section === 'reports' ? <ReportsView /> : null}
        {online && section === 'settings' ? <SettingsView /> : null}
      </div>
    </main>
  );
}
