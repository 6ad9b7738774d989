/**
 * A manager's approval on the register : a manager or owner types their PIN on the register and the
 * server answers who approved (`POST /api/register/approvals`, action `price_override`, the register's credential).
 * The register records `approvedBy` on the overridden line; the server re-checks on push that it is a manager or
 * owner of the store (core priceOverrideProblem). Online only: offline, the call fails and no override is made.
 */
import { HttpError, REGISTER_SCHEMA_VERSION } from '../../common/session.ts';

/**
 * Asks the server to approve a price override with `staffId`'s PIN.
 * @returns the approver's staff id
 * @throws TypeError offline; HttpError (401 wrong PIN, 403 not a manager or owner, 429 too many tries)
 */
export async function approvePriceOverride(registerToken: string, staffId: string, pin: string): Promise<string> {
  const response = await fetch('/api/register/approvals', {
    method: 'POST',
    headers: { authorization: `Bearer ${registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION, 'content-type': 'application/json' },
    body: JSON.stringify({ staffId, pin, action: 'price_override' }),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new HttpError(
      response.status,
      response.status === 429 ? 'Too many attempts: wait a minute and try again.' : (problem.detail ?? `HTTP ${response.status}`),
    );
  }
  return ((await response.json()) as { approvedBy: string }).approvedBy;
}
