/**
 * Page objects of the back office (renderer/src/backoffice): found by role, label or test id; actions that open a
 * screen return its page object.
 */
import type { Locator, Page } from 'playwright-core';
import type { OrderStateName } from '../../../core/index.ts';
import { RegisterPage } from './register-page.ts';

const TIMEOUT = 30_000;

export class BackOfficePage {
  readonly root: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('backoffice');
  }

  /**
   * Opens the back office from the main navigation, signing the demo owner in with `pin` when the register asks (the
   * first time on this page: the shift's sign-in is kept in memory).
   */
  static async open(page: Page, pin: string): Promise<BackOfficePage> {
    await new RegisterPage(page).goTo('Back office');
    const bo = new BackOfficePage(page);
    const signIn = page.getByTestId('staff-sign-in');
    await bo.root.or(signIn).first().waitFor({ timeout: TIMEOUT });
    if (await signIn.isVisible()) {
      await signIn.getByLabel('PIN').fill(pin);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
    }
    await bo.root.waitFor({ timeout: TIMEOUT }).catch(async (err: unknown) => {
      console.error('[backoffice did not open] page text:', (await page.locator('body').innerText()).slice(0, 1500));
      throw err;
    });
    return bo;
  }

  get offlineState(): Locator {
    return this.page.getByTestId('backoffice-offline');
  }

  private async section(name: string): Promise<void> {
    await this.page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name }).click();
  }

  async catalog(): Promise<CatalogSection> {
    await this.section('Catalog');
    return new CatalogSection(this.page);
  }

  async importExport(): Promise<ImportExportSection> {
    await this.section('Import & export');
    return new ImportExportSection(this.page);
  }

  /** Opens Back office → Orders; answers once the section is on screen. */
  async orders(): Promise<OrdersSection> {
    await this.section('Orders');
    const orders = new OrdersSection(this.page);
    await orders.root.waitFor({ timeout: TIMEOUT });
    return orders;
  }

  async customers(): Promise<CustomersSection> {
    await this.section('Customers');
    return new CustomersSection(this.page);
  }

  async payRequests(): Promise<PayRequestsSection> {
    await this.section('Pay requests');
    return new PayRequestsSection(this.page);
  }

  async reports(): Promise<ReportsSection> {
    await this.section('Reports');
    const reports = new ReportsSection(this.page);
    await reports.sales.waitFor({ timeout: TIMEOUT });
    return reports;
  }

  async invoices(): Promise<InvoicesSection> {
    await this.section('Invoices');
    return new InvoicesSection(this.page);
  }

  /** Opens Back office → Closeout; answers its root once on screen. */
  async closeout(): Promise<Locator> {
    await this.section('Closeout');
    const root = this.page.getByTestId('closeout');
    await root.waitFor({ timeout: TIMEOUT });
    return root;
  }

  /** Opens Back office → Registers; answers its root once on screen. */
  async registers(): Promise<Locator> {
    await this.section('Registers');
    const root = this.page.getByTestId('registers');
    await root.waitFor({ timeout: TIMEOUT });
    return root;
  }

  /** Opens Back office → Payments (rails and payouts); answers once the section is on screen. */
  async payments(): Promise<PaymentsSection> {
    await this.section('Payments');
    const payments = new PaymentsSection(this.page);
    await payments.root.waitFor({ timeout: TIMEOUT });
    return payments;
  }

  async settings(): Promise<SettingsSection> {
    await this.section('Settings');
    const settings = new SettingsSection(this.page);
    await settings.root.waitFor({ timeout: TIMEOUT });
    return settings;
  }
}

/** Back office → Payments: payouts (button, its disabled reason) and the payment rails table. */
export class PaymentsSection {
  readonly root: Locator;
  readonly payoutButton: Locator;
  readonly payoutDisabledReason: Locator;
  readonly rails: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByTestId('payments');
    this.payoutButton = this.root.getByTestId('payout-button');
    this.payoutDisabledReason = this.root.getByTestId('payout-disabled-reason');
    this.rails = this.root.getByTestId('rail-row');
  }
  /** The row of one rail, e.g. `ach`. */
  rail(name: string): Locator {
    return this.root.locator(`[data-testid="rail-row"][data-rail="${name}"]`);
  }
}

