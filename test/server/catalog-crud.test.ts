import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogItemSchema, type CatalogItem } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Item = CatalogItem & { updatedAt: string };

describe.each(databaseTargets())('catalog item and tax rate editing on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    token = server.credentials.staffToken,
    headers: Record<string, string> = {},
  ) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const count = async (sql: string) => Number((await server.db.query<{ n: number | string }>(sql)).rows[0]!.n);
  const writes = async () => ({
    items: await count('SELECT COUNT(*) AS n FROM catalog_items'),
    seq: await count('SELECT COALESCE(MAX(sync_seq), 0) AS n FROM catalog_items'),
    events: await count(`SELECT COUNT(*) AS n FROM event_outbox WHERE type = 'catalog.updated'`),
    audit: await count('SELECT COUNT(*) AS n FROM audit_log'),
  });
  const pull = async (seq: number) => {
    const res = await call('GET', `/api/sync/catalog-items/pull?seq=${seq}&limit=100`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ documents: (Item & { _deleted: boolean; syncSeq: number })[] }>().documents;
  };

  const bagel = {
    name: 'Everything bagel',
    description: 'Baked every morning.',
    category: 'Bakery',
    variations: [
      { name: 'Plain', priceCents: 275, sku: 'BAK-BAGEL-PLAIN', gtin: '012345678905', trackStock: true },
      { name: 'With cream cheese', priceCents: 425 },
    ],
    modifierLists: [{ name: 'Toasting', minSelected: 0, maxSelected: 1, modifiers: [{ name: 'Toasted', priceCents: 0 }] }],
    taxRateIds: ['tax_sales'],
    imageUrl: 'http://localhost/api/v1/media/med_01J00000000000000000000000.png',
  };

  it('creates an item with server-assigned ids: registers pull it, it is audited and announced in one transaction', async () => {
    const before = await writes();
    const res = await call('POST', '/api/pos/catalog/items', bagel, undefined, { 'idempotency-key': 'bagel-1' });
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json<Item>();
    expect(catalogItemSchema.safeParse(item).success).toBe(true);
    expect(item).toMatchObject({
      name: 'Everything bagel',
      kind: 'product',
      category: 'Bakery',
      taxRateIds: ['tax_sales'],
      imageUrl: bagel.imageUrl,
    });
    expect(item.id).toMatch(/^itm_[0-9A-Z]{26}$/);
    expect(item.variations.map((v) => [v.name, v.priceCents, v.trackStock, v.stockOnHand])).toEqual([
      ['Plain', 275, true, 0],
      ['With cream cheese', 425, false, undefined],
    ]);
    expect(item.modifierLists[0]!.modifiers[0]!.id).toMatch(/^mod_/);

    const after = await writes();
    expect(after).toMatchObject({ items: before.items + 1, events: before.events + 1, audit: before.audit + 1 });
    const docs = await pull(before.seq);
    expect(docs.map((d) => d.id)).toEqual([item.id]);
    expect(docs[0]).toMatchObject({ _deleted: false, name: 'Everything bagel' });
    const event = (
      await server.db.query<{ payload: { data: { object: Record<string, unknown> } } }>(
        `SELECT payload FROM event_outbox WHERE type = 'catalog.updated' ORDER BY seq DESC LIMIT 1`,
      )
    ).rows[0]!;
    expect(event.payload.data.object).toMatchObject({ id: item.id, name: 'Everything bagel', deleted: false });

    const replay = await call('POST', '/api/pos/catalog/items', bagel, undefined, { 'idempotency-key': 'bagel-1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(item);
    expect(await writes()).toEqual(after);

    const got = await call('GET', `/api/pos/catalog/items/${item.id}`, undefined, server.credentials.appToken);
    expect(got.json()).toEqual(item);
  });

  it('refuses bad input with a problem naming each field, and writes nothing', async () => {
    const before = await writes();
    const cases: [unknown, string[]][] = [
      [{ ...bagel, price: 5 }, ['price']],
      [{ ...bagel, name: '', variations: [] }, ['name', 'variations']],
      [
        {
          ...bagel,
          variations: [
            { name: 'A', priceCents: 1.5 },
            { name: 'B', priceCents: -1 },
          ],
        },
        ['variations.0.priceCents', 'variations.1.priceCents'],
      ],
      [
        {
          ...bagel,
          variations: [
            { name: 'A', priceCents: 100 },
            { name: 'a', priceCents: 100 },
          ],
        },
        ['variations.1.name'],
      ],
      [{ ...bagel, variations: [{ name: 'A', priceCents: 100, gtin: '012345678901' }] }, ['variations.0.gtin']],
      [{ ...bagel, imageUrl: 'javascript:alert(1)' }, ['imageUrl']],
      [{ ...bagel, variations: [{ name: 'A', priceCents: 100 }], taxRateIds: ['tax_nope'] }, ['taxRateIds.0']],
      [{ ...bagel, variations: [{ name: 'A', priceCents: 100, sku: 'RTL-SNICKERS_BAR' }] }, ['variations.0.sku']],
      [{ ...bagel, variations: [{ id: 'var_mine', name: 'A', priceCents: 100 }] }, ['variations.0.id']],
      [{ ...bagel, variations: [{ name: 'A', priceCents: 100, stockOnHand: 5 }] }, ['variations.0.stockOnHand']],
    ];
    for (const [body, paths] of cases) {
      const res = await call('POST', '/api/pos/catalog/items', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(
        res
          .json()
          .errors.map((e: { path: string }) => e.path)
          .sort(),
        JSON.stringify(body),
      ).toEqual([...paths].sort());
    }
    expect(await writes()).toEqual(before);
  });

  it('is staff-only for writes; apps with catalog:read may read', async () => {
    const res = await call('POST', '/api/pos/catalog/items', bagel, server.credentials.appToken);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('staff_only');
    expect((await call('PATCH', '/api/pos/catalog/items/itm_latte', { name: 'x' }, server.credentials.appToken)).statusCode).toBe(403);
    expect((await call('DELETE', '/api/pos/catalog/items/itm_latte', undefined, server.credentials.appToken)).statusCode).toBe(403);
    expect((await call('GET', '/api/pos/catalog/items/itm_latte', undefined, server.credentials.appToken)).statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/catalog/items/itm_latte' })).statusCode).toBe(401);
  });

  it('updates fields, keeps ids of variations sent back, and writes nothing when nothing changes', async () => {
    const latte = (await call('GET', '/api/pos/catalog/items/itm_latte')).json<Item>();
    const before = await writes();
    const res = await call('PATCH', '/api/pos/catalog/items/itm_latte', {
      description: null,
      variations: [
        { id: 'var_latte_regular', name: 'Regular', priceCents: 475 },
        { name: 'Iced', priceCents: 525 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json<Item>();
    expect(updated.description).toBeUndefined();
    expect(updated.variations.map((v) => [v.id.startsWith('var_latte_regular') || v.id.length === 30, v.name, v.priceCents])).toEqual([
      [true, 'Regular', 475],
      [true, 'Iced', 525],
    ]);
    expect(updated.variations[0]!.id).toBe('var_latte_regular');
    expect(updated.modifierLists).toEqual(latte.modifierLists);
    const docs = await pull(before.seq);
    expect(docs.map((d) => d.id)).toEqual(['itm_latte']);

    const mid = await writes();
    const same = await call('PATCH', '/api/pos/catalog/items/itm_latte', { name: 'Latte' });
    expect(same.statusCode).toBe(200);
    expect(await writes()).toEqual(mid);

    const bad = await call('PATCH', '/api/pos/catalog/items/itm_latte', { variations: [{ id: 'var_espresso_single', name: 'X', priceCents: 1 }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('variations.0.id');
    expect((await call('PATCH', '/api/pos/catalog/items/itm_latte', {})).statusCode).toBe(400);
    expect((await call('PATCH', '/api/pos/catalog/items/itm_nope', { name: 'x' })).statusCode).toBe(404);
    expect(await writes()).toEqual(mid);
  });

  it('soft-deletes: gone from the API and lists, pulled by registers as _deleted', async () => {
    const before = await writes();
    const since = new Date(Date.now() - 1000).toISOString();
    const res = await call('DELETE', '/api/pos/catalog/items/itm_beard_trim');
    expect(res.statusCode).toBe(204);
    // An app syncing with updatedSince learns of the deletion only when it asks for tombstones.
    const app = server.credentials.appToken;
    const changed = (await call('GET', `/api/pos/catalog?updatedSince=${since}&limit=200`, undefined, app)).json<{ data: Item[] }>().data;
    expect(changed.map((i) => i.id)).not.toContain('itm_beard_trim');
    const withTombstones = (await call('GET', `/api/pos/catalog?updatedSince=${since}&includeDeleted=true&limit=200`, undefined, app)).json<{
      data: (Item & { deleted: boolean })[];
    }>().data;
    expect(withTombstones.find((i) => i.id === 'itm_beard_trim')).toMatchObject({ id: 'itm_beard_trim', deleted: true });
    expect(withTombstones.filter((i) => i.id !== 'itm_beard_trim').every((i) => i.deleted === false)).toBe(true);
    expect((await call('GET', '/api/pos/catalog?includeDeleted=yes', undefined, app)).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/catalog/items/itm_beard_trim')).statusCode).toBe(404);
    expect((await call('DELETE', '/api/pos/catalog/items/itm_beard_trim')).statusCode).toBe(404);
    const list = (await call('GET', '/api/pos/catalog?category=Salon')).json<{ data: Item[] }>();
    expect(list.data.map((i) => i.id).sort()).toEqual(['itm_blow_dry', 'itm_haircut']);
    const docs = await pull(before.seq);
    expect(docs).toEqual([expect.objectContaining({ id: 'itm_beard_trim', _deleted: true })]);
    const event = (
      await server.db.query<{ payload: { data: { object: Record<string, unknown> } } }>(`SELECT payload FROM event_outbox ORDER BY seq DESC LIMIT 1`)
    ).rows[0]!;
    expect(event.payload.data.object).toMatchObject({ id: 'itm_beard_trim', deleted: true });
    const categories = (await call('GET', '/api/pos/catalog/categories', undefined, server.credentials.appToken)).json<{
      data: { name: string; itemCount: number }[];
    }>();
    expect(categories.data.find((c) => c.name === 'Salon')).toEqual({ name: 'Salon', itemCount: 2 });
  });

  it('lists categories page by page and renames one on every item (merging into an existing one), for registers and apps', async () => {
    const pages: { name: string; itemCount: number }[][] = [];
    let cursor: string | null = null;
    do {
      const res = await call(
        'GET',
        `/api/pos/catalog/categories?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        server.credentials.appToken,
      );
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<{ data: { name: string; itemCount: number }[]; nextCursor: string | null }>();
      pages.push(page.data);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 50);
    const all = pages.flat();
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    const whole = (await call('GET', '/api/pos/catalog/categories?limit=200')).json<{
      data: { name: string; itemCount: number }[];
      nextCursor: string | null;
    }>();
    expect(whole.nextCursor).toBeNull();
    expect(all).toEqual(whole.data);
    expect(new Set(all.map((c) => c.name)).size).toBe(all.length);

    const salon = all.find((c) => c.name === 'Salon')!;
    const before = await writes();
    const renamed = await call('PATCH', '/api/pos/catalog/categories/Salon', { name: '  Hair salon ' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Hair salon', itemCount: salon.itemCount });
    expect(renamed.json().itemIds).toHaveLength(salon.itemCount);
    const after = await writes();
    expect(after.events - before.events).toBe(salon.itemCount);
    expect(after.audit - before.audit).toBe(salon.itemCount);
    expect((await pull(before.seq)).map((d) => [d.id, d.category]).sort()).toEqual(
      renamed
        .json()
        .itemIds.map((id: string) => [id, 'Hair salon'])
        .sort(),
    );
    expect((await call('GET', '/api/pos/catalog?category=salon')).json().data).toEqual([]);
    expect((await call('GET', '/api/pos/catalog?category=hair%20salon')).json().data).toHaveLength(salon.itemCount);

    // Into an existing category: its items join it; the old name is gone from the list.
    const target = all.find((c) => c.name !== 'Salon')!;
    const merged = await call('PATCH', `/api/pos/catalog/categories/${encodeURIComponent('Hair salon')}`, { name: target.name });
    expect(merged.json()).toMatchObject({ name: target.name, itemCount: target.itemCount + salon.itemCount });
    const names = (await call('GET', '/api/pos/catalog/categories?limit=200')).json<{ data: { name: string }[] }>().data.map((c) => c.name);
    expect(names).not.toContain('Hair salon');

    // Refusals: unknown category 404, bad names 400 naming the field, apps 403, nothing written.
    const quiet = await writes();
    expect((await call('PATCH', '/api/pos/catalog/categories/Nope', { name: 'X' })).statusCode).toBe(404);
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'Ok', extra: 1 }, { name: 5 }]) {
      const res = await call('PATCH', `/api/pos/catalog/categories/${encodeURIComponent(target.name)}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(
      (await call('PATCH', `/api/pos/catalog/categories/${encodeURIComponent(target.name)}`, { name: 'Y' }, server.credentials.appToken)).statusCode,
    ).toBe(403);
    expect((await call('GET', '/api/pos/catalog/categories?cursor=not-a-cursor')).statusCode).toBe(400);
    expect(await writes()).toEqual(quiet);
  });

  it('manages tax rates: create, change, refuse deleting one in use', async () => {
    const created = await call('POST', '/api/pos/catalog/tax-rates', { name: 'VAT', basisPoints: 2000, inclusive: true });
    expect(created.statusCode, created.body).toBe(201);
    const vat = created.json<{ id: string; basisPoints: number }>();
    expect(vat.id).toMatch(/^tax_/);
    const rates = await call('GET', '/api/sync/tax-rates/pull?seq=0');
    expect(rates.json().documents.map((d: { id: string }) => d.id)).toContain(vat.id);

    const mixed = await call('PATCH', '/api/pos/catalog/items/itm_haircut', { taxRateIds: ['tax_sales', vat.id] });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().errors[0].path).toBe('taxRateIds');
    expect((await call('PATCH', '/api/pos/catalog/items/itm_haircut', { taxRateIds: [vat.id] })).statusCode).toBe(200);

    const inUse = await call('DELETE', `/api/pos/catalog/tax-rates/${vat.id}`);
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json().code).toBe('tax_rate_in_use');
    expect((await call('PATCH', `/api/pos/catalog/tax-rates/${vat.id}`, { basisPoints: 1900 })).json().basisPoints).toBe(1900);
    expect((await call('PATCH', `/api/pos/catalog/tax-rates/${vat.id}`, { basisPoints: -1 })).statusCode).toBe(400);
    expect((await call('PATCH', '/api/pos/catalog/items/itm_haircut', { taxRateIds: [] })).statusCode).toBe(200);
    expect((await call('DELETE', `/api/pos/catalog/tax-rates/${vat.id}`)).statusCode).toBe(204);
    const list = (await call('GET', '/api/pos/catalog')).json<{ taxRates: { id: string }[] }>();
    expect(list.taxRates.map((r) => r.id)).toEqual(['tax_sales']);
  });

  it('keeps the audit chain intact', async () => {
    const res = await call('GET', '/api/pos/audit/verify');
    expect(res.json()).toMatchObject({ ok: true });
  });
});
