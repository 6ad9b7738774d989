/**
 * The customer at the counter: the cart's customer control (F3) and its dialog — search the register's
 * customers by name, phone or e-mail (a virtualised list: a store may hold tens of thousands), attach one to the sale,
 * create a new one (works offline: pushed when the register is back, merged by the server into an existing customer
 * with the same phone or e-mail), and a customer's past sales (this register's, plus the server's when online).
 * Logic in customers/customer-store.ts.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { formatMoney, type OrderView } from '../../../../core/index.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { useObservable } from '../../ui/hooks.ts';
import {
  createRegisterCustomer,
  CustomerFormError,
  customerLabel,
  customerSales,
  localCustomerOrders,
  phoneCountry,
  searchCustomers,
  serverCustomerOrders,
  survivorId,
  type CustomerFormErrors,
  type CustomerSale,
  type NewCustomerForm,
} from '../customers/customer-store.ts';
import type { StoredOrder } from '../db/database.ts';
import type { StoredCustomer } from '../db/schemas.ts';
import { useRegister } from '../register-context.ts';
import './customers.css';

/** The key that opens the customer search (shortcut-help.tsx lists it). */
export const CUSTOMER_KEY = 'F3';
const ROW_HEIGHT = 56;

/** Every customer document of the register, by id (aliases included), live. */
export function useCustomers(): { list: StoredCustomer[]; byId: Map<string, StoredCustomer> } {
  const { db } = useRegister();
  const docs$ = useMemo(() => db.customers.find().$, [db]);
  const docs = useObservable(docs$, []);
  return useMemo(() => {
    const list = docs.map((d) => d.toJSON() as StoredCustomer);
    return { list, byId: new Map(list.map((c) => [c.id, c])) };
  }, [docs]);
}

interface CustomerControlProps {
  /** The customer attached to the sale, as stored in the cart (may be an alias: shown as its survivor). */
  customerId: string | undefined;
  byId: ReadonlyMap<string, StoredCustomer>;
  onOpen: () => void;
  onRemove: () => void;
  onHistory: () => void;
}

/** The cart's customer line: "Customer (F3)" with none; the customer's name, contact, History and Remove with one. */
export function CustomerControl({ customerId, byId, onOpen, onRemove, onHistory }: CustomerControlProps) {
  const customer = customerId ? byId.get(survivorId(byId, customerId)) : undefined;
  if (!customerId) {
    return (
      <div className="cart-customer" data-testid="cart-customer">
        <button
          type="button"
          className="button"
          data-testid="customer-open"
          onClick={onOpen}
          aria-keyshortcuts={CUSTOMER_KEY}
          title={`Customer (${CUSTOMER_KEY})`}
        >
          Customer <kbd>{CUSTOMER_KEY}</kbd>
        </button>
      </div>
    );
  }
  const label = customer ? customerLabel(customer) : 'Customer (not on this register yet)';
  const contact = customer ? [customer.phone, customer.email].filter(Boolean).join(' · ') : '';
  return (
    <div className="cart-customer" data-testid="cart-customer" data-customer-id={customer?.id ?? customerId}>
      <button
        type="button"
        className="button cart-customer-name"
        data-testid="customer-attached"
        onClick={onOpen}
        aria-keyshortcuts={CUSTOMER_KEY}
        title={`Change the customer (${CUSTOMER_KEY})`}
      >
        <span className="visually-hidden">Customer (change): </span>
        <span>{label}</span>
        {contact ? <span className="cart-customer-contact">{contact}</span> : null}
      </button>
      <button type="button" className="button" data-testid="customer-history-open" onClick={onHistory}>
        History
      </button>
      <button
        type="button"
        className="button button-icon"
        data-testid="customer-remove"
        aria-label={`Remove customer ${label} from the sale`}
        onClick={onRemove}
      >
        ✕
      </button>
    </div>
  );
}

interface CustomerDialogProps {
  onAttach: (id: string) => void;
  onClose: () => void;
  /** Open on the new-customer form rather than the search. */
  startWithNew?: boolean;
}