/** Back office → Settings: time zone, business day cut-off hour, phone country, tip bound and quiet hours for texts. */
export class SettingsSection {
  readonly root: Locator;
  readonly timeZone: Locator;
  readonly dayCutoff: Locator;
  readonly country: Locator;
  readonly tipPercent: Locator;
  readonly tipFixed: Locator;
  readonly quietStart: Locator;
  readonly quietEnd: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByTestId('settings');
    this.timeZone = page.getByTestId('settings-time-zone');
    this.dayCutoff = page.getByTestId('settings-day-cutoff');
    this.country = page.getByTestId('settings-country');
    this.tipPercent = page.getByTestId('settings-tip-percent');
    this.tipFixed = page.getByTestId('settings-tip-fixed');
    this.quietStart = page.getByTestId('settings-quiet-start');
    this.quietEnd = page.getByTestId('settings-quiet-end');
  }

  /** Sets the fields given and saves with the button. */
  async save(fields: {
    timeZone?: string;
    dayCutoffHour?: number;
    country?: string;
    tipPercent?: string;
    tipFixed?: string;
    /** `HH:MM`, or '' to clear. */
    quietStart?: string;
    quietEnd?: string;
  }): Promise<void> {
    if (fields.timeZone !== undefined) await this.timeZone.selectOption(fields.timeZone);
    if (fields.dayCutoffHour !== undefined) await this.dayCutoff.selectOption(String(fields.dayCutoffHour));
    if (fields.country !== undefined) await this.country.fill(fields.country);
    if (fields.tipPercent !== undefined) await this.tipPercent.fill(fields.tipPercent);
    if (fields.tipFixed !== undefined) await this.tipFixed.fill(fields.tipFixed);
    if (fields.quietStart !== undefined) await this.quietStart.fill(fields.quietStart);
    if (fields.quietEnd !== undefined) await this.quietEnd.fill(fields.quietEnd);
    await this.root.getByTestId('settings-save').click();
  }
}

export class CatalogSection {
  readonly rows: Locator;
  constructor(readonly page: Page) {
    this.rows = page.getByTestId('catalog-row');
  }

  async search(text: string): Promise<void> {
    await this.page.getByTestId('catalog-search').fill(text);
  }

  row(itemId: string): Locator {
    return this.page.locator(`[data-testid="catalog-row"][data-item-id="${itemId}"]`);
  }

  /** Opens the editor of a new item ("New item"). */
  async newItem(): Promise<ItemEditorDialog> {
    await this.page.getByTestId('catalog-new-item').click();
    const dialog = new ItemEditorDialog(this.page);
    await dialog.root.waitFor({ timeout: TIMEOUT });
    return dialog;
  }

  /** Opens the editor of the item named `name` (its row must be listed). */
  async edit(name: string): Promise<ItemEditorDialog> {
    await this.page.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
    const dialog = new ItemEditorDialog(this.page);
    await dialog.root.waitFor({ timeout: TIMEOUT });
    return dialog;
  }
}

