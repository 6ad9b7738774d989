/**
 * The item editor's stock section: on hand per tracked variation, receive / adjust / count, low-stock threshold. The
 * levels are a query (refetched after each change made here); each row's units and alert level are checked with the
 * request bodies' own rules (core `stockReceiveSchema`, `stockAdjustSchema`, `stockCountSchema`,
 * `stockThresholdsSchema`) before a request is sent.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { stockAdjustSchema, stockCountSchema, stockReceiveSchema, stockThresholdsSchema } from '../../../core/index.ts';
import { errorMessage, type ApiCatalogItem, type StockLevel } from '../common/back-office-api.ts';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem, typed } from '../common/forms.ts';

/** Stock on hand per tracked variation: receive, adjust or count, and a low-stock threshold. */
export function StockPanel({ item, onChanged }: { item: ApiCatalogItem; onChanged: () => void }) {
  // Keyed by the tracked variations too: ticking "Track stock" on another one and saving reads the levels again.
  const tracked = item.variations
    .filter((v) => v.trackStock)
    .map((v) => v.id)
    .join(',');
  const stock = useBackOfficeData('stock', [item.id, tracked], (api) => api.inventory({ itemId: item.id }));
  const levels = stock.data?.data;

  return (
    <section className="bo-panel" aria-labelledby="bo-stock-title">
      <h3 id="bo-stock-title">Stock on hand</h3>
      {stock.error ? <p className="form-error">{errorMessage(stock.error)}</p> : null}
      {!levels && !stock.error ? <p className="muted">Loading stock…</p> : null}
      {levels?.map((level) => (
        <StockRow key={level.variationId} level={level} onChanged={onChanged} />
      ))}
    </section>
  );
}

/** Typed units: a whole number, signed (`-2`), else `undefined`. */
const unitsOf = (text: string) => (/^\s*-?\d{1,9}\s*$/.test(text) ? Number(text) : undefined);
/** A typed alert level: empty for none (`null`), else whole units; `undefined` when it is neither. */
const thresholdOf = (text: string) => (text.trim() === '' ? null : /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : undefined);

/** The units of each kind of change, checked by the rule of its request body's line. */
const moveForm = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('receive'),
    amount: typed(unitsOf, 'Enter the units received (1 or more)', stockReceiveSchema.shape.lines.element.shape.quantity),
  }),
  z.object({
    kind: z.literal('adjust'),
    amount: typed(unitsOf, 'Enter a change like -2 or 3', stockAdjustSchema.shape.lines.element.shape.quantity),
  }),
  z.object({
    kind: z.literal('count'),
    amount: typed(unitsOf, 'Enter the units counted (0 or more)', stockCountSchema.shape.lines.element.shape.counted),
  }),
]);
type MoveTyped = z.input<typeof moveForm>;
/** The alert level, checked by the rule of the thresholds body's line. */
const thresholdForm = z.object({
  threshold: typed(
    thresholdOf,
    'The alert level is a whole number of units (empty for none)',
    stockThresholdsSchema.shape.thresholds.element.shape.lowStockThreshold,
  ),
});
type ThresholdTyped = z.input<typeof thresholdForm>;

function StockRow({ level, onChanged }: { level: StockLevel; onChanged: () => void }) {
  const id = useId();
  const move = useForm<MoveTyped, unknown, z.output<typeof moveForm>>({
    resolver: zodResolver(moveForm),
    defaultValues: { kind: 'receive', amount: '' },
  });
  const threshold = useForm<ThresholdTyped, unknown, z.output<typeof thresholdForm>>({
    resolver: zodResolver(thresholdForm),
    defaultValues: { threshold: level.lowStockThreshold === null ? '' : String(level.lowStockThreshold) },
  });
  const actions = useBackOfficeActions(['stock']);

  const apply = move.handleSubmit(async ({ kind, amount }) => {
    const moved = await actions.run(
      (api) => api.moveStock(kind, level.variationId, amount),
      (err) => showProblem(err, move.setError, []),
    );
    if (!moved) return;
    move.reset({ kind, amount: '' });
    onChanged();
  });
  const saveThreshold = threshold.handleSubmit(async ({ threshold: t }) => {
    if (t === level.lowStockThreshold) return;
    const saved = await actions.run(
      (api) => api.setThreshold(level.variationId, t),
      (err) => showProblem(err, threshold.setError, []),
    );
    if (saved) onChanged();
  });

  const amountError = move.formState.errors.amount?.message;
  const thresholdError = threshold.formState.errors.threshold?.message;
  const error = amountError ?? thresholdError ?? actions.error;
  return (
    <form className="bo-stock-row" onSubmit={(e) => void apply(e)} noValidate data-testid="stock-row" data-variation-id={level.variationId}>
      <span className="bo-stock-name">{level.variationName}</span>
      <span className={level.isLow ? 'bo-on-hand bo-on-hand-low' : 'bo-on-hand'}>
        <span data-testid="stock-on-hand">{level.onHand}</span> on hand{level.isLow ? ' · low' : ''}
      </span>
      <label className="visually-hidden" htmlFor={`${id}-kind`}>
        Stock change for {level.variationName}
      </label>
      <select id={`${id}-kind`} className="bo-input" {...move.register('kind')} data-testid="stock-kind">
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
        aria-invalid={Boolean(amountError)}
        {...(amountError ? { 'aria-describedby': `${id}-error` } : {})}
        {...move.register('amount')}
        data-testid="stock-amount"
      />
      <button type="submit" className="button" disabled={move.formState.isSubmitting} data-testid="stock-apply">
        Apply
      </button>
      <label className="bo-threshold">
        Alert at{' '}
        <input
          className="bo-input bo-units"
          inputMode="numeric"
          aria-invalid={Boolean(thresholdError)}
          {...(thresholdError ? { 'aria-describedby': `${id}-error` } : {})}
          {...threshold.register('threshold', { onBlur: () => void saveThreshold() })}
          data-testid="stock-threshold"
        />
      </label>
      {error ? (
        <span className="bo-field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}
