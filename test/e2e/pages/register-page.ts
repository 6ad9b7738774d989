/**
 * Page objects of the web register: elements are found by role or test id, and each action that changes screen
 * returns the next page object.
 */
import type { Locator, Page } from 'playwright-core';

export type BadgeState = 'synced' | 'syncing' | 'offline' | 'error';

const DEFAULT_TIMEOUT = 30_000;

export class RegisterPage {
  readonly syncBadge: Locator;
  readonly unsyncedCount: Locator;
  readonly lastSync: Locator;
  readonly scanInput: Locator;
  readonly scanMessage: Locator;
  readonly cart: Locator;

  constructor(readonly page: Page) {
    this.syncBadge = page.getByTestId('sync-badge');
    this.unsyncedCount = page.getByTestId('unsynced-count');
    this.lastSync = page.getByTestId('last-sync');
    this.scanInput = page.getByTestId('scan-input');
    this.scanMessage = page.getByTestId('scan-message');
    this.cart = page.getByTestId('cart');
  }

  /**
   * Opens the register at `baseUrl`, signs a staff member in with `pin` when the register asks (the first one listed —
   * the demo owner; a register keeps its signed-in staff across reloads) and waits until the catalog is on screen.
   */
  static async open(page: Page, baseUrl: string, pin: string): Promise<RegisterPage> {
    await page.goto(baseUrl);
    const register = new RegisterPage(page);
    await register.signInIfAsked(pin);
    await register.waitForCatalog();
    return register;
  }

  /** The register's sign-in screen (shown in place of the register while nobody is signed in). */
  get signInScreen(): Locator {
    return this.page.getByTestId('register-sign-in');
  }

  /** Signs in with `pin` (typed on the keyboard) if the register shows its sign-in screen. */
  async signInIfAsked(pin: string): Promise<void> {
    await this.scanInput.or(this.signInScreen).first().waitFor({ timeout: DEFAULT_TIMEOUT });
    if (await this.signInScreen.isVisible()) await this.signIn(pin);
  }

  /** Signs in on the register's sign-in screen; `staffName` picks who (default: the first listed). */
  async signIn(pin: string, staffName?: string): Promise<void> {
    const screen = this.signInScreen;
    await screen.getByRole('option').first().waitFor({ state: 'attached', timeout: DEFAULT_TIMEOUT });
    if (staffName) {
      const label = await screen
        .getByRole('option', { name: new RegExp(`^${staffName} \\(`) })
        .first()
        .textContent();
      await screen.getByLabel('Staff member').selectOption({ label: label ?? staffName });
    }
    await screen.getByLabel('PIN').fill(pin);
    await screen.getByRole('button', { name: 'Sign in' }).click();
    await this.scanInput.waitFor({ timeout: DEFAULT_TIMEOUT });
  }

  /** Signs out from the header; the register asks for a PIN again. */
  async signOut(): Promise<void> {
    await this.page.getByTestId('sign-out').click();
    await this.signInScreen.waitFor({ timeout: DEFAULT_TIMEOUT });
  }

  async waitForCatalog(): Promise<void> {
    await this.scanInput.waitFor({ timeout: DEFAULT_TIMEOUT });
    await this.page.locator('.item-tile').first().waitFor({ timeout: DEFAULT_TIMEOUT });
  }

  async waitForBadge(state: BadgeState, timeout = DEFAULT_TIMEOUT): Promise<void> {
    await this.page.locator(`[data-testid="sync-badge"][data-state="${state}"]`).waitFor({ timeout });
  }

  async unsynced(): Promise<number> {
    return Number(await this.unsyncedCount.textContent());
  }

  /** Waits until the header's unsynced count reads `count`; on timeout the error names the count and badge shown. */
  async waitForUnsynced(count: number, timeout = DEFAULT_TIMEOUT): Promise<void> {
    try {
      await this.page.waitForFunction(
        (expected) => document.querySelector('[data-testid="unsynced-count"]')?.textContent === String(expected),
        count,
        { timeout },
      );
    } catch (error) {
      const shown = await this.page
        .evaluate(() => ({
          unsynced: document.querySelector('[data-testid="unsynced-count"]')?.textContent ?? null,
          badge: document.querySelector('[data-testid="sync-badge"]')?.getAttribute('data-state') ?? null,
          rejected: document.querySelector('[data-testid="rejected-count"]')?.textContent ?? null,
          refused: document.querySelector('[data-testid="refused-count"]')?.textContent ?? null,
        }))
        .catch(() => null);
      throw new Error(`waited ${timeout} ms for ${count} unsynced; the header shows ${JSON.stringify(shown)}`, { cause: error });
    }
  }