export class ItemEditorDialog {
  readonly root: Locator;
  readonly creditBalance: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByRole('dialog');
    this.creditBalance = this.root.getByTestId('credit-balance');
  }

  variation(index: number): Locator {
    return this.root.getByTestId('variation-row').nth(index);
  }

  async setPrice(index: number, dollars: string): Promise<void> {
    await this.variation(index).getByTestId('variation-price').fill(dollars);
  }

  async setGtin(index: number, gtin: string): Promise<void> {
    await this.variation(index).getByTestId('variation-gtin').fill(gtin);
  }

  /** Submits with Enter in the first price field (keyboard path). */
  async pressEnterInPrice(index = 0): Promise<void> {
    await this.variation(index).getByTestId('variation-price').press('Enter');
  }

  async waitForSaved(): Promise<void> {
    await this.root.getByTestId('item-saved').waitFor({ timeout: TIMEOUT });
  }

  async generatePicture(): Promise<void> {
    await this.root.getByTestId('generate-picture').click();
    await this.root.getByTestId('picture-preview').waitFor({ timeout: 60_000 });
  }

  async attachPicture(): Promise<void> {
    await this.root.getByTestId('attach-picture').click();
    await this.root.getByTestId('picture-attached').waitFor({ timeout: TIMEOUT });
  }

  /** The tax-rate checkbox of rate `taxRateId`. */
  taxRate(taxRateId: string): Locator {
    return this.root.locator(`[data-testid="item-tax-rate"][data-tax-rate-id="${taxRateId}"]`);
  }

  modifierList(index: number): Locator {
    return this.root.getByTestId('modifier-list-row').nth(index);
  }

  modifier(listIndex: number, index: number): Locator {
    return this.modifierList(listIndex).getByTestId('modifier-row').nth(index);
  }

  /** Adds a modifier list (it comes with one empty modifier) and fills name, min and max. */
  async addModifierList(fields: { name: string; min: string; max: string }): Promise<Locator> {
    const index = await this.root.getByTestId('modifier-list-row').count();
    await this.root.getByTestId('add-modifier-list').click();
    const list = this.modifierList(index);
    await list.getByTestId('modifier-list-name').fill(fields.name);
    await list.getByTestId('modifier-list-min').fill(fields.min);
    await list.getByTestId('modifier-list-max').fill(fields.max);
    return list;
  }

  /** Fills modifier `index` of list `listIndex`, adding a row first when it does not exist yet. */
  async setModifier(listIndex: number, index: number, fields: { name: string; price: string }): Promise<void> {
    if ((await this.modifierList(listIndex).getByTestId('modifier-row').count()) <= index)
      await this.modifierList(listIndex).getByTestId('add-modifier').click();
    const row = this.modifier(listIndex, index);
    await row.getByTestId('modifier-name').fill(fields.name);
    await row.getByTestId('modifier-price').fill(fields.price);
  }

  /** The text of the error an input points at with aria-describedby (empty when it has none). */
  async errorOf(input: Locator): Promise<string> {
    const id = await input.getAttribute('aria-describedby');
    if (!id) return '';
    return (await this.page.locator(`[id="${id}"]`).textContent()) ?? '';
  }

  /** "Delete item…", then the inline confirmation's Delete; answers when the dialog has closed. */
  async deleteItem(): Promise<void> {
    await this.root.getByTestId('item-delete').click();
    await this.root.getByTestId('item-delete-confirm').click();
    await this.root.waitFor({ state: 'detached', timeout: TIMEOUT });
  }

  stockRow(variationId: string): Locator {
    return this.root.locator(`[data-testid="stock-row"][data-variation-id="${variationId}"]`);
  }

  async moveStock(variationId: string, kind: 'receive' | 'adjust' | 'count', units: string): Promise<void> {
    const row = this.stockRow(variationId);
    await row.getByTestId('stock-kind').selectOption(kind);
    await row.getByTestId('stock-amount').fill(units);
    await row.getByTestId('stock-amount').press('Enter');
  }

  async close(): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.root.waitFor({ state: 'detached' });
  }
}

export class ImportExportSection {
  readonly result: Locator;
  constructor(readonly page: Page) {
    this.result = page.getByTestId('import-result');
  }

  async importFile(path: string): Promise<void> {
    await this.page.getByTestId('csv-file').setInputFiles(path);
    await this.page.getByTestId('csv-import').click();
    await this.result.waitFor({ timeout: 60_000 });
  }

  async count(testId: 'import-rows' | 'import-imported' | 'import-rejected' | 'import-created' | 'import-updated'): Promise<number> {
    return Number(await this.result.getByTestId(testId).textContent());
  }

  /** Clicks "Download CSV" and answers the downloaded file's path. */
  async exportCsv(): Promise<string> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByTestId('csv-export').click()]);
    const path = await download.path();
    if (!path) throw new Error('the download has no file');
    return path;
  }
}

export class CustomersSection {
  readonly rows: Locator;
  constructor(readonly page: Page) {
    this.rows = page.getByTestId('customer-row');
  }

  async search(text: string): Promise<void> {
    await this.page.getByTestId('customer-search').fill(text);
  }

