/**
 * Page objects of the register's counter tools: hold / held sales and the line tools dialog.
 */
import type { Locator, Page } from 'playwright-core';

export class CounterTools {
  readonly holdButton: Locator;
  readonly heldButton: Locator;
  readonly note: Locator;
  constructor(readonly page: Page) {
    this.holdButton = page.getByTestId('hold-sale');
    this.heldButton = page.getByTestId('held-sales-open');
    this.note = page.getByTestId('counter-note');
  }

  /** Opens the held sales (Shift+F8) and resumes the one whose label matches. */
  async resume(label: string | RegExp): Promise<void> {
    await this.heldButton.click();
    const dialog = this.page.getByRole('dialog', { name: 'Held sales' });
    await dialog.getByTestId('held-sale').filter({ hasText: label }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  /** Opens the tools of the cart line named `name` by tapping its name. */
  async editLine(name: string | RegExp): Promise<LineDialog> {
    await this.page.getByTestId('cart').getByTestId('cart-line').filter({ hasText: name }).getByTestId('cart-line-edit').click();
    const dialog = new LineDialog(this.page);
    await dialog.root.waitFor();
    return dialog;
  }
}

export class LineDialog {
  readonly root: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByRole('dialog', { name: /^Edit / });
  }
  async keypad(digits: string): Promise<this> {
    for (const d of digits) await this.root.getByTestId(`line-key-${d}`).click();
    return this;
  }
  async discount(kind: 'percent' | 'amount', text: string): Promise<this> {
    await this.root.getByTestId(kind === 'percent' ? 'line-discount-percent' : 'line-discount-amount').check();
    await this.root.getByTestId('line-discount-input').fill(text);
    return this;
  }
  async overridePrice(price: string, reason: string, pin: string): Promise<this> {
    await this.root.getByTestId('line-price-input').fill(price);
    await this.root.getByTestId('line-price-reason').fill(reason);
    await this.root.getByTestId('line-approver').locator('option').first().waitFor({ state: 'attached' });
    await this.root.getByTestId('line-approver-pin').fill(pin);
    return this;
  }
  async apply(): Promise<void> {
    await this.root.getByTestId('line-apply').click();
    await this.root.waitFor({ state: 'detached' });
  }
}
