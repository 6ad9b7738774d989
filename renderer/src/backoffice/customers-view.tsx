/** Back office → Customers: search by name, phone or e-mail; create and edit with marketing consent; purchase history. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { DataTable } from '../ui/data-table.tsx';
import { Dialog } from '../ui/dialog.tsx';
import type { ApiOrder, Customer, CustomerCreateInput, CustomerUpdateInput, Page } from '../common/back-office-api.ts';
import { CursorListBody, useCursorList, useDebounced } from '../common/cursor-list.tsx';
import {
  Field,
  formErrorsOf,
  NO_ERRORS,
  useApi,
  useCurrency,
  useFocusFirstError,
  useEscapeFromBody,
  type FormErrors,
} from '../common/back-office-kit.tsx';

const displayName = (c: Customer) => [c.givenName, c.familyName].filter(Boolean).join(' ') || c.email || c.phone || c.id;

export function CustomersView() {
  const api = useApi();
  const [q, setQ] = useState('');
  const [editing, setEditing] = useState<Customer | 'new' | undefined>();
  const search = useDebounced(q.trim());
  const list = useCursorList<Customer, Page<Customer>>('customers', [search], (cursor) =>
    api.listCustomers({ ...(cursor ? { cursor } : {}), ...(search ? { q: search } : {}) }),
  );

  return (
    <section className="bo-section" aria-labelledby="bo-customers-title">
      <div className="bo-toolbar">
        <h2 id="bo-customers-title">Customers</h2>
        <form className="bo-filters" role="search" onSubmit={(e) => e.preventDefault()}>
          <label className="visually-hidden" htmlFor="bo-customer-search">
            Search customers
          </label>
          <input
            id="bo-customer-search"
            type="search"
            className="bo-input"
            placeholder="Name, phone or e-mail"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            data-testid="customer-search"
          />
        </form>
        <button type="button" className="button button-primary" onClick={() => setEditing('new')} data-testid="customer-new">
          New customer
        </button>
      </div>
      <CursorListBody list={list} what="Customers" loadingText="Loading customers…" moreLabel="Show more customers">
        {(rows) => (
          <DataTable
            caption="Customers"
            captionHidden
            columns={[
              {
                key: 'name',
                header: 'Name',
                cell: (c) => (
                  <button type="button" className="link-button" onClick={() => setEditing(c)} aria-label={`Edit ${displayName(c)}`}>
                    {displayName(c)}
                  </button>
                ),
              },
              { key: 'phone', header: 'Phone', cell: (c) => c.phone ?? '' },
              { key: 'email', header: 'E-mail', cell: (c) => c.email ?? '' },
              { key: 'marketing', header: 'Marketing', cell: (c) => (c.marketingConsent ? 'Consented' : '—') },
            ]}
            rows={rows}
            rowKey={(c) => c.id}
            rowAttributes={(c) => ({ 'data-testid': 'customer-row', 'data-customer-id': c.id })}
            emptyText={q ? 'No customer matches this search.' : 'No customers yet.'}
            emptyTestId="customers-empty"
          />
        )}
      </CursorListBody>
      {editing ? (
        <CustomerEditor
          key="editor"
          customer={editing === 'new' ? undefined : editing}
          onSaved={(c) => {
            setEditing(c);
            void list.refresh();
          }}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
    </section>
  );
}

const FIELDS = ['givenName', 'familyName', 'phone', 'email', 'note'] as const;
type FieldName = (typeof FIELDS)[number];
const LABELS: Record<FieldName, string> = { givenName: 'First name', familyName: 'Last name', phone: 'Phone', email: 'E-mail', note: 'Note' };

function CustomerEditor({ customer, onSaved, onClose }: { customer: Customer | undefined; onSaved: (c: Customer) => void; onClose: () => void }) {
  const api = useApi();
  const currency = useCurrency();
  const formId = useId();
  const [values, setValues] = useState<Record<FieldName, string>>(
    () => Object.fromEntries(FIELDS.map((f) => [f, customer?.[f] ?? ''])) as Record<FieldName, string>,
  );
  const [consent, setConsent] = useState(customer?.marketingConsent ?? false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstError(formRef, errors);
  useEscapeFromBody(onClose);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [orders, setOrders] = useState<ApiOrder[] | undefined>();

  useEffect(() => {
    if (!customer) return;
    let current = true;
    api.customerOrders(customer.id).then(
      (page) => current && setOrders(page.data),
      () => current && setOrders([]),
    );
    return () => {
      current = false;
    };
  }, [api, customer]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      let result: Customer;
      if (customer) {
        const patch: CustomerUpdateInput = { marketingConsent: consent };
        for (const f of FIELDS) if ((customer[f] ?? '') !== values[f]) patch[f] = values[f].trim() === '' ? null : values[f].trim();
        result = await api.updateCustomer(customer.id, patch);
      } else {
        const input: CustomerCreateInput = { marketingConsent: consent };
        for (const f of FIELDS) if (values[f].trim() !== '') input[f] = values[f].trim();
        result = await api.createCustomer(input);
      }
      setSaved(true);
      onSaved(result);
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => (FIELDS as readonly string[]).includes(p)));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      title={customer ? `Customer ${displayName(customer)}` : 'New customer'}
      onClose={onClose}
      wide
      footer={
        <>
          {saved ? (
            <span className="bo-saved" role="status" data-testid="customer-saved">
              Saved
            </span>
          ) : null}
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" form={formId} className="button button-primary" disabled={saving} data-testid="customer-save">
            {saving ? 'Saving…' : customer ? 'Save changes' : 'Create customer'}
          </button>
        </>
      }
    >
      <form ref={formRef} id={formId} className="bo-form" onSubmit={onSubmit} noValidate>
        {errors.form ? (
          <p className="form-error" role="alert" data-testid="customer-form-error">
            {errors.form}
          </p>
        ) : null}
        <div className="bo-row">
          {FIELDS.map((f) => (
            <Field
              key={f}
              id={`${formId}-${f}`}
              label={LABELS[f]}
              error={errors.fields[f]}
              className={f === 'note' ? 'bo-field-wide' : undefined}
              {...(f === 'phone' ? { hint: 'As dialled in the store (e.g. (415) 555-0123), or + and the country code for another country' } : {})}
            >
              {(p) => (
                <input
                  {...p}
                  className="bo-input"
                  type={f === 'email' ? 'email' : f === 'phone' ? 'tel' : 'text'}
                  value={values[f]}
                  onChange={(e) => {
                    setSaved(false);
                    setValues((v) => ({ ...v, [f]: e.target.value }));
                  }}
                  data-testid={`customer-${f}`}
                  {...(f === 'givenName' ? { 'data-autofocus': true } : {})}
                />
              )}
            </Field>
          ))}
        </div>
        <label className="bo-check">
          <input type="checkbox" checked={consent} onChange={(e) => (setConsent(e.target.checked), setSaved(false))} data-testid="customer-consent" />{' '}
          Agrees to marketing messages
          {customer?.marketingConsentAt && consent ? (
            <span className="muted"> (since {new Date(customer.marketingConsentAt).toLocaleDateString()})</span>
          ) : null}
        </label>
      </form>
      {customer ? (
        <section className="bo-panel" aria-label="Purchase history">
          <h3>Purchase history</h3>
          {!orders ? <p className="muted">Loading…</p> : null}
          {orders ? (
            <DataTable
              caption="Orders of this customer"
              captionHidden
              columns={[
                { key: 'date', header: 'Date', cell: (o) => new Date(o.createdAt).toLocaleString() },
                { key: 'receipt', header: 'Receipt', cell: (o) => o.receiptNumber ?? o.id },
                { key: 'state', header: 'State', cell: (o) => o.state ?? '' },
                { key: 'total', header: 'Total', numeric: true, cell: (o) => formatMoney(o.totalCents, currency) },
              ]}
              rows={orders}
              rowKey={(o) => o.id}
              rowAttributes={() => ({ 'data-testid': 'customer-order' })}
              emptyText="No purchases yet."
              emptyClassName="muted"
            />
          ) : null}
        </section>
      ) : null}
    </Dialog>
  );
}