  async create(fields: { givenName?: string; familyName?: string; phone?: string; email?: string; consent?: boolean }): Promise<Locator> {
    await this.page.getByTestId('customer-new').click();
    const dialog = this.page.getByRole('dialog');
    await dialog.waitFor();
    for (const [key, value] of Object.entries(fields)) {
      if (key === 'consent' || value === undefined) continue;
      await dialog.getByTestId(`customer-${key}`).fill(String(value));
    }
    if (fields.consent) await dialog.getByTestId('customer-consent').check();
    await dialog.getByTestId('customer-save').click();
    return dialog;
  }
}

export class PayRequestsSection {
  readonly rows: Locator;
  constructor(readonly page: Page) {
    this.rows = page.getByTestId('pay-request-row');
  }

  /** Fills the form and presses Enter in the memo field; answers when the confirmation shows. */
  async create(fields: { amount: string; phone: string; memo?: string }): Promise<void> {
    await this.page.getByTestId('pay-request-amount').fill(fields.amount);
    await this.page.getByTestId('pay-request-phone').fill(fields.phone);
    await this.page.getByTestId('pay-request-memo').fill(fields.memo ?? '');
    await this.page.getByTestId('pay-request-memo').press('Enter');
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="pay-request-row"][data-pay-request-id="${id}"]`);
  }

  async cancel(id: string): Promise<void> {
    await this.row(id).getByTestId('pay-request-cancel').click();
    await this.row(id).getByTestId('pay-request-confirm-cancel').click();
    await this.page.locator(`[data-testid="pay-request-row"][data-pay-request-id="${id}"][data-status="canceled"]`).waitFor({ timeout: TIMEOUT });
  }
}

export class InvoicesSection {
  readonly rows: Locator;
  readonly series: InvoiceSeriesSection;
  constructor(readonly page: Page) {
    this.rows = page.getByTestId('invoice-row');
    this.series = new InvoiceSeriesSection(page);
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="invoice-row"][data-invoice-id="${id}"]`);
  }

  async waitForStatus(id: string, status: string): Promise<void> {
    await this.page.locator(`[data-testid="invoice-row"][data-invoice-id="${id}"][data-status="${status}"]`).waitFor({ timeout: TIMEOUT });
  }

  /** Creates a draft for the customer found by `customerSearch` with one custom line. */
  async createDraft(customerSearch: string, line: { description: string; amount: string; quantity?: string }): Promise<void> {
    await this.page.getByTestId('invoice-new').click();
    const form = this.page.getByTestId('invoice-form');
    await form.getByTestId('invoice-customer-search').fill(customerSearch);
    await form.locator('[data-testid="invoice-customer"] option:not([value=""])').first().waitFor({ state: 'attached' });
    await form.getByTestId('invoice-line-description').fill(line.description);
    await form.getByTestId('invoice-line-amount').fill(line.amount);
    if (line.quantity) await form.getByTestId('invoice-line-quantity').fill(line.quantity);
    await form.getByTestId('invoice-create').click();
    await form.waitFor({ state: 'detached', timeout: TIMEOUT });
  }
}

/** The recurring series part of the Invoices section. */
export class InvoiceSeriesSection {
  readonly root: Locator;
  readonly form: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByTestId('invoice-series');
    this.form = page.getByTestId('series-form');
  }

  /** Opens the form and fills it (one custom line); submits with Enter in the memo field. */
  async fillAndSubmit(
    customerSearch: string,
    fields: {
      every: string;
      unit: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
      count?: string;
      start: string;
      daysDue: string;
      line: { description: string; amount: string };
      memo?: string;
    },
  ): Promise<void> {
    if (!(await this.form.isVisible())) await this.root.getByTestId('series-new').click();
    await this.form.getByTestId('series-customer-search').fill(customerSearch);
    await this.form.locator('[data-testid="series-customer"] option:not([value=""])').first().waitFor({ state: 'attached' });
    await this.form.getByTestId('series-interval').fill(fields.every);
    await this.form.getByTestId('series-frequency').selectOption(fields.unit);
    await this.form.getByTestId('series-count').fill(fields.count ?? '');
    await this.form.getByTestId('series-start').fill(fields.start);
    await this.form.getByTestId('series-days-due').fill(fields.daysDue);
    await this.form.getByTestId('series-line-description').fill(fields.line.description);
    await this.form.getByTestId('series-line-amount').fill(fields.line.amount);
    await this.form.getByTestId('series-memo').fill(fields.memo ?? '');
    await this.form.getByTestId('series-memo').press('Enter');
  }

  row(id: string): Locator {
    return this.root.locator(`[data-testid="series-row"][data-series-id="${id}"]`);
  }

  async waitForStatus(id: string, status: 'active' | 'paused' | 'ended'): Promise<void> {
    await this.root.locator(`[data-testid="series-row"][data-series-id="${id}"][data-status="${status}"]`).waitFor({ timeout: TIMEOUT });
  }
}

