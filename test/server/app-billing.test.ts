/**
 * Billing and payouts: paid app subscriptions billed to the store monthly (calendar months, UTC) with
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
import { postOnPlatformLedger } from '../../sync-server/src/modules/app-billing/ledger.ts';
import { endAppSubscription, runAppBilling, startAppSubscription } from '../../sync-server/src/modules/app-billing/subscriptions.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import { AuditSigner, generateAuditSigningKey } from '../../sync-server/src/platform/auth/audit-signing-key.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { verifyAuditTrail } from '../../sync-server/src/kernel/verify.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
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
      const route = url.split('?')[0]!.replace(/\/(app|ins|asub)_[0-9A-Z]+/, '/:id');
      if (route.startsWith('/api/pos/app-') || route.startsWith('/api/developer/statement') || route.startsWith('/api/developer/payouts'))
        departures.push(...conformance.check(method, route, res));
    },
  );
  /** A fresh owner token of a store at the current clock (tokens expire, and the clock moves by months). */
  const owner = (store: string) =>
    idp.issueStaffToken({ staffId: stores[store]!.staffId, merchantId: stores[store]!.merchantId, role: 'owner' }, { now });
  const tick = async (): Promise<Json> => server.app.recurringInvoices.runOnce() as unknown as Json;
  const install = async (store: string, app: string, key: string) => {
    installs[key] = `ins_${newId('app').slice(4)}`;
    const merchantId = store === 'demo' ? server.credentials.merchantId : stores[store]!.merchantId;
    return server.db.transaction((tx) =>
      startAppSubscription(tx, { merchantId, appId: apps[app]!, installationId: installs[key]!, now, actor: 'system' }),
    );
  };
  const subscriptionsOf = async (store: string): Promise<Json[]> => (await ok('GET', '/api/pos/app-subscriptions', await owner(store))).data;
  const subscription = async (store: string, key: string): Promise<Json> =>
    (await subscriptionsOf(store)).find((s) => s.installationId === installs[key])!;
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
    const made = await ok('POST', '/api/developer/apps', token, {
      name,
      description: `${name} for the register.`,
      form: 'in_platform',
      scopes: ['catalog:read'],
      category: 'Billing tests',
      pricing,
    });
    await ok('POST', `/api/developer/apps/${made.id}/submit`, token);
    await ok('POST', `/api/platform/apps/${made.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${made.id}/approve`, reviewer);
    await ok('POST', `/api/platform/apps/${made.id}/list`, reviewer);
    return made.id;
  };

  beforeAll(async () => {
    // Many stores and developers sign up from one client address: room above the default 5 an hour.
    const roomy = (name: string) => ({
      perClient: new RateLimit({ name, quota: 1_000, windowSeconds: 3600 }),
      global: new RateLimit({ name: `${name}-global`, quota: 1_000, windowSeconds: 3600 }),
    });
    server = await startTestServer({
      target,
      staticDir: null,
      clock: () => now,
      recurringInvoices: { enabled: false },
      webhooks: { enabled: false },
      auditSigningKey: signingKey,
      signUpRateLimits: roomy('signup'),
      developerSignUpRateLimits: roomy('developer-signup'),
    });
    idp = await IdentityProvider.load(server.db, 'http://localhost');
    conformance = await OpenApiConformance.of(server.app);
    reviewer = (await addPlatformAdmin(server.db, { email: 'billing-reviewer@platform.example', name: 'Bill Reviewer' })).token;
    for (const [key, name] of [
      ['tally', 'Tally Apps'],
      ['penny', 'Penny Apps'],
      ['demo', 'Demo Only Apps'],
    ] as const) {
      const made = await ok('POST', '/api/developers', undefined, { name, email: `${key}@billing.example` });
      devs[key] = { token: made.developerToken, id: made.developerId };
    }
    apps.pro = await listedApp('tally', 'Tally Pro', { model: 'monthly', amountCents: 1999, currency: 'USD' });
    apps.free = await listedApp('tally', 'Tally Free', { model: 'free' });
    apps.cheap = await listedApp('penny', 'Penny Counter', { model: 'monthly', amountCents: 1000, currency: 'USD' });
    apps.demoOnly = await listedApp('demo', 'Demo Helper', { model: 'monthly', amountCents: 1999, currency: 'USD' });
    for (const [key, storeName] of [
      ['sierra', 'Sierra Supplies'],
      ['foxtrot', 'Foxtrot Foods'],
      ['uniform', 'Uniform Outfitters'],
      ['golf', 'Golf Goods'],
    ] as const) {
      const email = `${key}@stores.example`;
      const made = await ok('POST', '/api/signup', undefined, {
        storeName,
        country: 'US',
        currency: 'USD',
        timeZone: 'America/New_York',
        ownerName: `${storeName} Owner`,
        ownerEmail: email,
        ownerPin: '482915',
      });
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
    expect(sub).toMatchObject({
      status: 'active',
      priceCents: 1999,
      currency: 'USD',
      currentPeriodStart: '2026-11-17T00:00:00.000Z',
      currentPeriodEnd: '2026-12-01T00:00:00.000Z',
      nextChargeAt: '2026-12-01T00:00:00.000Z',
      nextChargeCents: 1999,
    });
    expect(sub!.charges).toHaveLength(1);
    expect(sub!.charges[0]).toMatchObject({ kind: 'initial', amountCents: 933, status: 'paid', declineCode: null });
    const postings = await postingsOf(sub!.charges[0]!.journalTransactionId!);
    expect(postings).toEqual([
      { code: 'app_billing_clearing', amountCents: 933, merchantId: PLATFORM },
      { code: `developer_pending:${devs.tally!.id}`, amountCents: -793, merchantId: PLATFORM },
      { code: 'app_revenue', amountCents: -140, merchantId: PLATFORM },
    ]);
    expect(postings.reduce((s, p) => s + p.amountCents, 0)).toBe(0);
    // The store sees it; the same installation again is the same subscription, charged once.
    const listed = await subscription('sierra', 'sierraPro');
    expect(listed).toMatchObject({ id: sub!.id, appName: 'Tally Pro', status: 'active', notice: null });
    const again = await server.db.transaction((tx) =>
      startAppSubscription(tx, { merchantId: stores.sierra!.merchantId, appId: apps.pro!, installationId: installs.sierraPro!, now }),
    );
    expect(again!.id).toBe(sub!.id);
    expect((await subscription('sierra', 'sierraPro')).charges).toHaveLength(1);
    // Journal rows and charges are append-only.
    await expect(
      server.db.query('UPDATE postings SET amount_cents = amount_cents + 1 WHERE journal_transaction_id = $1', [
        sub!.charges[0]!.journalTransactionId!,
      ]),
    ).rejects.toThrow(/append-only/);
    await expect(server.db.query('UPDATE app_charges SET amount_cents = 1 WHERE id = $1', [sub!.charges[0]!.id])).rejects.toThrow(/append-only/);
    // A free app has no subscription and writes nothing.
    expect(await install('sierra', 'free', 'sierraFree')).toBeNull();
    expect((await subscriptionsOf('sierra')).map((s) => s.installationId)).toEqual([installs.sierraPro]);
  });

  it('renews at the full monthly price on the housekeeping tick when the month turns, once even with two runners at once', async () => {
    at('2026-12-01T00:05:00.000Z');
    // Two instances ticking at the same moment (on PostgreSQL truly concurrent): the subscription is renewed once.
    const [report, other] = await Promise.all([tick(), runAppBilling({ db: server.db, feed: new ChangeFeed() }, now)]);
    expect(report.appBilling.charged + other.charged).toBe(1);
    expect(other.errors).toEqual([]);
    const sub = await subscription('sierra', 'sierraPro');
    expect(sub).toMatchObject({
      status: 'active',
      currentPeriodStart: '2026-12-01T00:00:00.000Z',
      currentPeriodEnd: '2027-01-01T00:00:00.000Z',
      nextChargeAt: '2027-01-01T00:00:00.000Z',
    });
    expect(sub.charges.map((c: Json) => [c.kind, c.amountCents, c.status])).toEqual([
      ['renewal', 1999, 'paid'],
      ['initial', 933, 'paid'],
    ]);
    // 19.99: developer floor(1699.15) = 1699, platform 300.
    expect(await postingsOf(sub.charges[0].journalTransactionId)).toEqual([
      { code: 'app_billing_clearing', amountCents: 1999, merchantId: PLATFORM },
      { code: `developer_pending:${devs.tally!.id}`, amountCents: -1699, merchantId: PLATFORM },
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
    const paidNow = (await ok('PUT', '/api/pos/app-billing/payment-method', await owner('golf'), { billingReference: 'bref_sbx_amex_0005' }))
      .subscriptions[0];
    expect(paidNow).toMatchObject({ status: 'active', failedAttempts: 0, nextChargeAt: '2027-02-01T00:00:00.000Z', notice: null });
    expect(paidNow.charges[0]).toMatchObject({ kind: 'retry', amountCents: 1999, status: 'paid', periodStart: '2027-01-01T00:00:00.000Z' });
    let sub = await subscription('foxtrot', 'foxtrotPro');
    expect(sub).toMatchObject({
      status: 'past_due',
      failedAttempts: 1,
      nextChargeAt: '2027-01-02T01:00:00.000Z',
      nextChargeCents: 1999,
      currentPeriodEnd: '2027-02-01T00:00:00.000Z',
    });
    expect(sub.notice).toContain('card_declined');
    expect(sub.charges[0]).toMatchObject({ kind: 'renewal', status: 'failed', declineCode: 'card_declined', journalTransactionId: null });
    // Not due yet: nothing tried.
    at('2027-01-02T00:59:00.000Z');
    await tick();
    expect((await subscription('foxtrot', 'foxtrotPro')).failedAttempts).toBe(1);
    at('2027-01-02T01:00:00.000Z');
    await tick();
    expect(await subscription('foxtrot', 'foxtrotPro')).toMatchObject({
      status: 'past_due',
      failedAttempts: 2,
      nextChargeAt: '2027-01-04T01:00:00.000Z',
    });
    at('2027-01-04T01:00:00.000Z');
    await tick();
    expect(await subscription('foxtrot', 'foxtrotPro')).toMatchObject({
      status: 'past_due',
      failedAttempts: 3,
      nextChargeAt: '2027-01-06T01:00:00.000Z',
    });
    at('2027-01-06T01:00:00.000Z');
    const report = await tick();
    expect(report.appBilling.suspended).toBe(1);
    sub = await subscription('foxtrot', 'foxtrotPro');
    expect(sub).toMatchObject({
      status: 'suspended',
      failedAttempts: 4,
      nextChargeAt: null,
      nextChargeCents: null,
      suspendedAt: '2027-01-06T01:00:00.000Z',
    });
    expect(sub.notice).toMatch(/Suspended after 4 declined charges/);
    expect(sub.charges.filter((c: Json) => c.status === 'failed').map((c: Json) => c.kind)).toEqual(['retry', 'retry', 'retry', 'renewal']);
    // The notice: an audit entry in the store's trail and an e-mail to the owner.
    const audit = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE merchant_id = $1 AND entity_id = $2 ORDER BY seq`, [
      stores.foxtrot!.merchantId,
      sub.id,
    ]);
    expect(audit.rows.map((r) => r.action)).toContain('app_subscription.suspended');
    const mail = await server.db.query<{ to_address: string; subject: string }>(
      `SELECT to_address, subject FROM email_outbox WHERE merchant_id = $1`,
      [stores.foxtrot!.merchantId],
    );
    expect(mail.rows).toEqual([{ to_address: stores.foxtrot!.email, subject: 'Tally Pro is suspended: its subscription could not be charged' }]);
    // Suspended: the tick charges nothing more.
    at('2027-01-09T01:00:00.000Z');
    await tick();
    expect((await subscription('foxtrot', 'foxtrotPro')).charges).toHaveLength(sub.charges.length);

    // A good billing method reactivates it at once: 9 → 31 January, 23 of 31 days of 19.99 = 14.831 → 14.83.
    const changed = await ok('PUT', '/api/pos/app-billing/payment-method', await owner('foxtrot'), { billingReference: 'bref_sbx_mastercard_4444' });
    const back = changed.subscriptions.find((s: Json) => s.installationId === installs.foxtrotPro);
    expect(back).toMatchObject({
      status: 'active',
      failedAttempts: 0,
      suspendedAt: null,
      currentPeriodStart: '2027-01-09T00:00:00.000Z',
      currentPeriodEnd: '2027-02-01T00:00:00.000Z',
    });
    expect(back.charges[0]).toMatchObject({ kind: 'reactivation', amountCents: 1483, status: 'paid' });
    const actions = await server.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE merchant_id = $1 AND entity_id = $2 ORDER BY seq DESC LIMIT 1`,
      [stores.foxtrot!.merchantId, sub.id],
    );
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
    const refundJt = (
      await server.db.query<{ journal_transaction_id: string }>('SELECT journal_transaction_id FROM app_charge_refunds WHERE id = $1', [
        ended!.refunds[0]!.id,
      ])
    ).rows[0]!.journal_transaction_id;
    expect(await postingsOf(refundJt)).toEqual([
      { code: `developer_pending:${devs.tally!.id}`, amountCents: 603, merchantId: PLATFORM },
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

  it("shows the developer's statement: every charge's 85 % share and its hold, refunds, payouts and the ledger balance", async () => {
    // The clock is at the February tick (Monday 1 February 2027, 00:05).
    const statement = await ok('GET', '/api/developer/statement', devs.tally!.token);
    expect(statement.developerId).toBe(devs.tally!.id);
    expect(statement.holdDays).toBe(31);
    expect(statement.charges.length).toBeGreaterThanOrEqual(7);
    for (const c of statement.charges) {
      expect(c.developerShareCents).toBe(Math.floor((c.amountCents * 85) / 100));
      expect(c.developerShareCents + c.platformShareCents).toBe(c.amountCents);
      // Held 31 days (at least until its period ends); released by the tick once that has passed.
      expect(new Date(c.earningsAvailableAt).getTime()).toBeGreaterThanOrEqual(new Date(c.createdAt).getTime() + 31 * 24 * 3600 * 1000);
      expect(c.earnings).toBe(new Date(c.earningsAvailableAt) > now ? 'on_hold' : 'released');
    }
    const usd = statement.balances.find((b: Json) => b.currency === 'USD');
    const gross = statement.charges.reduce((s: number, c: Json) => s + c.amountCents, 0);
    const share = statement.charges.reduce((s: number, c: Json) => s + c.developerShareCents, 0);
    // The refund of Uniform's unused days came out of its own held share, not out of anything paid.
    expect(statement.refunds).toEqual([
      expect.objectContaining({ developerShareCents: 603, fromPendingCents: 603, fromAvailableCents: 0, toOwedCents: 0 }),
    ]);
    // Nothing was paid before it was held 31 days: the Mondays of January found only Sierra's 7.93 + 16.99 released
    // (below the 25.00 minimum); this Monday's tick paid what was released by now — Sierra's two, Golf's and
    // Foxtrot's first charges (7.93 + 16.99 + 12.06 + 12.06).
    expect(statement.payouts.map((p: Json) => [p.trigger, p.amountCents, p.createdAt])).toEqual([
      ['scheduled', 793 + 1699 + 1206 + 1206, '2027-02-01T00:05:00.000Z'],
    ]);
    const paidOut = 4904;
    const held = statement.charges.filter((c: Json) => c.earnings === 'on_hold').reduce((s: number, c: Json) => s + c.developerShareCents, 0) - 603;
    expect(usd).toMatchObject({
      grossChargesCents: gross,
      developerShareCents: share,
      refundedCents: 603,
      paidOutCents: paidOut,
      pendingCents: held,
      availableCents: 0,
      owedCents: 0,
      demoEarningsCents: 0,
      balanceCents: share - 603 - paidOut,
    });
    expect(usd.nextAvailableAt).toBe('2027-02-01T01:00:00.000Z'); // Sierra's and Golf's January charges, made at 01:00
    // The ledger agrees: held on developer_pending, nothing left on developer_payable, and the platform ledger balances.
    const balanceOf = async (code: string) =>
      Number(
        (
          await server.db.query<{ b: string }>(
            `SELECT COALESCE(-SUM(p.amount_cents), 0) AS b FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1 AND a.code = $2`,
            [PLATFORM, code],
          )
        ).rows[0]!.b,
      );
    expect(await balanceOf(`developer_pending:${devs.tally!.id}`)).toBe(held);
    expect(await balanceOf(`developer_payable:${devs.tally!.id}`)).toBe(0);
    const total = await server.db.query<{ total: string }>(
      'SELECT COALESCE(SUM(p.amount_cents), 0) AS total FROM postings p JOIN journal_transactions j ON j.id = p.journal_transaction_id WHERE j.merchant_id = $1',
      [PLATFORM],
    );
    expect(Number(total.rows[0]!.total)).toBe(0);
    // Every release is recorded once per charge, naming its journal transaction.
    const releases = await server.db.query<{ charge_id: string; held: string; released: string; jt: string | null }>(
      'SELECT charge_id, held_cents AS held, released_cents AS released, journal_transaction_id AS jt FROM developer_earnings_releases WHERE developer_id = $1',
      [devs.tally!.id],
    );
    expect(releases.rows.map((r) => r.charge_id).sort()).toEqual(
      statement.charges
        .filter((c: Json) => c.earnings === 'released')
        .map((c: Json) => c.id)
        .sort(),
    );
    for (const r of releases.rows) expect([Number(r.released), r.jt]).toEqual([Number(r.held), expect.stringMatching(/^jtx_/)]);
    // Developer routes are for developers only.
    const staff = await call('GET', '/api/developer/statement', await owner('sierra'));
    expect(staff.statusCode).toBe(403);
    expect(staff.json().code).toBe('developer_only');
  });

  it('pays out only released earnings: refuses what is on hold (409), demo-store earnings (403) and amounts below the minimum; pays the rest by hand or weekly', async () => {
    at('2027-02-01T00:06:00.000Z');
    await install('sierra', 'cheap', 'sierraCheap'); // February 1: the whole month, 10.00 → developer 8.50, held to 4 March
    await install('demo', 'demoOnly', 'demoHelper');
    await install('demo', 'pro', 'demoPro');
    at('2027-02-01T00:10:00.000Z');
    // Penny Apps: 8.50 earned, on hold.
    const held = await call('POST', '/api/developer/payouts', devs.penny!.token, {});
    expect(held.statusCode).toBe(409);
    expect(held.json()).toMatchObject({ code: 'earnings_on_hold' });
    expect(held.json().detail).toContain('2027-03-04T00:06:00.000Z');
    // Demo Only Apps: earnings from the demo store only → 403, nothing paid, nothing posted.
    const demo = await call('POST', '/api/developer/payouts', devs.demo!.token, { currency: 'usd' });
    expect(demo.statusCode).toBe(403);
    expect(demo.json()).toMatchObject({ code: 'money_movement_disabled', status: 403 });
    expect((await server.db.query('SELECT id FROM developer_payouts WHERE developer_id = $1', [devs.demo!.id])).rows).toHaveLength(0);
    expect((await ok('GET', '/api/developer/statement', devs.demo!.token)).balances[0]).toMatchObject({
      demoEarningsCents: 1699,
      availableCents: 0,
      pendingCents: 0,
      balanceCents: 1699,
    });
    expect((await ok('GET', '/api/developer/statement', devs.demo!.token)).charges[0]).toMatchObject({ earnings: 'demo', earningsAvailableAt: null });
    // Tally Apps: the weekly payout at 00:05 took everything released; what is left is on hold or the demo store's.
    expect((await call('POST', '/api/developer/payouts', devs.tally!.token, {})).json().code).toBe('earnings_on_hold');

    // At 01:00 Sierra's and Golf's January charges (16.99 each) come off hold: a payout takes exactly them.
    at('2027-02-01T01:00:00.000Z');
    const payout = await call('POST', '/api/developer/payouts', devs.tally!.token, {});
    expect(payout.statusCode, payout.body).toBe(201);
    expect(payout.json()).toMatchObject({
      amountCents: 2 * 1699,
      currency: 'USD',
      status: 'paid',
      trigger: 'manual',
      processor: 'sandbox',
      connectAccount: `acct_sbx_${devs.tally!.id}`,
      earningsThrough: '2027-02-01T01:00:00.000Z',
    });
    expect(await postingsOf(payout.json().journalTransactionId)).toEqual([
      { code: `developer_payable:${devs.tally!.id}`, amountCents: 2 * 1699, merchantId: PLATFORM },
      { code: 'app_billing_clearing', amountCents: -2 * 1699, merchantId: PLATFORM },
    ]);
    const after = (await ok('GET', '/api/developer/statement', devs.tally!.token)).balances[0];
    expect(after).toMatchObject({ availableCents: 0, demoEarningsCents: 1699, owedCents: 0 });
    expect(after.pendingCents).toBeGreaterThan(0);
    // Nothing more: a second payout at once finds only held and demo earnings.
    expect((await call('POST', '/api/developer/payouts', devs.tally!.token, {})).json().code).toBe('earnings_on_hold');
    // Bad input is a 400 naming the field.
    const badCurrency = await call('POST', '/api/developer/payouts', devs.tally!.token, { currency: 'dollars' });
    expect(badCurrency.statusCode).toBe(400);
    expect(badCurrency.json().errors[0].path).toBe('currency');
    expect((await call('POST', '/api/developer/payouts', devs.tally!.token, { amountCents: 5 })).statusCode).toBe(400);

    // The weekly schedule (from Mondays 00:00 UTC): Penny's 8.50 is still on hold on 8 February.
    at('2027-02-08T00:05:00.000Z');
    await tick();
    expect((await ok('GET', '/api/developer/statement', devs.penny!.token)).payouts).toEqual([]);
    // March: on Monday 1 March only Foxtrot's reactivation (12.60) and Uniform's charge less its refund (6.03) have
    // come off hold — below the minimum; on Monday 8 March the February renewals of Sierra, Foxtrot and Golf
    // (3 × 16.99, held to 4 March) have too, and the tick pays all of it by itself.
    at('2027-03-01T00:05:00.000Z');
    expect((await tick()).appBilling.developerPayouts).toBe(0);
    at('2027-03-08T00:05:00.000Z');
    const report = await tick();
    expect(report.appBilling.developerPayouts).toBe(1);
    const statement = await ok('GET', '/api/developer/statement', devs.tally!.token);
    expect(statement.payouts[0]).toMatchObject({
      trigger: 'scheduled',
      amountCents: 1260 + 603 + 3 * 1699,
      earningsThrough: '2027-03-08T00:05:00.000Z',
    });
    expect(statement.nextScheduledPayoutAt).toBe('2027-03-15T00:00:00.000Z');
    // Once a week: a later tick of the same week pays nothing more.
    at('2027-03-09T00:05:00.000Z');
    expect((await tick()).appBilling.developerPayouts).toBe(0);
    // Penny: February's 8.50 released on 4 March (below the minimum, it waits), March's held.
    expect((await ok('GET', '/api/developer/statement', devs.penny!.token)).balances[0]).toMatchObject({
      availableCents: 850,
      pendingCents: 850,
      paidOutCents: 0,
    });
    expect((await server.db.query('SELECT id FROM developer_payouts WHERE developer_id = $1', [devs.demo!.id])).rows).toHaveLength(0);
  });

  it('installing a paid app through the installation API starts its subscription; a suspended one neither launches nor answers its token; uninstalling ends it', async () => {
    at('2027-06-10T10:00:00.000Z');
    const dev = devs.tally!.token;
    const made = await ok('POST', '/api/developer/apps', dev, {
      name: 'Tally Frame',
      description: 'Tally inside the register.',
      form: 'in_platform',
      launchUrl: 'https://apps.example/tally-frame',
      scopes: ['catalog:read'],
      category: 'Billing tests',
      pricing: { model: 'monthly', amountCents: 3000, currency: 'USD' },
    });
    for (const step of ['submit']) await ok('POST', `/api/developer/apps/${made.id}/${step}`, dev);
    for (const step of ['start-review', 'approve', 'list']) await ok('POST', `/api/platform/apps/${made.id}/${step}`, reviewer);
    const signed = await ok('POST', '/api/signup', undefined, {
      storeName: 'Hotel Hardware',
      country: 'US',
      currency: 'USD',
      timeZone: 'America/New_York',
      ownerName: 'Hotel Owner',
      ownerEmail: 'hotel@stores.example',
      ownerPin: '482915',
    });
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

  /** A store signed up at the current clock: its owner token comes from `owner(key)`. */
  const signUpStore = async (key: string, storeName: string) => {
    const email = `${key}@stores.example`;
    const made = await ok('POST', '/api/signup', undefined, {
      storeName,
      country: 'US',
      currency: 'USD',
      timeZone: 'America/New_York',
      ownerName: `${storeName} Owner`,
      ownerEmail: email,
      ownerPin: '482915',
    });
    stores[key] = { merchantId: made.merchantId, staffId: made.staffId, email };
  };
  const newDeveloper = async (key: string, name: string) => {
    const made = await ok('POST', '/api/developers', undefined, { name, email: `${key}@billing.example` });
    devs[key] = { token: made.developerToken, id: made.developerId };
  };
  /** The developer's balance on the platform ledger by account: pending, payable, receivable (debit-positive for it). */
  const ledgerOf = async (developerId: string) => {
    const { rows } = await server.db.query<{ code: string; total: string }>(
      `SELECT a.code, SUM(p.amount_cents) AS total FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1 AND a.code LIKE '%:' || $2 GROUP BY a.code`,
      [PLATFORM, developerId],
    );
    const of = (base: string) => Number(rows.find((r) => r.code === `${base}:${developerId}`)?.total ?? 0);
    return { pending: -of('developer_pending') || 0, payable: -of('developer_payable') || 0, receivable: of('developer_receivable') };
  };
  const installViaApi = async (store: string, appId: string) =>
    (await ok('POST', '/api/pos/app-installations', await owner(store), { appId, scopes: ['catalog:read'] })).installation.id as string;

  it("a payout and a same-day uninstall cannot take the platform's money: the payout pays only released earnings, the refund comes out of the hold", async () => {
    await newDeveloper('mallory', 'Mallory Apps');
    apps.max = await listedApp('mallory', 'Mallory Max', { model: 'monthly', amountCents: 12_266, currency: 'USD' });
    at('2027-08-01T10:00:00.000Z');
    await signUpStore('kilo', 'Kilo Kitchenware');
    await signUpStore('lima', 'Lima Lamps');
    // August, the whole month: 122.66, developer floor(85 %) = 104.26, held to 1 September 10:00.
    const kilo = await installViaApi('kilo', apps.max!);
    at('2027-08-02T09:00:00.000Z');
    const early = await call('POST', '/api/developer/payouts', devs.mallory!.token, {});
    expect(early.json()).toMatchObject({ status: 409, code: 'earnings_on_hold' });
    expect(early.json().detail).toContain('2027-09-01T10:00:00.000Z');
    // 1 September: the renewal (122.66 for September, held to 2 October); August's share comes off hold at 10:00.
    at('2027-09-01T00:05:00.000Z');
    await tick();
    at('2027-09-02T12:00:00.000Z');
    // The developer is paid out 104.26 at once — August's share, and nothing of September's.
    const payout = await ok('POST', '/api/developer/payouts', devs.mallory!.token, {});
    expect(payout.amountCents).toBe(10_426);
    // The same day a second store installs (2 → 30 September: 29 of 30 days) and the developer tries again: on hold.
    const lima = await installViaApi('lima', apps.max!);
    expect((await call('POST', '/api/developer/payouts', devs.mallory!.token, {})).json().code).toBe('earnings_on_hold');
    // Both stores uninstall the same day: their unused days are refunded out of the held shares.
    await ok('DELETE', `/api/pos/app-installations/${lima}`, await owner('lima'));
    await ok('DELETE', `/api/pos/app-installations/${kilo}`, await owner('kilo'));
    const statement = await ok('GET', '/api/developer/statement', devs.mallory!.token);
    expect(statement.refunds).toHaveLength(2);
    for (const r of statement.refunds) expect(r).toMatchObject({ fromPendingCents: r.developerShareCents, fromAvailableCents: 0, toOwedCents: 0 });
    const share = statement.charges.reduce((s: number, c: Json) => s + c.developerShareCents, 0);
    const refunded = statement.refunds.reduce((s: number, r: Json) => s + r.developerShareCents, 0);
    expect(refunded).toBeGreaterThan(2 * 9_000);
    // Never negative, nothing owed: what is left is the held remainder of the two September shares.
    expect(statement.balances[0]).toMatchObject({
      paidOutCents: 10_426,
      availableCents: 0,
      owedCents: 0,
      pendingCents: share - refunded - 10_426,
      balanceCents: share - refunded - 10_426,
    });
    expect(statement.balances[0].pendingCents).toBeGreaterThan(0);
    expect(await ledgerOf(devs.mallory!.id)).toEqual({ pending: share - refunded - 10_426, payable: 0, receivable: 0 });
    expect((await call('POST', '/api/developer/payouts', devs.mallory!.token, {})).json().code).toBe('earnings_on_hold');
    // After the hold the remainder is released (below the minimum, it waits).
    at('2027-10-04T00:05:00.000Z');
    await tick();
    expect((await ok('GET', '/api/developer/statement', devs.mallory!.token)).balances[0]).toMatchObject({
      pendingCents: 0,
      availableCents: share - refunded - 10_426,
      owedCents: 0,
    });
  });

  it('a balance left negative before holds existed is owed, never paid out, and recovered from later earnings before anything more is paid', async () => {
    await newDeveloper('oscar', 'Oscar Apps');
    apps.ops = await listedApp('oscar', 'Oscar Ops', { model: 'monthly', amountCents: 12_266, currency: 'USD' });
    at('2027-10-01T10:00:00.000Z');
    await signUpStore('mike', 'Mike Motors');
    await signUpStore('november', 'November Nails');
    // The state the old rules left behind, written as they wrote it: a charge credited straight to the developer's
    // payable balance (no hold), paid out at once.
    const dev = devs.oscar!.id;
    const legacy = {
      sub: `asub_${newId('app').slice(4)}`,
      charge: `ach_${newId('app').slice(4)}`,
      payout: `dpo_${newId('app').slice(4)}`,
      installation: `ins_${newId('app').slice(4)}`,
    };
    installs.mikeOps = legacy.installation;
    await server.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO app_subscriptions (id, installation_id, merchant_id, app_id, developer_id, price_cents, currency, status, current_period_start, current_period_end, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 12266, 'USD', 'active', '2027-10-01T00:00:00Z', '2027-11-01T00:00:00Z', $6, $6)`,
        [legacy.sub, legacy.installation, stores.mike!.merchantId, apps.ops, dev, now],
      );
      const charged = await postOnPlatformLedger(
        tx,
        now,
        { kind: 'payment', sourceType: 'app_charge', sourceId: legacy.charge, currency: 'USD', memo: 'App charge before holds existed' },
        [
          { accountCode: 'app_billing_clearing', amountCents: 12_266 },
          { accountCode: `developer_payable:${dev}`, amountCents: -10_426 },
          { accountCode: 'app_revenue', amountCents: -1_840 },
        ],
        { action: 'app_charge.paid', entityType: 'app_charge', entityId: legacy.charge, data: {} },
      );
      await tx.query(
        `INSERT INTO app_charges (id, subscription_id, installation_id, merchant_id, app_id, developer_id, kind, period_start, period_end, amount_cents, developer_share_cents, platform_share_cents, currency, status, processor, processor_reference, journal_transaction_id, created_at, earnings, earnings_available_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'initial', '2027-10-01T00:00:00Z', '2027-11-01T00:00:00Z', 12266, 10426, 1840, 'USD', 'paid', 'sandbox', 'sbx_legacy', $7, $8, 'available', NULL)`,
        [legacy.charge, legacy.sub, legacy.installation, stores.mike!.merchantId, apps.ops, dev, charged.id, now],
      );
      const paid = await postOnPlatformLedger(
        tx,
        now,
        { kind: 'payout', sourceType: 'developer_payout', sourceId: legacy.payout, currency: 'USD', memo: 'Payout before holds existed' },
        [
          { accountCode: `developer_payable:${dev}`, amountCents: 10_426 },
          { accountCode: 'app_billing_clearing', amountCents: -10_426 },
        ],
        { action: 'developer_payout.paid', entityType: 'developer_payout', entityId: legacy.payout, data: {} },
      );
      await tx.query(
        `INSERT INTO developer_payouts (id, developer_id, amount_cents, currency, status, trigger, earnings_through, processor, connect_account, processor_reference, journal_transaction_id, created_at)
         VALUES ($1, $2, 10426, 'USD', 'paid', 'manual', $3, 'sandbox', $4, 'sbx_legacy', $5, $3)`,
        [legacy.payout, dev, now, `acct_sbx_${dev}`, paid.id],
      );
    });
    // The same-day uninstall refunds 30 of 31 days: the developer's 100.90 finds nothing held and nothing available,
    // so it is owed — not a negative available balance, and never paid out.
    const ended = await server.db.transaction((tx) => endAppSubscription(tx, { installationId: legacy.installation, now, actor: 'system' }));
    expect(ended!.refunds[0]).toMatchObject({ amountCents: 11_870, unusedDays: 30, coveredDays: 31 });
    let statement = await ok('GET', '/api/developer/statement', devs.oscar!.token);
    expect(statement.refunds[0]).toMatchObject({ developerShareCents: 10_090, fromPendingCents: 0, fromAvailableCents: 0, toOwedCents: 10_090 });
    expect(statement.balances[0]).toMatchObject({ pendingCents: 0, availableCents: 0, owedCents: 10_090, balanceCents: -10_090 });
    expect(await ledgerOf(dev)).toEqual({ pending: 0, payable: 0, receivable: 10_090 });
    expect((await call('POST', '/api/developer/payouts', devs.oscar!.token, {})).json().code).toBe('nothing_to_pay_out');

    // Later earnings: a store installs at 11:00 (122.66, developer 104.26, held to 1 November 11:00); the
    // November renewal follows. Releasing October's share repays the debt first; only the rest is available.
    at('2027-10-01T11:00:00.000Z');
    await installViaApi('november', apps.ops!);
    at('2027-11-01T00:05:00.000Z');
    await tick();
    at('2027-11-08T00:05:00.000Z');
    const report = await tick();
    expect(report.appBilling.developerEarningsReleased).toBeGreaterThanOrEqual(1);
    statement = await ok('GET', '/api/developer/statement', devs.oscar!.token);
    expect(statement.balances[0]).toMatchObject({ owedCents: 0, availableCents: 10_426 - 10_090, pendingCents: 10_426, paidOutCents: 10_426 });
    expect(await ledgerOf(dev)).toEqual({ pending: 10_426, payable: 336, receivable: 0 });
    const release = await server.db.query<{ released: string; recovered: string }>(
      'SELECT released_cents AS released, recovered_cents AS recovered FROM developer_earnings_releases WHERE developer_id = $1',
      [dev],
    );
    expect(release.rows.map((r) => [Number(r.released), Number(r.recovered)])).toEqual([[10_426, 10_090]]);
    // 3.36 is below the minimum: the weekly payout waited. In December November's share comes off hold and the
    // Monday tick pays it with the 3.36: in all the developer was paid the three shares less the refund, never more.
    expect(statement.payouts).toHaveLength(1);
    at('2027-12-06T00:05:00.000Z');
    await tick();
    statement = await ok('GET', '/api/developer/statement', devs.oscar!.token);
    expect(statement.payouts.map((p: Json) => p.amountCents)).toEqual([336 + 10_426, 10_426]);
    const paid = statement.payouts.reduce((s: number, p: Json) => s + p.amountCents, 0);
    expect(paid).toBe(3 * 10_426 - 10_090);
    expect(statement.balances[0]).toMatchObject({ owedCents: 0, availableCents: 0, pendingCents: 10_426 }); // December's, held
  });

  it('a price rise of a listed app waits for review: the directory, new installs and renewals keep the listed price until a reviewer approves', async () => {
    await newDeveloper('victor', 'Victor Apps');
    apps.vault = await listedApp('victor', 'Victor Vault', { model: 'monthly', amountCents: 90_000, currency: 'USD' });
    at('2028-01-05T10:00:00.000Z');
    await signUpStore('papa', 'Papa Paper');
    await signUpStore('quebec', 'Quebec Quilts');
    await signUpStore('romeo', 'Romeo Rugs');
    installs.papaVault = await installViaApi('papa', apps.vault!);
    // The developer raises the price of the listed app from 900.00 to 100,000.00 a month.
    at('2028-01-06T10:00:00.000Z');
    const raised = await ok('PATCH', `/api/developer/apps/${apps.vault}`, devs.victor!.token, {
      pricing: { model: 'monthly', amountCents: 10_000_000, currency: 'USD' },
    });
    expect(raised).toMatchObject({
      status: 'submitted',
      listed: true,
      pricing: { amountCents: 10_000_000 },
      approved: { pricing: { model: 'monthly', amountCents: 90_000, currency: 'USD' } },
      changesInReview: ['pricing'],
    });
    // Stores still see and get the listed price.
    expect(await ok('GET', `/api/pos/app-directory/${apps.vault}`, await owner('quebec'))).toMatchObject({
      priceCents: 90_000,
      pricing: { amountCents: 90_000 },
    });
    installs.quebecVault = await installViaApi('quebec', apps.vault!);
    expect(await subscription('quebec', 'quebecVault')).toMatchObject({ priceCents: 90_000, priceChange: null });
    // February renews at 900.00.
    at('2028-02-01T00:05:00.000Z');
    await tick();
    for (const [store, key] of [
      ['papa', 'papaVault'],
      ['quebec', 'quebecVault'],
    ] as const)
      expect((await subscription(store, key)).charges[0]).toMatchObject({ kind: 'renewal', amountCents: 90_000, status: 'paid' });
    // The reviewer approves: the directory and new installs have the new price at once.
    at('2028-02-02T10:00:00.000Z');
    await ok('POST', `/api/platform/apps/${apps.vault}/start-review`, reviewer);
    const approved = await ok('POST', `/api/platform/apps/${apps.vault}/approve`, reviewer);
    expect(approved).toMatchObject({ status: 'listed', approved: { pricing: { amountCents: 10_000_000 } }, changesInReview: [] });
    const history = (await ok('GET', `/api/platform/apps/${apps.vault}`, reviewer)).history;
    expect(history.at(-1)).toMatchObject({
      action: 'approve',
      data: { changed: ['pricing'], pricing: { from: { amountCents: 90_000 }, to: { amountCents: 10_000_000 } } },
    });
    expect((await ok('GET', `/api/pos/app-directory/${apps.vault}`, await owner('romeo'))).priceCents).toBe(10_000_000);
    installs.romeoVault = await installViaApi('romeo', apps.vault!);
    expect(await subscription('romeo', 'romeoVault')).toMatchObject({ priceCents: 10_000_000, priceChange: null });
  });

  it('a price rise applies to an installation only after its store accepts it; a store that never accepts keeps its price; a lower price applies by itself; free ends the subscription', async () => {
    // Installed before the rise: the stores are offered it and keep paying 900.00 until they accept.
    const offered = await subscription('papa', 'papaVault');
    expect(offered).toMatchObject({ priceCents: 90_000, nextChargeAt: '2028-03-01T00:00:00.000Z', nextChargeCents: 90_000 });
    expect(offered.priceChange).toEqual({
      kind: 'rise',
      fromCents: 90_000,
      fromCurrency: 'USD',
      toCents: 10_000_000,
      toCurrency: 'USD',
      needsAcceptance: true,
      appliesFrom: '2028-03-01T00:00:00.000Z',
    });
    at('2028-03-01T00:05:00.000Z');
    await tick();
    expect((await subscription('papa', 'papaVault')).charges[0]).toMatchObject({ kind: 'renewal', amountCents: 90_000 });
    expect((await subscription('romeo', 'romeoVault')).charges[0]).toMatchObject({ kind: 'renewal', amountCents: 10_000_000 });

    // Accepting: the owner only, and only the price shown.
    const accept = (token: string, body: Json) => call('POST', `/api/pos/app-subscriptions/${offered.id}/accept-price`, token, body);
    const manager = await idp.issueStaffToken({ staffId: stores.papa!.staffId, merchantId: stores.papa!.merchantId, role: 'manager' }, { now });
    expect((await accept(manager, { priceCents: 10_000_000, currency: 'USD' })).statusCode).toBe(403);
    const wrong = await accept(await owner('papa'), { priceCents: 5_000_000, currency: 'USD' });
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json()).toMatchObject({ code: 'price_changed', errors: [{ path: 'priceCents' }] });
    expect((await accept(await owner('papa'), { priceCents: 'lots', currency: 'USD' })).json().errors[0].path).toBe('priceCents');
    expect((await accept(await owner('quebec'), { priceCents: 10_000_000, currency: 'USD' })).statusCode).toBe(404); // another store's
    const accepted = await accept(await owner('papa'), { priceCents: 10_000_000, currency: 'usd' });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({
      priceCents: 10_000_000,
      priceChange: null,
      nextChargeAt: '2028-04-01T00:00:00.000Z',
      nextChargeCents: 10_000_000,
    });
    expect(accepted.json().charges[0]).toMatchObject({ kind: 'renewal', amountCents: 90_000 }); // March is not charged again
    expect((await accept(await owner('papa'), { priceCents: 10_000_000, currency: 'USD' })).json().priceCents).toBe(10_000_000);
    const audit = await server.db.query<{ data: Json }>(
      `SELECT data FROM audit_log WHERE merchant_id = $1 AND action = 'app_subscription.price_accepted'`,
      [stores.papa!.merchantId],
    );
    expect(audit.rows.map((r) => r.data)).toEqual([
      expect.objectContaining({ fromCents: 90_000, toCents: 10_000_000, appliesFrom: '2028-04-01T00:00:00.000Z' }),
    ]);

    // April: Papa pays the price it accepted; Quebec, which never accepted, keeps paying 900.00.
    at('2028-04-01T00:05:00.000Z');
    await tick();
    expect((await subscription('papa', 'papaVault')).charges[0]).toMatchObject({ kind: 'renewal', amountCents: 10_000_000 });
    expect((await subscription('quebec', 'quebecVault')).charges[0]).toMatchObject({ kind: 'renewal', amountCents: 90_000 });
    expect((await subscription('quebec', 'quebecVault')).priceChange).toMatchObject({ kind: 'rise', needsAcceptance: true });

    // A lower price (500.00), once approved, applies to every subscription by itself from the next renewal.
    await ok('PATCH', `/api/developer/apps/${apps.vault}`, devs.victor!.token, {
      pricing: { model: 'monthly', amountCents: 50_000, currency: 'USD' },
    });
    await ok('POST', `/api/platform/apps/${apps.vault}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${apps.vault}/approve`, reviewer);
    expect(await subscription('quebec', 'quebecVault')).toMatchObject({
      nextChargeCents: 50_000,
      priceChange: { kind: 'lower', needsAcceptance: false, toCents: 50_000 },
    });
    at('2028-05-01T00:05:00.000Z');
    await tick();
    for (const [store, key] of [
      ['papa', 'papaVault'],
      ['quebec', 'quebecVault'],
      ['romeo', 'romeoVault'],
    ] as const) {
      expect(await subscription(store, key)).toMatchObject({ priceCents: 50_000, priceChange: null });
      expect((await subscription(store, key)).charges[0]).toMatchObject({ kind: 'renewal', amountCents: 50_000 });
    }

    // Free: each subscription ends at its next renewal with nothing charged; the app stays installed.
    await ok('PATCH', `/api/developer/apps/${apps.vault}`, devs.victor!.token, { pricing: { model: 'free' } });
    await ok('POST', `/api/platform/apps/${apps.vault}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${apps.vault}/approve`, reviewer);
    expect(await subscription('romeo', 'romeoVault')).toMatchObject({
      nextChargeAt: null,
      nextChargeCents: null,
      priceChange: { kind: 'free', toCents: 0 },
    });
    at('2028-06-01T00:05:00.000Z');
    await tick();
    for (const [store, key] of [
      ['papa', 'papaVault'],
      ['quebec', 'quebecVault'],
      ['romeo', 'romeoVault'],
    ] as const) {
      const sub = await subscription(store, key);
      expect(sub).toMatchObject({ status: 'canceled', canceledAt: '2028-06-01T00:05:00.000Z' });
      expect(sub.charges[0]).toMatchObject({ amountCents: 50_000 });
      expect((await ok('GET', '/api/pos/app-installations', await owner(store))).data.map((i: Json) => i.id)).toContain(installs[key]);
    }
  });

  it("keeps the platform ledger and the stores' audit trails verifiable, and lets managers and owners only read subscriptions", async () => {
    const signer = new AuditSigner(signingKey);
    const platform = await verifyAuditTrail(server.db, PLATFORM, signer);
    expect(platform.ok, platform.reason).toBe(true);
    const jts = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM journal_transactions WHERE merchant_id = $1', [PLATFORM]);
    expect(platform.journalTransactions).toBe(jts.rows[0]!.n);
    // Every money movement balanced: the platform ledger sums to zero, and the processor balance is exactly what the
    // stores paid, less what was refunded to them and paid out to developers.
    const sums = await server.db.query<{ total: string; clearing: string }>(
      `SELECT COALESCE(SUM(p.amount_cents), 0) AS total, COALESCE(SUM(p.amount_cents) FILTER (WHERE a.code = 'app_billing_clearing'), 0) AS clearing
         FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.merchant_id = $1`,
      [PLATFORM],
    );
    const flows = await server.db.query<{ charged: string; refunded: string; paid: string }>(
      `SELECT (SELECT COALESCE(SUM(amount_cents), 0) FROM app_charges WHERE status = 'paid') AS charged, (SELECT COALESCE(SUM(amount_cents), 0) FROM app_charge_refunds) AS refunded,
              (SELECT COALESCE(SUM(amount_cents), 0) FROM developer_payouts) AS paid`,
    );
    expect(Number(sums.rows[0]!.total)).toBe(0);
    expect(Number(sums.rows[0]!.clearing)).toBe(Number(flows.rows[0]!.charged) - Number(flows.rows[0]!.refunded) - Number(flows.rows[0]!.paid));
    for (const store of ['sierra', 'foxtrot', 'uniform', 'golf', 'hotel', 'kilo', 'lima', 'mike', 'november', 'papa', 'quebec', 'romeo']) {
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
