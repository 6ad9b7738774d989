import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogItem } from '../../core/index.ts';
import { openMutation } from '../../sync-server/src/kernel/mutation.ts';
import { recordStockChange } from '../../sync-server/src/workflows/stock-change.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

interface Level {
  variationId: string;
  onHand: number;
  lowStockThreshold: number | null;
  isLow: boolean;
  locationId: string;
}

describe.each(databaseTargets())('inventory on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister;
  let sequence = 0;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    register = await enrollRegister(server, server.credentials.staffToken);
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (
    method: 'GET' | 'POST',
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
  const level = async (variationId: string, locationId?: string): Promise<Level> => {
    const res = await call('GET', `/api/pos/catalog/inventory?variationId=${variationId}${locationId ? `&locationId=${locationId}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: Level[] }>().data[0]!;
  };
  const stockOnHand = async (itemId: string, variationId: string) => {
    const item = (await call('GET', `/api/pos/catalog/items/${itemId}`)).json<CatalogItem>();
    return item.variations.find((v) => v.id === variationId)!.stockOnHand;
  };
  const movementCount = async () => Number((await server.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM stock_movements')).rows[0]!.n);
  const pushSale = async (lines: Parameters<typeof buildSale>[0]['lines']) => {
    const { order } = buildSale({ register, sequence: ++sequence, catalog: server.catalog, lines });
    const res = await call('POST', '/api/sync/orders/push', [{ newDocumentState: order }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    return order;
  };

  it('starts from the demo stock as opening counts: on hand is the sum of movements', async () => {
    expect(await level('var_croissant_regular')).toMatchObject({ onHand: 24, lowStockThreshold: null, isLow: false });
    expect(await stockOnHand('itm_croissant', 'var_croissant_regular')).toBe(24);
    const movements = await call('GET', '/api/pos/catalog/inventory/movements?variationId=var_croissant_regular');
    expect(movements.json().data).toEqual([expect.objectContaining({ kind: 'count', quantity: 24, counted: 24, sourceId: 'seed:opening-stock' })]);
    // Untracked variations are not listed.
    const all = (await call('GET', '/api/pos/catalog/inventory?limit=200')).json<{ data: Level[] }>().data;
    expect(all.map((l) => l.variationId)).not.toContain('var_latte_regular');
    expect(all).toHaveLength(7);
  });

  it('receives, adjusts and counts stock; the catalog and the registers see the new stockOnHand', async () => {
    const seqBefore = Number((await server.db.query<{ n: number }>(`SELECT MAX(sync_seq) AS n FROM catalog_items`)).rows[0]!.n);
    const croissantEvents = async () =>
      Number(
        (
          await server.db.query<{ n: number | string }>(
            `SELECT COUNT(*) AS n FROM event_outbox WHERE type = 'catalog.updated' AND payload->'data'->'object'->>'id' = 'itm_croissant'`,
          )
        ).rows[0]!.n,
      );
    const eventsBefore = await croissantEvents();
    const received = await call(
      'POST',
      '/api/pos/catalog/inventory/receive',
      { lines: [{ variationId: 'var_croissant_regular', quantity: 12 }], note: 'Morning bake' },
      undefined,
      {
        'idempotency-key': 'bake-1',
      },
    );
    expect(received.statusCode, received.body).toBe(201);
    expect(received.json()).toMatchObject({
      movements: [{ kind: 'receive', quantity: 12, note: 'Morning bake' }],
      oversold: [],
      levels: [{ onHand: 36 }],
    });
    const replay = await call(
      'POST',
      '/api/pos/catalog/inventory/receive',
      { lines: [{ variationId: 'var_croissant_regular', quantity: 12 }], note: 'Morning bake' },
      undefined,
      {
        'idempotency-key': 'bake-1',
      },
    );
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await stockOnHand('itm_croissant', 'var_croissant_regular')).toBe(36);

    expect(
      (await call('POST', '/api/pos/catalog/inventory/adjust', { lines: [{ variationId: 'var_croissant_regular', quantity: -2 }], note: 'Dropped' }))
        .statusCode,
    ).toBe(201);
    const counted = await call('POST', '/api/pos/catalog/inventory/count', { lines: [{ variationId: 'var_croissant_regular', counted: 30 }] });
    expect(counted.json()).toMatchObject({ movements: [{ kind: 'count', quantity: -4, counted: 30 }], levels: [{ onHand: 30 }] });
    expect(await stockOnHand('itm_croissant', 'var_croissant_regular')).toBe(30);

    const pulled = await call('GET', `/api/sync/catalog-items/pull?seq=${seqBefore}`);
    const doc = pulled.json().documents.find((d: CatalogItem) => d.id === 'itm_croissant');
    expect(doc.variations[0].stockOnHand).toBe(30);
    expect(await croissantEvents()).toBe(eventsBefore + 3);
  });

  it('refuses bad stock requests naming the field, and writes nothing', async () => {
    const before = await movementCount();
    const cases: [string, unknown, string[]][] = [
      ['receive', { lines: [{ variationId: 'var_croissant_regular', quantity: 0 }] }, ['lines.0.quantity']],
      ['receive', { lines: [{ variationId: 'var_latte_regular', quantity: 1 }] }, ['lines.0.variationId']],
      [
        'receive',
        {
          lines: [
            { variationId: 'var_nope', quantity: 1 },
            { variationId: 'var_croissant_regular', quantity: 1 },
          ],
        },
        ['lines.0.variationId'],
      ],
      ['adjust', { lines: [{ variationId: 'var_croissant_regular', quantity: 0 }] }, ['lines.0.quantity']],
      ['count', { lines: [{ variationId: 'var_croissant_regular', counted: -1 }] }, ['lines.0.counted']],
      ['count', { lines: [{ variationId: 'var_croissant_regular', counted: 1 }], locationId: 'loc_01J00000000000000000000000' }, ['locationId']],
      ['count', { lines: [], extra: true }, ['lines', 'extra']],
    ];
    for (const [kind, body, paths] of cases) {
      const res = await call('POST', `/api/pos/catalog/inventory/${kind}`, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(
        res
          .json()
          .errors.map((e: { path: string }) => e.path)
          .sort(),
      ).toEqual([...paths].sort());
    }
    expect(
      (
        await call(
          'POST',
          '/api/pos/catalog/inventory/receive',
          { lines: [{ variationId: 'var_croissant_regular', quantity: 1 }] },
          server.credentials.appToken,
        )
      ).statusCode,
    ).toBe(403);
    expect(await movementCount()).toBe(before);
  });

  it('keeps stock per location', async () => {
    const created = await call('POST', '/api/pos/catalog/locations', { name: 'Back room' });
    expect(created.statusCode, created.body).toBe(201);
    const backRoom = created.json<{ id: string }>().id;
    expect((await call('POST', '/api/pos/catalog/locations', { name: 'back room' })).statusCode).toBe(409);
    await call('POST', '/api/pos/catalog/inventory/receive', {
      locationId: backRoom,
      lines: [{ variationId: 'var_snickers_bar_each', quantity: 100 }],
    });
    expect(await level('var_snickers_bar_each', backRoom)).toMatchObject({ onHand: 100, locationId: backRoom });
    expect(await level('var_snickers_bar_each')).toMatchObject({ onHand: 40 });
    expect(await stockOnHand('itm_snickers_bar', 'var_snickers_bar_each')).toBe(40);
    const locations = (await call('GET', '/api/pos/catalog/locations')).json<{ data: { name: string; isDefault: boolean }[] }>().data;
    expect(locations.map((l) => [l.name, l.isDefault])).toEqual([
      ['Main location', true],
      ['Back room', false],
    ]);
    // Cursor pagination like every list: one location a page, default first.
    const first = (await call('GET', '/api/pos/catalog/locations?limit=1')).json<{
      data: { id: string; name: string }[];
      nextCursor: string | null;
    }>();
    expect(first.data.map((l) => l.name)).toEqual(['Main location']);
    const second = (await call('GET', `/api/pos/catalog/locations?limit=1&cursor=${first.nextCursor}`)).json<{
      data: { id: string; name: string }[];
      nextCursor: string | null;
    }>();
    expect(second).toEqual({ data: [expect.objectContaining({ id: backRoom, name: 'Back room' })], nextCursor: null });
    expect((await call('GET', '/api/pos/catalog/locations?cursor=WyJsb2NfbWlzc2luZyJd')).statusCode).toBe(400);
  });

  it('register sales move stock once per order, and an oversell is reported, not refused', async () => {
    await pushSale([{ catalogItemId: 'itm_dasani_water', variationId: 'var_dasani_water_each', modifierIds: [], quantity: 3 }]);
    expect(await stockOnHand('itm_dasani_water', 'var_dasani_water_each')).toBe(27);

    // Two registers sell the last units offline: both sales sync, stock goes negative and the oversell is audited.
    await call('POST', '/api/pos/catalog/inventory/count', { lines: [{ variationId: 'var_dasani_water_each', counted: 2 }] });
    const first = await pushSale([{ catalogItemId: 'itm_dasani_water', variationId: 'var_dasani_water_each', modifierIds: [], quantity: 2 }]);
    const second = await pushSale([
      { catalogItemId: 'itm_dasani_water', variationId: 'var_dasani_water_each', modifierIds: [], quantity: 1 },
      { catalogItemId: 'itm_dasani_water', variationId: 'var_dasani_water_each', modifierIds: [], quantity: 1 },
      { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_small'], quantity: 1 },
    ]);
    expect(await level('var_dasani_water_each')).toMatchObject({ onHand: -2 });
    const oversold = await server.db.query<{ data: { oversold: unknown[] } }>(`SELECT data FROM audit_log WHERE action = 'inventory.oversold'`);
    expect(oversold.rows.map((r) => r.data.oversold)).toEqual([
      [{ variationId: 'var_dasani_water_each', locationId: expect.stringMatching(/^loc_/), onHand: -2 }],
    ]);
    const saleMovements = (await call('GET', `/api/pos/catalog/inventory/movements?sourceId=${second.id}`)).json().data;
    expect(saleMovements).toEqual([expect.objectContaining({ kind: 'sale', quantity: -2, variationId: 'var_dasani_water_each' })]);

    // Pushing the same order again changes nothing.
    const before = await movementCount();
    const again = await call('POST', '/api/sync/orders/push', [{ newDocumentState: first }]);
    expect(again.json()).toEqual([]);
    expect(await movementCount()).toBe(before);
  });

  it('lists what is at or below its low-stock threshold', async () => {
    const set = await call('POST', '/api/pos/catalog/inventory/thresholds', {
      thresholds: [
        { variationId: 'var_dasani_water_each', lowStockThreshold: 5 },
        { variationId: 'var_coca_cola_can_each', lowStockThreshold: 48 },
        { variationId: 'var_diet_coke_can_each', lowStockThreshold: 10 },
      ],
    });
    expect(set.statusCode, set.body).toBe(200);
    const low = (await call('GET', '/api/pos/catalog/inventory/low-stock')).json<{ data: Level[] }>().data;
    expect(low.map((l) => [l.variationId, l.onHand, l.lowStockThreshold])).toEqual([
      ['var_coca_cola_can_each', 48, 48],
      ['var_dasani_water_each', -2, 5],
    ]);
    await call('POST', '/api/pos/catalog/inventory/thresholds', { thresholds: [{ variationId: 'var_coca_cola_can_each', lowStockThreshold: null }] });
    const after = (await call('GET', '/api/pos/catalog/inventory/low-stock')).json<{ data: Level[] }>().data;
    expect(after.map((l) => l.variationId)).toEqual(['var_dasani_water_each']);
    const bad = await call('POST', '/api/pos/catalog/inventory/thresholds', {
      thresholds: [{ variationId: 'var_latte_regular', lowStockThreshold: 1 }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('thresholds.0.variationId');
  });

  it('recordStockChange (inventory movements + catalog re-stamp) is idempotent per (sourceId, variationId, kind) for other services', async () => {
    const system = { merchantId: server.credentials.merchantId, actor: 'system' };
    const first = await server.db.transaction(async (tx) =>
      recordStockChange(await openMutation(tx, system, new Date()), {
        movements: [
          { variationId: 'var_blueberry_muffin_regular', kind: 'return', quantity: 1, sourceId: 'rfd_TEST' },
          { variationId: 'var_unknown', kind: 'return', quantity: 1, sourceId: 'rfd_TEST' },
          { variationId: 'var_latte_regular', kind: 'return', quantity: 1, sourceId: 'rfd_TEST' },
        ],
      }),
    );
    expect(first.recorded).toHaveLength(1);
    expect(first.skipped).toEqual([
      { variationId: 'var_unknown', reason: 'unknown_variation' },
      { variationId: 'var_latte_regular', reason: 'not_tracked' },
    ]);
    expect(first.changedItemIds).toEqual(['itm_blueberry_muffin']);
    const second = await server.db.transaction(async (tx) =>
      recordStockChange(await openMutation(tx, system, new Date()), {
        movements: [{ variationId: 'var_blueberry_muffin_regular', kind: 'return', quantity: 1, sourceId: 'rfd_TEST' }],
      }),
    );
    expect(second).toMatchObject({ recorded: [], duplicates: 1, changedItemIds: [] });
    expect(await stockOnHand('itm_blueberry_muffin', 'var_blueberry_muffin_regular')).toBe(19);
    expect((await call('GET', '/api/pos/audit/verify')).json()).toMatchObject({ ok: true });
  });

  it('keeps the running stock levels equal to the sum of the movements after everything above', async () => {
    const { rows } = await server.db.query<{
      merchant_id: string;
      location_id: string;
      variation_id: string;
      summed: number | string;
      level: number | string | null;
    }>(
      `SELECT m.merchant_id, m.location_id, m.variation_id, SUM(m.quantity) AS summed, MAX(l.on_hand) AS level
         FROM stock_movements m LEFT JOIN stock_levels l USING (merchant_id, location_id, variation_id)
        GROUP BY m.merchant_id, m.location_id, m.variation_id`,
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect({ ...r, level: Number(r.level) }).toEqual({ ...r, level: Number(r.summed) });
    const extra = await server.db.query(
      'SELECT 1 FROM stock_levels l WHERE NOT EXISTS (SELECT 1 FROM stock_movements m WHERE m.merchant_id = l.merchant_id AND m.location_id = l.location_id AND m.variation_id = l.variation_id)',
    );
    expect(extra.rows).toHaveLength(0);
  });
});
