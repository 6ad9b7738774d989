/**
 * Financial services, the last gaps, through HTTP and the sync push on both databases:
 *
 * - shift cash: a check cashed pays its payout out of the register's drawer, a transfer and a bill payment take
 *   amount + fee in, a transfer canceled at the counter hands it back; the register records each answer as a cash
 *   movement of its open shift (named in the request), so its own Z-report's expected cash includes them — and the
 *   server's recompute from its service records agrees: counted = expected, over/short 0, no difference flagged;
 * - the store's fee schedule and limits: the owner changes them (`PATCH /api/pos/financial-services/settings`: 400
 *   naming the field, 403 for a manager, audited with before and after) and all three services use them;
 * - the check image the scanner delivered is stored with the record and served to staff byte for byte
 *   (`GET /api/pos/check-cashings/{id}/image`), never in the audit trail, 404 for another store;
 * - the housekeeping tick advances transfers (sent → available → paid, refunded) and bill payments (posted, rejected
 *   with the reversal) from the partner, without anyone pressing refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeZReport, newId, type CashMovement, type Shift, type ShiftCloseout } from '../../core/index.ts';
import { placeholderCheckPng } from '../../electron/devices/index.ts';
import { ensureChartOfAccounts } from '../../sync-server/src/kernel/ledger.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { buildAamvaPayload } from '../support/aamva.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;
const MANAGER = 'stf_01JRA1FSGAPMANAGER000000000';
const OTHER_MERCHANT = 'mer_01JRA1FSGAP0THER0000000000';
const OTHER_OWNER = 'stf_01JRA1FSGAP0THER0WNER00000';

/** A version-03 licence (California IIN), born 1980-07-04, valid until 2029-07-04. */
const licence = (first: string, last: string, number: string) =>
  buildAamvaPayload(3, '636014', 'DL', [
    ['DCS', last],
    ['DCT', first],
    ['DAQ', number],
    ['DBB', '07041980'],
    ['DBA', '07042029'],
    ['DBC', '1'],
  ]);
const micr = (checkNumber: string) => ({ routingNumber: '075901231', accountNumber: '456327', checkNumber });

