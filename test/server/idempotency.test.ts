/**
 * Idempotency-Key when the server dies between committing a request's work and storing its answer: the
 * key is marked `committed` inside the work's own transaction, so a retry is refused — never carried out a second
 * time — even after the in-flight timeout that frees the key of a request that committed nothing.
 *
 * The "death" is a trigger that makes storing the answer fail for one key, after the order's transaction committed:
 * the client gets a 500 (as it would get a dropped connection), exactly the moment an unprotected retry would create a
 * second order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT_TIMEOUT_MS, keyDigest, markKeyCommitted } from '../../sync-server/src/platform/http/idempotency.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('Idempotency-Key across a lost answer on $name', (target) => {
  let server: TestServer;
  let now = new Date('2026-05-04T10:00:00.000Z');

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, webhooks: { enabled: false } });
    await server.db.exec(`
      CREATE FUNCTION test_lose_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.state = 'completed' AND NEW.key = encode(sha256(convert_to('lose-answer-1', 'UTF8')), 'hex') THEN RAISE EXCEPTION 'the server died before answering'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_lose_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION test_lose_answer();
    `);
  });
  afterAll(async () => {
    await server?.close();
  });

  const order = { lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }] };
  const post = (key: string, body: unknown = order) =>
    server.app.inject({
      method: 'POST',
      url: '/api/pos/orders',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json', 'idempotency-key': key },
      payload: JSON.stringify(body),
    });
  const orders = async () => Number((await server.db.query<{ n: number | string }>('SELECT count(*) AS n FROM orders')).rows[0]!.n);
  const stateOf = async (key: string) =>
    (await server.db.query<{ state: string }>('SELECT state FROM idempotency_keys WHERE key = $1', [keyDigest(key)])).rows[0]?.state;

  it('a retry after the answer was lost never creates a second order, however late it comes', async () => {
    const before = await orders();
    const first = await post('lose-answer-1');
    expect(first.statusCode).toBe(500);
    expect(await orders()).toBe(before + 1); // the work committed…
    expect(await stateOf('lose-answer-1')).toBe('committed'); // …and its key says so, from the same transaction.

    const soon = await post('lose-answer-1');
    expect(soon.statusCode).toBe(409);
    expect(soon.json()).toMatchObject({ code: 'idempotency_in_flight' });

    now = new Date(now.getTime() + IN_FLIGHT_TIMEOUT_MS + 1000);
    const late = await post('lose-answer-1');
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'idempotency_response_lost' });
    expect(late.json().detail).toMatch(/will not be carried out again/);
    expect(await orders()).toBe(before + 1);
  });

  it('a key whose request committed nothing is still freed for a retry after the timeout', async () => {
    // A request that claimed its key and died before any transaction (as a crash right after the claim would).
    const payloadHash = (await import('../../sync-server/src/platform/http/idempotency.ts')).idempotencyRequestHash('POST', '/api/pos/orders', order);
    await server.db.query(
      `INSERT INTO idempotency_keys (merchant_id, caller, key, request_hash, state, created_at) VALUES ($1, $2, $5, $3, 'in_flight', $4)`,
      [server.credentials.merchantId, `staff:${server.credentials.staffId}`, payloadHash, now.toISOString(), keyDigest('crashed-early-1')],
    );
    expect((await post('crashed-early-1')).statusCode).toBe(409);
    now = new Date(now.getTime() + IN_FLIGHT_TIMEOUT_MS + 1000);
    const before = await orders();
    const retried = await post('crashed-early-1');
    expect(retried.statusCode, retried.body).toBe(201);
    expect(await orders()).toBe(before + 1);
    expect(await stateOf('crashed-early-1')).toBe('completed');
    // And the answer is replayed from now on.
    const replay = await post('crashed-early-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().id).toBe(retried.json().id);
  });

  it('marks a key committed only from a transaction that wrote: one that only read leaves it free for a retry', async () => {
    // The key column holds what the route stores: the SHA-256 of the key sent (keyDigest).
    const claim = async (key: string) =>
      server.db.query(
        `INSERT INTO idempotency_keys (merchant_id, caller, key, request_hash, state, created_at) VALUES ($1, 'staff:x', $2, 'h', 'in_flight', $3)`,
        [server.credentials.merchantId, keyDigest(key), now.toISOString()],
      );
    await claim('read-only-1');
    await server.db.transaction(async (tx) => {
      await tx.query('SELECT count(*) FROM orders');
      await markKeyCommitted(tx, server.credentials.merchantId, 'staff:x', keyDigest('read-only-1'));
    });
    expect(await stateOf('read-only-1')).toBe('in_flight');

    await claim('writing-1');
    await server.db.transaction(async (tx) => {
      await tx.query(`UPDATE merchants SET name = name WHERE id = $1`, [server.credentials.merchantId]);
      await markKeyCommitted(tx, server.credentials.merchantId, 'staff:x', keyDigest('writing-1'));
    });
    expect(await stateOf('writing-1')).toBe('committed');

    // Rolled back with the work: a transaction that fails after the mark leaves the key in flight.
    await claim('rolled-back-1');
    await expect(
      server.db.transaction(async (tx) => {
        await tx.query(`UPDATE merchants SET name = name WHERE id = $1`, [server.credentials.merchantId]);
        await markKeyCommitted(tx, server.credentials.merchantId, 'staff:x', keyDigest('rolled-back-1'));
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(await stateOf('rolled-back-1')).toBe('in_flight');
  });

  it('a request refused with a 4xx commits nothing and stores its answer', async () => {
    const before = await orders();
    const bad = await post('refused-1', { lineItems: [] });
    expect(bad.statusCode).toBe(400);
    expect(await stateOf('refused-1')).toBe('completed');
    expect(await orders()).toBe(before);
  });
});
