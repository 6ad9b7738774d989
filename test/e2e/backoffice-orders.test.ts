/**
 * Back office → Orders in the built register (Debian Chromium) against the real server. Orders are made through the
 * staff API (and one register sale synced by replication); everything else goes through the UI only: the empty state,
 * the list newest first with "Show more" (kept when pressed while Refresh is still loading) and the state filter, an
 * order's detail; a refund of 1 of 3 croissants with restock (state, refund amount and stock checked through the API),
 * a refund of more than remains refused with the server's field error in place and nothing written, the rest refunded
 * by amount; an open order canceled through the
 * inline confirmation; the receipt e-mailed to a typed address (in the e-mail outbox) and shown for printing
 * (`window.print` stubbed: it runs only on the Print button).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { divideHalfEven, formatMoney, type OrderView } from '../../core/index.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, staffApi, type BrowserSuite } from './support/browser.ts';
import type { ServerUnderTest } from './support/server-under-test.ts';

const CROISSANT = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular' };
const COOKIE = { catalogItemId: 'itm_chocolate_cookie', variationId: 'var_chocolate_cookie_regular' };

/** Cents as a person types them ("4.06"), without going through a float. */
const typed = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

describe('back office orders', () => {
  let suite: BrowserSuite | undefined;
  let server: ServerUnderTest;
  let page: Page;

  const api = staffApi(() => server);
  const onHand = async () =>
    (await api<{ data: { onHand: number }[] }>('/api/pos/catalog/inventory?variationId=var_croissant_regular')).data[0]!.onHand;
  const order = (id: string) => api<OrderView>(`/api/pos/orders/${id}`);
  const createOrder = (line: typeof CROISSANT, quantity: number) =>
    api<OrderView>('/api/pos/orders', { body: { lineItems: [{ ...line, quantity }] } });

  beforeAll(async () => {
    suite = await startBrowserSuite({ width: 1280, height: 900 });
    ({ server, page } = suite);
  });

  afterAll(() => suite?.close());

  it('lists orders, refunds by line and by amount, cancels an open order, sends and prints the receipt', { timeout: 240_000 }, async () => {
    const register = await RegisterPage.open(page, server.baseUrl, server.ownerPin);
    let orders = await (await BackOfficePage.open(page, server.ownerPin)).orders();

    /* A fresh store: the empty state. */
    await orders.empty.waitFor();
    await expect(orders.empty.textContent()).resolves.toContain('No orders yet');

    /* A register sale (1 croissant, cash), synced to the server by replication. */
    await register.openRegister();
    await register.tapItem('itm_croissant');
    const tender = await register.charge();
    await tender.exact();
    const sold = await tender.complete();
    const registerOrderId = await sold.orderId();
    await sold.newSale();
    await expect
      .poll(async () => (await api<{ data: OrderView[] }>('/api/pos/orders?source=register')).data.map((o) => o.id), { timeout: 60_000 })
      .toContain(registerOrderId);

    /* Through the staff API: a paid order of 3 croissants, an open order, then 24 more open orders (newer). */
    const created = await createOrder(CROISSANT, 3);
    const paidOrder = await api<OrderView>(`/api/pos/orders/${created.id}/payments`, {
      body: { tenders: [{ method: 'cash', amountCents: created.totalCents }] },
    });
    expect(paidOrder.state).toBe('paid');
    const stockAfterSale = await onHand();
    const openOrder = await createOrder(CROISSANT, 1);
    for (let i = 0; i < 24; i++) await createOrder(COOKIE, 1);

    /* The list: 25 newest first, "Show more" brings the rest (27 orders in all, no duplicate). */
    orders = await (await BackOfficePage.open(page, server.ownerPin)).orders();
    await orders.refresh();
    await expect.poll(() => orders.rows.count()).toBe(25);
    await expect(orders.row(paidOrder.id).count()).resolves.toBe(0);
    await orders.more.click();
    await expect.poll(() => orders.rows.count()).toBe(27);
    await expect(orders.more.count()).resolves.toBe(0);
    const ids = await orders.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-id')));
    expect(new Set(ids).size).toBe(27);
    expect(ids.indexOf(openOrder.id)).toBeLessThan(ids.indexOf(paidOrder.id));

    /* "Show more" pressed while Refresh is still loading the list: the click is kept (the button stays pressable, marked
       busy) and the next page comes once the refresh is in. Every state again: the list starts over at its first page. */
    await orders.filterBy('paid');
    await orders.filterBy('');
    await expect.poll(() => orders.rows.count()).toBe(25);
    let releaseRefresh!: () => void;
    const refreshHeld = new Promise<void>((resolve) => (releaseRefresh = resolve));
    let heldRequests = 0;
    const ordersList = /\/api\/pos\/orders\?/;
    await page.route(ordersList, async (route) => {
      heldRequests += 1;
      await refreshHeld;
      await route.continue();
    });
    await orders.root.getByTestId('orders-refresh').click();
    await expect.poll(() => heldRequests).toBe(1);
    await expect(orders.more.getAttribute('aria-busy')).resolves.toBe('true');
    await orders.more.click({ force: true }); // now, during the refresh: no waiting for the button to look ready
    releaseRefresh();
    await expect.poll(() => orders.rows.count()).toBe(27);
    expect(heldRequests).toBe(2); // the refresh, then the next page it waited for
    await page.unroute(ordersList);

    /* Filter "Paid": the API order and the register sale. */
    await orders.filterBy('paid');
    await expect.poll(() => orders.rows.count()).toBe(2);
    await expect(orders.row(registerOrderId).textContent()).resolves.toMatch(/Register \d+/);
    const paidRow = orders.row(paidOrder.id);
    await expect(paidRow.getByTestId('order-state').getAttribute('data-state')).resolves.toBe('paid');
    await expect(paidRow.textContent()).resolves.toContain(paidOrder.receiptNumber);
    await expect(paidRow.textContent()).resolves.toContain(formatMoney(paidOrder.totalCents, 'USD'));

    /* Open it: lines, the cash payment, totals and balance. */
    const dialog = await orders.open(paidOrder.id);
    const line = paidOrder.lines[0]!;
    const lineRow = dialog.root.locator(`[data-testid="order-line"][data-line-id="${line.id}"]`);
    await expect(lineRow.textContent()).resolves.toContain('Butter croissant');
    await expect(lineRow.textContent()).resolves.toContain(formatMoney(line.grossCents, 'USD'));
    await expect(dialog.root.getByTestId('order-payment').textContent()).resolves.toContain('Cash');
    await expect(dialog.root.getByTestId('order-balance').textContent()).resolves.toBe(formatMoney(0, 'USD'));
    await expect(dialog.root.getByTestId('order-refund-restock').isChecked()).resolves.toBe(true);

    /* Refund 1 of the 3 croissants, returned to stock (keyboard: Enter in the quantity field). */
    await dialog.refundLines({ [line.id]: 1 }, { submitWith: 'enter' });
    await dialog.waitForState('partially_refunded');
    await expect.poll(() => dialog.refundRows.count()).toBe(1);
    const share = line.netCents + (line.taxes.some((t) => t.inclusive) ? 0 : line.taxCents);
    const unitShare = divideHalfEven(share, line.quantity);
    await expect(dialog.notice.textContent()).resolves.toBe(
      `Refunded ${formatMoney(unitShare, 'USD')} for 1 × Butter croissant, returned to stock. The order is now partly refunded.`,
    );
    await expect(dialog.refundRows.first().textContent()).resolves.toContain(formatMoney(unitShare, 'USD'));
    await expect(dialog.detail.getByTestId('order-state').first().getAttribute('data-state')).resolves.toBe('partially_refunded');
    await orders.waitForState(paidOrder.id, 'partially_refunded');
    await dialog.root.locator('.dialog-body').evaluate((body) => body.scrollTo(0, 0));
    await page.screenshot({ path: '/tmp/backoffice-orders.png' });

    const afterOne = await order(paidOrder.id);
    expect(afterOne.state).toBe('partially_refunded');
    expect(afterOne.refunds).toHaveLength(1);
    expect(afterOne.refunds![0]).toMatchObject({ kind: 'refund', amountCents: unitShare, restock: true, lines: [{ lineId: line.id, quantity: 1 }] });
    expect(afterOne.refundedCents).toBe(unitShare);
    expect(await onHand()).toBe(stockAfterSale + 1);

    /* More than remains (3 where 2 are left): the server's error next to that line's input, nothing written. */
    await expect(
      dialog.root.locator(`[data-testid="order-refund-line"][data-line-id="${line.id}"]`).getByTestId('order-refund-line-left').textContent(),
    ).resolves.toBe('2 of 3');
    await dialog.refundLines({ [line.id]: 3 });
    const lineError = dialog.root.locator(`[data-testid="order-refund-line"][data-line-id="${line.id}"]`).getByTestId('field-error');
    await lineError.waitFor();
    await expect(lineError.textContent()).resolves.toBe('only 2 of 3 can still be refunded on this line');
    await expect(dialog.refundQuantity(line.id).getAttribute('aria-invalid')).resolves.toBe('true');
    const unchanged = await order(paidOrder.id);
    expect(unchanged.refunds).toHaveLength(1);
    expect(unchanged.state).toBe('partially_refunded');
    expect(await onHand()).toBe(stockAfterSale + 1);

    /* By amount: a cent more than what is left is refused at the amount field; then exactly the rest. */
    const rest = paidOrder.paidCents - unitShare;
    await dialog.refundAmount(typed(rest + 1));
    const amountError = dialog.root.getByTestId('order-refund').getByTestId('field-error');
    await amountError.waitFor();
    await expect(amountError.textContent()).resolves.toBe(`at most ${formatMoney(rest, 'USD')} can still be refunded`);
    await expect(dialog.root.getByTestId('order-refund-amount').getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await order(paidOrder.id)).refunds).toHaveLength(1);
    await dialog.refundAmount(typed(rest), 'Returned the rest');
    await dialog.waitForState('refunded');
    await expect.poll(() => dialog.refundRows.count()).toBe(2);
    await expect(dialog.notice.textContent()).resolves.toBe(`Refunded ${formatMoney(rest, 'USD')}. The order is now refunded.`);
    await expect(dialog.root.getByTestId('order-refund').count()).resolves.toBe(0);
    await orders.waitForState(paidOrder.id, 'refunded');
    const refunded = await order(paidOrder.id);
    expect(refunded.state).toBe('refunded');
    expect(refunded.refundedCents).toBe(paidOrder.paidCents);
    expect(refunded.refunds![1]).toMatchObject({ kind: 'refund', amountCents: rest, restock: false, reason: 'Returned the rest' });
    expect(await onHand()).toBe(stockAfterSale + 1);

    /* Receipt by e-mail: no customer and no address → the server's field error; then to a typed address. */
    await dialog.root.getByTestId('order-receipt-channel-email').check();
    await dialog.root.getByTestId('order-receipt-send').click();
    const toError = dialog.root.getByTestId('order-receipt').getByTestId('field-error');
    await toError.waitFor();
    await expect(dialog.root.getByTestId('order-receipt-to').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(dialog.sendReceipt('email', 'ada@example.com')).resolves.toBe('Receipt e-mailed to ada@example.com.');
    const outbox = await api<{ data: { to: string; subject: string; body: string }[] }>('/api/pos/email-outbox');
    const mail = outbox.data.find((m) => m.to === 'ada@example.com');
    expect(mail?.subject).toContain(paidOrder.receiptNumber);
    expect(mail?.body).toContain('Butter croissant');

    /* Re-print data in a printable block; window.print runs only on the Print button (stubbed here). */
    await page.evaluate(() => {
      const w = window as unknown as { prints: number; print: () => void };
      w.prints = 0;
      w.print = () => {
        w.prints += 1;
      };
    });
    const printable = await dialog.showReceipt();
    await expect(printable.textContent()).resolves.toContain(`Receipt ${paidOrder.receiptNumber}`);
    await expect(printable.textContent()).resolves.toContain(`-${formatMoney(rest, 'USD')}`);
    await expect(page.evaluate(() => (window as unknown as { prints: number }).prints)).resolves.toBe(0);
    await dialog.root.getByTestId('order-receipt-print').click();
    await expect(page.evaluate(() => (window as unknown as { prints: number }).prints)).resolves.toBe(1);
    await dialog.close();

    /* Cancel the open order through the inline confirmation. */
    await orders.filterBy('open');
    await expect.poll(() => orders.rows.count()).toBe(25);
    const openDialog = await orders.open(openOrder.id);
    await expect(openDialog.root.getByTestId('order-refund').count()).resolves.toBe(0);
    await expect(openDialog.root.getByTestId('order-balance').textContent()).resolves.toBe(formatMoney(openOrder.totalCents, 'USD'));
    await openDialog.root.getByTestId('order-cancel').click();
    await expect(openDialog.root.getByTestId('order-cancel-confirm').isVisible()).resolves.toBe(true);
    await openDialog.root.getByTestId('order-cancel-keep').click();
    await expect(openDialog.root.getByTestId('order-cancel-confirm').count()).resolves.toBe(0);
    expect((await order(openOrder.id)).state).toBe('open');
    await openDialog.cancel('Customer left');
    await openDialog.waitForState('canceled');
    await expect(openDialog.notice.textContent()).resolves.toBe('Order canceled.');
    await expect(openDialog.root.getByTestId('order-cancel').count()).resolves.toBe(0);
    await orders.waitForState(openOrder.id, 'canceled');
    expect((await order(openOrder.id)).state).toBe('canceled');
    await openDialog.close();

    /* The register sale opens too: its cash tender, no refunds. */
    await orders.filterBy('');
    await orders.more.click();
    await expect.poll(() => orders.rows.count()).toBe(27);
    const saleDialog = await orders.open(registerOrderId);
    await expect(saleDialog.root.getByTestId('order-payment').textContent()).resolves.toContain('Cash');
    await expect(saleDialog.root.getByTestId('order-refund').isVisible()).resolves.toBe(true);
    await saleDialog.close();
  });
});
