import type { Page } from 'playwright-core';
import { waitFor } from '../../support/wait-for.ts';

/**
 * The card terminal's timeouts in the device e2e suites (devices, returns, offline cards), ms: CI saw STATUS answers
 * miss 2 s and card sales end "unknown" with the shorter ones when the bridge, its simulators and the server under test
 * shared the test's process. The bridge now runs in its own process (test/support/device-host.ts), but the machine's
 * cores are still shared with the other suites, so the longer timeouts stay.
 */
export const E2E_TERMINAL_TIMEOUTS = { terminalResponseTimeoutMs: 12_000, terminalStatusTimeoutMs: 10_000, terminalAckTimeoutMs: 2500 } as const;

/**
 * Waits until the register shows the receipt of the card sale in progress, pressing "Check again" whenever the
 * outcome shows as unknown — what a cashier does when the terminal's answer was late (on a loaded machine an answer
 * can miss the driver's timeout; the card is never charged twice: the terminal is asked about the same payment first).
 * @param describe extra words for the failure message (e.g. the terminal's last requests)
 * @throws Error (`timed out waiting for a card receipt; …`) naming the card phase and message shown when no receipt
 *   came within `timeoutMs` (default 60 s)
 */
export async function untilCardReceipt(page: Page, options: { timeoutMs?: number; describe?: () => string } = {}): Promise<void> {
  const shownState = async () => {
    const message = page.getByTestId('card-message');
    const shown = (await message.count()) > 0;
    const phase = shown ? await message.getAttribute('data-phase') : 'no card message';
    const text = shown ? await message.textContent() : '';
    return `a card receipt; card phase ${phase}: "${text}"${options.describe ? `; ${options.describe()}` : ''}`;
  };
  await waitFor(
    shownState,
    async () => {
      if ((await page.locator('[data-testid="receipt"]').count()) > 0) return true;
      const again = page.getByTestId('card-check-again');
      if ((await again.isVisible()) && (await again.isEnabled())) await again.click({ timeout: 5_000 }).catch(() => undefined);
      return undefined;
    },
    options.timeoutMs ?? 60_000,
    200,
  );
}
