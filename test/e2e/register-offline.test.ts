/**
 * The register keeps selling through an internet outage: three sales rung up offline survive a reload,
 * reach the server once the register is back online, are stored exactly once with balanced journal transactions,
 * and pushing them again changes nothing.
 *
 * Real server (in-memory database, demo store) + the built register in Debian's Chromium.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

/* ── the catalog shapes the test relies on (kept minimal on purpose) ── */
interface Modifier {
  id: string;
  name: string;
  priceCents: number;
}
interface ModifierList {
  id: string;
  name: string;
  minSelected: number;
  maxSelected: number;
  modifiers: Modifier[];
}
interface Variation {
  id: string;
  name: string;
  priceCents: number;
  gtin?: string;
  sku?: string;
}
interface Item {
  id: string;
  name: string;
  category: string;
  variations: Variation[];
  modifierLists: ModifierList[];
  taxRateIds: string[];
}
interface TaxRate {
  id: string;
  basisPoints: number;
  inclusive: boolean;
}
interface ApiOrder {
  id: string;
  registerId: string;
  receiptNumber: string;
  totalCents: number;
  subtotalCents: number;
  taxCents: number;
  lines: { quantity: number; variationId: string }[];
}
interface ApiJournal {
  id: string;
  sourceId: string;
  postings: { accountCode: string; amountCents: number }[];
}

/** Half-to-even integer division, written here independently of core/money.ts. */
function roundHalfEven(numerator: bigint, denominator: bigint): number {
  const q = numerator / denominator;
  const r = numerator % denominator;
  if (r * 2n > denominator || (r * 2n === denominator && q % 2n === 1n)) return Number(q + 1n);
  return Number(q);
}

