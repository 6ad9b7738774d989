/**
 * Financial services: check cashing, money transfers and bill payments through HTTP on both databases —
 * in a sandbox store (not the demo) every flow runs to the end: ID, screening, fee, limits, duplicate MICR line,
 * ledger, receipts, holds cleared by a manager, cancellation within 30 minutes, partner status and reversal; in the
 * demo store the step that moves money answers 403 `money_movement_disabled`. Every step and refusal is audited. Bill
 * payers are screened too; refunds that move no cash are owed to the customer (`refunds_payable:…`), not the drawer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureChartOfAccounts } from '../../sync-server/src/kernel/ledger.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { buildAamvaPayload } from '../support/aamva.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;
const NOW = new Date('2026-03-06T12:00:00.000Z');
const MERCHANT_B = 'mer_01JRA1FSST0RE0000000000000';
const OWNER_B = 'stf_01JRA1FS0WNER000000000000';
const MANAGER_B = 'stf_01JRA1FSMANAGER00000000000';
const CASHIER_B = 'stf_01JRA1FSCASH1ER00000000000';

/** A version-03 licence (California IIN) of `first` `last`, born 1980-07-04, valid until 2029-07-04. */
const licence = (first: string, last: string, number = 'Y1234567') =>
  buildAamvaPayload(3, '636014', 'DL', [
    ['DCS', last],
    ['DCT', first],
    ['DAQ', number],
    ['DBB', '07041980'],
    ['DBA', '07042029'],
    ['DBC', '1'],
  ]);
const micr = (checkNumber: string) => ({ routingNumber: '075901231', accountNumber: '456327', checkNumber });

