/**
 * The text a pay request being written will send, shown before it is sent: the store's template in its language with
 * the amount and memo as typed (`POST /api/pos/pay-request-previews`, read 300 ms after typing stops), and how the
 * carrier sends it — GSM-7 or UCS-2 (an emoji or a letter outside GSM-7 makes it UCS-2: 70 characters a part instead
 * of 160), in how many parts.
 */
import { parseCashInput } from '../common/cash.ts';
import { useDebounced } from '../common/cursor-list.tsx';
import { useBackOfficeData } from '../common/back-office-query.ts';

interface Preview {
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  characters: number;
}

/** `amount` and `memo` as typed in the form (`amount` in the store's currency, e.g. "12.50"). */
export function PayRequestTextPreview({ amount, memo, currency }: { amount: string; memo: string; currency: string }) {
  const typed = useDebounced({ amount, memo: memo.trim() }, 300);
  const amountCents = parseCashInput(typed.amount, currency) ?? 0;
  const preview = useBackOfficeData(
    'pay-request-preview',
    [amountCents, typed.memo],
    (api) => api.request<Preview>('POST', '/api/pos/pay-request-previews', { amountCents, ...(typed.memo ? { memo: typed.memo } : {}) }),
    { enabled: amountCents > 0 },
  );
  if (!(amountCents > 0)) return <p className="muted bo-hint">Type an amount to see the text the customer will get.</p>;
  const data = preview.data;
  if (!data)
    return <p className="muted bo-hint">{preview.error ? 'The text cannot be previewed: check the amount and memo.' : 'Writing the text…'}</p>;
  return (
    <div className="bo-fieldset" data-testid="pay-request-text-preview" aria-live="polite">
      <p className="bo-hint">The text the customer will get:</p>
      <p data-testid="pay-request-text-body">{data.body}</p>
      <p className={data.segments > 1 ? 'bo-field-error' : 'muted bo-hint'} data-testid="pay-request-text-segments">
        {data.characters} characters, {data.encoding}:{' '}
        {data.segments === 1 ? 'one part' : `${data.segments} parts (billed as ${data.segments} texts)`}
      </p>
    </div>
  );
}
