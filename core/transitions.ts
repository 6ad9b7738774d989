/**
 * The one error every state machine of the domain throws (orders, payments, invoices, invoice series, pay requests):
 * the server turns it into a 409 problem naming the entity and its current state.
 */

/** Every record kind that has a state machine. */
export type StatefulEntity = 'order' | 'payment' | 'invoice' | 'invoice_series' | 'pay_request' | 'app';

/** Thrown for a move a state machine does not allow; `currentState` is the record's state now. */
export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  constructor(
    readonly entity: StatefulEntity,
    readonly currentState: string,
    readonly targetState: string,
    /** What was attempted, in words ("refund", "cancel", "send", "void", "pay"). */
    readonly action: string,
  ) {
    super(`cannot ${action} a ${entity.replace('_', ' ')} that is ${currentState} (it would move ${currentState} → ${targetState})`);
  }
}

/**
 * Checks one move against a transition table (`from` → allowed targets).
 * @throws IllegalTransitionError when `to` is not among the targets of `from`.
 */
export function assertTransition<S extends string>(
  table: Readonly<Record<S, readonly S[]>>,
  entity: StatefulEntity,
  from: S,
  to: S,
  action: string,
): void {
  if (!table[from].includes(to)) throw new IllegalTransitionError(entity, from, to, action);
}