describe.each(databaseTargets())('financial services on $name', (target) => {
  let server: TestServer;
  let now = NOW;
  const tokens: Record<'owner' | 'manager' | 'cashier', string> = { owner: '', manager: '', cashier: '' };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now });
    await server.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Corner Services', 'USD')`, [MERCHANT_B]);
      for (const [id, name, role] of [
        [OWNER_B, 'Owner B', 'owner'],
        [MANAGER_B, 'Manager B', 'manager'],
        [CASHIER_B, 'Cashier B', 'cashier'],
      ]) {
        await tx.query(`INSERT INTO staff (id, merchant_id, name, role) VALUES ($1, $2, $3, $4)`, [id, MERCHANT_B, name, role]);
      }
      await ensureChartOfAccounts(tx, MERCHANT_B);
    });
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    tokens.owner = await idp.issueStaffToken({ staffId: OWNER_B, merchantId: MERCHANT_B, role: 'owner' });
    tokens.manager = await idp.issueStaffToken({ staffId: MANAGER_B, merchantId: MERCHANT_B, role: 'manager' });
    tokens.cashier = await idp.issueStaffToken({ staffId: CASHIER_B, merchantId: MERCHANT_B, role: 'cashier' });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, bearer = tokens.cashier) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const balances = async () =>
    Object.fromEntries(
      (
        (await call('GET', '/api/pos/ledger/trial-balance', undefined, tokens.manager)).json().accounts as { code: string; balanceCents: number }[]
      ).map((a) => [a.code, a.balanceCents]),
    );
  const auditActions = async (entityId: string) =>
    (
      await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE merchant_id = $1 AND entity_id = $2 ORDER BY seq`, [
        MERCHANT_B,
        entityId,
      ])
    ).rows.map((r) => r.action);
  const refusals = async (action: string) =>
    (
      await server.db.query<{ data: Json }>(`SELECT data FROM audit_log WHERE merchant_id = $1 AND action = $2 ORDER BY seq`, [MERCHANT_B, action])
    ).rows.map((r) => r.data);
  const postingsOf = async (jtId: string) =>
    Object.fromEntries(
      (
        await server.db.query<{ code: string; amount_cents: string | number }>(
          `SELECT a.code, p.amount_cents FROM postings p JOIN accounts a ON a.id = p.account_id WHERE p.journal_transaction_id = $1`,
          [jtId],
        )
      ).rows.map((r) => [r.code, Number(r.amount_cents)]),
    );

  it('the demo store: the register is told before it starts, and every service answers 403 money_movement_disabled', async () => {
    const demo = server.credentials.staffToken;
    const overview = await call('GET', '/api/pos/financial-services', undefined, demo);
    expect(overview.statusCode, overview.body).toBe(200);
    expect(overview.json()).toMatchObject({ moneyMovement: 'disabled', message: expect.stringContaining('demo store') });
    expect((await call('GET', '/api/pos/financial-services')).json()).toMatchObject({
      moneyMovement: 'enabled',
      message: null,
      settings: { checkFee: { basisPoints: 100, fixedCents: 100, minimumCents: 300 } },
    });

    const check = await call(
      'POST',
      '/api/pos/check-cashings',
      { micr: micr('1001'), amountCents: 10_000, idPayload: licence('JOHN', 'PUBLIC') },
      demo,
    );
    const transfer = await call(
      'POST',
      '/api/pos/transfers',
      { amountCents: 10_000, country: 'MX', payoutMethod: 'cash_pickup', receiverName: 'Ana Lopez', idPayload: licence('JOHN', 'PUBLIC') },
      demo,
    );
    const bill = await call(
      'POST',
      '/api/pos/bill-payments',
      { billerId: 'blr_metro_power', accountNumber: '1234567897', amountCents: 5_000, customerName: 'John Public' },
      demo,
    );
    for (const res of [check, transfer, bill]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('money_movement_disabled');
    }
    const audited = await server.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE merchant_id = $1 AND data->>'code' = 'money_movement_disabled' ORDER BY seq`,
      [server.credentials.merchantId],
    );
    expect(audited.rows.map((r) => r.action)).toEqual(['check_cashing.refused', 'transfer.refused', 'bill_payment.refused']);
    expect(Number((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM check_cashings`)).rows[0]!.n)).toBe(0);
  });

  it('cashes a check end to end: ID, screening, fee (1 % + $1), cash out, one balanced journal transaction, receipt, audit', async () => {
    const before = await balances();
    const res = await call('POST', '/api/pos/check-cashings', {
      micr: micr('0101'),
      amountCents: 25_000,
      idPayload: licence('JOHN Q', 'PUBLIC'),
      hasImage: true,
      registerNumber: 2,
    });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      status: 'paid',
      amountCents: 25_000,
      feeCents: 350,
      payoutCents: 24_650,
      accountMasked: '••••6327',
      checkNumber: '0101',
      customerName: 'JOHN Q PUBLIC',
      hasImage: true,
    });
    expect(c.receipt).toContain('Cash paid: 246.50 USD');
    expect(await postingsOf(c.journalTransactionId)).toEqual({ 'check_clearing:cashed': 25_000, fee_income: -350, 'cash_drawer:R2': -24_650 });
    const after = await balances();
    expect((after['cash_drawer:R2'] ?? 0) - (before['cash_drawer:R2'] ?? 0)).toBe(-24_650);
    expect(await auditActions(c.id)).toEqual(['check_cashing.paid']);
    const steps = await server.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE merchant_id = $1 AND action IN ('id_verification.checked', 'screening.decided', 'screening.clear', 'screening.screened') ORDER BY seq`,
      [MERCHANT_B],
    );
    expect(steps.rows.length).toBeGreaterThanOrEqual(1);
    expect(c.idVerificationId).toMatch(/^idv_/);
    expect(c.screeningId).toMatch(/^scr_/);
    // No full account number anywhere.
    const stored = await server.db.query(`SELECT * FROM check_cashings WHERE id = $1`, [c.id]);
    expect(JSON.stringify(stored.rows[0])).not.toContain('456327');
    expect((await call('GET', `/api/pos/check-cashings/${c.id}`)).json()).toEqual(c);
  });

  it('refuses a duplicate MICR line (409), a bad routing checksum (400), limits per check and per customer per day (422) — each audited', async () => {
    const dup = await call('POST', '/api/pos/check-cashings', {
      micr: { ...micr('101'), accountNumber: '456-327' },
      amountCents: 25_000,
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect(dup.statusCode, dup.body).toBe(409);
    expect(dup.json().code).toBe('duplicate_check');

    const bad = await call('POST', '/api/pos/check-cashings', {
      micr: { ...micr('2'), routingNumber: '124444706' },
      amountCents: 1_000,
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: Json) => e.path)).toEqual(['micr.routingNumber']);

    const big = await call('POST', '/api/pos/check-cashings', { micr: micr('3'), amountCents: 500_001, idPayload: licence('JOHN Q', 'PUBLIC') });
    expect([big.statusCode, big.json().code]).toEqual([422, 'limit_per_transaction']);

    // $250 cashed already today by this licence; $5 000 more is allowed, then $2 600 more is over $7 500.
    expect(
      (await call('POST', '/api/pos/check-cashings', { micr: micr('4'), amountCents: 500_000, idPayload: licence('JOHN Q', 'PUBLIC') })).statusCode,
    ).toBe(201);
    const daily = await call('POST', '/api/pos/check-cashings', { micr: micr('5'), amountCents: 260_000, idPayload: licence('JOHN Q', 'PUBLIC') });
    expect([daily.statusCode, daily.json().code]).toEqual([422, 'limit_per_customer_day']);
    // Another customer is not limited by John's checks.
    expect(
      (await call('POST', '/api/pos/check-cashings', { micr: micr('6'), amountCents: 260_000, idPayload: licence('MARY', 'MAJOR', 'Y7654321') }))
        .statusCode,
    ).toBe(201);

    expect((await refusals('check_cashing.refused')).filter((d) => d.code !== 'money_movement_disabled').map((d) => d.code)).toEqual([
      'duplicate_check',
      'micr_bad_routing_checksum',
      'limit_per_transaction',
      'limit_per_customer_day',
    ]);
  });

  it('refuses an expired or under-age ID (422 id_not_accepted); the verification is kept', async () => {
    const expired = buildAamvaPayload(3, '636014', 'DL', [
      ['DCS', 'OLD'],
      ['DCT', 'CARD'],
      ['DAQ', 'Y0000001'],
      ['DBB', '07041980'],
      ['DBA', '07042020'],
      ['DBC', '1'],
    ]);
    const res = await call('POST', '/api/pos/check-cashings', { micr: micr('7'), amountCents: 1_000, idPayload: expired });
    expect([res.statusCode, res.json().code]).toEqual([422, 'id_not_accepted']);
    expect(res.json().detail).toContain('expired');
    const kept = await server.db.query(`SELECT ok FROM id_verifications WHERE merchant_id = $1 AND ok = false`, [MERCHANT_B]);
    expect(kept.rows.length).toBe(1);
    const garbage = await call('POST', '/api/pos/check-cashings', { micr: micr('8'), amountCents: 1_000, idPayload: 'hello' });
    expect([garbage.statusCode, garbage.json().code]).toEqual([400, 'invalid_id_barcode']);
  });

  it('a check whose customer is a potential match is held; paid once a manager clears the screening', async () => {
    const res = await call('POST', '/api/pos/check-cashings', {
      micr: micr('9'),
      amountCents: 10_000,
      idPayload: licence('ELVIS ANGUS LOGAN', 'MOREJ', 'Y5550001'),
    });
    expect(res.statusCode, res.body).toBe(202);
    const held = res.json();
    expect(held).toMatchObject({ status: 'held', journalTransactionId: null });
    const early = await call('POST', `/api/pos/check-cashings/${held.id}/complete`);
    expect([early.statusCode, early.json().code]).toEqual([409, 'screening_hold']);
    expect((await call('POST', `/api/pos/screenings/${held.screeningId}/clear`, { reason: 'different date of birth' })).statusCode).toBe(403);
    expect(
      (await call('POST', `/api/pos/screenings/${held.screeningId}/clear`, { reason: 'different date of birth' }, tokens.manager)).statusCode,
    ).toBe(200);
    const paid = await call('POST', `/api/pos/check-cashings/${held.id}/complete`);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'paid', journalTransactionId: expect.stringMatching(/^jtx_/) });
    expect(await auditActions(held.id)).toEqual(['check_cashing.held', 'check_cashing.paid']);
    const list = await call('GET', '/api/pos/check-cashings?customerName=morej', undefined, tokens.manager);
    expect(list.json().data.map((c: Json) => c.id)).toEqual([held.id]);
    expect((await call('GET', '/api/pos/check-cashings')).statusCode).toBe(403);
  });

  it('quotes a transfer with the Remittance Rule disclosure; sends it; status sent → available → paid', async () => {
    const q = await call('POST', '/api/pos/transfers/quote', { amountCents: 20_000, country: 'MX', payoutMethod: 'cash_pickup' });
    expect(q.statusCode, q.body).toBe(200);
    expect(q.json()).toMatchObject({
      quote: { feeCents: 499, rate: '17.05', receiveAmountMinor: 341_000, receiveCurrency: 'MXN', availableOn: '2026-03-06' },
      disclosure: { totalCents: 20_499, cancelUntil: null },
    });
    expect((await call('POST', '/api/pos/transfers/quote', { amountCents: 20_000, country: 'FR', payoutMethod: 'cash_pickup' })).json().code).toBe(
      'corridor_unsupported',
    );

    const res = await call('POST', '/api/pos/transfers', {
      amountCents: 20_000,
      country: 'MX',
      payoutMethod: 'cash_pickup',
      receiverName: 'Ana Lopez',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect(res.statusCode, res.body).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({
      status: 'sent',
      senderName: 'JOHN Q PUBLIC',
      receiverName: 'Ana Lopez',
      receipt: { cancelUntil: '2026-03-06T12:30:00.000Z', amountReceivedMinor: 341_000 },
    });
    expect(t.receipt.lines.join('\n')).toMatch(/cancel for a full refund within 30 minutes/);
    // 12 CFR 1005.31(b)(2): the provider's name and contact, the store, the recipient, the regulators, the error right.
    expect(t.receipt).toMatchObject({
      provider: { name: 'Sandbox Remittance (test partner)', phone: '1-800-555-0199' },
      agent: 'Corner Services',
      recipientName: 'Ana Lopez',
      transferDate: '2026-03-06',
      regulators: [
        { name: 'Sandbox State Department of Banking (test)' },
        { name: 'Consumer Financial Protection Bureau', phone: expect.stringContaining('855-411-2372') },
      ],
    });
    expect(t.receipt.lines).toEqual(
      expect.arrayContaining([
        'Recipient: Ana Lopez',
        expect.stringMatching(/^Provider: Sandbox Remittance/),
        expect.stringMatching(/180 days .* 1-800-555-0199/),
      ]),
    );
    expect(await postingsOf(t.journalTransactionId)).toEqual({ cash_drawer: 20_499, fee_income: -499, 'transfers_payable:sandbox': -20_000 });

    now = new Date(NOW.getTime() + 15 * 60_000);
    expect((await call('POST', `/api/pos/transfers/${t.id}/refresh`)).json().status).toBe('available');
    now = new Date(NOW.getTime() + 61 * 60_000);
    const paid = (await call('POST', `/api/pos/transfers/${t.id}/refresh`)).json();
    expect(paid.history.map((h: Json) => h.status)).toEqual(['submitted', 'sent', 'available', 'paid']);
    expect((await call('POST', `/api/pos/transfers/${t.id}/cancel`)).json().code).toBe('illegal_state_transition');
    now = NOW;
  });

  it('a transfer canceled within 30 minutes is refunded in full (reversal); after 30 minutes it cannot be', async () => {
    const send = async () =>
      (
        await call('POST', '/api/pos/transfers', {
          amountCents: 5_000,
          country: 'PH',
          payoutMethod: 'bank_deposit',
          receiverName: 'Jose Reyes Later',
          idPayload: licence('MARY', 'MAJOR', 'Y7654321'),
        })
      ).json();
    const a = await send();
    expect(a.status).toBe('sent');
    now = new Date(NOW.getTime() + 29 * 60_000);
    const canceled = await call('POST', `/api/pos/transfers/${a.id}/cancel`);
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(canceled.json()).toMatchObject({ status: 'canceled', reversalJournalTransactionId: expect.stringMatching(/^jtx_/) });
    expect(await postingsOf(canceled.json().reversalJournalTransactionId)).toEqual({
      cash_drawer: -5_599,
      fee_income: 599,
      'transfers_payable:sandbox': 5_000,
    });
    now = NOW;
    const b = await send();
    now = new Date(NOW.getTime() + 31 * 60_000);
    const late = await call('POST', `/api/pos/transfers/${b.id}/cancel`);
    expect([late.statusCode, late.json().code]).toEqual([409, 'cancellation_window_closed']);
    now = NOW;
    // The list gives each transfer its own history, as GET does.
    const listed = (await call('GET', '/api/pos/transfers?name=Jose%20Reyes%20Later', undefined, tokens.manager)).json().data as Json[];
    expect(listed.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    for (const t of listed) expect(t.history).toEqual((await call('GET', `/api/pos/transfers/${t.id}`, undefined, tokens.manager)).json().history);
    expect(listed.find((t) => t.id === a.id)!.history.map((h: Json) => h.status)).toContain('canceled');
    expect(listed.find((t) => t.id === b.id)!.history.map((h: Json) => h.status)).not.toContain('canceled');
  });

  it('a transfer whose receiver is a potential match is held, then cleared by a manager and sent; a blocked receiver is refused', async () => {
    const res = await call('POST', '/api/pos/transfers', {
      amountCents: 10_000,
      country: 'GT',
      payoutMethod: 'cash_pickup',
      receiverName: 'Elvis Angus Logan Morej',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect(res.statusCode, res.body).toBe(202);
    const held = res.json();
    expect(held).toMatchObject({ status: 'held', journalTransactionId: null, receipt: null });
    expect((await call('POST', `/api/pos/transfers/${held.id}/complete`)).json().code).toBe('screening_hold');
    expect(
      (
        await call(
          'POST',
          `/api/pos/screenings/${held.receiverScreeningId}/clear`,
          { reason: 'receiver born 2001, not the listed person' },
          tokens.manager,
        )
      ).statusCode,
    ).toBe(200);
    const sent = await call('POST', `/api/pos/transfers/${held.id}/complete`);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({ status: 'sent', receipt: { cancelUntil: expect.any(String) } });
    expect(await auditActions(held.id)).toEqual(['transfer.held', 'transfer.sent']);

    const blocked = await call('POST', '/api/pos/transfers', {
      amountCents: 10_000,
      country: 'GT',
      payoutMethod: 'cash_pickup',
      receiverName: 'Daniel Moreno',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect([blocked.statusCode, blocked.json().code]).toEqual([422, 'screening_blocked']);
    const kept = await server.db.query(`SELECT status FROM screenings WHERE merchant_id = $1 AND name = 'Daniel Moreno'`, [MERCHANT_B]);
    expect(kept.rows).toEqual([{ status: 'blocked' }]);

    const refused = (
      await call('POST', '/api/pos/transfers', {
        amountCents: 1_000,
        country: 'GT',
        payoutMethod: 'cash_pickup',
        receiverName: 'Elvis Angus Logan Morej',
        idPayload: licence('MARY', 'MAJOR', 'Y7654321'),
      })
    ).json();
    expect((await call('POST', `/api/pos/transfers/${refused.id}/refuse`, { reason: 'same person' })).statusCode).toBe(403);
    expect((await call('POST', `/api/pos/transfers/${refused.id}/refuse`, { reason: 'same person' }, tokens.manager)).json()).toMatchObject({
      status: 'refused',
    });
    expect((await call('GET', `/api/pos/transfers?status=refused`, undefined, tokens.manager)).json().data.map((t: Json) => t.id)).toEqual([
      refused.id,
    ]);
  });

  it('partner refusals and timeouts take nothing; the per-sender daily limit holds', async () => {
    const before = await balances();
    const rejected = await call('POST', '/api/pos/transfers', {
      amountCents: 1_000,
      country: 'MX',
      payoutMethod: 'cash_pickup',
      receiverName: 'Reject Me',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect([rejected.statusCode, rejected.json().code]).toEqual([422, 'partner_rejected']);
    const timeout = await call('POST', '/api/pos/transfers', {
      amountCents: 1_000,
      country: 'MX',
      payoutMethod: 'cash_pickup',
      receiverName: 'Timeout Tom',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect([timeout.statusCode, timeout.json().code]).toEqual([504, 'partner_timeout']);
    expect(await balances()).toEqual(before);
    // John sent $200 + $100 today; $4 800 more is over $5 000.
    const over = await call('POST', '/api/pos/transfers', {
      amountCents: 290_000,
      country: 'MX',
      payoutMethod: 'cash_pickup',
      receiverName: 'Ana Lopez',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect(over.statusCode, over.body).toBe(201);
    const daily = await call('POST', '/api/pos/transfers', {
      amountCents: 200_000,
      country: 'MX',
      payoutMethod: 'cash_pickup',
      receiverName: 'Ana Lopez',
      idPayload: licence('JOHN Q', 'PUBLIC'),
    });
    expect([daily.statusCode, daily.json().code]).toEqual([422, 'limit_per_customer_day']);
  });

  it('pays a bill: directory, account validated before money, fee, confirmation, receipt; posted later', async () => {
    const billers = (await call('GET', '/api/pos/billers')).json().data as Json[];
    expect(billers.map((b) => b.category)).toEqual(['utilities', 'utilities', 'telecom', 'credit_card', 'rent']);
    const invalid = await call('POST', '/api/pos/bill-payments/validate', { billerId: 'blr_metro_power', accountNumber: '1234567890' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'invalid_account', errors: [{ path: 'accountNumber' }] });
    expect(
      (await call('POST', '/api/pos/bill-payments/validate', { billerId: 'blr_metro_power', accountNumber: '123-456-7897' })).json(),
    ).toMatchObject({ valid: true, accountMasked: '••••7897' });
    const badPay = await call('POST', '/api/pos/bill-payments', {
      billerId: 'blr_metro_power',
      accountNumber: '1234567890',
      amountCents: 5_000,
      customerName: 'John Public',
    });
    expect(badPay.statusCode).toBe(400);

    const res = await call('POST', '/api/pos/bill-payments', {
      billerId: 'blr_metro_power',
      accountNumber: '1234567897',
      amountCents: 8_000,
      customerName: 'John Public',
    });
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({
      status: 'accepted',
      feeCents: 150,
      totalCents: 8_150,
      accountMasked: '••••7897',
      confirmationNumber: expect.stringMatching(/^BP[0-9A-F]{10}A$/),
    });
    expect(p.receipt).toContain(`Confirmation: ${p.confirmationNumber}`);
    expect(await postingsOf(p.journalTransactionId)).toEqual({ cash_drawer: 8_150, fee_income: -150, 'transfers_payable:bills_sandbox': -8_000 });
    now = new Date(NOW.getTime() + 31 * 60_000);
    expect((await call('POST', `/api/pos/bill-payments/${p.id}/refresh`)).json().status).toBe('posted');
    now = NOW;
    expect(await auditActions(p.id)).toEqual(['bill_payment.accepted', 'bill_payment.posted']);
  });

  it('a bill the biller rejects is reversed; a partner refusal takes nothing', async () => {
    const p = (
      await call('POST', '/api/pos/bill-payments', {
        billerId: 'blr_metro_power',
        accountNumber: '9123456783',
        amountCents: 4_000,
        customerName: 'Mary Major',
      })
    ).json();
    expect(p.status).toBe('accepted');
    now = new Date(NOW.getTime() + 31 * 60_000);
    const rejected = (await call('POST', `/api/pos/bill-payments/${p.id}/refresh`)).json();
    now = NOW;
    expect(rejected).toMatchObject({
      status: 'rejected',
      rejectReason: expect.stringContaining('closed'),
      reversalJournalTransactionId: expect.stringMatching(/^jtx_/),
    });
    // No cash moves when the biller rejects: the refund is owed to the customer, the drawer is untouched.
    expect(await postingsOf(rejected.reversalJournalTransactionId)).toEqual({
      'refunds_payable:bill_payments': -4_150,
      fee_income: 150,
      'transfers_payable:bills_sandbox': 4_000,
    });
    const refused = await call('POST', '/api/pos/bill-payments', {
      billerId: 'blr_metro_power',
      accountNumber: '8123456785',
      amountCents: 4_000,
      customerName: 'Mary Major',
    });
    expect([refused.statusCode, refused.json().code]).toEqual([422, 'partner_rejected']);
    expect((await call('GET', '/api/pos/bill-payments?status=rejected', undefined, tokens.manager)).json().data.map((b: Json) => b.id)).toEqual([
      p.id,
    ]);
    expect((await refusals('bill_payment.refused')).map((d) => d.code)).toEqual(['invalid_account', 'partner_rejected']);
  });

  it('a transfer the partner refunds is owed to the sender, not taken from the drawer: no cash moves', async () => {
    const t = (
      await call('POST', '/api/pos/transfers', {
        amountCents: 3_000,
        country: 'GT',
        payoutMethod: 'cash_pickup',
        receiverName: 'Refund Ruth',
        idPayload: licence('MARY', 'MAJOR', 'Y7654321'),
        registerNumber: 2,
      })
    ).json();
    expect(t.status).toBe('sent');
    const before = await balances();
    now = new Date(NOW.getTime() + 11 * 60_000);
    const refunded = (await call('POST', `/api/pos/transfers/${t.id}/refresh`)).json();
    now = NOW;
    expect(refunded.status).toBe('refunded');
    expect(await postingsOf(refunded.reversalJournalTransactionId)).toEqual({
      'refunds_payable:money_transfers': -3_499,
      fee_income: 499,
      'transfers_payable:sandbox': 3_000,
    });
    const after = await balances();
    expect(after['cash_drawer:R2']).toBe(before['cash_drawer:R2']);
    expect(after['refunds_payable:money_transfers']).toBe((before['refunds_payable:money_transfers'] ?? 0) - 3_499);
  });

  it('bill payments screen the payer: a listed name is refused, a potential match is held until a manager clears it; the ID is screened when shown and required from $3 000', async () => {
    const bill = (customerName: string, extra: Json = {}) =>
      call('POST', '/api/pos/bill-payments', {
        billerId: 'blr_metro_power',
        accountNumber: '1234567897',
        amountCents: 2_000,
        customerName,
        ...extra,
      });
    const before = await balances();
    const blocked = await bill('Daniel Moreno'); // MORENO, Daniel is listed
    expect([blocked.statusCode, blocked.json().code]).toEqual([422, 'screening_blocked']);
    const res = await bill('Artem Lifshitz'); // LIFSHITS, Artem Mikhaylovich: a potential match
    expect(res.statusCode, res.body).toBe(202);
    const held = res.json();
    expect(held).toMatchObject({
      status: 'held',
      confirmationNumber: null,
      journalTransactionId: null,
      receipt: null,
      screeningId: expect.stringMatching(/^scr_/),
    });
    expect(await balances()).toEqual(before);
    const complete = (body: Json) => call('POST', `/api/pos/bill-payments/${held.id}/complete`, body);
    expect((await complete({ accountNumber: '1234567897' })).json().code).toBe('screening_hold');
    expect(
      (
        await call(
          'POST',
          `/api/pos/screenings/${held.screeningId}/clear`,
          { reason: 'payer born 1992 in Ohio, not the listed person' },
          tokens.manager,
        )
      ).statusCode,
    ).toBe(200);
    expect((await complete({ accountNumber: '9123456783' })).json().code).toBe('account_mismatch');
    const paid = await complete({ accountNumber: '123-456-7897' });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({
      status: 'accepted',
      confirmationNumber: expect.any(String),
      receipt: expect.arrayContaining([expect.stringMatching(/^Confirmation: /)]),
    });
    expect(await postingsOf(paid.json().journalTransactionId)).toEqual({
      cash_drawer: 2_150,
      fee_income: -150,
      'transfers_payable:bills_sandbox': -2_000,
    });
    expect(await auditActions(held.id)).toEqual(['bill_payment.held', 'bill_payment.accepted']);
    expect((await complete({ accountNumber: '1234567897' })).json().code).toBe('illegal_state_transition');

    const second = (await bill('Artem Lifshitz')).json();
    expect((await call('POST', `/api/pos/bill-payments/${second.id}/refuse`, { reason: 'same date of birth' })).statusCode).toBe(403);
    expect((await call('POST', `/api/pos/bill-payments/${second.id}/refuse`, { reason: 'same date of birth' }, tokens.manager)).json()).toMatchObject(
      { status: 'refused', journalTransactionId: null },
    );
    expect((await server.db.query('SELECT status FROM screenings WHERE id = $1', [second.screeningId])).rows).toEqual([{ status: 'refused' }]);

    // With an ID, its holder is the payer and is screened (whatever name was typed).
    const withId = await bill('Somebody Else', { idPayload: licence('DANIEL', 'MORENO', 'Y5550001') });
    expect([withId.statusCode, withId.json().code]).toEqual([422, 'screening_blocked']);
    const patch = (limits: Json) => call('PATCH', '/api/pos/financial-services/settings', { billPaymentLimits: limits }, tokens.owner);
    expect((await patch({ perTransactionCents: 400_000, perCustomerPerDayCents: 800_000 })).statusCode).toBe(200);
    const big = await bill('Robert Black', { amountCents: 300_000 });
    expect([big.statusCode, big.json().code, big.json().errors?.[0]?.path]).toEqual([422, 'id_required', 'idPayload']);
    const bigWithId = await bill('Robert Black', { amountCents: 300_000, idPayload: licence('ROBERT', 'BLACK', 'Y5550002') });
    expect(bigWithId.statusCode, bigWithId.body).toBe(201);
    expect(bigWithId.json()).toMatchObject({ status: 'accepted', customerName: 'ROBERT BLACK', idVerificationId: expect.stringMatching(/^idv_/) });
    expect((await patch({ perTransactionCents: 250_000, perCustomerPerDayCents: 500_000 })).statusCode).toBe(200);
    expect((await refusals('bill_payment.refused')).map((d) => d.code)).toEqual(expect.arrayContaining(['screening_blocked', 'id_required']));
  });

  it('a payer who shows an ID under another name is screened under both: either listed refuses, either a potential match holds', async () => {
    const bill = (customerName: string, extra: Json = {}) =>
      call('POST', '/api/pos/bill-payments', {
        billerId: 'blr_metro_power',
        accountNumber: '1234567897',
        amountCents: 2_000,
        customerName,
        ...extra,
      });
    const before = await balances();
    // A listed name typed, a clear ID shown: refused, not paid under the ID's name.
    const blocked = await bill('Daniel Moreno', { idPayload: licence('ROBERT', 'BLACK', 'Y5550011') });
    expect([blocked.statusCode, blocked.json().code], blocked.body).toEqual([422, 'screening_blocked']);
    expect(blocked.json().detail).toContain("payer's name as given");
    expect(await balances()).toEqual(before);

    // A potential match typed, a clear ID shown: held until a manager clears the typed name's screening.
    const res = await bill('Artem Lifshitz', { idPayload: licence('MARY', 'MAJOR', 'Y5550012') });
    expect(res.statusCode, res.body).toBe(202);
    const held = res.json();
    expect(held).toMatchObject({ status: 'held', customerName: 'MARY MAJOR', nameScreeningId: expect.stringMatching(/^scr_/) });
    expect(held.nameScreeningId).not.toBe(held.screeningId);
    const screened = await server.db.query<{ id: string; name: string; status: string }>(
      'SELECT id, name, status FROM screenings WHERE id = ANY($1) ORDER BY name',
      [[held.screeningId, held.nameScreeningId]],
    );
    expect(screened.rows.map((r) => [r.name, r.status])).toEqual([
      ['Artem Lifshitz', 'held'],
      ['MARY MAJOR', 'clear'],
    ]);
    const complete = () => call('POST', `/api/pos/bill-payments/${held.id}/complete`, { accountNumber: '1234567897' });
    expect((await complete()).json().code).toBe('screening_hold');
    expect(
      (await call('POST', `/api/pos/screenings/${held.nameScreeningId}/clear`, { reason: 'the ID is the payer; typed in error' }, tokens.manager))
        .statusCode,
    ).toBe(200);
    const paid = await complete();
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'accepted', journalTransactionId: expect.stringMatching(/^jtx_/) });

    // Refusing such a hold refuses the typed name's screening too.
    const second = (await bill('Artem Lifshitz', { idPayload: licence('MARY', 'MAJOR', 'Y5550013') })).json();
    expect(second.status).toBe('held');
    expect(
      (await call('POST', `/api/pos/bill-payments/${second.id}/refuse`, { reason: 'will not say who pays' }, tokens.manager)).json(),
    ).toMatchObject({
      status: 'refused',
      journalTransactionId: null,
    });
    expect((await server.db.query('SELECT status FROM screenings WHERE id = $1', [second.nameScreeningId])).rows).toEqual([{ status: 'refused' }]);

    // The ID's own name, in any case or order, is screened once.
    for (const typed of ['Robert Black', 'BLACK, robert']) {
      const same = await bill(typed, { idPayload: licence('ROBERT', 'BLACK', 'Y5550014') });
      expect(same.statusCode, same.body).toBe(201);
      expect(same.json()).toMatchObject({ customerName: 'ROBERT BLACK', screeningId: expect.stringMatching(/^scr_/), nameScreeningId: null });
    }
  });
});
