import { expect } from 'vitest';
import type { TestServer } from './server.ts';

/**
 * Creates a free-amount pay request of 1250 cents texted to `phone` (E.164) through `server`'s API with the demo app
 * token, expecting 201; resolves to the id of its text in `sms_outbox` (the newest pay-request text to that phone).
 */
export async function createPayRequestText(server: TestServer, phone: string): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/pos/pay-requests',
    headers: { authorization: `Bearer ${server.credentials.appToken}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ amountCents: 1250, phone }),
  });
  expect(res.statusCode).toBe(201);
  const { rows } = await server.db.query<{ id: string }>(
    `SELECT id FROM sms_outbox WHERE to_phone = $1 AND kind = 'pay_request' ORDER BY created_at DESC, id DESC LIMIT 1`,
    [phone],
  );
  return rows[0]!.id;
}
