/**
 * Customers at the register: the local `customers` collection (db/database.ts) read and written for the
 * cart's customer control — search by name, phone or e-mail, a new customer created here (offline too; pushed by the
 * replication, de-duplicated by the server), the surviving customer of one the server merged, and a customer's
 * past sales held on this register.
 *
 *     searchCustomers(customers, query)              name / phone digits / e-mail, in name order
 *     createRegisterCustomer(db, session, form, cc)  validated (phone to E.164 with the store's country) and stored
 *     survivorId(customers, id)                      the id to use now (follows `mergedInto`)
 *     phoneCountry(session)                          the store's phone country, kept for offline use
 *     localCustomerOrders(db, id)                    this register's sales of a customer (aliases included)
 *     serverCustomerOrders(session, id)              the store's sales of a customer, when online
 *     customerSales(local, server, currency)         both merged by order id, newest first (history, returns)
 */
import { newId, normalizePhone, registerCustomerSchema, type OrderView, type RegisterCustomer } from '../../../../core/index.ts';
import { collator } from '../../ui/collation.ts';
import type { RegisterDatabase, StoredOrder } from '../db/database.ts';
import type { StoredCustomer } from '../db/schemas.ts';
import { REGISTER_SCHEMA_VERSION, type RegisterSession } from '../../common/session.ts';

/** A customer's name as shown ("Ada Lovelace"), else their phone or e-mail, else their id. */
export function customerLabel(c: Pick<StoredCustomer, 'id' | 'givenName' | 'familyName' | 'phone' | 'email'>): string {
  const name = [c.givenName, c.familyName].filter(Boolean).join(' ').trim();
  return name || c.phone || c.email || c.id;
}

/** True for a customer to list (not an alias of a merged one, not refused by the server). */
export function isListed(c: StoredCustomer): boolean {
  return !c.mergedInto && !c.rejection;
}

/**
 * The listed customers matching `query` — every word a prefix or part of the name or e-mail (case- and
 * accent-insensitive), or, for a query with 3 digits or more, part of the phone's digits — in name order
 * (`ui/collation.ts`). An empty query lists them all.
 */
export function searchCustomers(customers: readonly StoredCustomer[], query: string): StoredCustomer[] {
  const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const words = fold(query.trim()).split(/\s+/).filter(Boolean);
  const digits = query.replace(/\D/g, '');
  const listed = customers.filter(isListed);
  const matches =
    words.length === 0
      ? listed
      : listed.filter((c) => {
          if (digits.length >= 3 && digits.length === query.replace(/[\s()+.-]/g, '').length && (c.phone ?? '').replace(/\D/g, '').includes(digits))
            return true;
          const text = fold(`${c.givenName ?? ''} ${c.familyName ?? ''} ${c.email ?? ''} ${c.phone ?? ''}`);
          return words.every((w) => text.includes(w));
        });
  return matches.sort((a, b) => collator.compare(customerLabel(a), customerLabel(b)) || (a.id < b.id ? -1 : 1));
}

/**
 * The id to attach now for customer `id`: itself, or — when the server merged it into an existing customer — the
 * survivor (following a chain of aliases, at most 10 deep).
 */
export function survivorId(byId: ReadonlyMap<string, StoredCustomer>, id: string): string {
  let current = id;
  for (let i = 0; i < 10; i++) {
    const next = byId.get(current)?.mergedInto;
    if (!next) return current;
    current = next;
  }
  return current;
}

/** The new-customer form as typed. */
export interface NewCustomerForm {
  givenName: string;
  familyName: string;
  phone: string;
  email: string;
}

/** Field errors of the new-customer form (the field's name → message). */
export type CustomerFormErrors = Partial<Record<keyof NewCustomerForm, string>>;

/** Thrown by {@link createRegisterCustomer} when the form is not a valid customer; `errors` names the fields. */
export class CustomerFormError extends Error {
  override name = 'CustomerFormError';
  constructor(readonly errors: CustomerFormErrors) {
    super(Object.values(errors)[0] ?? 'invalid customer');
  }
}

/**
 * The customer the form describes, as the register pushes it (core `registerCustomerSchema`): blank fields left out,
 * the phone read in E.164 (international as typed, national in `country`, the store's phone country — without one,
 * only an international number is accepted).
 * @throws CustomerFormError naming the fields that are not valid
 */
export function customerFromForm(
  form: NewCustomerForm,
  ids: { registerId: string; id?: string; now?: Date },
  country: string | undefined,
): RegisterCustomer {
  const errors: CustomerFormErrors = {};
  const phoneText = form.phone.trim();
  let phone: string | undefined;
  if (phoneText) {
    phone = normalizePhone(phoneText, country);
    if (!phone) {
      errors.phone =
        phoneText.startsWith('+') || !country
          ? 'a phone number with + and the country code, e.g. +1 415 555 0123'
          : `a valid phone number of ${country}, or + and the country code`;
    }
  }
  const candidate = {
    id: ids.id ?? newId('customer'),
    registerId: ids.registerId,
    ...(form.givenName.trim() ? { givenName: form.givenName.trim() } : {}),
    ...(form.familyName.trim() ? { familyName: form.familyName.trim() } : {}),
    ...(form.email.trim() ? { email: form.email.trim() } : {}),
    ...(phone ? { phone } : phoneText ? { phone: phoneText } : {}),
    createdAt: (ids.now ?? new Date()).toISOString(),
  };
  const parsed = registerCustomerSchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'givenName') as keyof NewCustomerForm;
      if (field in form && !errors[field]) errors[field] = field === 'email' ? 'an e-mail address such as name@example.com' : issue.message;
    }
  }
  if (Object.keys(errors).length > 0) throw new CustomerFormError(errors);
  return parsed.data!;
}

