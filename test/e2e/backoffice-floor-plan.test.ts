/**
 * Back office → Floor plan in Chromium: from the empty state the owner adds an area and tables, drags a table with
 * the mouse and nudges another with the arrow keys, sees a rule broken as they type (two tables named alike: Save
 * stays off), fixes it and saves; the server holds the places shown. A save over a plan someone else saved in
 * between is refused and offers a reload. Real server + built register.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FloorPlan } from '../../core/index.ts';
import { BackOfficePage } from './pages/backoffice-page.ts';
import { RegisterPage } from './pages/register-page.ts';
import { startBrowserSuite, type BrowserSuite } from './support/browser.ts';

const TIMEOUT = 30_000;

describe('back office floor plan', () => {
  let suite: BrowserSuite;
  beforeAll(async () => {
    suite = await startBrowserSuite();
  });
  afterAll(async () => {
    await suite?.close();
  });

  const savedPlan = async (): Promise<FloorPlan> => {
    const res = await fetch(`${suite.server.baseUrl}/api/pos/floor-plan`, { headers: { authorization: `Bearer ${suite.server.staffToken}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as FloorPlan;
  };
  /** Answers the next `window.prompt` with `text`. */
  const answerPrompt = (page: Page, text: string) => page.once('dialog', (dialog) => void dialog.accept(text));

  it('adds an area and tables, places them by dragging and by keyboard, checks names as typed, and saves', async () => {
    const { page, server } = suite;
    await page.goto(server.baseUrl);
    await new RegisterPage(page).signInIfAsked(server.ownerPin);
    await new RegisterPage(page).waitForCatalog();
    await BackOfficePage.open(page, server.ownerPin);
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('button', { name: 'Floor plan' }).click();
    const editor = page.getByTestId('floor-plan');
    await editor.getByText('No areas yet').waitFor({ timeout: TIMEOUT });

    answerPrompt(page, 'Dining room');
    await editor.getByRole('button', { name: 'Add the first area' }).click();
    await editor.getByRole('tab', { name: /Dining room/ }).waitFor({ timeout: TIMEOUT });
    await editor.getByRole('button', { name: '+ Add table' }).click();
    await editor.getByRole('button', { name: '+ Add table' }).click();
    const one = editor.getByTestId('fp-table-1');
    const two = editor.getByTestId('fp-table-2');
    await two.waitFor({ timeout: TIMEOUT });
    expect(await one.getAttribute('aria-label')).toBe('Table 1, 4 seats, at 20, 20');

    // Drag table 1 by 300 × 200 plan units (the canvas is drawn at its own scale).
    const canvas = editor.getByRole('group', { name: /Dining room/ });
    const box = (await canvas.boundingBox())!;
    const scale = box.width / 1200;
    const start = (await one.boundingBox())!;
    const [sx, sy] = [start.x + start.width / 2, start.y + start.height / 2];
    await page.mouse.move(sx, sy);
    await page.mouse.down();
    await page.mouse.move(sx + 150 * scale, sy + 100 * scale, { steps: 5 });
    await page.mouse.move(sx + 300 * scale, sy + 200 * scale, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => one.getAttribute('aria-label'), { timeout: TIMEOUT }).toBe('Table 1, 4 seats, at 320, 220');

    // Table 2 selected, renamed like table 1: the rule shows at once and Save stays off.
    await two.click();
    const fields = editor.getByRole('group', { name: 'Table 2' });
    await fields.getByLabel('Name').fill('1');
    const problems = editor.getByRole('alert', { name: 'Problems to fix before saving' });
    await expect.poll(() => problems.textContent(), { timeout: TIMEOUT }).toContain('exists already');
    expect(await editor.getByRole('button', { name: 'Save floor plan' }).isDisabled()).toBe(true);
    await editor.getByRole('group', { name: 'Table 1' }).last().getByLabel('Name').fill('12');
    await expect.poll(() => problems.count(), { timeout: TIMEOUT }).toBe(0);
    await editor.getByRole('group', { name: 'Table 12' }).getByLabel('Seats').fill('6');

    // The keyboard moves the selected table: two steps right, one step down by 1 (Shift).
    const twelve = editor.getByTestId('fp-table-12');
    await twelve.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    const second = await savedPlanAfterSave();
    const tables = second.areas[0]!.tables;
    expect(second.areas.map((a) => a.name)).toEqual(['Dining room']);
    expect(tables.map((t) => [t.name, t.seats, t.x, t.y])).toEqual([
      ['1', 4, 320, 220],
      ['12', 6, 140, 21],
    ]);
    await editor.getByText(`Saved (version ${second.version})`).waitFor({ timeout: TIMEOUT });

    async function savedPlanAfterSave(): Promise<FloorPlan> {
      await editor.getByRole('button', { name: 'Save floor plan' }).click();
      await expect.poll(async () => (await savedPlan()).version, { timeout: TIMEOUT }).toBe(1);
      return savedPlan();
    }
  });

  it('refuses to save over a plan saved elsewhere in between, and reloads it on request', async () => {
    const { page, server } = suite;
    const editor = page.getByTestId('floor-plan');
    const before = await savedPlan();
    // Someone else renames the area from another screen.
    const other = await fetch(`${server.baseUrl}/api/pos/floor-plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ version: before.version, areas: [{ ...before.areas[0], name: 'Main room' }] }),
    });
    expect(other.status).toBe(200);

    await editor.getByTestId('fp-table-1').click();
    await editor.getByRole('group', { name: 'Table 1' }).getByLabel('Seats').fill('2');
    await editor.getByRole('button', { name: 'Save floor plan' }).click();
    await expect.poll(() => editor.getByRole('alert').first().textContent(), { timeout: TIMEOUT }).toContain('saved by someone else');
    await editor.getByRole('button', { name: /Reload the saved plan/ }).click();
    await editor.getByRole('tab', { name: /Main room/ }).waitFor({ timeout: TIMEOUT });
    expect((await savedPlan()).areas[0]!.tables.find((t) => t.name === '1')!.seats).toBe(4);
  });
});
