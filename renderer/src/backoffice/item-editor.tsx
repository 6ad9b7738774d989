/**
 * The item editor (a dialog): name, category, kind (product / service), description, variations (name, price in
 * dollars → integer cents, SKU, GTIN, stock tracking), the store's tax rates that apply, modifier lists
 * (modifier-lists-editor.tsx); a generated picture (image API, credits shown, kept permanently before it is attached);
 * stock on hand per tracked variation with receive / adjust / count and a low-stock threshold; and deleting the item
 * after an inline confirmation (item-delete.tsx; the picture in item-picture.tsx, stock in item-stock.tsx, form state in
 * item-drafts.ts).
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import type { ItemKind, TaxRate } from '../../../core/index.ts';
import { Dialog } from '../ui/dialog.tsx';
import { parseCashInput } from '../common/cash.ts';
import type { ApiCatalogItem, ItemInput, VariationInput } from '../common/back-office-api.ts';
import { ModifierListsEditor, modifierListDrafts, parseModifierLists, type ModifierListDraft } from './modifier-lists-editor.tsx';
import {
  Field,
  formErrorsOf,
  NO_ERRORS,
  useApi,
  useCurrency,
  useFocusFirstError,
  useEscapeFromBody,
  type FormErrors,
} from '../common/back-office-kit.tsx';
import { type VariationDraft, draftKey, draftsOf, isItemPath, percentOf } from './item-drafts.ts';
import { DeleteItem } from './item-delete.tsx';
import { PicturePanel } from './item-picture.tsx';
import { StockPanel } from './item-stock.tsx';

interface ItemEditorProps {
  item: ApiCatalogItem | undefined;
  categories: string[];
  /** The store's tax rates (from the catalog list): one checkbox each. */
  taxRates: readonly TaxRate[];
  /** For a new item: the store's default tax rate, checked from the start (core `defaultTaxRateId`). */
  defaultTaxRateIds?: readonly string[];
  onSaved: (item: ApiCatalogItem) => void;
  /** The item was deleted (the editor closes itself right after). */
  onDeleted: (id: string) => void;
  onClose: () => void;
}