describe.each(databaseTargets())('financial services: shift cash, settings, check image, tick on $name', (target) => {
  let server: TestServer;
  let register: EnrolledRegister;
  const realStart = Date.now();
  let now = new Date(realStart);
  const tokens = { owner: '', manager: '', other: '' };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, recurringInvoices: { enabled: false } });
    // The demo store made a sandbox store: money may move.
    await server.db.query(`UPDATE merchants SET is_demo = false WHERE id = $1`, [server.credentials.merchantId]);
    await server.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO staff (id, merchant_id, name, role) VALUES ($1, $2, 'Maria Manager', 'manager')`, [
        MANAGER,
        server.credentials.merchantId,
      ]);
      await tx.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Other Corner', 'USD')`, [OTHER_MERCHANT]);
      await tx.query(`INSERT INTO staff (id, merchant_id, name, role) VALUES ($1, $2, 'Other Owner', 'owner')`, [OTHER_OWNER, OTHER_MERCHANT]);
      await ensureChartOfAccounts(tx, OTHER_MERCHANT);
    });
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    tokens.owner = server.credentials.staffToken;
    tokens.manager = await idp.issueStaffToken({ staffId: MANAGER, merchantId: server.credentials.merchantId, role: 'manager' });
    tokens.other = await idp.issueStaffToken({ staffId: OTHER_OWNER, merchantId: OTHER_MERCHANT, role: 'owner' });
    register = await enrollRegister(server, server.credentials.staffToken, { name: 'Services till' });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, bearer = tokens.owner) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const push = async (collection: string, docs: unknown[]) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/sync/${collection}/push`,
      headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Json[]>();
  };
  const drawer = async () => {
    const tb = (await call('GET', '/api/pos/ledger/trial-balance')).json<{ accounts: { code: string; balanceCents: number }[] }>();
    return tb.accounts.find((a) => a.code === `cash_drawer:R${register.registerNumber}`)?.balanceCents ?? 0;
  };
  const at = (minutes: number) => new Date(realStart + minutes * 60_000).toISOString();
  /** The register's record of a service's cash (as shifts/shift-store.ts `recordServiceCash` writes it). */
  const serviceMove = (shift: Shift, kind: CashMovement['kind'], serviceRef: string, amountCents: number, feeCents: number): CashMovement => ({
    id: newId('cashMovement'),
    shiftId: shift.id,
    registerId: shift.registerId,
    registerNumber: shift.registerNumber,
    kind,
    amountCents,
    feeCents,
    serviceRef,
    reason: `${kind} ${serviceRef}`,
    createdAt: at(1),
  });

  it("a check cashed, a transfer, a bill and a canceled transfer move the shift's expected cash; the register's Z-report and the server's agree: over/short 0", async () => {
    const shift: Shift = {
      id: newId('shift'),
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      currency: 'USD',
      openedAt: at(-10),
      openingFloatCents: 40_000,
      openingCount: [{ kind: 'note', valueCents: 2_000, count: 20 }],
    };
    expect(await push('shifts', [shift])).toEqual([]);
    const drawerBefore = await drawer();
    const base = { registerNumber: register.registerNumber, shiftId: shift.id };

    const check = await call('POST', '/api/pos/check-cashings', {
      micr: micr('7001'),
      amountCents: 25_000,
      idPayload: licence('JOHN Q', 'PUBLIC', 'Y1234567'),
      imagePng: placeholderCheckPng().toString('base64'),
      ...base,
    });
    expect(check.statusCode, check.body).toBe(201);
    const c = check.json();
    expect(c).toMatchObject({ status: 'paid', feeCents: 350, payoutCents: 24_650, hasImage: true });
    const transfer = (
      await call('POST', '/api/pos/transfers', {
        amountCents: 10_000,
        country: 'MX',
        payoutMethod: 'cash_pickup',
        receiverName: 'Ana Lopez',
        idPayload: licence('MARY', 'MAJOR', 'Y7654321'),
        ...base,
      })
    ).json();
    expect(transfer.status).toBe('sent');
    const canceledOne = (
      await call('POST', '/api/pos/transfers', {
        amountCents: 5_000,
        country: 'PH',
        payoutMethod: 'cash_pickup',
        receiverName: 'Jose Reyes',
        idPayload: licence('MARY', 'MAJOR', 'Y7654321'),
        ...base,
      })
    ).json();
    const canceled = await call('POST', `/api/pos/transfers/${canceledOne.id}/cancel`, { shiftId: shift.id });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(canceled.json().status).toBe('canceled');
    const bill = (
      await call('POST', '/api/pos/bill-payments', {
        billerId: 'blr_metro_power',
        accountNumber: '1234567897',
        amountCents: 8_000,
        customerName: 'John Public',
        ...base,
      })
    ).json();
    expect(bill).toMatchObject({ status: 'accepted', totalCents: 8_150 });
    // A bad shift id is the caller's 400, naming the field.
    const badShift = await call('POST', `/api/pos/transfers/${transfer.id}/cancel`, { shiftId: 'shf_nope' });
    expect([badShift.statusCode, badShift.json().errors?.[0]?.path]).toEqual([400, 'shiftId']);

    // The services posted their own journal transactions to the drawer: −24 650 + 10 499 + (5 499 − 5 499) + 8 150.
    expect((await drawer()) - drawerBefore).toBe(-24_650 + 10_499 + 8_150);

    // The register stores each answer's cash as a movement of its shift and pushes it: no journal transaction of its own.
    const moves = [
      serviceMove(shift, 'check_cashed', c.id, c.payoutCents, c.feeCents),
      serviceMove(shift, 'transfer_in', transfer.id, 10_499, 499),
      serviceMove(shift, 'transfer_in', canceledOne.id, 5_499, 499),
      serviceMove(shift, 'transfer_canceled', canceledOne.id, 5_499, 499),
      serviceMove(shift, 'bill_payment_in', bill.id, bill.totalCents, bill.feeCents),
    ];
    expect(await push('cash-movements', moves)).toEqual([]);
    expect((await drawer()) - drawerBefore).toBe(-24_650 + 10_499 + 8_150);
    // A service movement that names no service record is refused.
    const [refused] = await push('cash-movements', [{ ...serviceMove(shift, 'check_cashed', c.id, 100, 0), serviceRef: undefined }]);
    expect(refused?.rejection?.reason).toMatch(/serviceRef/);

    // The register's X/Z figures, offline, from what it stores.
    const x = computeZReport(shift, [], moves);
    expect(x.services).toEqual({
      checksCashed: { count: 1, amountCents: 24_650 },
      transfersIn: { count: 2, amountCents: 15_998 },
      billPaymentsIn: { count: 1, amountCents: 8_150 },
      transfersCanceled: { count: 1, amountCents: 5_499 },
      feesCents: 350 + 499 + 150,
    });
    expect(x.expectedCashCents).toBe(40_000 - 24_650 + 10_499 + 8_150);
    // The server's X-report of the open shift, from its own records, says the same.
    const open = (await call('GET', `/api/pos/shifts/${shift.id}`, undefined, tokens.manager)).json();
    expect(open.report.services).toEqual(x.services);
    expect(open.report.expectedCashCents).toBe(x.expectedCashCents);

    // Close: the cashier counts exactly what the register expects.
    const closedAt = at(2);
    const counted = x.expectedCashCents;
    const counts = [
      { kind: 'note' as const, valueCents: 2_000, count: Math.floor(counted / 2_000) },
      { kind: 'coin' as const, valueCents: 1, count: counted % 2_000 },
    ];
    const closeout: ShiftCloseout = {
      id: newId('shiftCloseout'),
      shiftId: shift.id,
      registerId: shift.registerId,
      registerNumber: shift.registerNumber,
      currency: 'USD',
      closedAt,
      counted: counts,
      countedCashCents: counted,
      report: computeZReport(shift, [], moves, { count: { closedAt, countedCashCents: counted } }),
    };
    expect(closeout.report.overShortCents).toBe(0);
    expect(await push('shift-closeouts', [closeout])).toEqual([]);
    const view = (await call('GET', `/api/pos/shifts/${shift.id}`, undefined, tokens.manager)).json();
    expect(view.status).toBe('closed');
    expect(view.differences).toEqual([]);
    expect(view.report).toMatchObject({ overShortCents: 0, expectedCashCents: counted, services: x.services });
    // Nothing posted to cash over/short.
    const overShort = await server.db.query(`SELECT id FROM journal_transactions WHERE merchant_id = $1 AND source_id = $2`, [
      server.credentials.merchantId,
      closeout.id,
    ]);
    expect(overShort.rows).toEqual([]);
    // The report's lines name the services.
    const csv = await call('GET', `/api/pos/shifts/${shift.id}/report?format=csv`, undefined, tokens.manager);
    expect(csv.statusCode).toBe(200);
    for (const line of ['Checks cashed out (1)', 'Transfers in (2)', 'Bill payments in (1)', 'Transfers canceled out (1)', 'Service fees'])
      expect(csv.body).toContain(line);
  });

  it('the check image is stored with the record and served byte for byte to staff; not in the audit trail; 404 elsewhere', async () => {
    const png = placeholderCheckPng();
    const res = await call('POST', '/api/pos/check-cashings', {
      micr: micr('7002'),
      amountCents: 10_000,
      idPayload: licence('JOHN Q', 'PUBLIC', 'Y1234567'),
      imagePng: png.toString('base64'),
    });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c.hasImage).toBe(true);
    const image = await call('GET', `/api/pos/check-cashings/${c.id}/image`, undefined, tokens.manager);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(image.rawPayload, png)).toBe(0);
    // Another store's owner: a plain 404, no bytes.
    const other = await call('GET', `/api/pos/check-cashings/${c.id}/image`, undefined, tokens.other);
    expect(other.statusCode).toBe(404);
    expect(other.body).not.toContain(png.toString('base64').slice(0, 40));
    // Never in the audit trail.
    const audit = await server.db.query<{ n: number | string }>(`SELECT count(*) AS n FROM audit_log WHERE data::text LIKE $1`, [
      `%${png.toString('base64').slice(10, 60)}%`,
    ]);
    expect(Number(audit.rows[0]!.n)).toBe(0);
    // A check without an image has none to serve; an image that is not a PNG is refused naming the field.
    const plain = (
      await call('POST', '/api/pos/check-cashings', { micr: micr('7003'), amountCents: 5_000, idPayload: licence('JOHN Q', 'PUBLIC', 'Y1234567') })
    ).json();
    expect((await call('GET', `/api/pos/check-cashings/${plain.id}/image`)).statusCode).toBe(404);
    const notPng = await call('POST', '/api/pos/check-cashings', {
      micr: micr('7004'),
      amountCents: 5_000,
      idPayload: licence('JOHN Q', 'PUBLIC', 'Y1234567'),
      imagePng: Buffer.from('GIF89a not a png at all').toString('base64'),
    });
    expect([notPng.statusCode, notPng.json().code, notPng.json().errors?.[0]?.path]).toEqual([400, 'invalid_check_image', 'imagePng']);
    const notBase64 = await call('POST', '/api/pos/check-cashings', {
      micr: micr('7005'),
      amountCents: 5_000,
      idPayload: licence('JOHN Q', 'PUBLIC', 'Y1234567'),
      imagePng: '***',
    });
    expect([notBase64.statusCode, notBase64.json().errors?.[0]?.path]).toEqual([400, 'imagePng']);
  });

  it('the owner sets the fee schedule and limits (400 naming the field, 403 for a manager, audited); every service uses them', async () => {
    const patch = (body: unknown, token = tokens.owner) => call('PATCH', '/api/pos/financial-services/settings', body, token);
    expect((await patch({ billPaymentFeeCents: 200 }, tokens.manager)).statusCode).toBe(403);
    const badType = await patch({ checkFee: { basisPoints: 'two' } });
    expect([badType.statusCode, badType.json().errors.map((e: Json) => e.path)]).toEqual([400, ['checkFee.basisPoints']]);
    const unknown = await patch({ checkFee: { percent: 2 } });
    expect(unknown.statusCode).toBe(400);
    expect((await patch({})).statusCode).toBe(400);
    const aboveDaily = await patch({ transferLimits: { perTransactionCents: 600_000 } });
    expect([aboveDaily.statusCode, aboveDaily.json().errors.map((e: Json) => e.path)]).toEqual([400, ['transferLimits.perTransactionCents']]);

    const ok = await patch({
      checkFee: { basisPoints: 200, minimumCents: 500 },
      checkLimits: { perTransactionCents: 20_000 },
      transferLimits: { perTransactionCents: 5_000 },
      billPaymentFeeCents: 250,
      billPaymentLimits: { perTransactionCents: 3_000 },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const settings = {
      checkFee: { basisPoints: 200, fixedCents: 100, minimumCents: 500 },
      checkLimits: { perTransactionCents: 20_000, perCustomerPerDayCents: 750_000 },
      transferLimits: { perTransactionCents: 5_000, perCustomerPerDayCents: 500_000 },
      billPaymentFeeCents: 250,
      billPaymentLimits: { perTransactionCents: 3_000, perCustomerPerDayCents: 500_000 },
    };
    expect(ok.json()).toEqual(settings);
    expect((await call('GET', '/api/pos/financial-services', undefined, tokens.manager)).json().settings).toEqual(settings);
    const audited = await server.db.query<{ data: Json }>(
      `SELECT data FROM audit_log WHERE merchant_id = $1 AND action = 'financial_service_settings.updated' ORDER BY seq`,
      [server.credentials.merchantId],
    );
    expect(audited.rows).toHaveLength(1);
    expect(audited.rows[0]!.data).toMatchObject({ before: { billPaymentFeeCents: 150 }, after: settings });
    // Another store keeps the defaults.
    expect((await call('GET', '/api/pos/financial-services', undefined, tokens.other)).json().settings.billPaymentFeeCents).toBe(150);

    // Checks: 2 % of $100 + $1 = $3, below the $5 minimum; $250 is above the new $200 per check.
    const check = await call('POST', '/api/pos/check-cashings', {
      micr: micr('7101'),
      amountCents: 10_000,
      idPayload: licence('ANN', 'SETTINGS', 'Y5550001'),
    });
    expect(check.json()).toMatchObject({ status: 'paid', feeCents: 500, payoutCents: 9_500 });
    const bigCheck = await call('POST', '/api/pos/check-cashings', {
      micr: micr('7102'),
      amountCents: 25_000,
      idPayload: licence('ANN', 'SETTINGS', 'Y5550001'),
    });
    expect([bigCheck.statusCode, bigCheck.json().code]).toEqual([422, 'limit_per_transaction']);
    // Transfers: above the new $50 per transfer.
    const transfer = await call('POST', '/api/pos/transfers', {
      amountCents: 6_000,
      country: 'MX',
      payoutMethod: 'cash_pickup',
      receiverName: 'Ana Lopez',
      idPayload: licence('ANN', 'SETTINGS', 'Y5550001'),
    });
    expect([transfer.statusCode, transfer.json().code]).toEqual([422, 'limit_per_transaction']);
    // Bills: the new $2.50 fee, and the new $30 per payment.
    const bill = await call('POST', '/api/pos/bill-payments', {
      billerId: 'blr_metro_power',
      accountNumber: '1234567897',
      amountCents: 2_000,
      customerName: 'Ann Settings',
    });
    expect(bill.json()).toMatchObject({ feeCents: 250, totalCents: 2_250 });
    const bigBill = await call('POST', '/api/pos/bill-payments', {
      billerId: 'blr_metro_power',
      accountNumber: '1234567897',
      amountCents: 4_000,
      customerName: 'Ann Settings',
    });
    expect([bigBill.statusCode, bigBill.json().code]).toEqual([422, 'limit_per_transaction']);

    // Back to the defaults for the next test.
    expect(
      (
        await patch({
          checkFee: { basisPoints: 100, minimumCents: 300 },
          checkLimits: { perTransactionCents: 500_000 },
          transferLimits: { perTransactionCents: 299_900 },
          billPaymentFeeCents: 150,
          billPaymentLimits: { perTransactionCents: 250_000 },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('the housekeeping tick moves transfers and bill payments along from the partner, with no refresh pressed', async () => {
    const sent = (
      await call('POST', '/api/pos/transfers', {
        amountCents: 2_000,
        country: 'GT',
        payoutMethod: 'cash_pickup',
        receiverName: 'Rosa Tick',
        idPayload: licence('TOM', 'TICK', 'Y4440001'),
      })
    ).json();
    const refunding = (
      await call('POST', '/api/pos/transfers', {
        amountCents: 2_000,
        country: 'GT',
        payoutMethod: 'cash_pickup',
        receiverName: 'Refund Rita',
        idPayload: licence('TOM', 'TICK', 'Y4440001'),
      })
    ).json();
    const posting = (
      await call('POST', '/api/pos/bill-payments', {
        billerId: 'blr_metro_power',
        accountNumber: '1234567897',
        amountCents: 1_000,
        customerName: 'Tom Tick',
      })
    ).json();
    const rejecting = (
      await call('POST', '/api/pos/bill-payments', {
        billerId: 'blr_metro_power',
        accountNumber: '9123456783',
        amountCents: 1_000,
        customerName: 'Tom Tick',
      })
    ).json();
    for (const r of [sent, refunding]) expect(r.status).toBe('sent');
    for (const r of [posting, rejecting]) expect(r.status).toBe('accepted');
    const get = async (url: string) => (await call('GET', url, undefined, tokens.manager)).json();
    const tick = () => server.app.recurringInvoices.runOnce();

    // Nothing is due yet: the tick leaves them where they are.
    await tick();
    expect((await get(`/api/pos/transfers/${sent.id}`)).status).toBe('sent');
    expect((await get(`/api/pos/bill-payments/${posting.id}`)).status).toBe('accepted');

    now = new Date(realStart + 15 * 60_000);
    const first = await tick();
    expect(first.financialServices.transfersMoved).toBeGreaterThanOrEqual(2);
    expect((await get(`/api/pos/transfers/${sent.id}`)).status).toBe('available');
    const refunded = await get(`/api/pos/transfers/${refunding.id}`);
    expect(refunded).toMatchObject({ status: 'refunded', reversalJournalTransactionId: expect.stringMatching(/^jtx_/) });

    now = new Date(realStart + 61 * 60_000);
    const second = await tick();
    expect(second.financialServices.billPaymentsMoved).toBeGreaterThanOrEqual(2);
    const paid = await get(`/api/pos/transfers/${sent.id}`);
    expect(paid.status).toBe('paid');
    expect(paid.history.map((h: Json) => h.status)).toEqual(['submitted', 'sent', 'available', 'paid']);
    expect((await get(`/api/pos/bill-payments/${posting.id}`)).status).toBe('posted');
    expect(await get(`/api/pos/bill-payments/${rejecting.id}`)).toMatchObject({
      status: 'rejected',
      reversalJournalTransactionId: expect.stringMatching(/^jtx_/),
    });
    // Audited like a refresh, by the system.
    const actors = await server.db.query<{ action: string; actor: string }>(
      `SELECT action, actor FROM audit_log WHERE merchant_id = $1 AND entity_id = ANY($2::text[]) AND action IN ('transfer.status_changed', 'transfer.refunded', 'bill_payment.posted', 'bill_payment.rejected') ORDER BY seq`,
      [server.credentials.merchantId, [sent.id, refunding.id, posting.id, rejecting.id]],
    );
    expect(actors.rows.map((r) => r.action).sort()).toEqual(
      ['bill_payment.posted', 'bill_payment.rejected', 'transfer.refunded', 'transfer.status_changed', 'transfer.status_changed'].sort(),
    );
    expect(new Set(actors.rows.map((r) => r.actor))).toEqual(new Set(['system:financial-services']));
    // A later tick has nothing left to move for them.
    const third = await tick();
    expect(third.errors).toEqual([]);
    now = new Date(realStart);
  });
});
