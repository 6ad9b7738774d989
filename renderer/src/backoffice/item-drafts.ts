/**
 * The item editor's form: what is typed (prices and min / max as text), each field checked by the rule of the same
 * field of the request body (core `catalogItemCreateSchema`, whose variations and modifier lists are the update body's
 * too), the lists as a whole by the body's list rules (two variations with one name, `minSelected` above
 * `maxSelected`), and the form's values of an item the server answered. Form field names are the body's paths
 * (`variations.0.priceCents`), so the server's field errors land on the field that was typed.
 */
import { z } from 'zod';
import type { Path } from 'react-hook-form';
import { catalogItemCreateSchema, modifierInputSchema, modifierListInputSchema, variationInputSchema } from '../../../core/index.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import type { ApiCatalogItem } from '../common/back-office-api.ts';
import { typed } from '../common/forms.ts';

let draftCounter = 0;
/** A React key for a row added in the editor (rows of the server keep theirs across saves). */
export const draftKey = () => `d${(draftCounter += 1)}`;

/** Checks a value by the body's rule of it (a list's issues keep their paths: `variations.1.name`). */
const checkedBy =
  <S extends z.ZodType>(rule: S) =>
  (value: unknown, ctx: z.RefinementCtx): z.output<S> => {
    const checked = rule.safeParse(value);
    if (checked.success) return checked.data;
    for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  };
/** Optional text of a body: empty (after trimming) is not sent. */
const optionalText = <S extends z.ZodType>(rule: S) =>
  z
    .string()
    .transform((text) => text.trim() || undefined)
    .transform(checkedBy(rule));
/** A row as the body takes it: without the React key. */
const withoutKey = <T extends { key: string }>({ key, ...row }: T): Omit<T, 'key'> => (void key, row);
/** Typed whole units (a modifier list's min / max), else `undefined`. */
const wholeNumber = (text: string): number | undefined => (/^\d{1,4}$/.test(text.trim()) ? Number(text.trim()) : undefined);

/**
 * The editor's form for a store in `currency`: each typed field is checked by the body's rule of that field, then the
 * variations and modifier lists by the body's rules of the whole list. Its output is the create body (less the
 * picture); `description` is `undefined` when it was left empty.
 *
 * @param currency the store's currency (how prices are typed)
 */
export function itemForm(currency: string) {
  const body = catalogItemCreateSchema.shape;
  const price = (message: string, rule: typeof variationInputSchema.shape.priceCents) =>
    typed((text) => parseCashInput(text, currency), message, rule);
  const v = variationInputSchema.shape;
  const variation = z
    .object({
      key: z.string(),
      id: v.id,
      name: v.name,
      priceCents: price('Enter a price like 4.50', v.priceCents),
      sku: optionalText(v.sku),
      gtin: optionalText(v.gtin),
      trackStock: z.boolean(),
    })
    .transform(withoutKey);
  const l = modifierListInputSchema.shape;
  const modifier = z
    .object({
      key: z.string(),
      id: modifierInputSchema.shape.id,
      name: modifierInputSchema.shape.name,
      priceCents: price('Enter a price like 0.50', modifierInputSchema.shape.priceCents),
    })
    .transform(withoutKey);
  const list = z
    .object({
      key: z.string(),
      id: l.id,
      name: l.name,
      minSelected: typed(wholeNumber, 'Enter a whole number like 0', l.minSelected),
      maxSelected: typed(wholeNumber, 'Enter a whole number like 1', l.maxSelected),
      modifiers: z.array(modifier),
    })
    .transform(withoutKey);
  return z.object({
    name: body.name,
    category: body.category,
    kind: body.kind,
    description: optionalText(body.description),
    variations: z.array(variation).transform(checkedBy(body.variations)),
    taxRateIds: z.array(z.string()).transform(checkedBy(body.taxRateIds)),
    modifierLists: z.array(list).transform(checkedBy(body.modifierLists)),
  });
}

