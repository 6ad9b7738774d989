/** What the Orders files share: state text and badge, line and refund helpers, the source of an order. */
import { refundableBalance } from '../../../../core/index.ts';
import type { ApiOrder, ApiOrderState } from '../../common/back-office-api.ts';

/** How each order state reads on screen. */
export const ORDER_STATE_TEXT: Record<ApiOrderState, string> = {
  open: 'Open',
  paid: 'Paid',
  partially_refunded: 'Partly refunded',
  refunded: 'Refunded',
  canceled: 'Canceled',
  balance_due: 'Balance due',
};

export type Payment = NonNullable<ApiOrder['payments']>[number];

export type Refund = NonNullable<ApiOrder['refunds']>[number];
export type Line = ApiOrder['lines'][number];

/** The state badge of an order (`data-state` carries the raw state for tests and styles). */
export function StateBadge({ state }: { state: ApiOrderState }) {
  return (
    <span className={`bo-status bo-status-${state}`} data-testid="order-state" data-state={state}>
      {ORDER_STATE_TEXT[state]}
    </span>
  );
}

export const sourceText = (order: ApiOrder) => (order.source === 'register' ? `Register ${order.registerNumber}` : 'Back office');

/** Quantities of each line already refunded, by line id. */
export function refundedQuantities(order: ApiOrder): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of order.refunds ?? []) for (const l of r.lines) out.set(l.lineId, (out.get(l.lineId) ?? 0) + l.quantity);
  return out;
}

/** What can still be given back (tips included): core's refund rule over the order's payments and refunds. */
export function refundableCents(order: ApiOrder): number {
  return refundableBalance(order, order.payments ?? [], order.refunds ?? []).totalCents;
}

export const lineTitle = (line: Line) => line.name;
export const lineDetail = (line: Line) => [line.variationName, ...line.modifiers.map((m) => m.name)].filter(Boolean).join(', ');
