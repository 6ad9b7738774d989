import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** PATCH bodies (core patchBody): at least one field, and a field not sent keeps its value. */
describe.each(databaseTargets())('PATCH bodies on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });
  const call = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });

  it('renaming or re-pricing an inclusive tax rate leaves it inclusive (the PATCH used to reset it to exclusive)', async () => {
    const created = await call('POST', '/api/pos/catalog/tax-rates', { name: 'VAT', basisPoints: 2000, inclusive: true });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    const renamed = await call('PATCH', `/api/pos/catalog/tax-rates/${id}`, { name: 'VAT (standard)' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'VAT (standard)', basisPoints: 2000, inclusive: true });
    const repriced = await call('PATCH', `/api/pos/catalog/tax-rates/${id}`, { basisPoints: 1900 });
    expect(repriced.json()).toMatchObject({ name: 'VAT (standard)', basisPoints: 1900, inclusive: true });
    const empty = await call('PATCH', `/api/pos/catalog/tax-rates/${id}`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().detail).toContain('send at least one field to change');
  });
});
