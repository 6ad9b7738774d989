/**
 * The item editor (a dialog): name, category, kind (product / service), description, variations (name, price in
 * dollars → integer cents, SKU, GTIN, stock tracking), the store's tax rates that apply, modifier lists
 * (modifier-lists-editor.tsx); a generated picture (image API, credits shown, kept permanently before it is attached);
 * stock on hand per tracked variation with receive / adjust / count and a low-stock threshold; and deleting the item
 * after an inline confirmation (item-delete.tsx; the picture in item-picture.tsx, stock in item-stock.tsx, the form
 * and its rules in item-drafts.ts). Each field is checked by the request body's own rule before it is sent; the
 * server's field errors show in place.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useMemo, useRef, useState } from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import type { TaxRate } from '../../../core/index.ts';
import { Dialog } from '../ui/dialog.tsx';
import { ApiError, type ApiCatalogItem, type ItemInput } from '../common/back-office-api.ts';
import { Field, useApi, useCurrency, useEscapeFromBody } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem } from '../common/forms.ts';
import { ModifierListsEditor, listError } from './modifier-lists-editor.tsx';
import { type ItemChecked, type ItemTyped, emptyVariation, itemForm, itemPaths, percentOf, valuesOf } from './item-drafts.ts';
import { DeleteItem } from './item-delete.tsx';
import { PicturePanel } from './item-picture.tsx';
import { StockPanel } from './item-stock.tsx';

interface ItemEditorProps {
  /**
   * The item to edit as the screen holds it (read again from the server at once), or `undefined` for a new item; after
   * a create the owner passes the created item (`onSaved`'s) so the editor goes on editing it.
   */
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
  const schema = useMemo(() => itemForm(currency), [currency]);
  const { register, control, handleSubmit, setError, setValue, getValues, watch, reset, formState } = useForm<ItemTyped, unknown, ItemChecked>({
    resolver: zodResolver(schema),
    defaultValues: valuesOf(item, currency, defaultTaxRateIds),
  });
  const variations = useFieldArray({ control, name: 'variations', keyName: 'fieldId' });
  // The item as the server last answered it: a query, read again after each save (the list is refetched by
  // `onSaved`'s owner). A new item has none until it is created.
  const itemId = item?.id;
  const itemQuery = useBackOfficeData('catalog-item', [itemId], (a) => a.getItem(itemId ?? ''), { initialData: item, enabled: itemId !== undefined });
  const current = itemQuery.data;
  const actions = useBackOfficeActions(['catalog-item']);
  useEscapeFromBody(onClose);
  // "Saved" until the form is changed again.
  const [saved, setSaved] = useState(false);
  const showSaved = saved && !formState.isDirty;
  const saving = formState.isSubmitting;
  // A picture chosen before a new item is saved goes with the create call.
  const [pendingImage, setPendingImage] = useState<string | undefined>();
  const taxBoxes = useRef<HTMLDivElement>(null);

  const name = watch('name');
  const rows = watch('variations');
  const taxRateIds = watch('taxRateIds');
  const toggleTaxRate = (id: string, on: boolean) => {
    const ids = getValues('taxRateIds');
    setValue('taxRateIds', on ? (ids.includes(id) ? ids : [...ids, id]) : ids.filter((x) => x !== id), { shouldDirty: true });
  };

  const onSubmit = handleSubmit(async ({ description, ...fields }) => {
    const sent = getValues();
    const input: ItemInput = fields;
    // A problem about the rates has no input of its own: focus goes to their first checkbox.
    const describe = (err: unknown) => {
      const message = showProblem(err, setError, itemPaths(sent));
      const first = err instanceof ApiError ? Object.keys(err.fieldErrors())[0] : undefined;
      if (first?.startsWith('taxRateIds')) taxBoxes.current?.querySelector('input')?.focus();
      return message;
    };
    const result = await actions.run(
      (a) =>
        current
          ? a.updateItem(current.id, { ...input, description: description ?? null })
          : a.createItem({ ...input, ...(description ? { description } : {}), ...(pendingImage ? { imageUrl: pendingImage } : {}) }),
      describe,
    );
    if (!result) return;
    // Each row keeps its React key, so the focused input stays mounted (Escape and Enter keep working after a save).
    reset(valuesOf(result, currency, [], sent));
    setSaved(true);
    onSaved(result);
  });

  const errors = formState.errors;

  // A problem about one listed rate (`taxRateIds.1`) shows with the checkboxes too.
  const taxError = listError(errors.taxRateIds) ?? (Array.isArray(errors.taxRateIds) ? errors.taxRateIds.find(Boolean)?.message : undefined);
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
          {showSaved ? (
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
      <form id={formId} className="bo-form" onSubmit={(e) => void onSubmit(e)} noValidate>
        {actions.error ? (
          <p className="form-error" role="alert" data-testid="item-form-error">
            {actions.error}
          </p>
        ) : null}
        <div className="bo-row">
          <Field id={`${formId}-name`} label="Name" error={errors.name?.message}>
            {(p) => <input {...p} className="bo-input" {...register('name')} data-testid="item-name" data-autofocus required />}
          </Field>
          <Field id={`${formId}-category`} label="Category" error={errors.category?.message}>
            {(p) => (
              <>
                <input {...p} className="bo-input" list={`${formId}-categories`} {...register('category')} data-testid="item-category" required />
                <datalist id={`${formId}-categories`}>
                  {categories.map((c) => (
                    <option key={c} value={c} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field id={`${formId}-kind`} label="Kind" error={errors.kind?.message} className="bo-field-narrow">
            {(p) => (
              <select {...p} className="bo-input" {...register('kind')} data-testid="item-kind">
                <option value="product">Product</option>
                <option value="service">Service</option>
              </select>
            )}
          </Field>
        </div>
        <Field id={`${formId}-description`} label="Description (optional)" error={errors.description?.message} className="bo-field-wide">
          {(p) => (
            <textarea {...p} className="bo-input bo-textarea" rows={2} maxLength={2000} {...register('description')} data-testid="item-description" />
          )}
        </Field>

        <fieldset className="bo-fieldset">
          <legend>Variations</legend>
          {listError(errors.variations) ? (
            <p className="bo-field-error" role="alert">
              {listError(errors.variations)}
            </p>
          ) : null}
          {variations.fields.map((v, i) => (
            <div className="bo-variation" key={v.key} data-testid="variation-row" data-variation-id={rows[i]?.id ?? ''}>
              <Field id={`${formId}-v${v.key}-name`} label="Variation" error={errors.variations?.[i]?.name?.message}>
                {(p) => <input {...p} className="bo-input" {...register(`variations.${i}.name`)} data-testid="variation-name" />}
              </Field>
              <Field id={`${formId}-v${v.key}-price`} label={`Price (${currency})`} error={errors.variations?.[i]?.priceCents?.message}>
                {(p) => (
                  <input
                    {...p}
                    className="bo-input bo-money"
                    inputMode="decimal"
                    placeholder="0.00"
                    {...register(`variations.${i}.priceCents`)}
                    data-testid="variation-price"
                  />
                )}
              </Field>
              <Field id={`${formId}-v${v.key}-sku`} label="SKU" error={errors.variations?.[i]?.sku?.message}>
                {(p) => <input {...p} className="bo-input" {...register(`variations.${i}.sku`)} data-testid="variation-sku" />}
              </Field>
              <Field id={`${formId}-v${v.key}-gtin`} label="GTIN (barcode)" error={errors.variations?.[i]?.gtin?.message}>
                {(p) => <input {...p} className="bo-input" inputMode="numeric" {...register(`variations.${i}.gtin`)} data-testid="variation-gtin" />}
              </Field>
              <label className="bo-check">
                <input type="checkbox" {...register(`variations.${i}.trackStock`)} data-testid="variation-track-stock" /> Track stock
              </label>
              <button
                type="button"
                className="button button-ghost"
                disabled={variations.fields.length <= 1}
                aria-label={`Remove variation ${rows[i]?.name || i + 1}`}
                onClick={() => variations.remove(i)}
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" className="button" onClick={() => variations.append(emptyVariation())}>
            Add variation
          </button>
        </fieldset>

        <fieldset className="bo-fieldset" aria-describedby={taxError ? taxErrorId : undefined} data-testid="item-tax-rates">
          <legend>Tax rates</legend>
          {taxRates.length === 0 && unknownRates.length === 0 ? <p className="muted bo-hint bo-flush">This store has no tax rates.</p> : null}
          <div className="bo-tax-rates" ref={taxBoxes}>
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

        <ModifierListsEditor idPrefix={formId} currency={currency} control={control} register={register} errors={errors} />
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
          await itemQuery.refresh();
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