/** Search and attach, or create, a customer. */
export function CustomerDialog({ onAttach, onClose, startWithNew = false }: CustomerDialogProps) {
  const [query, setQuery] = useState('');
  const [isNew, setNew] = useState(startWithNew);

  // Keyed: the search and the form are two dialogs, so switching mounts the other one and focus moves into it (the same
  // Dialog re-rendered kept focus on the button that had just gone — the page body, where Escape does nothing).
  if (isNew) {
    return (
      <Dialog key="new" title="New customer" onClose={onClose}>
        <NewCustomer initial={query} onCreated={onAttach} onCancel={() => setNew(false)} />
      </Dialog>
    );
  }
  return (
    <Dialog key="search" title="Customer" onClose={onClose} wide>
      <CustomerSearch query={query} onQueryChange={setQuery} onChoose={onAttach}>
        <button type="button" className="button" data-testid="customer-new" onClick={() => setNew(true)}>
          New customer
        </button>
      </CustomerSearch>
    </Dialog>
  );
}

interface CustomerSearchProps {
  query: string;
  onQueryChange: (query: string) => void;
  /** A customer picked (click, tap, or Enter when the query leaves one): its id. */
  onChoose: (id: string) => void;
  /** Shown under the list (the customer dialog's "New customer"). */
  children?: ReactNode;
}

/**
 * The search of the register's customers (`searchCustomers`: name, phone digits or e-mail) with its live count and
 * virtualised list of 44 px+ rows; the field carries `data-autofocus` (focused when its dialog opens) and Enter picks
 * the only match. Used by the cart's customer dialog and by Returns' "Find by customer". Asks the replication for the
 * freshest customers when it opens.
 */
export function CustomerSearch({ query, onQueryChange, onChoose, children }: CustomerSearchProps) {
  const { sync } = useRegister();
  const { list } = useCustomers();
  // Freshest customers when the search opens (no change stream for customers: replication.ts).
  useEffect(() => sync.pullNow?.('customers'), [sync]);
  // Sorted once per change of the collection; a keystroke filters that order (TimSort on sorted input is linear).
  const sorted = useMemo(() => searchCustomers(list, ''), [list]);
  const results = useMemo(() => (query.trim() ? searchCustomers(sorted, query) : sorted), [sorted, query]);
  return (
    <div className="customer-search">
      <label className="field">
        Search by name, phone or e-mail
        <input
          type="search"
          data-testid="customer-search"
          data-autofocus
          autoComplete="off"
          value={query}
          onChange={(e) => onQueryChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && results.length === 1 && results[0]) {
              e.preventDefault();
              onChoose(results[0].id);
            }
          }}
        />
      </label>
      <p className="muted" role="status" data-testid="customer-count">
        {results.length === 0
          ? query
            ? 'No customer matches.'
            : 'No customers on this register yet.'
          : `${results.length} ${results.length === 1 ? 'customer' : 'customers'}`}
      </p>
      <CustomerList customers={results} onChoose={onChoose} />
      {children}
    </div>
  );
}

