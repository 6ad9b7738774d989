/**
 * The modifier-lists part of the item editor: each list has a name, how many modifiers a cashier must pick
 * (`minSelected`, 0 or more) and may pick (`maxSelected`, 1 or more), and its modifiers (name, price typed in the
 * store currency and sent as integer cents, parsed with `parseCashInput` like variation prices). Lists and modifiers
 * can be added and removed; entries that came from the server keep their `id` so the server keeps them. Field errors
 * of a problem body (`modifierLists.0.modifiers.1.priceCents`, `modifierLists.0.minSelected`, …) show next to their
 * field; {@link isModifierListPath} tells the item editor which paths this sub-form has a place for.
 */
import type { ModifierList } from '../../../core/index.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import type { ItemInput } from '../common/back-office-api.ts';
import { Field } from '../common/back-office-kit.tsx';

/** A modifier list as the API takes it. */
export type ModifierListInput = NonNullable<ItemInput['modifierLists']>[number];

/** One modifier row being edited: the price is the text typed. */
export interface ModifierDraft {
  key: string;
  id?: string;
  name: string;
  price: string;
}

/** One modifier list being edited: min / max are the text typed. */
export interface ModifierListDraft {
  key: string;
  id?: string;
  name: string;
  min: string;
  max: string;
  modifiers: ModifierDraft[];
}

let draftCounter = 0;
const draftKey = () => `m${(draftCounter += 1)}`;

const emptyModifier = (): ModifierDraft => ({ key: draftKey(), name: '', price: '' });
const emptyList = (): ModifierListDraft => ({ key: draftKey(), name: '', min: '0', max: '1', modifiers: [emptyModifier()] });

/**
 * The drafts of an item's stored modifier lists (prices shown as the cashier would type them). With `previous`, each
 * list and modifier keeps the React key of the draft at the same place, so a focused input stays mounted after a save.
 */
export function modifierListDrafts(
  lists: readonly ModifierList[],
  currency: string,
  previous: readonly ModifierListDraft[] = [],
): ModifierListDraft[] {
  return lists.map((l, i) => {
    const before = previous[i];
    return {
      key: before?.key ?? l.id,
      id: l.id,
      name: l.name,
      min: String(l.minSelected),
      max: String(l.maxSelected),
      modifiers: l.modifiers.map((m, j) => ({
        key: before?.modifiers[j]?.key ?? m.id,
        id: m.id,
        name: m.name,
        price: centsToInput(m.priceCents, currency),
      })),
    };
  });
}

const wholeNumber = (text: string): number | undefined => (/^\d{1,4}$/.test(text.trim()) ? Number(text.trim()) : undefined);

/**
 * The drafts as the API takes them, or local errors keyed by the same paths the server uses: a price that is not an
 * amount, a min / max that is not a whole number. Bounds and `min ≤ max` are left to the server, whose field errors
 * show in the same places.
 */
export function parseModifierLists(
  drafts: readonly ModifierListDraft[],
  currency: string,
): { lists: ModifierListInput[]; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const lists = drafts.map((l, i): ModifierListInput => {
    const min = wholeNumber(l.min);
    const max = wholeNumber(l.max);
    if (min === undefined) errors[`modifierLists.${i}.minSelected`] = 'Enter a whole number like 0';
    if (max === undefined) errors[`modifierLists.${i}.maxSelected`] = 'Enter a whole number like 1';
    return {
      ...(l.id ? { id: l.id } : {}),
      name: l.name.trim(),
      minSelected: min ?? 0,
      maxSelected: max ?? 1,
      modifiers: l.modifiers.map((m, j) => {
        const cents = parseCashInput(m.price, currency);
        if (cents === undefined) errors[`modifierLists.${i}.modifiers.${j}.priceCents`] = 'Enter a price like 0.50';
        return { ...(m.id ? { id: m.id } : {}), name: m.name.trim(), priceCents: cents ?? 0 };
      }),
    };
  });
  return { lists, errors };
}

/** True for the error paths {@link ModifierListsEditor} shows next to a field (the rest go to the form message). */
export function isModifierListPath(path: string): boolean {
  return (
    path === 'modifierLists' ||
    /^modifierLists\.\d+\.(name|minSelected|maxSelected|modifiers)$/.test(path) ||
    /^modifierLists\.\d+\.modifiers\.\d+\.(name|priceCents)$/.test(path)
  );
}

interface ModifierListsEditorProps {
  /** A prefix for the ids of the inputs (unique in the page). */
  idPrefix: string;
  currency: string;
  lists: ModifierListDraft[];
  onChange: (update: (lists: ModifierListDraft[]) => ModifierListDraft[]) => void;
  /** Field errors by path (server or local). */
  errors: Record<string, string>;
}

