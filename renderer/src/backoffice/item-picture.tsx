/** The item editor's generated picture: image API, credits, preview, then attached. */
import { useCallback, useEffect, useState } from 'react';
import { errorMessage, imageIdOf, localPath } from '../common/back-office-api.ts';
import { useApi } from '../common/back-office-kit.tsx';

type PictureState =
  | { phase: 'idle' }
  | { phase: 'generating' }
  | { phase: 'preview'; url: string }
  | { phase: 'attaching'; url: string }
  | { phase: 'attached' }
  | { phase: 'failed'; message: string };

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
        {imageUrl ? (
          <img className="bo-picture-current" src={localPath(imageUrl)} alt={`Current picture of ${itemName}`} data-testid="item-picture" />
        ) : (
          <div className="bo-picture-none muted">No picture</div>
        )}
        <div className="bo-picture-actions">
          <button
            type="button"
            className="button"
            onClick={generate}
            disabled={busy || itemName.trim() === '' || balance === 0}
            data-testid="generate-picture"
          >
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
                <button
                  type="button"
                  className="button button-primary"
                  onClick={() => attach(state.url)}
                  disabled={busy}
                  data-testid="attach-picture"
                >
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