/** What the editor's form holds: the body's fields as typed, and a React key per row. */
export type ItemTyped = z.input<ReturnType<typeof itemForm>>;
/** What the editor's form gives once every field passed: the item body (without picture). */
export type ItemChecked = z.output<ReturnType<typeof itemForm>>;
/** A variation row as typed. */
export type VariationTyped = ItemTyped['variations'][number];
/** A modifier list as typed. */
export type ModifierListTyped = ItemTyped['modifierLists'][number];
/** A modifier row as typed. */
export type ModifierTyped = ModifierListTyped['modifiers'][number];

/** A new variation row (the first of a new item is "Regular"). */
export const emptyVariation = (name = ''): VariationTyped => ({ key: draftKey(), name, priceCents: '', sku: '', gtin: '', trackStock: false });
/** A new modifier row. */
export const emptyModifier = (): ModifierTyped => ({ key: draftKey(), name: '', priceCents: '' });
/** A new modifier list: pick 0 … 1, one empty modifier. */
export const emptyModifierList = (): ModifierListTyped => ({
  key: draftKey(),
  name: '',
  minSelected: '0',
  maxSelected: '1',
  modifiers: [emptyModifier()],
});

/**
 * The form's values of `item` (a new item: one "Regular" variation and the store's default rates). With `previous`,
 * each row keeps the React key of the row at the same place, so a focused input stays mounted after a save.
 *
 * @param item the item as the server answered it, or `undefined` for a new one
 * @param currency the store's currency (prices shown as a cashier types them)
 * @param defaultTaxRateIds the rates a new item starts with
 * @param previous the form's values before the save
 */
export function valuesOf(
  item: ApiCatalogItem | undefined,
  currency: string,
  defaultTaxRateIds: readonly string[] = [],
  previous?: ItemTyped,
): ItemTyped {
  if (!item) {
    return {
      name: '',
      category: '',
      kind: 'product',
      description: '',
      variations: [emptyVariation('Regular')],
      taxRateIds: [...defaultTaxRateIds],
      modifierLists: [],
    };
  }
  return {
    name: item.name,
    category: item.category,
    kind: item.kind,
    description: item.description ?? '',
    variations: item.variations.map((v, i) => ({
      key: previous?.variations[i]?.key ?? v.id,
      id: v.id,
      name: v.name,
      priceCents: centsToInput(v.priceCents, currency),
      sku: v.sku ?? '',
      gtin: v.gtin ?? '',
      trackStock: v.trackStock,
    })),
    taxRateIds: [...item.taxRateIds],
    modifierLists: item.modifierLists.map((l, i) => {
      const before = previous?.modifierLists[i];
      return {
        key: before?.key ?? l.id,
        id: l.id,
        name: l.name,
        minSelected: String(l.minSelected),
        maxSelected: String(l.maxSelected),
        modifiers: l.modifiers.map((m, j) => ({
          key: before?.modifiers[j]?.key ?? m.id,
          id: m.id,
          name: m.name,
          priceCents: centsToInput(m.priceCents, currency),
        })),
      };
    }),
  };
}

/**
 * The paths of a problem body the editor shows next to a field, for the rows it holds (the rest go to the form
 * message).
 *
 * @param values the form's values when it was sent
 */
export function itemPaths(values: ItemTyped): Path<ItemTyped>[] {
  return [
    'name',
    'category',
    'description',
    'kind',
    'variations',
    ...values.variations.flatMap((_, i) => (['name', 'priceCents', 'sku', 'gtin'] as const).map((f): Path<ItemTyped> => `variations.${i}.${f}`)),
    'taxRateIds',
    ...values.taxRateIds.map((_, i): Path<ItemTyped> => `taxRateIds.${i}`),
    'modifierLists',
    ...values.modifierLists.flatMap((l, i) => [
      ...(['name', 'minSelected', 'maxSelected', 'modifiers'] as const).map((f): Path<ItemTyped> => `modifierLists.${i}.${f}`),
      ...l.modifiers.flatMap((_, j) => (['name', 'priceCents'] as const).map((f): Path<ItemTyped> => `modifierLists.${i}.modifiers.${j}.${f}`)),
    ]),
  ];
}

/** A rate in percent from basis points, with integer arithmetic: 875 → "8.75", 1000 → "10", 750 → "7.5". */
export function percentOf(basisPoints: number): string {
  const whole = Math.trunc(basisPoints / 100);
  const fraction = String(basisPoints % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
