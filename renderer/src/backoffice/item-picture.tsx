/**
 * The item editor's generated picture: image API, credits, preview, then attached. The credit balance is a query,
 * read again after each generation; a failed step keeps its reason as the panel's error.
 */
import { useState } from 'react';
import { imageIdOf, localPath } from '../common/back-office-api.ts';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';

/** "Generate picture": the image API with the item's name, a preview, then a permanent copy attached to the item. */
export function PicturePanel({
  itemName,
  imageUrl,
  onAttach,
}: {
  itemName: string;
  imageUrl: string | undefined;
  onAttach: (url: string) => Promise<void>;
}) {
  const credits = useBackOfficeData('credits', [], (api) => api.credits());
  const balance = credits.data?.balance;
  const actions = useBackOfficeActions(['credits']);
  // What the last generation made (until attached or discarded) and whether it was attached.
  const [preview, setPreview] = useState<string | undefined>();
  const [attached, setAttached] = useState(false);

  const generate = async () => {
    setPreview(undefined);
    setAttached(false);
    const url = await actions.run(async (api) => {
      const result = await api.generateImage(itemName.trim());
      const first = result.images[0];
      if (!first) throw new Error('The image API answered without an image.');
      return first.url;
    });
    if (url) setPreview(url);
    // A failed generation may still have spent a credit: the balance is read again either way.
    else void credits.refresh();
  };

  const attach = async (url: string) => {
    const done = await actions.run(async (api) => {
      // A permanent copy: generated images are served for 7 days only (docs/images.md).
      const id = imageIdOf(url);
      const kept = id ? (await api.keepImage(id)).url : url;
      await onAttach(kept);
      return true;
    });
    if (!done) return;
    setPreview(undefined);
    setAttached(true);
  };

  const busy = actions.pending;
  const generating = busy && preview === undefined;
  // The balance stays "…" when it cannot be read (the image API answers for itself on Generate).
  const failure = actions.error;
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
            onClick={() => void generate()}
            disabled={busy || itemName.trim() === '' || balance === 0}
            data-testid="generate-picture"
          >
            Generate picture
          </button>
          <p className="muted bo-hint">Uses 1 credit; made from the item name.</p>
          {generating ? (
            <p role="status" data-testid="picture-progress">
              <progress /> Generating a picture of “{itemName}”…
            </p>
          ) : null}
          {preview !== undefined ? (
            <div className="bo-preview">
              <img src={localPath(preview)} alt={`Generated picture of ${itemName}`} data-testid="picture-preview" />
              <div>
                <button
                  type="button"
                  className="button button-primary"
                  onClick={() => void attach(preview)}
                  disabled={busy}
                  data-testid="attach-picture"
                >
                  {busy ? 'Attaching…' : 'Use this picture'}
                </button>
                <button type="button" className="button button-ghost" onClick={() => setPreview(undefined)} disabled={busy}>
                  Discard
                </button>
              </div>
            </div>
          ) : null}
          {attached ? (
            <p role="status" data-testid="picture-attached">
              Picture attached.
            </p>
          ) : null}
          {failure ? (
            <p className="form-error" role="alert" data-testid="picture-error">
              {failure}
            </p>
          ) : null}
        </div>
      </div>
    </section>
  );
}
