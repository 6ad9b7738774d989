/** Deleting an item from its editor, after an inline confirmation. */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ApiCatalogItem } from '../common/back-office-api.ts';
import { useBackOfficeActions } from '../common/back-office-query.ts';

/**
 * "Delete item…", confirmed inline: the button turns into "Really delete <name>? [Delete] [Keep]" (focus on Keep;
 * Escape there keeps the item and leaves the dialog open). Delete calls the API, then `onDeleted`.
 */
export function DeleteItem({ item, onDeleted }: { item: ApiCatalogItem; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  // The list the item leaves is refetched by `onDeleted`'s owner (the catalog).
  const actions = useBackOfficeActions([]);
  const busy = actions.pending;
  const error = actions.error;
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
    const deleted = await actions.run(async (api) => {
      await api.deleteItem(item.id);
      return true;
    });
    if (deleted) onDeleted();
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
          <button type="button" className="button bo-danger" onClick={() => void remove()} disabled={busy} data-testid="item-delete-confirm">
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