/** The "Modifier lists" fieldset of the item editor (controlled: the drafts live in the editor). */
export function ModifierListsEditor({ idPrefix, currency, lists, onChange, errors }: ModifierListsEditorProps) {
  const setList = (key: string, patch: Partial<ModifierListDraft>) => onChange((all) => all.map((l) => (l.key === key ? { ...l, ...patch } : l)));
  const setModifier = (listKey: string, modKey: string, patch: Partial<ModifierDraft>) =>
    onChange((all) =>
      all.map((l) => (l.key === listKey ? { ...l, modifiers: l.modifiers.map((m) => (m.key === modKey ? { ...m, ...patch } : m)) } : l)),
    );

  return (
    <fieldset className="bo-fieldset" data-testid="modifier-lists">
      <legend>Modifier lists</legend>
      {lists.length === 0 ? (
        <p className="muted bo-hint bo-flush">No modifier lists: add one for choices like extras, sizes of milk or cooking.</p>
      ) : null}
      {errors.modifierLists ? (
        <p className="bo-field-error bo-flush" role="alert" data-testid="field-error">
          {errors.modifierLists}
        </p>
      ) : null}
      {lists.map((l, i) => {
        const base = `${idPrefix}-ml${l.key}`;
        const label = l.name.trim() || `list ${i + 1}`;
        return (
          <div className="bo-modifier-list" key={l.key} data-testid="modifier-list-row" data-modifier-list-id={l.id ?? ''}>
            <div className="bo-modifier-list-head">
              <Field id={`${base}-name`} label="List name" error={errors[`modifierLists.${i}.name`]} className="bo-field-grow">
                {(p) => (
                  <input
                    {...p}
                    className="bo-input"
                    value={l.name}
                    placeholder="Extras"
                    onChange={(e) => setList(l.key, { name: e.target.value })}
                    data-testid="modifier-list-name"
                  />
                )}
              </Field>
              <Field id={`${base}-min`} label="Pick at least" error={errors[`modifierLists.${i}.minSelected`]} className="bo-field-narrow">
                {(p) => (
                  <input
                    {...p}
                    className="bo-input bo-units"
                    inputMode="numeric"
                    value={l.min}
                    onChange={(e) => setList(l.key, { min: e.target.value })}
                    data-testid="modifier-list-min"
                  />
                )}
              </Field>
              <Field id={`${base}-max`} label="Pick at most" error={errors[`modifierLists.${i}.maxSelected`]} className="bo-field-narrow">
                {(p) => (
                  <input
                    {...p}
                    className="bo-input bo-units"
                    inputMode="numeric"
                    value={l.max}
                    onChange={(e) => setList(l.key, { max: e.target.value })}
                    data-testid="modifier-list-max"
                  />
                )}
              </Field>
              <button
                type="button"
                className="button button-ghost"
                aria-label={`Remove list ${label}`}
                onClick={() => onChange((all) => all.filter((x) => x.key !== l.key))}
                data-testid="remove-modifier-list"
              >
                Remove list
              </button>
            </div>
            {errors[`modifierLists.${i}.modifiers`] ? (
              <p className="bo-field-error bo-flush" role="alert" data-testid="field-error">
                {errors[`modifierLists.${i}.modifiers`]}
              </p>
            ) : null}
            <div className="bo-modifiers">
              {l.modifiers.map((m, j) => (
                <div className="bo-modifier" key={m.key} data-testid="modifier-row" data-modifier-id={m.id ?? ''}>
                  <Field
                    id={`${base}-m${m.key}-name`}
                    label="Modifier"
                    error={errors[`modifierLists.${i}.modifiers.${j}.name`]}
                    className="bo-field-grow"
                  >
                    {(p) => (
                      <input
                        {...p}
                        className="bo-input"
                        value={m.name}
                        onChange={(e) => setModifier(l.key, m.key, { name: e.target.value })}
                        data-testid="modifier-name"
                      />
                    )}
                  </Field>
                  <Field
                    id={`${base}-m${m.key}-price`}
                    label={`Price (${currency})`}
                    error={errors[`modifierLists.${i}.modifiers.${j}.priceCents`]}
                    className="bo-field-narrow"
                  >
                    {(p) => (
                      <input
                        {...p}
                        className="bo-input bo-money"
                        inputMode="decimal"
                        value={m.price}
                        placeholder="0.00"
                        onChange={(e) => setModifier(l.key, m.key, { price: e.target.value })}
                        data-testid="modifier-price"
                      />
                    )}
                  </Field>
                  <button
                    type="button"
                    className="button button-ghost"
                    disabled={l.modifiers.length <= 1}
                    aria-label={`Remove modifier ${m.name.trim() || j + 1} from ${label}`}
                    onClick={() => setList(l.key, { modifiers: l.modifiers.filter((x) => x.key !== m.key) })}
                    data-testid="remove-modifier"
                  >
                    Remove
                  </button>
                </div>
              ))}
            </div>
            <button
              type="button"
              className="button bo-align-start"
              onClick={() => setList(l.key, { modifiers: [...l.modifiers, emptyModifier()] })}
              data-testid="add-modifier"
            >
              Add modifier
            </button>
          </div>
        );
      })}
      <button type="button" className="button" onClick={() => onChange((all) => [...all, emptyList()])} data-testid="add-modifier-list">
        Add modifier list
      </button>
    </fieldset>
  );
}
