import { randomBytes } from 'node:crypto';
import { newId, type CatalogItem, type TaxRate } from '../../../../core/index.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { NO_FEED } from '../../platform/change-feed.ts';
import { APP_SCOPES, appWebhookSecret, issueAppToken, revokeAppTokens } from '../../platform/auth/identity.ts';
import { mutation, type Mutation } from '../../kernel/mutation.ts';

/**
 * The demo store: a café with modifiers, a retail shelf with real UPC-A barcodes and stock, and salon
 * services. Seeded idempotently on every start: existing rows are never overwritten, so edits survive restarts.
 * The seed itself is a workflow (workflows/demo-seed.ts: merchant, catalog, opening stock, sign-ins); this file holds
 * the demo data and the merchants module's part of it.
 */
export const DEMO_MERCHANT_NAME = 'Register Demo Café & Market';
export const DEMO_CURRENCY = 'USD';
export const DEMO_APP_NAME = 'Demo integration';
export const DEMO_APP_SCOPES: readonly string[] = APP_SCOPES;

export const DEMO_TAX_RATES: readonly TaxRate[] = [{ id: 'tax_sales', name: 'Sales tax', basisPoints: 875, inclusive: false }];

const sizeList = (id: string) => ({
  id,
  name: 'Size',
  minSelected: 1,
  maxSelected: 1,
  modifiers: [
    { id: 'mod_size_small', name: 'Small', priceCents: 0 },
    { id: 'mod_size_medium', name: 'Medium', priceCents: 50 },
    { id: 'mod_size_large', name: 'Large', priceCents: 100 },
  ],
});
const extrasList = (id: string) => ({
  id,
  name: 'Extras',
  minSelected: 0,
  maxSelected: 3,
  modifiers: [
    { id: 'mod_extra_oat_milk', name: 'Oat milk', priceCents: 70 },
    { id: 'mod_extra_shot', name: 'Extra shot', priceCents: 90 },
    { id: 'mod_extra_vanilla', name: 'Vanilla syrup', priceCents: 60 },
  ],
});

const drink = (id: string, name: string, priceCents: number, description: string): CatalogItem => ({
  id: `itm_${id}`,
  name,
  description,
  category: 'Coffee',
  kind: 'product',
  variations: [{ id: `var_${id}_regular`, name: 'Regular', priceCents, trackStock: false }],
  modifierLists: [sizeList(`mdl_${id}_size`), extrasList(`mdl_${id}_extras`)],
  taxRateIds: ['tax_sales'],
});

const bakery = (id: string, name: string, priceCents: number, stock: number): CatalogItem => ({
  id: `itm_${id}`,
  name,
  category: 'Bakery',
  kind: 'product',
  variations: [{ id: `var_${id}_regular`, name: 'Regular', priceCents, sku: `BAK-${id.toUpperCase()}`, trackStock: true, stockOnHand: stock }],
  modifierLists: [],
  taxRateIds: ['tax_sales'],
});

/** Retail items carry the manufacturers' published UPC-A codes (GTIN-12, check digits verified by a test). */
const retail = (id: string, name: string, priceCents: number, gtin: string, stock: number): CatalogItem => ({
  id: `itm_${id}`,
  name,
  category: 'Retail',
  kind: 'product',
  variations: [{ id: `var_${id}_each`, name: 'Each', priceCents, sku: `RTL-${id.toUpperCase()}`, gtin, trackStock: true, stockOnHand: stock }],
  modifierLists: [],
  taxRateIds: ['tax_sales'],
});

const service = (id: string, name: string, priceCents: number, description: string): CatalogItem => ({
  id: `itm_${id}`,
  name,
  description,
  category: 'Salon',
  kind: 'service',
  variations: [{ id: `var_${id}_standard`, name: 'Standard', priceCents, trackStock: false }],
  modifierLists: [],
  taxRateIds: [],
});