/** The matching customers, virtualised (only the rows in view are in the page). */
function CustomerList({ customers, onChoose }: { customers: StoredCustomer[]; onChoose: (id: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: customers.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
  });
  if (customers.length === 0) return null;
  return (
    <div ref={scroller} className="customer-list" data-testid="customer-list" data-count={customers.length}>
      <ul style={{ height: virtualizer.getTotalSize(), position: 'relative' }} aria-label="Customers">
        {virtualizer.getVirtualItems().map((row) => {
          const c = customers[row.index]!;
          return (
            <li key={c.id} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${row.start}px)` }}>
              <button type="button" className="button customer-row" data-testid="customer-row" data-customer-id={c.id} onClick={() => onChoose(c.id)}>
                <span className="customer-row-name">{customerLabel(c)}</span>
                <span className="customer-row-contact">{[c.phone, c.email].filter(Boolean).join(' · ')}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** The new-customer form: name, phone (E.164 with the store's country), e-mail; stored on this register at once. */
function NewCustomer({ initial, onCreated, onCancel }: { initial: string; onCreated: (id: string) => void; onCancel: () => void }) {
  const { db, session } = useRegister();
  const id = useId();
  const looksLikePhone = /^[+\d][\d\s().-]*$/.test(initial.trim());
  const [form, setForm] = useState<NewCustomerForm>({
    givenName: looksLikePhone || initial.includes('@') ? '' : initial.trim(),
    familyName: '',
    phone: looksLikePhone ? initial.trim() : '',
    email: initial.includes('@') ? initial.trim() : '',
  });
  const [errors, setErrors] = useState<CustomerFormErrors>({});
  const [country, setCountry] = useState<string | undefined>(() => localStorage.getItem(`register.phoneCountry.${session.merchantId}`) ?? undefined);
  const [isBusy, setBusy] = useState(false);
  useEffect(() => {
    void phoneCountry(session).then(setCountry);
  }, [session]);
  const field = (name: keyof NewCustomerForm, label: string, type: string, autoComplete: string) => (
    <label className="field">
      {label}
      <input
        id={`${id}-${name}`}
        data-testid={`customer-${name}`}
        type={type}
        autoComplete={autoComplete}
        value={form[name]}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `${id}-${name}-error` : undefined}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
        {...(name === 'givenName' ? { 'data-autofocus': true } : {})}
      />
      {errors[name] ? (
        <span className="form-error" id={`${id}-${name}-error`} role="alert">
          {errors[name]}
        </span>
      ) : null}
    </label>
  );
  const save = async () => {
    setBusy(true);
    try {
      const customer = await createRegisterCustomer(db, session, form, country);
      onCreated(customer.id);
    } catch (err) {
      if (err instanceof CustomerFormError) {
        setErrors(err.errors);
        const first = Object.keys(err.errors)[0];
        if (first) document.getElementById(`${id}-${first}`)?.focus();
      } else setErrors({ givenName: `Not saved: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="customer-form"
      data-testid="customer-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {field('givenName', 'First name', 'text', 'off')}
      {field('familyName', 'Last name', 'text', 'off')}
      {field('phone', country ? `Phone (${country} numbers, or + and the country code)` : 'Phone (+ and the country code)', 'tel', 'off')}
      {field('email', 'E-mail', 'email', 'off')}
      <p className="muted">A name, a phone or an e-mail is enough. Saved on this register at once, sent to the store when online.</p>
      <div className="customer-form-actions">
        <button type="submit" className="button button-primary" data-testid="customer-save" disabled={isBusy}>
          Save and attach
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Back to search
        </button>
      </div>
    </form>
  );
}

/**
 * A customer's past sales (`customerSales`): this register's — the customer's and its aliases' (offline too) — and,
 * when online, the store's (`GET /api/pos/customers/{id}/orders`, register credential), newest first; `note` says
 * when the server's are missing (offline, not on the server yet); `loaded` once this register's are read.
 */
export function useCustomerSales(id: string): { sales: CustomerSale[]; note: string; loaded: boolean } {
  const { db, session } = useRegister();
  const [local, setLocal] = useState<StoredOrder[] | undefined>();
  const [remote, setRemote] = useState<OrderView[] | undefined>();
  const [note, setNote] = useState('');
  useEffect(() => {
    let live = true;
    setLocal(undefined);
    setRemote(undefined);
    setNote('');
    void localCustomerOrders(db, id).then((orders) => live && setLocal(orders));
    void serverCustomerOrders(session, id).then((answer) => {
      if (!live) return;
      if (answer.orders) setRemote(answer.orders);
      else setNote(answer.note);
    });
    return () => {
      live = false;
    };
  }, [db, id, session]);
  const sales = useMemo(() => customerSales(local ?? [], remote, session.currency), [local, remote, session.currency]);
  return { sales, note, loaded: local !== undefined };
}

/**
 * A customer's past sales ({@link useCustomerSales}): this register's (offline too) and, when online, the store's,
 * merged by order id, newest first.
 */
export function CustomerHistoryDialog({ customerId, onClose }: { customerId: string; onClose: () => void }) {
  const { byId } = useCustomers();
  const id = survivorId(byId, customerId);
  const customer = byId.get(id);
  const { sales: rows, note } = useCustomerSales(id);
  return (
    <Dialog title={`History: ${customer ? customerLabel(customer) : 'customer'}`} onClose={onClose} wide>
      <p className="muted" role="status" data-testid="customer-history-note">
        {note}
      </p>
      {rows.length === 0 ? (
        <p className="muted" data-testid="customer-history-empty">
          No sales yet.
        </p>
      ) : (
        <table className="customer-history" data-testid="customer-history">
          <thead>
            <tr>
              <th scope="col">Receipt</th>
              <th scope="col">When</th>
              <th scope="col">State</th>
              <th scope="col">Total</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid="customer-history-row" data-order-id={r.id}>
                <td>{r.receiptNumber}</td>
                <td>{new Date(r.createdAt).toLocaleString()}</td>
                <td>{r.state.replace(/_/g, ' ')}</td>
                <td>{formatMoney(r.totalCents, r.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Dialog>
  );
}
