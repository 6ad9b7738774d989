/**
 * The register's catalog index (renderer/src/register/sale/catalog-index.ts): codes through a Map, search
 * by word prefixes in catalog order, locale collation, and incremental updates (changed, added and removed items).
 */
import { describe, expect, it } from 'vitest';
import type { CatalogItem } from '../../core/index.ts';
import { CatalogIndex } from '../../renderer/src/register/sale/catalog-index.ts';

const item = (id: string, name: string, category: string, extra: Partial<CatalogItem['variations'][number]> = {}): CatalogItem => ({
  id: `itm_${id}`,
  name,
  category,
  kind: 'product',
  variations: [{ id: `var_${id}`, name: 'Regular', priceCents: 100, trackStock: false, ...extra }],
  modifierLists: [],
  taxRateIds: [],
});
const doc = (i: CatalogItem, revision = '1-a') => ({ id: i.id, revision, toJSON: () => i });

describe('CatalogIndex', () => {
  const coke = item('coke', 'Coca-Cola', 'Drinks', { gtin: '049000028911', sku: 'COKE-12' });
  const croissant = item('croissant', 'Butter croissant', 'Drinks');
  const creme = item('creme', 'Crème brûlée', 'Bakery', { sku: 'CB-1' });
  const ten = item('ten', 'Item 10', 'Bakery');
  const two = item('two', 'Item 2', 'Bakery');

  it('sorts by category then name with locale collation (accents, case, numbers)', () => {
    const index = new CatalogIndex();
    index.update([coke, croissant, creme, ten, two].map((i) => doc(i)));
    expect(index.items.map((i) => i.name)).toEqual(['Crème brûlée', 'Item 2', 'Item 10', 'Butter croissant', 'Coca-Cola']);
    expect(index.categoryNames).toEqual(['Bakery', 'Drinks']);
    expect(index.byCategory('Drinks').map((i) => i.name)).toEqual(['Butter croissant', 'Coca-Cola']);
  });

  it('finds a variation by GTIN (exact) or SKU (any case)', () => {
    const index = new CatalogIndex();
    index.update([coke, creme].map((i) => doc(i)));
    expect(index.findByCode(' 049000028911 ')?.item.id).toBe('itm_coke');
    expect(index.findByCode('coke-12')?.variation.id).toBe('var_coke');
    expect(index.findByCode('04900002891')).toBeUndefined();
  });

  it('searches by word prefixes, all words required, accents ignored, in catalog order', () => {
    const index = new CatalogIndex();
    index.update([coke, croissant, creme, ten, two].map((i) => doc(i)));
    expect(index.search('cr').map((i) => i.id)).toEqual(['itm_creme', 'itm_croissant']);
    expect(index.search('creme bru').map((i) => i.id)).toEqual(['itm_creme']);
    expect(index.search('item 1').map((i) => i.id)).toEqual(['itm_ten']);
    expect(index.search('0490').map((i) => i.id)).toEqual(['itm_coke']);
    expect(index.search('coke 12').map((i) => i.id)).toEqual(['itm_coke']);
    expect(index.search('drinks cola').map((i) => i.id)).toEqual(['itm_coke']);
    expect(index.search('zzz')).toEqual([]);
    expect(index.search('  ')).toBe(index.items);
    expect(index.search('item', index.byCategory('Drinks'))).toEqual([]);
  });

  it('follows changes incrementally: a changed, an added and a removed item', () => {
    const index = new CatalogIndex();
    expect(index.update([coke, croissant].map((i) => doc(i)))).toBe(true);
    const version = index.version;
    expect(index.update([coke, croissant].map((i) => doc(i)))).toBe(false);
    expect(index.version).toBe(version);
    const renamed = { ...coke, name: 'Pepsi', variations: [{ ...coke.variations[0]!, gtin: '012000001291' }] };
    expect(index.update([doc(renamed, '2-b'), doc(two)])).toBe(true);
    expect(index.search('coca')).toEqual([]);
    expect(index.search('pepsi').map((i) => i.id)).toEqual(['itm_coke']);
    expect(index.findByCode('049000028911')).toBeUndefined();
    expect(index.findByCode('012000001291')?.item.name).toBe('Pepsi');
    expect(index.search('butter')).toEqual([]);
    expect(index.search('item').map((i) => i.id)).toEqual(['itm_two']);
    expect(index.items.map((i) => i.id)).toEqual(['itm_two', 'itm_coke']);
  });

  it('answers a query typed a key at a time from the terms it has seen, and never from before a change', () => {
    const index = new CatalogIndex();
    index.update([coke, croissant, creme, ten, two].map((i) => doc(i)));
    // Keystroke by keystroke: the earlier terms' bitmaps are kept, and each answer is the full match.
    for (const [query, ids] of [
      ['i', ['itm_two', 'itm_ten']],
      ['it', ['itm_two', 'itm_ten']],
      ['item', ['itm_two', 'itm_ten']],
      ['item 1', ['itm_ten']],
      ['item 2', ['itm_two']],
      ['item 3', []],
      ['item', ['itm_two', 'itm_ten']],
    ] as const)
      expect(
        index.search(query).map((i) => i.id),
        query,
      ).toEqual(ids);
    // A rename, an addition and a removal each drop what was kept for the terms they touch.
    index.apply([doc({ ...two, name: 'Thing 2' }, '2-b')]);
    expect(index.search('item').map((i) => i.id)).toEqual(['itm_ten']);
    expect(index.search('thing 2').map((i) => i.id)).toEqual(['itm_two']);
    const eleven = item('eleven', 'Item 11', 'Bakery');
    index.apply([doc(eleven)]);
    expect(index.search('item 1').map((i) => i.id)).toEqual(['itm_ten', 'itm_eleven']);
    index.apply([], ['itm_ten']);
    expect(index.search('item 1').map((i) => i.id)).toEqual(['itm_eleven']);
  });

  it('answers the very same array when a keystroke finds the same items (a memoised grid then renders nothing)', () => {
    const index = new CatalogIndex();
    index.update([coke, croissant, creme, ten, two].map((i) => doc(i)));
    const ite = index.search('ite');
    expect(index.search('item')).toBe(ite);
    expect(index.search('item 1')).not.toBe(ite);
    const coc = index.search('coc', index.byCategory('Drinks'));
    expect(index.search('coca', index.byCategory('Drinks'))).toBe(coc);
    expect(index.search('coca', index.byCategory('Bakery'))).toEqual([]);
    // After a change, a new array even for the same items.
    index.apply([doc({ ...coke, name: 'Coke' }, '2-c')]);
    const after = index.search('item');
    expect(after).not.toBe(ite);
    expect(after).toEqual(ite);
  });

  it('applies a batch of changes without the whole collection (apply: upserts and removals)', () => {
    const index = new CatalogIndex();
    index.update([coke, croissant, creme].map((i) => doc(i)));
    expect(index.apply([doc(coke)], [])).toBe(false);
    expect(index.apply([doc({ ...coke, name: 'Pepsi' }, '2-b'), doc(two)], ['itm_croissant', 'itm_unknown'])).toBe(true);
    expect(index.size).toBe(3);
    expect(index.items.map((i) => i.id)).toEqual(['itm_creme', 'itm_two', 'itm_coke']);
    expect(index.search('pepsi').map((i) => i.id)).toEqual(['itm_coke']);
    expect(index.search('butter')).toEqual([]);
    expect(index.findByCode('049000028911')?.item.name).toBe('Pepsi');
  });

  it('keeps catalog order when a few of many items change (merged, not re-sorted)', () => {
    const index = new CatalogIndex();
    const many = Array.from({ length: 40 }, (_, n) => item(`n${n}`, `Thing ${n}`, n % 2 ? 'Odd' : 'Even'));
    index.update(many.map((i) => doc(i)));
    const moved = { ...many[3]!, name: 'Thing 0.5', category: 'Even' };
    const added = item('new', 'Thing 7.5', 'Odd');
    index.update([...many.filter((i) => i.id !== 'itm_n10').map((i) => (i.id === moved.id ? doc(moved, '2-x') : doc(i))), doc(added)]);
    const expected = [...many.filter((i) => i.id !== 'itm_n10' && i.id !== moved.id), moved, added].sort(
      (a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name, undefined, { numeric: true }),
    );
    expect(index.items.map((i) => i.id)).toEqual(expected.map((i) => i.id));
    expect(index.search('thing 0').map((i) => i.id)).toEqual(['itm_n0', 'itm_n3']);
  });
});
