import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogItemSchema, taxRateSchema, type CatalogItem } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Page = { data: (CatalogItem & { updatedAt: string })[]; taxRates: unknown[]; nextCursor: string | null };

describe.each(databaseTargets())('catalog API on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
  });
  afterAll(async () => {
    await server?.close();
  });

  const list = async (query: string, token = server.credentials.appToken) => {
    const res = await server.app.inject({ method: 'GET', url: `/api/pos/catalog${query}`, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Page>();
  };

  it('pages through the whole catalog with opaque cursors, each item in the core shape', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list(`?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(4);
      for (const item of page.data) expect(catalogItemSchema.safeParse(item).success, item.id).toBe(true);
      for (const rate of page.taxRates) expect(taxRateSchema.safeParse(rate).success).toBe(true);
      seen.push(...page.data.map((i) => i.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.ceil(server.catalog.items.length / 4));
    expect([...seen].sort()).toEqual(server.catalog.items.map((i) => i.id).sort());
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('default page of 50 holds everything and says there is no next page', async () => {
    const page = await list('');
    expect(page.data).toHaveLength(server.catalog.items.length);
    expect(page.nextCursor).toBeNull();
    expect(page.taxRates).toEqual([expect.objectContaining({ id: 'tax_sales', basisPoints: 875, inclusive: false })]);
  });

  it('filters by category, text (name, sku, barcode) and updatedSince', async () => {
    expect((await list('?category=Salon')).data.map((i) => i.id).sort()).toEqual(['itm_beard_trim', 'itm_blow_dry', 'itm_haircut']);
    expect((await list('?q=latte')).data.map((i) => i.id)).toEqual(['itm_latte']);
    expect((await list('?q=049000028911')).data.map((i) => i.id)).toEqual(['itm_coca_cola_can']);
    expect((await list('?q=RTL-SNICKERS')).data.map((i) => i.id)).toEqual(['itm_snickers_bar']);
    expect((await list('?q=%25')).data).toEqual([]);
    expect((await list('?updatedSince=2000-01-01T00:00:00Z')).data).toHaveLength(server.catalog.items.length);
    expect((await list('?updatedSince=2999-01-01T00:00:00Z')).data).toEqual([]);
  });

  it('rejects bad query parameters with a problem naming them', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/pos/catalog?updatedSince=yesterday&limit=500',
      headers: { authorization: `Bearer ${server.credentials.appToken}` },
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['limit', 'updatedSince']);
  });
});