export class ReportsSection {
  readonly sales: Locator;
  readonly tax: Locator;
  readonly refunds: Locator;
  readonly trialBalance: Locator;
  constructor(readonly page: Page) {
    this.sales = page.getByTestId('sales-report');
    this.tax = page.getByTestId('tax-report');
    this.refunds = page.getByTestId('refunds-report');
    this.trialBalance = page.getByTestId('trial-balance');
  }

  async groupBy(grouping: 'day' | 'hour' | 'item' | 'category' | 'tender' | 'staff'): Promise<void> {
    await this.page.getByTestId('report-group').selectOption(grouping);
    await this.page.locator(`[data-testid="sales-report"][data-group-by="${grouping}"]`).waitFor({ timeout: TIMEOUT });
  }

  row(key: string): Locator {
    return this.sales.locator(`[data-testid="sales-row"][data-key="${key}"]`);
  }

  /** Clicks a CSV button and answers the downloaded text. */
  async downloadCsv(testId: 'sales-csv' | 'tax-csv' | 'refunds-csv' | 'trial-balance-csv'): Promise<string> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByTestId(testId).click()]);
    const path = await download.path();
    if (!path) throw new Error('the download has no file');
    const { readFile } = await import('node:fs/promises');
    return readFile(path, 'utf8');
  }
}

/** An order state as the Orders section filters and shows it. */
export type OrderStateFilter = '' | OrderStateName;

/** Back office → Orders: the list (newest first), its state filter and "Show more". */
export class OrdersSection {
  readonly root: Locator;
  readonly rows: Locator;
  readonly empty: Locator;
  readonly more: Locator;
  readonly filter: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByTestId('orders');
    this.rows = this.root.getByTestId('orders-row');
    this.empty = this.root.getByTestId('orders-empty');
    this.more = this.root.getByTestId('orders-more');
    this.filter = this.root.getByTestId('orders-filter');
  }

  row(orderId: string): Locator {
    return this.root.locator(`[data-testid="orders-row"][data-order-id="${orderId}"]`);
  }

  /** Chooses a state in the filter ('' = every state) and waits for the list to load. */
  async filterBy(state: OrderStateFilter): Promise<void> {
    await this.filter.selectOption(state);
    await this.waitForLoaded();
  }

  /** Presses Refresh and waits for the list to load. */
  async refresh(): Promise<void> {
    await this.root.getByTestId('orders-refresh').click();
    await this.waitForLoaded();
  }

  /** Waits until the list shows rows or its empty state (not loading). */
  async waitForLoaded(): Promise<void> {
    await this.root.locator('[data-testid="orders-row"], [data-testid="orders-empty"]').first().waitFor({ timeout: TIMEOUT });
  }

  async waitForState(orderId: string, state: Exclude<OrderStateFilter, ''>): Promise<void> {
    await this.root.locator(`[data-testid="orders-row"][data-order-id="${orderId}"][data-state="${state}"]`).waitFor({ timeout: TIMEOUT });
  }

  /** Opens the order of a listed row; answers once its payments and refunds are loaded. */
  async open(orderId: string): Promise<OrderDialog> {
    await this.row(orderId).getByTestId('orders-open').click();
    const dialog = new OrderDialog(this.page);
    await dialog.root.getByTestId('order-receipt').waitFor({ timeout: TIMEOUT });
    return dialog;
  }
}

