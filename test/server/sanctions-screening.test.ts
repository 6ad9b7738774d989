/**
 * Sanctions screening: names screened over HTTP against the sample SDN list (test/fixtures/sanctions/ofac-small,
 * the list the demo store is seeded with), written differently, found above the store's threshold; common unrelated
 * names below it. Held screenings cleared or refused by a manager (a cashier gets 403); every decision audited with
 * who, the list version, the top matches and the outcome; new list versions uploaded by the owner, every one kept;
 * at last the full 2019 SDN list uploaded as OFAC publishes it, and screened. On PGlite and PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Screening } from '../../core/screening.ts';
import { actorFromString, mutation } from '../../sync-server/src/kernel/mutation.ts';
import { assertScreeningCleared, screenParty } from '../../sync-server/src/modules/sanctions/service.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { fullSdnFiles } from '../support/sanctions-labelled.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const fixture = (f: string) => readFileSync(new URL(`../fixtures/sanctions/ofac-small/${f}`, import.meta.url), 'utf8');

describe.each(databaseTargets())('sanctions screening on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let manager: string;
  let cashier: string;
  let register: EnrolledRegister;

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const staffToken = async (name: string, role: 'manager' | 'cashier', pin: string): Promise<string> => {
    const created = await call('POST', '/api/pos/staff', owner, { name, role, pin });
    expect(created.statusCode, created.body).toBe(201);
    const res = await call('POST', '/api/register/sign-in', register.registerToken, { staffId: created.json<{ id: string }>().id, pin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ staffToken: string }>().staffToken;
  };
  /** What a workflow's mutation runs on (the database, a clock, a change feed). */
  const app = () => ({ db: server.db, clock: () => new Date(), feed: new ChangeFeed() });
  const screen = async (name: string, token = cashier, role = 'manual'): Promise<Screening> => {
    const res = await call('POST', '/api/pos/screenings', token, { name, role });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Screening>();
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
    manager = await staffToken('Maria Manager', 'manager', '4821');
    cashier = await staffToken('Carl Cashier', 'cashier', '1357');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the demo store starts with the sample list, its version and counts kept', async () => {
    const res = await call('GET', '/api/pos/sanctions-lists', manager);
    expect(res.statusCode, res.body).toBe(200);
    const [list] = res.json<{
      data: { version: string; source: string; entryCount: number; aliasCount: number; addressCount: number; current: boolean }[];
    }>().data;
    expect(list).toMatchObject({ version: 'sample-2025', source: 'sample', entryCount: 17, aliasCount: 18, addressCount: 28, current: true });
  });

  it.each([
    ['order swapped', 'Daniel Moreno', 'MORENO, Daniel'],
    ['order swapped, entity', 'Regions Dialog Autonomous Non-Profit Organization', 'AUTONOMOUS NON-PROFIT ORGANIZATION DIALOG REGIONS'],
    ['accents dropped', 'Artëm Mikhaylovich Lífshits', 'LIFSHITS, Artem Mikhaylovich'],
    ['one letter off', 'Elvis Angus Logan Morej', 'LOGAN MOREY, Elvis Angus'],
    ['one letter off, surname first', 'Khoroshev Dmitri Yuryevich', 'KHOROSHEV, Dmitry Yuryevich'],
    ['an alias', 'Dmitriy Yurevich Khoroshev', 'KHOROSHEV, Dmitry Yuryevich'],
    ['an alias, entity', 'Hesa Trade Centre', 'IRAN AIRCRAFT MANUFACTURING INDUSTRIAL COMPANY'],
    ['an alias, written differently', 'Daniel Gonzalo Moreno Jr', 'MORENO, Daniel'],
  ])('%s: "%s" is found above the threshold', async (_case, name, listed) => {
    const s = await screen(name);
    expect(s.topMatches[0]?.name).toBe(listed);
    expect(s.score).toBeGreaterThanOrEqual(s.threshold);
    expect(s.outcome).not.toBe('clear');
    expect(s.status).toBe(s.outcome === 'blocked' ? 'blocked' : 'held');
    expect(s.listVersion).toBe('sample-2025');
  });

  it.each(['John Smith', 'Maria Garcia', 'Robert Johnson', 'Jennifer Lee', 'Wei Zhang', 'Mohammed Ali', 'Emily Davis', 'Acme Hardware Supply'])(
    'common unrelated name "%s" stays below the threshold',
    async (name) => {
      const s = await screen(name);
      expect(s.score).toBeLessThan(s.threshold);
      expect(s).toMatchObject({ outcome: 'clear', status: 'clear' });
    },
  );

  it('a held screening is cleared by a manager with a reason, not by a cashier; the transaction may then go on', async () => {
    const held = await screen('Elvis Angus Logan Morej', cashier, 'transfer_receiver');
    expect(held).toMatchObject({ outcome: 'potential_match', status: 'held' });
    const check = () =>
      mutation(app(), actorFromString(server.credentials.merchantId, 'system'), (m) => assertScreeningCleared(m.tx, m.merchantId, held.id));
    await expect(check()).rejects.toMatchObject({ status: 409, code: 'screening_hold' });

    const byCashier = await call('POST', `/api/pos/screenings/${held.id}/clear`, cashier, { reason: 'looks fine' });
    expect(byCashier.statusCode, byCashier.body).toBe(403);
    const noReason = await call('POST', `/api/pos/screenings/${held.id}/clear`, manager, {});
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json<{ errors: { path: string }[] }>().errors[0]?.path).toBe('reason');

    const cleared = await call('POST', `/api/pos/screenings/${held.id}/clear`, manager, {
      reason: 'Customer born 1990 in Texas; listed person born 1963 in Belize',
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({
      status: 'cleared',
      decidedBy: expect.stringMatching(/^staff:/),
      decisionReason: expect.stringContaining('1963'),
    });
    await expect(check()).resolves.toBeUndefined();
    const again = await call('POST', `/api/pos/screenings/${held.id}/refuse`, manager, { reason: 'changed my mind' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'illegal_state_transition', currentState: 'cleared' });

    const audit = await server.db.query<{ action: string; actor: string; data: Record<string, unknown> }>(
      'SELECT action, actor, data FROM audit_log WHERE entity_id = $1 ORDER BY seq',
      [held.id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['screening.screened', 'screening.cleared']);
    expect(audit.rows[0]).toMatchObject({
      actor: held.screenedBy,
      data: { listVersion: 'sample-2025', outcome: 'potential_match', role: 'transfer_receiver', threshold: held.threshold },
    });
    expect((audit.rows[0]!.data.topMatches as { sdnId: number; score: number }[])[0]).toMatchObject({ sdnId: 10278, score: held.score });
    expect(audit.rows[1]).toMatchObject({
      actor: cleared.json<Screening>().decidedBy,
      data: { reason: expect.any(String), listVersion: 'sample-2025' },
    });
  });

  it('a manager refuses a held screening; refused and blocked screenings stop the transaction', async () => {
    const held = await screen('Dmitri Khoroshev');
    expect(held.status).toBe('held');
    const refused = await call('POST', `/api/pos/screenings/${held.id}/refuse`, manager, { reason: 'Same date of birth as the listed person' });
    expect(refused.statusCode, refused.body).toBe(200);
    expect(refused.json()).toMatchObject({ status: 'refused' });
    const blocked = await screen('Daniel Moreno');
    expect(blocked).toMatchObject({ outcome: 'blocked', status: 'blocked', score: 1 });
    for (const id of [held.id, blocked.id]) {
      await expect(
        mutation(app(), actorFromString(server.credentials.merchantId, 'system'), (m) => assertScreeningCleared(m.tx, m.merchantId, id)),
      ).rejects.toMatchObject({ status: 409, code: 'screening_hold' });
    }
    const clearBlocked = await call('POST', `/api/pos/screenings/${blocked.id}/clear`, manager, { reason: 'not him' });
    expect(clearBlocked.statusCode).toBe(409);
  });

  it("screenParty runs inside another workflow's mutation and answers the decision", async () => {
    const result = await mutation(app(), actorFromString(server.credentials.merchantId, 'staff:stf_test'), (m) =>
      screenParty(m.tx, m.merchantId, { name: 'John Smith', role: 'check_casher', subjectRef: 'chk_1' }, m),
    );
    expect(result).toMatchObject({
      outcome: 'clear',
      status: 'clear',
      listVersion: 'sample-2025',
      threshold: 0.85,
      screeningId: expect.stringMatching(/^scr_/),
    });
    expect(result.score).toBeLessThan(result.threshold);
    const list = await call('GET', '/api/pos/screenings?subjectRef=chk_1', manager);
    expect(list.json<{ data: Screening[] }>().data.map((s) => s.id)).toEqual([result.screeningId]);
  });

  it('lists screenings with filters (held ones for the back office); cashiers may not list', async () => {
    const held = await screen('Artem Lifshitz');
    expect(held.status).toBe('held');
    const res = await call('GET', '/api/pos/screenings?status=held&limit=50', manager);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<{ data: Screening[] }>();
    expect(page.data.every((s) => s.status === 'held')).toBe(true);
    expect(page.data.map((s) => s.id)).toContain(held.id);
    expect((await call('GET', '/api/pos/screenings?q=lifshitz', manager)).json<{ data: Screening[] }>().data[0]?.id).toBe(held.id);
    expect((await call('GET', '/api/pos/screenings', cashier)).statusCode).toBe(403);
    expect((await call('GET', `/api/pos/screenings/${held.id}`, cashier)).json()).toMatchObject({ id: held.id, status: 'held' });
    expect((await call('GET', '/api/pos/screenings?status=maybe', manager)).statusCode).toBe(400);
    const paged = await call('GET', '/api/pos/screenings?limit=2', manager);
    const next = paged.json<{ nextCursor: string }>().nextCursor;
    expect(next).toBeTruthy();
    const page2 = await call('GET', `/api/pos/screenings?limit=2&cursor=${next}`, manager);
    expect(page2.statusCode).toBe(200);
  });

  it('bad input is a 400 naming the field', async () => {
    for (const body of [{}, { name: '' }, { name: '!!!' }, { name: 'x'.repeat(201) }, { name: 'Ann', role: 'Bad Role' }, { name: 'Ann', extra: 1 }]) {
      const res = await call('POST', '/api/pos/screenings', cashier, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json<{ errors: unknown[] }>().errors.length).toBeGreaterThan(0);
    }
  });

  it('the owner uploads a new list version: it becomes current, earlier versions are kept; managers may not upload', async () => {
    const files = {
      sdnCsv: fixture('sdn.csv') + '99999,"SAMPLE, Testy","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n',
      altCsv: fixture('alt.csv'),
      addCsv: fixture('add.csv'),
    };
    expect((await call('POST', '/api/pos/sanctions-lists', manager, { ...files, version: 'x' })).statusCode).toBe(403);
    const bad = await call('POST', '/api/pos/sanctions-lists', owner, { sdnCsv: 'hello,world\nnot,a list' });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_sanctions_list', errors: [{ path: 'sdnCsv' }] });
    const up = await call('POST', '/api/pos/sanctions-lists', owner, { ...files, version: '2025-06-01', publishedOn: '2025-06-01' });
    expect(up.statusCode, up.body).toBe(201);
    expect(up.json()).toMatchObject({ version: '2025-06-01', publishedOn: '2025-06-01', entryCount: 18, source: 'upload', current: true });
    const versions = (await call('GET', '/api/pos/sanctions-lists', manager)).json<{ data: { version: string; current: boolean }[] }>().data;
    expect(versions.map((v) => [v.version, v.current])).toEqual([
      ['2025-06-01', true],
      ['sample-2025', false],
    ]);
    const s = await screen('Testy Sample');
    expect(s).toMatchObject({ listVersion: '2025-06-01', outcome: 'blocked' });
    expect(s.topMatches[0]).toMatchObject({ sdnId: 99999 });
    const audit = await server.db.query<{ actor: string; data: { version: string } }>(
      "SELECT actor, data FROM audit_log WHERE action = 'sanctions_list.loaded' ORDER BY seq",
    );
    expect(audit.rows.map((r) => r.data.version)).toEqual(['sample-2025', '2025-06-01']);
  });

  it('the thresholds are store settings: owners change them, audited', async () => {
    expect((await call('GET', '/api/pos/screening-settings', manager)).json()).toEqual({ matchThreshold: 0.85, blockThreshold: 1 });
    expect((await call('PATCH', '/api/pos/screening-settings', manager, { matchThreshold: 0.9 })).statusCode).toBe(403);
    expect((await call('PATCH', '/api/pos/screening-settings', owner, { matchThreshold: 0 })).statusCode).toBe(400);
    expect((await call('PATCH', '/api/pos/screening-settings', owner, { matchThreshold: 0.95, blockThreshold: 0.9 })).statusCode).toBe(400);
    const res = await call('PATCH', '/api/pos/screening-settings', owner, { blockThreshold: 1.01 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ matchThreshold: 0.85, blockThreshold: 1.01 });
    const s = await screen('Daniel Moreno');
    expect(s).toMatchObject({ outcome: 'potential_match', status: 'held', blockThreshold: 1.01 });
    await call('PATCH', '/api/pos/screening-settings', owner, { blockThreshold: 1 });
  });
  it('the full 2019 SDN list, uploaded as OFAC publishes it: ordinary names stay clear, listed names written differently are held', async () => {
    const files = fullSdnFiles();
    const up = await call('POST', '/api/pos/sanctions-lists', owner, { ...files, version: 'ofac-2019-01-15', publishedOn: '2019-01-15' });
    expect(up.statusCode, up.body).toBe(201);
    expect(up.json()).toMatchObject({ version: 'ofac-2019-01-15', entryCount: 7379, aliasCount: 9682, addressCount: 11696, current: true });
    const remarks = await server.db.query<{ remarks: string }>(
      'SELECT e.remarks FROM sanctions_entries e JOIN sanctions_lists l ON l.id = e.list_id WHERE l.version = $1 AND e.ent_num = 12300',
      ['ofac-2019-01-15'],
    );
    expect(remarks.rows[0]?.remarks).toMatch(/^DOB 13 May 1965; .*Linked To: R D I S\.A\.$/); // continued in sdn_comments.csv
    for (const name of ['John Smith', 'Richard Gonzalez', 'Maria Garcia', 'Michael Lewis', 'Robert Black']) {
      expect(await screen(name), name).toMatchObject({ listVersion: 'ofac-2019-01-15', outcome: 'clear', status: 'clear' });
    }
    const listed = await screen('John Numbi');
    expect(listed).toMatchObject({ outcome: 'blocked', status: 'blocked', score: 1 });
    expect(listed.topMatches[0]).toMatchObject({ sdnId: 20420, name: 'NUMBI, John', score: 1 });
    for (const name of ['Jhon Numbi', 'Numbi John', 'Jöhn Nubmi', 'Fernando Maldonado Escobr']) {
      const s = await screen(name);
      expect(s, name).toMatchObject({ outcome: 'potential_match', status: 'held' });
      expect(s.topMatches[0]?.sdnId, name).toBe(name.startsWith('Fernando') ? 10286 : 20420);
    }
  });
});
