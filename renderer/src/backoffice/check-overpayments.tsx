import { formatMoney } from '../../../core/index.ts';
import { useBackOfficeData } from '../common/back-office-query.ts';

/** One payment the server flagged for refund (`GET /api/pos/check-overpayments`). */
interface FlaggedOverpayment {
  checkId: string;
  checkName: string;
  orderId: string;
  amountCents: number;
  refundCents: number;
  registerId: string;
  paidAt: string;
  flaggedAt: string;
}

/**
 * "Checks paid twice — refund owed": payments the server flagged when two registers took the same check's payment
 * while apart (docs/decisions/0105), newest first, with the check, the paying order to refund and what it owes back.
 * Nothing when none; a failed load shows nothing (the floor plan below reports the server's state). Held by TanStack
 * Query (common/back-office-query.ts).
 */
export function CheckOverpayments() {
  const flagged = useBackOfficeData('check-overpayments', [], (api) =>
    api.request<{ items: FlaggedOverpayment[] }>('GET', '/api/pos/check-overpayments'),
  );
  const items = flagged.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section className="bo-section" data-testid="check-overpayments" aria-labelledby="check-overpayments-title">
      <h2 id="check-overpayments-title">Checks paid twice — refund owed</h2>
      <table className="bo-table">
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Order to refund</th>
            <th scope="col">Paid</th>
            <th scope="col">Refund</th>
            <th scope="col">Flagged</th>
          </tr>
        </thead>
        <tbody>
          {items.map((p) => (
            <tr key={p.orderId}>
              <td>{p.checkName}</td>
              <td>{p.orderId}</td>
              <td>{formatMoney(p.amountCents)}</td>
              <td>{formatMoney(p.refundCents)}</td>
              <td>{new Date(p.flaggedAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