export const DEMO_CATALOG_ITEMS: readonly CatalogItem[] = [
  drink('latte', 'Latte', 450, 'Espresso with steamed milk.'),
  drink('cappuccino', 'Cappuccino', 425, 'Espresso, steamed milk and foam.'),
  {
    id: 'itm_espresso',
    name: 'Espresso',
    category: 'Coffee',
    kind: 'product',
    variations: [
      { id: 'var_espresso_single', name: 'Single', priceCents: 300, trackStock: false },
      { id: 'var_espresso_double', name: 'Double', priceCents: 375, trackStock: false },
    ],
    modifierLists: [],
    taxRateIds: ['tax_sales'],
  },
  {
    id: 'itm_drip_coffee',
    name: 'Drip coffee',
    category: 'Coffee',
    kind: 'product',
    variations: [
      { id: 'var_drip_coffee_small', name: 'Small', priceCents: 250, trackStock: false },
      { id: 'var_drip_coffee_large', name: 'Large', priceCents: 325, trackStock: false },
    ],
    modifierLists: [extrasList('mdl_drip_coffee_extras')],
    taxRateIds: ['tax_sales'],
  },
  bakery('croissant', 'Butter croissant', 375, 24),
  bakery('blueberry_muffin', 'Blueberry muffin', 350, 18),
  bakery('chocolate_cookie', 'Chocolate chip cookie', 250, 30),
  retail('coca_cola_can', 'Coca-Cola Classic 12 fl oz can', 199, '049000028911', 48),
  retail('diet_coke_can', 'Diet Coke 12 fl oz can', 199, '049000028928', 36),
  retail('dasani_water', 'Dasani purified water 20 fl oz', 229, '049000026566', 30),
  retail('snickers_bar', 'Snickers bar 1.86 oz', 179, '040000424314', 40),
  service('haircut', 'Haircut', 3500, 'Wash, cut and style, 45 minutes.'),
  service('blow_dry', 'Blow-dry', 3000, 'Wash and blow-dry, 30 minutes.'),
  service('beard_trim', 'Beard trim', 1500, 'Trim and line-up, 15 minutes.'),
];

export interface DemoSeed {
  merchantId: string;
  merchantName: string;
  currency: string;
  staffId: string;
  staffRole: string;
  appId: string;
  /** Plaintext of the demo app token — only when it was created by this call (only its hash is stored). */
  appToken?: string;
  appScopes: readonly string[];
  webhookSecret: string;
  /** True when the merchant was created by this call. */
  created: boolean;
}

/** The demo merchant as stored. */
export interface DemoMerchant {
  id: string;
  name: string;
  currency: string;
}

/**
 * The demo merchant (the oldest `is_demo` one), or the one to create (`created: true`, not stored yet: see
 * {@link createDemoMerchant}). Takes a transaction-wide lock first, so several instances starting at once seed one
 * store.
 */
