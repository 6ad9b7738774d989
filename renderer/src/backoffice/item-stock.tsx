/** The item editor's stock section: on hand per tracked variation, receive / adjust / count, low-stock threshold. */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage, type ApiCatalogItem, type StockLevel } from '../common/back-office-api.ts';
import { formErrorsOf, useApi } from '../common/back-office-kit.tsx';

/** Stock on hand per tracked variation: receive, adjust or count, and a low-stock threshold. */
export function StockPanel({ item, onChanged }: { item: ApiCatalogItem; onChanged: () => void }) {
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
