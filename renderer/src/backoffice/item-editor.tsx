/**
 * The item editor (a dialog): name, category, kind (product / service), description, variations (name, price in
 * dollars → integer cents, SKU, GTIN, stock tracking), the store's tax rates that apply, modifier lists
 * (modifier-lists-editor.tsx); a generated picture (image API, credits shown, kept permanently before it is attached);
 * stock on hand per tracked variation with receive / adjust / count and a low-stock threshold; and deleting the item
 * after an inline confirmation.
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ItemKind, TaxRate } from '../../../core/index.ts';
import { Dialog } from '../ui/dialog.tsx';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import {
  errorMessage,
  imageIdOf,
  localPath,
  type ApiCatalogItem,
  type ItemInput,
  type StockLevel,
  type VariationInput,
} from '../common/back-office-api.ts';
import { isModifierListPath, ModifierListsEditor, modifierListDrafts, parseModifierLists, type ModifierListDraft } from './modifier-lists-editor.tsx';
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

interface VariationDraft {
  key: string;
  id?: string;
  name: string;
  price: string;
  sku: string;
  gtin: string;
  trackStock: boolean;
}

let draftCounter = 0;
const draftKey = () => `d${(draftCounter += 1)}`;

function draftsOf(item: ApiCatalogItem | undefined, currency: string): VariationDraft[] {
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
function percentOf(basisPoints: number): string {
  const whole = Math.trunc(basisPoints / 100);
  const fraction = String(basisPoints % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** The paths of a problem body the editor shows next to a field (the rest go to the form message). */