export async function findDemoMerchant(tx: Queryable): Promise<{ merchant: DemoMerchant; created: boolean }> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('register:seed-demo')) AS locked`);
  const found = await tx.query<DemoMerchant>('SELECT id, name, currency FROM merchants WHERE is_demo ORDER BY created_at, id LIMIT 1');
  if (found.rows[0]) return { merchant: found.rows[0], created: false };
  return { merchant: { id: newId('merchant'), name: DEMO_MERCHANT_NAME, currency: DEMO_CURRENCY }, created: true };
}

/** Stores the demo merchant {@link findDemoMerchant} planned, inside its own mutation `m` (`m.merchantId` = its id). */
export async function createDemoMerchant(m: Mutation, merchant: DemoMerchant): Promise<void> {
  await m.tx.query('INSERT INTO merchants (id, name, currency, is_demo) VALUES ($1, $2, $3, true)', [merchant.id, merchant.name, merchant.currency]);
}

/** The demo store's sign-ins: its owner (created when missing) and its demo app (token issued when missing). */
export async function ensureDemoAccess(
  m: Mutation,
): Promise<Pick<DemoSeed, 'staffId' | 'staffRole' | 'appId' | 'appToken' | 'appScopes' | 'webhookSecret'>> {
  const { tx, merchantId } = m;
  let staff = (
    await tx.query<{ id: string; role: string }>(
      `SELECT id, role FROM staff WHERE merchant_id = $1 AND role = 'owner' ORDER BY created_at, id LIMIT 1`,
      [merchantId],
    )
  ).rows[0];
  if (!staff) {
    staff = { id: newId('staff'), role: 'owner' };
    await tx.query(`INSERT INTO staff (id, merchant_id, name, email, role) VALUES ($1, $2, 'Demo Owner', 'owner@demo.register.example', 'owner')`, [
      staff.id,
      merchantId,
    ]);
  }
  let app = (
    await tx.query<{ id: string; scopes: string[] }>(
      'SELECT id, scopes FROM app_tokens WHERE merchant_id = $1 AND app_name = $2 AND revoked_at IS NULL ORDER BY created_at, id LIMIT 1',
      [merchantId, DEMO_APP_NAME],
    )
  ).rows[0];
  let webhookSecret = app ? await appWebhookSecret(tx, app.id) : null;
  let appToken: string | undefined;
  if (!app) {
    webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
    const issued = await issueAppToken(tx, { merchantId, appName: DEMO_APP_NAME, scopes: DEMO_APP_SCOPES, webhookSecret });
    appToken = issued.token;
    app = { id: issued.id, scopes: [...DEMO_APP_SCOPES] };
  }
  return {
    staffId: staff.id,
    staffRole: staff.role,
    appId: app.id,
    ...(appToken ? { appToken } : {}),
    appScopes: app.scopes,
    webhookSecret: webhookSecret ?? '',
  };
}

/** The demo stock as opening counts (inventory is the sum of movements), under the source id {@link OPENING_STOCK_SOURCE}. */
export const OPENING_STOCK_SOURCE = 'seed:opening-stock';
export function openingStockCounts(): { variationId: string; kind: 'count'; counted: number; sourceId: string }[] {
  return DEMO_CATALOG_ITEMS.flatMap((item) =>
    item.variations
      .filter((v) => v.trackStock)
      .map((v) => ({ variationId: v.id, kind: 'count' as const, counted: v.stockOnHand ?? 0, sourceId: OPENING_STOCK_SOURCE })),
  );
}

/**
 * Revokes the demo app's tokens and issues a new one (same scopes and webhook secret). Used when the plaintext of the
 * existing token is no longer known (it is stored hashed only). Audited `app_token.reissued`.
 */
export async function reissueDemoAppToken(
  db: Db,
  merchantId: string,
  clock: () => Date = () => new Date(),
): Promise<{ appId: string; appToken: string; webhookSecret: string }> {
  return mutation({ db, clock, feed: NO_FEED }, { merchantId, actor: 'system' }, async ({ tx, audit }) => {
    const old = (
      await tx.query<{ id: string }>(
        'SELECT id FROM app_tokens WHERE merchant_id = $1 AND app_name = $2 AND revoked_at IS NULL ORDER BY created_at LIMIT 1',
        [merchantId, DEMO_APP_NAME],
      )
    ).rows[0];
    const webhookSecret = (old ? await appWebhookSecret(tx, old.id) : null) ?? `whsec_${randomBytes(24).toString('base64url')}`;
    await revokeAppTokens(tx, merchantId, DEMO_APP_NAME);
    const issued = await issueAppToken(tx, { merchantId, appName: DEMO_APP_NAME, scopes: DEMO_APP_SCOPES, webhookSecret });
    await audit({ action: 'app_token.reissued', entityType: 'app_token', entityId: issued.id, appId: issued.id, data: { appName: DEMO_APP_NAME } });
    return { appId: issued.id, appToken: issued.token, webhookSecret };
  });
}
