/**
 * The floor plan API: the back office saves the whole plan from the version it opened; registers read it. A table
 * keeps its id across renames and moves (open checks name it); broken rules are 400s naming the field; a save over a
 * newer version is a 409, never a silent overwrite; every save is audited with what changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FloorPlan } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('floor plan on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let register: EnrolledRegister;
  let cashier: string;

  const call = (method: string, url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const table = (name: string, x: number, y: number, extra: Record<string, unknown> = {}) => ({
    name,
    seats: 4,
    shape: 'square',
    x,
    y,
    width: 80,
    height: 80,
    ...extra,
  });

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
    const cashierId = (await call('POST', '/api/pos/staff', owner, { name: 'Cass Cashier', role: 'cashier', pin: '1357' })).json<{ id: string }>().id;
    const signIn = await call('POST', '/api/register/sign-in', register.registerToken, { staffId: cashierId, pin: '1357' });
    cashier = signIn.json<{ staffToken: string }>().staffToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('starts empty, saves areas and tables with new ids, and keeps a table id across a rename and a move', async () => {
    const empty = await call('GET', '/api/pos/floor-plan', register.registerToken);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({ version: 0, areas: [], updatedAt: null });

    const first = await call('PUT', '/api/pos/floor-plan', owner, {
      version: 0,
      areas: [
        { name: 'Dining room', tables: [table('12', 100, 100), table('14', 300, 100, { shape: 'round', seats: 2 })] },
        { name: 'Patio', tables: [table('P1', 0, 0, { shape: 'rectangle', width: 160, seats: 6 })] },
      ],
    });
    expect(first.statusCode, first.body).toBe(200);
    const saved = first.json<FloorPlan>();
    expect(saved.version).toBe(1);
    expect(saved.areas.map((a) => a.id)).toEqual([expect.stringMatching(/^fla_/), expect.stringMatching(/^fla_/)]);
    const twelve = saved.areas[0]!.tables[0]!;
    expect(twelve).toMatchObject({ id: expect.stringMatching(/^tbl_/), name: '12', seats: 4 });

    // The register reads what was saved.
    expect((await call('GET', '/api/pos/floor-plan', register.registerToken)).json()).toEqual(saved);

    // Renamed and moved: the same id.
    const second = await call('PUT', '/api/pos/floor-plan', owner, {
      version: 1,
      areas: [
        { id: saved.areas[0]!.id, name: 'Dining room', tables: [{ ...twelve, name: '12A', x: 500 }, saved.areas[0]!.tables[1]] },
        saved.areas[1],
      ],
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json<FloorPlan>().areas[0]!.tables[0]).toEqual({ ...twelve, name: '12A', x: 500 });

    const audit = await server.db.query<{ data: { version: number; tablesAdded: unknown[]; tablesRenamed: unknown[] } }>(
      `SELECT data FROM audit_log WHERE action = 'floor_plan.saved' ORDER BY seq`,
    );
    expect(audit.rows.map((r) => r.data.version)).toEqual([1, 2]);
    expect(audit.rows[0]!.data.tablesAdded).toHaveLength(3);
    expect(audit.rows[1]!.data.tablesRenamed).toEqual([{ id: twelve.id, from: '12', to: '12A' }]);
  });

  it('refuses a save over a newer version with a 409, and leaves the plan as it was', async () => {
    const current = (await call('GET', '/api/pos/floor-plan', owner)).json<FloorPlan>();
    const stale = await call('PUT', '/api/pos/floor-plan', owner, { version: current.version - 1, areas: [] });
    expect(stale.statusCode, stale.body).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'floor_plan_changed' });
    expect((await call('GET', '/api/pos/floor-plan', owner)).json()).toEqual(current);
  });

  it('names the field of each broken rule in a 400: duplicate names, overlap, outside the canvas, foreign ids', async () => {
    const current = (await call('GET', '/api/pos/floor-plan', owner)).json<FloorPlan>();
    const bad = await call('PUT', '/api/pos/floor-plan', owner, {
      version: current.version,
      areas: [
        { name: 'Bar', tables: [table('B1', 0, 0), table('b1', 40, 40), table('B3', 1150, 0)] },
        { name: 'bar', tables: [] },
      ],
    });
    expect(bad.statusCode, bad.body).toBe(400);
    const paths = bad.json<{ errors: { path: string }[] }>().errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['areas.0.tables.1.name', 'areas.0.tables.1.x', 'areas.0.tables.2.x', 'areas.1.name']));

    const foreign = await call('PUT', '/api/pos/floor-plan', owner, {
      version: current.version,
      areas: [{ name: 'Bar', tables: [{ ...table('B1', 0, 0), id: 'tbl_01JAAAAAAAAAAAAAAAAAAAAAAA' }] }],
    });
    expect(foreign.statusCode, foreign.body).toBe(400);
    expect(foreign.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toEqual(['areas.0.tables.0.id']);

    const shape = await call('PUT', '/api/pos/floor-plan', owner, {
      version: current.version,
      areas: [{ name: 'Bar', tables: [table('B1', 0, 0, { shape: 'hexagon' })] }],
    });
    expect(shape.statusCode, shape.body).toBe(400);
    expect(shape.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toEqual(['areas.0.tables.0.shape']);
    expect((await call('GET', '/api/pos/floor-plan', owner)).json()).toEqual(current);
  });

  it('lets a cashier read the plan but not change it', async () => {
    expect((await call('GET', '/api/pos/floor-plan', cashier)).statusCode).toBe(200);
    const res = await call('PUT', '/api/pos/floor-plan', cashier, { version: 0, areas: [] });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({ code: 'role_not_allowed' });
  });
});
