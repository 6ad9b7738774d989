/**
 * Back office → Catalog → "Rename category": moves every item of a category to a new name (into an existing category
 * when one has that name). `PATCH /api/pos/catalog/categories/{name}`; the server's field error shows in place.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { categoryRenameSchema } from '../../../core/index.ts';
import { Dialog } from '../ui/dialog.tsx';
import { Field, useEscapeFromBody } from '../common/back-office-kit.tsx';
import { useBackOfficeActions } from '../common/back-office-query.ts';
import { showProblem } from '../common/forms.ts';

/** The rename form: the new name, checked by the `PATCH` body's own rule. */
const renameForm = z.object({ name: categoryRenameSchema.shape.name });
type RenameForm = z.input<typeof renameForm>;

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
  const formId = useId();
  const { register, handleSubmit, setError, watch, formState } = useForm<RenameForm, unknown, z.output<typeof renameForm>>({
    resolver: zodResolver(renameForm),
    defaultValues: { name },
  });
  // The catalog's lists are refetched by `onRenamed`'s owner.
  const actions = useBackOfficeActions([]);
  useEscapeFromBody(onClose);

  const value = watch('name');
  const merging = others.some((o) => o !== name && o.toLowerCase() === value.trim().toLowerCase());
  const saving = formState.isSubmitting;

  const onSubmit = handleSubmit(async (values) => {
    const renamed = await actions.run(
      (api) => api.renameCategory(name, values.name),
      (err) => showProblem(err, setError, ['name']),
    );
    if (renamed) onRenamed(renamed.name, renamed.itemIds.length);
  });

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
      <form id={formId} className="bo-form" onSubmit={(e) => void onSubmit(e)} noValidate data-testid="category-rename">
        {actions.error ? (
          <p className="form-error" role="alert">
            {actions.error}
          </p>
        ) : null}
        <Field
          id={`${formId}-name`}
          label="New name"
          error={formState.errors.name?.message}
          hint={
            merging
              ? 'A category has this name already: its items and these will be one category.'
              : 'Every item of this category moves to the new name.'
          }
        >
          {(props) => (
            <input {...props} className="bo-input" maxLength={120} {...register('name')} data-testid="category-rename-name" data-autofocus />
          )}
        </Field>
      </form>
    </Dialog>
  );
}