/** The order dialog of Back office → Orders: detail, refund, cancel and receipt. */
export class OrderDialog {
  readonly root: Locator;
  readonly detail: Locator;
  readonly notice: Locator;
  readonly refundForm: Locator;
  readonly refundRows: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByRole('dialog');
    this.detail = this.root.getByTestId('order-detail');
    this.notice = this.root.getByTestId('order-notice');
    this.refundForm = this.root.getByTestId('order-refund-form');
    this.refundRows = this.root.getByTestId('order-refund-row');
  }

  async waitForState(state: Exclude<OrderStateFilter, ''>): Promise<void> {
    await this.root.locator(`[data-testid="order-detail"][data-state="${state}"]`).waitFor({ timeout: TIMEOUT });
  }

  /** The quantity input of line `lineId` in the refund form. */
  refundQuantity(lineId: string): Locator {
    return this.root.locator(`[data-testid="order-refund-line"][data-line-id="${lineId}"]`).getByTestId('order-refund-line-qty');
  }

  /**
   * Refund by line: types each quantity, sets "Return to stock" and the reason, then submits with the button or with
   * Enter in the last quantity field (`submitWith: 'enter'`, the keyboard path).
   */
  async refundLines(
    quantities: Record<string, number | string>,
    options: { restock?: boolean; reason?: string; submitWith?: 'click' | 'enter' } = {},
  ): Promise<void> {
    await this.root.getByTestId('order-refund-mode-lines').check();
    let last: Locator | undefined;
    for (const [lineId, quantity] of Object.entries(quantities)) {
      last = this.refundQuantity(lineId);
      await last.fill(String(quantity));
    }
    if (options.restock !== undefined) await this.root.getByTestId('order-refund-restock').setChecked(options.restock);
    if (options.reason !== undefined) await this.root.getByTestId('order-refund-reason').fill(options.reason);
    if (options.submitWith === 'enter' && last) await last.press('Enter');
    else await this.root.getByTestId('order-refund-submit').click();
  }

  /** "Collect balance" of a balance-due order: the amount (default: the whole balance as prefilled), cash or card. */
  async collectBalance(method: 'cash' | 'card', amount?: string): Promise<void> {
    if (amount !== undefined) await this.root.getByTestId('order-collect-amount').fill(amount);
    await this.root.getByTestId(`order-collect-${method}`).check();
    await this.root.getByTestId('order-collect').click();
  }

  /** Refund by amount (typed as people type money, e.g. "7.50"). */
  async refundAmount(amount: string, reason?: string): Promise<void> {
    await this.root.getByTestId('order-refund-mode-amount').check();
    await this.root.getByTestId('order-refund-amount').fill(amount);
    if (reason !== undefined) await this.root.getByTestId('order-refund-reason').fill(reason);
    await this.root.getByTestId('order-refund-submit').click();
  }

  /** "Cancel order…", the optional reason, then the inline confirmation's "Cancel order". */
  async cancel(reason?: string): Promise<void> {
    await this.root.getByTestId('order-cancel').click();
    if (reason !== undefined) await this.root.getByTestId('order-cancel-reason').fill(reason);
    await this.root.getByTestId('order-cancel-confirm').click();
  }

  /** Sends the receipt by `channel` to `to` (empty: the order's customer); answers once the confirmation shows. */
  async sendReceipt(channel: 'email' | 'sms', to: string): Promise<string> {
    await this.root.getByTestId(`order-receipt-channel-${channel}`).check();
    await this.root.getByTestId('order-receipt-to').fill(to);
    await this.root.getByTestId('order-receipt-send').click();
    const sent = this.root.getByTestId('order-receipt-sent');
    await sent.waitFor({ timeout: TIMEOUT });
    return (await sent.textContent()) ?? '';
  }

  /** Shows the re-print data; answers the printable block. */
  async showReceipt(): Promise<Locator> {
    await this.root.getByTestId('order-receipt-show').click();
    const block = this.root.getByTestId('order-receipt-text');
    await block.waitFor({ timeout: TIMEOUT });
    return block;
  }

  async close(): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.root.waitFor({ state: 'detached' });
  }
}