function isItemPath(path: string): boolean {
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

/**
 * "Delete item…", confirmed inline: the button turns into "Really delete <name>? [Delete] [Keep]" (focus on Keep;
 * Escape there keeps the item and leaves the dialog open). Delete calls the API, then `onDeleted`.
 */
function DeleteItem({ item, onDeleted }: { item: ApiCatalogItem; onDeleted: () => void }) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const askRef = useRef<HTMLButtonElement>(null);
  const keepRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);

  // Focus follows the swap, so keyboard users never land on the page body.
  useEffect(() => {
    if (confirming) keepRef.current?.focus();
    else if (wasConfirming.current) askRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  const remove = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.deleteItem(item.id);
      onDeleted();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !busy) {
      event.stopPropagation();
      setConfirming(false);
    }
  };

  return (
    <div className="bo-delete" role="group" aria-label="Delete item" onKeyDown={confirming ? onKeyDown : undefined}>
      {confirming ? (
        <>
          <span className="bo-delete-question">Really delete {item.name}?</span>
          <button type="button" className="button bo-danger" onClick={remove} disabled={busy} data-testid="item-delete-confirm">
            {busy ? 'Deleting…' : 'Delete'}
          </button>
          <button
            ref={keepRef}
            type="button"
            className="button button-ghost"
            onClick={() => setConfirming(false)}
            disabled={busy}
            data-testid="item-delete-keep"
          >
            Keep
          </button>
        </>
      ) : (
        <button
          ref={askRef}
          type="button"
          className="button button-ghost bo-danger-ghost"
          onClick={() => setConfirming(true)}
          data-testid="item-delete"
        >
          Delete item…
        </button>
      )}
      {error ? (
        <span className="bo-field-error" role="alert" data-testid="item-delete-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}

type PictureState =
  | { phase: 'idle' }
  | { phase: 'generating' }
  | { phase: 'preview'; url: string }
  | { phase: 'attaching'; url: string }
  | { phase: 'attached' }
  | { phase: 'failed'; message: string };

/** "Generate picture": the image API with the item's name, a preview, then a permanent copy attached to the item. */
function PicturePanel({
  itemName,
  imageUrl,
  onAttach,
}: {
  itemName: string;
  imageUrl: string | undefined;
  onAttach: (url: string) => Promise<void>;
}) {
  const api = useApi();
  const [balance, setBalance] = useState<number | undefined>();
  const [state, setState] = useState<PictureState>({ phase: 'idle' });

  const refreshBalance = useCallback(
    () =>
      api.credits().then(
        (c) => setBalance(c.balance),
        () => undefined,
      ),
    [api],
  );
  useEffect(() => {
    void refreshBalance();
  }, [refreshBalance]);

  const generate = async () => {
    setState({ phase: 'generating' });
    try {
      const result = await api.generateImage(itemName.trim());
      const first = result.images[0];
      if (!first) throw new Error('The image API answered without an image.');
      setState({ phase: 'preview', url: first.url });
    } catch (err) {
      setState({ phase: 'failed', message: errorMessage(err) });
    } finally {
      void refreshBalance();
    }
  };

  const attach = async (url: string) => {
    setState({ phase: 'attaching', url });
    try {
      // A permanent copy: generated images are served for 7 days only (docs/images.md).
      const id = imageIdOf(url);
      const kept = id ? (await api.keepImage(id)).url : url;
      await onAttach(kept);
      setState({ phase: 'attached' });
    } catch (err) {
      setState({ phase: 'failed', message: errorMessage(err) });
    }
  };

  const busy = state.phase === 'generating' || state.phase === 'attaching';
  return (
    <section className="bo-panel" aria-labelledby="bo-picture-title">
      <div className="bo-panel-header">
        <h3 id="bo-picture-title">Picture</h3>
        <span className="muted">
          Credits: <span data-testid="credit-balance">{balance ?? '…'}</span>
        </span>
      </div>
      <div className="bo-picture">
        {imageUrl ? (
          <img className="bo-picture-current" src={localPath(imageUrl)} alt={`Current picture of ${itemName}`} data-testid="item-picture" />
        ) : (
          <div className="bo-picture-none muted">No picture</div>
        )}
        <div className="bo-picture-actions">
          <button
            type="button"
            className="button"
            onClick={generate}
            disabled={busy || itemName.trim() === '' || balance === 0}
            data-testid="generate-picture"
          >
            Generate picture
          </button>
          <p className="muted bo-hint">Uses 1 credit; made from the item name.</p>
          {state.phase === 'generating' ? (
            <p role="status" data-testid="picture-progress">
              <progress /> Generating a picture of “{itemName}”…
            </p>
          ) : null}
          {state.phase === 'preview' || state.phase === 'attaching' ? (
            <div className="bo-preview">
              <img src={localPath(state.url)} alt={`Generated picture of ${itemName}`} data-testid="picture-preview" />
              <div>
                <button
                  type="button"
                  className="button button-primary"
                  onClick={() => attach(state.url)}
                  disabled={busy}
                  data-testid="attach-picture"
                >
                  {state.phase === 'attaching' ? 'Attaching…' : 'Use this picture'}
                </button>
                <button type="button" className="button button-ghost" onClick={() => setState({ phase: 'idle' })} disabled={busy}>
                  Discard
                </button>
              </div>
            </div>
          ) : null}
          {state.phase === 'attached' ? (
            <p role="status" data-testid="picture-attached">
              Picture attached.
            </p>
          ) : null}
          {state.phase === 'failed' ? (
            <p className="form-error" role="alert" data-testid="picture-error">
              {state.message}
            </p>
          ) : null}
        </div>
      </div>
    </section>
  );
}

/** Stock on hand per tracked variation: receive, adjust or count, and a low-stock threshold. */
function StockPanel({ item, onChanged }: { item: ApiCatalogItem; onChanged: () => void }) {
  const api = useApi();
  const [levels, setLevels] = useState<StockLevel[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    api.inventory({ itemId: item.id }).then(
      (page) => current && setLevels(page.data),
      (err: unknown) => current && setError(errorMessage(err)),
    );
    return () => {
      current = false;
    };
  }, [api, item.id, item.updatedAt]);

  const replace = (updated: StockLevel[]) => setLevels((list) => list?.map((l) => updated.find((u) => u.variationId === l.variationId) ?? l));

  return (
    <section className="bo-panel" aria-labelledby="bo-stock-title">
      <h3 id="bo-stock-title">Stock on hand</h3>
      {error ? <p className="form-error">{error}</p> : null}
      {!levels && !error ? <p className="muted">Loading stock…</p> : null}
      {levels?.map((level) => (
        <StockRow
          key={level.variationId}
          level={level}
          onLevels={(updated) => {
            replace(updated);
            onChanged();
          }}
        />
      ))}
    </section>
  );
}

function StockRow({ level, onLevels }: { level: StockLevel; onLevels: (levels: StockLevel[]) => void }) {
  const api = useApi();
  const id = useId();
  const [kind, setKind] = useState<'receive' | 'adjust' | 'count'>('receive');
  const [amount, setAmount] = useState('');
  const [threshold, setThreshold] = useState(level.lowStockThreshold === null ? '' : String(level.lowStockThreshold));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const apply = async (event: FormEvent) => {
    event.preventDefault();
    const n = /^-?\d+$/.test(amount.trim()) ? Number(amount.trim()) : NaN;
    if (!Number.isSafeInteger(n) || (kind === 'receive' && n <= 0) || (kind === 'adjust' && n === 0) || (kind === 'count' && n < 0)) {
      setError(
        kind === 'receive'
          ? 'Enter the units received (1 or more)'
          : kind === 'adjust'
            ? 'Enter a change like -2 or 3'
            : 'Enter the units counted (0 or more)',
      );
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const result = await api.moveStock(kind, level.variationId, n);
      onLevels(result.levels);
      setAmount('');
    } catch (err) {
      setError(formErrorsOf(err, () => false).form);
    } finally {
      setBusy(false);
    }
  };

  const saveThreshold = async () => {
    const t = threshold.trim() === '' ? null : /^\d+$/.test(threshold.trim()) ? Number(threshold.trim()) : NaN;
    if (t !== null && !Number.isSafeInteger(t)) {
      setError('The alert level is a whole number of units (empty for none)');
      return;
    }
    if (t === level.lowStockThreshold) return;
    try {
      onLevels((await api.setThreshold(level.variationId, t)).data);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <form className="bo-stock-row" onSubmit={apply} data-testid="stock-row" data-variation-id={level.variationId}>
      <span className="bo-stock-name">{level.variationName}</span>
      <span className={level.isLow ? 'bo-on-hand bo-on-hand-low' : 'bo-on-hand'}>
        <span data-testid="stock-on-hand">{level.onHand}</span> on hand{level.isLow ? ' · low' : ''}
      </span>
      <label className="visually-hidden" htmlFor={`${id}-kind`}>
        Stock change for {level.variationName}
      </label>
      <select id={`${id}-kind`} className="bo-input" value={kind} onChange={(e) => setKind(e.target.value as typeof kind)} data-testid="stock-kind">
        <option value="receive">Receive</option>
        <option value="adjust">Adjust (±)</option>
        <option value="count">Count</option>
      </select>
      <label className="visually-hidden" htmlFor={`${id}-amount`}>
        Units
      </label>
      <input
        id={`${id}-amount`}
        className="bo-input bo-units"
        inputMode="numeric"
        placeholder="Units"
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        data-testid="stock-amount"
      />
      <button type="submit" className="button" disabled={busy} data-testid="stock-apply">
        Apply
      </button>
      <label className="bo-threshold">
        Alert at{' '}
        <input
          className="bo-input bo-units"
          inputMode="numeric"
          value={threshold}
          onChange={(e) => setThreshold(e.target.value)}
          onBlur={saveThreshold}
          data-testid="stock-threshold"
        />
      </label>
      {error ? (
        <span className="bo-field-error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}