  /** Taps an item tile; items with choices open the item dialog. */
  async tapItem(itemId: string): Promise<void> {
    await this.page.getByTestId(`item-${itemId}`).click();
  }

  /** Types a code into the scan input and presses Enter, the way a keyboard-wedge scanner does. */
  async scan(code: string): Promise<void> {
    await this.scanInput.fill(code);
    await this.scanInput.press('Enter');
  }

  itemDialog(): ItemDialog {
    return new ItemDialog(this.page);
  }

  cartLine(name: string | RegExp): Locator {
    return this.cart.getByTestId('cart-line').filter({ hasText: name });
  }

  async increaseQuantity(name: string): Promise<void> {
    await this.cart.getByRole('button', { name: `Increase quantity of ${name}` }).click();
  }

  async cartTotalText(): Promise<string> {
    return (await this.cart.getByTestId('cart-total').textContent()) ?? '';
  }

  async charge(): Promise<TenderDialog> {
    await this.page.getByTestId('charge').click();
    const dialog = new TenderDialog(this.page);
    await dialog.root.waitFor();
    return dialog;
  }

  async openSales(): Promise<SalesPage> {
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sales' }).click();
    return new SalesPage(this.page);
  }

  async openRegister(): Promise<RegisterPage> {
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Register' }).click();
    return this;
  }

  /** Goes to a view of the header's navigation: from its bar, or from "More" where a narrow screen keeps it. */
  async goTo(view: string): Promise<void> {
    const nav = this.page.getByRole('navigation', { name: 'Main' });
    const button = nav.getByRole('button', { name: view, exact: true });
    if (await button.isVisible()) return button.click();
    // On a narrow screen the view may sit under "More", whose button then carries the current view's name ("Back
    // office ▾"): already there, nothing to open (opening the menu would leave it over the view).
    const more = nav.getByTestId('nav-more');
    if ((await more.textContent())?.replace('▾', '').trim() === view) return;
    await more.click();
    await button.click();
  }
}

export class ItemDialog {
  readonly root: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByRole('dialog');
  }

  async choose(label: string | RegExp): Promise<this> {
    await this.root.getByLabel(label).check();
    return this;
  }

  get addButton(): Locator {
    return this.root.getByTestId('item-dialog-add');
  }

  async add(): Promise<void> {
    await this.addButton.click();
    await this.root.waitFor({ state: 'detached' });
  }
}

export class TenderDialog {
  readonly root: Locator;
  readonly cashTendered: Locator;
  readonly changeDue: Locator;
  readonly completeButton: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByRole('dialog', { name: 'Cash payment' });
    this.cashTendered = page.getByTestId('cash-tendered');
    this.changeDue = page.getByTestId('change-due');
    this.completeButton = page.getByTestId('complete-sale');
  }

  async tender(amount: string): Promise<this> {
    await this.cashTendered.fill(amount);
    return this;
  }

  async exact(): Promise<this> {
    await this.root.getByRole('button', { name: /^Exact / }).click();
    return this;
  }

  /** Completes the sale; the receipt appears once the order and its journal transaction are stored (never before). */
  async complete(): Promise<ReceiptPage> {
    await this.completeButton.click();
    const receipt = new ReceiptPage(this.page);
    await receipt.stored.waitFor();
    return receipt;
  }
}

export class ReceiptPage {
  readonly root: Locator;
  /** The receipt (shown only once its sale is in the local database; never `aria-busy` since). */
  readonly stored: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByTestId('receipt');
    this.stored = page.locator('[data-testid="receipt"]:not([aria-busy])');
  }

  async receiptNumber(): Promise<string> {
    return (await this.root.getByTestId('receipt-number').textContent()) ?? '';
  }

  async orderId(): Promise<string> {
    return (await this.root.getAttribute('data-order-id')) ?? '';
  }

  async newSale(): Promise<RegisterPage> {
    await this.page.getByTestId('new-sale').click();
    const register = new RegisterPage(this.page);
    await register.scanInput.waitFor();
    return register;
  }
}

export class SalesPage {
  readonly rows: Locator;
  constructor(readonly page: Page) {
    this.rows = page.getByTestId('order-row');
  }

  async list(): Promise<{ orderId: string; receiptNumber: string; total: string; sync: string }[]> {
    const out = [];
    for (const row of await this.rows.all()) {
      out.push({
        orderId: (await row.getAttribute('data-order-id')) ?? '',
        receiptNumber: ((await row.getByTestId('order-receipt-number').textContent()) ?? '').trim(),
        total: ((await row.getByTestId('order-total').textContent()) ?? '').trim(),
        sync: (await row.getAttribute('data-sync')) ?? '',
      });
    }
    return out;
  }
}
