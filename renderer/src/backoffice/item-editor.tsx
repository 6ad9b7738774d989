/**
 * The item editor (a dialog): name, category, variations (name, price in dollars → integer cents, SKU, GTIN, stock
 * tracking); a generated picture (image API, credits shown, kept permanently before it is attached); stock on hand
 * per tracked variation with receive / adjust / count and a low-stock threshold.
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Dialog } from '../components/dialog.tsx';
import { centsToInput, parseCashInput } from '../sale/cash.ts';
import { errorMessage, imageIdOf, localPath, type ApiCatalogItem, type ItemInput, type StockLevel, type VariationInput } from './api.ts';
import { Field, formErrorsOf, NO_ERRORS, useApi, useCurrency, useFocusFirstError, useEscapeFromBody, type FormErrors } from './shared.tsx';

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
  return item.variations.map((v) => ({ key: v.id, id: v.id, name: v.name, price: centsToInput(v.priceCents, currency), sku: v.sku ?? '', gtin: v.gtin ?? '', trackStock: v.trackStock }));
}

interface ItemEditorProps {
  item: ApiCatalogItem | undefined;
  categories: string[];
  onSaved: (item: ApiCatalogItem) => void;
  onClose: () => void;
}

export function ItemEditor({ item, categories, onSaved, onClose }: ItemEditorProps) {
  const api = useApi();
  const currency = useCurrency();
  const formId = useId();
  const [current, setCurrent] = useState<ApiCatalogItem | undefined>(item);
  const [name, setName] = useState(item?.name ?? '');
  const [category, setCategory] = useState(item?.category ?? '');
  const [variations, setVariations] = useState<VariationDraft[]>(() => draftsOf(item, currency));
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
    if (Object.keys(local).length > 0) {
      setErrors({ fields: local });
      return;
    }
    const input: ItemInput = { name: name.trim(), category: category.trim(), variations: parsed };
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      const result = current ? await api.updateItem(current.id, input) : await api.createItem({ ...input, ...(pendingImage ? { imageUrl: pendingImage } : {}) });
      setCurrent(result);
      // Keep each row's React key so the focused input stays mounted (Escape and Enter keep working after a save).
      setVariations((prev) => draftsOf(result, currency).map((d, i) => ({ ...d, key: prev[i]?.key ?? d.key })));
      setSaved(true);
      onSaved(result);
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'name' || p === 'category' || /^variations\.\d+\.(name|priceCents|sku|gtin)$/.test(p) || p === 'variations'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      title={current ? `Edit ${current.name}` : 'New item'}
      onClose={onClose}
      wide
      footer={
        <>
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
            {(p) => <input {...p} className="bo-input" value={name} onChange={(e) => (setName(e.target.value), setSaved(false))} data-testid="item-name" data-autofocus required />}
          </Field>
          <Field id={`${formId}-category`} label="Category" error={errors.fields.category}>
            {(p) => (
              <>
                <input {...p} className="bo-input" list={`${formId}-categories`} value={category} onChange={(e) => (setCategory(e.target.value), setSaved(false))} data-testid="item-category" required />
                <datalist id={`${formId}-categories`}>
                  {categories.map((c) => (
                    <option key={c} value={c} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
        </div>

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
                {(p) => <input {...p} className="bo-input" value={v.name} onChange={(e) => setVariation(v.key, { name: e.target.value })} data-testid="variation-name" />}
              </Field>
              <Field id={`${formId}-v${v.key}-price`} label={`Price (${currency})`} error={errors.fields[`variations.${i}.priceCents`]}>
                {(p) => <input {...p} className="bo-input bo-money" inputMode="decimal" value={v.price} placeholder="0.00" onChange={(e) => setVariation(v.key, { price: e.target.value })} data-testid="variation-price" />}
              </Field>
              <Field id={`${formId}-v${v.key}-sku`} label="SKU" error={errors.fields[`variations.${i}.sku`]}>
                {(p) => <input {...p} className="bo-input" value={v.sku} onChange={(e) => setVariation(v.key, { sku: e.target.value })} data-testid="variation-sku" />}
              </Field>
              <Field id={`${formId}-v${v.key}-gtin`} label="GTIN (barcode)" error={errors.fields[`variations.${i}.gtin`]}>
                {(p) => <input {...p} className="bo-input" inputMode="numeric" value={v.gtin} onChange={(e) => setVariation(v.key, { gtin: e.target.value })} data-testid="variation-gtin" />}
              </Field>
              <label className="bo-check">
                <input type="checkbox" checked={v.trackStock} onChange={(e) => setVariation(v.key, { trackStock: e.target.checked })} data-testid="variation-track-stock" /> Track stock
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
          <button type="button" className="button" onClick={() => setVariations((list) => [...list, { key: draftKey(), name: '', price: '', sku: '', gtin: '', trackStock: false }])}>
            Add variation
          </button>
        </fieldset>
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

      {current && current.variations.some((v) => v.trackStock) ? <StockPanel item={current} onChanged={() => api.getItem(current.id).then(onSaved, () => undefined)} /> : null}
      {current && !current.variations.some((v) => v.trackStock) ? <p className="muted">Stock: tick “Track stock” on a variation and save to count its units.</p> : null}
    </Dialog>
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
function PicturePanel({ itemName, imageUrl, onAttach }: { itemName: string; imageUrl: string | undefined; onAttach: (url: string) => Promise<void> }) {
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
        {imageUrl ? <img className="bo-picture-current" src={localPath(imageUrl)} alt={`Current picture of ${itemName}`} data-testid="item-picture" /> : <div className="bo-picture-none muted">No picture</div>}
        <div className="bo-picture-actions">
          <button type="button" className="button" onClick={generate} disabled={busy || itemName.trim() === '' || balance === 0} data-testid="generate-picture">
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
                <button type="button" className="button button-primary" onClick={() => attach(state.url)} disabled={busy} data-testid="attach-picture">
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
      setError(kind === 'receive' ? 'Enter the units received (1 or more)' : kind === 'adjust' ? 'Enter a change like -2 or 3' : 'Enter the units counted (0 or more)');
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
      <input id={`${id}-amount`} className="bo-input bo-units" inputMode="numeric" placeholder="Units" value={amount} onChange={(e) => setAmount(e.target.value)} data-testid="stock-amount" />
      <button type="submit" className="button" disabled={busy} data-testid="stock-apply">
        Apply
      </button>
      <label className="bo-threshold">
        Alert at{' '}
        <input className="bo-input bo-units" inputMode="numeric" value={threshold} onChange={(e) => setThreshold(e.target.value)} onBlur={saveThreshold} data-testid="stock-threshold" />
      </label>
      {error ? (
        <span className="bo-field-error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}
