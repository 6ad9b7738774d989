/**
 * Issue 15, "Billing and payouts": paid app subscriptions billed to the store monthly (calendar months, UTC) with
 * proration on install and uninstall, each paid charge one balanced, immutable journal transaction on the platform
 * ledger splitting 85 % to `developer_payable:<developerId>` and 15 % to `app_revenue`; declined charges retried after
 * 1, 3 and 5 days and then suspended with notice, reactivated by a good billing method; developer statements and
 * payouts through the sandbox payment-connect adapter (minimum, weekly schedule), refused with 403
 * `money_movement_disabled` for demo-store earnings. Apps are made through the developer API and the review routes;
 * installations do not exist on this branch, so the test calls `startAppSubscription` / `endAppSubscription` the way
 * the install and uninstall workflow does (inside its transaction). On PGlite and PostgreSQL, with a moving clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/index.ts';
import { addPlatformAdmin } from '../../sync-server/src/modules/apps/service.ts';
import { endAppSubscription, runAppBilling, startAppSubscription } from '../../sync-server/src/modules/app-billing/subscriptions.ts';
import { AuditSigner, generateAuditSigningKey } from '../../sync-server/src/platform/auth/audit-signing-key.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { verifyAuditTrail } from '../../sync-server/src/kernel/verify.ts';
import { databaseTargets } from '../support/databases.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { injectClient } from '../support/inject-client.ts';

type Json = Record<string, any>;

const PLATFORM = 'mer_platform';

describe.each(databaseTargets())('app billing and developer payouts on $name', (target) => {
  let server: TestServer;
  let idp: IdentityProvider;
  let conformance: OpenApiConformance;
  const departures: string[] = [];
  const signingKey = generateAuditSigningKey();
  let now = new Date('2026-11-17T10:00:00.000Z');
  const at = (iso: string) => {
    now = new Date(iso);
  };

  let reviewer: string;
  const devs: Record<string, { token: string; id: string }> = {};
  const apps: Record<string, string> = {};
  const stores: Record<string, { merchantId: string; staffId: string; email: string }> = {};
  const installs: Record<string, string> = {};

  const { call, ok } = injectClient(
    () => server.app,
    (method, url, res) => {
      const route = url.split('?')[0]!.replace(/\/(app|ins)_[0-9A-Z]+/, '/:id');
      if (route.startsWith('/api/pos/app-') || route.startsWith('/api/developer/statement') || route.startsWith('/api/developer/payouts')) departures.push(...conformance.check(method, route, res));
    },
  );
  /** A fresh owner token of a store at the current clock (tokens expire, and the clock moves by months). */
  const owner = (store: string) => idp.issueStaffToken({ staffId: stores[store]!.staffId, merchantId: stores[store]!.merchantId, role: 'owner' }, { now });
  const tick = async (): Promise<Json> => server.app.recurringInvoices.runOnce() as unknown as Json;
  const install = async (store: string, app: string, key: string) => {
    installs[key] = `ins_${newId('app').slice(4)}`;
    const merchantId = store === 'demo' ? server.credentials.merchantId : stores[store]!.merchantId;
    return server.db.transaction((tx) => startAppSubscription(tx, { merchantId, appId: apps[app]!, installationId: installs[key]!, now, actor: 'system' }));
  };
  const subscriptionsOf = async (store: string): Promise<Json[]> => (await ok('GET', '/api/pos/app-subscriptions', await owner(store))).data;
  const subscription = async (store: string, key: string): Promise<Json> => (await subscriptionsOf(store)).find((s) => s.installationId === installs[key])!;
  const postingsOf = async (journalTransactionId: string) =>
    (
      await server.db.query<{ code: string; amount: string; merchant_id: string }>(
        `SELECT a.code, p.amount_cents AS amount, j.merchant_id FROM postings p JOIN accounts a ON a.id = p.account_id JOIN journal_transactions j ON j.id = p.journal_transaction_id
          WHERE p.journal_transaction_id = $1 ORDER BY p.line_no`,
        [journalTransactionId],
      )
    ).rows.map((r) => ({ code: r.code, amountCents: Number(r.amount), merchantId: r.merchant_id }));

  const listedApp = async (dev: string, name: string, pricing: Json): Promise<string> => {
    const token = devs[dev]!.token;
    const made = await ok('POST', '/api/developer/apps', token, { name, description: `${name} for the register.`, form: 'in_platform', scopes: ['catalog:read'], category: 'Billing tests', pricing });
    await ok('POST', `/api/developer/apps/${made.id}/submit`, token);
    await ok('POST', `/api/platform/apps/${made.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${made.id}/approve`, reviewer);
    await ok('POST', `/api/platform/apps/${made.id}/list`, reviewer);
    return made.id;
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, recurringInvoices: { enabled: false }, webhooks: { enabled: false }, auditSigningKey: signingKey });
    idp = await IdentityProvider.load(server.db, 'http://localhost');
    conformance = await OpenApiConformance.of(server.app);
    reviewer = (await addPlatformAdmin(server.db, { email: 'billing-reviewer@platform.example', name: 'Bill Reviewer' })).token;
    for (const [key, name] of [['tally', 'Tally Apps'], ['penny', 'Penny Apps'], ['demo', 'Demo Only Apps']] as const) {
      const made = await ok('POST', '/api/developers', undefined, { name, email: `${key}@billing.example` });
      devs[key] = { token: made.developerToken, id: made.developerId };
    }
    apps.pro = await listedApp('tally', 'Tally Pro', { model: 'monthly', amountCents: 1999, currency: 'USD' });
    apps.free = await listedApp('tally', 'Tally Free', { model: 'free' });
    apps.cheap = await listedApp('penny', 'Penny Counter', { model: 'monthly', amountCents: 1000, currency: 'USD' });
    apps.demoOnly = await listedApp('demo', 'Demo Helper', { model: 'monthly', amountCents: 1999, currency: 'USD' });
    for (const [key, storeName] of [['sierra', 'Sierra Supplies'], ['foxtrot', 'Foxtrot Foods'], ['uniform', 'Uniform Outfitters'], ['golf', 'Golf Goods']] as const) {
      const email = `${key}@stores.example`;
      const made = await ok('POST', '/api/signup', undefined, { storeName, country: 'US', currency: 'USD', timeZone: 'America/New_York', ownerName: `${storeName} Owner`, ownerEmail: email, ownerPin: '482915' });
      stores[key] = { merchantId: made.merchantId, staffId: made.staffId, email };
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it('starts a paid subscription with the rest of the month prorated, one balanced journal transaction splitting 85/15 on the platform ledger; a free app has none', async () => {
    at('2026-11-17T10:00:00.000Z');
    const sub = await install('sierra', 'pro', 'sierraPro');
    // 17 → 30 November: 14 of 30 days of 19.99 = 9.3287 → 9.33 (half up); developer floor(85 % of 933) = 793, platform 140.
    expect(sub).toMatchObject({ status: 'active', priceCents: 1999, currency: 'USD', currentPeriodStart: '2026-11-17T00:00:00.000Z', currentPeriodEnd: '2026-12-01T00:00:00.000Z', nextChargeAt: '2026-12-01T00:00:00.000Z', nextChargeCents: 1999 });
    expect(sub!.charges).toHaveLength(1);
    expect(sub!.charges[0]).toMatchObject({ kind: 'initial', amountCents: 933, status: 'paid', declineCode: null });
    const postings = await postingsOf(sub!.charges[0]!.journalTransactionId!);
    expect(postings).toEqual([
      { code: 'app_billing_clearing', amountCents: 933, merchantId: PLATFORM },
      { code: `developer_payable:${devs.tally!.id}`, amountCents: -793, merchantId: PLATFORM },
      { code: 'app_revenue', amountCents: -140, merchantId: PLATFORM },
    ]);
    expect(postings.reduce((s, p) => s + p.amountCents, 0)).toBe(0);
    // The store sees it; the same installation again is the same subscription, charged once.
    const listed = await subscription('sierra', 'sierraPro');
    expect(listed).toMatchObject({ id: sub!.id, appName: 'Tally Pro', status: 'active', notice: null });
    const again = await server.db.transaction((tx) => startAppSubscription(tx, { merchantId: stores.sierra!.merchantId, appId: apps.pro!, installationId: installs.sierraPro!, now }));
    expect(again!.id).toBe(sub!.id);
    expect((await subscription('sierra', 'sierraPro')).charges).toHaveLength(1);
    // Journal rows and charges are append-only.
    await expect(server.db.query('UPDATE postings SET amount_cents = amount_cents + 1 WHERE journal_transaction_id = $1', [sub!.charges[0]!.journalTransactionId!])).rejects.toThrow(/append-only/);
    await expect(server.db.query('UPDATE app_charges SET amount_cents = 1 WHERE id = $1', [sub!.charges[0]!.id])).rejects.toThrow(/append-only/);
    // A free app has no subscription and writes nothing.
    expect(await install('sierra', 'free', 'sierraFree')).toBeNull();
    expect((await subscriptionsOf('sierra')).map((s) => s.installationId)).toEqual([installs.sierraPro]);
  });

  it('renews at the full monthly price on the housekeeping tick when the month turns, once even with two runners at once', async () => {
    at('2026-12-01T00:05:00.000Z');
    // Two instances ticking at the same moment (on PostgreSQL truly concurrent): the subscription is renewed once.
    const [report, other] = await Promise.all([tick(), runAppBilling(server.db, now)]);
    expect(report.appBilling.charged + other.charged).toBe(1);
    expect(other.errors).toEqual([]);
    const sub = await subscription('sierra', 'sierraPro');
    expect(sub).toMatchObject({ status: 'active', currentPeriodStart: '2026-12-01T00:00:00.000Z', currentPeriodEnd: '2027-01-01T00:00:00.000Z', nextChargeAt: '2027-01-01T00:00:00.000Z' });
    expect(sub.charges.map((c: Json) => [c.kind, c.amountCents, c.status])).toEqual([['renewal', 1999, 'paid'], ['initial', 933, 'paid']]);
    // 19.99: developer floor(1699.15) = 1699, platform 300.
    expect(await postingsOf(sub.charges[0].journalTransactionId)).toEqual([
      { code: 'app_billing_clearing', amountCents: 1999, merchantId: PLATFORM },
      { code: `developer_payable:${devs.tally!.id}`, amountCents: -1699, merchantId: PLATFORM },
      { code: 'app_revenue', amountCents: -300, merchantId: PLATFORM },
    ]);
    await tick();
    expect((await subscription('sierra', 'sierraPro')).charges).toHaveLength(2);
  });

  it('retries a declined charge after 1, 3 and 5 days, then suspends with notice (audit entry, e-mail); a good billing method reactivates it', async () => {
    at('2026-12-10T09:00:00.000Z');
    const first = await install('foxtrot', 'pro', 'foxtrotPro');
    expect(first!.charges[0]).toMatchObject({ amountCents: 1419, status: 'paid' }); // 22 of 31 days: 14.186 → 14.19
    // A card number is never a billing method.
    const bad = await call('PUT', '/api/pos/app-billing/payment-method', await owner('foxtrot'), { billingReference: '4242424242424242' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('billingReference');
    await ok('PUT', '/api/pos/app-billing/payment-method', await owner('foxtrot'), { billingReference: 'bref_sbx_visa_0002' });
    // With a declining method a paid app cannot be installed: 402, and the install's transaction writes nothing.
    await expect(install('foxtrot', 'cheap', 'foxtrotCheap')).rejects.toMatchObject({ status: 402, code: 'app_charge_declined' });
    expect((await server.db.query('SELECT id FROM app_subscriptions WHERE installation_id = $1', [installs.foxtrotCheap])).rows).toHaveLength(0);
    // Golf: declines once, then pays when its owner sets a good method while past due.
    await install('golf', 'pro', 'golfPro');
    await ok('PUT', '/api/pos/app-billing/payment-method', await owner('golf'), { billingReference: 'bref_sbx_visa_9995' });

    at('2027-01-01T01:00:00.000Z');
    await tick();
    expect(await subscription('golf', 'golfPro')).toMatchObject({ status: 'past_due', failedAttempts: 1 });
    expect((await subscription('golf', 'golfPro')).charges[0]).toMatchObject({ status: 'failed', declineCode: 'insufficient_funds' });
    const paidNow = (await ok('PUT', '/api/pos/app-billing/payment-method', await owner('golf'), { billingReference: 'bref_sbx_amex_0005' })).subscriptions[0];
    expect(paidNow).toMatchObject({ status: 'active', failedAttempts: 0, nextChargeAt: '2027-02-01T00:00:00.000Z', notice: null });
    expect(paidNow.charges[0]).toMatchObject({ kind: 'retry', amountCents: 1999, status: 'paid', periodStart: '2027-01-01T00:00:00.000Z' });
    let sub = await subscription('foxtrot', 'foxtrotPro');
    expect(sub).toMatchObject({ status: 'past_due', failedAttempts: 1, nextChargeAt: '2027-01-02T01:00:00.000Z', nextChargeCents: 1999, currentPeriodEnd: '2027-02-01T00:00:00.000Z' });
    expect(sub.notice).toContain('card_declined');
    expect(sub.charges[0]).toMatchObject({ kind: 'renewal', status: 'failed', declineCode: 'card_declined', journalTransactionId: null });
    // Not due yet: nothing tried.
    at('2027-01-02T00:59:00.000Z');
    await tick();
    expect((await subscription('foxtrot', 'foxtrotPro')).failedAttempts).toBe(1);
    at('2027-01-02T01:00:00.000Z');
    await tick();
    expect(await subscription('foxtrot', 'foxtrotPro')).toMatchObject({ status: 'past_due', failedAttempts: 2, nextChargeAt: '2027-01-04T01:00:00.000Z' });
    at('2027-01-04T01:00:00.000Z');
    await tick();
    expect(await subscription('foxtrot', 'foxtrotPro')).toMatchObject({ status: 'past_due', failedAttempts: 3, nextChargeAt: '2027-01-06T01:00:00.000Z' });
    at('2027-01-06T01:00:00.000Z');
    const report = await tick();
    expect(report.appBilling.suspended).toBe(1);
    sub = await subscription('foxtrot', 'foxtrotPro');
    expect(sub).toMatchObject({ status: 'suspended', failedAttempts: 4, nextChargeAt: null, nextChargeCents: null, suspendedAt: '2027-01-06T01:00:00.000Z' });
    expect(sub.notice).toMatch(/Suspended after 4 declined charges/);
    expect(sub.charges.filter((c: Json) => c.status === 'failed').map((c: Json) => c.kind)).toEqual(['retry', 'retry', 'retry', 'renewal']);
    // The notice: an audit entry in the store's trail and an e-mail to the owner.
    const audit = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE merchant_id = $1 AND entity_id = $2 ORDER BY seq`, [stores.foxtrot!.merchantId, sub.id]);
    expect(audit.rows.map((r) => r.action)).toContain('app_subscription.suspended');
    const mail = await server.db.query<{ to_address: string; subject: string }>(`SELECT to_address, subject FROM email_outbox WHERE merchant_id = $1`, [stores.foxtrot!.merchantId]);
    expect(mail.rows).toEqual([{ to_address: stores.foxtrot!.email, subject: 'Tally Pro is suspended: its subscription could not be charged' }]);
    // Suspended: the tick charges nothing more.
    at('2027-01-09T01:00:00.000Z');
    await tick();
    expect((await subscription('foxtrot', 'foxtrotPro')).charges).toHaveLength(sub.charges.length);

    // A good billing method reactivates it at once: 9 → 31 January, 23 of 31 days of 19.99 = 14.831 → 14.83.
    const changed = await ok('PUT', '/api/pos/app-billing/payment-method', await owner('foxtrot'), { billingReference: 'bref_sbx_mastercard_4444' });
    const back = changed.subscriptions.find((s: Json) => s.installationId === installs.foxtrotPro);
    expect(back).toMatchObject({ status: 'active', failedAttempts: 0, suspendedAt: null, currentPeriodStart: '2027-01-09T00:00:00.000Z', currentPeriodEnd: '2027-02-01T00:00:00.000Z' });
    expect(back.charges[0]).toMatchObject({ kind: 'reactivation', amountCents: 1483, status: 'paid' });
    const actions = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE merchant_id = $1 AND entity_id = $2 ORDER BY seq DESC LIMIT 1`, [stores.foxtrot!.merchantId, sub.id]);
    expect(actions.rows[0]!.action).toBe('app_subscription.reactivated');
  });

  it('refunds the unused whole days on uninstall, reversing the 85/15 split, and charges nothing more', async () => {
    at('2027-01-10T12:00:00.000Z');
    const sub = await install('uniform', 'pro', 'uniformPro');
    // 10 → 31 January: 22 of 31 days = 14.186 → 14.19; developer floor(1206.15) = 1206, platform 213.
    expect(sub!.charges[0]).toMatchObject({ amountCents: 1419, status: 'paid' });
    at('2027-01-20T09:00:00.000Z');
    const ended = await server.db.transaction((tx) => endAppSubscription(tx, { installationId: installs.uniformPro!, now, actor: 'system' }));
    // 21 → 31 January unused (the uninstall day counts as used): 11 of the 22 days paid = 7.095 → 7.10; developer
    // gives back round(1206 × 11 / 22) = 603, the platform 107.
    expect(ended).toMatchObject({ status: 'canceled', canceledAt: '2027-01-20T09:00:00.000Z', nextChargeAt: null });
    expect(ended!.refunds).toEqual([expect.objectContaining({ chargeId: sub!.charges[0]!.id, amountCents: 710, unusedDays: 11, coveredDays: 22 })]);
    const refundJt = (await server.db.query<{ journal_transaction_id: string }>('SELECT journal_transaction_id FROM app_charge_refunds WHERE id = $1', [ended!.refunds[0]!.id])).rows[0]!.journal_transaction_id;
    expect(await postingsOf(refundJt)).toEqual([
      { code: `developer_payable:${devs.tally!.id}`, amountCents: 603, merchantId: PLATFORM },
      { code: 'app_revenue', amountCents: 107, merchantId: PLATFORM },
      { code: 'app_billing_clearing', amountCents: -710, merchantId: PLATFORM },
    ]);
    // Again: the same, one refund. An installation of a free app has no subscription.
    const again = await server.db.transaction((tx) => endAppSubscription(tx, { installationId: installs.uniformPro!, now }));
    expect(again!.refunds).toHaveLength(1);
    expect(await server.db.transaction((tx) => endAppSubscription(tx, { installationId: installs.sierraFree!, now }))).toBeNull();
    at('2027-02-01T00:05:00.000Z');
    await tick();
    expect((await subscription('uniform', 'uniformPro')).charges).toHaveLength(1);
  });

  it("shows the developer's statement: every charge's 85 % share, refunds, payouts and the ledger balance", async () => {
    const statement = await ok('GET', '/api/developer/statement', devs.tally!.token);
    expect(statement.developerId).toBe(devs.tally!.id);
    expect(statement.charges.length).toBeGreaterThanOrEqual(7);
    for (const c of statement.charges) {
      expect(c.developerShareCents).toBe(Math.floor((c.amountCents * 85) / 100));
      expect(c.developerShareCents + c.platformShareCents).toBe(c.amountCents);
    }
    const usd = statement.balances.find((b: Json) => b.currency === 'USD');
    const gross = statement.charges.reduce((s: number, c: Json) => s + c.amountCents, 0);
    const share = statement.charges.reduce((s: number, c: Json) => s + c.developerShareCents, 0);
    // The weekly schedule has run on the Mondays the clock passed (4 and 11 January): scheduled payouts only so far.
    expect(statement.payouts.length).toBeGreaterThanOrEqual(1);
    expect(statement.payouts.every((p: Json) => p.trigger === 'scheduled' && p.status === 'paid')).toBe(true);
    const paidOut = statement.payouts.reduce((s: number, p: Json) => s + p.amountCents, 0);
    const owed = share - 603 - paidOut;
    expect(usd).toMatchObject({ grossChargesCents: gross, developerShareCents: share, refundedCents: 603, paidOutCents: paidOut, balanceCents: owed, availableCents: owed, demoEarningsCents: 0 });
    // The ledger agrees: the developer's payable account holds exactly that, and the platform ledger balances.
    const ledger = await server.db.query<{ balance: string }>(
      `SELECT -SUM(p.amount_cents) AS balance FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1 AND a.code = $2`,
      [PLATFORM, `developer_payable:${devs.tally!.id}`],
    );
    expect(Number(ledger.rows[0]!.balance)).toBe(owed);
    const total = await server.db.query<{ total: string }>('SELECT COALESCE(SUM(p.amount_cents), 0) AS total FROM postings p JOIN journal_transactions j ON j.id = p.journal_transaction_id WHERE j.merchant_id = $1', [PLATFORM]);
    expect(Number(total.rows[0]!.total)).toBe(0);
    // Developer routes are for developers only.
    const staff = await call('GET', '/api/developer/statement', await owner('sierra'));
    expect(staff.statusCode).toBe(403);
    expect(staff.json().code).toBe('developer_only');
  });

  it('refuses a payout below the minimum and leaves it queued on the weekly schedule; refuses demo-store earnings with 403; pays sandbox-store earnings to the end', async () => {
    at('2027-02-01T00:06:00.000Z');
    await install('sierra', 'cheap', 'sierraCheap'); // February 1: the whole month, 10.00 → developer 8.50
    await install('demo', 'demoOnly', 'demoHelper');
    await install('demo', 'pro', 'demoPro');
    at('2027-02-01T00:10:00.000Z');
    // Penny Apps: 8.50 earned, below the 25.00 minimum.
    const below = await call('POST', '/api/developer/payouts', devs.penny!.token, {});
    expect(below.statusCode).toBe(409);
    expect(below.json()).toMatchObject({ code: 'below_payout_minimum' });
    // Demo Only Apps: earnings from the demo store only → 403, nothing paid, nothing posted.
    const demo = await call('POST', '/api/developer/payouts', devs.demo!.token, { currency: 'usd' });
    expect(demo.statusCode).toBe(403);
    expect(demo.json()).toMatchObject({ code: 'money_movement_disabled', status: 403 });
    expect((await server.db.query('SELECT id FROM developer_payouts WHERE developer_id = $1', [devs.demo!.id])).rows).toHaveLength(0);
    expect((await ok('GET', '/api/developer/statement', devs.demo!.token)).balances[0]).toMatchObject({ demoEarningsCents: 1699, availableCents: 0, balanceCents: 1699 });

    // Tally Apps: sandbox-store earnings pay out in full; the demo store's stay behind.
    const { rows: [expected] } = await server.db.query<{ amount: string }>(
      `SELECT (SELECT SUM(c.developer_share_cents) FROM app_charges c JOIN merchants m ON m.id = c.merchant_id WHERE c.developer_id = $1 AND c.status = 'paid' AND NOT m.is_demo)
            - (SELECT SUM(r.developer_share_cents) FROM app_charge_refunds r WHERE r.developer_id = $1)
            - (SELECT COALESCE(SUM(p.amount_cents), 0) FROM developer_payouts p WHERE p.developer_id = $1) AS amount`,
      [devs.tally!.id],
    );
    const payout = await call('POST', '/api/developer/payouts', devs.tally!.token, {});
    expect(payout.statusCode, payout.body).toBe(201);
    expect(payout.json()).toMatchObject({ amountCents: Number(expected!.amount), currency: 'USD', status: 'paid', trigger: 'manual', processor: 'sandbox', connectAccount: `acct_sbx_${devs.tally!.id}` });
    expect(await postingsOf(payout.json().journalTransactionId)).toEqual([
      { code: `developer_payable:${devs.tally!.id}`, amountCents: Number(expected!.amount), merchantId: PLATFORM },
      { code: 'app_billing_clearing', amountCents: -Number(expected!.amount), merchantId: PLATFORM },
    ]);
    const after = (await ok('GET', '/api/developer/statement', devs.tally!.token)).balances[0];
    expect(after).toMatchObject({ availableCents: 0, demoEarningsCents: 1699, balanceCents: 1699 });
    // What is left is the demo store's: refused.
    expect((await call('POST', '/api/developer/payouts', devs.tally!.token, {})).json().code).toBe('money_movement_disabled');
    // Bad input is a 400 naming the field.
    const badCurrency = await call('POST', '/api/developer/payouts', devs.tally!.token, { currency: 'dollars' });
    expect(badCurrency.statusCode).toBe(400);
    expect(badCurrency.json().errors[0].path).toBe('currency');
    expect((await call('POST', '/api/developer/payouts', devs.tally!.token, { amountCents: 5 })).statusCode).toBe(400);

    // The weekly schedule (Mondays 00:00 UTC): Penny's 8.50 stays queued below the minimum.
    at('2027-02-08T00:05:00.000Z');
    await tick();
    expect((await ok('GET', '/api/developer/statement', devs.penny!.token)).payouts).toEqual([]);
    // March renewals, then the next Monday pays Tally's new sandbox earnings (Sierra, Foxtrot, Golf: 3 × 16.99) by itself.
    at('2027-03-01T00:05:00.000Z');
    await tick();
    at('2027-03-08T00:05:00.000Z');
    const report = await tick();
    expect(report.appBilling.developerPayouts).toBe(1);
    const statement = await ok('GET', '/api/developer/statement', devs.tally!.token);
    expect(statement.payouts[0]).toMatchObject({ trigger: 'scheduled', amountCents: 3 * 1699, earningsThrough: '2027-03-08T00:00:00.000Z' });
    expect(statement.nextScheduledPayoutAt).toBe('2027-03-15T00:00:00.000Z');
    expect((await ok('GET', '/api/developer/statement', devs.penny!.token)).balances[0]).toMatchObject({ availableCents: 1700, paidOutCents: 0 });
    expect((await server.db.query('SELECT id FROM developer_payouts WHERE developer_id = $1', [devs.demo!.id])).rows).toHaveLength(0);
  });

  it('installing a paid app through the installation API starts its subscription; a suspended one neither launches nor answers its token; uninstalling ends it', async () => {
    at('2027-06-10T10:00:00.000Z');
    const dev = devs.tally!.token;
    const made = await ok('POST', '/api/developer/apps', dev, { name: 'Tally Frame', description: 'Tally inside the register.', form: 'in_platform', launchUrl: 'https://apps.example/tally-frame', scopes: ['catalog:read'], category: 'Billing tests', pricing: { model: 'monthly', amountCents: 3000, currency: 'USD' } });
    for (const step of ['submit']) await ok('POST', `/api/developer/apps/${made.id}/${step}`, dev);
    for (const step of ['start-review', 'approve', 'list']) await ok('POST', `/api/platform/apps/${made.id}/${step}`, reviewer);
    const signed = await ok('POST', '/api/signup', undefined, { storeName: 'Hotel Hardware', country: 'US', currency: 'USD', timeZone: 'America/New_York', ownerName: 'Hotel Owner', ownerEmail: 'hotel@stores.example', ownerPin: '482915' });
    stores.hotel = { merchantId: signed.merchantId, staffId: signed.staffId, email: 'hotel@stores.example' };

    // Install: the first charge (10 → 30 June, 21 of 30 days of 30.00 = 21.00) is taken in the install's transaction.
    const installed = await ok('POST', '/api/pos/app-installations', await owner('hotel'), { appId: made.id, scopes: ['catalog:read'] });
    installs.hotelFrame = installed.installation.id;
    const sub = await subscription('hotel', 'hotelFrame');
    expect(sub).toMatchObject({ appName: 'Tally Frame', status: 'active', priceCents: 3000 });
    expect(sub.charges.map((c: Json) => [c.kind, c.amountCents, c.status])).toEqual([['initial', 2100, 'paid']]);
    const launched = await ok('POST', `/api/pos/app-installations/${installs.hotelFrame}/launch`, await owner('hotel'));
    expect((await call('GET', '/api/pos/catalog', launched.accessToken)).statusCode).toBe(200);

    // July's renewal is declined, retried after 1, 3 and 5 days, then suspended: the app stops working at once.
    await ok('PUT', '/api/pos/app-billing/payment-method', await owner('hotel'), { billingReference: 'bref_sbx_visa_0002' });
    for (const iso of ['2027-07-01T00:05:00.000Z', '2027-07-02T01:00:00.000Z', '2027-07-04T01:00:00.000Z', '2027-07-06T01:00:00.000Z']) {
      at(iso);
      await tick();
    }
    expect(await subscription('hotel', 'hotelFrame')).toMatchObject({ status: 'suspended' });
    expect((await call('GET', '/api/pos/catalog', launched.accessToken)).statusCode).toBe(401);
    const refused = await call('POST', `/api/pos/app-installations/${installs.hotelFrame}/launch`, await owner('hotel'));
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().code ?? refused.json().type).toMatch(/app_suspended/);

    // A good billing method reactivates it (charged now), the app launches again; uninstalling ends the subscription.
    await ok('PUT', '/api/pos/app-billing/payment-method', await owner('hotel'), { billingReference: 'bref_sbx_mastercard_4444' });
    expect(await subscription('hotel', 'hotelFrame')).toMatchObject({ status: 'active' });
    const again = await ok('POST', `/api/pos/app-installations/${installs.hotelFrame}/launch`, await owner('hotel'));
    expect((await call('GET', '/api/pos/catalog', again.accessToken)).statusCode).toBe(200);
    await ok('DELETE', `/api/pos/app-installations/${installs.hotelFrame}`, await owner('hotel'));
    expect(await subscription('hotel', 'hotelFrame')).toMatchObject({ status: 'canceled' });
    expect((await call('GET', '/api/pos/catalog', again.accessToken)).statusCode).toBe(401);
  });

  it('keeps the platform ledger and the stores\' audit trails verifiable, and lets managers and owners only read subscriptions', async () => {
    const signer = new AuditSigner(signingKey);
    const platform = await verifyAuditTrail(server.db, PLATFORM, signer);
    expect(platform.ok, platform.reason).toBe(true);
    const jts = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_transactions WHERE merchant_id = $1', [PLATFORM]);
    expect(platform.journalTransactions).toBe(jts.rows[0]!.n);
    for (const store of ['sierra', 'foxtrot', 'uniform', 'golf', 'hotel']) {
      const v = await verifyAuditTrail(server.db, stores[store]!.merchantId, signer);
      expect(v.ok, `${store}: ${v.reason}`).toBe(true);
    }
    const cashier = await idp.issueStaffToken({ staffId: stores.sierra!.staffId, merchantId: stores.sierra!.merchantId, role: 'cashier' }, { now });
    expect((await call('GET', '/api/pos/app-subscriptions', cashier)).statusCode).toBe(403);
    expect((await call('GET', '/api/pos/app-subscriptions?limit=5', await owner('sierra'))).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/app-subscriptions', server.credentials.appToken)).statusCode).toBe(403);
    expect(departures).toEqual([]);
  });
});
