/** The item editor's form state: variation drafts, rates in percent, the field paths it shows errors at. */
import { centsToInput } from '../common/cash.ts';
import type { ApiCatalogItem } from '../common/back-office-api.ts';
import { isModifierListPath } from './modifier-lists-editor.tsx';

export interface VariationDraft {
  key: string;
  id?: string;
  name: string;
  price: string;
  sku: string;
  gtin: string;
  trackStock: boolean;
}

let draftCounter = 0;
export const draftKey = () => `d${(draftCounter += 1)}`;

export function draftsOf(item: ApiCatalogItem | undefined, currency: string): VariationDraft[] {
  if (!item) return [{ key: draftKey(), name: 'Regular', price: '', sku: '', gtin: '', trackStock: false }];
  return item.variations.map((v) => ({
    key: v.id,
    id: v.id,
    name: v.name,
    price: centsToInput(v.priceCents, currency),
    sku: v.sku ?? '',
    gtin: v.gtin ?? '',
    trackStock: v.trackStock,
  }));
}

/** A rate in percent from basis points, with integer arithmetic: 875 → "8.75", 1000 → "10", 750 → "7.5". */
export function percentOf(basisPoints: number): string {
  const whole = Math.trunc(basisPoints / 100);
  const fraction = String(basisPoints % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** The paths of a problem body the editor shows next to a field (the rest go to the form message). */
export function isItemPath(path: string): boolean {
  return (
    path === 'name' ||
    path === 'category' ||
    path === 'description' ||
    path === 'kind' ||
    path === 'variations' ||
    /^variations\.\d+\.(name|priceCents|sku|gtin)$/.test(path) ||
    /^taxRateIds(\.\d+)?$/.test(path) ||
    isModifierListPath(path)
  );
}
