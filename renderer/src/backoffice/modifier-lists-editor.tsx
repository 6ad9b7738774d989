/**
 * The modifier-lists part of the item editor: each list has a name, how many modifiers a cashier must pick
 * (`minSelected`, 0 or more) and may pick (`maxSelected`, 1 or more), and its modifiers (name, price typed in the
 * store currency and sent as integer cents, like variation prices). Lists and modifiers are field arrays of the item
 * form (item-drafts.ts) and can be added and removed; entries that came from the server keep their `id` so the server
 * keeps them. Field errors (`modifierLists.0.modifiers.1.priceCents`, `modifierLists.0.minSelected`, …), typed or from
 * the server, show next to their field.
 */
import { useFieldArray, useWatch, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { Field } from '../common/back-office-kit.tsx';
import { emptyModifier, emptyModifierList, type ItemChecked, type ItemTyped } from './item-drafts.ts';

/** The message of a list's own error: set by the server on the list's path, or by the form's rule on its root. */
export function listError(error: { message?: string; root?: { message?: string } } | undefined): string | undefined {
  return error?.message ?? error?.root?.message;
}

interface ModifierListsEditorProps {
  /** A prefix for the ids of the inputs (unique in the page). */
  idPrefix: string;
  currency: string;
  control: Control<ItemTyped, unknown, ItemChecked>;
  register: UseFormRegister<ItemTyped>;
  errors: FieldErrors<ItemTyped>;
}

/** The "Modifier lists" fieldset of the item editor (its lists are a field array of the editor's form). */
export function ModifierListsEditor({ idPrefix, currency, control, register, errors }: ModifierListsEditorProps) {
  const lists = useFieldArray({ control, name: 'modifierLists', keyName: 'fieldId' });
  const error = listError(errors.modifierLists);

  return (
    <fieldset className="bo-fieldset" data-testid="modifier-lists">
      <legend>Modifier lists</legend>
      {lists.fields.length === 0 ? (
        <p className="muted bo-hint bo-flush">No modifier lists: add one for choices like extras, sizes of milk or cooking.</p>
      ) : null}
      {error ? (
        <p className="bo-field-error bo-flush" role="alert" data-testid="field-error">
          {error}
        </p>
      ) : null}
      {lists.fields.map((l, i) => (
        <ModifierListRow
          key={l.key}
          index={i}
          base={`${idPrefix}-ml${l.key}`}
          currency={currency}
          control={control}
          register={register}
          errors={errors}
          onRemove={() => lists.remove(i)}
        />
      ))}
      <button type="button" className="button" onClick={() => lists.append(emptyModifierList())} data-testid="add-modifier-list">
        Add modifier list
      </button>
    </fieldset>
  );
}

interface ModifierListRowProps extends Omit<ModifierListsEditorProps, 'idPrefix'> {
  index: number;
  /** The prefix of this list's input ids. */
  base: string;
  onRemove: () => void;
}

/** One modifier list: its name, min / max and its modifiers (a field array of their own). */
function ModifierListRow({ index: i, base, currency, control, register, errors, onRemove }: ModifierListRowProps) {
  const modifiers = useFieldArray({ control, name: `modifierLists.${i}.modifiers`, keyName: 'fieldId' });
  const row = useWatch({ control, name: `modifierLists.${i}` });
  const label = row.name.trim() || `list ${i + 1}`;
  const e = errors.modifierLists?.[i];
  const modifiersError = listError(e?.modifiers);

  return (
    <div className="bo-modifier-list" data-testid="modifier-list-row" data-modifier-list-id={row.id ?? ''}>
      <div className="bo-modifier-list-head">
        <Field id={`${base}-name`} label="List name" error={e?.name?.message} className="bo-field-grow">
          {(p) => (
            <input {...p} className="bo-input" placeholder="Extras" {...register(`modifierLists.${i}.name`)} data-testid="modifier-list-name" />
          )}
        </Field>
        <Field id={`${base}-min`} label="Pick at least" error={e?.minSelected?.message} className="bo-field-narrow">
          {(p) => (
            <input
              {...p}
              className="bo-input bo-units"
              inputMode="numeric"
              {...register(`modifierLists.${i}.minSelected`)}
              data-testid="modifier-list-min"
            />
          )}
        </Field>
        <Field id={`${base}-max`} label="Pick at most" error={e?.maxSelected?.message} className="bo-field-narrow">
          {(p) => (
            <input
              {...p}
              className="bo-input bo-units"
              inputMode="numeric"
              {...register(`modifierLists.${i}.maxSelected`)}
              data-testid="modifier-list-max"
            />
          )}
        </Field>
        <button
          type="button"
          className="button button-ghost"
          aria-label={`Remove list ${label}`}
          onClick={onRemove}
          data-testid="remove-modifier-list"
        >
          Remove list
        </button>
      </div>
      {modifiersError ? (
        <p className="bo-field-error bo-flush" role="alert" data-testid="field-error">
          {modifiersError}
        </p>
      ) : null}
      <div className="bo-modifiers">
        {modifiers.fields.map((m, j) => (
          <div className="bo-modifier" key={m.key} data-testid="modifier-row" data-modifier-id={row.modifiers[j]?.id ?? ''}>
            <Field id={`${base}-m${m.key}-name`} label="Modifier" error={e?.modifiers?.[j]?.name?.message} className="bo-field-grow">
              {(p) => <input {...p} className="bo-input" {...register(`modifierLists.${i}.modifiers.${j}.name`)} data-testid="modifier-name" />}
            </Field>
            <Field
              id={`${base}-m${m.key}-price`}
              label={`Price (${currency})`}
              error={e?.modifiers?.[j]?.priceCents?.message}
              className="bo-field-narrow"
            >
              {(p) => (
                <input
                  {...p}
                  className="bo-input bo-money"
                  inputMode="decimal"
                  placeholder="0.00"
                  {...register(`modifierLists.${i}.modifiers.${j}.priceCents`)}
                  data-testid="modifier-price"
                />
              )}
            </Field>
            <button
              type="button"
              className="button button-ghost"
              disabled={modifiers.fields.length <= 1}
              aria-label={`Remove modifier ${row.modifiers[j]?.name.trim() || j + 1} from ${label}`}
              onClick={() => modifiers.remove(j)}
              data-testid="remove-modifier"
            >
              Remove
            </button>
          </div>
        ))}
      </div>
      <button type="button" className="button bo-align-start" onClick={() => modifiers.append(emptyModifier())} data-testid="add-modifier">
        Add modifier
      </button>
    </div>
  );
}
