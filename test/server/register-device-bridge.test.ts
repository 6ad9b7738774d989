/**
 * The register learns the hardware bridge's address from the server's configuration —
 * `GET /api/register/device-bridge` answers `ServerConfig.deviceBridgeUrl` (main.ts: `ws://127.0.0.1:BRIDGE_PORT`) to a
 * register credential, `null` when the server knows no bridge, and 401 without a credential. Over HTTP (app.inject),
 * on PGlite and PostgreSQL.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../sync-server/src/app.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';

describe.each(databaseTargets())('GET /api/register/device-bridge on $name', (target) => {
  let db: Db;
  const apps: FastifyInstance[] = [];
  let staffToken: string;

  beforeAll(async () => {
    db = await target.openMigrated();
    const seed = await seedDemoStore(db);
    const idp = await IdentityProvider.load(db, 'http://localhost');
    staffToken = await idp.issueStaffToken({ staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.close();
  });

  const appWith = async (deviceBridgeUrl?: string | null) => {
    const app = await buildApp({
      db,
      config: { baseUrl: 'http://localhost', staticDir: null, ...(deviceBridgeUrl !== undefined ? { deviceBridgeUrl } : {}) },
      recurringInvoices: { enabled: false },
      webhooks: { enabled: false },
    });
    await app.ready();
    apps.push(app);
    return app;
  };
  const get = (app: FastifyInstance, token?: string) =>
    app.inject({
      method: 'GET',
      url: '/api/register/device-bridge',
      headers: { 'x-register-schema-version': '1', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  it('answers the configured bridge address to a register, null when none, 401 without a credential', async () => {
    const configured = await appWith('ws://127.0.0.1:8791');
    const register = await enrollRegister({ app: configured }, staffToken, { name: 'Front counter' });
    const res = await get(configured, register.registerToken);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: 'ws://127.0.0.1:8791' });

    const none = await appWith();
    expect((await get(none, register.registerToken)).json()).toEqual({ url: null });

    const anonymous = await get(configured);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-type']).toContain('application/problem+json');
  });
});
