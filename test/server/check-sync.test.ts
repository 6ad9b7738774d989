/**
 * Open checks replicated through the sync API (`checks`, `check-lines`, `check-payments`): two registers edit the
 * same check while apart — one moves a line and adds another, the other voids the first line and sends to the
 * kitchen — and push in turn. The server joins each pushed document with the one it holds (never overwrites): the
 * second register is answered with the join, which keeps both registers' changes, and a third register pulls the same
 * check. Each change is one audit entry naming the register and staff member that made it; an invalid document is
 * quarantined and never stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCheckLine,
  addServiceCharges,
  chargeTaxesOf,
  checkDocumentsOf,
  newId,
  closeCheck,
  computeOrderTotals,
  recordCheckPayment,
  EMPTY_CHECK_BOOK,
  mergeCheckBooks,
  moveCheckLine,
  openCheck,
  sendCheckLines,
  voidCheckLine,
  type CheckBook,
  type CheckLine,
  type OrderLine,
} from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('open checks through sync on $name', (target) => {
  let server: TestServer;
  let a: EnrolledRegister;
  let b: EnrolledRegister;
  let c: EnrolledRegister;
  let lines: OrderLine[];
  const logLines: string[] = [];

  const push = async (register: EnrolledRegister, collection: string, docs: object[]) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/sync/${collection}/push`,
      headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Record<string, unknown>[]>();
  };
  const pushBook = async (register: EnrolledRegister, book: CheckBook) => {
    const docs = checkDocumentsOf(book);
    return {
      checks: await push(register, 'checks', docs.checks),
      lines: await push(register, 'check-lines', docs['check-lines']),
      payments: await push(register, 'check-payments', docs['check-payments']),
    };
  };
  const pull = async (register: EnrolledRegister, collection: string) => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/sync/${collection}/pull?seq=0&limit=100`,
      headers: { authorization: `Bearer ${register.registerToken}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ documents: Record<string, unknown>[] }>().documents;
  };
  const strip = ({ updatedAt: _u, syncSeq: _s, _deleted, ...doc }: Record<string, unknown>) => doc;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, logger: { write: (line) => void logLines.push(line) } });
    a = await enrollRegister(server, server.credentials.staffToken);
    b = await enrollRegister(server, server.credentials.staffToken);
    c = await enrollRegister(server, server.credentials.staffToken);
    lines = buildSale({ register: a, sequence: 1, catalog: server.catalog }).order.lines;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('joins two registers’ edits of one check made apart, answers the join, and every register pulls it', async () => {
    const staff = server.credentials.staffId;
    const at = (minute: number, register: EnrolledRegister) => ({
      at: `2026-11-28T12:${String(minute).padStart(2, '0')}:00.000Z`,
      by: register.registerId,
      staffId: staff,
    });
    const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'tab', name: 'Ana', guests: 2, serverStaffId: staff }, at(0, a));
    const checkId = opened.checkId;
    let shared = addCheckLine(opened.book, checkId, lines[0]!, { seat: 1, course: 1 }, at(1, a));
    shared = addCheckLine(shared, checkId, lines[1]!, { seat: 2, course: 2 }, at(1, a));
    expect((await pushBook(a, shared)).checks).toEqual([]);

    // Apart: A moves line 0 to seat 2 and adds line 2; B voids line 0 and fires the second course.
    let onA = moveCheckLine(shared, lines[0]!.id, { seat: 2 }, at(5, a));
    onA = addCheckLine(onA, checkId, lines[2]!, { seat: null, course: 1 }, at(6, a));
    let onB = voidCheckLine(shared, lines[0]!.id, 'guest changed their mind', staff, at(4, b));
    onB = sendCheckLines(onB, checkId, at(7, b), { course: 2 }).book;

    const fromA = await pushBook(a, onA);
    expect(fromA.lines).toEqual([]);
    // B had not heard of A's move: the server answers B's line 0 with the join (voided and moved); line 1 is B's as sent.
    const fromB = await pushBook(b, onB);
    const joined = mergeCheckBooks(onA, onB);
    expect(fromB.lines.map(strip)).toEqual([{ id: lines[0]!.id, ...joined.lines[lines[0]!.id] }]);
    const answered = strip(fromB.lines[0]!) as unknown as CheckLine;
    expect(answered.voided?.reason).toBe('guest changed their mind');
    expect(answered.place.seat).toBe(2);

    // A third register pulls the joined book: all three lines, the void kept, nothing lost.
    const pulled = (await pull(c, 'check-lines')).map(strip);
    expect(Object.fromEntries(pulled.map(({ id, ...line }) => [id as string, line]))).toEqual(joined.lines);
    expect((await pull(c, 'checks')).map(strip)).toEqual(Object.values(joined.checks));

    // Pushing the same book again changes nothing and audits nothing.
    const audits = async () =>
      (
        await server.db.query<{ action: string; data: { registerId: string; staffId: string } }>(
          `SELECT action, data FROM audit_log WHERE merchant_id = $1 AND (action LIKE 'check.%' OR action LIKE 'check_line.%') ORDER BY seq`,
          [server.credentials.merchantId],
        )
      ).rows;
    const before = await audits();
    expect(await pushBook(b, joined)).toEqual({ checks: [], lines: [], payments: [] });
    expect(await audits()).toEqual(before);
    expect(before.map((r) => [r.action, r.data.registerId])).toEqual([
      ['check.opened', a.registerId],
      ['check_line.added', a.registerId],
      ['check_line.added', a.registerId],
      ['check_line.moved', a.registerId],
      ['check_line.added', a.registerId],
      ['check_line.voided', b.registerId],
      ['check_line.sent', b.registerId],
    ]);
    expect(before.every((r) => r.data.staffId === staff)).toBe(true);
  });

  it('flags the later of two payments of one check taken on two registers apart, once, and alerts the managers', async () => {
    const staff = server.credentials.staffId;
    const at = (minute: number, register: EnrolledRegister) => ({
      at: `2026-11-28T13:${String(minute).padStart(2, '0')}:00.000Z`,
      by: register.registerId,
      staffId: staff,
    });
    const dish = buildSale({ register: a, sequence: 2, catalog: server.catalog }).order.lines[0]!;
    const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'tab', name: 'Bea', guests: 2, serverStaffId: staff }, at(0, a));
    const checkId = opened.checkId;
    const base = addCheckLine(opened.book, checkId, dish, { seat: null, course: 1 }, at(1, a));
    await pushBook(a, base);
    const total = computeOrderTotals([dish], []).totalCents;
    // Apart, each register takes the whole check's payment and closes it.
    const pay = (register: EnrolledRegister, orderId: string, minute: number) =>
      closeCheck(recordCheckPayment(base, { orderId, checkId, amountCents: total, stamp: at(minute, register) }), checkId, at(minute, register));
    const onA = pay(a, 'ord_01JF0000000000000000000001', 30);
    const onB = pay(b, 'ord_01JF0000000000000000000002', 31);
    await pushBook(a, onA);
    expect(await flagged()).toEqual([]);
    await pushBook(b, onB);

    // The later payment (B's) owes back all of it: flagged, and every register pulls the flag with the payment.
    const listed = await flagged();
    expect(listed).toEqual([
      expect.objectContaining({
        checkId,
        checkName: 'Bea',
        orderId: 'ord_01JF0000000000000000000002',
        amountCents: total,
        refundCents: total,
        registerId: b.registerId,
      }),
    ]);
    const pulled = (await pull(c, 'check-payments')).map(strip).filter((p) => p.checkId === checkId);
    expect(pulled.map((p) => [p.orderId, (p.refund as { refundCents: number } | undefined)?.refundCents ?? null])).toEqual([
      ['ord_01JF0000000000000000000001', null],
      ['ord_01JF0000000000000000000002', total],
    ]);
    // The manager's alert: a warning naming the payment, and the audit trail holds both payments and the flag.
    const alerts = () => logLines.filter((l) => l.includes('"alert":"check.overpaid"'));
    expect(alerts()).toHaveLength(1);
    expect(alerts()[0]).toContain('ord_01JF0000000000000000000002');
    const trail = async () =>
      (
        await server.db.query<{ action: string; entity_id: string; data: { refundCents?: number } }>(
          `SELECT action, entity_id, data FROM audit_log WHERE merchant_id = $1 AND action LIKE 'check_payment.%' AND data->>'checkId' = $2 ORDER BY seq`,
          [server.credentials.merchantId, checkId],
        )
      ).rows.map((r) => [r.action, r.entity_id, r.data.refundCents ?? null]);
    const before = await trail();
    expect(before).toEqual([
      ['check_payment.recorded', 'ord_01JF0000000000000000000001', null],
      ['check_payment.recorded', 'ord_01JF0000000000000000000002', null],
      ['check_payment.flagged_for_refund', 'ord_01JF0000000000000000000002', total],
    ]);

    // Pushed again — by either register, with or without the flag they pulled — nothing changes.
    const met = mergeCheckBooks(onA, onB);
    await pushBook(a, met);
    await pushBook(b, onB);
    expect(await push(c, 'check-payments', pulled)).toEqual([]);
    expect(await trail()).toEqual(before);
    expect(await flagged()).toEqual(listed);
    expect(alerts()).toHaveLength(1);
  });

  const flagged = async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/pos/check-overpayments',
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ items: Record<string, unknown>[] }>().items;
  };

  it('refuses a floor plan save that removes a table with an open check, naming the table', async () => {
    const put = async (body: object) =>
      server.app.inject({
        method: 'PUT',
        url: '/api/pos/floor-plan',
        headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const table = (name: string, x: number) => ({ name, seats: 4, shape: 'square', x, y: 100, width: 80, height: 80 });
    const first = await put({ version: 0, areas: [{ name: 'Patio', tables: [table('P1', 100), table('P2', 300)] }] });
    expect(first.statusCode, first.body).toBe(200);
    const plan = first.json<{ version: number; areas: { id: string; name: string; tables: { id: string; name: string }[] }[] }>();
    const [p1, p2] = plan.areas[0]!.tables;
    const staff = server.credentials.staffId;
    const stamp = { at: '2026-11-28T14:00:00.000Z', by: a.registerId, staffId: staff };
    const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'table', tableId: p1!.id, name: 'P1', guests: 2, serverStaffId: staff }, stamp);
    await pushBook(a, opened.book);

    const withoutP1 = { version: plan.version, areas: [{ id: plan.areas[0]!.id, name: 'Patio', tables: [{ ...table('P2', 300), id: p2!.id }] }] };
    const refused = await put(withoutP1);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'table_has_open_check', detail: expect.stringContaining('table P1') });
    // Once the check is closed, the table may go.
    await pushBook(a, closeCheck(opened.book, opened.checkId, { ...stamp, at: '2026-11-28T15:00:00.000Z' }));
    const saved = await put(withoutP1);
    expect(saved.statusCode, saved.body).toBe(200);
  });

  it('totals a check with the store’s automatic gratuity: paying the charged total is not an overpayment', async () => {
    const staff = server.credentials.staffId;
    const put = (body: object) =>
      server.app.inject({
        method: 'PUT',
        url: '/api/pos/service-charges',
        headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const settings = {
      serviceChargeBasisPoints: 0,
      serviceChargeTaxable: true,
      gratuityBasisPoints: 1800,
      gratuityPartySize: 6,
      gratuityTaxable: true,
    };
    const bad = await put({ ...settings, gratuityPartySize: 0 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'gratuityPartySize' })] });
    expect((await put(settings)).statusCode).toBe(200);
    try {
      const dish = buildSale({ register: a, sequence: 3, catalog: server.catalog }).order.lines[0]!;
      const stamp = (minute: number) => ({ at: `2026-11-28T16:${String(minute).padStart(2, '0')}:00.000Z`, by: a.registerId, staffId: staff });
      const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'tab', name: 'Party of 8', guests: 8, serverStaffId: staff }, stamp(0));
      const base = addCheckLine(opened.book, opened.checkId, dish, { seat: null, course: 1 }, stamp(1));
      const ids = { serviceCharge: newId('orderLine'), gratuity: newId('orderLine') };
      const plain = computeOrderTotals([dish], []);
      const charged = addServiceCharges(plain, 8, settings, chargeTaxesOf([dish]), ids).totals.totalCents;
      expect(charged).toBeGreaterThan(plain.totalCents);
      const paid = recordCheckPayment(base, { orderId: newId('order'), checkId: opened.checkId, amountCents: charged, stamp: stamp(40) });
      await pushBook(a, closeCheck(paid, opened.checkId, stamp(41)));
      expect((await flagged()).filter((f) => f.checkId === opened.checkId)).toEqual([]);
    } finally {
      await put({ ...settings, gratuityBasisPoints: 0 });
    }
  });

  it('quarantines an invalid check document and stores nothing of it', async () => {
    const answer = await push(a, 'checks', [{ id: 'chk_not-an-id', kind: 'table', name: 'x' }]);
    expect(answer).toHaveLength(1);
    expect(answer[0]).toMatchObject({ rejection: { reason: expect.stringContaining('invalid document') } });
    const stored = await server.db.query(`SELECT 1 FROM checks WHERE id = 'chk_not-an-id'`);
    expect(stored.rows).toHaveLength(0);
  });
});
