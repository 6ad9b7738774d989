import { useState } from 'react';
import { formatMoney, type CatalogItem, type ModifierList } from '../../../../core/index.ts';
import { Dialog } from '../../ui/dialog.tsx';

interface ItemDialogProps {
  item: CatalogItem;
  currency: string;
  /** Preselected variation (e.g. the one a barcode named). */
  initialVariationId?: string;
  onAdd: (choice: { variationId: string; modifierIds: string[] }) => void;
  onClose: () => void;
}

function ruleText(list: ModifierList): string {
  if (list.minSelected === 0) return list.maxSelected === 1 ? 'optional, pick 1' : `optional, up to ${list.maxSelected}`;
  if (list.minSelected === list.maxSelected) return `required, pick ${list.minSelected}`;
  return `required, pick ${list.minSelected}–${list.maxSelected}`;
}

/** Variation and modifier choice for one item, respecting each list's min/max. */
export function ItemDialog({ item, currency, initialVariationId, onAdd, onClose }: ItemDialogProps) {
  const [variationId, setVariationId] = useState(initialVariationId ?? item.variations[0]?.id ?? '');
  const [chosen, setChosen] = useState<Record<string, string[]>>({});

  const variation = item.variations.find((v) => v.id === variationId);
  const modifierIds = item.modifierLists.flatMap((l) => chosen[l.id] ?? []);
  const unmet = item.modifierLists.filter((l) => (chosen[l.id]?.length ?? 0) < l.minSelected);
  const unitCents =
    (variation?.priceCents ?? 0) +
    item.modifierLists
      .flatMap((l) => l.modifiers)
      .filter((m) => modifierIds.includes(m.id))
      .reduce((a, m) => a + m.priceCents, 0);
  const canAdd = variation !== undefined && unmet.length === 0;

  const toggle = (list: ModifierList, modifierId: string) => {
    setChosen((current) => {
      const selected = current[list.id] ?? [];
      if (list.maxSelected === 1) return { ...current, [list.id]: selected.includes(modifierId) && list.minSelected === 0 ? [] : [modifierId] };
      if (selected.includes(modifierId)) return { ...current, [list.id]: selected.filter((id) => id !== modifierId) };
      if (selected.length >= list.maxSelected) return current;
      return { ...current, [list.id]: [...selected, modifierId] };
    });
  };

  const add = () => {
    if (canAdd) onAdd({ variationId, modifierIds });
  };

  return (
    <Dialog
      title={item.name}
      onClose={onClose}
      footer={
        <>
          <span className="dialog-hint" role="status">
            {unmet.length > 0 ? `Choose: ${unmet.map((l) => l.name).join(', ')}` : ''}
          </span>
          <button type="button" className="button button-primary button-large" disabled={!canAdd} onClick={add} data-testid="item-dialog-add">
            Add · {formatMoney(unitCents, currency)}
          </button>
        </>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
      >
        {item.variations.length > 1 ? (
          <fieldset className="choice-group">
            <legend>
              Size / variation <span className="rule">required</span>
            </legend>
            <div className="choices">
              {item.variations.map((v) => (
                <label key={v.id} className={v.id === variationId ? 'choice choice-selected' : 'choice'}>
                  <input type="radio" name="variation" value={v.id} checked={v.id === variationId} onChange={() => setVariationId(v.id)} />
                  <span className="choice-text">
                    <span className="choice-name">{v.name}</span>
                    <span className="choice-price">{formatMoney(v.priceCents, currency)}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
        ) : null}
        {item.modifierLists.map((list) => {
          const selected = chosen[list.id] ?? [];
          const isSingle = list.maxSelected === 1;
          return (
            <fieldset key={list.id} className="choice-group">
              <legend>
                {list.name} <span className="rule">{ruleText(list)}</span>
              </legend>
              <div className="choices">
                {list.modifiers.map((m) => {
                  const isChecked = selected.includes(m.id);
                  const isFull = !isSingle && !isChecked && selected.length >= list.maxSelected;
                  return (
                    <label key={m.id} className={isChecked ? 'choice choice-selected' : isFull ? 'choice choice-disabled' : 'choice'}>
                      <input
                        type={isSingle ? 'radio' : 'checkbox'}
                        name={list.id}
                        value={m.id}
                        checked={isChecked}
                        disabled={isFull}
                        onChange={() => toggle(list, m.id)}
                        onClick={() => {
                          // A radio cannot be unticked by the browser; optional single lists allow it.
                          if (isSingle && isChecked && list.minSelected === 0) toggle(list, m.id);
                        }}
                      />
                      <span className="choice-text">
                        <span className="choice-name">{m.name}</span>
                        <span className="choice-price">{m.priceCents > 0 ? `+${formatMoney(m.priceCents, currency)}` : 'no charge'}</span>
                      </span>
                    </label>
                  );
                })}
              </div>
            </fieldset>
          );
        })}
        <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
      </form>
    </Dialog>
  );
}
