/**
 * Back office → Catalog → "Rename category": moves every item of a category to a new name (into an existing category
 * when one has that name). `PATCH /api/pos/catalog/categories/{name}`; the server's field error shows in place.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { Dialog } from '../ui/dialog.tsx';
import { Field, formErrorsOf, NO_ERRORS, useApi, useEscapeFromBody, useFocusFirstError, type FormErrors } from '../common/back-office-kit.tsx';

interface CategoryRenameProps {
  /** The category's current name, exactly as items carry it. */
  name: string;
  /** Names of the other categories, offered as merge targets. */
  others: string[];
  /** Called with the new name once the server has moved the items. */
  onRenamed: (name: string, movedItems: number) => void;
  onClose: () => void;
}

export function CategoryRename({ name, others, onRenamed, onClose }: CategoryRenameProps) {
  const api = useApi();
  const formId = useId();
  const [value, setValue] = useState(name);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstError(formRef, errors);
  useEscapeFromBody(onClose);

  const merging = others.some((o) => o !== name && o.toLowerCase() === value.trim().toLowerCase());

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      const renamed = await api.renameCategory(name, value);
      onRenamed(renamed.name, renamed.itemIds.length);
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'name'));
      setSaving(false);
    }
  };

  return (
    <Dialog
      title={`Rename “${name}”`}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={formId} className="button button-primary" disabled={saving} data-testid="category-rename-save">
            {saving ? 'Renaming…' : merging ? 'Merge' : 'Rename'}
          </button>
        </>
      }
    >
      <form ref={formRef} id={formId} className="bo-form" onSubmit={onSubmit} noValidate data-testid="category-rename">
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
          </p>
        ) : null}
        <Field
          id={`${formId}-name`}
          label="New name"
          error={errors.fields.name}
          hint={
            merging
              ? 'A category has this name already: its items and these will be one category.'
              : 'Every item of this category moves to the new name.'
          }
        >
          {(props) => (
            <input
              {...props}
              className="bo-input"
              value={value}
              maxLength={120}
              onChange={(e) => setValue(e.target.value)}
              data-testid="category-rename-name"
              data-autofocus
            />
          )}
        </Field>
      </form>
    </Dialog>
  );
}