/** Expected order total: Σ unit × qty, plus one exclusive tax per rate over the lines carrying it, half-even. */
function expectedTotal(lines: { item: Item; unitCents: number; quantity: number }[], taxRates: Map<string, TaxRate>): number {
  const subtotal = lines.reduce((a, l) => a + l.unitCents * l.quantity, 0);
  const rateIds = [...new Set(lines.flatMap((l) => l.item.taxRateIds))];
  let exclusiveTax = 0;
  for (const rateId of rateIds) {
    const rate = taxRates.get(rateId);
    if (!rate || rate.inclusive) continue;
    const base = lines.filter((l) => l.item.taxRateIds.includes(rateId)).reduce((a, l) => a + l.unitCents * l.quantity, 0);
    exclusiveTax += roundHalfEven(BigInt(base) * BigInt(rate.basisPoints), 10_000n);
  }
  return subtotal + exclusiveTax;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;

describe('web register offline', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let context: BrowserContext;
  let page: Page;

  const api = staffApi(() => server, { 'x-register-schema-version': '1' });
  /** Every page of a cursor-paginated list. */
  const listAll = async <T>(path: string): Promise<T[]> => {
    const out: T[] = [];
    let cursor: string | null | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const body = await api<{ data: T[]; nextCursor?: string | null }>(
        `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      out.push(...body.data);
      cursor = body.nextCursor;
    } while (cursor);
    return out;
  };
  const pullAll = async <T>(collection: string): Promise<T[]> => {
    const out: T[] = [];
    let seq = 0;
    for (;;) {
      const body = await api<{ documents: T[]; checkpoint: { seq: number } | null }>(`/api/sync/${collection}/pull?seq=${seq}&limit=200`);
      out.push(...body.documents);
      if (!body.checkpoint || body.documents.length < 200) return out;
      seq = body.checkpoint.seq;
    }
  };

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 860 });
    ({ server, context, page } = suite);
  });

  afterAll(() => suite?.close());

  it('sells offline, survives a reload, and syncs every sale exactly once', { timeout: 240_000 }, async () => {
    /* The seeded demo catalog: what the test expects the register to charge. */
    const items: readonly Item[] = server.catalog.items;
    const taxRates = new Map<string, TaxRate>(server.catalog.taxRates.map((t) => [t.id, t]));
    const latte = items.find((i) => /latte/i.test(i.name) && i.modifierLists.length > 0);
    const retail = items.find((i) => i.modifierLists.length === 0 && i.variations.length === 1 && i.variations[0]?.gtin);
    const simple = items.find(
      (i) =>
        i !== retail &&
        i.modifierLists.length === 0 &&
        i.variations.length === 1 &&
        (i.variations[0]?.priceCents ?? 0) > 0 &&
        (i.variations[0]?.priceCents ?? 0) < 1500,
    );
    expect(latte, 'a latte with modifiers in the demo catalog').toBeDefined();
    expect(retail, 'a retail item with a GTIN in the demo catalog').toBeDefined();
    expect(simple, 'a plain item under $15 in the demo catalog').toBeDefined();
    if (!latte || !retail || !simple) return;

    // Size Large and oat milk, wherever the catalog models them (variation or modifier), every list satisfied.
    const wanted = /^(large|oat milk)$/i;
    const large = latte.variations.find((v) => /large/i.test(v.name)) ?? latte.variations[0]!;
    const latteModifiers: Modifier[] = [];
    for (const list of latte.modifierLists) {
      const picked = list.modifiers.filter((m) => wanted.test(m.name)).slice(0, list.maxSelected);
      const fill = list.modifiers.filter((m) => !picked.includes(m)).slice(0, Math.max(0, list.minSelected - picked.length));
      latteModifiers.push(...picked, ...fill);
    }
    expect(latteModifiers.map((m) => m.name.toLowerCase())).toEqual(expect.arrayContaining(['oat milk']));
    const latteUnit = large.priceCents + latteModifiers.reduce((a, m) => a + m.priceCents, 0);
    const retailVariation = retail.variations[0]!;
    const simpleVariation = simple.variations[0]!;
    const expected = [
      expectedTotal([{ item: latte, unitCents: latteUnit, quantity: 1 }], taxRates),
      expectedTotal([{ item: retail, unitCents: retailVariation.priceCents, quantity: 3 }], taxRates),
      expectedTotal([{ item: simple, unitCents: simpleVariation.priceCents, quantity: 1 }], taxRates),
    ];
    expect(expected[2]).toBeLessThan(2000);

    /* 1. Open the register online and wait until it has synced. */
    let register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    await register.waitForBadge('synced', 60_000);
    await expect(register.syncBadge.textContent()).resolves.toContain('Online');
    // The service worker has precached the app shell before we cut the network.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
    const ordersBefore = await listAll<ApiOrder>('/api/pos/orders');
    const journalsBefore = await listAll<ApiJournal>('/api/pos/ledger/journal-transactions');

    /* 2. Go offline. */
    await context.setOffline(true);
    await register.waitForBadge('offline');
    await expect(register.syncBadge.textContent()).resolves.toContain('Offline');

    const sold: { orderId: string; receiptNumber: string }[] = [];

    /* Sale 1: a latte, size Large, oat milk — through the modifier dialog. */
    await register.tapItem(latte.id);
    const dialog = register.itemDialog();
    await dialog.root.waitFor();
    if (latte.variations.length > 1) await dialog.choose(new RegExp(`^${large.name}`));
    await expect(dialog.addButton.isDisabled()).resolves.toBe(latte.modifierLists.some((l) => l.minSelected > 0));
    for (const m of latteModifiers) await dialog.choose(new RegExp(`^${m.name}`));
    await dialog.add();
    await expect(register.cartLine(latte.name).count()).resolves.toBe(1);
    await expect(register.cartTotalText()).resolves.toBe(dollars(expected[0]!));
    let tender = await register.charge();
    await tender.exact();
    let receipt = await tender.complete();
    await expect(receipt.root.textContent()).resolves.toContain('Not yet synced');
    sold.push({ orderId: await receipt.orderId(), receiptNumber: await receipt.receiptNumber() });
    register = await receipt.newSale();

    /* Sale 2: an unknown barcode is refused; the retail item by its GTIN, then + to quantity 3. */
    await register.scan('0000000000000');
    await expect(register.scanMessage.textContent()).resolves.toMatch(/No item with barcode/);
    await register.scan(retailVariation.gtin!);
    const retailLine = register.cartLine(retail.name);
    await retailLine.waitFor();
    await register.increaseQuantity(retail.name);
    await register.increaseQuantity(retail.name);
    await expect.poll(() => retailLine.getByTestId('line-quantity').inputValue(), { timeout: 10_000 }).toBe('3');
    await expect(register.cartTotalText()).resolves.toBe(dollars(expected[1]!));
    tender = await register.charge();
    await tender.exact();
    receipt = await tender.complete();
    sold.push({ orderId: await receipt.orderId(), receiptNumber: await receipt.receiptNumber() });
    register = await receipt.newSale();

    /* Sale 3: paid with a $20 note, change due shown live. */
    await register.tapItem(simple.id);
    await expect(register.cartTotalText()).resolves.toBe(dollars(expected[2]!));
    tender = await register.charge();
    await tender.tender('5');
    if (expected[2]! > 500) await expect(tender.completeButton.isDisabled()).resolves.toBe(true);
    await tender.tender('20');
    await expect(tender.changeDue.textContent()).resolves.toBe(dollars(2000 - expected[2]!));
    receipt = await tender.complete();
    await expect(receipt.root.getByTestId('receipt-change').textContent()).resolves.toBe(dollars(2000 - expected[2]!));
    sold.push({ orderId: await receipt.orderId(), receiptNumber: await receipt.receiptNumber() });
    await page.screenshot({ path: '/tmp/register-receipt.png' });
    register = await receipt.newSale();

    // Three orders wait to be synced (their journal transactions are derived by the server); receipt numbers follow each other.
    // …and the shift the register opened for them offline (the header counts every record kind).
    await register.waitForUnsynced(4);
    const sequences = sold.map((s) => Number(/-(\d+)$/.exec(s.receiptNumber)?.[1]));
    expect(sequences[1]).toBe(sequences[0]! + 1);
    expect(sequences[2]).toBe(sequences[1]! + 1);

    /* 3. Reload while still offline: the service worker opens the register, IndexedDB still has the sales. */
    await page.reload();
    register = new RegisterPage(page);
    await register.waitForCatalog();
    await register.waitForBadge('offline');
    const salesPage = await register.openSales();
    await salesPage.rows.nth(2).waitFor();
    const rows = await salesPage.list();
    expect(rows.map((r) => r.orderId).sort()).toEqual(sold.map((s) => s.orderId).sort());
    expect(rows.every((r) => r.sync === 'unsynced')).toBe(true);
    const totalsByOrder = new Map(sold.map((s, i) => [s.orderId, expected[i]!]));
    for (const row of rows) expect(row.total).toBe(dollars(totalsByOrder.get(row.orderId)!));
    await page.screenshot({ path: '/tmp/register.png' });

    /* 4. Back online: everything syncs. */
    await context.setOffline(false);
    await register.waitForUnsynced(0, 60_000);
    await register.waitForBadge('synced', 60_000);
    await page.locator('[data-testid="order-row"][data-sync="synced"]').nth(2).waitFor();
    const lastSync = Date.parse((await register.lastSync.getAttribute('data-time')) ?? '');
    expect(Date.now() - lastSync).toBeLessThan(60_000);

    /* 5. The server holds exactly those three orders, with the right totals and balanced journal transactions. */
    const ordersAfter = await listAll<ApiOrder>('/api/pos/orders');
    const beforeIds = new Set(ordersBefore.map((o) => o.id));
    const newOrders = ordersAfter.filter((o) => !beforeIds.has(o.id));
    expect(newOrders.map((o) => o.id).sort()).toEqual(sold.map((s) => s.orderId).sort());
    for (const order of newOrders) {
      expect(order.totalCents).toBe(totalsByOrder.get(order.id));
      expect(order.receiptNumber).toBe(sold.find((s) => s.orderId === order.id)?.receiptNumber);
      const journals = await listAll<ApiJournal>(`/api/pos/ledger/journal-transactions?sourceId=${encodeURIComponent(order.id)}`);
      expect(journals).toHaveLength(1);
      expect(journals[0]!.postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);
    }
    const journalsAfter = await listAll<ApiJournal>('/api/pos/ledger/journal-transactions');
    expect(journalsAfter.length).toBe(journalsBefore.length + 3);

    /* 6. The same three documents pushed again (a lost reply, a second tab…): nothing changes on the server. */
    const pulled = await pullAll<Record<string, unknown> & { id: string }>('orders');
    const again = pulled.filter((d) => totalsByOrder.has(d.id));
    expect(again).toHaveLength(3);
    const rowsToPush = again.map((doc) => {
      const { updatedAt: _u, syncSeq: _s, _deleted: _d, ...newDocumentState } = doc;
      return { newDocumentState };
    });
    const conflicts = await api<unknown[]>('/api/sync/orders/push', { body: rowsToPush });
    expect(Array.isArray(conflicts)).toBe(true);
    const ordersFinal = await listAll<ApiOrder>('/api/pos/orders');
    const journalsFinal = await listAll<ApiJournal>('/api/pos/ledger/journal-transactions');
    expect(ordersFinal.length).toBe(ordersAfter.length);
    expect(journalsFinal.length).toBe(journalsAfter.length);
    const byId = (list: ApiOrder[]) => list.filter((o) => totalsByOrder.has(o.id)).sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(ordersFinal)).toEqual(byId(ordersAfter));
  });
});