export function ItemEditor({ item, categories, taxRates, defaultTaxRateIds = [], onSaved, onDeleted, onClose }: ItemEditorProps) {
  const api = useApi();
  const currency = useCurrency();
  const formId = useId();
  const [current, setCurrent] = useState<ApiCatalogItem | undefined>(item);
  const [name, setName] = useState(item?.name ?? '');
  const [category, setCategory] = useState(item?.category ?? '');
  const [kind, setKind] = useState<ItemKind>(item?.kind ?? 'product');
  const [description, setDescription] = useState(item?.description ?? '');
  const [variations, setVariations] = useState<VariationDraft[]>(() => draftsOf(item, currency));
  const [taxRateIds, setTaxRateIds] = useState<string[]>(() => [...(item?.taxRateIds ?? defaultTaxRateIds)]);
  const [modifierLists, setModifierLists] = useState<ModifierListDraft[]>(() => modifierListDrafts(item?.modifierLists ?? [], currency));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstError(formRef, errors);
  useEscapeFromBody(onClose);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  // A picture chosen before a new item is saved goes with the create call.
  const [pendingImage, setPendingImage] = useState<string | undefined>();

  const setVariation = (key: string, patch: Partial<VariationDraft>) => {
    setSaved(false);
    setVariations((list) => list.map((v) => (v.key === key ? { ...v, ...patch } : v)));
  };
  const changeModifierLists = (update: (lists: ModifierListDraft[]) => ModifierListDraft[]) => {
    setSaved(false);
    setModifierLists(update);
  };
  const toggleTaxRate = (id: string, on: boolean) => {
    setSaved(false);
    setTaxRateIds((ids) => (on ? (ids.includes(id) ? ids : [...ids, id]) : ids.filter((x) => x !== id)));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    // Amounts are parsed from text into integer cents (never through a float); bad ones are caught here.
    const local: Record<string, string> = {};
    const parsed: VariationInput[] = variations.map((v, i) => {
      const cents = parseCashInput(v.price, currency);
      if (cents === undefined) local[`variations.${i}.priceCents`] = 'Enter a price like 4.50';
      return {
        ...(v.id ? { id: v.id } : {}),
        name: v.name.trim(),
        priceCents: cents ?? 0,
        ...(v.sku.trim() ? { sku: v.sku.trim() } : {}),
        ...(v.gtin.trim() ? { gtin: v.gtin.trim() } : {}),
        trackStock: v.trackStock,
      };
    });
    const lists = parseModifierLists(modifierLists, currency);
    Object.assign(local, lists.errors);
    if (Object.keys(local).length > 0) {
      setErrors({ fields: local });
      return;
    }
    const text = description.trim();
    const input: ItemInput = { name: name.trim(), category: category.trim(), kind, variations: parsed, modifierLists: lists.lists, taxRateIds };
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      const result = current
        ? await api.updateItem(current.id, { ...input, description: text === '' ? null : text })
        : await api.createItem({ ...input, ...(text ? { description: text } : {}), ...(pendingImage ? { imageUrl: pendingImage } : {}) });
      setCurrent(result);
      // Keep each row's React key so the focused input stays mounted (Escape and Enter keep working after a save).
      setVariations((prev) => draftsOf(result, currency).map((d, i) => ({ ...d, key: prev[i]?.key ?? d.key })));
      setModifierLists((prev) => modifierListDrafts(result.modifierLists, currency, prev));
      setTaxRateIds(result.taxRateIds);
      setKind(result.kind);
      setDescription(result.description ?? '');
      setSaved(true);
      onSaved(result);
    } catch (err) {
      setErrors(formErrorsOf(err, isItemPath));
    } finally {
      setSaving(false);
    }
  };

  // A problem about one listed rate (`taxRateIds.1`) shows with the checkboxes too.
  const taxError = errors.fields.taxRateIds ?? Object.entries(errors.fields).find(([p]) => /^taxRateIds\.\d+$/.test(p))?.[1];
  const taxErrorId = `${formId}-tax-error`;
  // A rate the item carries that the store no longer lists stays as a ticked box until it is unticked.
  const unknownRates = taxRateIds.filter((id) => !taxRates.some((r) => r.id === id));

  return (
    <Dialog
      title={current ? `Edit ${current.name}` : 'New item'}
      onClose={onClose}
      wide
      footer={
        <>
          {current ? (
            <DeleteItem
              item={current}
              onDeleted={() => {
                onDeleted(current.id);
                onClose();
              }}
            />
          ) : null}
          {saved ? (
            <span className="bo-saved" role="status" data-testid="item-saved">
              Saved
            </span>
          ) : null}
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" form={formId} className="button button-primary" disabled={saving} data-testid="item-save">
            {saving ? 'Saving…' : current ? 'Save changes' : 'Create item'}
          </button>
        </>
      }
    >
      <form ref={formRef} id={formId} className="bo-form" onSubmit={onSubmit} noValidate>
        {errors.form ? (
          <p className="form-error" role="alert" data-testid="item-form-error">
            {errors.form}
          </p>
        ) : null}
        <div className="bo-row">
          <Field id={`${formId}-name`} label="Name" error={errors.fields.name}>
            {(p) => (
              <input
                {...p}
                className="bo-input"
                value={name}
                onChange={(e) => (setName(e.target.value), setSaved(false))}
                data-testid="item-name"
                data-autofocus
                required
              />
            )}
          </Field>
          <Field id={`${formId}-category`} label="Category" error={errors.fields.category}>
            {(p) => (
              <>
                <input
                  {...p}
                  className="bo-input"
                  list={`${formId}-categories`}
                  value={category}
                  onChange={(e) => (setCategory(e.target.value), setSaved(false))}
                  data-testid="item-category"
                  required
                />
                <datalist id={`${formId}-categories`}>
                  {categories.map((c) => (
                    <option key={c} value={c} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field id={`${formId}-kind`} label="Kind" error={errors.fields.kind} className="bo-field-narrow">
            {(p) => (
              <select
                {...p}
                className="bo-input"
                value={kind}
                onChange={(e) => (setKind(e.target.value === 'service' ? 'service' : 'product'), setSaved(false))}
                data-testid="item-kind"
              >
                <option value="product">Product</option>
                <option value="service">Service</option>
              </select>
            )}
          </Field>
        </div>
        <Field id={`${formId}-description`} label="Description (optional)" error={errors.fields.description} className="bo-field-wide">
          {(p) => (
            <textarea
              {...p}
              className="bo-input bo-textarea"
              rows={2}
              maxLength={2000}
              value={description}
              onChange={(e) => (setDescription(e.target.value), setSaved(false))}
              data-testid="item-description"
            />
          )}
        </Field>

        <fieldset className="bo-fieldset">
          <legend>Variations</legend>
          {errors.fields.variations ? (
            <p className="bo-field-error" role="alert">
              {errors.fields.variations}
            </p>
          ) : null}
          {variations.map((v, i) => (
            <div className="bo-variation" key={v.key} data-testid="variation-row" data-variation-id={v.id ?? ''}>
              <Field id={`${formId}-v${v.key}-name`} label="Variation" error={errors.fields[`variations.${i}.name`]}>
                {(p) => (
                  <input
                    {...p}
                    className="bo-input"
                    value={v.name}
                    onChange={(e) => setVariation(v.key, { name: e.target.value })}
                    data-testid="variation-name"
                  />
                )}
              </Field>
              <Field id={`${formId}-v${v.key}-price`} label={`Price (${currency})`} error={errors.fields[`variations.${i}.priceCents`]}>
                {(p) => (
                  <input
                    {...p}
                    className="bo-input bo-money"
                    inputMode="decimal"
                    value={v.price}
                    placeholder="0.00"
                    onChange={(e) => setVariation(v.key, { price: e.target.value })}
                    data-testid="variation-price"
                  />
                )}
              </Field>
              <Field id={`${formId}-v${v.key}-sku`} label="SKU" error={errors.fields[`variations.${i}.sku`]}>
                {(p) => (
                  <input
                    {...p}
                    className="bo-input"
                    value={v.sku}
                    onChange={(e) => setVariation(v.key, { sku: e.target.value })}
                    data-testid="variation-sku"
                  />
                )}
              </Field>
              <Field id={`${formId}-v${v.key}-gtin`} label="GTIN (barcode)" error={errors.fields[`variations.${i}.gtin`]}>
                {(p) => (
                  <input
                    {...p}
                    className="bo-input"
                    inputMode="numeric"
                    value={v.gtin}
                    onChange={(e) => setVariation(v.key, { gtin: e.target.value })}
                    data-testid="variation-gtin"
                  />
                )}
              </Field>
              <label className="bo-check">
                <input
                  type="checkbox"
                  checked={v.trackStock}
                  onChange={(e) => setVariation(v.key, { trackStock: e.target.checked })}
                  data-testid="variation-track-stock"
                />{' '}
                Track stock
              </label>
              <button
                type="button"
                className="button button-ghost"
                disabled={variations.length <= 1}
                aria-label={`Remove variation ${v.name || i + 1}`}
                onClick={() => setVariations((list) => list.filter((x) => x.key !== v.key))}
              >
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            className="button"
            onClick={() => setVariations((list) => [...list, { key: draftKey(), name: '', price: '', sku: '', gtin: '', trackStock: false }])}
          >
            Add variation
          </button>
        </fieldset>

        <fieldset className="bo-fieldset" aria-describedby={taxError ? taxErrorId : undefined} data-testid="item-tax-rates">
          <legend>Tax rates</legend>
          {taxRates.length === 0 && unknownRates.length === 0 ? <p className="muted bo-hint bo-flush">This store has no tax rates.</p> : null}
          <div className="bo-tax-rates">
            {taxRates.map((rate) => (
              <label className="bo-check bo-tax-rate" key={rate.id}>
                <input
                  type="checkbox"
                  checked={taxRateIds.includes(rate.id)}
                  onChange={(e) => toggleTaxRate(rate.id, e.target.checked)}
                  aria-invalid={Boolean(taxError)}
                  aria-describedby={taxError ? taxErrorId : undefined}
                  data-testid="item-tax-rate"
                  data-tax-rate-id={rate.id}
                />
                {rate.name} {percentOf(rate.basisPoints)} %{rate.inclusive ? <span className="bo-tag">incl.</span> : null}
              </label>
            ))}
            {unknownRates.map((id) => (
              <label className="bo-check bo-tax-rate" key={id}>
                <input
                  type="checkbox"
                  checked
                  onChange={(e) => toggleTaxRate(id, e.target.checked)}
                  aria-invalid={Boolean(taxError)}
                  aria-describedby={taxError ? taxErrorId : undefined}
                  data-testid="item-tax-rate"
                  data-tax-rate-id={id}
                />
                <span className="muted">Removed rate {id}</span>
              </label>
            ))}
          </div>
          {taxError ? (
            <span className="bo-field-error" id={taxErrorId} role="alert" data-testid="field-error">
              {taxError}
            </span>
          ) : null}
        </fieldset>

        <ModifierListsEditor idPrefix={formId} currency={currency} lists={modifierLists} onChange={changeModifierLists} errors={errors.fields} />
      </form>

      <PicturePanel
        itemName={name || current?.name || ''}
        imageUrl={current ? current.imageUrl : pendingImage}
        onAttach={async (url) => {
          if (!current) {
            setPendingImage(url);
            return;
          }
          const updated = await api.updateItem(current.id, { imageUrl: url });
          setCurrent(updated);
          onSaved(updated);
        }}
      />

      {current && current.variations.some((v) => v.trackStock) ? (
        <StockPanel item={current} onChanged={() => api.getItem(current.id).then(onSaved, () => undefined)} />
      ) : null}
      {current && !current.variations.some((v) => v.trackStock) ? (
        <p className="muted">Stock: tick “Track stock” on a variation and save to count its units.</p>
      ) : null}
    </Dialog>
  );
}