/**
 * Creates a customer on this register from the form (offline too: the replication pushes it) and returns it. A
 * customer of this register's database with the same phone or e-mail is returned instead of a second one (the
 * server de-duplicates across registers: docs/decisions/0016-customers-created-at-the-register.md).
 * @throws CustomerFormError naming the invalid fields
 */
export async function createRegisterCustomer(
  db: RegisterDatabase,
  session: Pick<RegisterSession, 'registerId'>,
  form: NewCustomerForm,
  country: string | undefined,
): Promise<StoredCustomer> {
  const customer = customerFromForm(form, { registerId: session.registerId }, country);
  const existing = (await db.customers.find().exec()).map((d) => d.toJSON() as StoredCustomer).filter(isListed);
  const email = customer.email?.toLowerCase();
  const same = existing.find((c) => (customer.phone && c.phone === customer.phone) || (email && c.email?.trim().toLowerCase() === email));
  if (same) return same;
  await db.customers.insert(customer);
  return customer;
}

/** The local sales of customer `id` and of the customers merged into it, newest first. */
export async function localCustomerOrders(db: RegisterDatabase, id: string): Promise<StoredOrder[]> {
  const aliases = (await db.customers.find({ selector: { mergedInto: id } }).exec()).map((d) => d.id);
  const docs = await db.orders.find({ selector: { customerId: { $in: [id, ...aliases] } }, sort: [{ createdAt: 'desc' }] }).exec();
  return docs.map((d) => d.toJSON() as StoredOrder);
}

/**
 * The store's sales of customer `id` (`GET /api/pos/customers/{id}/orders?limit=…`, register credential, newest
 * first): `orders` when the server answered, else a `note` for the cashier (offline; not on the server yet; HTTP error).
 * Never throws.
 */
export async function serverCustomerOrders(
  session: Pick<RegisterSession, 'registerToken'>,
  id: string,
  limit = 50,
): Promise<{ orders: OrderView[]; note?: undefined } | { orders?: undefined; note: string }> {
  try {
    const response = await fetch(`/api/pos/customers/${encodeURIComponent(id)}/orders?limit=${limit}`, {
      headers: { authorization: `Bearer ${session.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    });
    if (response.ok) return { orders: ((await response.json()) as { data: OrderView[] }).data };
    return {
      note:
        response.status === 404
          ? 'Not on the server yet: this register’s sales only.'
          : `The store’s history is not available (HTTP ${response.status}).`,
    };
  } catch {
    return { note: 'Offline: this register’s sales only.' };
  }
}

/** One sale of a customer as listed at the counter (history, returns by customer). Amounts in minor units. */
export interface CustomerSale {
  /** The order id (`ord_…`). */
  id: string;
  receiptNumber: string;
  /** ISO 8601. */
  createdAt: string;
  totalCents: number;
  currency: string;
  /** The order's state (`paid`, `partially_refunded`, …); a local sale not yet stamped by the server is `paid`. */
  state: string;
  /** Where the row comes from: this register's database, the server, or both. */
  source: 'register' | 'server' | 'both';
}

/**
 * A customer's sales from this register's database (`local`, e.g. {@link localCustomerOrders}) and from the server
 * (`server`, undefined when it did not answer), merged by order id — the server's state and amounts win for a sale
 * both hold — newest first (ties by order id, descending). `currency` is the store's, for a local sale without one.
 */
export function customerSales(local: readonly StoredOrder[], server: readonly OrderView[] | undefined, currency: string): CustomerSale[] {
  const byOrder = new Map<string, CustomerSale>();
  for (const o of local)
    byOrder.set(o.id, {
      id: o.id,
      receiptNumber: o.receiptNumber,
      createdAt: o.createdAt,
      totalCents: o.totalCents,
      currency: o.currency ?? currency,
      state: o.state ?? 'paid',
      source: 'register',
    });
  for (const o of server ?? []) {
    const mine = byOrder.has(o.id);
    byOrder.set(o.id, {
      id: o.id,
      receiptNumber: o.receiptNumber,
      createdAt: o.createdAt,
      totalCents: o.totalCents,
      currency: o.currency,
      state: o.state,
      source: mine ? 'both' : 'server',
    });
  }
  return [...byOrder.values()].sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1));
}

const countryKey = (merchantId: string) => `register.phoneCountry.${merchantId}`;

/**
 * The store's phone country (`GET /api/register/phone-country`, ISO 3166-1 alpha-2), kept in localStorage for
 * customers created offline; offline, the last answer, or undefined when the register never had one.
 */
export async function phoneCountry(session: Pick<RegisterSession, 'merchantId' | 'registerToken'>): Promise<string | undefined> {
  const kept = localStorage.getItem(countryKey(session.merchantId)) ?? undefined;
  try {
    const response = await fetch('/api/register/phone-country', {
      headers: { authorization: `Bearer ${session.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    });
    if (!response.ok) return kept;
    const { defaultCountry } = (await response.json()) as { defaultCountry: string };
    localStorage.setItem(countryKey(session.merchantId), defaultCountry);
    return defaultCountry;
  } catch {
    return kept;
  }
}
