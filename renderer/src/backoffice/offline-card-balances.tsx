import { formatMoney, type OfflineCardPayment } from '../../../core/index.ts';
import { useBackOfficeData } from '../common/back-office-query.ts';

/**
 * "Balance due — offline card declined": card payments a terminal approved offline whose forward the
 * processor declined, or that expired unforwarded past the store's forward window (state `expired`), above the orders, with the receipt, amount, card and the receipt's customer to contact. For a
 * manager to collect the balance on the order (its "Collect balance" action); one collected (balance 0) is no longer
 * listed. Nothing when none; a failed load shows nothing (the orders list reports it). Held by TanStack Query
 * (common/back-office-query.ts); `reload` (the orders' Refresh) reads it again.
 */
export function OfflineCardBalances({ reload }: { reload: number }) {
  const balances = useBackOfficeData('offline-card-balances', [reload], (api) =>
    Promise.all(
      (['declined', 'expired'] as const).map((state) =>
        api.request<{ data: OfflineCardPayment[] }>('GET', `/api/pos/offline-cards/payments?state=${state}&limit=100`),
      ),
    ),
  );
  const declined = (balances.data ?? [])
    .flatMap((page) => page.data)
    .filter((p) => p.balanceDueCents > 0)
    .sort((a, b) => b.approvedAt.localeCompare(a.approvedAt));
  if (declined.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="offline-card-balances">
      <div>
        <strong>Balance due — offline card declined</strong>
        <ul className="bo-plain-list">
          {declined.map((p) => {
            const contact = p.customer
              ? [p.customer.name, p.customer.email, p.customer.phone].filter(Boolean).join(' · ')
              : 'no customer on the receipt';
            return (
              <li key={p.id} data-testid="offline-card-balance" data-order-id={p.orderId} data-payment-id={p.id}>
                {p.receiptNumber}: {formatMoney(p.balanceDueCents, p.currency)} due ({p.cardBrand ?? 'Card'} ···{p.last4 ?? '????'}, approved offline{' '}
                {new Date(p.approvedAt).toLocaleString()},{' '}
                {p.state === 'expired'
                  ? `not forwarded within the store's window (ended ${new Date(p.forwardDeadline).toLocaleString()})`
                  : `declined on forward: ${p.declineCode ?? 'declined'}`}
                ) — {contact}
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
