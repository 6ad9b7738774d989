import {
  catalogSnapshot,
  formatMoney,
  MAX_AMOUNT_CENTS,
  newId,
  priceCart,
  PricingError,
  type CatalogItem,
  type OrderLine,
  type PayRequest,
  type PayRequestCreate,
  type TaxRate,
} from '../../../core/index.ts';
import { lockMerchant, type Queryable } from '../db/db.ts';
import { callerOf, type Principal } from '../auth/identity.ts';
import { ProblemError } from '../http/problem.ts';
import { appendAudit } from './audit.ts';
import type { AppContext } from '../context.ts';

/** Pay requests expire 7 days after creation unless paid (DESIGN §5). */
export const PAY_REQUEST_TTL_MS = 7 * 24 * 3600 * 1000;

export interface MerchantRow {
  id: string;
  name: string;
  currency: string;
  is_demo: boolean;
}

export async function getMerchant(db: Queryable, merchantId: string): Promise<MerchantRow> {
  const { rows } = await db.query<MerchantRow>('SELECT id, name, currency, is_demo FROM merchants WHERE id = $1', [merchantId]);
  if (!rows[0]) throw new ProblemError(404, 'merchant_not_found', `Merchant ${merchantId} does not exist.`);
  return rows[0];
}

/** The merchant's live catalog (not deleted) as a pricing snapshot. */
export async function loadCatalog(db: Queryable, merchantId: string) {
  const items = await db.query<{ data: CatalogItem }>('SELECT data FROM catalog_items WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  const rates = await db.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  return catalogSnapshot(
    items.rows.map((r) => r.data),
    rates.rows.map((r) => r.data),
  );
}

interface PayRequestRow {
  id: string;
  status: PayRequest['status'];
  amount_cents: number | string;
  currency: string;
  phone: string;
  memo: string | null;
  line_items: OrderLine[] | null;
  url: string;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
}

function toRecord(row: PayRequestRow): PayRequest {
  return {
    id: row.id,
    status: row.status,
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    phone: row.phone,
    memo: row.memo,
    ...(row.line_items ? { lineItems: row.line_items } : {}),
    url: row.url,
    expiresAt: new Date(row.expires_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
    paidAt: row.paid_at ? new Date(row.paid_at).toISOString() : null,
  };
}

/**
 * Creates a Text-to-Pay link (spec "Pay request", DESIGN §5, §7): a free `amountCents`, or `lineItems` priced here
 * against the merchant's catalog (apps never send prices). The record, its SMS and the audit row are written in one
 * transaction.
 * @throws ProblemError 400 when a line item cannot be priced or the priced total is out of bounds.
 */
export async function createPayRequest(ctx: AppContext, principal: Principal, input: PayRequestCreate): Promise<PayRequest> {
  const merchant = await getMerchant(ctx.db, principal.merchantId);
  let amountCents = input.amountCents;
  let lineItems: OrderLine[] | undefined;
  if (input.lineItems) {
    const catalog = await loadCatalog(ctx.db, merchant.id);
    try {
      const totals = priceCart(input.lineItems, [], catalog);
      lineItems = totals.lines;
      amountCents = totals.totalCents;
    } catch (err) {
      if (err instanceof PricingError) {
        const path = err.path.replace(/^lines\./, 'lineItems.');
        throw new ProblemError(400, err.code, `Invalid ${path}: ${err.message}`, [{ path, message: err.message }]);
      }
      throw err;
    }
    if (amountCents < 1 || amountCents > MAX_AMOUNT_CENTS) {
      throw new ProblemError(400, 'amount_out_of_range', `Invalid lineItems: they total ${amountCents} cents; a pay request is 1 … ${MAX_AMOUNT_CENTS}.`, [
        { path: 'lineItems', message: `total ${amountCents} is outside 1 … ${MAX_AMOUNT_CENTS}` },
      ]);
    }
  }
  const now = ctx.clock();
  const id = newId('payRequest');
  const record: PayRequest = {
    id,
    status: 'pending',
    amountCents: amountCents!,
    currency: merchant.currency,
    phone: input.phone,
    memo: input.memo ?? null,
    ...(lineItems ? { lineItems } : {}),
    url: `${ctx.config.baseUrl}/pay/${id}`,
    expiresAt: new Date(now.getTime() + PAY_REQUEST_TTL_MS).toISOString(),
    createdAt: now.toISOString(),
    paidAt: null,
  };
  const smsBody = `${merchant.name}: payment request for ${formatMoney(record.amountCents, record.currency)}${record.memo ? ` (${record.memo})` : ''}. Pay here: ${record.url}`;
  await ctx.db.transaction(async (tx) => {
    await lockMerchant(tx, merchant.id);
    await tx.query(
      `INSERT INTO pay_requests (id, merchant_id, status, amount_cents, currency, phone, memo, line_items, url, created_by, created_at, expires_at)
       VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11)`,
      [id, merchant.id, record.amountCents, record.currency, record.phone, record.memo, lineItems ? JSON.stringify(lineItems) : null, record.url, callerOf(principal), record.createdAt, record.expiresAt],
    );
    const sms = await ctx.sms.send({ merchantId: merchant.id, to: record.phone, body: smsBody }, { tx, now });
    await appendAudit(tx, {
      merchantId: merchant.id,
      actor: callerOf(principal),
      appId: principal.kind === 'app' ? principal.appId : null,
      action: 'pay_request.created',
      entityType: 'pay_request',
      entityId: id,
      occurredAt: now,
      data: { amountCents: record.amountCents, currency: record.currency, phone: record.phone, memo: record.memo, smsId: sms.id, lineItemCount: lineItems?.length ?? 0 },
    });
  });
  return record;
}

export async function getPayRequest(db: Queryable, id: string, merchantId?: string): Promise<(PayRequest & { merchantId: string }) | undefined> {
  const { rows } = await db.query<PayRequestRow & { merchant_id: string }>('SELECT * FROM pay_requests WHERE id = $1', [id]);
  const row = rows[0];
  if (!row || (merchantId && row.merchant_id !== merchantId)) return undefined;
  return { ...toRecord(row), merchantId: row.merchant_id };
}
