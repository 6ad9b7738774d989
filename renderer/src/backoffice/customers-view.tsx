/**
 * Back office → Customers: search by name, phone or e-mail; create and edit with marketing consent; purchase history.
 * The editor checks each field with the request body's own rule (core `customerCreateSchema`, whose phone rule takes a
 * national number: the server reads it in the store's country), so nothing the server accepts is refused here.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { customerCreateSchema, formatMoney } from '../../../core/index.ts';
import { DataTable } from '../ui/data-table.tsx';
import { Dialog } from '../ui/dialog.tsx';
import type { Customer, CustomerUpdateInput, Page } from '../common/back-office-api.ts';
import { CursorListBody, useCursorList, useDebounced } from '../common/cursor-list.tsx';
import { Field, useApi, useCurrency, useEscapeFromBody } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem } from '../common/forms.ts';

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

/** A text field of the body: typed text, trimmed; empty is no value (`undefined`), else checked by the body's `rule`. */
const text = <S extends z.ZodType<unknown, string | undefined>>(rule: S) =>
  z
    .string()
    .transform((t) => (t.trim() === '' ? undefined : t.trim()))
    .pipe(rule);
const rules = customerCreateSchema.shape;
/** The editor's fields, each checked by its rule in the create body (the update body has the same rules, `null` aside). */
const editForm = z.object({
  givenName: text(rules.givenName),
  familyName: text(rules.familyName),
  phone: text(rules.phone),
  email: text(rules.email),
  note: text(rules.note),
  marketingConsent: z.boolean(),
});
type EditTyped = z.input<typeof editForm>;
/** A new customer: the fields, then the create body's own rule over them all (a name, a phone or an e-mail). */
const createForm = editForm.superRefine((values, ctx) => {
  const body = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const checked = customerCreateSchema.safeParse(body);
  if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
});

/** A customer as the editor shows them. */
const typedOf = (customer: Customer | undefined): EditTyped => ({
  ...(Object.fromEntries(FIELDS.map((f) => [f, customer?.[f] ?? ''])) as Record<FieldName, string>),
  marketingConsent: customer?.marketingConsent ?? false,
});

function CustomerEditor({ customer, onSaved, onClose }: { customer: Customer | undefined; onSaved: (c: Customer) => void; onClose: () => void }) {
  const currency = useCurrency();
  const formId = useId();
  const { register, handleSubmit, setError, reset, getValues, watch, formState } = useForm<EditTyped, unknown, z.output<typeof editForm>>({
    resolver: zodResolver(customer ? editForm : createForm),
    defaultValues: typedOf(customer),
  });
  const errors = formState.errors;
  useEscapeFromBody(onClose);
  const actions = useBackOfficeActions(['customer-orders']);
  // "Saved" stays until the form is changed again.
  const [saved, setSaved] = useState(false);
  const showSaved = saved && !formState.isDirty;
  const saving = formState.isSubmitting;
  const consent = watch('marketingConsent');
  const orders = useBackOfficeData('customer-orders', [customer?.id], (api) => (customer ? api.customerOrders(customer.id) : Promise.resolve(null)));
  // A history that cannot be read shows as empty.
  const orderRows = customer ? (orders.data?.data ?? (orders.error ? [] : undefined)) : undefined;

  const onSubmit = handleSubmit(async (values) => {
    setSaved(false);
    const result = await actions.run(
      (api) => {
        if (!customer) return api.createCustomer(values);
        // Only what changed is sent; an emptied field is cleared (`null`).
        const patch: CustomerUpdateInput = { marketingConsent: values.marketingConsent };
        for (const f of FIELDS) if ((customer[f] ?? '') !== (values[f] ?? '')) patch[f] = values[f] ?? null;
        return api.updateCustomer(customer.id, patch);
      },
      (err) => showProblem(err, setError, FIELDS),
    );
    if (!result) return;
    reset(getValues());
    setSaved(true);
    onSaved(result);
  });

  return (
    <Dialog
      title={customer ? `Customer ${displayName(customer)}` : 'New customer'}
      onClose={onClose}
      wide
      footer={
        <>
          {showSaved ? (
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
      <form id={formId} className="bo-form" onSubmit={(e) => void onSubmit(e)} noValidate>
        {actions.error ? (
          <p className="form-error" role="alert" data-testid="customer-form-error">
            {actions.error}
          </p>
        ) : null}
        <div className="bo-row">
          {FIELDS.map((f) => (
            <Field
              key={f}
              id={`${formId}-${f}`}
              label={LABELS[f]}
              error={errors[f]?.message}
              className={f === 'note' ? 'bo-field-wide' : undefined}
              {...(f === 'phone' ? { hint: 'As dialled in the store (e.g. (415) 555-0123), or + and the country code for another country' } : {})}
            >
              {(p) => (
                <input
                  {...p}
                  className="bo-input"
                  type={f === 'email' ? 'email' : f === 'phone' ? 'tel' : 'text'}
                  {...register(f)}
                  data-testid={`customer-${f}`}
                  {...(f === 'givenName' ? { 'data-autofocus': true } : {})}
                />
              )}
            </Field>
          ))}
        </div>
        <label className="bo-check">
          <input type="checkbox" {...register('marketingConsent')} data-testid="customer-consent" />
          Agrees to marketing messages
          {customer?.marketingConsentAt && consent ? (
            <span className="muted"> (since {new Date(customer.marketingConsentAt).toLocaleDateString()})</span>
          ) : null}
        </label>
      </form>
      {customer ? (
        <section className="bo-panel" aria-label="Purchase history">
          <h3>Purchase history</h3>
          {!orderRows ? <p className="muted">Loading…</p> : null}
          {orderRows ? (
            <DataTable
              caption="Orders of this customer"
              captionHidden
              columns={[
                { key: 'date', header: 'Date', cell: (o) => new Date(o.createdAt).toLocaleString() },
                { key: 'receipt', header: 'Receipt', cell: (o) => o.receiptNumber ?? o.id },
                { key: 'state', header: 'State', cell: (o) => o.state ?? '' },
                { key: 'total', header: 'Total', numeric: true, cell: (o) => formatMoney(o.totalCents, currency) },
              ]}
              rows={orderRows}
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
